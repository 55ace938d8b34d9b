/*
 * Load balance across ranks (docs/metrics.md, "Load balance across ranks"): per rank and device
 * its window figures, device step time and load (time not spent waiting in communication), the
 * imbalance (max / mean) of each figure across the ranks, and the slowest rank with the component
 * its extra time goes to (analysis_balance_ranks, analysis_balance, analysis_balance_slowest).
 * Reads only other analysis tables (analysis_device_time, analysis_steps, analysis_comm_ranks)
 * and the devices and processes rows, never the events: a job summary store that keeps the
 * per-rank analysis tables without the events gets the same answer. One pass over the members
 * per metric: linear in the number of ranks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"

/* The figures of a member, by metric (NAN: none). Order = the rows of analysis_balance. */
enum {
	M_WINDOW,
	M_BUSY,
	M_COMPUTE,
	M_COMM,
	M_EXPOSED_COMM,
	M_EXPOSED_MEMCPY,
	M_IDLE,
	M_WAIT,
	M_STEP,
	M_STEP_COMPUTE,
	M_STEP_EXPOSED_COMM,
	M_STEP_EXPOSED_MEMCPY,
	M_STEP_HOST_IDLE,
	M_STEP_OTHER_IDLE,
	M_LOAD,
	M_COUNT
};

/* Per metric: its name, whether it is a step figure, the component it is of the load (the name
 * analysis_balance_slowest gives it and the words of the summary), by basis (0 window, 1 step). */
static const struct {
	const char *name;
	int step;
	int component_of; /* -1 none, 0 window basis, 1 step basis */
	const char *component, *words;
} metrics[M_COUNT] = {
    {"window", 0, -1, NULL, NULL},
    {"busy", 0, -1, NULL, NULL},
    {"compute", 0, 0, "compute", "compute"},
    {"comm", 0, -1, NULL, NULL},
    {"exposed_comm", 0, -1, NULL, NULL},
    {"exposed_memcpy", 0, 0, "exposed_memcpy", "exposed copies"},
    {"idle", 0, 0, "idle", "idle"},
    {"wait", 0, -1, NULL, NULL},
    {"step", 1, -1, NULL, NULL},
    {"step_compute", 1, 1, "compute", "compute"},
    {"step_exposed_comm", 1, -1, NULL, NULL},
    {"step_exposed_memcpy", 1, 1, "exposed_memcpy", "exposed copies"},
    {"step_host_idle", 1, 1, "host_idle", "host-bound idle"},
    {"step_other_idle", 1, 1, "other_idle", "other idle"},
    {"load", 0, -1, NULL, NULL},
};

struct member {
	int64_t device_id, rank, steps;
	char *host, *window; /* owned; host may be NULL */
	double v[M_COUNT];
	int slowest;
};

/* One row of analysis_balance. */
struct mstat {
	int64_t members, max_rank, max_dev;
	double max, mean, min, slowest, others, extra;
};

/* The members, by rank then device: the selected window of every device with a known rank, its
 * comm wait, and the sums of its non-outlier steps (divided in C: exact integer sums). */
static const char members_sql[] =
    "SELECT t.device_id, coalesce(d.rank, p.rank) AS rk, coalesce(hd.str, hp.str), t.window,"
    " t.window_ns, t.busy_ns, t.compute_ns, t.comm_ns, t.exposed_comm_ns, t.exposed_memcpy_ns,"
    " t.idle_ns, r.total_wait_ns, s.n, s.dur, s.compute, s.ecomm, s.ecopy, s.hidle, s.oidle"
    " FROM analysis_device_time t JOIN devices d ON d.id = t.device_id"
    " LEFT JOIN processes p ON p.id = d.process_id"
    " LEFT JOIN strings hd ON hd.id = d.host_id LEFT JOIN strings hp ON hp.id = p.host_id"
    " LEFT JOIN analysis_comm_ranks r ON r.device_id = t.device_id"
    " LEFT JOIN (SELECT device_id, count(*) AS n, sum(dur_ns) AS dur, sum(compute_ns) AS compute,"
    "  sum(exposed_comm_ns) AS ecomm, sum(exposed_memcpy_ns) AS ecopy,"
    "  sum(host_idle_ns) AS hidle, sum(other_idle_ns) AS oidle FROM analysis_steps"
    "  WHERE outlier = 0 GROUP BY device_id) s ON s.device_id = t.device_id"
    " WHERE t.selected = 1 AND rk IS NOT NULL ORDER BY rk, t.device_id";

static void members_free(struct member *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++) {
		free(m[i].host);
		free(m[i].window);
	}
	free(m);
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? strdup((const char *)t) : NULL;
}

/* Read the members into *@out (*@n of them). */
static int load_members(struct tka_ctx *c, struct member **out, size_t *n)
{
	sqlite3_stmt *st = NULL;
	struct member *m = NULL;
	size_t cap = 0, k = 0;
	int rc = tka_prepare(c, members_sql, &st), s;
	if (rc != TK_OK)
		goto out;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (TKU_GROW(m, cap, k + 1, 16) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			goto out;
		}
		struct member *e = &m[k++];
		memset(e, 0, sizeof(*e));
		e->device_id = sqlite3_column_int64(st, 0);
		e->rank = sqlite3_column_int64(st, 1);
		e->host = dup_col(st, 2);
		e->window = dup_col(st, 3);
		if (!e->window || (!e->host && sqlite3_column_type(st, 2) != SQLITE_NULL)) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			goto out;
		}
		for (int j = 0; j <= M_IDLE; j++)
			e->v[j] = (double)sqlite3_column_int64(st, 4 + j);
		e->v[M_WAIT] = sqlite3_column_type(st, 11) == SQLITE_NULL
				   ? NAN
				   : (double)sqlite3_column_int64(st, 11);
		e->steps =
		    sqlite3_column_type(st, 12) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 12);
		for (int j = M_STEP; j <= M_STEP_OTHER_IDLE; j++)
			e->v[j] = e->steps > 0 ? (double)sqlite3_column_int64(st, 13 + j - M_STEP) /
						     (double)e->steps
					       : NAN;
	}
	if (s != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading the members: %s",
			      sqlite3_errmsg(c->db));
out:
	sqlite3_finalize(st);
	if (rc != TK_OK) {
		members_free(m, k);
		m = NULL;
		k = 0;
	}
	*out = m;
	*n = k;
	return rc;
}

/* The statistics of metric @j over @m; the slowest member is @slow. */
static struct mstat stat_of(const struct member *m, size_t n, int j, size_t slow)
{
	struct mstat s = {0};
	double sum = 0, osum = 0;
	int64_t others = 0;
	s.slowest = s.others = s.extra = NAN;
	for (size_t i = 0; i < n; i++) {
		double v = m[i].v[j];
		if (isnan(v))
			continue;
		if (!s.members || v > s.max) {
			s.max = v;
			s.max_rank = m[i].rank;
			s.max_dev = m[i].device_id;
		}
		if (!s.members || v < s.min)
			s.min = v;
		s.members++;
		sum += v;
		if (i == slow) {
			s.slowest = v;
		} else {
			osum += v;
			others++;
		}
	}
	if (s.members)
		s.mean = sum / (double)s.members;
	if (others)
		s.others = osum / (double)others;
	if (!isnan(s.slowest) && others)
		s.extra = s.slowest - s.others;
	return s;
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static void bind_text(sqlite3_stmt *st, int i, const char *t)
{
	if (t)
		sqlite3_bind_text(st, i, t, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int step_row(struct tka_ctx *c, sqlite3_stmt *st, const char *table)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		return tka_fail(c, tka_sql_status(c), "writing %s: %s", table,
				sqlite3_errmsg(c->db));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return TK_OK;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_BALANCE_RANKS, 21, "analysis_balance_ranks");
TKA_WRITES(TK_NCOLS_ANALYSIS_BALANCE, 12, "analysis_balance");
TKA_WRITES(TK_NCOLS_ANALYSIS_BALANCE_SLOWEST, 11, "analysis_balance_slowest");

static int write_ranks(struct tka_ctx *c, const struct member *m, size_t n)
{
	sqlite3_stmt *st = NULL;
	int rc =
	    tka_prepare(c,
			"INSERT INTO analysis_balance_ranks (" TK_COLS_ANALYSIS_BALANCE_RANKS
			") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			&st);
	for (size_t i = 0; rc == TK_OK && i < n; i++) {
		const struct member *e = &m[i];
		int k = 1;
		sqlite3_bind_int64(st, k++, e->device_id);
		sqlite3_bind_int64(st, k++, e->rank);
		bind_text(st, k++, e->host);
		bind_text(st, k++, e->window);
		for (int j = 0; j <= M_IDLE; j++)
			sqlite3_bind_int64(st, k++, (int64_t)e->v[j]);
		if (isnan(e->v[M_WAIT]))
			sqlite3_bind_null(st, k++);
		else
			sqlite3_bind_int64(st, k++, (int64_t)e->v[M_WAIT]);
		sqlite3_bind_int64(st, k++, e->steps);
		for (int j = M_STEP; j <= M_STEP_OTHER_IDLE; j++)
			bind_real(st, k++, e->v[j]);
		sqlite3_bind_double(st, k++, e->v[M_LOAD]);
		sqlite3_bind_int(st, k++, e->slowest);
		rc = step_row(c, st, "analysis_balance_ranks");
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Write analysis_balance (the metrics that apply with @basis: step metrics only with basis step,
 * wait only when two members have one) and analysis_balance_slowest for slowest member @slow.
 */
static int write_stats(struct tka_ctx *c, const struct member *m, size_t n, size_t slow, int basis)
{
	sqlite3_stmt *st = NULL, *sl = NULL;
	struct mstat load = stat_of(m, n, M_LOAD, slow);
	int best = -1;
	double best_extra = 0;
	int rc = tka_prepare(c,
			     "INSERT INTO analysis_balance (" TK_COLS_ANALYSIS_BALANCE
			     ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			     &st);
	if (rc != TK_OK)
		goto out;
	for (int j = 0; j < M_COUNT; j++) {
		struct mstat s = stat_of(m, n, j, slow);
		int comp = metrics[j].component_of == basis;
		if ((metrics[j].step && !basis) || s.members < 2)
			continue;
		if (comp && !isnan(s.extra) && (best < 0 || s.extra > best_extra)) {
			best = j;
			best_extra = s.extra;
		}
		int k = 1;
		sqlite3_bind_text(st, k++, metrics[j].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, k++, s.members);
		sqlite3_bind_double(st, k++, s.max);
		sqlite3_bind_int64(st, k++, s.max_rank);
		sqlite3_bind_int64(st, k++, s.max_dev);
		sqlite3_bind_double(st, k++, s.mean);
		sqlite3_bind_double(st, k++, s.min);
		bind_real(st, k++, s.mean != 0 ? s.max / s.mean : NAN);
		bind_real(st, k++, s.slowest);
		bind_real(st, k++, s.others);
		bind_real(st, k++, s.extra);
		sqlite3_bind_int(st, k++, comp);
		if ((rc = step_row(c, st, "analysis_balance")) != TK_OK)
			goto out;
	}
	if (!(load.extra > 0))
		best = -1;
	const struct member *e = &m[slow];
	char who[64], summary[320];
	/* the device only when its rank has several (the report shows "device N" as its label) */
	if ((slow > 0 && m[slow - 1].rank == e->rank) ||
	    (slow + 1 < n && m[slow + 1].rank == e->rank))
		snprintf(who, sizeof(who), "rank %lld (device %lld)", (long long)e->rank,
			 (long long)e->device_id);
	else
		snprintf(who, sizeof(who), "rank %lld", (long long)e->rank);
	if (best >= 0)
		snprintf(summary, sizeof(summary),
			 "%s is the slowest: +%lld ns %s over the mean of the other ranks outside "
			 "exposed communication, %lld ns of it %s",
			 who, (long long)llround(load.extra), basis ? "per step" : "in its window",
			 (long long)llround(best_extra), metrics[best].words);
	else
		snprintf(summary, sizeof(summary),
			 "%s has the largest load, but no rank works longer than the mean of the "
			 "others",
			 who);
	rc = tka_prepare(c,
			 "INSERT INTO analysis_balance_slowest (" TK_COLS_ANALYSIS_BALANCE_SLOWEST
			 ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			 &sl);
	if (rc != TK_OK)
		goto out;
	int k = 1;
	sqlite3_bind_int64(sl, k++, e->device_id);
	sqlite3_bind_int64(sl, k++, e->rank);
	bind_text(sl, k++, e->host);
	sqlite3_bind_text(sl, k++, basis ? "step" : "window", -1, SQLITE_STATIC);
	sqlite3_bind_double(sl, k++, load.slowest);
	sqlite3_bind_double(sl, k++, load.others);
	sqlite3_bind_double(sl, k++, load.extra);
	bind_real(sl, k++, load.mean != 0 ? load.max / load.mean : NAN);
	bind_text(sl, k++, best >= 0 ? metrics[best].component : NULL);
	bind_real(sl, k++, best >= 0 ? best_extra : NAN);
	sqlite3_bind_text(sl, k++, summary, -1, SQLITE_TRANSIENT);
	rc = step_row(c, sl, "analysis_balance_slowest");
out:
	sqlite3_finalize(st);
	sqlite3_finalize(sl);
	return rc;
}

int tka_balance(struct tka_ctx *c)
{
	struct member *m = NULL;
	size_t n = 0, slow = 0, ranks = 0;
	int rc = load_members(c, &m, &n), basis = 1;
	if (rc != TK_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!i || m[i].rank != m[i - 1].rank)
			ranks++;
		if (!m[i].steps)
			basis = 0;
	}
	if (ranks < 2)
		goto out; /* no balance to show */
	for (size_t i = 0; i < n; i++) {
		struct member *e = &m[i];
		e->v[M_LOAD] = basis ? e->v[M_STEP] - e->v[M_STEP_EXPOSED_COMM]
				     : e->v[M_WINDOW] - e->v[M_EXPOSED_COMM];
		if (e->v[M_LOAD] > m[slow].v[M_LOAD]) /* ties: the first, by rank then device */
			slow = i;
	}
	m[slow].slowest = 1;
	if ((rc = write_ranks(c, m, n)) == TK_OK)
		rc = write_stats(c, m, n, slow, basis);
out:
	members_free(m, n);
	return rc;
}
