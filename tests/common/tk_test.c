/* Shared helpers for the Criterion tests: temporary directories, running the CLI, store digests. */
#define _XOPEN_SOURCE 700
#include "tk_test.h"
#include "util/fnv.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

tk_error *tkt_err(void)
{
	static tk_error *err; /* reachable until exit: not a leak */
	if (!err)
		err = tk_error_new();
	cr_assert_not_null(err, "out of memory");
	return err;
}

const char *tkt_errmsg(void)
{
	return tk_error_message(tkt_err());
}

char *tkt_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[512];
	snprintf(tmpl, sizeof(tmpl), "%s/tktest-XXXXXX", base && *base ? base : "/tmp");
	char *d = mkdtemp(tmpl);
	cr_assert_not_null(d, "mkdtemp failed");
	return strdup(d);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void tkt_rmdir(const char *dir)
{
	if (dir)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *tkt_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

int tkt_exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

char *tkt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (s = malloc((size_t)n + 1)) != NULL) {
		if (fread(s, 1, (size_t)n, f) != (size_t)n) {
			free(s);
			s = NULL;
		} else {
			s[n] = '\0';
			if (len)
				*len = (size_t)n;
		}
	}
	fclose(f);
	return s;
}

char *tkt_figures(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/%s/%s", TK_SOURCE_DIR, dir, name);
	char *want = tkt_slurp(path, NULL);
	cr_assert(want, "%s is missing", path);
	size_t n = strlen(want);
	if (n && want[n - 1] == '\n')
		want[n - 1] = '\0';
	return want;
}

void tkt_spit(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f, "cannot write %s", path);
	cr_assert_eq(fwrite(data, 1, n, f), n, "cannot write %s", path);
	cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

void tkt_ok(struct tkt_run r)
{
	cr_assert_eq(r.code, 0, "exit %d: %s%s", r.code, r.out, r.err);
	tkt_run_free(&r);
}

int tkt_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static char *slurp_fd(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (len + 1 >= cap)
			buf = realloc(buf, cap *= 2);
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

struct tkt_run tkt_tracekitv(int n, const char *const *args)
{
	struct tkt_run r = {-1, NULL, NULL};
	char outp[] = "/tmp/tkout-XXXXXX", errp[] = "/tmp/tkerr-XXXXXX";
	int ofd = mkstemp(outp), efd = mkstemp(errp);
	cr_assert(ofd >= 0 && efd >= 0);
	pid_t pid = fork();
	if (pid < 0) /* no assertion in the child: it would report to Criterion's runner */
		cr_assert_fail("fork failed");
	if (pid == 0) {
		const char **argv = calloc((size_t)n + 2, sizeof(*argv));
		argv[0] = TK_BINARY;
		for (int i = 0; i < n; i++)
			argv[i + 1] = args[i];
		dup2(ofd, 1);
		dup2(efd, 2);
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		execv(TK_BINARY, (char *const *)argv);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	lseek(ofd, 0, SEEK_SET);
	lseek(efd, 0, SEEK_SET);
	r.out = slurp_fd(ofd);
	r.err = slurp_fd(efd);
	close(ofd);
	close(efd);
	unlink(outp);
	unlink(errp);
	return r;
}

struct tkt_run tkt_tracekit(const char *arg, ...)
{
	const char *args[64];
	int n = 0;
	va_list ap;
	va_start(ap, arg);
	for (const char *a = arg; a && n < 64; a = va_arg(ap, const char *))
		args[n++] = a;
	va_end(ap);
	return tkt_tracekitv(n, args);
}

void tkt_run_free(struct tkt_run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

uint64_t tkt_store_digest(const char *path)
{
	sqlite3 *db;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_stmt *tables;
	cr_assert_eq(sqlite3_prepare_v2(db,
					"SELECT name FROM sqlite_master WHERE type = 'table' "
					"ORDER BY name",
					-1, &tables, NULL),
		     SQLITE_OK);
	uint64_t h = TKU_FNV64_TK_OFFSET;
	while (sqlite3_step(tables) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(tables, 0);
		h = tku_fnv1a64_step(h, t, strlen(t) + 1);
		char sql[256];
		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\" ORDER BY rowid", t);
		sqlite3_stmt *rows;
		cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &rows, NULL), SQLITE_OK, "%s", sql);
		while (sqlite3_step(rows) == SQLITE_ROW) {
			for (int c = 0; c < sqlite3_column_count(rows); c++) {
				int type = sqlite3_column_type(rows, c);
				h = tku_fnv1a64_step(h, &type, sizeof(type));
				const void *b = sqlite3_column_blob(rows, c);
				int n = sqlite3_column_bytes(rows, c);
				if (b)
					h = tku_fnv1a64_step(h, b, (size_t)n);
			}
		}
		sqlite3_finalize(rows);
	}
	sqlite3_finalize(tables);
	sqlite3_close(db);
	return h;
}

/* The first column of the one row of @sql on @path: as an integer (@real 0) or a real (1). */
static void query_one(const char *path, const char *sql, int real, int64_t *i, double *d)
{
	sqlite3 *db;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s returned no row", sql);
	if (real)
		*d = sqlite3_column_type(st, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 0);
	else
		*i = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

int64_t tkt_query_int(const char *path, const char *sql)
{
	int64_t v = 0;
	query_one(path, sql, 0, &v, NULL);
	return v;
}

double tkt_query_double(const char *path, const char *sql)
{
	double v = 0;
	query_one(path, sql, 1, NULL, &v);
	return v;
}

const char *tkt_corpus_dir(void)
{
	return TK_CORPUS_DIR;
}

const char *tkt_real_dir(void)
{
	return TK_REAL_DIR;
}

int tkt_vendored(const char *rel)
{
	char *p = tkt_path(TK_REAL_DIR, rel);
	int here = tkt_exists(p);
	free(p);
	return here;
}

static int in_full_corpus_suite(void)
{
	return !strcmp(criterion_current_test->category, "full_corpus");
}

void tkt_check_split(int (*check)(int vendored), const char *what)
{
	int full = in_full_corpus_suite(), n = check(!full);
	if (full && n == 0)
		cr_skip_test("every %s is vendored in %s", what, TK_REAL_DIR);
	cr_expect(full || n > 0, "no %s is vendored in %s", what, TK_REAL_DIR);
}

char *tkt_corpus(const char *rel)
{
	char *p = tkt_path(TK_CORPUS_DIR, rel);
	if (tkt_exists(p))
		return p;
	free(p);
	p = tkt_path(TK_REAL_DIR, rel);
	if (tkt_exists(p))
		return p;
	free(p);
	return NULL;
}

char *tkt_real(const char *rel)
{
	char *p = tkt_corpus(rel);
	if (p)
		return p;
	if (in_full_corpus_suite())
		cr_skip_test("%s is not vendored and the corpus (%s) does not have it", rel,
			     TK_CORPUS_DIR);
	cr_assert_fail("%s is in neither %s nor the corpus (%s): a test outside the full_corpus "
		       "suite may only use vendored traces",
		       rel, TK_REAL_DIR, TK_CORPUS_DIR);
	return NULL;
}

char *tkt_rows(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	size_t len = 0, cap = 256;
	char *out = malloc(cap);
	cr_assert(out);
	out[0] = '\0';
	cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
	cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);
			if (!v)
				v = "NULL";
			size_t need = len + strlen(v) + 3;
			if (need > cap) {
				while (need > cap)
					cap *= 2;
				out = realloc(out, cap);
				cr_assert(out);
			}
			len += (size_t)sprintf(out + len, "%s%s", i ? "|" : (len ? "\n" : ""), v);
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	return out;
}

int tkt_spawn_until(const char *dir, const char *prefix, int *seen, const char *const *args)
{
	const char *argv[64] = {TK_BINARY};
	size_t n = 1;
	while (args[n - 1] && n < 63) {
		argv[n] = args[n - 1];
		n++;
	}
	pid_t pid = fork();
	cr_assert(pid >= 0, "fork failed");
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execv(TK_BINARY, (char *const *)argv);
		_exit(127);
	}
	*seen = 0;
	for (int i = 0; i < 6000 && !*seen; i++) {
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d)))
			*seen |= !strncmp(e->d_name, prefix, strlen(prefix));
		if (d)
			closedir(d);
		if (!*seen)
			usleep(10000);
	}
	return (int)pid;
}
