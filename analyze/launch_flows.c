/*
 * The store's launch flows (flows of kind 'launch': API call -> device op) read into memory,
 * sorted by source event id, so that a user of the shared event pass picks up each source as the
 * pass reaches it (events come in id order) instead of joining per flow. One reader for every
 * analysis that follows launches by flow (launch_stats.c; the timeline and op_gpu_time.c read
 * theirs inline and may move here).
 */
#include <stdlib.h>

#include "analyze_internal.h"

static int by_src(const void *pa, const void *pb)
{
	const struct tka_launch_flow *a = pa, *b = pb;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	return (a->dst > b->dst) - (a->dst < b->dst);
}

int tka_launch_flows(struct tka_ctx *c, struct tka_launch_flow **out, size_t *n)
{
	struct tka_launch_flow *v = NULL;
	sqlite3_stmt *st = NULL;
	size_t cap = 0, k = 0;
	int rc, step, sorted = 1;
	*out = NULL;
	*n = 0;
	rc = tka_prepare(c, "SELECT src_event_id, dst_event_id FROM flows WHERE kind = 'launch'",
			 &st);
	while (rc == TK_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (k == cap) {
			cap = cap ? 2 * cap : 4096;
			struct tka_launch_flow *p = realloc(v, cap * sizeof(*p));
			if (!p) {
				rc = tka_fail(c, TK_ENOMEM, "out of memory");
				break;
			}
			v = p;
		}
		v[k].src = sqlite3_column_int64(st, 0);
		v[k].dst = sqlite3_column_int64(st, 1);
		if (k > 0 && by_src(&v[k - 1], &v[k]) > 0)
			sorted = 0;
		k++;
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading launches: %s", sqlite3_errmsg(c->db));
	sqlite3_finalize(st);
	if (rc != TK_OK) {
		free(v);
		return rc;
	}
	if (!sorted)
		qsort(v, k, sizeof(*v), by_src);
	*out = v;
	*n = k;
	return TK_OK;
}
