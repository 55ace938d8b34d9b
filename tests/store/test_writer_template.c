/*
 * Tests of store creation (store/writer.c): the empty-store template (the first tk_writer_create()
 * of a process builds the schema through SQLite, later ones copy what it left: the stores both
 * write must be the same bytes, also as a fresh process, the tracekit binary, writes them, and
 * first creations racing in two threads must each give a good store), and where the writer puts
 * the sort runs of the indexes it builds.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracekit/error.h>
#include <tracekit/store.h>
#include <tracekit/synth.h>

#include "tk_test.h"
#include "writer_internal.h"

/* The synthetic trace of @events events (seed 1) written to @path through the library. */
static int write_synth(const char *path, int64_t events)
{
	struct tk_synth_options o;
	tk_writer *w = NULL;
	tk_synth_defaults(&o);
	o.events = events;
	o.seed = 1;
	int rc = tk_writer_create(path, &w);
	if (rc == TK_OK)
		rc = tk_synth_write(w, &o);
	if (rc != TK_OK) {
		fprintf(stderr, "write_synth %s: %s\n", path, tk_writer_errmsg(w));
		tk_writer_abort(w);
		return rc;
	}
	tk_error *err = tk_error_new(); /* its own: write_synth runs on several threads */
	rc = tk_writer_finish(w, err);
	if (rc != TK_OK)
		fprintf(stderr, "write_synth %s: %s\n", path, tk_error_message(err));
	tk_error_free(err);
	return rc;
}

/* The bytes of @path (malloc'd), their number in *@len. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot read %s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	cr_assert_geq(n, 0);
	rewind(f);
	unsigned char *buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void assert_same_bytes(const char *a, const char *b)
{
	size_t la, lb;
	unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
	cr_assert_eq(la, lb, "%s has %zu bytes, %s %zu", a, la, b, lb);
	size_t i = 0;
	while (i < la && x[i] == y[i])
		i++;
	cr_assert_eq(i, la, "%s and %s differ first at byte %zu", a, b, i);
	free(x);
	free(y);
}

static void assert_integrity(const char *path)
{
	char *ok = tkt_rows(path, "PRAGMA integrity_check");
	cr_assert_str_eq(ok, "ok", "%s: %s", path, ok);
	free(ok);
}

/* A store written through SQLite's schema (the first creation) and one from the template (the
 * second) are the same bytes, and the same as a fresh tracekit process writes; synth stores do
 * not depend on the time or the run (checked: the binary gives the same bytes twice). */
Test(writer_template, later_creations_write_the_same_bytes)
{
	char *dir = tkt_mkdtemp();
	char *first = tkt_path(dir, "first.db"), *later = tkt_path(dir, "later.db");
	char *cli1 = tkt_path(dir, "cli1.db"), *cli2 = tkt_path(dir, "cli2.db");
	cr_assert(!tkw_template_ready(), "no store was created yet in this process");
	cr_assert_eq(write_synth(first, 20000), TK_OK);
	cr_assert(tkw_template_ready(), "the first creation leaves the template");
	cr_assert_eq(write_synth(later, 20000), TK_OK);
	assert_same_bytes(first, later);
	assert_integrity(later);
	cr_assert_eq(tkt_query_int(later, "SELECT count(*) FROM events"),
		     tkt_query_int(first, "SELECT count(*) FROM events"));
	const char *cli_out[] = {cli1, cli2};
	for (int i = 0; i < 2; i++) {
		struct tkt_run r = tkt_tracekit("synth", "-o", cli_out[i], "--events", "20000",
						"--seed", "1", NULL);
		cr_assert_eq(r.code, 0, "synth: %s", r.err);
		tkt_run_free(&r);
	}
	assert_same_bytes(cli1, cli2);
	assert_same_bytes(cli1, later);
	free(first), free(later), free(cli1), free(cli2);
	tkt_rmdir(dir);
	free(dir);
}

/* An empty store (only what create writes) and a failed one: the template changes neither. */
Test(writer_template, empty_and_aborted_stores)
{
	char *dir = tkt_mkdtemp();
	char *a = tkt_path(dir, "a.db"), *b = tkt_path(dir, "b.db"), *c = tkt_path(dir, "c.db");
	const char *paths[] = {a, b};
	for (int i = 0; i < 2; i++) {
		tk_writer *w = NULL;
		cr_assert_eq(tk_writer_create(paths[i], &w), TK_OK);
		cr_assert_eq(tk_writer_finish(w, tkt_err()), TK_OK, "%s", tkt_errmsg());
	}
	assert_same_bytes(a, b);
	assert_integrity(b);
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(c, &w), TK_OK);
	tk_writer_abort(w);
	cr_assert_eq(tkt_count_entries(dir), 2, "an aborted store leaves nothing");
	free(a), free(b), free(c);
	tkt_rmdir(dir);
	free(dir);
}

struct racer {
	char *path[3];
	int rc;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	r->rc = TK_OK;
	for (int i = 0; i < 3 && r->rc == TK_OK; i++)
		r->rc = write_synth(r->path[i], 3000);
	return NULL;
}

/* Two threads create their first stores at once (this test runs in a process of its own): all
 * stores are good and the same bytes as one written afterwards from the template. */
Test(writer_template, concurrent_first_creations)
{
	char *dir = tkt_mkdtemp();
	struct racer r[2];
	pthread_t th[2];
	char name[32];
	cr_assert(!tkw_template_ready());
	for (int t = 0; t < 2; t++)
		for (int i = 0; i < 3; i++) {
			snprintf(name, sizeof(name), "t%d_%d.db", t, i);
			r[t].path[i] = tkt_path(dir, name);
		}
	for (int t = 0; t < 2; t++)
		cr_assert_eq(pthread_create(&th[t], NULL, race, &r[t]), 0);
	for (int t = 0; t < 2; t++)
		cr_assert_eq(pthread_join(th[t], NULL), 0);
	char *ref = tkt_path(dir, "ref.db");
	cr_assert(tkw_template_ready());
	cr_assert_eq(write_synth(ref, 3000), TK_OK);
	assert_integrity(ref);
	for (int t = 0; t < 2; t++) {
		cr_assert_eq(r[t].rc, TK_OK, "thread %d", t);
		for (int i = 0; i < 3; i++) {
			assert_same_bytes(ref, r[t].path[i]);
			free(r[t].path[i]);
		}
	}
	free(ref);
	tkt_rmdir(dir);
	free(dir);
}

/* The directory of the open, removed index sort-run file of this process ("" when none). */
static void sort_run_dir(char *out, size_t size)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	out[0] = '\0';
	cr_assert_not_null(d);
	while ((de = readdir(d)) != NULL) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		char *run = strstr(target, "/.tracekit-sort-");
		if (run) {
			*run = '\0';
			snprintf(out, size, "%s", run == target ? "/" : target);
		}
	}
	closedir(d);
}

/* More counters than an index keeps in memory: the sorted run goes to a file beside the store
 * (it went to an ancestor directory, "/" for most paths, when dirname() ran once per table). */
Test(writer_template, index_sort_runs_beside_the_store)
{
	char *dir = tkt_mkdtemp();
	char *sub = tkt_path(dir, "a"), *path = tkt_path(sub, "store.db");
	char where[PATH_MAX], real[PATH_MAX];
	tk_writer *w = NULL;
	int64_t track = 0;
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_not_null(realpath(sub, real));
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	struct tk_track_info t = {TK_TRACK_COUNTER, "c", TK_NONE, TK_NONE, TK_NONE, TK_NONE, NULL};
	cr_assert_eq(tk_writer_add_track(w, &t, &track), TK_OK);
	for (int64_t i = 0; i <= 256 * 1024; i++) /* writer.c: TK_INDEX_RUN_KEYS, and one more */
		cr_assert_eq(tk_writer_add_counter(w, track, 1000 - i, (double)i), TK_OK, "%s",
			     tk_writer_errmsg(w));
	sort_run_dir(where, sizeof(where));
	cr_assert_str_eq(where, real, "the sort run is in '%s', not beside the store", where);
	cr_assert_eq(tk_writer_finish(w, tkt_err()), TK_OK, "%s", tkt_errmsg());
	assert_integrity(path);
	cr_assert_eq(tkt_query_int(path, "SELECT count(*) FROM counters"), 256 * 1024 + 1);
	free(sub), free(path);
	tkt_rmdir(dir);
	free(dir);
}
