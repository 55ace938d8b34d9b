/*
 * Communication across ranks (docs/metrics.md, "Communication across ranks"): the n-th
 * collective of a given name (and process group, when the trace names one) on one device is
 * matched with the n-th of the same name on every other device; per member its start skew
 * (start − earliest start), its wait (latest start − start) and whether it was the last to
 * arrive (analysis_comm); per device how often it was last, and the straggler flag
 * (analysis_comm_ranks). Communication kernels come from the shared timeline (intervals.c).
 */
#include "intervals.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

static const char *const schema =
    "DROP TABLE IF EXISTS analysis_comm;"
    "CREATE TABLE analysis_comm (\n"
    "  device_id INTEGER NOT NULL,  -- devices.id of this member\n"
    "  rank INTEGER,                -- devices.rank, else its process's rank; NULL when unknown\n"
    "  collective TEXT NOT NULL,    -- kernel name of the collective\n"
    "  process_group TEXT,          -- 'Process Group Name' arg of the kernel, NULL when absent\n"
    "  seq INTEGER NOT NULL,        -- 1-based occurrence of (collective, process_group) on "
    "this device; equal seq = matched\n"
    "  event_id INTEGER NOT NULL,   -- events.id of the kernel\n"
    "  start_ns INTEGER NOT NULL,   -- kernel start\n"
    "  dur_ns INTEGER NOT NULL,     -- kernel duration\n"
    "  members INTEGER NOT NULL,    -- devices that have this (collective, process_group, seq)\n"
    "  skew_ns INTEGER NOT NULL,    -- start_ns − earliest start_ns among the members\n"
    "  wait_ns INTEGER NOT NULL,    -- latest start_ns among the members − start_ns\n"
    "  last INTEGER NOT NULL        -- 1 when this member started last and skew_ns > 0\n"
    ");"
    "DROP TABLE IF EXISTS analysis_comm_ranks;"
    "CREATE TABLE analysis_comm_ranks (\n"
    "  device_id INTEGER NOT NULL,  -- devices.id\n"
    "  rank INTEGER,                -- as in analysis_comm\n"
    "  collectives INTEGER NOT NULL,-- matched collectives this device took part in\n"
    "  times_last INTEGER NOT NULL, -- of those, how many it was last to start (last = 1)\n"
    "  late_share REAL NOT NULL,    -- times_last / collectives\n"
    "  expected_share REAL NOT NULL,-- mean over its collectives of 1 / members (chance "
    "level)\n"
    "  total_skew_ns INTEGER NOT NULL, -- sum of skew_ns\n"
    "  max_skew_ns INTEGER NOT NULL,   -- largest skew_ns\n"
    "  total_wait_ns INTEGER NOT NULL, -- sum of wait_ns\n"
    "  straggler INTEGER NOT NULL   -- 1 when times_last >= 3 and late_share > 1.5 * "
    "expected_share\n"
    ");";

struct member {
	uint32_t name_id;
	const char *pg; /* borrowed from the pgs list, or NULL */
	int64_t seq;
	size_t dev, op;
};

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

static int cmp_member(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	if (a->name_id != b->name_id)
		return a->name_id < b->name_id ? -1 : 1;
	int s = cmp_str(a->pg, b->pg);
	if (s)
		return s;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->dev < b->dev ? -1 : a->dev > b->dev;
}

struct rank_sum {
	int64_t n, last, skew, max_skew, wait;
	double expected;
};

struct counter {
	uint32_t name_id;
	const char *pg;
	int64_t n;
};

int tka_comm(struct tka_ctx *c)
{
	const struct tka_timeline *tl;
	sqlite3_stmt *ins = NULL, *rk = NULL, *pgq = NULL, *keyq = NULL;
	struct member *m = NULL;
	struct rank_sum *rs = NULL;
	struct counter *cnt = NULL;
	char **pgs = NULL;
	size_t nm = 0, cap = 0, npgs = 0;
	int64_t pg_key = 0;
	int rc;
	if ((rc = tka_exec(c, "creating analysis_comm", schema)) != TK_OK ||
	    (rc = tka_timeline_get(c, &tl)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_comm VALUES (?, ?, (SELECT str FROM strings "
			      "WHERE id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			      &ins)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_comm_ranks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
			      "?)",
			      &rk)) != TK_OK ||
	    (rc = tka_prepare(c, "SELECT id FROM strings WHERE str = 'Process Group Name'",
			      &keyq)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "SELECT CAST(value AS TEXT) FROM args WHERE event_id = ? AND key_id "
			      "= ?",
			      &pgq)) != TK_OK)
		goto out;
	if (sqlite3_step(keyq) == SQLITE_ROW)
		pg_key = sqlite3_column_int64(keyq, 0);
	if (!(rs = calloc(tl->ndev + 1, sizeof(*rs)))) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	/* Every communication op with its per-device occurrence number. */
	for (size_t i = 0; i < tl->ndev; i++) {
		const struct tka_device *d = &tl->dev[i];
		size_t ncnt = 0;
		free(cnt);
		cnt = NULL;
		for (size_t k = 0; k < d->nops; k++) {
			if (d->ops[k].cls != TKA_COMM)
				continue;
			const char *pg = NULL;
			if (pg_key) {
				sqlite3_reset(pgq);
				sqlite3_bind_int64(pgq, 1, d->ops[k].id);
				sqlite3_bind_int64(pgq, 2, pg_key);
				if (sqlite3_step(pgq) == SQLITE_ROW &&
				    sqlite3_column_text(pgq, 0)) {
					const char *v = (const char *)sqlite3_column_text(pgq, 0);
					for (size_t p = 0; p < npgs && !pg; p++)
						if (!strcmp(pgs[p], v))
							pg = pgs[p];
					if (!pg) {
						char **np = realloc(pgs, (npgs + 1) * sizeof(*np));
						if (!np || !(np[npgs] = strdup(v))) {
							if (np)
								pgs = np;
							rc =
							    tka_fail(c, TK_ENOMEM, "out of memory");
							goto out;
						}
						pgs = np;
						pg = pgs[npgs++];
					}
				}
			}
			size_t j = 0; /* occurrence counter of (name, pg): few distinct keys */
			while (j < ncnt && !(cnt[j].name_id == d->ops[k].name_id &&
					     cmp_str(cnt[j].pg, pg) == 0))
				j++;
			if (j == ncnt) {
				struct counter *nc = realloc(cnt, (ncnt + 1) * sizeof(*nc));
				if (!nc) {
					rc = tka_fail(c, TK_ENOMEM, "out of memory");
					goto out;
				}
				cnt = nc;
				cnt[ncnt++] = (struct counter){d->ops[k].name_id, pg, 0};
			}
			if (nm == cap) {
				cap = cap ? cap * 2 : 256;
				struct member *nmv = realloc(m, cap * sizeof(*nmv));
				if (!nmv) {
					rc = tka_fail(c, TK_ENOMEM, "out of memory");
					goto out;
				}
				m = nmv;
			}
			m[nm++] = (struct member){d->ops[k].name_id, pg, ++cnt[j].n, i, k};
		}
	}
	if (nm > 1)
		qsort(m, nm, sizeof(*m), cmp_member);
	for (size_t a = 0; a < nm;) {
		size_t b = a + 1;
		while (b < nm && m[b].name_id == m[a].name_id && cmp_str(m[b].pg, m[a].pg) == 0 &&
		       m[b].seq == m[a].seq)
			b++;
		if (b - a >= 2) {
			int64_t lo = INT64_MAX, hi = INT64_MIN;
			for (size_t k = a; k < b; k++) {
				int64_t ts = tl->dev[m[k].dev].ops[m[k].op].ts;
				lo = ts < lo ? ts : lo;
				hi = ts > hi ? ts : hi;
			}
			for (size_t k = a; k < b; k++) {
				const struct tka_device *d = &tl->dev[m[k].dev];
				const struct tka_op *op = &d->ops[m[k].op];
				int64_t skew = op->ts - lo, wait = hi - op->ts;
				int last = op->ts == hi && skew > 0;
				struct rank_sum *r = &rs[m[k].dev];
				r->n++;
				r->last += last;
				r->skew += skew;
				r->max_skew = skew > r->max_skew ? skew : r->max_skew;
				r->wait += wait;
				r->expected += 1.0 / (double)(b - a);
				int i = 1;
				sqlite3_reset(ins);
				sqlite3_bind_int64(ins, i++, d->device_id);
				if (d->rank == TK_NONE)
					sqlite3_bind_null(ins, i++);
				else
					sqlite3_bind_int64(ins, i++, d->rank);
				sqlite3_bind_int64(ins, i++, m[k].name_id);
				if (m[k].pg)
					sqlite3_bind_text(ins, i++, m[k].pg, -1, SQLITE_STATIC);
				else
					sqlite3_bind_null(ins, i++);
				sqlite3_bind_int64(ins, i++, m[k].seq);
				sqlite3_bind_int64(ins, i++, op->id);
				sqlite3_bind_int64(ins, i++, op->ts);
				sqlite3_bind_int64(ins, i++, op->end - op->ts);
				sqlite3_bind_int64(ins, i++, (int64_t)(b - a));
				sqlite3_bind_int64(ins, i++, skew);
				sqlite3_bind_int64(ins, i++, wait);
				sqlite3_bind_int(ins, i++, last);
				if (sqlite3_step(ins) != SQLITE_DONE) {
					rc = tka_fail(c, TK_EINTERNAL, "writing analysis_comm: %s",
						      sqlite3_errmsg(c->db));
					goto out;
				}
			}
		}
		a = b;
	}
	for (size_t i = 0; i < tl->ndev; i++) {
		const struct rank_sum *r = &rs[i];
		if (r->n == 0)
			continue;
		double share = (double)r->last / (double)r->n,
		       expected = r->expected / (double)r->n;
		int j = 1;
		sqlite3_reset(rk);
		sqlite3_bind_int64(rk, j++, tl->dev[i].device_id);
		if (tl->dev[i].rank == TK_NONE)
			sqlite3_bind_null(rk, j++);
		else
			sqlite3_bind_int64(rk, j++, tl->dev[i].rank);
		sqlite3_bind_int64(rk, j++, r->n);
		sqlite3_bind_int64(rk, j++, r->last);
		sqlite3_bind_double(rk, j++, share);
		sqlite3_bind_double(rk, j++, expected);
		sqlite3_bind_int64(rk, j++, r->skew);
		sqlite3_bind_int64(rk, j++, r->max_skew);
		sqlite3_bind_int64(rk, j++, r->wait);
		sqlite3_bind_int(rk, j++, r->last >= 3 && share > 1.5 * expected);
		if (sqlite3_step(rk) != SQLITE_DONE) {
			rc = tka_fail(c, TK_EINTERNAL, "writing analysis_comm_ranks: %s",
				      sqlite3_errmsg(c->db));
			goto out;
		}
	}
out:
	sqlite3_finalize(ins);
	sqlite3_finalize(rk);
	sqlite3_finalize(pgq);
	sqlite3_finalize(keyq);
	for (size_t p = 0; p < npgs; p++)
		free(pgs[p]);
	free(pgs);
	free(m);
	free(rs);
	free(cnt);
	return rc;
}
