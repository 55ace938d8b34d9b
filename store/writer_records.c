/*
 * The store writer's per-record appends: intervals and their detail rows (kernels, copies, sets,
 * steps, op details), flows, counter samples, memory events and args. Each append checks what it
 * refers to, fills one batched row per table and keeps the trace bounds; failures are sticky.
 */
#include <tracekit/error.h>
#include <tracekit/store.h>

#include <stdio.h>
#include <string.h>

#include "recorder.h"
#include "writer_internal.h"

static void extend_bounds(tk_writer *w, int64_t ts, int64_t end)
{
	if (ts < w->min_ts)
		w->min_ts = ts;
	if (end > w->max_end)
		w->max_end = end;
}

int tk_writer_add_event(tk_writer *w, const struct tk_event *ev, int64_t *out_id)
{
	if (TKW_RECORDING(w))
		return tkw_rec_event(w, ev, out_id);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	int64_t id = w->n_events + 1;
	if (ev->track_id < 1 || ev->track_id > w->n_tracks)
		return tkw_fail(w, TK_EINVAL,
				"event %lld refers to track %lld, which was not added",
				(long long)id, (long long)ev->track_id);
	if (ev->kind < TK_EV_HOST_OP || ev->kind > TK_EV_ASYNC_XLA_OP)
		return tkw_fail(w, TK_EINVAL, "event %lld has unknown kind %d", (long long)id,
				(int)ev->kind);
	if (ev->dur_ns < 0 || ev->ts_ns > INT64_MAX - ev->dur_ns)
		return tkw_fail(w, TK_EINVAL,
				"event %lld has an invalid duration %lld ns at %lld ns",
				(long long)id, (long long)ev->dur_ns, (long long)ev->ts_ns);
	uint32_t name = ev->name ? tk_writer_intern(w, ev->name) : ev->name_id;
	uint32_t cat = ev->category ? tk_writer_intern(w, ev->category) : ev->category_id;
	if (w->status != TK_OK)
		return w->status;
	if (name == 0 || name > w->intern.count || cat > w->intern.count)
		return tkw_fail(w, TK_EINVAL, "event %lld has no valid name", (long long)id);
	struct tks_cell *row = tks_batch_row(&w->batch[B_EVENT]);
	tks_cell_int(&row[0], id);
	tks_cell_int(&row[1], ev->track_id);
	tks_cell_int(&row[2], ev->kind);
	tks_cell_int(&row[3], name);
	tks_cell_str_id(&row[4], cat);
	tks_cell_int(&row[5], ev->ts_ns);
	tks_cell_int(&row[6], ev->dur_ns);
	tks_cell_opt_int(&row[7], ev->correlation_id);
	if ((rc = tkw_add_row(w, B_EVENT)) != TK_OK)
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
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (ev->kind != kind)
		return tkw_fail(w, TK_EINVAL, "event of kind %d passed where kind %d is required",
				(int)ev->kind, (int)kind);
	return tk_writer_add_event(w, ev, id);
}

int tk_writer_add_kernel(tk_writer *w, const struct tk_event *ev, const struct tk_kernel_info *k,
			 int64_t *out_id)
{
	if (TKW_RECORDING(w))
		return tkw_rec_kernel(w, ev, k, out_id);
	int64_t id;
	int rc = add_typed(w, ev, TK_EV_KERNEL, &id);
	if (rc != TK_OK)
		return rc;
	uint32_t mangled =
	    k->mangled_name ? tk_writer_intern(w, k->mangled_name) : k->mangled_name_id;
	if (w->status != TK_OK)
		return w->status;
	struct tks_cell *row = tks_batch_row(&w->batch[B_KERNEL]);
	tks_cell_int(&row[0], id);
	tks_cell_str_id(&row[1], mangled);
	for (int i = 0; i < 3; i++) {
		tks_cell_opt_int(&row[2 + i], k->grid[i]);
		tks_cell_opt_int(&row[5 + i], k->block[i]);
	}
	tks_cell_opt_int(&row[8], k->registers);
	tks_cell_opt_int(&row[9], k->static_smem);
	tks_cell_opt_int(&row[10], k->dynamic_smem);
	tks_cell_opt_real(&row[11], k->occupancy);
	tks_cell_opt_real(&row[12], k->blocks_per_sm);
	tks_cell_opt_real(&row[13], k->warps_per_sm);
	if ((rc = tkw_add_row(w, B_KERNEL)) != TK_OK)
		return rc;
	w->stats.kernels++;
	if (out_id)
		*out_id = id;
	return TK_OK;
}

static int check_mem_kind(tk_writer *w, enum tk_mem_kind k, int64_t id)
{
	if ((unsigned)k > TK_MEM_ARRAY)
		return tkw_fail(w, TK_EINVAL, "event %lld has unknown memory kind %d",
				(long long)id, (int)k);
	return TK_OK;
}

int tk_writer_add_copy(tk_writer *w, const struct tk_event *ev, const struct tk_copy_info *c,
		       int64_t *out_id)
{
	if (TKW_RECORDING(w))
		return tkw_rec_copy(w, ev, c, out_id);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	int64_t next = w->n_events + 1;
	if (c->bytes < 0)
		return tkw_fail(w, TK_EINVAL, "copy event %lld has negative size", (long long)next);
	if ((unsigned)c->copy_kind > TK_COPY_P2P)
		return tkw_fail(w, TK_EINVAL, "copy event %lld has unknown copy kind %d",
				(long long)next, (int)c->copy_kind);
	if ((rc = check_mem_kind(w, c->src_kind, next)) != TK_OK ||
	    (rc = check_mem_kind(w, c->dst_kind, next)) != TK_OK ||
	    (rc = tkw_check_device(w, c->src_device_id, "copy")) != TK_OK ||
	    (rc = tkw_check_device(w, c->dst_device_id, "copy")) != TK_OK)
		return rc;
	int64_t id;
	if ((rc = add_typed(w, ev, TK_EV_MEMCPY, &id)) != TK_OK)
		return rc;
	struct tks_cell *row = tks_batch_row(&w->batch[B_COPY]);
	tks_cell_int(&row[0], id);
	tks_cell_int(&row[1], c->bytes);
	tks_cell_int(&row[2], c->copy_kind);
	tks_cell_int(&row[3], c->src_kind);
	tks_cell_int(&row[4], c->dst_kind);
	tks_cell_opt_int(&row[5], c->src_device_id);
	tks_cell_opt_int(&row[6], c->dst_device_id);
	if ((rc = tkw_add_row(w, B_COPY)) != TK_OK)
		return rc;
	w->stats.memcpys++;
	if (out_id)
		*out_id = id;
	return TK_OK;
}

int tk_writer_add_set(tk_writer *w, const struct tk_event *ev, const struct tk_set_info *s,
		      int64_t *out_id)
{
	if (TKW_RECORDING(w))
		return tkw_rec_set(w, ev, s, out_id);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	int64_t next = w->n_events + 1;
	if (s->bytes < 0)
		return tkw_fail(w, TK_EINVAL, "memset event %lld has negative size",
				(long long)next);
	if ((rc = check_mem_kind(w, s->mem_kind, next)) != TK_OK)
		return rc;
	int64_t id;
	if ((rc = add_typed(w, ev, TK_EV_MEMSET, &id)) != TK_OK)
		return rc;
	struct tks_cell *row = tks_batch_row(&w->batch[B_SET]);
	tks_cell_int(&row[0], id);
	tks_cell_int(&row[1], s->bytes);
	tks_cell_opt_int(&row[2], s->value);
	tks_cell_int(&row[3], s->mem_kind);
	if ((rc = tkw_add_row(w, B_SET)) != TK_OK)
		return rc;
	w->stats.memsets++;
	if (out_id)
		*out_id = id;
	return TK_OK;
}

int tk_writer_add_step(tk_writer *w, const struct tk_event *ev, int64_t step_num, int64_t *out_id)
{
	if (TKW_RECORDING(w))
		return tkw_rec_step(w, ev, step_num, out_id);
	int64_t id;
	int rc = add_typed(w, ev, TK_EV_STEP, &id);
	if (rc != TK_OK)
		return rc;
	struct tks_cell *row = tks_batch_row(&w->batch[B_STEP]);
	tks_cell_int(&row[0], id);
	tks_cell_int(&row[1], step_num);
	if ((rc = tkw_add_row(w, B_STEP)) == TK_OK && out_id)
		*out_id = id;
	return rc;
}

static int check_event(tk_writer *w, int64_t id, const char *what)
{
	if (id < 1 || id > w->n_events)
		return tkw_fail(w, TK_EINVAL, "%s refers to event %lld, which was not added", what,
				(long long)id);
	return TK_OK;
}

int tk_writer_add_op_details(tk_writer *w, int64_t event_id, const struct tk_op_info *op)
{
	if (TKW_RECORDING(w))
		return tkw_rec_op_details(w, event_id, op);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK || (rc = check_event(w, event_id, "op details")) != TK_OK)
		return rc;
	uint32_t hop = tkw_intern_opt(w, op->hlo_op), hmod = tkw_intern_opt(w, op->hlo_module);
	uint32_t fop = tkw_intern_opt(w, op->framework_op),
		 cat = tkw_intern_opt(w, op->op_category);
	if (w->status != TK_OK)
		return w->status;
	struct tks_cell *row = tks_batch_row(&w->batch[B_OP]);
	tks_cell_int(&row[0], event_id);
	tks_cell_str_id(&row[1], hop);
	tks_cell_str_id(&row[2], hmod);
	tks_cell_opt_int(&row[3], op->program_id);
	tks_cell_str_id(&row[4], fop);
	tks_cell_str_id(&row[5], cat);
	tks_cell_opt_int(&row[6], op->flops);
	tks_cell_opt_int(&row[7], op->bytes_accessed);
	return tkw_add_row(w, B_OP);
}

int tk_writer_add_flow(tk_writer *w, const char *kind, int64_t src_event_id, int64_t dst_event_id)
{
	if (TKW_RECORDING(w))
		return tkw_rec_flow(w, kind, src_event_id, dst_event_id);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (!kind)
		return tkw_fail(w, TK_EINVAL, "flow kind must not be NULL");
	if ((rc = check_event(w, src_event_id, "flow")) != TK_OK ||
	    (rc = check_event(w, dst_event_id, "flow")) != TK_OK)
		return rc;
	struct tks_cell *row = tks_batch_row(&w->batch[B_FLOW]);
	tks_cell_int(&row[0], ++w->n_flows);
	if (tks_batch_text(&w->batch[B_FLOW], &row[1], kind) != SQLITE_OK)
		return tkw_fail(w, TK_ENOMEM, "out of memory");
	tks_cell_int(&row[2], src_event_id);
	tks_cell_int(&row[3], dst_event_id);
	if ((rc = tkw_add_row(w, B_FLOW)) == TK_OK)
		w->stats.flows++;
	return rc;
}

int tk_writer_add_counter(tk_writer *w, int64_t track_id, int64_t ts_ns, double value)
{
	if (TKW_RECORDING(w))
		return tkw_rec_counter(w, track_id, ts_ns, value);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (track_id < 1 || track_id > w->n_tracks)
		return tkw_fail(w, TK_EINVAL,
				"counter sample refers to track %lld, which was not added",
				(long long)track_id);
	if (value != value)
		return tkw_fail(w, TK_EINVAL, "counter sample at %lld ns is not a number",
				(long long)ts_ns);
	struct tks_cell *row = tks_batch_row(&w->batch[B_COUNTER]);
	tks_cell_int(&row[0], track_id);
	tks_cell_int(&row[1], ts_ns);
	tks_cell_real(&row[2], value);
	if ((rc = tkw_add_row(w, B_COUNTER)) != TK_OK)
		return rc;
	w->stats.counter_samples++;
	extend_bounds(w, ts_ns, ts_ns);
	return TK_OK;
}

int tk_writer_add_memory_event(tk_writer *w, const struct tk_memory_event *m)
{
	if (TKW_RECORDING(w))
		return tkw_rec_memory(w, m);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	int64_t id = w->n_memory + 1;
	if (m->bytes < 0)
		return tkw_fail(w, TK_EINVAL, "memory event %lld has negative size", (long long)id);
	if ((rc = tkw_check_device(w, m->device_id, "memory event")) != TK_OK ||
	    (rc = tkw_check_process(w, m->process_id, "memory event")) != TK_OK ||
	    (rc = check_mem_kind(w, m->mem_kind, id)) != TK_OK)
		return rc;
	if (m->op_event_id != TK_NONE &&
	    (rc = check_event(w, m->op_event_id, "memory event")) != TK_OK)
		return rc;
	uint32_t alloc = m->allocator ? tk_writer_intern(w, m->allocator) : m->allocator_id;
	uint32_t op_name = tkw_intern_opt(w, m->op_name);
	if (w->status != TK_OK)
		return w->status;
	struct tks_batch *b = &w->batch[B_MEMORY];
	struct tks_cell *row = tks_batch_row(b);
	tks_cell_int(&row[0], id);
	tks_cell_int(&row[1], m->ts_ns);
	if (tks_batch_text(b, &row[2], m->is_free ? "free" : "alloc") != SQLITE_OK)
		return tkw_fail(w, TK_ENOMEM, "out of memory");
	tks_cell_opt_int(&row[3], m->device_id);
	tks_cell_opt_int(&row[4], m->process_id);
	tks_cell_opt_int(&row[5], m->address);
	tks_cell_int(&row[6], m->bytes);
	tks_cell_int(&row[7], m->mem_kind);
	tks_cell_str_id(&row[8], alloc);
	tks_cell_opt_int(&row[9], m->op_event_id);
	tks_cell_opt_int(&row[10], m->bytes_in_use);
	tks_cell_opt_int(&row[11], m->bytes_reserved);
	tks_cell_opt_int(&row[12], m->bytes_available);
	tks_cell_opt_int(&row[13], m->peak_bytes_in_use);
	tks_cell_opt_int(&row[14], m->requested_bytes);
	tks_cell_opt_real(&row[15], m->fragmentation);
	tks_cell_str_id(&row[16], op_name);
	if ((rc = tkw_add_row(w, B_MEMORY)) != TK_OK)
		return rc;
	w->n_memory = id;
	w->stats.memory_events++;
	extend_bounds(w, m->ts_ns, m->ts_ns);
	return TK_OK;
}

/* Start an arg row with its event and key in *row; the caller sets row[2] and calls arg_end. */
static int arg_begin(tk_writer *w, int64_t event_id, const char *key, struct tks_cell **row)
{
	int rc = tkw_check_ready(w);
	if (rc != TK_OK || (rc = check_event(w, event_id, "arg")) != TK_OK)
		return rc;
	if (!key)
		return tkw_fail(w, TK_EINVAL, "arg key must not be NULL");
	uint32_t k = tk_writer_intern(w, key);
	if (w->status != TK_OK)
		return w->status;
	*row = tks_batch_row(&w->batch[B_ARG]);
	tks_cell_int(&(*row)[0], event_id);
	tks_cell_int(&(*row)[1], k);
	return TK_OK;
}

static int arg_end(tk_writer *w)
{
	int rc = tkw_add_row(w, B_ARG);
	if (rc == TK_OK)
		w->stats.args++;
	return rc;
}

int tk_writer_add_arg_int(tk_writer *w, int64_t event_id, const char *key, int64_t value)
{
	if (TKW_RECORDING(w))
		return tkw_rec_arg_int(w, event_id, key, value);
	struct tks_cell *row = NULL;
	int rc = arg_begin(w, event_id, key, &row);
	if (rc != TK_OK)
		return rc;
	tks_cell_int(&row[2], value);
	return arg_end(w);
}

int tk_writer_add_arg_real(tk_writer *w, int64_t event_id, const char *key, double value)
{
	if (TKW_RECORDING(w))
		return tkw_rec_arg_real(w, event_id, key, value);
	struct tks_cell *row = NULL;
	int rc = arg_begin(w, event_id, key, &row);
	if (rc != TK_OK)
		return rc;
	tks_cell_real(&row[2], value);
	return arg_end(w);
}

int tk_writer_add_arg_text(tk_writer *w, int64_t event_id, const char *key, const char *value)
{
	if (TKW_RECORDING(w))
		return tkw_rec_arg_text(w, event_id, key, value);
	if (!value)
		return tkw_fail(w, TK_EINVAL, "arg '%s' has a NULL value", key ? key : "(null)");
	struct tks_cell *row = NULL;
	int rc = arg_begin(w, event_id, key, &row);
	if (rc != TK_OK)
		return rc;
	if (tks_batch_text(&w->batch[B_ARG], &row[2], value) != SQLITE_OK)
		return tkw_fail(w, TK_ENOMEM, "out of memory");
	return arg_end(w);
}
