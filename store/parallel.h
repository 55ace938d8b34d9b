/*
 * Filling one store from many producers at once (an interface of store/: import/import_files.c
 * uses it). Each producer (an importer on one input file) runs on a worker thread against a
 * recording writer; the calling thread replays the recordings into the real writer in producer
 * order, so that the store, the warnings and the first failure are those of calling the
 * producers one after the other on the real writer.
 */
#ifndef TK_STORE_PARALLEL_H
#define TK_STORE_PARALLEL_H

#include <stddef.h>
#include <tracekit/store.h>

/* Bytes of recording one producer may have waiting for the replay before it blocks. */
#define TKW_PIPE_BYTES ((size_t)32 << 20)

/* A warning callback (the shape of tk_import_options.warn). */
typedef void (*tkw_warn_fn)(void *ctx, const char *message);
/* Producer @i (from 0) writing to @w (a recorder, or with one job the real writer itself) and
 * its warnings to @warn(@warn_ctx). */
typedef int (*tkw_produce_fn)(void *ctx, size_t i, tk_writer *w, tkw_warn_fn warn, void *warn_ctx);

/**
 * tkw_parallel() - run producers 0..@n-1 with up to @jobs at a time and their calls replayed into
 * @w in order; at most @jobs producers are between start and replayed, each holding at most
 * TKW_PIPE_BYTES of recording. The producers' warnings reach @warn(@warn_ctx) in order.
 * @jobs <= 1 (or no thread to be had) calls the producers in order on @w itself. Stops at the first failure of @w (the
 * producers still running are stopped and waited for).
 * @return @w's status.
 */
int tkw_parallel(tk_writer *w, size_t n, int jobs, tkw_produce_fn produce, void *ctx,
		 tkw_warn_fn warn, void *warn_ctx);

#endif
