/*
 * XPlane importer: TensorBoard logdir discovery. A logdir holds
 * <logdir>/plugins/profile/<run>/<host>.xplane.pb; tk_xplane_list_runs() accepts the logdir, its
 * plugins/profile directory or a run directory, and lists the runs newest first.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <tracekit/import.h>

#include "store_internal.h"

#define XPLANE_EXT ".xplane.pb"

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", a, b);
	return p;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_free(struct tk_xplane_run *r)
{
	for (int i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	free(r->files);
	free(r->name);
	free(r->dir);
	memset(r, 0, sizeof(*r));
}

/* Fill @r with the .xplane.pb files of @dir; 0 with r->nfiles possibly 0, -1 out of memory. */
static int scan_run(const char *dir, const char *name, struct tk_xplane_run *r)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int cap = 0;
	memset(r, 0, sizeof(*r));
	r->start_ns = r->end_ns = TK_NONE;
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name), e = strlen(XPLANE_EXT);
		if (n <= e || strcmp(de->d_name + n - e, XPLANE_EXT))
			continue;
		char *p = join(dir, de->d_name);
		struct stat sb;
		if (!p)
			goto nomem;
		if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
			free(p);
			continue;
		}
		if (r->nfiles == cap) {
			cap = cap ? cap * 2 : 8;
			char **f = realloc(r->files, (size_t)cap * sizeof(*f));
			if (!f) {
				free(p);
				goto nomem;
			}
			r->files = f;
		}
		r->files[r->nfiles++] = p;
		r->bytes += sb.st_size;
		int64_t mt = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
		if (mt > r->mtime_ns)
			r->mtime_ns = mt;
	}
	closedir(d);
	d = NULL;
	if (r->nfiles) {
		qsort(r->files, (size_t)r->nfiles, sizeof(*r->files), cmp_str);
		r->dir = strdup(dir);
		r->name = strdup(name);
		if (!r->dir || !r->name)
			goto nomem;
	}
	return 0;
nomem:
	if (d)
		closedir(d);
	run_free(r);
	return -1;
}

static int cmp_run(const void *a, const void *b)
{
	const struct tk_xplane_run *x = a, *y = b;
	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns > y->mtime_ns ? -1 : 1;
	return -strcmp(x->name, y->name); /* run names are timestamps: later sorts first */
}

int tk_xplane_list_runs(const char *path, struct tk_xplane_run **runs, int *nruns, char *err,
			size_t errlen)
{
	struct tk_xplane_run *out = NULL, one;
	int n = 0, cap = 0, rc = TK_OK;
	char *profile = NULL;
	DIR *d = NULL;
	*runs = NULL;
	*nruns = 0;
	if (!is_dir(path)) {
		tk_fmt(err, errlen, "'%s': not a directory (expected a logdir or a run directory)",
		       path);
		return TK_ENOTFOUND;
	}
	const char *base = strrchr(path, '/');
	base = base && base[1] ? base + 1 : path;
	/* A run directory itself? */
	if (scan_run(path, base, &one) < 0)
		goto nomem;
	if (one.nfiles) {
		if (!(out = malloc(sizeof(*out)))) {
			run_free(&one);
			goto nomem;
		}
		out[0] = one;
		n = 1;
		goto done;
	}
	if (!(profile = join(path, "plugins/profile")))
		goto nomem;
	const char *dir = is_dir(profile) ? profile : path;
	if (!(d = opendir(dir))) {
		tk_fmt(err, errlen, "cannot read '%s': %s", dir, strerror(errno));
		rc = TK_EIO;
		goto out;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *sub = join(dir, de->d_name);
		if (!sub)
			goto nomem;
		int ok = scan_run(sub, de->d_name, &one);
		free(sub);
		if (ok < 0)
			goto nomem;
		if (!one.nfiles)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			struct tk_xplane_run *g = realloc(out, (size_t)cap * sizeof(*g));
			if (!g) {
				run_free(&one);
				goto nomem;
			}
			out = g;
		}
		out[n++] = one;
	}
done:
	if (!n) {
		tk_fmt(err, errlen,
		       "'%s': no profile runs found (expected "
		       "<logdir>/plugins/profile/<run>/<host>" XPLANE_EXT ")",
		       path);
		rc = TK_ENOTFOUND;
		goto out;
	}
	qsort(out, (size_t)n, sizeof(*out), cmp_run);
	*runs = out;
	*nruns = n;
	out = NULL;
	n = 0;
	goto out;
nomem:
	tk_fmt(err, errlen, "out of memory listing '%s'", path);
	rc = TK_ENOMEM;
out:
	if (d)
		closedir(d);
	free(profile);
	tk_xplane_runs_free(out, n);
	return rc;
}

void tk_xplane_runs_free(struct tk_xplane_run *runs, int nruns)
{
	for (int i = 0; runs && i < nruns; i++)
		run_free(&runs[i]);
	free(runs);
}
