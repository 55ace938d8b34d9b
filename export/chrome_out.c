/*
 * Chrome Trace Event Format export (JSON, gzip when the file name ends in .gz), in the form
 * PyTorch's Kineto writes so that tracekit's and other Kineto readers map it back: `M` process
 * and thread names (GPU devices are pids numbered by ordinal, streams are their tids), `X`
 * slices with Kineto's categories and args (grid, block, registers per thread, shared memory,
 * bytes, correlation), `s`/`f` flow points (`ac2g` for launches, `"bp":"e"`) written right after
 * the slices they bind to, `[memory]` instants for allocations and frees, `C` counters.
 * Timestamps are µs relative to the trace start with three decimals, so every ns is exact;
 * the base is the top-level `baseTimeNanoseconds` (as Kineto writes it). Streamed.
 */
#include "util/escape.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

#include "checked.h"
#include "export_internal.h"

#define ESC_SLOTS 8192

struct ctrack {
	int64_t pid, tid;
	int device; /* on a device pid */
	int64_t device_ordinal, stream;
	uint32_t name_id;
};

struct chrome {
	struct tk_exporter *x;
	struct ex_out out;
	int64_t base;
	struct ctrack *tr; /* indexed by track id */
	int64_t ntr;
	int64_t *dev_pid, ndev; /* indexed by device id */
	int64_t *proc_pid, nproc;
	uint32_t esc_id[ESC_SLOTS];
	char *esc[ESC_SLOTS];
	sqlite3_stmt *args;
	int64_t records;
};

static void put_i64(struct ex_out *o, int64_t v)
{
	char b[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		b[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		b[n++] = '-';
	uint8_t *p = ex_out_room(o, (size_t)n);
	if (!p)
		return;
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)b[n - 1 - i];
	o->len += (size_t)n;
}

/* ns (relative to the base) as µs with three decimals: exact. */
static void put_us(struct chrome *c, int64_t ns)
{
	struct ex_out *o = &c->out;
	if (ns < 0) {
		ex_put(o, "-", 1);
		ns = -ns;
	}
	put_i64(o, ns / 1000);
	char d[4] = {'.', (char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10),
		     (char)('0' + ns % 10)};
	ex_put(o, d, 4);
}

static void put_double(struct ex_out *o, double v)
{
	char b[40];
	if (v != v || v > 1e300 || v < -1e300) {
		ex_puts(o, "null");
		return;
	}
	snprintf(b, sizeof(b), "%.17g", v);
	ex_puts(o, b);
}

/* @s as a JSON string literal (quotes included; valid UTF-8, include/tracekit/text.h), malloc'd. */
static char *json_str(const char *s)
{
	return tku_text_convert(s, strlen(s), TKU_TEXT_JSON, NULL);
}

static void put_str(struct chrome *c, const char *s)
{
	char *j = json_str(s);
	if (j)
		ex_puts(&c->out, j);
	free(j);
}

/* The JSON literal of string id @id, cached. */
static void put_sid(struct chrome *c, uint32_t id)
{
	size_t slot = id % ESC_SLOTS;
	if (c->esc_id[slot] != id || !c->esc[slot]) {
		free(c->esc[slot]);
		c->esc[slot] = json_str(ex_str(c->x, id));
		c->esc_id[slot] = id;
	}
	if (c->esc[slot])
		ex_puts(&c->out, c->esc[slot]);
}

/* Start a record: the separator from the previous one. */
static void sep(struct chrome *c)
{
	if (c->records++)
		ex_put(&c->out, ",\n", 2);
}

static void put_pid_tid(struct chrome *c, int64_t pid, int64_t tid)
{
	ex_puts(&c->out, ",\"pid\":");
	put_i64(&c->out, pid);
	ex_puts(&c->out, ",\"tid\":");
	put_i64(&c->out, tid);
}

static void meta(struct chrome *c, const char *what, int64_t pid, int64_t tid, const char *key,
		 const char *sval, int64_t ival)
{
	sep(c);
	ex_puts(&c->out, "{\"ph\":\"M\",\"name\":\"");
	ex_puts(&c->out, what);
	ex_puts(&c->out, "\"");
	put_pid_tid(c, pid, tid);
	ex_puts(&c->out, ",\"args\":{\"");
	ex_puts(&c->out, key);
	ex_puts(&c->out, "\":");
	if (sval)
		put_str(c, sval);
	else
		put_i64(&c->out, ival);
	ex_puts(&c->out, "}}");
}

/* Processes, devices and tracks: pids, tids and their names. */
static int prologue(struct chrome *c)
{
	struct tk_exporter *x = c->x;
	sqlite3_stmt *st = NULL;
	int rc, step;
	char buf[512];
	/* Arrays by id, bounded by the rows (store/checked.h); every id is checked as it comes. */
	if ((rc = ex_id_slots(x, "processes", &c->nproc)) != TK_OK ||
	    (rc = ex_id_slots(x, "devices", &c->ndev)) != TK_OK ||
	    (rc = ex_id_slots(x, "tracks", &c->ntr)) != TK_OK)
		return rc;
	c->proc_pid = calloc((size_t)c->nproc, sizeof(int64_t));
	c->dev_pid = calloc((size_t)c->ndev, sizeof(int64_t));
	c->tr = calloc((size_t)c->ntr, sizeof(*c->tr));
	if (!c->proc_pid || !c->dev_pid || !c->tr)
		return ex_fail(x, TK_ENOMEM, "out of memory");
	for (int64_t i = 0; i < c->ndev; i++)
		c->dev_pid[i] = -1; /* no such device */
	/* Host pids as recorded (a pid seen twice, or unknown, gets a synthetic one). */
	if ((rc = ex_prepare(x,
			     "SELECT p.id, p.pid, coalesce(p.name_id, 0), (SELECT count(*) FROM "
			     "processes q WHERE q.pid = p.pid AND q.id < p.id) FROM processes p "
			     "ORDER BY p.id",
			     &st)) != TK_OK)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), pid = sqlite3_column_int64(st, 1);
		if ((rc = ex_check_id(x, "processes", id, c->nproc)) != TK_OK)
			goto out;
		if (sqlite3_column_type(st, 1) == SQLITE_NULL || sqlite3_column_int64(st, 3) > 0)
			pid = 2000000 + id;
		c->proc_pid[id] = pid;
		const char *n = ex_str(x, (uint32_t)sqlite3_column_int64(st, 2));
		snprintf(buf, sizeof(buf), "%s", n[0] ? n : "process");
		meta(c, "process_name", pid, 0, "name", buf, 0);
		meta(c, "process_sort_index", pid, 0, "sort_index", NULL, id);
	}
	if (step != SQLITE_DONE) {
		rc = ex_fail_sql(x, "processes");
		goto out;
	}
	sqlite3_finalize(st);
	/* Devices: pid = ordinal, as Kineto numbers them, unless that collides. */
	if ((rc =
		 ex_prepare(x,
			    "SELECT d.id, d.ordinal, coalesce(d.name_id, 0), (SELECT count(*) FROM "
			    "devices e WHERE e.ordinal = d.ordinal) + (SELECT count(*) FROM "
			    "processes p WHERE p.pid = d.ordinal) FROM devices d ORDER BY d.id",
			    &st)) != TK_OK)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), ord = sqlite3_column_int64(st, 1);
		if ((rc = ex_check_id(x, "devices", id, c->ndev)) != TK_OK)
			goto out;
		int64_t pid = sqlite3_column_int64(st, 3) > 1 || ord < 0 ? 1000000 + id : ord;
		c->dev_pid[id] = pid;
		const char *n = ex_str(x, (uint32_t)sqlite3_column_int64(st, 2));
		snprintf(buf, sizeof(buf), "GPU %lld%s%s%s", (long long)ord, n[0] ? " (" : "", n,
			 n[0] ? ")" : "");
		meta(c, "process_name", pid, 0, "name", buf, 0);
		snprintf(buf, sizeof(buf), "GPU %lld", (long long)ord);
		meta(c, "process_labels", pid, 0, "labels", buf, 0);
		meta(c, "process_sort_index", pid, 0, "sort_index", NULL, 1000000 + id);
	}
	if (step != SQLITE_DONE) {
		rc = ex_fail_sql(x, "devices");
		goto out;
	}
	sqlite3_finalize(st);
	if ((rc = ex_prepare(x,
			     "SELECT t.id, t.kind, coalesce(t.name_id, 0), t.process_id, "
			     "t.device_id, t.tid, t.stream_id, d.ordinal FROM tracks t LEFT JOIN "
			     "devices d ON d.id = t.device_id ORDER BY t.id",
			     &st)) != TK_OK)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if ((rc = ex_check_id(x, "tracks", id, c->ntr)) != TK_OK)
			goto out;
		struct ctrack *t = &c->tr[id];
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		int64_t proc =
		    sqlite3_column_type(st, 3) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 3);
		t->name_id = (uint32_t)sqlite3_column_int64(st, 2);
		t->stream = TK_NONE;
		if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
			int64_t dev = sqlite3_column_int64(st, 4);
			t->device = 1;
			/* a device id naming no device row: the pid of unknown processes */
			t->pid = dev >= 0 && dev < c->ndev && c->dev_pid[dev] >= 0 ? c->dev_pid[dev]
										   : 3000000;
			t->device_ordinal = sqlite3_column_int64(st, 7);
			t->stream = sqlite3_column_type(st, 6) == SQLITE_NULL
					? TK_NONE
					: sqlite3_column_int64(st, 6);
			t->tid = t->stream != TK_NONE ? t->stream : 100000 + id;
		} else {
			t->pid = proc > 0 && proc < c->nproc ? c->proc_pid[proc] : 3000000;
			t->tid = sqlite3_column_type(st, 5) == SQLITE_NULL
				     ? 100000 + id
				     : sqlite3_column_int64(st, 5);
		}
		if (kind && !strcmp(kind, "counter"))
			continue;
		const char *n = ex_str(x, t->name_id);
		if (n[0])
			snprintf(buf, sizeof(buf), "%s", n);
		else
			snprintf(buf, sizeof(buf), "%s %lld", t->device ? "stream" : "thread",
				 (long long)t->tid);
		meta(c, "thread_name", t->pid, t->tid, "name", buf, 0);
		meta(c, "thread_sort_index", t->pid, t->tid, "sort_index", NULL, id);
	}
	if (step != SQLITE_DONE)
		rc = ex_fail_sql(x, "tracks");
	else
		rc = c->out.failed ? TK_EIO : TK_OK;
out:
	sqlite3_finalize(st);
	return rc;
}

static const char *kind_cat(int kind, int device)
{
	switch (kind) {
	case TK_EV_HOST_OP:
		return "cpu_op";
	case TK_EV_RUNTIME_API:
		return "cuda_runtime";
	case TK_EV_DRIVER_API:
		return "cuda_driver";
	case TK_EV_ANNOTATION:
	case TK_EV_STEP:
		return device ? "gpu_user_annotation" : "user_annotation";
	case TK_EV_KERNEL:
		return "kernel";
	case TK_EV_MEMCPY:
		return "gpu_memcpy";
	case TK_EV_MEMSET:
		return "gpu_memset";
	case TK_EV_XLA_OP:
		return "xla_op";
	case TK_EV_ASYNC_XLA_OP:
		return "async_xla_op";
	case TK_EV_XLA_MODULE:
		return "xla_module";
	case TK_EV_FRAMEWORK_OP:
		return "framework_op";
	case TK_EV_SYNC:
		return "cuda_sync";
	case TK_EV_PYTHON_FUNCTION:
		return "python_function";
	default:
		return "other";
	}
}

static void arg_key(struct chrome *c, int *first, const char *k)
{
	ex_puts(&c->out, *first ? "\"" : ",\"");
	ex_puts(&c->out, k);
	ex_puts(&c->out, "\":");
	*first = 0;
}

static void arg_int(struct chrome *c, int *first, const char *k, int64_t v)
{
	if (v == TK_NONE)
		return;
	arg_key(c, first, k);
	put_i64(&c->out, v);
}

static void arg_sid(struct chrome *c, int *first, const char *k, uint32_t sid)
{
	if (!sid)
		return;
	arg_key(c, first, k);
	put_sid(c, sid);
}

static void arg_dim3(struct chrome *c, int *first, const char *k, const int64_t v[3])
{
	if (v[0] == TK_NONE && v[1] == TK_NONE && v[2] == TK_NONE)
		return;
	arg_key(c, first, k);
	for (int i = 0; i < 3; i++) {
		ex_puts(&c->out, i ? "," : "[");
		put_i64(&c->out, v[i] == TK_NONE ? 1 : v[i]);
	}
	ex_puts(&c->out, "]");
}

static void args(struct chrome *c, const struct ex_event *e, const struct ctrack *t)
{
	int first = 1;
	ex_puts(&c->out, ",\"args\":{");
	if (t->device) {
		arg_int(c, &first, "device", t->device_ordinal);
		arg_int(c, &first, "stream", t->stream);
	}
	arg_int(c, &first, "correlation", e->corr);
	if (e->has_kernel) {
		arg_dim3(c, &first, "grid", e->grid);
		arg_dim3(c, &first, "block", e->block);
		arg_int(c, &first, "registers per thread", e->regs);
		if (e->ssmem != TK_NONE || e->dsmem != TK_NONE)
			arg_int(c, &first, "shared memory",
				(e->ssmem == TK_NONE ? 0 : e->ssmem) +
				    (e->dsmem == TK_NONE ? 0 : e->dsmem));
		if (e->bps >= 0)
			arg_key(c, &first, "blocks per SM"), put_double(&c->out, e->bps);
		if (e->wps >= 0)
			arg_key(c, &first, "warps per SM"), put_double(&c->out, e->wps);
		if (e->occ >= 0)
			arg_key(c, &first, "est. achieved occupancy %"),
			    put_double(&c->out, e->occ * 100.0);
	}
	if (e->has_copy || e->has_set)
		arg_int(c, &first, "bytes", e->bytes);
	if (e->has_op) {
		arg_sid(c, &first, "hlo_op", e->hlo_op);
		arg_sid(c, &first, "hlo_module", e->hlo_module);
		arg_int(c, &first, "program_id", e->program_id);
		arg_sid(c, &first, "tf_op", e->fw_op);
		arg_sid(c, &first, "hlo_category", e->op_cat);
		arg_int(c, &first, "flops", e->flops);
		arg_int(c, &first, "bytes_accessed", e->bytes_accessed);
	}
	if (c->args) {
		sqlite3_reset(c->args);
		sqlite3_bind_int64(c->args, 1, e->id);
		while (sqlite3_step(c->args) == SQLITE_ROW) {
			const char *k = ex_str(c->x, (uint32_t)sqlite3_column_int64(c->args, 0));
			ex_puts(&c->out, first ? "" : ",");
			first = 0;
			put_str(c, k);
			ex_puts(&c->out, ":");
			switch (sqlite3_column_type(c->args, 1)) {
			case SQLITE_INTEGER:
				put_i64(&c->out, sqlite3_column_int64(c->args, 1));
				break;
			case SQLITE_FLOAT:
				put_double(&c->out, sqlite3_column_double(c->args, 1));
				break;
			case SQLITE_NULL:
				ex_puts(&c->out, "null");
				break;
			default:
				put_str(c, (const char *)sqlite3_column_text(c->args, 1));
				break;
			}
		}
	}
	ex_puts(&c->out, "}");
}

static void flow_point(struct chrome *c, const struct ex_flow *f, char ph, const struct ctrack *t,
		       int64_t ts)
{
	const char *cat = !strcmp(f->kind, "launch") ? "ac2g" : f->kind;
	char head[128];
	snprintf(head, sizeof(head), "{\"ph\":\"%c\",\"id\":", ph);
	sep(c);
	ex_puts(&c->out, head);
	put_i64(&c->out, f->id);
	ex_puts(&c->out, ",\"cat\":");
	put_str(c, cat);
	ex_puts(&c->out, ",\"name\":");
	put_str(c, cat);
	put_pid_tid(c, t->pid, t->tid);
	ex_puts(&c->out, ",\"ts\":");
	put_us(c, ts - c->base);
	ex_puts(&c->out, ph == 'f' ? ",\"bp\":\"e\"}" : "}");
}

static int events(struct chrome *c)
{
	struct ex_scan s;
	struct ex_event e;
	static const struct ctrack none = {3000000, 0, 0, 0, TK_NONE, 0};
	int rc = ex_scan_open(c->x, &s), r;
	while (rc == TK_OK && (r = ex_scan_next(&s, &e)) == 1) {
		const struct ctrack *t =
		    e.track_id > 0 && e.track_id < c->ntr ? &c->tr[e.track_id] : &none;
		sep(c);
		ex_puts(&c->out, "{\"ph\":\"X\",\"cat\":");
		if (e.cat_id)
			put_sid(c, e.cat_id);
		else
			put_str(c, kind_cat(e.kind, t->device));
		ex_puts(&c->out, ",\"name\":");
		put_sid(c, e.name_id);
		put_pid_tid(c, t->pid, t->tid);
		ex_puts(&c->out, ",\"ts\":");
		put_us(c, e.ts - c->base);
		ex_puts(&c->out, ",\"dur\":");
		put_us(c, e.dur);
		args(c, &e, t);
		ex_puts(&c->out, "}");
		for (int i = 0; i < e.nout; i++)
			flow_point(c, &e.out[i], 's', t, e.ts);
		for (int i = 0; i < e.nin; i++)
			flow_point(c, &e.in[i], 'f', t, e.ts);
		c->x->stats.events++;
		c->x->stats.flows += e.nin;
		if (c->out.failed)
			rc = TK_EIO;
	}
	if (rc == TK_OK && r != 0)
		rc = r;
	ex_scan_close(&s);
	return rc;
}

static int memory_and_counters(struct chrome *c)
{
	struct tk_exporter *x = c->x;
	sqlite3_stmt *st = NULL;
	int rc, step;
	if ((rc = ex_prepare(
		 x,
		 "SELECT m.ts_ns, m.kind = 'free', m.device_id, d.ordinal, m.process_id, "
		 "m.address, m.bytes, m.bytes_in_use, m.bytes_reserved, m.id FROM memory_records "
		 "m LEFT JOIN devices d ON d.id = m.device_id ORDER BY m.id",
		 &st)) != TK_OK)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (!tk_time_ok(sqlite3_column_int64(st, 0)) || sqlite3_column_int64(st, 6) < 0) {
			rc = ex_fail_row(x, "memory_records", sqlite3_column_int64(st, 9),
					 "ts_ns out of range or bytes negative");
			goto out;
		}
		int64_t proc =
		    sqlite3_column_type(st, 4) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 4);
		int64_t pid = proc > 0 && proc < c->nproc ? c->proc_pid[proc] : 3000000;
		int dev = sqlite3_column_type(st, 2) != SQLITE_NULL;
		int64_t bytes = sqlite3_column_int64(st, 6);
		sep(c);
		ex_puts(&c->out, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\","
				 "\"name\":\"[memory]\"");
		put_pid_tid(c, pid, pid);
		ex_puts(&c->out, ",\"ts\":");
		put_us(c, sqlite3_column_int64(st, 0) - c->base);
		ex_puts(&c->out, ",\"args\":{\"Device Type\":");
		put_i64(&c->out, dev ? 1 : 0);
		ex_puts(&c->out, ",\"Device Id\":");
		put_i64(&c->out, dev ? sqlite3_column_int64(st, 3) : -1);
		if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
			ex_puts(&c->out, ",\"Addr\":");
			put_i64(&c->out, sqlite3_column_int64(st, 5));
		}
		ex_puts(&c->out, ",\"Bytes\":");
		put_i64(&c->out, sqlite3_column_int(st, 1) ? -bytes : bytes);
		if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
			ex_puts(&c->out, ",\"Total Allocated\":");
			put_i64(&c->out, sqlite3_column_int64(st, 7));
		}
		if (sqlite3_column_type(st, 8) != SQLITE_NULL) {
			ex_puts(&c->out, ",\"Total Reserved\":");
			put_i64(&c->out, sqlite3_column_int64(st, 8));
		}
		ex_puts(&c->out, "}}");
		x->stats.memory_events++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (step != SQLITE_DONE)
		return ex_fail_sql(x, "memory_records");
	if ((rc = ex_prepare(
		 x,
		 "SELECT c.track_id, c.ts_ns, c.value, t.unit, c.rowid FROM counters c JOIN "
		 "tracks t ON t.id = c.track_id ORDER BY c.rowid",
		 &st)) != TK_OK)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(st, 0);
		if (!tk_time_ok(sqlite3_column_int64(st, 1))) {
			rc = ex_fail_row(x, "counters", sqlite3_column_int64(st, 4),
					 "ts_ns out of range");
			goto out;
		}
		const struct ctrack *t = tid > 0 && tid < c->ntr ? &c->tr[tid] : NULL;
		if (!t)
			continue;
		const char *unit = (const char *)sqlite3_column_text(st, 3);
		sep(c);
		ex_puts(&c->out, "{\"ph\":\"C\",\"name\":");
		put_sid(c, t->name_id);
		ex_puts(&c->out, ",\"pid\":");
		put_i64(&c->out, t->pid);
		ex_puts(&c->out, ",\"ts\":");
		put_us(c, sqlite3_column_int64(st, 1) - c->base);
		ex_puts(&c->out, ",\"args\":{");
		put_str(c, unit && *unit ? unit : "value");
		ex_puts(&c->out, ":");
		put_double(&c->out, sqlite3_column_double(st, 2));
		ex_puts(&c->out, "}}");
		x->stats.counters++;
	}
	rc = step != SQLITE_DONE ? ex_fail_sql(x, "counters") : c->out.failed ? TK_EIO : TK_OK;
out:
	sqlite3_finalize(st);
	return rc;
}

int ex_chrome(struct tk_exporter *x, const char *path)
{
	struct chrome *c = calloc(1, sizeof(*c));
	if (!c)
		return ex_fail(x, TK_ENOMEM, "out of memory");
	c->x = x;
	c->base = x->start_ns;
	size_t n = strlen(path);
	int gz = n > 3 && !strcmp(path + n - 3, ".gz");
	int rc = ex_out_open(x, &c->out, path, gz);
	if (rc != TK_OK)
		goto out;
	if (x->has_args && (rc = ex_prepare(x, "SELECT key_id, value FROM args WHERE event_id = ?",
					    &c->args)) != TK_OK)
		goto out;
	ex_puts(&c->out, "{\"traceEvents\":[\n");
	if ((rc = prologue(c)) != TK_OK || (rc = events(c)) != TK_OK ||
	    (rc = memory_and_counters(c)) != TK_OK)
		goto out;
	ex_puts(&c->out, "\n],\n\"displayTimeUnit\":\"ms\",\n\"baseTimeNanoseconds\":");
	put_i64(&c->out, c->base);
	ex_puts(&c->out, ",\n\"metadata\":{\"exporter\":\"tracekit\",\"clock\":");
	put_str(c, x->epoch ? "unix_epoch" : "relative");
	ex_puts(&c->out, ",\"base_time_ns\":");
	put_i64(&c->out, c->base);
	ex_puts(&c->out, "}}\n");
	if (c->out.failed) {
		rc = TK_EIO;
		goto out;
	}
	snprintf(x->output, sizeof(x->output), "%s", path);
	rc = ex_out_commit(&c->out);
out:
	ex_out_abort(&c->out);
	sqlite3_finalize(c->args);
	for (size_t i = 0; i < ESC_SLOTS; i++)
		free(c->esc[i]);
	free(c->tr);
	free(c->dev_pid);
	free(c->proc_pid);
	free(c);
	return rc;
}
