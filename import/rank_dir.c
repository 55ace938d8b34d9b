/*
 * Rank directories: a job's Chrome/Kineto JSON traces, one per rank, anywhere under one
 * directory (tk_rank_dir_list()). The tree is hostile input: hidden entries are left out, the
 * walk is bounded (depth, entries), and a link to a directory is followed only while it stays
 * inside the directory and does not lead back up (a cycle): otherwise the tree is refused. Each
 * *.json / *.json.gz is peeked (import/chrome_json_peek.c); the list is ordered by rank, then
 * by path with digit runs compared as numbers.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <tracekit/import.h>

#include "util/vec.h"

#define RANK_DIR_MAX_DEPTH 32		/* directories below DIR */
#define RANK_DIR_MAX_ENTRIES (1L << 20) /* directory entries looked at, all directories */

struct walk {
	const char *top; /* DIR as given */
	char *top_real;	 /* its real path */
	struct stat *up; /* the directories from DIR down to the current one */
	char **paths;	 /* candidate files */
	size_t npaths, cap_paths;
	long entries;
	tk_error *err;
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !strcmp(s + n - m, suffix);
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s%s%s", a, a[0] && a[strlen(a) - 1] == '/' ? "" : "/", b);
	return p;
}

static int nomem(struct walk *w)
{
	return tk_error_push_from(w->err, "import", TK_ENOMEM, "out of memory listing '%s'",
				  w->top);
}

/* A link to a directory: TK_OK when its target lies inside DIR, else refused. */
static int check_link(struct walk *w, const char *path)
{
	char *real = realpath(path, NULL);
	size_t n = strlen(w->top_real);
	int inside = real && !strncmp(real, w->top_real, n) &&
		     (real[n] == '/' || real[n] == '\0' || !strcmp(w->top_real, "/"));
	int rc = TK_OK;
	if (!real) {
		tk_error_push_from(w->err, "os", TK_EIO, "%s", strerror(errno));
		rc = tk_error_push_from(w->err, "import", TK_EIO, "cannot read '%s'", path);
	} else if (!inside)
		rc = tk_error_push_from(
		    w->err, "import", TK_EINVAL,
		    "'%s' links to '%s', outside '%s': a rank directory is read "
		    "inside it only (give that directory as an input of its own)",
		    path, real, w->top);
	free(real);
	return rc;
}

static int walk_dir(struct walk *w, const char *path, int depth)
{
	DIR *d = opendir(path);
	int rc = TK_OK;
	if (!d) {
		tk_error_push_from(w->err, "os", TK_EIO, "%s", strerror(errno));
		return tk_error_push_from(w->err, "import", TK_EIO, "cannot read '%s'", path);
	}
	struct dirent *de;
	while (rc == TK_OK && (errno = 0, de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue; /* hidden, and . and .. */
		if (++w->entries > RANK_DIR_MAX_ENTRIES) {
			rc = tk_error_push_from(w->err, "import", TK_EINVAL,
						"'%s': more than %ld entries: not read as a rank "
						"directory",
						w->top, RANK_DIR_MAX_ENTRIES);
			break;
		}
		char *sub = join(path, de->d_name);
		struct stat sb, lsb;
		if (!sub) {
			rc = nomem(w);
			break;
		}
		if (stat(sub, &sb) != 0 || lstat(sub, &lsb) != 0) {
			free(sub); /* a dangling link, or gone meanwhile: not a trace */
			continue;
		}
		if (S_ISDIR(sb.st_mode)) {
			for (int i = 0; i <= depth && rc == TK_OK; i++)
				if (w->up[i].st_dev == sb.st_dev && w->up[i].st_ino == sb.st_ino)
					rc = tk_error_push_from(
					    w->err, "import", TK_EINVAL,
					    "'%s' leads back to '%s' (a cycle of links): not read "
					    "as a rank directory",
					    sub, w->top);
			if (rc == TK_OK && S_ISLNK(lsb.st_mode))
				rc = check_link(w, sub);
			if (rc == TK_OK && depth + 1 >= RANK_DIR_MAX_DEPTH)
				rc = tk_error_push_from(w->err, "import", TK_EINVAL,
							"'%s': directories nested deeper than %d "
							"levels below '%s': not "
							"read as a rank directory",
							sub, RANK_DIR_MAX_DEPTH, w->top);
			if (rc == TK_OK) {
				w->up[depth + 1] = sb;
				rc = walk_dir(w, sub, depth + 1);
			}
		} else if (S_ISREG(sb.st_mode) &&
			   (ends_with(de->d_name, ".json") || ends_with(de->d_name, ".json.gz"))) {
			if (TKU_GROW(w->paths, w->cap_paths, w->npaths + 1, 16) != TK_OK) {
				free(sub);
				rc = nomem(w);
				break;
			}
			w->paths[w->npaths++] = sub;
			sub = NULL;
		}
		free(sub);
	}
	if (rc == TK_OK && errno) {
		tk_error_push_from(w->err, "os", TK_EIO, "%s", strerror(errno));
		rc = tk_error_push_from(w->err, "import", TK_EIO, "cannot read '%s'", path);
	}
	closedir(d);
	return rc;
}

/* @a against @b, digit runs compared as numbers ("rank2" < "rank10"); bytes otherwise. */
static int natcmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t na = 0, nb = 0;
			while (isdigit((unsigned char)a[na]))
				na++;
			while (isdigit((unsigned char)b[nb]))
				nb++;
			if (na != nb)
				return na < nb ? -1 : 1;
			int c = memcmp(a, b, na);
			if (c)
				return c;
			a += na;
			b += nb;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++, b++;
		}
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return strcmp(a0, b0); /* "rank01" and "rank1": still one order */
}

static int cmp_file(const void *pa, const void *pb)
{
	const struct tk_rank_file *a = pa, *b = pb;
	if ((a->rank == TK_NONE) != (b->rank == TK_NONE))
		return a->rank == TK_NONE ? 1 : -1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return natcmp(a->rel, b->rel);
}

int tk_rank_dir_list(const char *dir, unsigned flags, struct tk_rank_file **files, int *nfiles,
		     tk_error *err)
{
	struct walk w = {0};
	struct tk_rank_file *out = NULL;
	size_t n = 0, skip = strlen(dir);
	int rc = TK_OK;
	*files = NULL;
	*nfiles = 0;
	tk_error_clear(err);
	w.top = dir;
	w.err = err;
	if (!(w.up = calloc(RANK_DIR_MAX_DEPTH + 1, sizeof(*w.up))) ||
	    !(w.top_real = realpath(dir, NULL)) || stat(dir, &w.up[0]) != 0) {
		if (!w.up)
			rc = nomem(&w);
		else {
			tk_error_push_from(err, "os", TK_EIO, "%s", strerror(errno));
			rc = tk_error_push_from(err, "import", TK_EIO, "cannot read '%s'", dir);
		}
		goto out;
	}
	if ((rc = walk_dir(&w, dir, 0)) != TK_OK)
		goto out;
	if (w.npaths > INT_MAX || !(out = calloc(w.npaths + 1, sizeof(*out)))) {
		rc = nomem(&w);
		goto out;
	}
	if (skip && dir[skip - 1] != '/')
		skip++;
	for (size_t i = 0; i < w.npaths && rc == TK_OK; i++) {
		rc = tk_rank_file_peek(w.paths[i], flags, &out[n], err);
		if (rc == TK_EFORMAT) { /* not a trace: left out */
			tk_error_clear(err);
			rc = TK_OK;
		} else if (rc == TK_OK) {
			out[n].rel = out[n].path + skip;
			n++;
		}
	}
	if (rc != TK_OK)
		goto out;
	if (!n) {
		rc = tk_error_push_from(
		    err, "import", TK_ENOTFOUND,
		    "'%s': no Chrome/Kineto JSON traces found (*.json, *.json.gz)", dir);
		goto out;
	}
	qsort(out, n, sizeof(*out), cmp_file);
	*files = out;
	*nfiles = (int)n;
	out = NULL;
	n = 0;
out:
	tk_rank_files_free(out, (int)n);
	for (size_t i = 0; i < w.npaths; i++)
		free(w.paths[i]);
	free(w.paths);
	free(w.up);
	free(w.top_real);
	return rc;
}

void tk_rank_files_free(struct tk_rank_file *files, int n)
{
	for (int i = 0; files && i < n; i++) {
		free(files[i].path);
		free(files[i].host);
	}
	free(files);
}
