/*
 * Tests of `tracekit export --format chrome`: valid JSON (gzip when the name ends in .gz), the
 * metadata, flow and memory records viewers and Kineto readers expect, exact ns timestamps
 * (rebased µs with three decimals), round trips through `tracekit import` on synthetic,
 * hand-built and corpus stores, and bad input.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "export_test.h"
#include "tk_test.h"

TKT_TMPDIR_FIXTURE;

TestSuite(chrome_export, .init = setup, .fini = teardown);
/* Tests on traces of the corpus that tests/data/real does not vendor (tk_test.h). */
TestSuite(full_corpus, .init = setup, .fini = teardown);

/* The uncompressed text of @path (gunzipped through zcat when it ends in .gz), malloc'd. */
static char *text_of(const char *path)
{
	char *plain = tkt_path(dir, "plain.json");
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "zcat -f '%s' > '%s'", path, plain);
	cr_assert_eq(system(cmd), 0, "zcat %s", path);
	char *s = slurp(plain);
	cr_assert(s);
	if (system("command -v jq >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof(cmd), "jq empty '%s' 2>&1", plain);
		cr_expect_eq(system(cmd), 0, "jq rejects the export");
	}
	free(plain);
	return s;
}

Test(chrome_export, synthetic_store_as_gzip_json_with_names_flows_and_memory)
{
	char *db = tkt_path(dir, "s.db"), *js = tkt_path(dir, "t.json.gz");
	RUN_OK("synth", "-o", db, "--events", "20000", "--devices", "2", "--seed", "1");
	RUN_OK("export", db, "--format", "chrome", "-o", js);
	FILE *f = fopen(js, "rb");
	cr_assert(f);
	int b0 = fgetc(f), b1 = fgetc(f);
	fclose(f);
	cr_expect(b0 == 0x1f && b1 == 0x8b, "gzip magic");
	char *t = text_of(js);
	cr_expect(strncmp(t, "{\"traceEvents\":[", 16) == 0);
	cr_expect_eq(count_of(t, "\"name\":\"process_name\""), 4, "2 processes + 2 GPUs");
	cr_expect_eq(count_of(t, "\"name\":\"thread_name\""), 12);
	cr_expect(strstr(t, "\"args\":{\"name\":\"GPU 0 (NVIDIA H100 80GB HBM3)\"}") != NULL);
	int64_t flows = tkt_query_int(db, "SELECT count(*) FROM flows");
	cr_expect_eq(count_of(t, "{\"ph\":\"s\""), flows);
	cr_expect_eq(count_of(t, "{\"ph\":\"f\""), flows);
	cr_expect_eq(count_of(t, "\"cat\":\"ac2g\",\"name\":\"ac2g\""), 2 * flows);
	cr_expect_eq(count_of(t, ",\"bp\":\"e\"}"), flows);
	cr_expect_eq(count_of(t, "{\"ph\":\"X\""),
		     tkt_query_int(db, "SELECT count(*) FROM events"));
	cr_expect_eq(count_of(t, "\"name\":\"[memory]\""),
		     tkt_query_int(db, "SELECT count(*) FROM memory_records"));
	cr_expect_eq(count_of(t, "{\"ph\":\"C\""),
		     tkt_query_int(db, "SELECT count(*) FROM counters"));
	cr_expect(strstr(t, "\"baseTimeNanoseconds\":1767225600000159035") != NULL);
	/* the first kernel: its start relative to the base, with the ns digits */
	char *k =
	    tkt_rows(db, "SELECT printf('\"ts\":%d.%03d,', (ts_ns - 1767225600000159035) / 1000,"
			 " (ts_ns - 1767225600000159035) % 1000) FROM kernels ORDER BY id "
			 "LIMIT 1");
	cr_expect(strstr(t, k) != NULL, "expected %s", k);
	free(k);
	free(t);
	free(js);
	free(db);
}

Test(chrome_export, synthetic_store_round_trips_through_import)
{
	char *db = tkt_path(dir, "s.db"), *js = tkt_path(dir, "t.json.gz"),
	     *back = tkt_path(dir, "back.db");
	RUN_OK("synth", "-o", db, "--events", "30000", "--devices", "2", "--seed", "5");
	RUN_OK("export", db, "--format", "chrome", "-o", js);
	RUN_OK("import", js, "-o", back);
	expect_round_trip(db, back, RT_ALL);
	expect_same_rows(db, back, "counters",
			 "SELECT ts_ns, value FROM counter_samples ORDER BY ts_ns, track_id");
	expect_same_rows(
	    db, back, "threads and streams",
	    "SELECT t.kind, s.str, t.tid, t.stream_id FROM tracks t JOIN strings s ON "
	    "s.id = t.name_id WHERE t.kind IN ('thread', 'stream') ORDER BY 1, 2, 3, 4");
	free(back);
	free(js);
	free(db);
}

Test(chrome_export, fixture_odd_names_and_args_survive)
{
	char *db = tkt_path(dir, "f.db"), *js = tkt_path(dir, "f.json"),
	     *back = tkt_path(dir, "back.db");
	cr_assert_eq(tkt_write_fixture(db), 0);
	RUN_OK("export", db, "--format", "chrome", "-o", js);
	char *t = text_of(js);
	free(t);
	RUN_OK("import", js, "-o", back);
	expect_round_trip(db, back, RT_ALL);
	char *name = tkt_rows(back, "SELECT name FROM kernels");
	cr_expect_str_eq(name, TKT_ODD_NAME);
	free(name);
	expect_same_rows(db, back, "kernel args",
			 "SELECT s.str, a.value FROM args a JOIN strings s ON s.id = a.key_id "
			 "WHERE a.event_id IN (SELECT id FROM kernels) ORDER BY 1");
	free(back);
	free(js);
	free(db);
}

static void corpus_round_trip(const char *rel, int what)
{
	char *in = tkt_real(rel);
	char *db = tkt_path(dir, "c.db"), *js = tkt_path(dir, "c.json.gz"),
	     *back = tkt_path(dir, "back.db");
	RUN_OK("import", in, "-o", db);
	RUN_OK("export", db, "--format", "chrome", "-o", js);
	RUN_OK("import", js, "-o", back);
	expect_round_trip(db, back, what);
	free(back);
	free(js);
	free(db);
	free(in);
}

Test(chrome_export, corpus_kineto_round_trips)
{
	corpus_round_trip("kineto/HolisticTraceAnalysis/tests/data/critical_path/alexnet/"
			  "benchmark_result_2869224_1695835535_trace.json.gz",
			  RT_ALL);
}

Test(chrome_export, corpus_kineto_ns_resolution_round_trips)
{
	corpus_round_trip("kineto/HolisticTraceAnalysis/tests/data/ns_resolution_trace/"
			  "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
			  RT_ALL);
}

Test(full_corpus, corpus_xplane_gpu_round_trips)
{
	/* Chrome JSON keeps a copy's kind in its Kineto-style name (HtoD, ...) and a step in its
	 * ProfilerStep#N name only: XPlane's MemcpyH2D and numbered steps lose them */
	corpus_round_trip("xplane/logdir/plugins/profile/tf24_gpu_v100_multiworker", RT_MEMORY);
}

Test(chrome_export, bad_input_exits_2_and_leaves_no_file)
{
	char *missing = tkt_path(dir, "missing.db"), *js = tkt_path(dir, "o.json");
	struct tkt_run r = tkt_tracekit("export", missing, "--format", "chrome", "-o", js, NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "missing.db") != NULL, "%s", r.err);
	tkt_run_free(&r);
	cr_expect(!tkt_exists(js));
	char *db = tkt_path(dir, "f.db"), *bad = tkt_path(dir, "no/such/dir/o.json");
	cr_assert_eq(tkt_write_fixture(db), 0);
	r = tkt_tracekit("export", db, "--format", "chrome", "-o", bad, NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "no/such/dir/o.json") != NULL, "%s", r.err);
	tkt_run_free(&r);
	cr_expect_eq(tkt_count_entries(dir), 1, "only the store is left");
	free(bad);
	free(db);
	free(js);
	free(missing);
}
