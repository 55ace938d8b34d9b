/*
 * XPlane importer: TensorBoard logdir discovery. A logdir holds
 * <logdir>/plugins/profile/<run>/<host>.xplane.pb; tk_xplane_list_runs() accepts the logdir, its
 * plugins/profile directory or a run directory, and lists the runs newest first, each with its
 * profiled time span read cheaply from its files (the Task Environment plane, else line headers).
 * Newest means the latest profile start; a run whose files do not record one is placed by the
 * date its name spells (TensorBoard names runs 2024_05_01_12_30_45); runs with neither come
 * after those, newest file mtime first (an mtime is when a copy was made, not when it ran).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <unistd.h>

#include "message.h"
#define TK_XPLANE_NO_STATE
#include "xplane_internal.h"
#include "util/vec.h"

#define XPLANE_EXT ".xplane.pb"
/* Line timestamps below 2000-01-01 are relative to the session (normalized files), not epoch. */
#define EPOCH_2000_NS 946684800000000000LL

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

static int name_is(const uint8_t *n, size_t len, const char *s)
{
	return strlen(s) == len && !memcmp(n, s, len);
}

/* The name of an XPlane (@data, @len): field 2, read until found; 0, or -1 on bad input. */
static int plane_name(const struct xp_src *s, const uint8_t *data, size_t len, const uint8_t **name,
		      size_t *nlen)
{
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	int r;
	*name = (const uint8_t *)"";
	*nlen = 0;
	while ((r = xp_next(s, &c, &f, "XPlane")) > 0)
		if (f.num == 2 && f.wt == XP_LEN) {
			*name = f.data;
			*nlen = f.len;
			return 0;
		}
	return r;
}

/*
 * profile_start_time / profile_stop_time of the Task Environment plane (@data, @len) into
 * span[0], span[1] (left alone when absent); 0, or -1 on bad input.
 */
static int task_env_span(const struct xp_src *s, const uint8_t *data, size_t len, int64_t *span)
{
	static const char *const names[2] = {"profile_start_time", "profile_stop_time"};
	int64_t ids[2] = {0, 0};
	int have[2] = {0, 0}, r;
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	/* The stat metadata ids of the two names (map entries {1: key, 2: XStatMetadata}). */
	while ((r = xp_next(s, &c, &f, "XPlane")) > 0) {
		if (f.num != 5 || f.wt != XP_LEN)
			continue;
		struct xp_cur e = {f.data, f.data + f.len}, m;
		struct xp_field ef, mf;
		int64_t key = 0;
		int which = -1;
		while ((r = xp_next(s, &e, &ef, "stat_metadata entry")) > 0) {
			if (ef.num == 1 && ef.wt == XP_VARINT)
				key = (int64_t)ef.v;
			if (ef.num != 2 || ef.wt != XP_LEN)
				continue;
			m = (struct xp_cur){ef.data, ef.data + ef.len};
			while ((r = xp_next(s, &m, &mf, "XStatMetadata")) > 0)
				if (mf.num == 2 && mf.wt == XP_LEN)
					which = name_is(mf.data, mf.len, names[0])   ? 0
						: name_is(mf.data, mf.len, names[1]) ? 1
										     : -1;
			if (r < 0)
				return -1;
		}
		if (r < 0)
			return -1;
		if (which >= 0) {
			ids[which] = key;
			have[which] = 1;
		}
	}
	if (r < 0)
		return -1;
	/* The plane's stats (field 6) that use them. */
	c = (struct xp_cur){data, data + len};
	while ((r = xp_next(s, &c, &f, "XPlane")) > 0) {
		struct xp_stat st;
		int64_t v;
		if (f.num != 6 || f.wt != XP_LEN)
			continue;
		if (xp_stat_decode(s, f.data, f.len, &st) < 0)
			return -1;
		for (int i = 0; i < 2; i++)
			if (have[i] && st.md == ids[i] && xp_stat_int(&st, &v))
				span[i] = v;
	}
	return r;
}

/*
 * Fallback without a Task Environment: min and max XLine timestamp_ns over the planes. Each
 * line is read up to its first event only (the header fields precede the events on the wire),
 * so no event is decoded. 0, or -1 on bad input.
 */
static int line_span(const struct xp_src *s, const uint8_t *data, size_t len, int64_t *lo,
		     int64_t *hi)
{
	struct xp_cur c = {data, data + len};
	struct xp_field f, pf, lf;
	int r;
	while ((r = xp_next(s, &c, &f, "XSpace")) > 0) {
		if (f.num != 1 || f.wt != XP_LEN)
			continue;
		struct xp_cur pc = {f.data, f.data + f.len};
		while ((r = xp_next(s, &pc, &pf, "XPlane")) > 0) {
			if (pf.num != 3 || pf.wt != XP_LEN)
				continue;
			struct xp_cur lc = {pf.data, pf.data + pf.len};
			int64_t ts = 0;
			while ((r = xp_next(s, &lc, &lf, "XLine")) > 0 && lf.num != 4)
				if (lf.num == 3 && lf.wt == XP_VARINT)
					ts = (int64_t)lf.v;
			if (r < 0)
				return -1;
			*lo = ts < *lo ? ts : *lo;
			*hi = ts > *hi ? ts : *hi;
		}
		if (r < 0)
			return -1;
	}
	return r;
}

/*
 * The profiled time span of one .xplane.pb file (Unix epoch ns) into span[0..1], each TK_NONE
 * when unknown: the Task Environment plane's profile_start_time / profile_stop_time, else the
 * min / max line timestamp when those are absolute. Reads only the few pages it needs; a file
 * that cannot be read or does not parse leaves both TK_NONE.
 */
static void file_span(const char *path, int64_t *span)
{
	struct stat sb;
	void *map = MAP_FAILED;
	int64_t env[2] = {TK_NONE, TK_NONE}, lo = INT64_MAX, hi = INT64_MIN;
	int r, fd = open(path, O_RDONLY);
	span[0] = span[1] = TK_NONE;
	if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0)
		goto out;
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	madvise(map, (size_t)sb.st_size, MADV_RANDOM); /* no read-ahead: few pages are touched */
	const uint8_t *data = map;
	size_t len = (size_t)sb.st_size;
	struct xp_src s = {NULL, path, data};
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	while ((r = xp_next(&s, &c, &f, "XSpace")) > 0) {
		const uint8_t *nm;
		size_t nl;
		if (f.num != 1 || f.wt != XP_LEN)
			continue;
		if (plane_name(&s, f.data, f.len, &nm, &nl) < 0)
			goto out;
		if (name_is(nm, nl, "Task Environment") &&
		    task_env_span(&s, f.data, f.len, env) < 0)
			goto out;
	}
	if (r < 0)
		goto out;
	if (env[0] != TK_NONE) {
		span[0] = env[0];
		span[1] = env[1] != TK_NONE && env[1] >= env[0] ? env[1] : TK_NONE;
		goto out;
	}
	if (line_span(&s, data, len, &lo, &hi) == 0 && lo != INT64_MAX && lo >= EPOCH_2000_NS) {
		span[0] = lo;
		span[1] = hi;
	}
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)sb.st_size);
	if (fd >= 0)
		close(fd);
}

/* The span of a run: the earliest start and latest end over its files that have one. */
static void run_span(struct tk_xplane_run *r)
{
	for (int i = 0; i < r->nfiles; i++) {
		int64_t span[2];
		file_span(r->files[i], span);
		if (span[0] != TK_NONE && (r->start_ns == TK_NONE || span[0] < r->start_ns))
			r->start_ns = span[0];
		if (span[1] != TK_NONE && (r->end_ns == TK_NONE || span[1] > r->end_ns))
			r->end_ns = span[1];
	}
}

/* Days from 1970-01-01 to the civil date @y-@m-@d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * The date and time a run name spells, as Unix epoch ns (read as UTC), or TK_NONE: the first
 * YYYY?MM?DD?HH?MM?SS in it, where each ? is one of "_-.:T " or nothing (2024_05_01_12_30_45,
 * 2024-05-01T12:30:45, 20240501-123045), with a plausible date and time (years 1970 to 2261).
 */
static int64_t name_time(const char *name)
{
	static const int width[6] = {4, 2, 2, 2, 2, 2};
	for (const char *p = name; *p; p++) {
		const char *q = p;
		int v[6], ok = 1;
		if (p > name && p[-1] >= '0' && p[-1] <= '9')
			continue;
		for (int f = 0; f < 6 && ok; f++) {
			if (f && *q && strchr("_-.:T ", *q))
				q++;
			v[f] = 0;
			for (int k = 0; k < width[f] && ok; k++, q++)
				ok =
				    *q >= '0' && *q <= '9' ? (v[f] = v[f] * 10 + (*q - '0'), 1) : 0;
		}
		if (!ok || (*q >= '0' && *q <= '9'))
			continue;
		/* epoch ns fit an int64 until 2262-04-11: later years are not times we can hold */
		if (v[0] < 1970 || v[0] > 2261 || v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 ||
		    v[3] > 23 || v[4] > 59 || v[5] > 60)
			continue;
		int64_t days = days_from_civil(v[0], v[1], v[2]);
		return ((days * 24 + v[3]) * 60 + v[4]) * 60 * 1000000000LL +
		       (int64_t)v[5] * 1000000000LL;
	}
	return TK_NONE;
}

/* Fill @r with the .xplane.pb files of @dir; 0 with r->nfiles possibly 0, -1 out of memory. */
static int scan_run(const char *dir, const char *name, struct tk_xplane_run *r)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	memset(r, 0, sizeof(*r));
	r->start_ns = r->end_ns = r->name_ns = TK_NONE;
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
		if (TKU_GROW(r->files, cap, (size_t)r->nfiles + 1, 8) != TK_OK) {
			free(p);
			goto nomem;
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
		r->name_ns = name_time(r->name);
		run_span(r);
	}
	return 0;
nomem:
	if (d)
		closedir(d);
	run_free(r);
	return -1;
}

/* The time a run records: its profile start, else the time its name spells (TK_NONE: none). */
static int64_t run_when(const struct tk_xplane_run *r)
{
	return r->start_ns != TK_NONE ? r->start_ns : r->name_ns;
}

static int cmp_i64_desc(int64_t x, int64_t y)
{
	return x != y ? (x > y ? -1 : 1) : 0;
}

/* Newest first: runs that record a time by it, then the others by mtime (a copy's date). */
static int cmp_run(const void *a, const void *b)
{
	const struct tk_xplane_run *x = a, *y = b;
	int64_t wx = run_when(x), wy = run_when(y);
	int c = (wx == TK_NONE) - (wy == TK_NONE);
	if (!c)
		c = cmp_i64_desc(wx, wy);
	if (!c)
		c = cmp_i64_desc(x->name_ns, y->name_ns);
	if (!c)
		c = cmp_i64_desc(x->mtime_ns, y->mtime_ns);
	return c ? c : -strcmp(x->name, y->name); /* later names first */
}

int tk_xplane_list_runs(const char *path, struct tk_xplane_run **runs, int *nruns, tk_error *err)
{
	struct tk_xplane_run *out = NULL, one;
	int n = 0, rc = TK_OK;
	size_t cap = 0;
	char *profile = NULL;
	DIR *d = NULL;
	*runs = NULL;
	*nruns = 0;
	tk_error_clear(err);
	if (!is_dir(path))
		return tk_error_push_from(
		    err, "import", TK_ENOTFOUND,
		    "'%s': not a directory (expected a logdir or a run directory)", path);
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
		tk_error_push_from(err, "os", TK_EIO, "%s", strerror(errno));
		rc = tk_error_push_from(err, "import", TK_EIO, "cannot read '%s'", dir);
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
		if (TKU_GROW(out, cap, (size_t)n + 1, 8) != TK_OK) {
			run_free(&one);
			goto nomem;
		}
		out[n++] = one;
	}
done:
	if (!n) {
		rc = tk_error_push_from(err, "import", TK_ENOTFOUND,
					"'%s': no profile runs found (expected "
					"<logdir>/plugins/profile/<run>/<host>" XPLANE_EXT ")",
					path);
		goto out;
	}
	qsort(out, (size_t)n, sizeof(*out), cmp_run);
	*runs = out;
	*nruns = n;
	out = NULL;
	n = 0;
	goto out;
nomem:
	rc = tk_error_push_from(err, "import", TK_ENOMEM, "out of memory listing '%s'", path);
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
