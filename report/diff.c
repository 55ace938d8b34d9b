/*
 * `tracekit diff`: two stores side by side. The second store is attached to the first one's
 * read-only connection as "b", and each section is one SQL statement that matches the rows of
 * both (step times and device time by device, KPIs by device and name, ops by level and name,
 * kernels by name) with absolute and relative deltas, a flag for changes beyond the threshold
 * and, for metrics with a direction, a verdict (better, worse; POLARITY below,
 * docs/reports.md); the sections then go through the same model and formats as a report.
 * Computes no analysis of its own.
 */
#include "report_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/store.h>

#include "message.h"

#define END                             \
	{                               \
		NULL, NULL, TKR_TEXT, 0 \
	}
#define J TKR_C_JSON
#define F TKR_C_FLEX
#define O TKR_C_OPT

/* ---- diff: main = A (before), b = B (after) ---- */

/* The flag of a change from a to b: new, gone, or up/down beyond the threshold. */
#define FLAG(a, b)                                                                             \
	"CASE WHEN " a " IS NULL AND " b " IS NOT NULL THEN 'new' WHEN " b " IS NULL AND " a   \
	" IS NOT NULL THEN 'gone' WHEN abs(" b " - " a ") > :thr * abs(" a ") AND " b " <> " a \
	" THEN CASE WHEN " b " > " a " THEN 'up' ELSE 'down' END END"
#define REL(a, b) "(" b " - " a ") * 1.0 / nullif(abs(" a "), 0)"
/* better or worse for a change beyond the threshold of a metric of polarity p (1: higher is
 * better, -1: lower is better, 0: neutral, no verdict); NULL otherwise and for new or gone rows */
#define VERDICT(a, b, p)                                                                  \
	"CASE WHEN " p " <> 0 AND abs(" b " - " a ") > :thr * abs(" a ") AND " b " <> " a \
	" THEN CASE WHEN (" b " - " a ") * " p " > 0 THEN 'better' ELSE 'worse' END END"

/*
 * The direction of every metric of the steps, KPI and device-time tables (docs/reports.md,
 * "Better or worse"); a metric not listed (a KPI of a newer analysis) is neutral. Ops' self time
 * and kernels' total time are times: lower is better.
 */
#define POLARITY                                                                               \
	"pol(metric, p) AS (VALUES ('steps', 0), ('step_time_median', -1),"                    \
	" ('step_time_mean', -1), ('host_step_time_median', -1), ('host_step_time_mean', -1)," \
	" ('gpu_utilization', 1), ('kernel_duration_median', 0),"                              \
	" ('small_kernel_share_count', -1), ('small_kernel_share_time', -1),"                  \
	" ('host_overhead', -1), ('memory_bandwidth', 1), ('compute_throughput', 1),"          \
	" ('compilation_time', -1),"                                                           \
	" ('window', 0), ('utilization', 1), ('busy', 0), ('compute', 0), ('comm', 0),"        \
	" ('exposed_comm', -1), ('exposed_memcpy', -1), ('idle', -1))"
/* The columns of a row set v of (device_id, metric, unit, a, b): up to the change, then the
 * flag and the verdict by the metric's polarity. */
#define VALUE_HEAD                                                                          \
	"v.device_id AS device_id, v.metric AS metric, v.unit AS unit, v.a AS a, v.b AS b," \
	" v.b - v.a AS delta, " REL("v.a", "v.b") " AS rel"
#define VALUE_TAIL            \
	FLAG("v.a", "v.b")    \
	" AS flag, " VERDICT( \
	    "v.a", "v.b",     \
	    "coalesce(pol.p, 0)") " AS verdict FROM v LEFT JOIN pol ON pol.metric = v.metric"

#define OPS(schema)                                                                          \
	"SELECT level, name, sum(occurrences) AS n, sum(total_ns) AS total_ns,"              \
	" sum(self_ns) AS self_ns FROM " schema ".analysis_op_profile WHERE level <> 'idle'" \
	" GROUP BY level, name"
#define KERNELS(schema)                                                              \
	"SELECT name, sum(occurrences) AS n, sum(total_ns) AS total_ns FROM " schema \
	".analysis_kernel_stats GROUP BY name"
#define WITH_OPS "WITH oa AS (" OPS("main") "), ob AS (" OPS("b") ") "
#define WITH_KERNELS "WITH ka AS (" KERNELS("main") "), kb AS (" KERNELS("b") ") "
#define OPS_JOINED                                                                          \
	"SELECT oa.level AS level, oa.name AS name, oa.n AS a_n, ob.n AS b_n,"              \
	" oa.self_ns AS a_self_ns, ob.self_ns AS b_self_ns FROM oa LEFT JOIN ob"            \
	" ON ob.level = oa.level AND ob.name = oa.name UNION ALL SELECT ob.level, ob.name," \
	" NULL, ob.n, NULL, ob.self_ns FROM ob WHERE NOT EXISTS (SELECT 1 FROM oa"          \
	" WHERE oa.level = ob.level AND oa.name = ob.name)"
#define KERNELS_JOINED                                                                   \
	"SELECT ka.name AS name, ka.n AS a_n, kb.n AS b_n, ka.total_ns AS a_total_ns,"   \
	" kb.total_ns AS b_total_ns FROM ka LEFT JOIN kb ON kb.name = ka.name UNION ALL" \
	" SELECT kb.name, NULL, kb.n, NULL, kb.total_ns FROM kb WHERE NOT EXISTS"        \
	" (SELECT 1 FROM ka WHERE ka.name = kb.name)"

static const struct tkr_col c_diff_summary[] = {
    {"threshold", "threshold", TKR_RATIO, 0},
    {"worse", "changes for the worse", TKR_INT, 0},
    {"better", "changes for the better", TKR_INT, 0},
    {"kpis_flagged", "KPIs changed beyond it", TKR_INT, 0},
    {"ops_a", "ops in A", TKR_INT, 0},
    {"ops_b", "ops in B", TKR_INT, 0},
    {"ops_new", "new ops", TKR_INT, 0},
    {"ops_gone", "vanished ops", TKR_INT, 0},
    {"ops_flagged", "ops changed beyond it", TKR_INT, 0},
    {"kernels_a", "kernels in A", TKR_INT, 0},
    {"kernels_b", "kernels in B", TKR_INT, 0},
    {"kernels_new", "new kernels", TKR_INT, 0},
    {"kernels_gone", "vanished kernels", TKR_INT, 0},
    {"kernels_flagged", "kernels changed beyond it", TKR_INT, 0},
    END,
};

static const struct tkr_col c_diff_values[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"metric", "metric", TKR_TEXT, 0},
    {"unit", "unit", TKR_TEXT, J},
    {"a", "A", TKR_UVAL, 0},
    {"b", "B", TKR_UVAL, 0},
    {"delta", "B - A", TKR_UDELTA, 0},
    {"rel", "change", TKR_DPCT, 0},
    {"a_band", "band A", TKR_BAND, O},
    {"b_band", "band B", TKR_BAND, O},
    {"flag", "flag", TKR_FLAG, 0},
    {"verdict", "verdict", TKR_FLAG, 0},
    END,
};

static const struct tkr_col c_diff_time[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"metric", "metric", TKR_TEXT, 0},
    {"unit", "unit", TKR_TEXT, J},
    {"a", "A", TKR_UVAL, 0},
    {"b", "B", TKR_UVAL, 0},
    {"delta", "B - A", TKR_UDELTA, 0},
    {"rel", "change", TKR_DPCT, 0},
    {"flag", "flag", TKR_FLAG, 0},
    {"verdict", "verdict", TKR_FLAG, 0},
    END,
};

static const struct tkr_col c_diff_ops[] = {
    {"level", "level", TKR_TEXT, 0},
    {"a_n", "calls A", TKR_INT, O},
    {"b_n", "calls B", TKR_INT, O},
    {"a_self_ns", "self A", TKR_NS, 0},
    {"b_self_ns", "self B", TKR_NS, 0},
    {"delta_ns", "B - A", TKR_DNS, 0},
    {"rel", "change", TKR_DPCT, 0},
    {"flag", "flag", TKR_FLAG, 0},
    {"verdict", "verdict", TKR_FLAG, 0},
    {"name", "name", TKR_NAME, F},
    END,
};

static const struct tkr_col c_diff_kernels[] = {
    {"a_n", "calls A", TKR_INT, O},	  {"b_n", "calls B", TKR_INT, O},
    {"a_total_ns", "total A", TKR_NS, 0}, {"b_total_ns", "total B", TKR_NS, 0},
    {"delta_ns", "B - A", TKR_DNS, 0},	  {"rel", "change", TKR_DPCT, 0},
    {"flag", "flag", TKR_FLAG, 0},	  {"verdict", "verdict", TKR_FLAG, 0},
    {"name", "name", TKR_NAME, F},	  END,
};

static const struct tkr_col c_diff_ops_only[] = {
    {"level", "level", TKR_TEXT, 0},
    {"n", "calls", TKR_INT, 0},
    {"self_ns", "self", TKR_NS, 0},
    {"name", "name", TKR_NAME, F},
    END,
};

static const struct tkr_col c_diff_kernels_only[] = {
    {"n", "calls", TKR_INT, 0},
    {"total_ns", "total", TKR_NS, 0},
    {"name", "name", TKR_NAME, F},
    END,
};

#define OPS_ONLY(x, y)                                                                          \
	WITH_OPS "SELECT level, n, self_ns, name FROM " x " WHERE NOT EXISTS (SELECT 1 FROM " y \
		 " WHERE " y ".level = " x ".level AND " y ".name = " x ".name)"                \
		 " ORDER BY self_ns DESC, level, name"
#define KERNELS_ONLY(x, y)                                                                    \
	WITH_KERNELS "SELECT n, total_ns, name FROM " x " WHERE NOT EXISTS (SELECT 1 FROM " y \
		     " WHERE " y ".name = " x ".name) ORDER BY total_ns DESC, name"

#define DT(col)                                                                              \
	"CASE m.ord WHEN 1 THEN " col ".window_ns WHEN 2 THEN " col ".utilization"           \
	" WHEN 3 THEN " col ".busy_ns WHEN 4 THEN " col ".compute_ns WHEN 5 THEN " col       \
	".comm_ns WHEN 6 THEN " col ".exposed_comm_ns WHEN 7 THEN " col ".exposed_memcpy_ns" \
	" WHEN 8 THEN " col ".idle_ns END"
#define ST(col)                                                                     \
	"CASE m.ord WHEN 1 THEN " col ".steps WHEN 2 THEN " col ".median_ns WHEN 3" \
	" THEN " col ".mean_ns WHEN 4 THEN " col ".host_median_ns WHEN 5 THEN " col \
	".host_mean_ns END"

/* One row per (device, metric) of the devices of either store: v from the tables x of A, y of
 * B, the metrics m(ord, metric, unit) and the value V(table) of metric m.ord. */
#define BY_DEVICE(x, y, V)                                                                    \
	" devs AS (SELECT device_id FROM " x " UNION SELECT device_id FROM " y "), " POLARITY \
	", v AS (SELECT devs.device_id AS device_id, m.ord AS ord, m.metric AS metric,"       \
	" m.unit AS unit, " V(x) " AS a, " V(y) " AS b FROM devs CROSS JOIN m"                \
						" LEFT JOIN " x " ON " x                      \
						".device_id = devs.device_id"                 \
						" LEFT JOIN " y " ON " y                      \
						".device_id = devs.device_id)"                \
						" SELECT " VALUE_HEAD ", " VALUE_TAIL         \
						" ORDER BY v.device_id, v.ord"

#define STEPS_SQL                                                                                \
	"WITH sa AS (SELECT * FROM main.analysis_step_stats),"                                   \
	" sb AS (SELECT * FROM b.analysis_step_stats),"                                          \
	" m(ord, metric, unit) AS (VALUES (1, 'steps', 'count'), (2, 'step_time_median', 'ns')," \
	" (3, 'step_time_mean', 'ns'), (4, 'host_step_time_median', 'ns'),"                      \
	" (5, 'host_step_time_mean', 'ns'))," BY_DEVICE("sa", "sb", ST)
#define KPIS_SQL                                                                                \
	"WITH v AS (SELECT ka.device_id AS device_id, ka.kpi AS metric, ka.unit AS unit,"       \
	" ka.value AS a, kb.value AS b, ka.band AS a_band, kb.band AS b_band, ka.rowid AS o1,"  \
	" 0 AS o2 FROM main.analysis_kpi ka LEFT JOIN b.analysis_kpi kb"                        \
	" ON kb.device_id = ka.device_id AND kb.kpi = ka.kpi"                                   \
	" UNION ALL SELECT kb.device_id, kb.kpi, kb.unit, NULL, kb.value, NULL, kb.band, 1e18," \
	" kb.rowid FROM b.analysis_kpi kb WHERE NOT EXISTS (SELECT 1 FROM main.analysis_kpi ka" \
	" WHERE ka.device_id = kb.device_id AND ka.kpi = kb.kpi)), " POLARITY                   \
	" SELECT " VALUE_HEAD ", v.a_band AS a_band, v.b_band AS b_band, " VALUE_TAIL           \
	" ORDER BY v.device_id, v.o1, v.o2"
#define DEVICE_TIME_SQL                                                                           \
	"WITH da AS (SELECT * FROM main.analysis_device_time WHERE selected = 1),"                \
	" db AS (SELECT * FROM b.analysis_device_time WHERE selected = 1),"                       \
	" m(ord, metric, unit) AS (VALUES (1, 'window', 'ns'), (2, 'utilization', 'ratio'),"      \
	" (3, 'busy', 'ns'), (4, 'compute', 'ns'), (5, 'comm', 'ns'),"                            \
	" (6, 'exposed_comm', 'ns'), (7, 'exposed_memcpy', 'ns'), (8, 'idle', 'ns'))," BY_DEVICE( \
	    "da", "db", DT)
#define OPS_SQL                                                                              \
	WITH_OPS                                                                             \
	"SELECT level, a_n, b_n, a_self_ns, b_self_ns,"                                      \
	" coalesce(b_self_ns, 0) - coalesce(a_self_ns, 0) AS delta_ns,"                      \
	" " REL("a_self_ns", "b_self_ns") " AS rel, " FLAG(                                  \
	    "a_self_ns",                                                                     \
	    "b_self_ns") " AS flag, " VERDICT("a_self_ns", "b_self_ns",                      \
					      "-1") " AS verdict,"                           \
						    " name FROM (" OPS_JOINED                \
						    ") ORDER BY max(coalesce(a_self_ns, 0)," \
						    " coalesce(b_self_ns, 0)) DESC, level, " \
						    "name"
#define KERNELS_SQL                                                                      \
	WITH_KERNELS                                                                     \
	"SELECT a_n, b_n, a_total_ns, b_total_ns,"                                       \
	" coalesce(b_total_ns, 0) - coalesce(a_total_ns, 0) AS delta_ns,"                \
	" " REL("a_total_ns",                                                            \
		"b_total_ns") " AS rel,"                                                 \
			      " " FLAG("a_total_ns", "b_total_ns") " AS flag, " VERDICT( \
				  "a_total_ns", "b_total_ns",                            \
				  "-1") " AS verdict,"                                   \
					" name FROM (" KERNELS_JOINED                    \
					") ORDER BY max(coalesce(a_total_ns, 0),"        \
					" coalesce(b_total_ns, 0)) DESC, name"
/* The verdicts of every row of the tables above (not only the rows shown). */
#define VERDICTS                                                                           \
	"SELECT verdict FROM (" STEPS_SQL ") UNION ALL SELECT verdict FROM (" KPIS_SQL ")" \
	" UNION ALL SELECT verdict FROM (" DEVICE_TIME_SQL                                 \
	") UNION ALL SELECT verdict FROM (" OPS_SQL                                        \
	") UNION ALL SELECT verdict FROM (" KERNELS_SQL ")"

const struct tkr_section_def tkr_diff_sections[] = {
    {"summary", "Summary", NULL, TKR_KV, 1,
     "SELECT :thr AS threshold,"
     " (SELECT count(*) FROM (" VERDICTS ") WHERE verdict = 'worse') AS worse,"
     " (SELECT count(*) FROM (" VERDICTS ") WHERE verdict = 'better') AS better,"
     " (SELECT count(*) FROM main.analysis_kpi ka JOIN b.analysis_kpi kb"
     "  ON kb.device_id = ka.device_id AND kb.kpi = ka.kpi"
     "  WHERE abs(kb.value - ka.value) > :thr * abs(ka.value) AND kb.value <> ka.value)"
     " AS kpis_flagged,"
     " (SELECT count(*) FROM (" OPS(
	 "main") ")) AS ops_a,"
		 " (SELECT count(*) FROM (" OPS(
		     "b") ")) AS ops_b,"
			  " (" WITH_OPS "SELECT count(*) FROM (" OPS_JOINED
			  ") WHERE a_n IS NULL) AS ops_new,"
			  " (" WITH_OPS "SELECT count(*) FROM (" OPS_JOINED
			  ") WHERE b_n IS NULL) AS ops_gone,"
			  " (" WITH_OPS "SELECT count(*) FROM (" OPS_JOINED
			  ") WHERE a_n IS NOT NULL AND b_n IS NOT"
			  "  NULL AND abs(b_self_ns - a_self_ns) > :thr * abs(a_self_ns)"
			  "  AND b_self_ns <> a_self_ns) AS ops_flagged,"
			  " (SELECT count(*) FROM (" KERNELS(
			      "main") ")) AS kernels_a,"
				      " (SELECT count(*) FROM (" KERNELS(
					  "b") ")) AS kernels_b,"
					       " (" WITH_KERNELS
					       "SELECT count(*) FROM (" KERNELS_JOINED
					       ") WHERE a_n IS NULL)"
					       " AS kernels_new,"
					       " (" WITH_KERNELS
					       "SELECT count(*) FROM (" KERNELS_JOINED
					       ") WHERE b_n IS NULL)"
					       " AS kernels_gone,"
					       " (" WITH_KERNELS
					       "SELECT count(*) FROM (" KERNELS_JOINED
					       ") WHERE a_n IS NOT NULL AND"
					       "  b_n IS NOT NULL AND abs(b_total_ns - a_total_ns) "
					       "> :thr * abs(a_total_ns)"
					       "  AND b_total_ns <> a_total_ns) AS kernels_flagged",
     c_diff_summary, NULL},
    {"steps", "Step time", NULL, TKR_TABLE, 1000, STEPS_SQL, c_diff_time,
     "no steps in either store"},
    {"kpis", "KPIs", NULL, TKR_TABLE, 1000, KPIS_SQL, c_diff_values, "no KPIs in either store"},
    {"device_time", "Device time (selected window)", NULL, TKR_TABLE, 1000, DEVICE_TIME_SQL,
     c_diff_time, "no device time in either store"},
    {"ops", "Top ops by self time", NULL, TKR_TABLE, -1, OPS_SQL, c_diff_ops,
     "no ops in either store"},
    {"kernels", "Top kernels by total time", NULL, TKR_TABLE, -1, KERNELS_SQL, c_diff_kernels,
     "no kernels in either store"},
    {"ops_new", "New ops (only in B)", NULL, TKR_TABLE, -1, OPS_ONLY("ob", "oa"), c_diff_ops_only,
     NULL},
    {"ops_gone", "Vanished ops (only in A)", NULL, TKR_TABLE, -1, OPS_ONLY("oa", "ob"),
     c_diff_ops_only, NULL},
    {"kernels_new", "New kernels (only in B)", NULL, TKR_TABLE, -1, KERNELS_ONLY("kb", "ka"),
     c_diff_kernels_only, NULL},
    {"kernels_gone", "Vanished kernels (only in A)", NULL, TKR_TABLE, -1, KERNELS_ONLY("ka", "kb"),
     c_diff_kernels_only, NULL},
};
const size_t tkr_diff_nsections = sizeof(tkr_diff_sections) / sizeof(tkr_diff_sections[0]);

int tk_report_diff(FILE *out, const char *a, const char *b, const struct tk_report_options *opt,
		   tk_error *err)
{
	struct tk_report_options o = tkr_effective_options(opt);
	struct tkr_model m;
	tk_store *sa = NULL, *sb = NULL;
	sqlite3_stmt *st = NULL;
	char msg[1024] = ""; /* the model's and writers' message */
	int rc, attached = 0;
	memset(&m, 0, sizeof(m));
	tk_error_clear(err);
	/* open B once on its own: it checks that B is a tracekit store of a supported version */
	rc = tk_store_open(b, &sb);
	if (rc != TK_OK) {
		tkr_store_fail(err, rc, sb);
		tk_store_close(sb);
		goto out;
	}
	tk_store_close(sb);
	sb = NULL;
	rc = tk_store_open(a, &sa);
	if (rc != TK_OK) {
		tkr_store_fail(err, rc, sa);
		goto out;
	}
	sqlite3 *db = tk_store_sqlite(sa);
	if (sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS b", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(st, 1, b, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_DONE) {
		rc = TK_EIO;
		tk_error_push_from(err, "sqlite", rc, "%s", sqlite3_errmsg(db));
		tk_error_push_from(err, "report", rc, "cannot open store '%s' beside '%s'", b, a);
		goto out;
	}
	attached = 1;
	m.is_diff = 1;
	m.full_names = o.full_names;
	m.path = strdup(a);
	m.path_b = strdup(b);
	if (!m.path || !m.path_b) {
		rc = TK_ENOMEM;
		goto out;
	}
	rc = tkr_model_load(db, tkr_diff_sections, tkr_diff_nsections, o.top, o.threshold, &m, msg,
			    sizeof(msg));
	if (rc == TK_OK)
		rc = tkr_write_model(out, &m, &o, msg, sizeof(msg));
out:
	if (rc != TK_OK && !tk_error_cause_count(err))
		tkr_fail_msg(err, rc, msg);
	sqlite3_finalize(st);
	if (attached)
		sqlite3_exec(tk_store_sqlite(sa), "DETACH DATABASE b", NULL, NULL, NULL);
	tkr_model_free(&m);
	tk_store_close(sa);
	return rc;
}
