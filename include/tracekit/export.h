/* Exporters: a store into files other viewers open (XPlane logdir, Perfetto protobuf, Chrome JSON). */
#ifndef TRACEKIT_EXPORT_H
#define TRACEKIT_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum tk_export_format {
	TK_EXPORT_XPLANE,   /* LOGDIR/plugins/profile/<run>/<host>.xplane.pb, one file per host */
	TK_EXPORT_PERFETTO, /* native Perfetto TrackEvent protobuf (.pftrace) */
	TK_EXPORT_CHROME,   /* Chrome Trace Event Format JSON, gzip when the name ends in .gz */
};

struct tk_export_options {
	enum tk_export_format format;
	const char
	    *run; /* xplane: the run directory name; NULL = a timestamp (2026_11_22_10_00_00) */
};

/* What an export wrote. */
struct tk_export_stats {
	int64_t events;	       /* slices (intervals) written */
	int64_t flows;	       /* flows written */
	int64_t counters;      /* counter samples written */
	int64_t memory_events; /* allocation/free records written */
	int64_t files;	       /* files written */
	int64_t bytes;	       /* bytes written (compressed size for .gz) */
};

typedef struct tk_exporter tk_exporter;

/** tk_export_format_parse() - "xplane", "perfetto" or "chrome" into @out; TK_EINVAL otherwise. */
int tk_export_format_parse(const char *name, enum tk_export_format *out);

/** tk_export_options_init() - format perfetto, run NULL. */
void tk_export_options_init(struct tk_export_options *o);

/**
 * tk_exporter_create() - a new exporter (owned: free with tk_exporter_destroy()).
 * @return TK_OK or TK_ENOMEM.
 */
int tk_exporter_create(tk_exporter **out);

/**
 * tk_exporter_run() - export the store at @store_path to @out_path (a file, or for XPlane the
 * logdir). Every file is written under a temporary name beside its target and renamed into place
 * only when complete: a failure leaves nothing half-written (an earlier file stays as it was).
 * Memory stays bounded whatever the store's size (streamed; XPlane holds one plane's metadata).
 * @return TK_OK; TK_EIO / TK_EFORMAT / TK_EVERSION when the store cannot be read or is not a
 *         tracekit store (the message names the file), TK_EIO when the output cannot be
 *         written, TK_EINVAL for bad options. The causes are in tk_exporter_error().
 */
int tk_exporter_run(tk_exporter *x, const char *store_path, const char *out_path,
		    const struct tk_export_options *o);

/**
 * tk_exporter_error() - the error (status and causes) of the last run of @x, empty when it
 * succeeded; NULL for NULL. Borrowed: valid until the next run or tk_exporter_destroy().
 */
tk_error *tk_exporter_error(tk_exporter *x);

/** tk_exporter_errmsg() - tk_error_message() of tk_exporter_error(): "" when none. */
const char *tk_exporter_errmsg(const tk_exporter *x);

/** tk_exporter_stats() - what the last successful run wrote (zeros before). */
void tk_exporter_stats(const tk_exporter *x, struct tk_export_stats *out);

/**
 * tk_exporter_output() - the path of what the last run wrote: the file, or for XPlane the run
 * directory (LOGDIR/plugins/profile/<run>); "" before. Borrowed, valid until the next run.
 */
const char *tk_exporter_output(const tk_exporter *x);

/** tk_exporter_destroy() - free @x (NULL is fine). */
void tk_exporter_destroy(tk_exporter *x);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
