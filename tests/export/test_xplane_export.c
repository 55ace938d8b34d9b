/*
 * Tests of `tracekit export --format xplane`: the logdir layout, the XSpace decoded by protoc
 * against schemas/xplane.proto (planes, lines, stats, metadata), round trips through
 * `tracekit import` on synthetic, hand-built and corpus stores (XPlane and Kineto), names
 * sanitised so nothing escapes the logdir, and bad input (exit 2, nothing written).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/tracekit.h>

#include "export_test.h"
#include "tk_test.h"

TKT_TMPDIR_FIXTURE;

TestSuite(xplane_export, .init = setup, .fini = teardown);
/* Tests on traces of the corpus that tests/data/real does not vendor (tk_test.h). */
TestSuite(full_corpus, .init = setup, .fini = teardown);

#define SCHEMAS TK_SOURCE_DIR "/schemas"

/* Export @db to dir/@logdir with run "r"; the host file's path (malloc'd). */
static char *export_xplane(const char *db, const char *logdir, const char *host)
{
	char *ld = tkt_path(dir, logdir);
	RUN_OK("export", db, "--format", "xplane", "-o", ld, "--run", "r");
	char rel[512];
	snprintf(rel, sizeof(rel), "plugins/profile/r/%s.xplane.pb", host);
	char *pb = tkt_path(ld, rel);
	cr_assert(tkt_exists(pb), "expected %s", pb);
	free(ld);
	return pb;
}

/* Decode with protoc into text (malloc'd); the test is skipped without protoc. */
static char *decode(const char *pb)
{
	if (!have_protoc())
		cr_skip_test(
		    "protoc is not installed (scripts/setup.sh installs protobuf-compiler)");
	char *txt = tkt_path(dir, "decoded.txt");
	int rc = protoc_decode(SCHEMAS, "xplane.proto", "tensorflow.profiler.XSpace", pb, txt);
	char *s = slurp(txt);
	cr_assert(rc == 0 && s, "protoc --decode failed (%d): %s", rc, s ? s : "");
	free(txt);
	return s;
}

Test(xplane_export, synthetic_store_decodes_with_the_planes_lines_and_stats_xprof_reads)
{
	char *db = tkt_path(dir, "s.db");
	RUN_OK("synth", "-o", db, "--events", "20000", "--devices", "2", "--seed", "1");
	char *pb = export_xplane(db, "logs", "synth-host");
	char *t = decode(pb);
	cr_expect(strstr(t, "name: \"Task Environment\"") != NULL);
	cr_expect(strstr(t, "name: \"profile_start_time\"") &&
		  strstr(t, "name: \"profile_stop_time\""));
	cr_expect(strstr(t, "name: \"/device:GPU:0\"") && strstr(t, "name: \"/device:GPU:1\""));
	cr_expect(strstr(t, "name: \"/host:CPU\"") != NULL);
	cr_expect(strstr(t, "name: \"Stream #7(Kernel,MemcpyD2H,Memset)\"") != NULL,
		  "stream lines");
	cr_expect(strstr(t, "name: \"Stream #13(MemcpyH2D)\"") != NULL);
	cr_expect(strstr(t, "name: \"python main thread/NVTX\"") != NULL);
	cr_expect(strstr(t, "name: \"MemoryAllocation\"") &&
		  strstr(t, "name: \"MemoryDeallocation\""));
	cr_expect(strstr(t, "str_value: \"regs:") != NULL, "kernel_details text");
	cr_expect(strstr(t, "grid:") && strstr(t, "block:") && strstr(t, "occ_pct:"));
	cr_expect(strstr(t, "str_value: \"kind_src:pinned kind_dst:device size:") != NULL,
		  "memcpy_details text");
	cr_expect(strstr(t, "str_value: \"kind:device num_bytes:") != NULL, "Memset_details");
	cr_expect(strstr(t, "str_value: \"GPU_0_caching\"") != NULL, "allocator names its GPU");
	cr_expect(strstr(t, "name: \"core_count\"") && strstr(t, "int64_value: 132"),
		  "capabilities");
	cr_expect(strstr(t, "str_value: \"Nvidia\"") != NULL);
	cr_expect(strstr(t, "hostnames: \"synth-host\"") != NULL);
	/* every event of the store is an XEvent (intervals + memory events) */
	int64_t n = tkt_query_int(db, "SELECT (SELECT count(*) FROM events) + "
				      "(SELECT count(*) FROM memory_records)");
	cr_expect_eq(count_of(t, "\n    events {"), n, "XEvents %d, store %lld",
		     count_of(t, "\n    events {"), (long long)n);
	free(t);
	free(pb);
	free(db);
}

Test(xplane_export, synthetic_store_round_trips_through_import)
{
	char *db = tkt_path(dir, "s.db"), *back = tkt_path(dir, "back.db");
	RUN_OK("synth", "-o", db, "--events", "30000", "--devices", "2", "--seed", "3");
	char *pb = export_xplane(db, "logs", "synth-host");
	char *ld = tkt_path(dir, "logs");
	RUN_OK("import", ld, "-o", back);
	expect_round_trip(db, back, RT_ALL);
	expect_same_rows(db, back, "event kinds",
			 "SELECT kind, count(*), sum(dur_ns) FROM intervals GROUP BY kind");
	expect_same_rows(db, back, "devices",
			 "SELECT id, ordinal, kind, sm_count, clock_hz, memory_bytes, "
			 "memory_bandwidth_bps, compute_capability, vendor FROM devices");
	expect_same_rows(
	    db, back, "memcpy kinds",
	    "SELECT copy_kind, src_kind, dst_kind, count(*) FROM memcpys GROUP BY 1, 2, 3");
	free(ld);
	free(pb);
	free(db);
	free(back);
}

Test(xplane_export, fixture_names_args_and_ops_survive)
{
	char *db = tkt_path(dir, "f.db"), *back = tkt_path(dir, "back.db");
	cr_assert_eq(tkt_write_fixture(db), 0);
	char *pb = export_xplane(db, "logs", "host-a");
	char *ld = tkt_path(dir, "logs");
	RUN_OK("import", ld, "-o", back);
	expect_round_trip(db, back, RT_ALL);
	char *name = tkt_rows(back, "SELECT name FROM kernels");
	cr_expect_str_eq(name, TKT_ODD_NAME);
	expect_same_rows(db, back, "kernel args",
			 "SELECT s.str, a.value FROM args a JOIN strings s ON s.id = a.key_id "
			 "WHERE a.event_id IN (SELECT id FROM kernels) AND s.str <> 'mangled_name' "
			 "ORDER BY 1");
	expect_same_rows(
	    db, back, "op details",
	    "SELECT h.str, m.str, o.program_id, o.flops, o.bytes_accessed FROM op_details o "
	    "LEFT JOIN strings h ON h.id = o.hlo_op_id LEFT JOIN strings m ON m.id = "
	    "o.hlo_module_id");
	free(name);
	free(ld);
	free(pb);
	free(db);
	free(back);
}

static void corpus_round_trip(const char *rel, const char *host, int what, int kinds)
{
	char *in = tkt_real(rel);
	char *db = tkt_path(dir, "c.db"), *back = tkt_path(dir, "back.db");
	RUN_OK("import", in, "-o", db);
	char *pb = export_xplane(db, "logs", host);
	char *t = decode(pb);
	free(t);
	char *ld = tkt_path(dir, "logs");
	RUN_OK("import", ld, "-o", back);
	expect_round_trip(db, back, what);
	if (kinds) /* XPlane has no category: Kineto's sync/other kinds come back as host ops */
		expect_same_rows(db, back, "event kinds",
				 "SELECT kind, count(*), sum(dur_ns) FROM intervals GROUP BY kind");
	free(ld);
	free(pb);
	free(db);
	free(back);
	free(in);
}

Test(full_corpus, corpus_tf24_gpu_round_trips)
{
	corpus_round_trip("xplane/logdir/plugins/profile/tf24_gpu_v100_multiworker",
			  "34.83.195.179_6003", RT_ALL, 1);
}

Test(xplane_export, corpus_jax_rocm_round_trips)
{
	corpus_round_trip("xplane/logdir/plugins/profile/jax08_mi300x_gemm", "tw003", RT_ALL, 1);
}

Test(xplane_export, corpus_tpu_with_xla_lines_round_trips)
{
	corpus_round_trip("xplane/logdir/plugins/profile/xprof_tpu_v6e_inference",
			  "tpu_inference_2", RT_ALL, 1);
}

Test(xplane_export, corpus_kineto_round_trips)
{
	/* a Kineto store: kernels, copies, launch flows (correlation ids) come back */
	corpus_round_trip("kineto/HolisticTraceAnalysis/tests/data/critical_path/alexnet/"
			  "benchmark_result_2869224_1695835535_trace.json.gz",
			  "localhost", RT_STEPS | RT_COPY_KIND, 0);
}

Test(xplane_export, hostile_host_and_run_names_stay_inside_the_logdir)
{
	char *db = tkt_path(dir, "h.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(db, &w), TK_OK);
	struct tk_process_info p = {1, "p", "../../evil/host:1", TK_NONE};
	int64_t proc, thr;
	cr_assert_eq(tk_writer_add_process(w, &p, &proc), TK_OK);
	struct tk_track_info t = {TK_TRACK_THREAD, "main", proc, TK_NONE, 1, TK_NONE, NULL};
	cr_assert_eq(tk_writer_add_track(w, &t, &thr), TK_OK);
	struct tk_event e = {thr, TK_EV_HOST_OP, "op", 0, NULL, 0, 1000, 10, TK_NONE};
	cr_assert_eq(tk_writer_add_event(w, &e, NULL), TK_OK);
	cr_assert_eq(tk_writer_finish(w, NULL), TK_OK);
	char *ld = tkt_path(dir, "logs");
	RUN_OK("export", db, "--format", "xplane", "-o", ld, "--run", "../../../x/y");
	char *f = tkt_path(ld, "plugins/profile/_._.._.._x_y/_._.._evil_host_1.xplane.pb");
	cr_expect(tkt_exists(f), "expected %s", f);
	cr_expect_eq(tkt_count_entries(dir), 2, "nothing written outside the logdir");
	free(f);
	free(ld);
	free(db);
}

Test(xplane_export, default_run_name_is_a_timestamp)
{
	char *db = tkt_path(dir, "f.db"), *ld = tkt_path(dir, "logs");
	cr_assert_eq(tkt_write_fixture(db), 0);
	RUN_OK("export", db, "--format", "xplane", "-o", ld);
	char *prof = tkt_path(ld, "plugins/profile");
	DIR *d = opendir(prof);
	cr_assert(d);
	struct dirent *de;
	int runs = 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			runs++;
			int y, mo, da, h, mi, s;
			cr_expect_eq(sscanf(de->d_name, "%4d_%2d_%2d_%2d_%2d_%2d", &y, &mo, &da, &h,
					    &mi, &s),
				     6, "run name %s", de->d_name);
		}
	closedir(d);
	cr_expect_eq(runs, 1);
	struct tkt_run r = tkt_tracekit("ls", ld, NULL);
	cr_expect_eq(r.code, 0, "tracekit ls reads the logdir: %s", r.err);
	tkt_run_free(&r);
	free(prof);
	free(ld);
	free(db);
}

Test(xplane_export, bad_input_exits_2_naming_the_file_and_writes_nothing)
{
	char *missing = tkt_path(dir, "missing.db"), *ld = tkt_path(dir, "logs");
	struct tkt_run r = tkt_tracekit("export", missing, "--format", "xplane", "-o", ld, NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "missing.db") != NULL, "%s", r.err);
	tkt_run_free(&r);
	cr_expect(!tkt_exists(ld), "no logdir for a missing store");
	char *txt = tkt_path(dir, "notastore.db");
	FILE *f = fopen(txt, "w");
	fputs("hello, not a store\n", f);
	fclose(f);
	r = tkt_tracekit("export", txt, "--format", "xplane", "-o", ld, NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "notastore.db") != NULL, "%s", r.err);
	tkt_run_free(&r);
	cr_expect(!tkt_exists(ld));
	r = tkt_tracekit("export", txt, "--format", "nope", "-o", ld, NULL);
	cr_expect_eq(r.code, 2);
	tkt_run_free(&r);
	free(txt);
	free(ld);
	free(missing);
}
