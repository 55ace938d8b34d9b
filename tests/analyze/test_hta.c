/*
 * HTA's published test expectations (facebookresearch/HolisticTraceAnalysis tests, on the traces
 * of its tests/data that the shared corpus holds; ../shared/notes/hta-kineto.md §3) where HTA's
 * definitions coincide with ours, asserted on our analysis tables. docs/metrics.md ("Agreement
 * with HTA") lists which expectations hold, which differ and why; the MTIA test pins the reason
 * one of them cannot be compared. The traces are vendored in tests/data/real but for the MTIA
 * one (suite full_corpus: skipped with a message when the corpus is absent).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"

#define HTA_DATA "kineto/HolisticTraceAnalysis/tests/data/"

TestSuite(hta, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);
TestSuite(full_corpus, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);

static void import_and_analyze(const char *rel)
{
	tkt_import_corpus(rel, tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
}

/*
 * tests/test_trace_parse.py test_nccl_parser_config: 21 kernels whose name contains
 * "ncclKernel"; the longest is an allreduce of 2049000 elements in and out, split sizes "[]",
 * process group "0" ("default_pg", ranks "[0, 1]"). HTA counts every kernel event of the file
 * (no last-step filter in the parser) and sorts by its µs-rounded duration: 5993 µs, ours
 * 5993392 ns; the runner-up is 5983024 ns, so rounding cannot change which one is longest.
 */
Test(hta, nccl_data_has_21_nccl_kernels_and_the_longest_is_the_published_allreduce)
{
	import_and_analyze(HTA_DATA "nccl_parser_config/nccl_data.json.gz");
	tkt_expect_rows(tkt_db,
			"SELECT sum(occurrences), max(max_ns) FROM analysis_kernel_stats "
			"WHERE instr(name, 'ncclKernel') > 0",
			"21|5993392");
	/* the kernel behind max_ns, and the collective arguments HTA reads from it */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT s.str, a.value FROM kernels k JOIN args a ON a.event_id = k.id "
	    "JOIN strings s ON s.id = a.key_id WHERE k.id = (SELECT id FROM kernels WHERE "
	    "instr(name, 'ncclKernel') > 0 ORDER BY dur_ns DESC LIMIT 1) AND s.str IN "
	    "('Collective name', 'In msg nelems', 'Out msg nelems', 'In split size', "
	    "'Out split size', 'Process Group Name', 'Process Group Description', "
	    "'Process Group Ranks') ORDER BY s.str",
	    "Collective name|allreduce\n"
	    "In msg nelems|2049000\n"
	    "In split size|[]\n"
	    "Out msg nelems|2049000\n"
	    "Out split size|[]\n"
	    "Process Group Description|default_pg\n"
	    "Process Group Name|0\n"
	    "Process Group Ranks|[0, 1]");
	/* the 21 by name, as the raw file has them */
	tkt_expect_rows(tkt_db,
			"SELECT name, sum(occurrences) FROM analysis_kernel_stats WHERE "
			"instr(name, 'ncclKernel') > 0 GROUP BY name ORDER BY name",
			"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
			"ncclWork*)|15\n"
			"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, "
			"ncclWork*)|6");
}

/*
 * tests/test_trace_parse.py test_triton_trace: exactly one cpu_op carries kernel_backend, named
 * triton_poi_fused_add_cos_sin_0, backend "triton", hash cqaokwf2...; a cpu_op is a host op, so
 * our op profile has one host_op occurrence of that name.
 */
Test(hta, triton_example_has_one_triton_cpu_op)
{
	import_and_analyze(HTA_DATA "triton_example/triton_example.json.gz");
	tkt_expect_rows(tkt_db,
			"SELECT level, occurrences FROM analysis_op_profile WHERE name = "
			"'triton_poi_fused_add_cos_sin_0' AND level = 'host_op'",
			"host_op|1");
	tkt_expect_rows(tkt_db,
			"SELECT h.name, h.category, b.value, x.value FROM host_ops h "
			"JOIN args b ON b.event_id = h.id AND b.key_id = (SELECT id FROM strings "
			"WHERE str = 'kernel_backend') JOIN args x ON x.event_id = h.id AND "
			"x.key_id = (SELECT id FROM strings WHERE str = 'kernel_hash')",
			"triton_poi_fused_add_cos_sin_0|cpu_op|triton|"
			"cqaokwf2bph4egogzevc22vluasiyuui4i54zpemp6knbsggfbuu");
}

/*
 * tests/test_trace_analysis.py test_mtia_temporal_breakdown / test_get_mtia_idle_time_breakdown
 * / test_get_mtia_kernel_breakdown cannot be compared: HTA treats the mtia_ccp_events of the
 * "MTIA 9" process as device work on streams, our Kineto import keeps them as `other` events on
 * that (host) process's threads (docs/formats.md), so the store has no device and no device
 * time. This test fails when that changes: then compare with HTA's figures (docs/metrics.md).
 */
Test(full_corpus, mtia_trace_has_no_device_time_to_compare)
{
	import_and_analyze(HTA_DATA "mtia_trace_single_rank/mtia_rank_0.json.gz");
	tkt_expect_rows(tkt_db,
			"SELECT (SELECT count(*) FROM devices), (SELECT count(*) FROM "
			"analysis_device_time), (SELECT count(*) FROM events e JOIN strings s ON "
			"s.id = e.category_id WHERE s.str = 'mtia_ccp_events' AND e.kind = 14)",
			"0|0|25814");
}
