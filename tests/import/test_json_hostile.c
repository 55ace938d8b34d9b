/*
 * Chrome/Kineto JSON importer on hostile shapes: state that could grow with the input (open B
 * events on as many threads as events, async pairs with as many ids) stays within the documented
 * memory bound (docs/performance.md). Each file is generated here, and `tracekit import` runs
 * under an address-space limit (RLIMIT_AS) that the unbounded importer exceeded; every answer
 * is known by construction. B events nested past the depth bound are refused. Sanitizer builds
 * reserve terabytes of address space, so there the imports run without the limit (the answers
 * are still checked).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tk_test.h"

#if defined(__SANITIZE_ADDRESS__)
#define TKT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TKT_ASAN 1
#endif
#endif

#define LIMIT_MIB 384 /* the importer needs under 200 MiB of address space here */
#define N_OPEN 300000 /* more than the bound on open B events */

static char *dir, *db, *in;

static void setup(void)
{
	dir = tkt_mkdtemp();
	db = tkt_path(dir, "out.db");
	in = tkt_path(dir, "in.json");
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(db);
	free(in);
}

TestSuite(json_hostile, .init = setup, .fini = teardown, .timeout = 600);

/* Limit this test process's address space, which the tracekit child inherits. */
static void limit_memory(void)
{
#ifdef TKT_ASAN
	cr_log_info("sanitizer build: imports run without the %d MiB limit", LIMIT_MIB);
#else
	struct rlimit rl = {(rlim_t)LIMIT_MIB << 20, (rlim_t)LIMIT_MIB << 20};
	cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
#endif
}

static struct tkt_run import_limited(void)
{
	limit_memory();
	return tkt_tracekit("import", in, "-o", db, NULL);
}

#define EXPECT_INT(sql, want)                                                                 \
	cr_expect_eq(tkt_query_int(db, sql), (int64_t)(want), "%s: got %lld, want %lld", sql, \
		     (long long)tkt_query_int(db, sql), (long long)(want))

#define INCOMPLETE                                                                     \
	"SELECT count(*) FROM args a JOIN strings s ON s.id = a.key_id WHERE s.str = " \
	"'incomplete'"

Test(json_hostile, unclosed_b_on_distinct_threads_stays_bounded)
{
	/* "first" opens before the flood and closes after it: by then it was the oldest of more
	 * than BOUND open events, so it was stored early (incomplete) and its E has no B; "last"
	 * opens after the flood and closes at 7 us: a normal pair */
	FILE *f = fopen(in, "w");
	cr_assert(f);
	fprintf(f, "{\"traceEvents\": [\n{\"ph\": \"B\", \"name\": \"first\", \"pid\": 1, "
		   "\"tid\": \"first\", \"ts\": 0},\n");
	for (int i = 0; i < N_OPEN; i++)
		fprintf(f,
			"{\"ph\": \"B\", \"name\": \"op%d\", \"cat\": \"cpu_op\", \"pid\": 1, "
			"\"tid\": %d, \"ts\": %d, \"args\": {\"n\": %d}},\n",
			i % 10, i, i, i);
	fprintf(f,
		"{\"ph\": \"B\", \"name\": \"last\", \"pid\": 1, \"tid\": \"last\", \"ts\": 5},\n"
		"{\"ph\": \"E\", \"pid\": 1, \"tid\": \"last\", \"ts\": 12},\n"
		"{\"ph\": \"E\", \"pid\": 1, \"tid\": \"first\", \"ts\": 13}\n]}\n");
	cr_assert_eq(fclose(f), 0);

	struct tkt_run r = import_limited();
	cr_assert_eq(r.code, 0, "exit %d\n%s", r.code, r.err);
	/* "first" and the oldest of the flood were stored early (how many depends on their
	 * sizes in memory), the others at the end: all of them incomplete (below) */
	cr_expect(strstr(r.err, "events were still open when more than"), "%s", r.err);
	cr_expect(strstr(r.err, "1 'E'/'e' events had no 'B'/'b'"), "%s", r.err);
	tkt_run_free(&r);

	EXPECT_INT("SELECT count(*) FROM events", N_OPEN + 2);
	EXPECT_INT(INCOMPLETE, N_OPEN + 1);
	EXPECT_INT("SELECT count(DISTINCT track_id) FROM events", N_OPEN + 2);
	EXPECT_INT("SELECT dur_ns FROM events e JOIN strings s ON s.id = e.name_id "
		   "WHERE s.str = 'last'",
		   7000);
	EXPECT_INT("SELECT dur_ns FROM events e JOIN strings s ON s.id = e.name_id "
		   "WHERE s.str = 'first'",
		   0);
	EXPECT_INT("SELECT sum(dur_ns) FROM events", 7000);
	/* every arg of the flood kept: n = i on the event that began at i us */
	EXPECT_INT("SELECT count(*) FROM args a JOIN strings s ON s.id = a.key_id JOIN events e "
		   "ON e.id = a.event_id WHERE s.str = 'n' AND a.value * 1000 = e.ts_ns",
		   N_OPEN);
}

Test(json_hostile, async_pairs_with_distinct_ids_stay_bounded)
{
	/* each async pair has its own id and is closed at once: nothing stays open */
	FILE *f = fopen(in, "w");
	cr_assert(f);
	fprintf(f, "[\n");
	for (int i = 0; i < N_OPEN; i++)
		fprintf(
		    f,
		    "{\"ph\": \"b\", \"name\": \"req\", \"cat\": \"rpc\", \"id\": %d, \"pid\": 1, "
		    "\"tid\": 1, \"ts\": %d},\n{\"ph\": \"e\", \"cat\": \"rpc\", \"id\": %d, "
		    "\"pid\": 1, \"tid\": 1, \"ts\": %d.002},\n",
		    i, 2 * i, i, 2 * i);
	fprintf(f, "{\"ph\": \"X\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 0}]\n");
	cr_assert_eq(fclose(f), 0);

	struct tkt_run r = import_limited();
	cr_assert_eq(r.code, 0, "exit %d\n%s", r.code, r.err);
	cr_expect(!strstr(r.err, "'B'/'b'"), "%s", r.err);
	tkt_run_free(&r);
	EXPECT_INT("SELECT count(*) FROM events", N_OPEN + 1);
	EXPECT_INT("SELECT count(*) FROM events WHERE dur_ns = 2", N_OPEN);
	EXPECT_INT(INCOMPLETE, 0);
}

Test(json_hostile, b_events_nested_a_million_deep_are_refused_at_the_depth_bound)
{
	/* one thread, B inside B: refused at the 1025th, with where it is */
	FILE *f = fopen(in, "w");
	cr_assert(f);
	fprintf(f, "{\"traceEvents\": [\n");
	for (int i = 0; i < 1000000; i++)
		fprintf(f,
			"{\"ph\": \"B\", \"name\": \"d\", \"pid\": 1, \"tid\": 1, \"ts\": %d},\n",
			i);
	fprintf(f, "{\"ph\": \"E\", \"pid\": 1, \"tid\": 1, \"ts\": 1000000}]}\n");
	cr_assert_eq(fclose(f), 0);
	struct tkt_run r = import_limited();
	cr_expect_eq(r.code, 2, "exit %d\n%s", r.code, r.err);
	cr_expect(
	    strstr(r.err, "line 1026, column 1: more than 1024 nested 'B' events on one thread"),
	    "%s", r.err);
	cr_expect(!tkt_exists(db));
	tkt_run_free(&r);
}
