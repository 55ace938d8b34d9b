/*
 * Tests of the device peaks (analyze/peaks.c, docs/peaks.md): the built-in table's rules on the
 * names the corpus traces give (and every row's documented names), trace-provided peaks winning
 * over the table, overrides from --peak-flops / --peak-bandwidth and from a device file, hostile
 * device files (exit 2 with file and position, the store untouched), partitions, unknown devices
 * ("peak unknown"), and the bandwidth KPI following --peak-bandwidth.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "analyze_internal.h"
#include "tk_analyze_store.h"

TestSuite(peaks, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);
TestSuite(full_corpus, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);

#define N TK_NONE
#define GIB 1073741824LL

struct case_ {
	struct tka_peak_device d;
	const char *want; /* the row, NULL for no match */
};

static void expect_matches(const struct case_ *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct tka_peak_rule *r = tka_peak_match(&v[i].d);
		const char *got = r ? r->model : NULL;
		cr_expect((got == NULL) == (v[i].want == NULL) && (!got || !strcmp(got, v[i].want)),
			  "name '%s' (units %lld): matched %s, want %s",
			  v[i].d.name ? v[i].d.name : "(none)", (long long)v[i].d.units,
			  got ? got : "nothing", v[i].want ? v[i].want : "nothing");
	}
}

/* The names the corpus traces give (../shared/corpus, tests/data/real), with their figures. */
Test(peaks, corpus_names_match_their_rows)
{
	static const struct case_ v[] = {
	    {{"Tesla V100-DGXS-32GB", "nvidia", "7.0", 80, N, 34084028416}, "V100 SXM2"},
	    {{"Tesla V100-SXM2-16GB", "nvidia", "7.0", 80, N, 16945512448}, "V100 SXM2"},
	    {{"Tesla V100-SXM2-32GB", "nvidia", "7.0", 80, N, 34079637504}, "V100 SXM2"},
	    {{"NVIDIA A100-SXM4-80GB", "nvidia", "8.0", 108, N, 84990623744}, "A100 SXM4 80GB"},
	    {{"NVIDIA A100-PG509-200", "nvidia", "8.0", 108, N, 42297524224}, "A100 SXM4 40GB"},
	    {{"NVIDIA H100", "nvidia", "9.0", 132, N, 102085492736}, "H100 SXM5 80GB"},
	    {{"AMD Radeon Graphics", "amd", "9.0", 104, N, 68702699520}, "MI250 GCD"},
	    {{"TPU v6 Lite", "google", NULL, N, N, N}, "TPU v6e"},
	    /* XPlane GPU planes without a name: TF 2.4 on V100, JAX 0.8 on MI300X */
	    {{NULL, NULL, "7.0", 80, 1530000000, 16945512448}, "V100 SXM2"},
	    {{NULL, "amd", "9.4", 304, 2100000000, 206141652992}, "MI300X"},
	};
	expect_matches(v, sizeof(v) / sizeof(v[0]));
}

/* Every row by the names docs/peaks.md lists for it; near misses match nothing. */
Test(peaks, documented_names_match_every_row_and_near_misses_none)
{
	static const struct case_ v[] = {
	    {{"Tesla V100-PCIE-16GB", NULL, NULL, N, N, N}, "V100 PCIe"},
	    {{"Tesla V100-PCIE-32GB", NULL, NULL, N, N, N}, "V100 PCIe"},
	    {{"Tesla V100S-PCIE-32GB", NULL, NULL, N, N, N}, "V100S PCIe"},
	    {{"Tesla V100-SXM2-32GB-LS", NULL, NULL, N, N, N}, "V100 SXM2"},
	    {{"NVIDIA A100-SXM4-40GB", NULL, NULL, N, N, N}, "A100 SXM4 40GB"},
	    {{"nvidia a100-sxm4-80gb", NULL, NULL, N, N, N}, "A100 SXM4 80GB"},
	    {{"NVIDIA PG509-210", NULL, NULL, N, N, N}, "A100 SXM4 80GB"},
	    {{"NVIDIA A100-PCIE-40GB", NULL, NULL, N, N, N}, "A100 PCIe 40GB"},
	    {{"NVIDIA A100 80GB PCIe", NULL, NULL, N, N, N}, "A100 PCIe 80GB"},
	    {{"NVIDIA H100 80GB HBM3", NULL, NULL, N, N, N}, "H100 SXM5 80GB"},
	    {{"NVIDIA H100 PCIe", NULL, NULL, N, N, N}, "H100 PCIe"},
	    {{"NVIDIA H100", NULL, NULL, 114, N, N}, "H100 PCIe"},
	    {{"NVIDIA H100 NVL", NULL, NULL, N, N, N}, "H100 NVL"},
	    {{"NVIDIA H200", NULL, NULL, N, N, N}, "H200 SXM"},
	    {{"NVIDIA H200 NVL", NULL, NULL, N, N, N}, "H200 NVL"},
	    {{"NVIDIA B200", NULL, NULL, N, N, N}, "B200"},
	    {{"NVIDIA GB200", NULL, NULL, N, N, N}, "GB200"},
	    {{"NVIDIA L4", NULL, NULL, N, N, N}, "L4"},
	    {{"NVIDIA A10", NULL, NULL, N, N, N}, "A10"},
	    {{"Tesla T4", NULL, NULL, N, N, N}, "T4"},
	    {{"AMD Instinct MI250X/MI250", "amd", NULL, 110, N, N}, "MI250X GCD"},
	    {{"AMD Instinct MI250X/MI250", "amd", NULL, 104, N, N}, "MI250 GCD"},
	    {{"AMD Instinct MI250X", "amd", NULL, N, N, N}, "MI250X GCD"},
	    {{"AMD Instinct MI250X/MI250", "amd", NULL, N, N, N}, "MI250X GCD"},
	    {{"AMD Instinct MI300X", "amd", NULL, N, N, N}, "MI300X"},
	    {{"AMD Instinct MI300X VF", "amd", NULL, N, N, N}, "MI300X"},
	    {{"AMD Instinct MI355X", "amd", NULL, N, N, N}, "MI355X"},
	    {{"TPU v4", NULL, NULL, N, N, N}, "TPU v4"},
	    {{"TPU v5 lite", NULL, NULL, N, N, N}, "TPU v5e"},
	    {{"TPU v5e", NULL, NULL, N, N, N}, "TPU v5e"},
	    {{"TPU v5", NULL, NULL, N, N, N}, "TPU v5p"},
	    {{"TPU v5p", NULL, NULL, N, N, N}, "TPU v5p"},
	    {{"TPU v6e", NULL, NULL, N, N, N}, "TPU v6e"},
	    {{NULL, "nvidia", "8.0", 108, N, 40 * GIB}, "A100 SXM4 40GB"},
	    {{NULL, "nvidia", "9.0", 114, N, N}, "H100 PCIe"},
	    /* near misses: another SKU, a prefix of a longer name, a contradicting figure */
	    {{"NVIDIA A10G", NULL, NULL, N, N, N}, NULL},
	    {{"NVIDIA L40S", NULL, NULL, N, N, N}, NULL},
	    {{"NVIDIA GeForce RTX 4090", NULL, NULL, N, N, N}, NULL},
	    {{"TPU v4 lite", NULL, NULL, N, N, N}, NULL},
	    {{"AMD Instinct MI300X", "nvidia", NULL, N, N, N}, NULL},
	    {{"AMD Radeon Graphics", "amd", "11.0", 48, N, N}, NULL},
	    {{NULL, NULL, "7.0", 80, 1312000000, N}, NULL},
	    {{NULL, "amd", "9.4", 304, N, 256 * GIB}, NULL},
	    {{"", NULL, NULL, N, N, N}, NULL},
	};
	expect_matches(v, sizeof(v) / sizeof(v[0]));
}

/* The table is consistent: every rule names a row, every row is reachable by some rule. */
Test(peaks, every_rule_names_a_row_and_every_row_has_a_rule)
{
	for (const struct tka_peak_rule *r = tka_peak_rules; r->glob; r++)
		cr_expect(tka_peak_model_find(r->model), "rule '%s' names no row '%s'", r->glob,
			  r->model);
	for (const struct tka_peak_model *m = tka_peak_models; m->model; m++) {
		int found = 0;
		for (const struct tka_peak_rule *r = tka_peak_rules; r->glob && !found; r++)
			found = !strcmp(r->model, m->model);
		cr_expect(found, "row %s has no rule", m->model);
		cr_expect(m->tbps > 0 && m->tflops[TK_DTYPE_BF16] + m->tflops[TK_DTYPE_FP16] > 0,
			  "row %s has no bandwidth or no 16-bit peak", m->model);
	}
}

Test(peaks, values_with_si_prefixes)
{
	double v = 0;
	cr_expect(tk_peak_value_parse("989T", &v) == TK_OK && v == 989e12);
	cr_expect(tk_peak_value_parse("1.979P", &v) == TK_OK && v == 1.979e15);
	cr_expect(tk_peak_value_parse("3.35e12", &v) == TK_OK && v == 3.35e12);
	cr_expect(tk_peak_value_parse("5k", &v) == TK_OK && v == 5e3);
	cr_expect(tk_peak_value_parse("1E", &v) == TK_OK && v == 1e18);
	static const char *const bad[] = {"",	 "T",  "0",    "-5T",  "+5T", " 5T",
					  "5TT", "5t", "5 T",  "nan",  "inf", "1e19",
					  "2E",	 "5m", "0x1p", "1e999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect(tk_peak_value_parse(bad[i], &v) == TK_EINVAL, "'%s' accepted", bad[i]);
	struct tk_analyze_options o;
	tk_analyze_options_init(&o);
	cr_expect(tk_analyze_peak_flops_option(&o, "400T", tkt_err()) == TK_OK);
	cr_expect(tk_analyze_peak_flops_option(&o, "fp8=1.5P", tkt_err()) == TK_OK);
	cr_expect(o.peak_flops[TK_DTYPE_BF16] == 400e12 && o.peak_flops[TK_DTYPE_FP8] == 1.5e15);
	cr_expect(tk_analyze_peak_flops_option(&o, "fp4=1P", tkt_err()) == TK_EINVAL);
	cr_expect(strstr(tkt_errmsg(), "'fp4' is no dtype"), "%s", tkt_errmsg());
	cr_expect(tk_analyze_peak_flops_option(&o, "bf16=", tkt_err()) == TK_EINVAL);
}

/* One GPU named @name with the trace's own peaks @bw / @flops (TK_NONE / < 0: none). */
static void one_device(const char *path, const char *name, int64_t units, int64_t bw, double flops)
{
	tk_writer *w = NULL;
	int64_t dev;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	struct tk_device_info d = {0,	  "gpu", name,	   "nvidia", "h",   TK_NONE, TK_NONE, "8.0",
				   units, N,	 80 * GIB, bw,	     flops, N,	     N,	      N};
	TKT_OK(tk_writer_add_device(w, &d, &dev));
	tkt_finish(w);
}

#define ROWS                                                                                  \
	"SELECT dtype, peak_flops, flops_source, peak_bandwidth_bps, bandwidth_source, model" \
	" FROM analysis_device_peaks ORDER BY rowid"

Test(peaks, the_table_by_name)
{
	one_device(tkt_db, "NVIDIA A100-SXM4-80GB", 108, N, -1);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db, ROWS,
			"fp64|19500000000000.0|table|2039000000000|table|A100 SXM4 80GB\n"
			"fp32|19500000000000.0|table|2039000000000|table|A100 SXM4 80GB\n"
			"tf32|156000000000000.0|table|2039000000000|table|A100 SXM4 80GB\n"
			"bf16|312000000000000.0|table|2039000000000|table|A100 SXM4 80GB\n"
			"fp16|312000000000000.0|table|2039000000000|table|A100 SXM4 80GB\n"
			"int8|624000000000000.0|table|2039000000000|table|A100 SXM4 80GB");
}

Test(peaks, trace_provided_peaks_win_over_the_table)
{
	one_device(tkt_db, "NVIDIA A100-SXM4-80GB", 108, 1000000000000LL, 100e12);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db, ROWS " LIMIT 4 OFFSET 2",
			"tf32|156000000000000.0|table|1000000000000|trace|A100 SXM4 80GB\n"
			"bf16|100000000000000.0|trace|1000000000000|trace|A100 SXM4 80GB\n"
			"fp16|312000000000000.0|table|1000000000000|trace|A100 SXM4 80GB\n"
			"int8|624000000000000.0|table|1000000000000|trace|A100 SXM4 80GB");
	char *note = tkt_rows(tkt_db, "SELECT note FROM analysis_device_peaks LIMIT 1");
	cr_expect(strstr(note, "bf16 from the trace: 100 TFLOP/s (the table: 312 TFLOP/s)") &&
		      strstr(note, "bandwidth from the trace: 1000 GB/s (the table: 2039 GB/s)"),
		  "%s", note);
	free(note);
}

Test(peaks, a_partition_scales_flops_not_bandwidth)
{
	one_device(tkt_db, "NVIDIA A100-SXM4-40GB", 54, N, -1); /* half the SMs */
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db,
			"SELECT dtype, peak_flops, peak_bandwidth_bps FROM analysis_device_peaks"
			" WHERE dtype IN ('bf16', 'fp32')",
			"fp32|9750000000000.0|1555000000000\nbf16|156000000000000.0|1555000000000");
}

Test(peaks, an_unknown_device_has_no_rows_and_the_report_says_peak_unknown)
{
	one_device(tkt_db, "NVIDIA GeForce RTX 4090", 128, N, -1);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_device_peaks"), 0);
	struct tkt_run r = tkt_tracekit("report", tkt_db, "--format", "json", NULL);
	cr_expect(r.code == 0 && strstr(r.out, "\"peak_source\": \"peak unknown\""), "%s%s", r.out,
		  r.err);
	tkt_run_free(&r);
	/* a device with only its trace bandwidth: one row without a dtype */
	one_device(tkt_db, "NVIDIA GeForce RTX 4090", 128, 1008000000000LL, -1);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db, ROWS, "NULL|NULL|NULL|1008000000000|trace|NULL");
}

Test(peaks, flags_override_the_trace_and_the_table)
{
	one_device(tkt_db, "NVIDIA A100-SXM4-80GB", 108, 1000000000000LL, 100e12);
	tkt_ok(tkt_tracekit("analyze", "-q", tkt_db, "--peak-flops", "250T", "--peak-flops",
			    "fp8=1.5P", "--peak-flops", "fp32=1e13", "--peak-bandwidth", "3.35T",
			    NULL));
	tkt_expect_rows(
	    tkt_db,
	    "SELECT dtype, peak_flops, flops_source, peak_bandwidth_bps, bandwidth_source"
	    " FROM analysis_device_peaks WHERE dtype IN ('fp32', 'bf16', 'fp8', 'int8')",
	    "fp32|10000000000000.0|user|3350000000000|user\n"
	    "bf16|250000000000000.0|user|3350000000000|user\n"
	    "fp8|1.5e+15|user|3350000000000|user\n"
	    "int8|624000000000000.0|table|3350000000000|user");
}

Test(peaks, a_device_file_overrides_by_name_pattern)
{
	char *f = tkt_path(tkt_dir, "devices.json");
	static const char doc[] =
	    "{\"devices\": [\n"
	    "  {\"match\": \"*rtx 40??\", \"model\": \"RTX 4090\", \"bandwidth\": \"1008G\",\n"
	    "   \"flops\": {\"bf16\": \"165.2T\", \"fp32\": 82.6e12}},\n"
	    "  {\"match\": \"NVIDIA*\", \"bandwidth\": 1}\n"
	    "]}\n";
	tkt_spit(f, doc, sizeof(doc) - 1);
	one_device(tkt_db, "NVIDIA GeForce RTX 4090", 128, N, -1);
	tkt_ok(tkt_tracekit("analyze", "-q", tkt_db, "--device-file", f, NULL));
	tkt_expect_rows(tkt_db, ROWS,
			"fp32|82600000000000.0|user|1008000000000|user|RTX 4090\n"
			"bf16|165200000000000.0|user|1008000000000|user|RTX 4090");
	/* the flags still win over the file, per dtype */
	tkt_ok(tkt_tracekit("analyze", "-q", tkt_db, "--device-file", f, "--peak-flops", "200T",
			    NULL));
	tkt_expect_rows(tkt_db, "SELECT dtype, peak_flops, flops_source FROM analysis_device_peaks",
			"fp32|82600000000000.0|user\nbf16|200000000000000.0|user");
	free(f);
}

/* A device file that must be refused: exit 2, a message naming the file and @where. */
static void refused(const char *doc, size_t len, const char *where)
{
	char *f = tkt_path(tkt_dir, "bad.json");
	tkt_spit(f, doc, len);
	struct tkt_run r = tkt_tracekit("analyze", "-q", tkt_db, "--device-file", f, NULL);
	cr_expect_eq(r.code, 2, "'%s': exit %d\n%s", doc, r.code, r.err);
	cr_expect(strstr(r.err, f) && strstr(r.err, where), "'%s': want '%s' in: %s", doc, where,
		  r.err);
	tkt_run_free(&r);
	free(f);
}

Test(peaks, hostile_device_files_exit_2_with_file_and_position)
{
	one_device(tkt_db, "NVIDIA A100-SXM4-80GB", 108, N, -1);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	uint64_t before = tkt_store_digest(tkt_db);
#define R(s, where) refused(s, sizeof(s) - 1, where)
	R("", "line 1");
	R("{\"devices\": [{\"match\": \"x\",", "line 1, column 28");
	R("[]", "line 1, column 1: a device file is a JSON object");
	R("{\"devices\": {}}", "line 1, column 13: a device file is a JSON object");
	R("{\"devices\": [], \"more\": 1}", "line 1, column 1");
	R("{\"devices\": [1]}", "line 1, column 14: each entry");
	R("{\"devices\": [{\"flops\": {}}]}", "line 1, column 14: the entry has no \"match\"");
	R("{\"devices\": [{\"match\": 7}]}", "line 1, column 24: \"match\" is a string");
	R("{\"devices\": [{\"match\": \"a\0b\"}]}", "line 1, column 2");
	R("{\"devices\": [{\"match\": \"x\", \"flop\": 1}]}", "column 37: unknown key \"flop\"");
	R("{\"devices\": [{\"match\": \"x\", \"flops\": []}]}",
	  "column 38: \"flops\" is an object");
	R("{\"devices\": [{\"match\": \"x\",\n \"flops\": {\"fp4\": 1}}]}",
	  "line 2, column 19: \"fp4\" is no dtype");
	R("{\"devices\": [{\"match\": \"x\", \"flops\": {\"bf16\": 0}}]}", "column 47: a peak");
	R("{\"devices\": [{\"match\": \"x\", \"flops\": {\"bf16\": -1}}]}", "column 47: a peak");
	R("{\"devices\": [{\"match\": \"x\", \"flops\": {\"bf16\": 1e300}}]}", "column 47");
	R("{\"devices\": [{\"match\": \"x\", \"flops\": {\"bf16\": \"9Q\"}}]}", "column 47");
	R("{\"devices\": [{\"match\": \"x\", \"flops\": {\"bf16\": \"nan\"}}]}", "column 47");
	R("{\"devices\": [{\"match\": \"x\", \"flops\": {\"bf16\": null}}]}", "column 47");
	R("{\"devices\": [{\"match\": \"x\", \"bandwidth\": \"3.35\\u0000T\"}]}",
	  "column 42: \"bandwidth\"");
	R("{\"devices\": [{\"match\": \"x\", \"match\": \"y\"}]}", "line 1");
	/* beyond the size bound: 1 MiB of spaces and a valid document */
	size_t big = (1 << 20) + 16;
	char *doc = malloc(big);
	memset(doc, ' ', big);
	memcpy(doc + big - 15, "{\"devices\":[]}", 15);
	refused(doc, big - 1, "bad.json");
	free(doc);
#undef R
	struct tkt_run r = tkt_tracekit("analyze", "-q", tkt_db, "--device-file", tkt_dir, NULL);
	cr_expect_eq(r.code, 2, "a directory: exit %d %s", r.code, r.err);
	tkt_run_free(&r);
	r = tkt_tracekit("analyze", "-q", tkt_db, "--device-file", "/nonexistent/d.json", NULL);
	cr_expect(r.code == 2 && strstr(r.err, "/nonexistent/d.json"), "exit %d %s", r.code, r.err);
	tkt_run_free(&r);
	cr_expect_eq(tkt_store_digest(tkt_db), before, "a refused device file changed the store");
}

/*
 * The bandwidth KPI against --peak-bandwidth: 2e9 bytes accessed by two kernels in 2.5 ms of
 * their time = 8e11 B/s; the device ("GPU") matches no row and states no bandwidth.
 */
Test(peaks, analyze_peak_bandwidth_sets_the_bandwidth_kpi)
{
	tk_writer *w;
	int64_t proc, dev, thr, strm;
	tkt_one_gpu(tkt_db, &w, &proc, &dev, &thr, &strm);
	struct tk_op_info oi = {"fusion", "m", NULL, NULL, TK_NONE, TK_NONE, 1600000000LL};
	int64_t id = tkt_launched_op(w, thr, strm, TK_EV_KERNEL, "a", TKT_T0, 2000000, TKT_T0 - 1);
	TKT_OK(tk_writer_add_op_details(w, id, &oi));
	oi.bytes_accessed = 400000000LL;
	id = tkt_launched_op(w, thr, strm, TK_EV_KERNEL, "b", TKT_T0 + 2500000, 500000, TKT_T0);
	TKT_OK(tk_writer_add_op_details(w, id, &oi));
	tkt_finish(w);
	static const struct {
		const char *flag, *want;
	} v[] = {
	    {NULL, "NULL|n-a|n/a: the device's peak memory bandwidth is unknown"},
	    {"1T", "80.0|good|user"},
	    {"2T", "40.0|warning|user"},
	    {"4000G", "20.0|bad|user"},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		tkt_ok(v[i].flag ? tkt_tracekit("analyze", "-q", tkt_db, "--peak-bandwidth",
						v[i].flag, NULL)
				 : tkt_tracekit("analyze", "-q", tkt_db, NULL));
		tkt_expect_rows(tkt_db,
				"SELECT value, band, CASE WHEN value IS NULL THEN note ELSE"
				" json_extract(detail, '$.peak_source') END FROM analysis_kpi"
				" WHERE kpi = 'memory_bandwidth'",
				v[i].want);
	}
}

/* Real traces end to end: what analysis_device_peaks holds for their device 0. */
static void expect_device0(const char *rel, const char *want)
{
	tkt_import_corpus(rel, tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db,
			"SELECT model, (SELECT peak_flops FROM analysis_device_peaks WHERE"
			" device_id = 0 AND dtype = 'bf16'), flops_source, peak_bandwidth_bps,"
			" bandwidth_source FROM analysis_device_peaks WHERE device_id = 0"
			" AND dtype IS (SELECT dtype FROM analysis_device_peaks WHERE device_id = 0"
			" ORDER BY dtype = 'bf16' DESC LIMIT 1)",
			want);
	remove(tkt_db);
}

Test(peaks, vendored_traces)
{
	expect_device0("kineto/HolisticTraceAnalysis/tests/data/critical_path/alexnet/"
		       "benchmark_result_2869224_1695835535_trace.json.gz",
		       "A100 SXM4 40GB|312000000000000.0|table|1555000000000|table");
	expect_device0("kineto/kineto/docs/traces/before_fix_trace.json",
		       "H100 SXM5 80GB|989500000000000.0|table|3350000000000|table");
	expect_device0("kineto/kineto/tb_plugin/samples/resnet50_num_workers_0/"
		       "worker0.1623143089861.pt.trace.json.gz",
		       "V100 SXM2|NULL|table|900000000000|table");
	expect_device0("kineto/HolisticTraceAnalysis/tests/data/amd_trace/"
		       "mi250_minitoy_train_ROCm6_2_kineto.json.gz",
		       "MI250 GCD|181050000000000.0|table|1600000000000|table");
	expect_device0("xplane/logdir/plugins/profile/jax08_mi300x_gemm/tw003.xplane.pb",
		       "MI300X|1.3074e+15|table|2662400000000|trace");
	expect_device0("xplane/logdir/plugins/profile/xprof_tpu_v6e_inference/"
		       "tpu_inference_2.xplane.pb",
		       "TPU v6e|918000000000000.0|trace|1637993152512|trace");
}

Test(full_corpus, corpus_traces)
{
	expect_device0("kineto/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/"
		       "rank0.json.gz",
		       "A100 SXM4 80GB|312000000000000.0|table|2039000000000|table");
	expect_device0("kineto/HolisticTraceAnalysis/tests/data/trace_diff/test/test.json.gz",
		       "V100 SXM2|NULL|table|900000000000|table");
	expect_device0("xplane/logdir/plugins/profile/tf24_gpu_v100_multiworker/"
		       "34.83.195.179_6003.xplane.pb",
		       "V100 SXM2|NULL|table|898048000000|trace");
}
