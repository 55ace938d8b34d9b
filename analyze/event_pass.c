/*
 * The shared pass over the events: every event is read once, in load (rowid) order, with its
 * op_details and kernel_details rows merged in by event id (both tables are keyed by it, so the
 * merge is two more sequential scans), and handed to each analysis that needs the events: the
 * timeline (device operations, launch times), the op profile (self-time sweeps), kernel stats
 * (groups), the KPIs (compile intervals, bytes accessed) and the gap causes (host-side
 * synchronizations; they run after the timeline, which they read at the end). A sequential scan of the events table is the
 * cheapest way to read them; reading them per analysis, or device tracks through the
 * (track_id, ts_ns) index, cost a table seek per event and several scans in all.
 *
 * The pass is also where the analyses' inputs are checked against the store's rules
 * (store/checked.h): track ids bounded by the rows, every event's columns integers, its interval
 * in range, and the sum of all durations within int64, so that the analyses after it (in C or
 * in SQL, on the same transaction) add and subtract event times and durations without overflow.
 *
 * The rows are read straight from the file's pages (store/tscan.h: no VDBE per row), whatever
 * the jobs. When that declines (a write-ahead log beside the store), SQL reads them: with
 * jobs > 1 by that many threads (event_jobs.c, over the same cursor, tka_evcur), handed to the
 * users here in id order; the same events, the same order, the same checks on every path.
 */
#include <stdlib.h>
#include <string.h>

#include <tracekit/store.h>

#include "analyze_internal.h"
#include "checked.h"
#include "tscan.h"

static const struct {
	const char *what;
	int (*begin)(struct tka_ctx *c);
	int (*event)(struct tka_ctx *c, const struct tka_ev *e);
	int (*end)(struct tka_ctx *c);
} users[] = {
    {"timeline", tka_timeline_begin, tka_timeline_event, tka_timeline_end},
    {"op profile", tka_op_profile_begin, tka_op_profile_event, tka_op_profile_end},
    {"kernel stats", tka_kernel_stats_begin, tka_kernel_stats_event, tka_kernel_stats_end},
    {"kpi inputs", tka_kpi_begin, tka_kpi_event, tka_kpi_end},
    {"gap causes", tka_gap_causes_begin, tka_gap_causes_event, tka_gap_causes_end},
    {"gpu time per op", tka_op_gpu_time_begin, tka_op_gpu_time_event, tka_op_gpu_time_end},
};
#define NUSERS (sizeof(users) / sizeof(users[0]))

/* Column @i as an integer, TK_NONE when NULL (the type is looked at only for a 0: NULL reads 0). */
static int64_t col_or_none(sqlite3_stmt *st, int i)
{
	int64_t v = sqlite3_column_int64(st, i);
	return v == 0 && sqlite3_column_type(st, i) == SQLITE_NULL ? TK_NONE : v;
}

/* The tracks table by id. */
static int load_tracks(struct tka_ctx *c, struct tka_pass *p)
{
	sqlite3_stmt *st = NULL;
	int rc = tka_prepare(c, "SELECT count(*), coalesce(max(id), 0) FROM tracks", &st), step;
	if (rc != TK_OK)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) /* ids bounded by the rows: checked as they come */
		p->ntracks =
		    tk_id_slots(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)) - 1;
	sqlite3_finalize(st);
	st = NULL;
	p->tracks = calloc((size_t)p->ntracks + 1, sizeof(*p->tracks));
	if (!p->tracks)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	rc = tka_prepare(c, "SELECT id, device_id, process_id, kind = 'counter' FROM tracks", &st);
	while (rc == TK_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (!tk_id_ok(id, p->ntracks + 1)) {
			rc = tka_fail(c, TK_EFORMAT, "table tracks, row id %lld: %s", (long long)id,
				      TK_ID_RANGE_MSG);
			break;
		}
		struct tka_track *t = &p->tracks[id];
		t->device_id = col_or_none(st, 1);
		t->process_id = col_or_none(st, 2);
		t->exists = 1;
		t->counter = (uint8_t)sqlite3_column_int(st, 3);
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading tracks: %s", sqlite3_errmsg(c->db));
	sqlite3_finalize(st);
	return rc;
}

/* A details table in event_id order over [?1, ?2], merged into the events as they come. */
static int merge_open(struct tka_ctx *c, struct tka_merge *m, const char *sql)
{
	m->id = INT64_MAX;
	return tka_prepare(c, sql, &m->st);
}

/* The first row of @m at or after the range's start bound in (lo, hi). */
static void merge_seek_range(struct tka_merge *m, int64_t lo, int64_t hi)
{
	m->id = INT64_MAX;
	if (!m->st)
		return;
	sqlite3_reset(m->st);
	sqlite3_bind_int64(m->st, 1, lo);
	sqlite3_bind_int64(m->st, 2, hi);
	if (sqlite3_step(m->st) == SQLITE_ROW)
		m->id = sqlite3_column_int64(m->st, 0);
}

/* Move @m to the first row with event_id >= @id; 1 when that row is @id's. */
static int merge_seek(struct tka_merge *m, int64_t id)
{
	while (m->id < id)
		m->id =
		    sqlite3_step(m->st) == SQLITE_ROW ? sqlite3_column_int64(m->st, 0) : INT64_MAX;
	return m->id == id;
}

/* The current row of @q (events: id, track_id, kind, name_id, category_id, ts_ns, dur_ns)
 * against the store's rules (the sum of the durations and the kernels' shared memory apart: the
 * pass checks them in id order): NULL, or what is wrong. */
static const char *bad_event(sqlite3_stmt *q)
{
	static const char *const what[] = {"id",	  "track_id", "kind",  "name_id",
					   "category_id", "ts_ns",    "dur_ns"};
	for (int i = 1; i < 7; i++)
		if (sqlite3_column_type(q, i) != SQLITE_INTEGER &&
		    !(i == 4 && sqlite3_column_type(q, i) == SQLITE_NULL))
			return what[i];
	int64_t kind = sqlite3_column_int64(q, 2);
	if (kind < INT32_MIN || kind > INT32_MAX)
		return "kind out of range";
	return tk_span_check(sqlite3_column_int64(q, 5), sqlite3_column_int64(q, 6));
}

int tka_evcur_open(struct tka_ctx *c, const struct tka_pass *p, struct tka_evcur *r)
{
	int rc;
	memset(r, 0, sizeof(*r));
	r->od.id = r->kd.id = INT64_MAX;
	r->corr = p->want_corr;
	rc = tka_prepare(c,
			 p->want_corr ? "SELECT id, track_id, kind, name_id, category_id, ts_ns, "
					"dur_ns, correlation_id FROM events "
					"WHERE id BETWEEN ?1 AND ?2 ORDER BY id"
				      : "SELECT id, track_id, kind, name_id, category_id, ts_ns, "
					"dur_ns FROM events WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
			 &r->q);
	if (rc == TK_OK && p->want_op_details)
		rc = merge_open(c, &r->od,
				"SELECT event_id, coalesce(op_category_id, 0), "
				"coalesce(hlo_module_id, 0), bytes_accessed FROM op_details "
				"WHERE event_id BETWEEN ?1 AND ?2 ORDER BY event_id");
	if (rc == TK_OK && p->want_kernel_details)
		rc = merge_open(
		    c, &r->kd,
		    "SELECT event_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
		    "registers, static_smem, dynamic_smem, occupancy FROM kernel_details "
		    "WHERE event_id BETWEEN ?1 AND ?2 ORDER BY event_id");
	return rc;
}

int tka_evcur_seek(struct tka_ctx *c, struct tka_evcur *r, int64_t lo, int64_t hi)
{
	(void)c;
	sqlite3_reset(r->q);
	sqlite3_bind_int64(r->q, 1, lo);
	sqlite3_bind_int64(r->q, 2, hi);
	merge_seek_range(&r->od, lo, hi);
	merge_seek_range(&r->kd, lo, hi);
	return TK_OK;
}

/* A details column holds a number or NULL (text or a blob: the store's rules broken). */
static int detail_ok(sqlite3_stmt *st, int i)
{
	int t = sqlite3_column_type(st, i);
	return t != SQLITE_TEXT && t != SQLITE_BLOB;
}

static const char *const od_cols[] = {"event_id", "op_category_id", "hlo_module_id",
				      "bytes_accessed", NULL};
static const char *const kd_cols[] = {"event_id",    "grid_x",	     "grid_y",	  "grid_z",
				      "block_x",     "block_y",	     "block_z",	  "registers",
				      "static_smem", "dynamic_smem", "occupancy", NULL};

static int bad_detail(struct tka_ctx *c, const char *table, const char *const *cols, int i,
		      int64_t id)
{
	return tka_fail(c, TK_EFORMAT, "table %s, row id %lld: %s is not a number", table,
			(long long)id, cols[i]);
}

int tka_evcur_next(struct tka_ctx *c, struct tka_evcur *r, struct tka_ev *e, int *got)
{
	sqlite3_stmt *q = r->q;
	int step = sqlite3_step(q);
	*got = 0;
	if (step != SQLITE_ROW)
		return step == SQLITE_DONE ? TK_OK
					   : tka_fail(c, tka_sql_status(c), "reading events: %s",
						      sqlite3_errmsg(c->db));
	e->id = sqlite3_column_int64(q, 0);
	const char *bad = bad_event(q);
	if (bad)
		return tka_fail(c, TK_EFORMAT, "table events, row id %lld: %s%s", (long long)e->id,
				bad, strchr(bad, ' ') ? "" : " is not an integer");
	e->track = sqlite3_column_int64(q, 1);
	e->kind = sqlite3_column_int(q, 2);
	e->name_id = sqlite3_column_int64(q, 3);
	e->cat_id = sqlite3_column_int64(q, 4); /* 0 when NULL */
	e->ts = sqlite3_column_int64(q, 5);
	e->dur = sqlite3_column_int64(q, 6);
	e->corr = r->corr ? col_or_none(q, 7) : TK_NONE;
	e->has_op = r->od.st && merge_seek(&r->od, e->id);
	for (int i = 1; e->has_op && i < 4; i++)
		if (!detail_ok(r->od.st, i))
			return bad_detail(c, "op_details", od_cols, i, e->id);
	e->op_cat = e->has_op ? sqlite3_column_int64(r->od.st, 1) : 0;
	e->op_module = e->has_op ? sqlite3_column_int64(r->od.st, 2) : 0;
	e->op_bytes = e->has_op ? col_or_none(r->od.st, 3) : TK_NONE;
	e->has_kd = r->kd.st && merge_seek(&r->kd, e->id);
	for (int i = 1; e->has_kd && i < 11; i++)
		if (!detail_ok(r->kd.st, i))
			return bad_detail(c, "kernel_details", kd_cols, i, e->id);
	if (e->has_kd) {
		for (int i = 0; i < 9; i++)
			e->kd[i] = col_or_none(r->kd.st, i + 1);
		e->occupancy = sqlite3_column_type(r->kd.st, 10) == SQLITE_NULL
				   ? -1
				   : sqlite3_column_double(r->kd.st, 10);
	}
	*got = 1;
	return TK_OK;
}

void tka_evcur_close(struct tka_evcur *r)
{
	sqlite3_finalize(r->q);
	sqlite3_finalize(r->od.st);
	sqlite3_finalize(r->kd.st);
	memset(r, 0, sizeof(*r));
}

/* Event @e (in id order) to every user, its duration added to *@total. */
static int hand_out(struct tka_ctx *c, const struct tka_ev *e, int64_t *total)
{
	int rc;
	if (tk_add_ovf(*total, e->dur, total))
		return tka_fail(c, TK_EFORMAT,
				"table events, row id %lld: dur_ns: the events' durations add up "
				"past 2^63 ns",
				(long long)e->id);
	for (int i = 7; e->has_kd && i < 9; i++) /* shared memory sizes, added up later */
		if (e->kd[i] != TK_NONE && !tk_size_ok(e->kd[i]))
			return tka_fail(c, TK_EFORMAT,
					"table kernel_details, row id %lld: "
					"static_smem or dynamic_smem out of range",
					(long long)e->id);
	for (size_t u = 0; u < NUSERS; u++)
		if ((rc = users[u].event(c, e)) != TK_OK)
			return rc;
	return TK_OK;
}

/*
 * The events, op_details and kernel_details read straight from the store file's pages (tscan.h:
 * several times faster per row than SQL; the analysis transaction never changes these tables'
 * pages), checked as tka_evcur_next() checks them, with the same messages. *@declined when the
 * file is not to be read so (a WAL beside it, a key that is no rowid): then SQL reads them.
 */
struct direct {
	struct tks_tscan *ev, *od, *kd;
	int64_t od_id, kd_id; /* rowid of the current row, INT64_MAX at the end */
	char err[512];	      /* the scans' messages (tka_fail() writes c->err) */
};

/* Move @t (at rowid *@at) to the first row with rowid >= @id; 1 when it is @id's, -1 broken. */
static int direct_seek(struct tks_tscan *t, int64_t *at, int64_t id)
{
	while (*at < id) {
		int n = tks_tscan_next(t);
		if (n < 0)
			return -1;
		*at = n ? tks_tscan_rowid(t) : INT64_MAX;
	}
	return *at == id;
}

static int direct_open(struct tka_ctx *c, const struct tka_pass *p, struct direct *d, int *declined)
{
	static const char *const ev_cols[] = {"id",	 "track_id",	   "kind",
					      "name_id", "category_id",	   "ts_ns",
					      "dur_ns",	 "correlation_id", NULL};
	const char *cols[9];
	memcpy(cols, ev_cols, sizeof(cols));
	if (!p->want_corr)
		cols[7] = NULL;
	int rc = tks_tscan_open(&d->ev, c->db, c->path, "events", cols, d->err, sizeof(d->err));
	if (rc == TK_OK && p->want_op_details)
		rc = tks_tscan_open(&d->od, c->db, c->path, "op_details", od_cols, d->err,
				    sizeof(d->err));
	if (rc == TK_OK && p->want_kernel_details)
		rc = tks_tscan_open(&d->kd, c->db, c->path, "kernel_details", kd_cols, d->err,
				    sizeof(d->err));
	if (rc == TK_OK &&
	    (!tks_tscan_is_rowid(d->ev, 0) || (d->od && !tks_tscan_is_rowid(d->od, 0)) ||
	     (d->kd && !tks_tscan_is_rowid(d->kd, 0))))
		rc = 1;
	*declined = rc == 1;
	d->od_id = d->od ? INT64_MIN : INT64_MAX;
	d->kd_id = d->kd ? INT64_MIN : INT64_MAX;
	return rc == 1 || rc == TK_OK ? TK_OK : tka_fail(c, rc, "%s", d->err);
}

/* The details row of event @id in @t (at rowid *@at; NULL: none asked for) into *@has, its
 * columns 1..@n numbers or NULL as the store's rules say. */
static int direct_details(struct tka_ctx *c, struct direct *d, struct tks_tscan *t, int64_t *at,
			  int64_t id, const char *table, const char *const *cols, int n, int *has)
{
	*has = t ? direct_seek(t, at, id) : 0;
	if (*has < 0)
		return tka_fail(c, TK_EFORMAT, "reading %s: %s", table, d->err);
	for (int i = 1; *has && i <= n; i++) {
		enum tks_tscan_type ty = tks_tscan_type(t, i);
		if (ty == TK_TS_TEXT || ty == TK_TS_BLOB)
			return bad_detail(c, table, cols, i, id);
	}
	return TK_OK;
}

/* The next event into *@e; *@got 0 at the end. */
static int direct_next(struct tka_ctx *c, struct direct *d, int corr, struct tka_ev *e, int *got)
{
	static const char *const what[] = {"id",	  "track_id", "kind",  "name_id",
					   "category_id", "ts_ns",    "dur_ns"};
	int n = tks_tscan_next(d->ev);
	*got = 0;
	if (n <= 0)
		return n == 0 ? TK_OK : tka_fail(c, TK_EFORMAT, "reading events: %s", d->err);
	uint32_t nulls, ints = tks_tscan_int_mask(d->ev, &nulls);
	e->id = tks_tscan_rowid(d->ev);
	for (int i = 1; i < 7; i++)
		if (!(ints >> i & 1) && !(i == 4 && nulls >> i & 1))
			return tka_fail(c, TK_EFORMAT,
					"table events, row id %lld: %s is not an integer",
					(long long)e->id, what[i]);
	e->track = tks_tscan_int(d->ev, 1);
	int64_t kind = tks_tscan_int(d->ev, 2);
	if (kind < INT32_MIN || kind > INT32_MAX)
		return tka_fail(c, TK_EFORMAT, "table events, row id %lld: kind out of range",
				(long long)e->id);
	e->kind = (int)kind;
	e->name_id = tks_tscan_int(d->ev, 3);
	e->cat_id = tks_tscan_int(d->ev, 4); /* 0 when NULL */
	e->ts = tks_tscan_int(d->ev, 5);
	e->dur = tks_tscan_int(d->ev, 6);
	const char *bad = tk_span_check(e->ts, e->dur);
	if (bad)
		return tka_fail(c, TK_EFORMAT, "table events, row id %lld: %s", (long long)e->id,
				bad);
	e->corr = corr && !(nulls >> 7 & 1) ? tks_tscan_int(d->ev, 7) : TK_NONE;
	int has = 0,
	    rc = direct_details(c, d, d->od, &d->od_id, e->id, "op_details", od_cols, 3, &has);
	if (rc != TK_OK)
		return rc;
	e->has_op = has;
	e->op_cat = has ? tks_tscan_int(d->od, 1) : 0;
	e->op_module = has ? tks_tscan_int(d->od, 2) : 0;
	e->op_bytes =
	    has && tks_tscan_type(d->od, 3) != TK_TS_NULL ? tks_tscan_int(d->od, 3) : TK_NONE;
	rc = direct_details(c, d, d->kd, &d->kd_id, e->id, "kernel_details", kd_cols, 10, &has);
	if (rc != TK_OK)
		return rc;
	e->has_kd = has;
	for (int i = 1; has && i < 11; i++) {
		enum tks_tscan_type t = tks_tscan_type(d->kd, i);
		if (i < 10)
			e->kd[i - 1] = t == TK_TS_NULL ? TK_NONE : tks_tscan_int(d->kd, i);
		else
			e->occupancy = t == TK_TS_NULL ? -1 : tks_tscan_real(d->kd, i);
	}
	*got = 1;
	return TK_OK;
}

static void direct_close(struct direct *d)
{
	tks_tscan_close(d->ev);
	tks_tscan_close(d->od);
	tks_tscan_close(d->kd);
}

/*
 * The readers seek each range of ids through the table's b-tree: a damaged interior page can
 * send a seek past rows a full scan would have failed on. So their rows are counted against the
 * table's, which SQLite counts by walking every page (a damaged one is an error there).
 */
static int all_read(struct tka_ctx *c, int64_t n)
{
	sqlite3_stmt *st = NULL;
	int rc = tka_prepare(c, "SELECT count(*) FROM events", &st);
	if (rc == TK_OK) {
		if (sqlite3_step(st) != SQLITE_ROW)
			rc = tka_fail(c, tka_sql_status(c), "reading events: %s",
				      sqlite3_errmsg(c->db));
		else if (sqlite3_column_int64(st, 0) != n)
			rc = tka_fail(
			    c, TK_EFORMAT,
			    "table events: %lld rows read, the table counts %lld (a damaged "
			    "page)",
			    (long long)n, (long long)sqlite3_column_int64(st, 0));
	}
	sqlite3_finalize(st);
	return rc;
}

/* Every event, on this thread (jobs 1) or from the reader threads (event_jobs.c). */
static int read_events(struct tka_ctx *c, struct tka_pass *p)
{
	int64_t total = 0;
	int rc, got = 1, declined = 1;
	struct tka_evcur r;
	struct tka_ev e;
	struct direct d = {0};
	/* straight from the pages, whatever the jobs: faster on one thread than SQL on several
	 * (5 M-event synth store: 2.5 s for the whole analysis against 3.3 s with two readers) */
	rc = direct_open(c, p, &d, &declined);
	while (rc == TK_OK && !declined &&
	       (rc = direct_next(c, &d, p->want_corr, &e, &got)) == TK_OK && got)
		rc = hand_out(c, &e, &total);
	direct_close(&d);
	if (rc != TK_OK || !declined)
		return rc;
	if (c->jobs > 1 && !c->no_readers) { /* SQL on reader threads */
		struct tka_evjobs *j = NULL;
		const struct tka_ev *je = NULL;
		int64_t n = 0;
		rc = tka_evjobs_start(c, p, &j);
		if (rc != TK_OK || j) { /* else: too small for readers, read here */
			while (rc == TK_OK && (rc = tka_evjobs_next(c, j, &je)) == TK_OK && je &&
			       (rc = hand_out(c, je, &total)) == TK_OK)
				n++;
			tka_evjobs_stop(j);
			return rc == TK_OK ? all_read(c, n) : rc;
		}
	}
	rc = tka_evcur_open(c, p, &r);
	if (rc == TK_OK)
		rc = tka_evcur_seek(c, &r, INT64_MIN, INT64_MAX);
	while (rc == TK_OK && (rc = tka_evcur_next(c, &r, &e, &got)) == TK_OK && got)
		rc = hand_out(c, &e, &total);
	tka_evcur_close(&r);
	return rc;
}

/*
 * A job analysed part by part (c->part): the events of the part, read on from where the last
 * part's stopped (one scan of the file over all parts). An event of another part's track, or a
 * reader that declines the file, ends the split (TKA_NOT_SPLIT): the whole store is analysed.
 */
struct tka_reader {
	struct direct d;
	struct tka_ev next; /* read ahead: the first event after the last part's range */
	int have_next, at_end;
};

static int read_part(struct tka_ctx *c, struct tka_pass *p)
{
	const struct tka_part *part = c->part;
	struct tka_reader *r = p->rd;
	int rc = TK_OK, got = 1, declined = 0;
	if (!r) {
		if (!(r = p->rd = calloc(1, sizeof(*r))))
			return tka_fail(c, TK_ENOMEM, "out of memory");
		if ((rc = direct_open(c, p, &r->d, &declined)) != TK_OK)
			return rc;
		if (declined)
			return TKA_NOT_SPLIT;
	}
	while (rc == TK_OK && !r->at_end) {
		if (!r->have_next) {
			if ((rc = direct_next(c, &r->d, p->want_corr, &r->next, &got)) != TK_OK)
				break;
			if (!got) {
				r->at_end = 1;
				break;
			}
			r->have_next = 1;
		}
		const struct tka_ev *e = &r->next;
		if (e->id > part->ev_hi)
			break; /* the next part's */
		if (e->track < part->trk_lo || e->track > part->trk_hi)
			return TKA_NOT_SPLIT;
		r->have_next = 0;
		rc = hand_out(c, e, &p->total);
	}
	return rc;
}

static void reader_free(struct tka_reader *r)
{
	if (r)
		direct_close(&r->d);
	free(r);
}

void tka_pass_next_part(struct tka_ctx *c)
{
	tka_timeline_builder_free(c->tlb);
	tka_op_profile_free(c->ops);
	tka_kernel_stats_free(c->ks);
	tka_kpi_free(c->kpi);
	tka_step_marks_free(c->marks);
	tka_gap_causes_free(c->gc);
	tka_op_gpu_time_free(c->og);
	tka_timeline_free(c->tl);
	c->tlb = NULL;
	c->ops = NULL;
	c->ks = NULL;
	c->kpi = NULL;
	c->marks = NULL;
	c->gc = NULL;
	c->og = NULL;
	c->tl = NULL;
	if (c->pass)
		c->pass->done = 0;
}

int tka_pass_run(struct tka_ctx *c)
{
	int rc;
	if (c->pass && c->pass->done)
		return TK_OK;
	if (c->pass && (!c->part || c->tlb || c->tl))
		/* an earlier run failed: the users' states are not complete */
		return tka_fail(c, TK_EINTERNAL, "the pass over the events failed earlier");
	if (!c->pass) {
		if (!(c->pass = calloc(1, sizeof(*c->pass))))
			return tka_fail(c, TK_ENOMEM, "out of memory");
		if ((rc = load_tracks(c, c->pass)) != TK_OK)
			return rc;
	}
	for (size_t u = 0; u < NUSERS; u++)
		if ((rc = users[u].begin(c)) != TK_OK)
			return rc;
	if ((rc = c->part ? read_part(c, c->pass) : read_events(c, c->pass)) != TK_OK)
		return rc;
	for (size_t u = 0; u < NUSERS; u++)
		if ((rc = users[u].end(c)) != TK_OK)
			return rc;
	c->pass->done = 1;
	return TK_OK;
}

void tka_pass_free(struct tka_ctx *c)
{
	tka_pass_next_part(c); /* the users' states and the timeline */
	if (c->pass) {
		free(c->pass->tracks);
		reader_free(c->pass->rd);
	}
	free(c->pass);
	c->pass = NULL;
}
