/*
 * Op profile, kernel stats and memory on real traces (tests/data/real, the corpus), imported
 * with the tracekit binary, against figures computed independently from the raw files
 * (Kineto JSON, XPlane wire format) by tests/data/analyze/ops_figures.py and committed in
 * tests/data/analyze/ops_figures.txt: kernel counts and total time per name and in all (kernel
 * stats' grand total = the sum of kernel durations), occurrences, total and self time per name of
 * an op-profile level, and the memory series with their peak and its time. Per-name tables are
 * compared whole through a digest of their rows (`ops_figures.py --full` lists them), plus the
 * five largest rows in clear. Tests on traces that tests/data/real does not vendor are in the
 * suite full_corpus (skipped with a message when the corpus is absent).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"
#include "util/fnv.h"

#define FIXTURE TK_SOURCE_DIR "/tests/data/analyze/ops_figures.txt"

TestSuite(corpus_ops, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);
TestSuite(full_corpus, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);

/* The values of the fixture lines "<trace> <figure> <value>", joined by "\n" (malloc'd). */
static char *figure(const char *trace, const char *fig)
{
	FILE *f = fopen(FIXTURE, "r");
	cr_assert_not_null(f, "cannot open %s", FIXTURE);
	size_t cap = 256, len = 0, tl = strlen(trace), fl = strlen(fig);
	char *out = malloc(cap), line[8192];
	cr_assert_not_null(out);
	out[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, trace, tl) || line[tl] != ' ' ||
		    strncmp(line + tl + 1, fig, fl) || line[tl + 1 + fl] != ' ')
			continue;
		const char *v = line + tl + fl + 2;
		size_t vl = strlen(v);
		while (len + vl + 2 > cap)
			out = realloc(out, cap *= 2);
		cr_assert_not_null(out);
		if (len)
			out[len++] = '\n';
		memcpy(out + len, v, vl + 1);
		len += vl;
	}
	fclose(f);
	return out;
}

/* Expect the rows of @sql to be the fixture's @fig of @trace. */
static void expect_figure(const char *trace, const char *fig, const char *sql)
{
	char *want = figure(trace, fig);
	cr_assert(want[0], "%s has no figure '%s %s'", FIXTURE, trace, fig);
	tkt_expect_rows(tkt_db, sql, want);
	free(want);
}

/* Expect "rows|FNV-1a 64 of the rows" of @sql to be the fixture's @fig of @trace. */
static void expect_digest(const char *trace, const char *fig, const char *sql)
{
	char *want = figure(trace, fig), *rows = tkt_rows(tkt_db, sql), got[64];
	size_t n = rows[0] ? 1 : 0;
	for (const char *p = rows; *p; p++)
		n += *p == '\n';
	snprintf(got, sizeof(got), "%zu|%016" PRIx64, n,
		 tku_fnv1a64_str(rows) /* ops_figures.py computes the same */);
	cr_expect_str_eq(got, want,
			 "%s %s: %s\n(regenerate the rows with ops_figures.py --full and compare "
			 "with)\n%.2000s",
			 trace, fig, sql, rows);
	free(want);
	free(rows);
}

/* Import @rel, analyze it, and compare every figure the fixture has for @trace. */
static void check_trace(const char *trace, const char *rel)
{
	char sql[512], fig[64];
	tkt_import_corpus(rel, tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	/* kernel stats: totals, and the grand total equals the plain sum over the kernels */
	expect_figure(trace, "kernels",
		      "SELECT count(*) || '|' || coalesce(sum(dur_ns), 0) FROM kernels");
	expect_figure(trace, "kernels",
		      "SELECT coalesce(sum(occurrences), 0) || '|' || coalesce(sum(total_ns), 0) "
		      "FROM analysis_kernel_stats");
	expect_digest(trace, "kernel_names",
		      "SELECT name, sum(occurrences), sum(total_ns) FROM analysis_kernel_stats "
		      "GROUP BY name ORDER BY name");
	char *top = figure(trace, "kernel_top");
	if (top[0])
		expect_figure(trace, "kernel_top",
			      "SELECT name, sum(occurrences), sum(total_ns) AS t FROM "
			      "analysis_kernel_stats GROUP BY name ORDER BY t DESC, name LIMIT 5");
	free(top);
	/* op profile, per level the fixture has */
	const char *levels[] = {"host_op", "xla_op", "async_xla_op", "hlo_op"};
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		snprintf(fig, sizeof(fig), "ops.%s", levels[i]);
		char *have = figure(trace, fig);
		int present = have[0] != '\0';
		free(have);
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM analysis_op_profile WHERE level = '%s'", levels[i]);
		if (!present) { /* the trace has no op of this level */
			cr_expect_eq(tkt_query_int(tkt_db, sql), 0, "%s: %s", trace, sql);
			continue;
		}
		snprintf(sql, sizeof(sql),
			 "SELECT sum(occurrences) || '|' || sum(total_ns) || '|' || sum(self_ns) "
			 "FROM analysis_op_profile WHERE level = '%s'",
			 levels[i]);
		expect_figure(trace, fig, sql);
		snprintf(fig, sizeof(fig), "op_names.%s", levels[i]);
		snprintf(sql, sizeof(sql),
			 "SELECT name, sum(occurrences), sum(total_ns), sum(self_ns) FROM "
			 "analysis_op_profile WHERE level = '%s' GROUP BY name ORDER BY name",
			 levels[i]);
		expect_digest(trace, fig, sql);
		snprintf(fig, sizeof(fig), "op_top.%s", levels[i]);
		snprintf(
		    sql, sizeof(sql),
		    "SELECT name, sum(occurrences), sum(total_ns) AS t, sum(self_ns) FROM "
		    "analysis_op_profile WHERE level = '%s' GROUP BY name ORDER BY t DESC, name "
		    "LIMIT 5",
		    levels[i]);
		expect_figure(trace, fig, sql);
	}
	/* memory: every series with its basis, counts, peak and time of the peak */
	char *mem = figure(trace, "memory");
	tkt_expect_rows(tkt_db,
			"SELECT d.ordinal, m.allocator, m.basis, m.records, m.allocs, m.frees, "
			"m.peak_bytes, m.peak_ns FROM analysis_memory m LEFT JOIN devices d ON "
			"d.id = m.device_id ORDER BY d.ordinal IS NOT NULL, d.ordinal, "
			"m.allocator IS NOT NULL, m.allocator",
			mem);
	free(mem);
}

/* HTA's nccl_data: A100, Kineto 2024 (ns-resolution float timestamps), NCCL kernels. */
Test(corpus_ops, kineto_nccl_data)
{
	check_trace("nccl_data",
		    "kineto/HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz");
}

/* HTA's ns_resolution_trace: V100, float timestamps with ns digits. */
Test(corpus_ops, kineto_ns_resolution_trace)
{
	check_trace("ns_resolution", "kineto/HolisticTraceAnalysis/tests/data/ns_resolution_trace/"
				     "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
}

/* HTA's df_index_resolver: V100 rank 1 of 2, [memory] events with Total Allocated (basis
 * reported), on the host and on device ordinal 1. */
Test(full_corpus, kineto_df_index_resolver_with_memory)
{
	check_trace("df_index_resolver", "kineto/HolisticTraceAnalysis/tests/data/"
					 "df_index_resolver/df_index_resolver.json.gz");
}

/* The 2021 TensorBoard-plugin ResNet-50 trace: legacy categories (Operator, Kernel), integer us,
 * [memory] events without address or totals (basis summed, every allocation stays live). */
Test(corpus_ops, kineto_legacy_resnet50)
{
	check_trace("resnet50", "kineto/kineto/tb_plugin/samples/resnet50_num_workers_0/"
				"worker0.1623143089861.pt.trace.json.gz");
}

/* TF 2.4 on 8 V100s (XPlane): CUDA kernels on streams, TF host threads, BFC allocator events. */
Test(full_corpus, xplane_tf24_gpu)
{
	check_trace("tf24_gpu", "xplane/logdir/plugins/profile/tf24_gpu_v100_multiworker/"
				"34.83.195.179_6003.xplane.pb");
}

/* JAX on TPU v6e (XPlane): XLA ops on four devices, host threads, no kernels. */
Test(corpus_ops, xplane_tpu_v6e)
{
	check_trace("tpu_v6e", "xplane/logdir/plugins/profile/xprof_tpu_v6e_inference/"
			       "tpu_inference_2.xplane.pb");
}

/* JAX 0.8 on MI300X (XPlane): kernels carry hlo_op / hlo_module: the hlo_op level. */
Test(corpus_ops, xplane_jax_mi300x_hlo_ops)
{
	check_trace("mi300x_gemm",
		    "xplane/logdir/plugins/profile/jax08_mi300x_gemm/tw003.xplane.pb");
}
