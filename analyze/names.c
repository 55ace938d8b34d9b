/*
 * Names by string id, each read from the store once: an analysis that writes a name on many rows
 * (idle gaps: the ops on either side of each gap and the synchronization that explains it; the op
 * performance model: the host ops' names) looks them up here instead of in the strings table
 * once a row (df_index_resolver: 66 k lookups of a few hundred names, 0.018 of its 0.18 s of
 * analysis).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"
#include "util/map.h"

/* One name: its id (the key) and its text, NULL when the row has none. */
struct name {
	int64_t id;
	char *s;
	int known; /* looked up */
};

void tka_names_init(struct tka_names *n)
{
	memset(n, 0, sizeof(*n));
	n->t = (struct tku_table)TKU_TABLE_INIT(struct name, 1);
}

void tka_names_free(struct tka_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->t.n; i++)
		free(((struct name *)tku_table_elem(&n->t, i))->s);
	tku_table_free(&n->t);
	sqlite3_finalize(n->q);
	n->q = NULL;
}

int tka_name(struct tka_ctx *c, struct tka_names *n, int64_t id, const char **out)
{
	int added = 0, rc = TK_OK;
	struct name *e = tku_table_at(&n->t, &id, &added);
	*out = NULL;
	if (!e)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	if (e->known) {
		*out = e->s;
		return TK_OK;
	}
	if (!n->q && (rc = tka_prepare(c, "SELECT str FROM strings WHERE id = ?1", &n->q)) != TK_OK)
		return rc;
	sqlite3_bind_int64(n->q, 1, id);
	int step = sqlite3_step(n->q);
	if (step == SQLITE_ROW && sqlite3_column_type(n->q, 0) != SQLITE_NULL) {
		const char *s = (const char *)sqlite3_column_text(n->q, 0);
		if (!s || !(e->s = strdup(s)))
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
	} else if (step != SQLITE_ROW && step != SQLITE_DONE) {
		rc = tka_fail(c, tka_sql_status(c), "reading strings: %s", sqlite3_errmsg(c->db));
	}
	sqlite3_reset(n->q); /* no read left open: a later DROP of a table needs none */
	e->known = rc == TK_OK;
	*out = e->s;
	return rc;
}
