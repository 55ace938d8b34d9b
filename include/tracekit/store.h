/* The trace store: bulk writer (one transaction, atomic finish) and read-only access. */
#ifndef TRACEKIT_STORE_H
#define TRACEKIT_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Schema version written to PRAGMA user_version; newer stores are refused. */
#define TK_STORE_SCHEMA_VERSION 1

/* events.kind codes, the same as the rows of the event_kinds table in schemas/store.sql. */
enum tk_event_kind {
	TK_EV_HOST_OP = 1,
	TK_EV_RUNTIME_API = 2,
	TK_EV_DRIVER_API = 3,
	TK_EV_ANNOTATION = 4,
	TK_EV_KERNEL = 5,
	TK_EV_MEMCPY = 6,
	TK_EV_MEMSET = 7,
	TK_EV_XLA_OP = 8,
	TK_EV_XLA_MODULE = 9,
	TK_EV_FRAMEWORK_OP = 10,
	TK_EV_STEP = 11,
	TK_EV_SYNC = 12,
	TK_EV_PYTHON_FUNCTION = 13,
	TK_EV_OTHER = 14,
	TK_EV_ASYNC_XLA_OP = 15, /* in flight while other ops run: not device busy time */
};

/* copy_details.copy_kind codes (copy_kinds table). */
enum tk_copy_kind {
	TK_COPY_UNKNOWN,
	TK_COPY_H2D,
	TK_COPY_D2H,
	TK_COPY_D2D,
	TK_COPY_H2H,
	TK_COPY_P2P
};

/* memory kind codes (memory_kinds table). */
enum tk_mem_kind {
	TK_MEM_UNKNOWN,
	TK_MEM_PAGEABLE,
	TK_MEM_PINNED,
	TK_MEM_DEVICE,
	TK_MEM_MANAGED,
	TK_MEM_ARRAY
};

/* Track kinds. */
enum tk_track_kind { TK_TRACK_THREAD, TK_TRACK_STREAM, TK_TRACK_DERIVED, TK_TRACK_COUNTER };

/*
 * Optional integer fields use TK_NONE to mean "not known" (stored as NULL); optional strings
 * use NULL; optional reals use a negative value.
 */
#define TK_NONE INT64_MIN

typedef struct tk_writer tk_writer;
typedef struct tk_store tk_store;

struct tk_process_info {
	int64_t pid;	  /* OS process id, or TK_NONE */
	const char *name; /* process name, or NULL */
	const char *host; /* host name, or NULL */
	int64_t rank;	  /* distributed rank, or TK_NONE */
};

struct tk_device_info {
	int64_t ordinal;		/* device index on its host */
	const char *kind;		/* "gpu", "tpu", ... (NULL means "gpu") */
	const char *name;		/* product name, or NULL */
	const char *vendor;		/* "nvidia", "amd", "google", or NULL */
	const char *host;		/* host name, or NULL */
	int64_t process_id;		/* store process id that drove it, or TK_NONE */
	int64_t rank;			/* rank, or TK_NONE */
	const char *compute_capability; /* "9.0", "gfx942", or NULL */
	int64_t sm_count;		/* or TK_NONE */
	int64_t clock_hz;		/* or TK_NONE */
	int64_t memory_bytes;		/* or TK_NONE */
	int64_t memory_bandwidth_bps;	/* or TK_NONE */
	double peak_flops;		/* or < 0 */
	int64_t max_threads_per_sm, max_regs_per_sm, max_smem_per_sm; /* or TK_NONE */
};

struct tk_track_info {
	enum tk_track_kind kind;
	const char *name;   /* "python main thread", "Stream #7", "XLA Ops", ... or NULL */
	int64_t process_id; /* store process id, or TK_NONE */
	int64_t device_id;  /* store device id, or TK_NONE (host tracks) */
	int64_t tid;	    /* OS thread id, or TK_NONE */
	int64_t stream_id;  /* stream number, or TK_NONE */
	const char *unit;   /* counter unit, or NULL */
};

/* One interval. Either name or name_id (from tk_writer_intern) must be set. */
struct tk_event {
	int64_t track_id;
	enum tk_event_kind kind;
	const char *name;
	uint32_t name_id;     /* used when name is NULL */
	const char *category; /* or NULL */
	uint32_t category_id; /* used when category is NULL; 0 = none */
	int64_t ts_ns;
	int64_t dur_ns;		/* >= 0 */
	int64_t correlation_id; /* or TK_NONE */
};

struct tk_kernel_info {
	const char *mangled_name;		      /* or NULL */
	int64_t grid[3], block[3];		      /* each TK_NONE when unknown */
	int64_t registers, static_smem, dynamic_smem; /* or TK_NONE */
	double occupancy;			      /* 0..1, or < 0 */
	double blocks_per_sm, warps_per_sm;	      /* or < 0 */
	uint32_t
	    mangled_name_id; /* from tk_writer_intern(), used when mangled_name is NULL; 0 = none */
};

struct tk_copy_info {
	int64_t bytes;
	enum tk_copy_kind copy_kind;
	enum tk_mem_kind src_kind, dst_kind;
	int64_t src_device_id, dst_device_id; /* or TK_NONE */
};

struct tk_set_info {
	int64_t bytes;
	int64_t value; /* or TK_NONE */
	enum tk_mem_kind mem_kind;
};

struct tk_op_info {
	const char *hlo_op, *hlo_module, *framework_op, *op_category; /* each may be NULL */
	int64_t program_id, flops, bytes_accessed;		      /* each may be TK_NONE */
};

struct tk_memory_event {
	int64_t ts_ns;
	int is_free;	    /* 0 = alloc, 1 = free */
	int64_t device_id;  /* or TK_NONE for host memory */
	int64_t process_id; /* or TK_NONE */
	int64_t address;    /* or TK_NONE */
	int64_t bytes;	    /* > 0 */
	enum tk_mem_kind mem_kind;
	const char *allocator;		      /* or NULL */
	int64_t op_event_id;		      /* or TK_NONE */
	int64_t bytes_in_use, bytes_reserved; /* or TK_NONE */
	uint32_t allocator_id; /* from tk_writer_intern(), used when allocator is NULL; 0 = none */
	int64_t bytes_available, peak_bytes_in_use, requested_bytes; /* or TK_NONE */
	double fragmentation;					     /* 0..1, or < 0 */
	const char *op_name; /* name of the op that made it when there is no op_event_id, or NULL */
};

/* Counts of what a writer has appended so far. */
struct tk_writer_stats {
	int64_t events, kernels, memcpys, memsets, memory_events, counter_samples, flows, args,
	    strings;
};

/*
 * ---- writing ----
 * Every tk_writer_* call returns TK_OK or the writer's status: the first failure is sticky (later
 * calls do nothing and return it), and its causes are in tk_writer_error(). The ids written to
 * an @out_id (may be NULL) are the rows' ids in the store, to pass to later calls.
 */

/**
 * tk_writer_create() - start a new store at @path for bulk loading.
 * @param path  where the finished store will be; written as a temporary file beside it
 * @param out   OUT: the writer, to pass to tk_writer_finish() or tk_writer_abort()
 * @return TK_OK, or an error; on error *out may still hold a writer whose message says why
 *         (release it with tk_writer_abort()).
 */
int tk_writer_create(const char *path, tk_writer **out);

/**
 * tk_writer_error() - the writer's error: its status and causes (the first failure); empty while
 * none. Borrowed: valid until the writer is freed; a caller may push its own context onto it.
 */
tk_error *tk_writer_error(tk_writer *w);

/** tk_writer_errmsg() - tk_error_message() of tk_writer_error(): "" when none. */
const char *tk_writer_errmsg(const tk_writer *w);

/** tk_writer_status() - TK_OK, or the first error the writer met (failures are sticky). */
int tk_writer_status(const tk_writer *w);

/**
 * tk_writer_fail() - mark @w failed with @status (< 0) and a message, for callers (importers,
 * generators) that find a problem of their own; the first failure wins. Returns the writer's
 * status.
 */
int tk_writer_fail(tk_writer *w, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * tk_writer_fail_cause() - tk_writer_fail() with the root cause under the message: @cause
 * (SQLite's, the system's, a parser's message) from @module ("os", "json", ...), so that the
 * writer's error holds both ("'a.json': line 3, column 7" above "expected ':'").
 */
int tk_writer_fail_cause(tk_writer *w, int status, const char *module, const char *cause,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/**
 * tk_writer_fail_error() - tk_writer_fail() with the status and causes of @err (another call's
 * error, e.g. tk_import_detect()'s), so that the writer's error keeps them. Returns the
 * writer's status.
 */
int tk_writer_fail_error(tk_writer *w, const tk_error *err);

/**
 * tk_writer_temp_path() - the temporary file the writer loads into (beside the target), so that a
 * program can remove it from a signal handler; "" once finished or when there is none.
 */
const char *tk_writer_temp_path(const tk_writer *w);

/** tk_writer_intern() - the string id of @s (interned once), or 0 on error. */
uint32_t tk_writer_intern(tk_writer *w, const char *s);

/**
 * tk_writer_add_source() - record an input the store was made from: its @format (the importer's
 * name, "synth", ...; not NULL), @path, @host (each may be NULL) and @rank (or TK_NONE).
 */
int tk_writer_add_source(tk_writer *w, const char *format, const char *path, const char *host,
			 int64_t rank);

/** tk_writer_add_process() - add a process; @out_id receives its id for tracks and devices. */
int tk_writer_add_process(tk_writer *w, const struct tk_process_info *p, int64_t *out_id);

/** tk_writer_add_device() - add a device (its process id must be one added, or TK_NONE). */
int tk_writer_add_device(tk_writer *w, const struct tk_device_info *d, int64_t *out_id);

/** tk_writer_add_track() - add a track (thread, stream, derived or counter) events go on. */
int tk_writer_add_track(tk_writer *w, const struct tk_track_info *t, int64_t *out_id);

/** tk_writer_add_event() - append an interval; @out_id (may be NULL) receives its event id. */
int tk_writer_add_event(tk_writer *w, const struct tk_event *ev, int64_t *out_id);

/** tk_writer_add_kernel() - append a TK_EV_KERNEL interval with its launch details @k. */
int tk_writer_add_kernel(tk_writer *w, const struct tk_event *ev, const struct tk_kernel_info *k,
			 int64_t *out_id);

/** tk_writer_add_copy() - append a TK_EV_MEMCPY interval with its size and kinds @c. */
int tk_writer_add_copy(tk_writer *w, const struct tk_event *ev, const struct tk_copy_info *c,
		       int64_t *out_id);

/** tk_writer_add_set() - append a TK_EV_MEMSET interval with its size and value @s. */
int tk_writer_add_set(tk_writer *w, const struct tk_event *ev, const struct tk_set_info *s,
		      int64_t *out_id);

/** tk_writer_add_step() - append a TK_EV_STEP interval, the training step @step_num. */
int tk_writer_add_step(tk_writer *w, const struct tk_event *ev, int64_t step_num, int64_t *out_id);

/** tk_writer_add_op_details() - attach HLO/framework details @op to the added event @event_id. */
int tk_writer_add_op_details(tk_writer *w, int64_t event_id, const struct tk_op_info *op);

/**
 * tk_writer_add_flow() - link two added events; @kind (not NULL) is "launch" (an API call ->
 * its device work) or the source's own flow category.
 */
int tk_writer_add_flow(tk_writer *w, const char *kind, int64_t src_event_id, int64_t dst_event_id);

/** tk_writer_add_counter() - a sample @value at @ts_ns on the counter track @track_id. */
int tk_writer_add_counter(tk_writer *w, int64_t track_id, int64_t ts_ns, double value);

/** tk_writer_add_memory_event() - append an allocation or free (@m->is_free). */
int tk_writer_add_memory_event(tk_writer *w, const struct tk_memory_event *m);

/**
 * tk_writer_add_arg_int()/_real()/_text() - attach the argument @key = @value to the added
 * event @event_id (the trace's own args; a text @value NULL is stored as NULL).
 */
int tk_writer_add_arg_int(tk_writer *w, int64_t event_id, const char *key, int64_t value);
int tk_writer_add_arg_real(tk_writer *w, int64_t event_id, const char *key, double value);
int tk_writer_add_arg_text(tk_writer *w, int64_t event_id, const char *key, const char *value);

/** tk_writer_set_meta_text()/_int() - set a meta fact (replaces an earlier value). */
int tk_writer_set_meta_text(tk_writer *w, const char *key, const char *value);
int tk_writer_set_meta_int(tk_writer *w, const char *key, int64_t value);

/** tk_writer_get_stats() - what has been appended so far. */
void tk_writer_get_stats(const tk_writer *w, struct tk_writer_stats *out);

/**
 * tk_writer_finish() - build the indexes, record the trace bounds, commit, and rename the
 * temporary file onto the target path. On failure nothing is left at the target path (an
 * earlier file there is kept as it was). Always frees @w, so the writer's error (its causes)
 * is copied into @err (may be NULL; cleared on success).
 */
int tk_writer_finish(tk_writer *w, tk_error *err);

/** tk_writer_abort() - drop everything written and free @w (NULL is fine). */
void tk_writer_abort(tk_writer *w);

/* ---- reading ---- */

/*
 * How tk_store_open_mode() connects to a finished store. Every mode first checks the file on a
 * read-only connection: a store written by a newer tracekit (user_version above
 * TK_STORE_SCHEMA_VERSION) is refused with TK_EVERSION, a file that is not a tracekit store (or
 * not of the shapes of schemas/store.sql) gives TK_EFORMAT, so a foreign file is never written.
 * Each connection waits up to 5 s for a lock another process holds. Bulk writing is not a mode:
 * it is the writer (tk_writer_create()).
 */
enum tk_store_mode {
	/* Read-only (PRAGMA query_only), serialized: the handle may be shared between threads. */
	TK_STORE_READ,
	/* Read-only for one thread, without SQLite's mutex around every call: bulk readers that
	 * stream whole tables (the exporters). */
	TK_STORE_STREAM,
	/* Read-write for one thread, without the mutex, with an 8 MiB page cache (the reads are
	 * sequential): the analysis, which writes its tables inside a transaction it opens itself.
	 * A file that cannot be written is found by that transaction's BEGIN IMMEDIATE. */
	TK_STORE_READ_WRITE,
};

/**
 * tk_store_open_mode() - open a finished store in @mode (see enum tk_store_mode).
 * @param out  OUT: the handle; on error it may hold a handle with the error
 *             (tk_store_error()), to release with tk_store_close()
 * @return TK_OK, TK_EVERSION, TK_EFORMAT, TK_EIO, TK_EINVAL (an unknown mode) or TK_ENOMEM
 */
int tk_store_open_mode(const char *path, enum tk_store_mode mode, tk_store **out);

/** tk_store_open() - tk_store_open_mode(@path, TK_STORE_READ, @out): read-only. */
int tk_store_open(const char *path, tk_store **out);

/**
 * tk_store_error() - the store's error (status and causes) of the last failure on @s, empty
 * when none; NULL for NULL. Borrowed: valid until tk_store_close().
 */
tk_error *tk_store_error(tk_store *s);

/** tk_store_errmsg() - tk_error_message() of tk_store_error(): "" when none (NULL gives ""). */
const char *tk_store_errmsg(const tk_store *s);

/** tk_store_schema_version() - the store's user_version. */
int tk_store_schema_version(const tk_store *s);

/**
 * tk_store_meta_text() - a meta value as text in @buf (truncated to @len), TK_ENOTFOUND when
 * the key is absent.
 */
int tk_store_meta_text(tk_store *s, const char *key, char *buf, size_t len);

/** tk_store_close() - close @s (NULL is fine). */
void tk_store_close(tk_store *s);

/*
 * ---- SQLite escape hatch ----
 * The store is an SQLite file (docs/store.md documents its tables). A program that needs a query
 * the API does not offer may borrow the connection. It ties the caller to SQLite (link it, include
 * <sqlite3.h>) and to the store's schema, which is versioned (TK_STORE_SCHEMA_VERSION) but not
 * frozen: prefer the API where it suffices.
 */

/**
 * tk_store_sqlite() - the borrowed SQLite connection of @s, valid until tk_store_close(); NULL
 * for NULL: read-only (PRAGMA query_only) unless the store was opened TK_STORE_READ_WRITE.
 * Errors on it are SQLite's (sqlite3_errmsg()).
 */
struct sqlite3 *tk_store_sqlite(tk_store *s);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
