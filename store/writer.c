/*
 * The store writer: bulk loading into a temporary SQLite file in one transaction with prepared
 * statements and an in-memory interning table, indexes built at the end, and an atomic rename onto
 * the target path. Any failure is sticky: the writer refuses further work, and finish or abort
 * removes the temporary file so nothing half-written is ever left at the target.
 * Workload: millions of appends; each append is one or two prepared-statement steps.
 */
#include <tracekit/store.h>
#include <tracekit/error.h>
#include <tracekit/version.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "intern.h"
#include "store_internal.h"

/* Statements run once per call (rare records), not batched. */
enum { ST_STRING, ST_META, ST_SOURCE, ST_PROCESS, ST_DEVICE, ST_TRACK, ST_COUNT };

static const char *const stmt_sql[ST_COUNT] = {
	[ST_STRING] = "INSERT INTO strings(id, str) VALUES (?, ?)",
	[ST_META] = "INSERT OR REPLACE INTO meta VALUES (?, ?)",
	[ST_SOURCE] = "INSERT INTO sources VALUES (?, ?, ?, ?, ?)",
	[ST_PROCESS] = "INSERT INTO processes VALUES (?, ?, ?, ?, ?, ?)",
	[ST_DEVICE] = "INSERT INTO devices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_TRACK] = "INSERT INTO tracks VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
};

/* Tables written once per record, in batches. */
enum { B_EVENT, B_KERNEL, B_COPY, B_SET, B_OP, B_STEP, B_FLOW, B_COUNTER, B_MEMORY, B_ARG, B_COUNT };

static const struct {
	const char *table;
	int ncol;
} batch_tables[B_COUNT] = {
	[B_EVENT] = {"events", 8},	   [B_KERNEL] = {"kernel_details", 14},
	[B_COPY] = {"copy_details", 7},	   [B_SET] = {"set_details", 4},
	[B_OP] = {"op_details", 8},	   [B_STEP] = {"step_details", 2},
	[B_FLOW] = {"flows", 4},	   [B_COUNTER] = {"counters", 3},
	[B_MEMORY] = {"memory_records", 17}, [B_ARG] = {"args", 3},
};

struct tk_writer {
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	struct tk_batch batch[B_COUNT];
	char *path;
	char *tmp_path;
	int status; /* first error, sticky */
	char err[1024];
	struct tk_intern intern;
	int64_t n_events, n_processes, n_devices, n_tracks, n_memory, n_flows, n_sources;
	int64_t min_ts, max_end;
	struct tk_writer_stats stats;
};

static int fail(tk_writer *w, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(tk_writer *w, int status, const char *fmt, ...)
{
	if (w->status == TK_OK) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof(w->err), fmt, ap);
		va_end(ap);
		w->status = status;
	}
	return w->status;
}

static int fail_sql(tk_writer *w, const char *what)
{
	int code = sqlite3_errcode(w->db);
	int status = (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN ||
		      code == SQLITE_READONLY)
			     ? TK_EIO
			     : TK_EINTERNAL;
	return fail(w, status, "cannot write store '%s' (%s): %s", w->path, what, sqlite3_errmsg(w->db));
}

int tk_writer_status(const tk_writer *w)
{
	return w ? w->status : TK_EINVAL;
}

int tk_writer_fail(tk_writer *w, int status, const char *fmt, ...)
{
	if (!w)
		return TK_EINVAL;
	if (w->status == TK_OK) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof(w->err), fmt, ap);
		va_end(ap);
		w->status = status < 0 ? status : TK_EINTERNAL;
	}
	return w->status;
}

const char *tk_writer_temp_path(const tk_writer *w)
{
	return w && w->tmp_path ? w->tmp_path : "";
}

const char *tk_writer_errmsg(const tk_writer *w)
{
	return w ? w->err : "";
}

static int exec(tk_writer *w, const char *sql, const char *what)
{
	if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail_sql(w, what);
	return TK_OK;
}

/* Run a bound statement once and reset it. */
static int step(tk_writer *w, int which)
{
	sqlite3_stmt *st = w->st[which];
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return fail_sql(w, "insert");
	return TK_OK;
}

/* Keep the row filled since tk_batch_row() in batch @which. */
static int add_row(tk_writer *w, int which)
{
	if (tk_batch_add(&w->batch[which]) != SQLITE_OK)
		return fail_sql(w, batch_tables[which].table);
	return TK_OK;
}

static void bind_opt_int(sqlite3_stmt *st, int i, int64_t v)
{
	if (v == TK_NONE)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static void bind_opt_real(sqlite3_stmt *st, int i, double v)
{
	if (v < 0 || v != v)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static void bind_str_id(sqlite3_stmt *st, int i, uint32_t id)
{
	if (id == 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, id);
}

static void bind_opt_text(sqlite3_stmt *st, int i, const char *s)
{
	if (!s)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

uint32_t tk_writer_intern(tk_writer *w, const char *s)
{
	if (!w || w->status != TK_OK)
		return 0;
	if (!s) {
		fail(w, TK_EINVAL, "cannot intern a NULL string");
		return 0;
	}
	size_t len = strlen(s);
	int added;
	uint32_t id = tk_intern_lookup(&w->intern, s, len, &added);
	if (!id) {
		fail(w, TK_ENOMEM, "out of memory interning strings for store '%s'", w->path);
		return 0;
	}
	if (added) {
		sqlite3_stmt *st = w->st[ST_STRING];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, s, (int)len, SQLITE_STATIC);
		if (step(w, ST_STRING) != TK_OK)
			return 0;
		w->stats.strings++;
	}
	return id;
}

/* Intern an optional string: 0 for NULL, 0 with the writer failed on error. */
static uint32_t intern_opt(tk_writer *w, const char *s)
{
	return s ? tk_writer_intern(w, s) : 0;
}

static int check_ready(tk_writer *w)
{
	if (!w)
		return TK_EINVAL;
	return w->status;
}

int tk_writer_create(const char *path, tk_writer **out)
{
	int rc = TK_OK;
	char *schema = NULL;
	*out = NULL;
	if (!path || !*path)
		return TK_EINVAL;
	tk_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return TK_ENOMEM;
	*out = w;
	tk_intern_init(&w->intern);
	w->min_ts = INT64_MAX;
	w->max_end = INT64_MIN;
	w->path = strdup(path);
	size_t tlen = strlen(path) + 16;
	w->tmp_path = malloc(tlen);
	if (!w->path || !w->tmp_path) {
		rc = fail(w, TK_ENOMEM, "out of memory");
		goto out;
	}
	snprintf(w->tmp_path, tlen, "%s.tmp-XXXXXX", path);
	int fd = mkstemp(w->tmp_path);
	if (fd < 0) {
		int e = errno;
		w->tmp_path[0] = '\0';
		rc = fail(w, TK_EIO, "cannot create store '%s': %s", path, strerror(e));
		goto out;
	}
	/* mkstemp makes the file 0600; a finished store gets the usual 0666 & ~umask */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		int e = errno;
		close(fd);
		rc = fail(w, TK_EIO, "cannot create store '%s': %s", path, strerror(e));
		goto out;
	}
	close(fd);
	if (sqlite3_open_v2(w->tmp_path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		rc = fail(w, TK_EIO, "cannot create store '%s': %s", path,
			  w->db ? sqlite3_errmsg(w->db) : "out of memory");
		goto out;
	}
	if ((rc = exec(w, "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF;"
			  "PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
			  "PRAGMA cache_size = -8192;",
		       "settings")) != TK_OK)
		goto out;
	if ((rc = exec(w, "BEGIN", "begin")) != TK_OK)
		goto out;
	schema = strdup(tk_schema_sql);
	if (!schema) {
		rc = fail(w, TK_ENOMEM, "out of memory");
		goto out;
	}
	char *marker = strstr(schema, TK_SCHEMA_INDEX_MARKER);
	if (marker)
		*marker = '\0';
	if ((rc = exec(w, schema, "schema")) != TK_OK)
		goto out;
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", TK_STORE_SCHEMA_VERSION);
	if ((rc = exec(w, sql, "schema version")) != TK_OK)
		goto out;
	for (int i = 0; i < ST_COUNT; i++) {
		if (sqlite3_prepare_v3(w->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &w->st[i],
				       NULL) != SQLITE_OK) {
			rc = fail_sql(w, "prepare");
			goto out;
		}
	}
	for (int i = 0; i < B_COUNT; i++) {
		if (tk_batch_init(&w->batch[i], w->db, batch_tables[i].table, batch_tables[i].ncol) !=
		    SQLITE_OK) {
			rc = fail_sql(w, "prepare");
			goto out;
		}
	}
	if ((rc = tk_writer_set_meta_int(w, "schema_version", TK_STORE_SCHEMA_VERSION)) != TK_OK)
		goto out;
	rc = tk_writer_set_meta_text(w, "tracekit_version", tk_version());
out:
	free(schema);
	return rc;
}

static void release(tk_writer *w, int remove_tmp)
{
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(w->st[i]);
	for (int i = 0; i < B_COUNT; i++)
		tk_batch_free(&w->batch[i]);
	sqlite3_close_v2(w->db);
	if (remove_tmp && w->tmp_path && w->tmp_path[0])
		unlink(w->tmp_path);
	tk_intern_free(&w->intern);
	free(w->path);
	free(w->tmp_path);
	free(w);
}

void tk_writer_abort(tk_writer *w)
{
	if (w)
		release(w, 1);
}

int tk_writer_set_meta_text(tk_writer *w, const char *key, const char *value)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (!key || !value)
		return fail(w, TK_EINVAL, "meta key and value must not be NULL");
	sqlite3_stmt *st = w->st[ST_META];
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	return step(w, ST_META);
}

int tk_writer_set_meta_int(tk_writer *w, const char *key, int64_t value)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (!key)
		return fail(w, TK_EINVAL, "meta key must not be NULL");
	sqlite3_stmt *st = w->st[ST_META];
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, value);
	return step(w, ST_META);
}

int tk_writer_add_source(tk_writer *w, const char *format, const char *path, const char *host,
			 int64_t rank)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (!format)
		return fail(w, TK_EINVAL, "source format must not be NULL");
	sqlite3_stmt *st = w->st[ST_SOURCE];
	sqlite3_bind_int64(st, 1, ++w->n_sources);
	sqlite3_bind_text(st, 2, format, -1, SQLITE_STATIC);
	bind_opt_text(st, 3, path);
	bind_opt_text(st, 4, host);
	bind_opt_int(st, 5, rank);
	return step(w, ST_SOURCE);
}

int tk_writer_add_process(tk_writer *w, const struct tk_process_info *p, int64_t *out_id)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	uint32_t name = intern_opt(w, p->name), host = intern_opt(w, p->host);
	if (w->status != TK_OK)
		return w->status;
	sqlite3_stmt *st = w->st[ST_PROCESS];
	int64_t id = ++w->n_processes;
	sqlite3_bind_int64(st, 1, id);
	bind_opt_int(st, 2, p->pid);
	bind_str_id(st, 3, name);
	bind_str_id(st, 4, host);
	bind_opt_int(st, 5, p->rank);
	bind_opt_int(st, 6, w->n_sources ? w->n_sources : TK_NONE);
	if ((rc = step(w, ST_PROCESS)) == TK_OK && out_id)
		*out_id = id;
	return rc;
}

static int check_process(tk_writer *w, int64_t id, const char *what)
{
	if (id != TK_NONE && (id < 1 || id > w->n_processes))
		return fail(w, TK_EINVAL, "%s refers to process %lld, which was not added", what,
			    (long long)id);
	return TK_OK;
}

static int check_device(tk_writer *w, int64_t id, const char *what)
{
	if (id != TK_NONE && (id < 0 || id >= w->n_devices))
		return fail(w, TK_EINVAL, "%s refers to device %lld, which was not added", what,
			    (long long)id);
	return TK_OK;
}

int tk_writer_add_device(tk_writer *w, const struct tk_device_info *d, int64_t *out_id)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	if ((rc = check_process(w, d->process_id, "device")) != TK_OK)
		return rc;
	uint32_t name = intern_opt(w, d->name), host = intern_opt(w, d->host);
	if (w->status != TK_OK)
		return w->status;
	sqlite3_stmt *st = w->st[ST_DEVICE];
	int64_t id = w->n_devices++;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, d->ordinal);
	sqlite3_bind_text(st, 3, d->kind ? d->kind : "gpu", -1, SQLITE_STATIC);
	bind_str_id(st, 4, name);
	bind_opt_text(st, 5, d->vendor);
	bind_str_id(st, 6, host);
	bind_opt_int(st, 7, d->process_id);
	bind_opt_int(st, 8, d->rank);
	bind_opt_text(st, 9, d->compute_capability);
	bind_opt_int(st, 10, d->sm_count);
	bind_opt_int(st, 11, d->clock_hz);
	bind_opt_int(st, 12, d->memory_bytes);
	bind_opt_int(st, 13, d->memory_bandwidth_bps);
	bind_opt_real(st, 14, d->peak_flops);
	bind_opt_int(st, 15, d->max_threads_per_sm);
	bind_opt_int(st, 16, d->max_regs_per_sm);
	bind_opt_int(st, 17, d->max_smem_per_sm);
	bind_opt_int(st, 18, w->n_sources ? w->n_sources : TK_NONE);
	if ((rc = step(w, ST_DEVICE)) == TK_OK && out_id)
		*out_id = id;
	return rc;
}

int tk_writer_add_track(tk_writer *w, const struct tk_track_info *t, int64_t *out_id)
{
	static const char *const kinds[] = {"thread", "stream", "derived", "counter"};
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	if ((unsigned)t->kind > TK_TRACK_COUNTER)
		return fail(w, TK_EINVAL, "track kind %d is not one of thread, stream, derived, counter",
			    (int)t->kind);
	if ((rc = check_process(w, t->process_id, "track")) != TK_OK ||
	    (rc = check_device(w, t->device_id, "track")) != TK_OK)
		return rc;
	uint32_t name = intern_opt(w, t->name);
	if (w->status != TK_OK)
		return w->status;
	sqlite3_stmt *st = w->st[ST_TRACK];
	int64_t id = ++w->n_tracks;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, kinds[t->kind], -1, SQLITE_STATIC);
	bind_str_id(st, 3, name);
	bind_opt_int(st, 4, t->process_id);
	bind_opt_int(st, 5, t->device_id);
	bind_opt_int(st, 6, t->tid);
	bind_opt_int(st, 7, t->stream_id);
	bind_opt_text(st, 8, t->unit);
	if ((rc = step(w, ST_TRACK)) == TK_OK && out_id)
		*out_id = id;
	return rc;
}

static void extend_bounds(tk_writer *w, int64_t ts, int64_t end)
{
	if (ts < w->min_ts)
		w->min_ts = ts;
	if (end > w->max_end)
		w->max_end = end;
}

int tk_writer_add_event(tk_writer *w, const struct tk_event *ev, int64_t *out_id)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	int64_t id = w->n_events + 1;
	if (ev->track_id < 1 || ev->track_id > w->n_tracks)
		return fail(w, TK_EINVAL, "event %lld refers to track %lld, which was not added",
			    (long long)id, (long long)ev->track_id);
	if (ev->kind < TK_EV_HOST_OP || ev->kind > TK_EV_OTHER)
		return fail(w, TK_EINVAL, "event %lld has unknown kind %d", (long long)id, (int)ev->kind);
	if (ev->dur_ns < 0 || ev->ts_ns > INT64_MAX - ev->dur_ns)
		return fail(w, TK_EINVAL, "event %lld has an invalid duration %lld ns at %lld ns",
			    (long long)id, (long long)ev->dur_ns, (long long)ev->ts_ns);
	uint32_t name = ev->name ? tk_writer_intern(w, ev->name) : ev->name_id;
	uint32_t cat = ev->category ? tk_writer_intern(w, ev->category) : ev->category_id;
	if (w->status != TK_OK)
		return w->status;
	if (name == 0 || name > w->intern.count || cat > w->intern.count)
		return fail(w, TK_EINVAL, "event %lld has no valid name", (long long)id);
	struct tk_cell *row = tk_batch_row(&w->batch[B_EVENT]);
	tk_cell_int(&row[0], id);
	tk_cell_int(&row[1], ev->track_id);
	tk_cell_int(&row[2], ev->kind);
	tk_cell_int(&row[3], name);
	tk_cell_str_id(&row[4], cat);
	tk_cell_int(&row[5], ev->ts_ns);
	tk_cell_int(&row[6], ev->dur_ns);
	tk_cell_opt_int(&row[7], ev->correlation_id);
	if ((rc = add_row(w, B_EVENT)) != TK_OK)
		return rc;
	w->n_events = id;
	w->stats.events++;
	extend_bounds(w, ev->ts_ns, ev->ts_ns + ev->dur_ns);
	if (out_id)
		*out_id = id;
	return TK_OK;
}

/* Append an event that must be of @kind, leaving its id in *id. */
static int add_typed(tk_writer *w, const struct tk_event *ev, enum tk_event_kind kind, int64_t *id)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (ev->kind != kind)
		return fail(w, TK_EINVAL, "event of kind %d passed where kind %d is required",
			    (int)ev->kind, (int)kind);
	return tk_writer_add_event(w, ev, id);
}

int tk_writer_add_kernel(tk_writer *w, const struct tk_event *ev, const struct tk_kernel_info *k,
			 int64_t *out_id)
{
	int64_t id;
	int rc = add_typed(w, ev, TK_EV_KERNEL, &id);
	if (rc != TK_OK)
		return rc;
	uint32_t mangled = k->mangled_name ? tk_writer_intern(w, k->mangled_name) : k->mangled_name_id;
	if (w->status != TK_OK)
		return w->status;
	struct tk_cell *row = tk_batch_row(&w->batch[B_KERNEL]);
	tk_cell_int(&row[0], id);
	tk_cell_str_id(&row[1], mangled);
	for (int i = 0; i < 3; i++) {
		tk_cell_opt_int(&row[2 + i], k->grid[i]);
		tk_cell_opt_int(&row[5 + i], k->block[i]);
	}
	tk_cell_opt_int(&row[8], k->registers);
	tk_cell_opt_int(&row[9], k->static_smem);
	tk_cell_opt_int(&row[10], k->dynamic_smem);
	tk_cell_opt_real(&row[11], k->occupancy);
	tk_cell_opt_real(&row[12], k->blocks_per_sm);
	tk_cell_opt_real(&row[13], k->warps_per_sm);
	if ((rc = add_row(w, B_KERNEL)) != TK_OK)
		return rc;
	w->stats.kernels++;
	if (out_id)
		*out_id = id;
	return TK_OK;
}

static int check_mem_kind(tk_writer *w, enum tk_mem_kind k, int64_t id)
{
	if ((unsigned)k > TK_MEM_ARRAY)
		return fail(w, TK_EINVAL, "event %lld has unknown memory kind %d", (long long)id, (int)k);
	return TK_OK;
}

int tk_writer_add_copy(tk_writer *w, const struct tk_event *ev, const struct tk_copy_info *c,
		       int64_t *out_id)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	int64_t next = w->n_events + 1;
	if (c->bytes < 0)
		return fail(w, TK_EINVAL, "copy event %lld has negative size", (long long)next);
	if ((unsigned)c->copy_kind > TK_COPY_P2P)
		return fail(w, TK_EINVAL, "copy event %lld has unknown copy kind %d", (long long)next,
			    (int)c->copy_kind);
	if ((rc = check_mem_kind(w, c->src_kind, next)) != TK_OK ||
	    (rc = check_mem_kind(w, c->dst_kind, next)) != TK_OK ||
	    (rc = check_device(w, c->src_device_id, "copy")) != TK_OK ||
	    (rc = check_device(w, c->dst_device_id, "copy")) != TK_OK)
		return rc;
	int64_t id;
	if ((rc = add_typed(w, ev, TK_EV_MEMCPY, &id)) != TK_OK)
		return rc;
	struct tk_cell *row = tk_batch_row(&w->batch[B_COPY]);
	tk_cell_int(&row[0], id);
	tk_cell_int(&row[1], c->bytes);
	tk_cell_int(&row[2], c->copy_kind);
	tk_cell_int(&row[3], c->src_kind);
	tk_cell_int(&row[4], c->dst_kind);
	tk_cell_opt_int(&row[5], c->src_device_id);
	tk_cell_opt_int(&row[6], c->dst_device_id);
	if ((rc = add_row(w, B_COPY)) != TK_OK)
		return rc;
	w->stats.memcpys++;
	if (out_id)
		*out_id = id;
	return TK_OK;
}

int tk_writer_add_set(tk_writer *w, const struct tk_event *ev, const struct tk_set_info *s,
		      int64_t *out_id)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	int64_t next = w->n_events + 1;
	if (s->bytes < 0)
		return fail(w, TK_EINVAL, "memset event %lld has negative size", (long long)next);
	if ((rc = check_mem_kind(w, s->mem_kind, next)) != TK_OK)
		return rc;
	int64_t id;
	if ((rc = add_typed(w, ev, TK_EV_MEMSET, &id)) != TK_OK)
		return rc;
	struct tk_cell *row = tk_batch_row(&w->batch[B_SET]);
	tk_cell_int(&row[0], id);
	tk_cell_int(&row[1], s->bytes);
	tk_cell_opt_int(&row[2], s->value);
	tk_cell_int(&row[3], s->mem_kind);
	if ((rc = add_row(w, B_SET)) != TK_OK)
		return rc;
	w->stats.memsets++;
	if (out_id)
		*out_id = id;
	return TK_OK;
}

int tk_writer_add_step(tk_writer *w, const struct tk_event *ev, int64_t step_num, int64_t *out_id)
{
	int64_t id;
	int rc = add_typed(w, ev, TK_EV_STEP, &id);
	if (rc != TK_OK)
		return rc;
	struct tk_cell *row = tk_batch_row(&w->batch[B_STEP]);
	tk_cell_int(&row[0], id);
	tk_cell_int(&row[1], step_num);
	if ((rc = add_row(w, B_STEP)) == TK_OK && out_id)
		*out_id = id;
	return rc;
}

static int check_event(tk_writer *w, int64_t id, const char *what)
{
	if (id < 1 || id > w->n_events)
		return fail(w, TK_EINVAL, "%s refers to event %lld, which was not added", what,
			    (long long)id);
	return TK_OK;
}

int tk_writer_add_op_details(tk_writer *w, int64_t event_id, const struct tk_op_info *op)
{
	int rc = check_ready(w);
	if (rc != TK_OK || (rc = check_event(w, event_id, "op details")) != TK_OK)
		return rc;
	uint32_t hop = intern_opt(w, op->hlo_op), hmod = intern_opt(w, op->hlo_module);
	uint32_t fop = intern_opt(w, op->framework_op), cat = intern_opt(w, op->op_category);
	if (w->status != TK_OK)
		return w->status;
	struct tk_cell *row = tk_batch_row(&w->batch[B_OP]);
	tk_cell_int(&row[0], event_id);
	tk_cell_str_id(&row[1], hop);
	tk_cell_str_id(&row[2], hmod);
	tk_cell_opt_int(&row[3], op->program_id);
	tk_cell_str_id(&row[4], fop);
	tk_cell_str_id(&row[5], cat);
	tk_cell_opt_int(&row[6], op->flops);
	tk_cell_opt_int(&row[7], op->bytes_accessed);
	return add_row(w, B_OP);
}

int tk_writer_add_flow(tk_writer *w, const char *kind, int64_t src_event_id, int64_t dst_event_id)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (!kind)
		return fail(w, TK_EINVAL, "flow kind must not be NULL");
	if ((rc = check_event(w, src_event_id, "flow")) != TK_OK ||
	    (rc = check_event(w, dst_event_id, "flow")) != TK_OK)
		return rc;
	struct tk_cell *row = tk_batch_row(&w->batch[B_FLOW]);
	tk_cell_int(&row[0], ++w->n_flows);
	if (tk_batch_text(&w->batch[B_FLOW], &row[1], kind) != SQLITE_OK)
		return fail(w, TK_ENOMEM, "out of memory");
	tk_cell_int(&row[2], src_event_id);
	tk_cell_int(&row[3], dst_event_id);
	if ((rc = add_row(w, B_FLOW)) == TK_OK)
		w->stats.flows++;
	return rc;
}

int tk_writer_add_counter(tk_writer *w, int64_t track_id, int64_t ts_ns, double value)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (track_id < 1 || track_id > w->n_tracks)
		return fail(w, TK_EINVAL, "counter sample refers to track %lld, which was not added",
			    (long long)track_id);
	if (value != value)
		return fail(w, TK_EINVAL, "counter sample at %lld ns is not a number", (long long)ts_ns);
	struct tk_cell *row = tk_batch_row(&w->batch[B_COUNTER]);
	tk_cell_int(&row[0], track_id);
	tk_cell_int(&row[1], ts_ns);
	tk_cell_real(&row[2], value);
	if ((rc = add_row(w, B_COUNTER)) != TK_OK)
		return rc;
	w->stats.counter_samples++;
	extend_bounds(w, ts_ns, ts_ns);
	return TK_OK;
}

int tk_writer_add_memory_event(tk_writer *w, const struct tk_memory_event *m)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	int64_t id = w->n_memory + 1;
	if (m->bytes < 0)
		return fail(w, TK_EINVAL, "memory event %lld has negative size", (long long)id);
	if ((rc = check_device(w, m->device_id, "memory event")) != TK_OK ||
	    (rc = check_process(w, m->process_id, "memory event")) != TK_OK ||
	    (rc = check_mem_kind(w, m->mem_kind, id)) != TK_OK)
		return rc;
	if (m->op_event_id != TK_NONE && (rc = check_event(w, m->op_event_id, "memory event")) != TK_OK)
		return rc;
	uint32_t alloc = m->allocator ? tk_writer_intern(w, m->allocator) : m->allocator_id;
	uint32_t op_name = intern_opt(w, m->op_name);
	if (w->status != TK_OK)
		return w->status;
	struct tk_batch *b = &w->batch[B_MEMORY];
	struct tk_cell *row = tk_batch_row(b);
	tk_cell_int(&row[0], id);
	tk_cell_int(&row[1], m->ts_ns);
	if (tk_batch_text(b, &row[2], m->is_free ? "free" : "alloc") != SQLITE_OK)
		return fail(w, TK_ENOMEM, "out of memory");
	tk_cell_opt_int(&row[3], m->device_id);
	tk_cell_opt_int(&row[4], m->process_id);
	tk_cell_opt_int(&row[5], m->address);
	tk_cell_int(&row[6], m->bytes);
	tk_cell_int(&row[7], m->mem_kind);
	tk_cell_str_id(&row[8], alloc);
	tk_cell_opt_int(&row[9], m->op_event_id);
	tk_cell_opt_int(&row[10], m->bytes_in_use);
	tk_cell_opt_int(&row[11], m->bytes_reserved);
	tk_cell_opt_int(&row[12], m->bytes_available);
	tk_cell_opt_int(&row[13], m->peak_bytes_in_use);
	tk_cell_opt_int(&row[14], m->requested_bytes);
	tk_cell_opt_real(&row[15], m->fragmentation);
	tk_cell_str_id(&row[16], op_name);
	if ((rc = add_row(w, B_MEMORY)) != TK_OK)
		return rc;
	w->n_memory = id;
	w->stats.memory_events++;
	extend_bounds(w, m->ts_ns, m->ts_ns);
	return TK_OK;
}

/* Start an arg row with its event and key in *row; the caller sets row[2] and calls arg_end. */
static int arg_begin(tk_writer *w, int64_t event_id, const char *key, struct tk_cell **row)
{
	int rc = check_ready(w);
	if (rc != TK_OK || (rc = check_event(w, event_id, "arg")) != TK_OK)
		return rc;
	if (!key)
		return fail(w, TK_EINVAL, "arg key must not be NULL");
	uint32_t k = tk_writer_intern(w, key);
	if (w->status != TK_OK)
		return w->status;
	*row = tk_batch_row(&w->batch[B_ARG]);
	tk_cell_int(&(*row)[0], event_id);
	tk_cell_int(&(*row)[1], k);
	return TK_OK;
}

static int arg_end(tk_writer *w)
{
	int rc = add_row(w, B_ARG);
	if (rc == TK_OK)
		w->stats.args++;
	return rc;
}

int tk_writer_add_arg_int(tk_writer *w, int64_t event_id, const char *key, int64_t value)
{
	struct tk_cell *row;
	int rc = arg_begin(w, event_id, key, &row);
	if (rc != TK_OK)
		return rc;
	tk_cell_int(&row[2], value);
	return arg_end(w);
}

int tk_writer_add_arg_real(tk_writer *w, int64_t event_id, const char *key, double value)
{
	struct tk_cell *row;
	int rc = arg_begin(w, event_id, key, &row);
	if (rc != TK_OK)
		return rc;
	tk_cell_real(&row[2], value);
	return arg_end(w);
}

int tk_writer_add_arg_text(tk_writer *w, int64_t event_id, const char *key, const char *value)
{
	if (!value)
		return fail(w, TK_EINVAL, "arg '%s' has a NULL value", key ? key : "(null)");
	struct tk_cell *row;
	int rc = arg_begin(w, event_id, key, &row);
	if (rc != TK_OK)
		return rc;
	if (tk_batch_text(&w->batch[B_ARG], &row[2], value) != SQLITE_OK)
		return fail(w, TK_ENOMEM, "out of memory");
	return arg_end(w);
}

void tk_writer_get_stats(const tk_writer *w, struct tk_writer_stats *out)
{
	if (w)
		*out = w->stats;
	else
		memset(out, 0, sizeof(*out));
}

/* fsync a path (file or directory); best effort for directories on file systems that refuse. */
static int sync_path(const char *path, int is_dir)
{
	int fd = open(path, is_dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return is_dir ? 0 : rc;
}

/* Indexes, trace bounds, commit, close, rename. */
static int finish(tk_writer *w)
{
	int rc = check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (w->min_ts <= w->max_end) {
		char sql[160];
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO meta VALUES ('trace_start_ns', %lld),"
			 " ('trace_end_ns', %lld)",
			 (long long)w->min_ts, (long long)w->max_end);
		if ((rc = exec(w, sql, "trace bounds")) != TK_OK)
			return rc;
	}
	for (int i = 0; i < B_COUNT; i++)
		if (tk_batch_flush(&w->batch[i]) != SQLITE_OK)
			return fail_sql(w, batch_tables[i].table);
	const char *indexes = strstr(tk_schema_sql, TK_SCHEMA_INDEX_MARKER);
	if (indexes && (rc = exec(w, indexes, "indexes")) != TK_OK)
		return rc;
	if ((rc = exec(w, "COMMIT", "commit")) != TK_OK)
		return rc;
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(w->st[i]);
		w->st[i] = NULL;
	}
	for (int i = 0; i < B_COUNT; i++)
		tk_batch_free(&w->batch[i]);
	if (sqlite3_close(w->db) != SQLITE_OK)
		return fail_sql(w, "close");
	w->db = NULL;
	if (sync_path(w->tmp_path, 0) != 0)
		return fail(w, TK_EIO, "cannot write store '%s': %s", w->path, strerror(errno));
	if (rename(w->tmp_path, w->path) != 0)
		return fail(w, TK_EIO, "cannot write store '%s': %s", w->path, strerror(errno));
	w->tmp_path[0] = '\0';
	char *dir = strdup(w->path);
	if (dir) {
		sync_path(dirname(dir), 1);
		free(dir);
	}
	return TK_OK;
}

int tk_writer_finish(tk_writer *w, char *errbuf, size_t errlen)
{
	if (!w) {
		tk_fmt(errbuf, errlen, "no writer");
		return TK_EINVAL;
	}
	int rc = finish(w);
	if (rc != TK_OK)
		tk_fmt(errbuf, errlen, "%s", w->err);
	else
		tk_fmt(errbuf, errlen, "%s", "");
	release(w, rc != TK_OK);
	return rc;
}
