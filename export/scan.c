/*
 * The merged event scan: events in rowid order, each with its kernel / copy / set / step / op
 * detail row and the flows leaving and entering it. Every table is read by one forward cursor in
 * event-id order (detail tables are keyed by the event id; flows are read in their own order and
 * checked to be in event order, else the caller restarts with sorting statements), so the whole
 * scan is linear and holds one row of each table at a time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "export_internal.h"

static int64_t col_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? TK_NONE : sqlite3_column_int64(st, i);
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1.0 : sqlite3_column_double(st, i);
}

/* Step @st; 1 with a row, 0 at the end, < 0 on error. */
static int step(struct ex_scan *s, sqlite3_stmt *st)
{
	int r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE)
		return 0;
	return ex_fail_sql(s->x, "scan");
}

int ex_scan_open(struct tk_exporter *x, struct ex_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->x = x;
	const char *fo = x->sorted_flows
			     ? "SELECT src_event_id, id, kind FROM flows ORDER BY src_event_id, id"
			     : "SELECT src_event_id, id, kind FROM flows ORDER BY id";
	const char *fi = x->sorted_flows
			     ? "SELECT dst_event_id, id, kind FROM flows ORDER BY dst_event_id, id"
			     : "SELECT dst_event_id, id, kind FROM flows ORDER BY id";
	int rc;
	if ((rc = ex_prepare(x,
			     "SELECT id, track_id, kind, name_id, coalesce(category_id, 0), ts_ns, "
			     "dur_ns, correlation_id FROM events ORDER BY id",
			     &s->ev)) != TK_OK ||
	    (rc = ex_prepare(x,
			     "SELECT event_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
			     "registers, static_smem, dynamic_smem, occupancy, blocks_per_sm, "
			     "warps_per_sm, coalesce(mangled_name_id, 0) FROM kernel_details "
			     "ORDER BY event_id",
			     &s->kd)) != TK_OK ||
	    (rc = ex_prepare(x,
			     "SELECT event_id, bytes, copy_kind, coalesce(src_mem_kind, 0), "
			     "coalesce(dst_mem_kind, 0), src_device_id, dst_device_id "
			     "FROM copy_details ORDER BY event_id",
			     &s->cd)) != TK_OK ||
	    (rc = ex_prepare(x,
			     "SELECT event_id, bytes, value, coalesce(mem_kind, 0) FROM set_details "
			     "ORDER BY event_id",
			     &s->sd)) != TK_OK ||
	    (rc = ex_prepare(x, "SELECT event_id, step_num FROM step_details ORDER BY event_id",
			     &s->st)) != TK_OK ||
	    (rc = ex_prepare(x,
			     "SELECT event_id, coalesce(hlo_op_id, 0), coalesce(hlo_module_id, 0), "
			     "program_id, coalesce(framework_op_id, 0), coalesce(op_category_id, 0), "
			     "flops, bytes_accessed FROM op_details ORDER BY event_id",
			     &s->od)) != TK_OK ||
	    (rc = ex_prepare(x, fo, &s->fo)) != TK_OK || (rc = ex_prepare(x, fi, &s->fi)) != TK_OK)
		return rc;
	if ((s->kd_ok = step(s, s->kd)) < 0 || (s->cd_ok = step(s, s->cd)) < 0 ||
	    (s->sd_ok = step(s, s->sd)) < 0 || (s->st_ok = step(s, s->st)) < 0 ||
	    (s->od_ok = step(s, s->od)) < 0 || (s->fo_ok = step(s, s->fo)) < 0 ||
	    (s->fi_ok = step(s, s->fi)) < 0)
		return TK_EFORMAT;
	s->kd_key = s->kd_ok ? sqlite3_column_int64(s->kd, 0) : INT64_MAX;
	s->cd_key = s->cd_ok ? sqlite3_column_int64(s->cd, 0) : INT64_MAX;
	s->sd_key = s->sd_ok ? sqlite3_column_int64(s->sd, 0) : INT64_MAX;
	s->st_key = s->st_ok ? sqlite3_column_int64(s->st, 0) : INT64_MAX;
	s->od_key = s->od_ok ? sqlite3_column_int64(s->od, 0) : INT64_MAX;
	s->last_fo = s->fo_ok ? sqlite3_column_int64(s->fo, 0) : 0;
	s->last_fi = s->fi_ok ? sqlite3_column_int64(s->fi, 0) : 0;
	return TK_OK;
}

void ex_scan_close(struct ex_scan *s)
{
	if (!s)
		return;
	sqlite3_stmt **all[] = {&s->ev, &s->kd, &s->cd, &s->sd, &s->st, &s->od, &s->fo, &s->fi};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		sqlite3_finalize(*all[i]);
		*all[i] = NULL;
	}
}

/* Move a detail cursor (current key *@key) to event @id; 1 when it is on @id's row. */
static int seek(struct ex_scan *s, sqlite3_stmt *st, int *ok, int64_t *key, int64_t id)
{
	while (*ok == 1 && *key < id) {
		if ((*ok = step(s, st)) < 0)
			return -1;
		*key = *ok == 1 ? sqlite3_column_int64(st, 0) : INT64_MAX;
	}
	return *ok == 1 && *key == id;
}

/* Collect the flows whose key column is @id into @f; EX_RESTART when keys go backwards. */
static int flows(struct ex_scan *s, sqlite3_stmt *st, int *ok, int64_t *last, int64_t id,
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
				f[*n].id = sqlite3_column_int64(st, 1);
				const char *kind = (const char *)sqlite3_column_text(st, 2);
				snprintf(f[*n].kind, sizeof(f[*n].kind), "%s", kind ? kind : "flow");
				(*n)++;
			} else {
				s->dropped_flows++;
			}
		}
		if ((*ok = step(s, st)) < 0)
			return -1;
		if (*ok == 1) {
			int64_t next = sqlite3_column_int64(st, 0);
			if (next < *last && !s->x->sorted_flows)
				return EX_RESTART;
			*last = next;
		}
	}
}

int ex_scan_next(struct ex_scan *s, struct ex_event *e)
{
	int r = step(s, s->ev);
	if (r <= 0)
		return r;
	sqlite3_stmt *ev = s->ev;
	e->id = sqlite3_column_int64(ev, 0);
	e->track_id = sqlite3_column_int64(ev, 1);
	e->kind = sqlite3_column_int(ev, 2);
	e->name_id = (uint32_t)sqlite3_column_int64(ev, 3);
	e->cat_id = (uint32_t)sqlite3_column_int64(ev, 4);
	e->ts = sqlite3_column_int64(ev, 5);
	e->dur = sqlite3_column_int64(ev, 6);
	e->corr = col_int(ev, 7);

	if ((e->has_kernel = seek(s, s->kd, &s->kd_ok, &s->kd_key, e->id)) < 0)
		return -1;
	if (e->has_kernel) {
		sqlite3_stmt *k = s->kd;
		for (int i = 0; i < 3; i++) {
			e->grid[i] = col_int(k, 1 + i);
			e->block[i] = col_int(k, 4 + i);
		}
		e->regs = col_int(k, 7);
		e->ssmem = col_int(k, 8);
		e->dsmem = col_int(k, 9);
		e->occ = col_real(k, 10);
		e->bps = col_real(k, 11);
		e->wps = col_real(k, 12);
		e->mangled_id = (uint32_t)sqlite3_column_int64(k, 13);
	}
	if ((e->has_copy = seek(s, s->cd, &s->cd_ok, &s->cd_key, e->id)) < 0)
		return -1;
	if (e->has_copy) {
		sqlite3_stmt *c = s->cd;
		e->bytes = sqlite3_column_int64(c, 1);
		e->copy_kind = sqlite3_column_int(c, 2);
		e->src_kind = sqlite3_column_int(c, 3);
		e->dst_kind = sqlite3_column_int(c, 4);
		e->src_dev = col_int(c, 5);
		e->dst_dev = col_int(c, 6);
	}
	if ((e->has_set = seek(s, s->sd, &s->sd_ok, &s->sd_key, e->id)) < 0)
		return -1;
	if (e->has_set) {
		e->bytes = sqlite3_column_int64(s->sd, 1);
		e->set_value = col_int(s->sd, 2);
		e->set_kind = sqlite3_column_int(s->sd, 3);
	}
	if ((e->has_step = seek(s, s->st, &s->st_ok, &s->st_key, e->id)) < 0)
		return -1;
	if (e->has_step)
		e->step_num = sqlite3_column_int64(s->st, 1);
	if ((e->has_op = seek(s, s->od, &s->od_ok, &s->od_key, e->id)) < 0)
		return -1;
	if (e->has_op) {
		sqlite3_stmt *o = s->od;
		e->hlo_op = (uint32_t)sqlite3_column_int64(o, 1);
		e->hlo_module = (uint32_t)sqlite3_column_int64(o, 2);
		e->program_id = col_int(o, 3);
		e->fw_op = (uint32_t)sqlite3_column_int64(o, 4);
		e->op_cat = (uint32_t)sqlite3_column_int64(o, 5);
		e->flops = col_int(o, 6);
		e->bytes_accessed = col_int(o, 7);
	}
	if ((r = flows(s, s->fo, &s->fo_ok, &s->last_fo, e->id, e->out, &e->nout)) != 0)
		return r;
	if ((r = flows(s, s->fi, &s->fi_ok, &s->last_fi, e->id, e->in, &e->nin)) != 0)
		return r;
	return 1;
}
