/*
 * How close each modelled op group runs to the hardware (docs/metrics.md, "Roofline"): every
 * row of analysis_op_perf that launched device time, placed on its device (an HLO op's own; a
 * host op's: the one device its process launched onto), with its category, its achieved FLOP/s and
 * bytes/s, the device's peaks for its dtype (analysis_device_peaks), the ridge point, whether
 * the roofline calls it compute- or memory-bound, and its share of the peak and of the roof
 * (the attainable FLOP/s at its intensity). The compute_throughput KPI and the
 * low_compute_efficiency finding read this table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/analyze.h>
#include <tracekit/store.h>

#include "analyze_internal.h"

/* enum tk_dtype of a model dtype name (fp8 variants are fp8); -1 when it has no peak row. */
static int dtype_index(const char *s)
{
	static const char *const names[] = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"};
	if (!s)
		return -1;
	for (int i = 0; i < TK_DTYPE_COUNT; i++)
		if (!strncmp(s, names[i], strlen(names[i])))
			return i;
	return -1;
}

static void bind_real_or_null(sqlite3_stmt *st, int i, double v, int known)
{
	if (known && isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

TKA_WRITES(TK_NCOLS_ANALYSIS_ROOFLINE, 21, "analysis_roofline");

/*
 * A job analysed part by part: each part's rows (its devices', for the KPIs after it) from the
 * model's rows it added (after c->split->perf_mark); at the end every row again, from the
 * model's rows in one pass's order.
 */
static int split_marks(struct tka_ctx *c, int64_t *after)
{
	sqlite3_stmt *q = NULL;
	int rc = TK_OK;
	*after = INT64_MIN;
	if (c->split_end)
		return tka_exec(c, "roofline", "DELETE FROM analysis_roofline");
	if (!c->part)
		return TK_OK;
	*after = c->split->perf_mark;
	if ((rc = tka_prepare(c, "SELECT coalesce(max(rowid), 0) FROM analysis_op_perf", &q)) ==
		TK_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		c->split->perf_mark = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return rc;
}

int tka_roofline(struct tka_ctx *c)
{
	sqlite3_stmt *q = NULL, *ins = NULL;
	int64_t after = INT64_MIN;
	/* A host op group's device: the one device its process launched onto (none when
	 * several or none: the group is left out, its device time cannot be split). */
	int rc = split_marks(c, &after);
	if (rc == TK_OK)
		rc = tka_prepare(
		    c,
		    "SELECT p.device_id, p.level, p.process_id, p.name, p.input_dims, p.dtype,"
		    " p.calls, p.device_ns, p.flops, p.bytes FROM analysis_op_perf p"
		    " WHERE p.launched = 1 AND p.device_ns > 0 AND p.rowid > ?1 ORDER BY "
		    "p.device_ns DESC, p.rowid",
		    &q);
	if (rc == TK_OK)
		sqlite3_bind_int64(q, 1, after);
	if (rc == TK_OK)
		rc = tka_prepare(c,
				 "INSERT INTO analysis_roofline (" TK_COLS_ANALYSIS_ROOFLINE
				 ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
				 "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
				 &ins);
	int64_t have = -1;
	struct tka_device_peak dp;
	int step = SQLITE_DONE;
	while (rc == TK_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		const char *level = (const char *)sqlite3_column_text(q, 1);
		int hlo = level && !strcmp(level, "hlo_op");
		int64_t dev =
		    hlo ? tka_col_or_none(q, 0) : tka_process_device(c, tka_col_or_none(q, 2));
		if (dev == TK_NONE)
			continue;
		if (dev != have) {
			if ((rc = tka_device_peak(c, dev, &dp)) != TK_OK)
				break;
			have = dev;
		}
		const char *name = (const char *)sqlite3_column_text(q, 3);
		const char *dtype = (const char *)sqlite3_column_text(q, 5);
		if (hlo && !dtype)
			dtype = "bf16";
		const char *cat = "other";
		if (hlo) {
			int r = tka_device_name_rule(name);
			cat = tka_category_name(r >= 0 ? r : TKA_CAT_OTHER);
		} else {
			cat = tka_category_of_host_op(name);
		}
		int64_t ns = sqlite3_column_int64(q, 7), flops = sqlite3_column_int64(q, 8),
			bytes = sqlite3_column_int64(q, 9);
		double af = (double)flops * 1e9 / (double)ns, ab = (double)bytes * 1e9 / (double)ns;
		double inten = bytes > 0 ? (double)flops / (double)bytes : NAN;
		int di = dtype_index(dtype);
		double peak = di >= 0 ? dp.flops[di] : 0, bw = (double)dp.bandwidth_bps;
		double ridge = peak > 0 && bw > 0 ? peak / bw : NAN;
		double roof = peak > 0 && bw > 0 && bytes > 0 ? fmin(peak, inten * bw) : NAN;
		const char *bound = isfinite(ridge) && isfinite(inten) && flops > 0
					? (inten >= ridge ? "compute" : "memory")
					: NULL;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, dev);
		sqlite3_bind_value(ins, 2, sqlite3_column_value(q, 1));
		sqlite3_bind_value(ins, 3, sqlite3_column_value(q, 2));
		sqlite3_bind_value(ins, 4, sqlite3_column_value(q, 3));
		sqlite3_bind_value(ins, 5, sqlite3_column_value(q, 4));
		sqlite3_bind_text(ins, 6, dtype, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 7, cat, -1, SQLITE_STATIC);
		sqlite3_bind_value(ins, 8, sqlite3_column_value(q, 6));
		sqlite3_bind_int64(ins, 9, ns);
		sqlite3_bind_int64(ins, 10, flops);
		sqlite3_bind_int64(ins, 11, bytes);
		sqlite3_bind_double(ins, 12, af);
		sqlite3_bind_double(ins, 13, ab);
		bind_real_or_null(ins, 14, inten, bytes > 0);
		bind_real_or_null(ins, 15, peak, peak > 0);
		bind_real_or_null(ins, 16, bw, bw > 0);
		bind_real_or_null(ins, 17, ridge, 1);
		if (bound)
			sqlite3_bind_text(ins, 18, bound, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(ins, 18);
		bind_real_or_null(ins, 19, af / peak, peak > 0);
		bind_real_or_null(ins, 20, ab / bw, bw > 0);
		bind_real_or_null(ins, 21, af / roof, isfinite(roof) && roof > 0);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = tka_fail(c, tka_sql_status(c), "writing analysis_roofline: %s",
				      sqlite3_errmsg(c->db));
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading analysis_op_perf: %s",
			      sqlite3_errmsg(c->db));
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	return rc;
}
