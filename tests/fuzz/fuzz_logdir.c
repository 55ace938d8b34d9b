/*
 * Fuzz target: TensorBoard logdir discovery (`tracekit ls`, `tracekit import LOGDIR`). The bytes
 * describe a small tree, built under the scratch directory on tmpfs, then listed with
 * tk_xplane_list_runs() from the logdir, its plugins/profile directory and each run found.
 *
 * Encoding, up to FZ_MAX_ENTRIES entries until the input ends, each:
 *   kind byte: low 2 bits 0 file, 1 directory, 2 symbolic link, 3 file; bits 2-3: components-1
 *   components: one byte each; below 0xF0 a name from the dictionary below, else a raw name
 *               (length byte + bytes; '/' and NUL become '_', "." and ".." become "_")
 *   file: 2-byte little-endian length (capped at what remains) + the content;
 *   link: one more component byte: the target, relative to the link's directory.
 * Parent directories are made as needed; entries that clash are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <unistd.h>

#include "fuzz_util.h"

#define FZ_MAX_ENTRIES 24
#define FZ_MAX_NAME 40

static const char *const dict[] = {
    "plugins",
    "profile",
    "2024_01_01_00_00_00",
    "2024_01_02_00_00_00",
    "run",
    "host.xplane.pb",
    "h2.xplane.pb",
    ".xplane.pb",
    "x.xplane.pb.tmp",
    ".hidden",
    "trace.json.gz",
    "a",
    "xplane.pb",
    "..xplane.pb",
    "b.XPLANE.PB",
};
#define NDICT (sizeof(dict) / sizeof(dict[0]))

static void component(struct fz_in *in, char *out)
{
	uint8_t c = fz_u8(in);
	if (c < 0xF0) {
		snprintf(out, FZ_MAX_NAME + 1, "%s", dict[c % NDICT]);
		return;
	}
	fz_str(in, out, FZ_MAX_NAME);
	for (char *p = out; *p; p++)
		if (*p == '/')
			*p = '_';
	if (!*out || !strcmp(out, ".") || !strcmp(out, ".."))
		strcpy(out, "_");
}

/* mkdir -p of the directory part of @path (below @root). */
static void make_parents(const char *root, char *path)
{
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
}

static void build_tree(const char *root, struct fz_in *in)
{
	char path[1024], name[FZ_MAX_NAME + 1];
	for (int e = 0; e < FZ_MAX_ENTRIES && in->n; e++) {
		uint8_t kind = fz_u8(in);
		int depth = 1 + ((kind >> 2) & 3);
		size_t len = (size_t)snprintf(path, sizeof(path), "%s", root);
		for (int i = 0; i < depth; i++) {
			component(in, name);
			len += (size_t)snprintf(path + len, sizeof(path) - len, "/%s", name);
		}
		make_parents(root, path);
		switch (kind & 3) {
		case 1:
			mkdir(path, 0700);
			break;
		case 2:
			component(in, name);
			if (symlink(name, path) != 0) /* it exists, or a parent is a file */
				name[0] = '\0';
			break;
		default: {
			size_t n = (size_t)fz_u64(in, 2);
			n = n > in->n ? in->n : n;
			fz_try_write(path, in->p, n); /* fails when a parent is a file */
			in->p += n;
			in->n -= n;
		}
		}
	}
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* The time a run records (include/tracekit/import.h): its profile start, else its name's. */
static int64_t recorded(const struct tk_xplane_run *r)
{
	return r->start_ns != TK_NONE ? r->start_ns : r->name_ns;
}

/* Newest first: runs that record a time by it, then the others by their files' mtime. */
static int in_order(const struct tk_xplane_run *a, const struct tk_xplane_run *b)
{
	int64_t wa = recorded(a), wb = recorded(b);
	if (wa != TK_NONE && wb != TK_NONE)
		return wa >= wb;
	if (wa == TK_NONE && wb == TK_NONE)
		return a->mtime_ns >= b->mtime_ns;
	return wa != TK_NONE;
}

/* List @path and check what the listing promises; returns the runs (caller frees). */
static void list(const char *path, int depth)
{
	struct tk_xplane_run *runs = NULL;
	int nruns = 0;
	int rc = tk_xplane_list_runs(path, &runs, &nruns, fz_err());
	fz_status(rc, fz_errmsg(), "tk_xplane_list_runs");
	fz_check(rc != TK_OK || nruns > 0, "listed no runs but succeeded", path);
	for (int i = 0; i < nruns; i++) {
		const struct tk_xplane_run *r = &runs[i];
		fz_check(r->nfiles > 0 && r->name && r->dir && r->bytes >= 0, "run", r->dir);
		fz_check(i == 0 || in_order(&runs[i - 1], r), "runs newest first", r->dir);
		fz_check(r->start_ns == TK_NONE || r->end_ns == TK_NONE || r->start_ns <= r->end_ns,
			 "run span ordered", r->dir);
		for (int f = 0; f < r->nfiles; f++) {
			fz_check(ends_with(r->files[f], ".xplane.pb"), "file name", r->files[f]);
			fz_check(f == 0 || strcmp(r->files[f - 1], r->files[f]) < 0, "files sorted",
				 r->files[f]);
		}
		if (depth == 0)
			list(r->dir, 1);
	}
	tk_xplane_runs_free(runs, nruns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char root[600], profile[700];
	struct fz_in in = {data, size};
	snprintf(root, sizeof(root), "%s", fz_path("logdir"));
	snprintf(profile, sizeof(profile), "%s/plugins/profile", root);
	fz_rmtree(root);
	fz_check(mkdir(root, 0700) == 0, "cannot make the logdir", root);
	build_tree(root, &in);
	list(root, 0);
	list(profile, 0);
	fz_rmtree(root);
	return 0;
}
