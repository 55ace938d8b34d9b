/* What import/merge.c (stores into a job store) and import/merge_tables.c (the analysis tables
 * a job summary copies) share; private to import/. */
#ifndef TK_IMPORT_MERGE_INTERNAL_H
#define TK_IMPORT_MERGE_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>
#include <tracekit/error.h>
#include <tracekit/store.h>

/* An id map: old id (a row id of the input store) -> new id in the job store, TK_NONE where the
 * job store has no such row (a row the summary leaves out). */
struct mg_map {
	int64_t *v; /* dense: v[old id], for slots ids */
	int64_t slots;
	int64_t *keys; /* sparse (the summary's events): sorted old ids, their new ids in v */
	size_t n, cap;
};

/* One input store while it is merged. */
struct mg_in {
	const char *path;
	tk_store *s;
	sqlite3 *db;
	struct mg_map proc, dev, track, event;
	int is_summary;	     /* a job summary (meta job_summary): its events are kept as they are */
	int64_t series_base; /* analysis_memory.series_id offset of this input (merge_tables.c) */
	int64_t gap_base;    /* analysis_gaps.id offset of this input: the earlier inputs' gaps */
};

/* The new id of @id in @m, TK_NONE when absent or out of range. */
static inline int64_t mg_get(const struct mg_map *m, int64_t id)
{
	if (!m->keys)
		return id >= 0 && id < m->slots ? m->v[id] : TK_NONE;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->keys[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->keys[lo] == id ? m->v[lo] : TK_NONE;
}

/*
 * tkm_copy_analysis() - create the analysis tables in the finished store @db (opened read-write,
 * inside a transaction) and copy into them the rows of every input's analysis tables, with
 * device, process, track and event ids remapped (ids of rows the summary leaves out become NULL
 * where the column allows it). TK_OK or an error pushed on @err.
 */
int tkm_copy_analysis(sqlite3 *db, struct mg_in *in, size_t n, tk_error *err);

#endif
