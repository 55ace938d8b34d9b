/* Internal state of the store writer, shared by writer.c (lifecycle, rare records) and
 * writer_records.c (events and their details); not part of the public API. */
#ifndef TK_STORE_WRITER_INTERNAL_H
#define TK_STORE_WRITER_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>
#include <tracekit/error.h>
#include <tracekit/store.h>

#include "batch.h"
#include "intern.h"

struct tkw_rec;

/* The tables the writer fills, each through its batch (batch.h). */
enum {
	B_META,
	B_STRING,
	B_SOURCE,
	B_PROCESS,
	B_DEVICE,
	B_TRACK,
	B_EVENT,
	B_KERNEL,
	B_COPY,
	B_SET,
	B_OP,
	B_STEP,
	B_FLOW,
	B_COUNTER,
	B_MEMORY,
	B_ARG,
	B_COUNT
};

struct tk_writer {
	sqlite3 *db; /* open while the schema is created and again at finish, not in between */
	struct tks_pages pages;
	int pages_open;
	struct tks_batch batch[B_COUNT];
	char reindex[1024]; /* REINDEX statements for the indexes SQLite builds at finish */
	char *path;
	char *tmp_path;
	int tmp_fd; /* the temporary file, open (and locked, outfile.h) until renamed or removed */
	int status; /* first error, sticky */
	tk_error *err; /* its causes (tk_writer_error()) */
	struct tks_intern intern;
	int64_t n_events, n_processes, n_devices, n_tracks, n_memory, n_flows, n_sources;
	int64_t min_ts, max_end;
	struct tk_writer_stats stats;
	struct tkw_rec *rec; /* a recording writer (recorder.h) when set; NULL for a store's */
};

/* Record the first failure (sticky) with a message; returns the writer's status. */
int tkw_fail(tk_writer *w, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* tkw_fail() with the root cause @cause (from @module: "sqlite", "os") under the message. */
int tkw_fail_cause(tk_writer *w, int status, const char *module, const char *cause, const char *fmt,
		   ...) __attribute__((format(printf, 5, 6)));
/* Set a text cell of batch @which (NULL leaves it NULL); fails the writer when out of memory. */
int tkw_cell_text(tk_writer *w, int which, struct tks_cell *c, const char *s);
/* Fail with SQLite's message for @what. */
int tkw_fail_sql(tk_writer *w, const char *what);
/* Keep the row filled since tks_batch_row() in batch @which. */
int tkw_add_row(tk_writer *w, int which);
/* The writer's status, TK_EINVAL for NULL. */
int tkw_check_ready(tk_writer *w);
/* The id of @s in the writer's string table, *@added 1 when it is new there; 0 with the writer
 * failed (a NULL @s, no memory). */
uint32_t tkw_intern_find(tk_writer *w, const char *s, int *added);
/* Intern an optional string: 0 for NULL (and on failure, with the writer failed). */
uint32_t tkw_intern_opt(tk_writer *w, const char *s);
/* Fail unless @id is TK_NONE or an added process / device. */
int tkw_check_process(tk_writer *w, int64_t id, const char *what);
int tkw_check_device(tk_writer *w, int64_t id, const char *what);
/* 1 once this process's empty-store template exists (writer.c): tk_writer_create() then copies
 * it instead of creating the schema through SQLite. */
int tkw_template_ready(void);

#endif
