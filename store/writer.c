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
#include <stdatomic.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "store_internal.h"
#include "recorder.h"
#include "writer_internal.h"

static const struct {
	const char *table;
	int ncol;
} batch_tables[B_COUNT] = {
    [B_META] = {"meta", 2},
    [B_STRING] = {"strings", 2},
    [B_SOURCE] = {"sources", 5},
    [B_PROCESS] = {"processes", 6},
    [B_DEVICE] = {"devices", 18},
    [B_TRACK] = {"tracks", 8},
    [B_EVENT] = {"events", 8},
    [B_KERNEL] = {"kernel_details", 14},
    [B_COPY] = {"copy_details", 7},
    [B_SET] = {"set_details", 4},
    [B_OP] = {"op_details", 8},
    [B_STEP] = {"step_details", 2},
    [B_FLOW] = {"flows", 4},
    [B_COUNTER] = {"counters", 3},
    [B_MEMORY] = {"memory_records", 17},
    [B_ARG] = {"args", 3},
};

/* The first failure only (sticky): the cause @cause from @module (when not NULL), then the message
 * from @by: "store" for the writer's own, "" for a caller's (tk_writer_fail()). */
static int fail_v(tk_writer *w, int status, const char *module, const char *cause, const char *by,
		  const char *fmt, va_list ap)
{
	if (w->status == TK_OK) {
		if (cause)
			tk_error_push_from(w->err, module, status, "%s", cause);
		tk_error_vpush_from(w->err, by, status, fmt, ap);
		w->status = status;
	}
	return w->status;
}

int tkw_fail(tk_writer *w, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = fail_v(w, status, NULL, NULL, "store", fmt, ap);
	va_end(ap);
	return rc;
}

int tkw_fail_cause(tk_writer *w, int status, const char *module, const char *cause, const char *fmt,
		   ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = fail_v(w, status, module, cause, "store", fmt, ap);
	va_end(ap);
	return rc;
}

int tkw_fail_sql(tk_writer *w, const char *what)
{
	int code = sqlite3_errcode(w->db);
	int status = (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN ||
		      code == SQLITE_READONLY)
			 ? TK_EIO
			 : TK_EINTERNAL;
	return tkw_fail_cause(w, status, "sqlite", sqlite3_errmsg(w->db),
			      "cannot write store '%s' (%s)", w->path, what);
}

int tk_writer_status(const tk_writer *w)
{
	return w ? w->status : TK_EINVAL;
}

int tk_writer_fail(tk_writer *w, int status, const char *fmt, ...)
{
	if (!w)
		return TK_EINVAL;
	va_list ap;
	va_start(ap, fmt);
	int rc = fail_v(w, status < 0 ? status : TK_EINTERNAL, NULL, NULL, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int tk_writer_fail_cause(tk_writer *w, int status, const char *module, const char *cause,
			 const char *fmt, ...)
{
	if (!w)
		return TK_EINVAL;
	va_list ap;
	va_start(ap, fmt);
	int rc = fail_v(w, status < 0 ? status : TK_EINTERNAL, module, cause, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int tk_writer_fail_error(tk_writer *w, const tk_error *err)
{
	if (!w)
		return TK_EINVAL;
	if (w->status == TK_OK) {
		int status = tk_error_status(err);
		tk_error_copy(w->err, err);
		w->status = status < 0 ? status : TK_EINTERNAL;
	}
	return w->status;
}

tk_error *tk_writer_error(tk_writer *w)
{
	return w ? w->err : NULL;
}

const char *tk_writer_temp_path(const tk_writer *w)
{
	return w && w->tmp_path ? w->tmp_path : "";
}

const char *tk_writer_errmsg(const tk_writer *w)
{
	return w ? tk_error_message(w->err) : "";
}

static int exec(tk_writer *w, const char *sql, const char *what)
{
	if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return tkw_fail_sql(w, what);
	return TK_OK;
}

/* Keep the row filled since tks_batch_row() in batch @which. */
int tkw_add_row(tk_writer *w, int which)
{
	int sys_errno;
	struct tks_batch *b = &w->batch[which];
	int rc = tks_batch_add(b, &sys_errno);
	if (rc == SQLITE_OK)
		return TK_OK;
	int status = rc == SQLITE_NOMEM	       ? TK_ENOMEM
		     : rc == SQLITE_IOERR      ? TK_EIO
		     : rc == SQLITE_CONSTRAINT ? TK_EINVAL
					       : TK_EINTERNAL;
	return tkw_fail_cause(w, status, "store", b->err, "cannot write store '%s' (%s)", w->path,
			      b->table);
}

int tkw_cell_text(tk_writer *w, int which, struct tks_cell *c, const char *s)
{
	if (s && tks_batch_text(&w->batch[which], c, s) != SQLITE_OK)
		return tkw_fail(w, TK_ENOMEM, "out of memory");
	return w->status;
}

uint32_t tkw_intern_find(tk_writer *w, const char *s, int *added)
{
	if (!w || w->status != TK_OK)
		return 0;
	if (!s) {
		tkw_fail(w, TK_EINVAL, "cannot intern a NULL string");
		return 0;
	}
	uint32_t id = tks_intern_lookup(&w->intern, s, strlen(s), added);
	if (!id)
		tkw_fail(w, TK_ENOMEM, "out of memory interning strings for store '%s'",
			 w->path ? w->path : "(a recording)");
	return id;
}

uint32_t tk_writer_intern(tk_writer *w, const char *s)
{
	if (TKW_RECORDING(w))
		return tkw_rec_intern(w, s);
	int added;
	uint32_t id = tkw_intern_find(w, s, &added);
	if (!id)
		return 0;
	if (added) {
		struct tks_cell *row = tks_batch_row(&w->batch[B_STRING]);
		tks_cell_int(&row[0], id);
		if (tkw_cell_text(w, B_STRING, &row[1], s) != TK_OK ||
		    tkw_add_row(w, B_STRING) != TK_OK)
			return 0;
		w->stats.strings++;
	}
	return id;
}

/* Intern an optional string: 0 for NULL, 0 with the writer failed on error. */
uint32_t tkw_intern_opt(tk_writer *w, const char *s)
{
	return s ? tk_writer_intern(w, s) : 0;
}

int tkw_check_ready(tk_writer *w)
{
	if (!w)
		return TK_EINVAL;
	return w->status;
}

/* Keys per index held in memory before a sorted run goes to disk (32 bytes each). */
#define TK_INDEX_RUN_KEYS (256 * 1024)

/* Who builds each index of the schema: the writer (index.h) or SQLite at finish (REINDEX). */
static int plan_indexes(tk_writer *w)
{
	sqlite3_stmt *st = NULL;
	int rc = TK_OK;
	size_t len = 0;
	if (sqlite3_prepare_v2(w->db,
			       "SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index'"
			       " AND name NOT LIKE 'sqlite_autoindex_%' ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		return tkw_fail_sql(w, "indexes");
	while (rc == TK_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *table = (const char *)sqlite3_column_text(st, 1);
		for (int i = 0; i < B_COUNT; i++) {
			struct tks_batch *b = &w->batch[i];
			int by_writer;
			if (strcmp(b->table, table) != 0)
				continue;
			if (tks_batch_plan_index(b, w->db, name, &by_writer) != SQLITE_OK)
				rc = tkw_fail_cause(w, TK_EINTERNAL, "store", b->err,
						    "cannot create store '%s'", w->path);
			else if (!by_writer) {
				int n = snprintf(w->reindex + len, sizeof(w->reindex) - len,
						 "REINDEX %s;", name);
				if (n < 0 || (size_t)n >= sizeof(w->reindex) - len)
					rc = tkw_fail(w, TK_EINTERNAL, "too many indexes");
				else
					len += (size_t)n;
			}
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* The schema through SQLite into the new (empty) temporary file, the tables described and the
 * indexes planned; SQLite closed again, the file's geometry in *@page_size and *@page_count. */
static int create_schema(tk_writer *w, uint32_t *page_size, uint32_t *page_count)
{
	int rc = TK_OK;
	char *schema = NULL;
	sqlite3_stmt *st = NULL;
	int64_t ps = 0, pc = 0;
	if (sqlite3_open_v2(w->tmp_path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		rc = tkw_fail_cause(w, TK_EIO, "sqlite",
				    w->db ? sqlite3_errmsg(w->db) : "out of memory",
				    "cannot create store '%s'", w->path);
		goto out;
	}
	if ((rc = exec(w,
		       "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF;"
		       "PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
		       "PRAGMA cache_size = -8192;",
		       "settings")) != TK_OK)
		goto out;
	if ((rc = exec(w, "BEGIN", "begin")) != TK_OK)
		goto out;
	schema = strdup(tks_schema_sql);
	if (!schema) {
		rc = tkw_fail(w, TK_ENOMEM, "out of memory");
		goto out;
	}
	/* the indexes too, empty: the writer fills those it can build (index.h), SQLite the rest */
	if ((rc = exec(w, schema, "schema")) != TK_OK)
		goto out;
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", TK_STORE_SCHEMA_VERSION);
	if ((rc = exec(w, sql, "schema version")) != TK_OK ||
	    (rc = exec(w, "COMMIT", "commit")) != TK_OK)
		goto out;
	for (int i = 0; i < B_COUNT; i++) {
		if (tks_batch_describe(&w->batch[i], w->db, batch_tables[i].table,
				       batch_tables[i].ncol) != SQLITE_OK) {
			rc = tkw_fail_cause(w, TK_EINTERNAL, "store", w->batch[i].err,
					    "cannot create store '%s'", w->path);
			goto out;
		}
	}
	w->batch[B_META].conflict = "OR REPLACE";
	if ((rc = plan_indexes(w)) != TK_OK)
		goto out;
	if (sqlite3_prepare_v2(
		w->db, "SELECT page_size, page_count FROM pragma_page_size, pragma_page_count", -1,
		&st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		ps = sqlite3_column_int64(st, 0);
		pc = sqlite3_column_int64(st, 1);
	}
	if (ps <= 0 || ps > 65536 || pc <= 0 || pc > INT32_MAX) {
		rc = tkw_fail_sql(w, "page count");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_close(w->db) != SQLITE_OK) {
		rc = tkw_fail_sql(w, "close");
		goto out;
	}
	w->db = NULL;
	*page_size = (uint32_t)ps;
	*page_count = (uint32_t)pc;
out:
	sqlite3_finalize(st);
	free(schema);
	return rc;
}

/*
 * The empty store, made once per process: a lazily computed constant, not mutable state. The
 * first tk_writer_create() of a process builds the schema through SQLite (create_schema); the
 * file it leaves (page_size x page_count bytes, right after the schema's commit), with the table
 * descriptions and the REINDEX list, becomes the template, published once (compare-and-swap: a
 * writer that loses a race of first creations drops its copy) and never changed or freed (a
 * reachable static). Later writers write the image into their temporary file (its non-zero
 * blocks; the rest stays a hole, which reads as zeros) and copy the descriptions instead of running the DDL: the same bytes, without SQLite parsing the schema
 * (about 80% of importing a small trace). When it cannot be made, writers keep using SQLite.
 */
struct tkw_extent {
	uint32_t off, len;
};

struct tkw_template {
	uint32_t page_size, page_count;
	unsigned char *image;
	struct tkw_extent *ext; /* the image's blocks that hold a non-zero byte, merged into runs */
	uint32_t next;
	struct tks_batch batch[B_COUNT]; /* descriptions only (tks_batch_copy_description) */
	char reindex[sizeof(((struct tk_writer *)0)->reindex)];
};

/* The largest image kept (the schema's empty store is a few hundred KiB). */
#define TKW_TEMPLATE_MAX_BYTES (16u << 20)

/* Granule of the template's extents: a temporary file gets the image's non-zero blocks of this
 * size and holes elsewhere (an empty table's root page is a header and zeros). */
#define TKW_BLOCK 512u

/* The runs of TKW_BLOCK-byte blocks of @t's image that are not all zero; 0, or ENOMEM. */
static int template_extents(struct tkw_template *t, size_t len)
{
	size_t nblocks = (len + TKW_BLOCK - 1) / TKW_BLOCK;
	t->ext = malloc(((nblocks + 1) / 2 + 1) * sizeof(*t->ext));
	if (!t->ext)
		return ENOMEM;
	t->next = 0;
	for (size_t b = 0; b < nblocks; b++) {
		size_t off = b * TKW_BLOCK, n = len - off < TKW_BLOCK ? len - off : TKW_BLOCK;
		size_t k = 0;
		while (k < n && !t->image[off + k])
			k++;
		if (k == n)
			continue;
		if (t->next && t->ext[t->next - 1].off + t->ext[t->next - 1].len == off)
			t->ext[t->next - 1].len += (uint32_t)n;
		else
			t->ext[t->next++] = (struct tkw_extent){(uint32_t)off, (uint32_t)n};
	}
	return 0;
}

static _Atomic(struct tkw_template *) the_template;

int tkw_template_ready(void)
{
	return atomic_load(&the_template) != NULL;
}

/* Make the template from @w, whose temporary file holds the empty store SQLite just wrote. */
static void template_keep(const tk_writer *w, uint32_t page_size, uint32_t page_count)
{
	uint64_t len = (uint64_t)page_size * page_count;
	struct tkw_template *t = NULL, *none = NULL;
	struct stat sb;
	size_t got = 0;
	if (atomic_load(&the_template) || len > TKW_TEMPLATE_MAX_BYTES ||
	    fstat(w->tmp_fd, &sb) != 0 || (uint64_t)sb.st_size != len ||
	    !(t = calloc(1, sizeof(*t))) || !(t->image = malloc((size_t)len)))
		goto out;
	while (got < len) {
		ssize_t n = pread(w->tmp_fd, t->image + got, (size_t)len - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	t->page_size = page_size;
	t->page_count = page_count;
	if (template_extents(t, (size_t)len) != 0)
		goto out;
	for (int i = 0; i < B_COUNT; i++)
		tks_batch_copy_description(&t->batch[i], &w->batch[i]);
	memcpy(t->reindex, w->reindex, sizeof(t->reindex));
	if (atomic_compare_exchange_strong(&the_template, &none, t))
		t = NULL;
out:
	if (t) {
		free(t->image);
		free(t->ext);
	}
	free(t);
}

/* The empty store from template @t: its image written into the (empty) temporary file, the
 * tables described; *@page_size and *@page_count as create_schema() gives them. */
static int create_from_template(tk_writer *w, const struct tkw_template *t, uint32_t *page_size,
				uint32_t *page_count)
{
	size_t len = (size_t)t->page_size * t->page_count;
	int e = ftruncate(w->tmp_fd, (off_t)len) != 0 ? errno : 0;
	for (uint32_t i = 0; i < t->next && !e; i++) {
		const struct tkw_extent *x = &t->ext[i];
		size_t done = 0;
		while (done < x->len && !e) {
			ssize_t n = pwrite(w->tmp_fd, t->image + x->off + done, x->len - done,
					   (off_t)(x->off + done));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				e = n < 0 ? errno : EIO;
			else
				done += (size_t)n;
		}
	}
	if (e)
		return tkw_fail_cause(w, e == ENOMEM ? TK_ENOMEM : TK_EIO, "os", strerror(e),
				      "cannot create store '%s'", w->path);
	for (int i = 0; i < B_COUNT; i++)
		tks_batch_copy_description(&w->batch[i], &t->batch[i]);
	memcpy(w->reindex, t->reindex, sizeof(w->reindex));
	*page_size = t->page_size;
	*page_count = t->page_count;
	return TK_OK;
}

int tk_writer_create(const char *path, tk_writer **out)
{
	int rc = TK_OK;
	*out = NULL;
	if (!path || !*path)
		return TK_EINVAL;
	tk_writer *w = calloc(1, sizeof(*w));
	if (w && !(w->err = tk_error_new())) {
		free(w);
		w = NULL;
	}
	if (!w)
		return TK_ENOMEM;
	*out = w;
	tks_intern_init(&w->intern);
	w->min_ts = INT64_MAX;
	w->max_end = INT64_MIN;
	w->tmp_fd = -1;
	w->path = strdup(path);
	if (!w->path) {
		rc = tkw_fail(w, TK_ENOMEM, "out of memory");
		goto out;
	}
	int e = tko_tmp_create(path, &w->tmp_path, &w->tmp_fd);
	if (e) {
		rc = tkw_fail_cause(w, e == ENOMEM ? TK_ENOMEM : TK_EIO, "os", strerror(e),
				    "cannot create store '%s'", path);
		goto out;
	}
	uint32_t page_size = 0, page_count = 0;
	const struct tkw_template *t = atomic_load(&the_template);
	if (t)
		rc = create_from_template(w, t, &page_size, &page_count);
	else if ((rc = create_schema(w, &page_size, &page_count)) == TK_OK)
		template_keep(w, page_size, page_count);
	if (rc != TK_OK)
		goto out;
	/* From here until finish the tables' pages are written directly (pages.h). */
	int err = tks_pages_open(&w->pages, w->tmp_path, page_size, page_count);
	w->pages_open = 1;
	char *dir = strdup(w->tmp_path);
	if (!dir && !err)
		err = ENOMEM;
	const char *tmp_dir = dir ? dirname(dir) : NULL; /* once: dirname() may change @dir */
	for (int i = 0; i < B_COUNT && !err; i++)
		err = tks_batch_start(&w->batch[i], &w->pages, tmp_dir, TK_INDEX_RUN_KEYS);
	free(dir);
	if (err) {
		rc = tkw_fail_cause(w, err == ENOMEM ? TK_ENOMEM : TK_EIO, "os", strerror(err),
				    "cannot create store '%s'", path);
		goto out;
	}
	if ((rc = tk_writer_set_meta_int(w, "schema_version", TK_STORE_SCHEMA_VERSION)) != TK_OK)
		goto out;
	rc = tk_writer_set_meta_text(w, "tracekit_version", tk_version());
out:
	return rc;
}

static void release(tk_writer *w, int remove_tmp)
{
	if (w->rec) {
		tkw_rec_free(w);
		return;
	}
	for (int i = 0; i < B_COUNT; i++)
		tks_batch_free(&w->batch[i]);
	if (w->pages_open)
		tks_pages_close(&w->pages);
	sqlite3_close_v2(w->db);
	if (remove_tmp && w->tmp_path && w->tmp_path[0])
		unlink(w->tmp_path);
	if (w->tmp_fd >= 0) /* after the removal: the lock guards the temporary until it is gone */
		close(w->tmp_fd);
	tks_intern_free(&w->intern);
	free(w->path);
	free(w->tmp_path);
	tk_error_free(w->err);
	free(w);
}

void tk_writer_abort(tk_writer *w)
{
	if (w)
		release(w, 1);
}

int tk_writer_set_meta_text(tk_writer *w, const char *key, const char *value)
{
	if (TKW_RECORDING(w))
		return tkw_rec_meta_text(w, key, value);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (!key || !value)
		return tkw_fail(w, TK_EINVAL, "meta key and value must not be NULL");
	struct tks_cell *row = tks_batch_row(&w->batch[B_META]);
	if (tkw_cell_text(w, B_META, &row[0], key) != TK_OK ||
	    tkw_cell_text(w, B_META, &row[1], value) != TK_OK)
		return w->status;
	return tkw_add_row(w, B_META);
}

int tk_writer_set_meta_int(tk_writer *w, const char *key, int64_t value)
{
	if (TKW_RECORDING(w))
		return tkw_rec_meta_int(w, key, value);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (!key)
		return tkw_fail(w, TK_EINVAL, "meta key must not be NULL");
	struct tks_cell *row = tks_batch_row(&w->batch[B_META]);
	if (tkw_cell_text(w, B_META, &row[0], key) != TK_OK)
		return w->status;
	tks_cell_int(&row[1], value);
	return tkw_add_row(w, B_META);
}

int tk_writer_add_source(tk_writer *w, const char *format, const char *path, const char *host,
			 int64_t rank)
{
	if (TKW_RECORDING(w))
		return tkw_rec_source(w, format, path, host, rank);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (!format)
		return tkw_fail(w, TK_EINVAL, "source format must not be NULL");
	struct tks_cell *row = tks_batch_row(&w->batch[B_SOURCE]);
	tks_cell_int(&row[0], w->n_sources + 1);
	if (tkw_cell_text(w, B_SOURCE, &row[1], format) != TK_OK ||
	    tkw_cell_text(w, B_SOURCE, &row[2], path) != TK_OK ||
	    tkw_cell_text(w, B_SOURCE, &row[3], host) != TK_OK)
		return w->status;
	tks_cell_opt_int(&row[4], rank);
	if ((rc = tkw_add_row(w, B_SOURCE)) == TK_OK)
		w->n_sources++;
	return rc;
}

int tk_writer_add_process(tk_writer *w, const struct tk_process_info *p, int64_t *out_id)
{
	if (TKW_RECORDING(w))
		return tkw_rec_process(w, p, out_id);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	uint32_t name = tkw_intern_opt(w, p->name), host = tkw_intern_opt(w, p->host);
	if (w->status != TK_OK)
		return w->status;
	int64_t id = w->n_processes + 1;
	struct tks_cell *row = tks_batch_row(&w->batch[B_PROCESS]);
	tks_cell_int(&row[0], id);
	tks_cell_opt_int(&row[1], p->pid);
	tks_cell_str_id(&row[2], name);
	tks_cell_str_id(&row[3], host);
	tks_cell_opt_int(&row[4], p->rank);
	tks_cell_opt_int(&row[5], w->n_sources ? w->n_sources : TK_NONE);
	if ((rc = tkw_add_row(w, B_PROCESS)) != TK_OK)
		return rc;
	w->n_processes = id;
	if (out_id)
		*out_id = id;
	return TK_OK;
}

int tkw_check_process(tk_writer *w, int64_t id, const char *what)
{
	if (id != TK_NONE && (id < 1 || id > w->n_processes))
		return tkw_fail(w, TK_EINVAL, "%s refers to process %lld, which was not added",
				what, (long long)id);
	return TK_OK;
}

int tkw_check_device(tk_writer *w, int64_t id, const char *what)
{
	if (id != TK_NONE && (id < 0 || id >= w->n_devices))
		return tkw_fail(w, TK_EINVAL, "%s refers to device %lld, which was not added", what,
				(long long)id);
	return TK_OK;
}

int tk_writer_add_device(tk_writer *w, const struct tk_device_info *d, int64_t *out_id)
{
	if (TKW_RECORDING(w))
		return tkw_rec_device(w, d, out_id);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	if ((rc = tkw_check_process(w, d->process_id, "device")) != TK_OK)
		return rc;
	uint32_t name = tkw_intern_opt(w, d->name), host = tkw_intern_opt(w, d->host);
	if (w->status != TK_OK)
		return w->status;
	int64_t id = w->n_devices;
	struct tks_cell *row = tks_batch_row(&w->batch[B_DEVICE]);
	tks_cell_int(&row[0], id);
	tks_cell_int(&row[1], d->ordinal);
	if (tkw_cell_text(w, B_DEVICE, &row[2], d->kind ? d->kind : "gpu") != TK_OK ||
	    tkw_cell_text(w, B_DEVICE, &row[4], d->vendor) != TK_OK ||
	    tkw_cell_text(w, B_DEVICE, &row[8], d->compute_capability) != TK_OK)
		return w->status;
	tks_cell_str_id(&row[3], name);
	tks_cell_str_id(&row[5], host);
	tks_cell_opt_int(&row[6], d->process_id);
	tks_cell_opt_int(&row[7], d->rank);
	tks_cell_opt_int(&row[9], d->sm_count);
	tks_cell_opt_int(&row[10], d->clock_hz);
	tks_cell_opt_int(&row[11], d->memory_bytes);
	tks_cell_opt_int(&row[12], d->memory_bandwidth_bps);
	if (d->peak_flops == d->peak_flops) /* NaN means unknown, like a negative value */
		tks_cell_opt_real(&row[13], d->peak_flops);
	tks_cell_opt_int(&row[14], d->max_threads_per_sm);
	tks_cell_opt_int(&row[15], d->max_regs_per_sm);
	tks_cell_opt_int(&row[16], d->max_smem_per_sm);
	tks_cell_opt_int(&row[17], w->n_sources ? w->n_sources : TK_NONE);
	if ((rc = tkw_add_row(w, B_DEVICE)) != TK_OK)
		return rc;
	w->n_devices++;
	if (out_id)
		*out_id = id;
	return TK_OK;
}

int tk_writer_add_track(tk_writer *w, const struct tk_track_info *t, int64_t *out_id)
{
	static const char *const kinds[] = {"thread", "stream", "derived", "counter"};
	if (TKW_RECORDING(w))
		return tkw_rec_track(w, t, out_id);
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	if ((unsigned)t->kind > TK_TRACK_COUNTER)
		return tkw_fail(w, TK_EINVAL,
				"track kind %d is not one of thread, stream, derived, counter",
				(int)t->kind);
	if ((rc = tkw_check_process(w, t->process_id, "track")) != TK_OK ||
	    (rc = tkw_check_device(w, t->device_id, "track")) != TK_OK)
		return rc;
	uint32_t name = tkw_intern_opt(w, t->name);
	if (w->status != TK_OK)
		return w->status;
	int64_t id = w->n_tracks + 1;
	struct tks_cell *row = tks_batch_row(&w->batch[B_TRACK]);
	tks_cell_int(&row[0], id);
	if (tkw_cell_text(w, B_TRACK, &row[1], kinds[t->kind]) != TK_OK ||
	    tkw_cell_text(w, B_TRACK, &row[7], t->unit) != TK_OK)
		return w->status;
	tks_cell_str_id(&row[2], name);
	tks_cell_opt_int(&row[3], t->process_id);
	tks_cell_opt_int(&row[4], t->device_id);
	tks_cell_opt_int(&row[5], t->tid);
	tks_cell_opt_int(&row[6], t->stream_id);
	if ((rc = tkw_add_row(w, B_TRACK)) != TK_OK)
		return rc;
	w->n_tracks = id;
	if (out_id)
		*out_id = id;
	return TK_OK;
}

void tk_writer_get_stats(const tk_writer *w, struct tk_writer_stats *out)
{
	if (w)
		*out = w->stats;
	else
		memset(out, 0, sizeof(*out));
}

/* Pages, then through SQLite: kept rows, trace bounds, indexes; commit, close, rename. */
static int finish(tk_writer *w)
{
	int rc = tkw_check_ready(w);
	if (rc != TK_OK)
		return rc;
	if (w->rec)
		return tkw_fail(w, TK_EINVAL, "a recording writer is replayed, not finished");
	int err = 0;
	for (int i = 0; i < B_COUNT && !err; i++)
		err = tks_batch_finish_pages(&w->batch[i]);
	int cerr = tks_pages_close(&w->pages);
	w->pages_open = 0;
	if (err || cerr)
		return tkw_fail_cause(w, TK_EIO, "os", strerror(err ? err : cerr),
				      "cannot write store '%s'", w->path);
	if (sqlite3_open_v2(w->tmp_path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		return tkw_fail_cause(w, TK_EIO, "sqlite",
				      w->db ? sqlite3_errmsg(w->db) : "out of memory",
				      "cannot write store '%s'", w->path);
	if ((rc = exec(w,
		       "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
		       "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -8192; BEGIN",
		       "settings")) != TK_OK)
		return rc;
	for (int i = 0; i < B_COUNT; i++)
		if (tks_batch_flush_sql(&w->batch[i], w->db) != SQLITE_OK)
			return tkw_fail_cause(w, TK_EINVAL, "store", w->batch[i].err,
					      "cannot write store '%s'", w->path);
	if (w->min_ts <= w->max_end) {
		char sql[160];
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO meta VALUES ('trace_start_ns', %lld),"
			 " ('trace_end_ns', %lld)",
			 (long long)w->min_ts, (long long)w->max_end);
		if ((rc = exec(w, sql, "trace bounds")) != TK_OK)
			return rc;
	}
	if (w->reindex[0] && (rc = exec(w, w->reindex, "indexes")) != TK_OK)
		return rc;
	if ((rc = exec(w, "COMMIT", "commit")) != TK_OK)
		return rc;
	if (sqlite3_close(w->db) != SQLITE_OK)
		return tkw_fail_sql(w, "close");
	w->db = NULL;
	int e = tko_tmp_commit(w->tmp_fd, w->tmp_path, w->path);
	if (e)
		return tkw_fail_cause(w, TK_EIO, "os", strerror(e), "cannot write store '%s'",
				      w->path);
	w->tmp_path[0] = '\0';
	return TK_OK;
}

int tk_writer_finish(tk_writer *w, tk_error *err)
{
	tk_error_clear(err);
	if (!w)
		return tk_error_push_from(err, "store", TK_EINVAL, "no writer");
	int rc = finish(w);
	if (rc != TK_OK)
		tk_error_copy(err, w->err);
	release(w, rc != TK_OK);
	return rc;
}
