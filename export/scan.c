/*
 * The merged event scan: events in rowid order, each with its kernel / copy / set / step / op
 * detail row and the flows leaving and entering it. Every table is read by one forward cursor in
 * event-id order (detail tables are keyed by the event id; flows are read in their own order and
 * checked to be in event order, else the caller restarts with sorting statements), so the whole
 * scan is linear and holds one row of each table at a time. Every event row is checked against
 * the store's rules (store/checked.h) before an exporter sees it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "checked.h"
#include "export_internal.h"
#include "tscan.h"

static const struct ex_table T_EV = {
    "events",
    "id",
    {"id", "track_id", "kind", "name_id", "category_id", "ts_ns", "dur_ns", "correlation_id", NULL},
    0};
static const struct ex_table T_KD = {"kernel_details",
				     "event_id",
				     {"event_id", "grid_x", "grid_y", "grid_z", "block_x",
				      "block_y", "block_z", "registers", "static_smem",
				      "dynamic_smem", "occupancy", "blocks_per_sm", "warps_per_sm",
				      "mangled_name_id", NULL},
				     0};
static const struct ex_table T_CD = {"copy_details",
				     "event_id",
				     {"event_id", "bytes", "copy_kind", "src_mem_kind",
				      "dst_mem_kind", "src_device_id", "dst_device_id", NULL},
				     0};
static const struct ex_table T_SD = {
    "set_details", "event_id", {"event_id", "bytes", "value", "mem_kind", NULL}, 0};
static const struct ex_table T_ST = {"step_details", "event_id", {"event_id", "step_num", NULL}, 0};
static const struct ex_table T_OD = {"op_details",
				     "event_id",
				     {"event_id", "hlo_op_id", "hlo_module_id", "program_id",
				      "framework_op_id", "op_category_id", "flops",
				      "bytes_accessed", NULL},
				     0};
static const struct ex_table T_FO = {"flows", "id", {"src_event_id", "id", "kind", NULL}, 1};
static const struct ex_table T_FI = {"flows", "id", {"dst_event_id", "id", "kind", NULL}, 1};

int ex_scan_open(struct tk_exporter *x, struct ex_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->x = x;
	int rc;
	if ((rc = ex_cur_open(x, &s->ev, &T_EV, 0, NULL)) != TK_OK ||
	    (rc = ex_cur_open(x, &s->kd, &T_KD, 0, NULL)) != TK_OK ||
	    (rc = ex_cur_open(x, &s->cd, &T_CD, 0, NULL)) != TK_OK ||
	    (rc = ex_cur_open(x, &s->sd, &T_SD, 0, NULL)) != TK_OK ||
	    (rc = ex_cur_open(x, &s->st, &T_ST, 0, NULL)) != TK_OK ||
	    (rc = ex_cur_open(x, &s->od, &T_OD, 0, NULL)) != TK_OK ||
	    (rc = ex_cur_open(x, &s->fo, &T_FO, x->sorted_flows, "src_event_id, id")) != TK_OK ||
	    (rc = ex_cur_open(x, &s->fi, &T_FI, x->sorted_flows, "dst_event_id, id")) != TK_OK)
		return rc;
	if ((s->kd_ok = ex_cur_step(s->x, &s->kd)) < 0 ||
	    (s->cd_ok = ex_cur_step(s->x, &s->cd)) < 0 ||
	    (s->sd_ok = ex_cur_step(s->x, &s->sd)) < 0 ||
	    (s->st_ok = ex_cur_step(s->x, &s->st)) < 0 ||
	    (s->od_ok = ex_cur_step(s->x, &s->od)) < 0 ||
	    (s->fo_ok = ex_cur_step(s->x, &s->fo)) < 0 ||
	    (s->fi_ok = ex_cur_step(s->x, &s->fi)) < 0)
		return TK_EFORMAT;
	s->kd_key = s->kd_ok ? ex_cur_z(&s->kd, 0) : INT64_MAX;
	s->cd_key = s->cd_ok ? ex_cur_z(&s->cd, 0) : INT64_MAX;
	s->sd_key = s->sd_ok ? ex_cur_z(&s->sd, 0) : INT64_MAX;
	s->st_key = s->st_ok ? ex_cur_z(&s->st, 0) : INT64_MAX;
	s->od_key = s->od_ok ? ex_cur_z(&s->od, 0) : INT64_MAX;
	s->last_fo = s->fo_ok ? ex_cur_z(&s->fo, 0) : 0;
	s->last_fi = s->fi_ok ? ex_cur_z(&s->fi, 0) : 0;
	return TK_OK;
}

void ex_scan_close(struct ex_scan *s)
{
	if (!s)
		return;
	struct ex_cur *all[] = {&s->ev, &s->kd, &s->cd, &s->sd, &s->st, &s->od, &s->fo, &s->fi};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		ex_cur_close(all[i]);
}

/* Move a detail cursor (current key *@key) to event @id; 1 when it is on @id's row. */
static int seek(struct ex_scan *s, struct ex_cur *st, int *ok, int64_t *key, int64_t id)
{
	while (*ok == 1 && *key < id) {
		if ((*ok = ex_cur_step(s->x, st)) < 0)
			return -1;
		*key = *ok == 1 ? ex_cur_z(st, 0) : INT64_MAX;
	}
	return *ok == 1 && *key == id;
}

/* Collect the flows whose key column is @id into @f; EX_RESTART when keys go backwards. */
static int flows(struct ex_scan *s, struct ex_cur *st, int *ok, int64_t *last, int64_t id,
		 struct ex_flow *f, int *n)
{
	*n = 0;
	for (;;) {
		if (*ok != 1)
			return 0;
		int64_t k = *last; /* the current row's key */
		if (k > id)
			return 0;
		if (k == id) {
			if (*n < EX_MAX_FLOWS) {
				f[*n].id = ex_cur_z(st, 1);
				ex_cur_text(st, 2, f[*n].kind, sizeof(f[*n].kind), "flow");
				(*n)++;
			} else {
				s->dropped_flows++;
			}
		}
		if ((*ok = ex_cur_step(s->x, st)) < 0)
			return -1;
		if (*ok == 1) {
			int64_t next = ex_cur_z(st, 0);
			if (next < *last && !s->x->sorted_flows)
				return EX_RESTART;
			*last = next;
		}
	}
}

/* Event @e as read (columns of T_EV, @ints / @nulls their type masks) against the store's
 * rules: NULL when it keeps them, else why not. */
static const char *bad_event(const struct ex_event *e, int64_t kind, int64_t name, int64_t cat,
			     uint32_t ints, uint32_t nulls, char *why, size_t n)
{
	/* category_id (4) and correlation_id (7) may be NULL */
	uint32_t ok = ints | (nulls & (1u << 4 | 1u << 7));
	for (int i = 1; i <= 7; i++)
		if (!(ok & (1u << i))) {
			snprintf(why, n, "%s is not an integer", T_EV.cols[i]);
			return why;
		}
	if (kind < 0 || kind > INT32_MAX)
		return "kind out of range";
	if (name < 0 || name > UINT32_MAX || cat < 0 || cat > UINT32_MAX)
		return "name_id or category_id out of range (a strings id)";
	return tk_span_check(e->ts, e->dur);
}

int ex_scan_next(struct ex_scan *s, struct ex_event *e)
{
	int r = ex_cur_step(s->x, &s->ev);
	if (r <= 0)
		return r;
	const struct ex_cur *ev = &s->ev;
	uint32_t nulls, ints = ex_cur_ints(ev, 8, &nulls);
	int64_t kind = ex_cur_z(ev, 2), name = ex_cur_z(ev, 3), cat = ex_cur_z(ev, 4);
	char why[96];
	e->id = ex_cur_z(ev, 0);
	e->track_id = ex_cur_z(ev, 1);
	e->ts = ex_cur_z(ev, 5);
	e->dur = ex_cur_z(ev, 6);
	const char *bad = bad_event(e, kind, name, cat, ints, nulls, why, sizeof(why));
	if (bad)
		return ex_fail_row(s->x, "events", e->id, bad);
	e->kind = (int)kind;
	e->name_id = (uint32_t)name;
	e->cat_id = (uint32_t)cat;
	e->corr = ex_cur_i(ev, 7);

	if ((e->has_kernel = seek(s, &s->kd, &s->kd_ok, &s->kd_key, e->id)) < 0)
		return -1;
	if (e->has_kernel) {
		const struct ex_cur *k = &s->kd;
		for (int i = 0; i < 3; i++) {
			e->grid[i] = ex_cur_i(k, 1 + i);
			e->block[i] = ex_cur_i(k, 4 + i);
		}
		e->regs = ex_cur_i(k, 7);
		e->ssmem = ex_cur_i(k, 8);
		e->dsmem = ex_cur_i(k, 9);
		e->occ = ex_cur_r(k, 10);
		e->bps = ex_cur_r(k, 11);
		e->wps = ex_cur_r(k, 12);
		e->mangled_id = (uint32_t)ex_cur_z(k, 13);
		if ((e->ssmem != TK_NONE && !tk_size_ok(e->ssmem)) ||
		    (e->dsmem != TK_NONE && !tk_size_ok(e->dsmem)))
			return ex_fail_row(s->x, "kernel_details", e->id,
					   "static_smem or dynamic_smem out of range");
	}
	if ((e->has_copy = seek(s, &s->cd, &s->cd_ok, &s->cd_key, e->id)) < 0)
		return -1;
	if (e->has_copy) {
		const struct ex_cur *c = &s->cd;
		e->bytes = ex_cur_z(c, 1);
		e->copy_kind = (int)ex_cur_z(c, 2);
		e->src_kind = (int)ex_cur_z(c, 3);
		e->dst_kind = (int)ex_cur_z(c, 4);
		e->src_dev = ex_cur_i(c, 5);
		e->dst_dev = ex_cur_i(c, 6);
	}
	if ((e->has_set = seek(s, &s->sd, &s->sd_ok, &s->sd_key, e->id)) < 0)
		return -1;
	if (e->has_set) {
		e->bytes = ex_cur_z(&s->sd, 1);
		e->set_value = ex_cur_i(&s->sd, 2);
		e->set_kind = (int)ex_cur_z(&s->sd, 3);
	}
	if ((e->has_step = seek(s, &s->st, &s->st_ok, &s->st_key, e->id)) < 0)
		return -1;
	if (e->has_step)
		e->step_num = ex_cur_z(&s->st, 1);
	if ((e->has_op = seek(s, &s->od, &s->od_ok, &s->od_key, e->id)) < 0)
		return -1;
	if (e->has_op) {
		const struct ex_cur *o = &s->od;
		e->hlo_op = (uint32_t)ex_cur_z(o, 1);
		e->hlo_module = (uint32_t)ex_cur_z(o, 2);
		e->program_id = ex_cur_i(o, 3);
		e->fw_op = (uint32_t)ex_cur_z(o, 4);
		e->op_cat = (uint32_t)ex_cur_z(o, 5);
		e->flops = ex_cur_i(o, 6);
		e->bytes_accessed = ex_cur_i(o, 7);
	}
	if ((r = flows(s, &s->fo, &s->fo_ok, &s->last_fo, e->id, e->out, &e->nout)) != 0)
		return r;
	if ((r = flows(s, &s->fi, &s->fi_ok, &s->last_fi, e->id, e->in, &e->nin)) != 0)
		return r;
	return 1;
}
