/*
 * The recording writer (private to store/): a tk_writer whose calls are appended as compact
 * records to chunks instead of rows, with provisional ids, and replayed later into a real writer
 * in the same order (ids mapped), so that the real writer sees the very call sequence it would
 * have seen directly. store/parallel.c runs importers against recorders on worker threads.
 */
#ifndef TK_STORE_RECORDER_H
#define TK_STORE_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/store.h>

/* A run of records; filled by one recorder, handed over whole, replayed and freed by another
 * thread. */
struct tkw_chunk {
	struct tkw_chunk *next;
	size_t len, cap;
	unsigned char data[];
};

/* Called by a recorder with each full chunk (and the last one by tkw_rec_flush()): takes the
 * chunk (always), may block (a bounded queue); returns 0, or -1 when the recording should stop
 * (the recorder then fails, so that the importer returns soon). */
typedef int (*tkw_chunk_sink)(void *ctx, struct tkw_chunk *c);

/* What a recorder holds beside the tk_writer fields it shares (status, error, intern, counts). */
struct tkw_rec {
	tkw_chunk_sink sink;
	void *sink_ctx;
	struct tkw_chunk *cur;
	int stopped; /* the sink said stop: nothing more is recorded */
};

/* Whether @w is a recorder: each public writer call starts by handing a recorder's to its hook. */
#define TKW_RECORDING(w) ((w) && (w)->rec)

/* Chunks are this large unless one record needs more. */
#define TKW_CHUNK_BYTES (256u << 10)

/**
 * tkw_rec_create() - a recording writer handing its chunks to @sink(@sink_ctx, chunk).
 * @return TK_OK or TK_ENOMEM (*out NULL).
 */
int tkw_rec_create(tkw_chunk_sink sink, void *sink_ctx, tk_writer **out);
/* tkw_rec_flush() - hand over the chunk being filled (if any): at the end of a recording. */
void tkw_rec_flush(tk_writer *w);
/* tkw_rec_free() - free a recorder and its chunk being filled (NULL is fine). */
void tkw_rec_free(tk_writer *w);
/* tkw_chunks_free() - free a list of chunks linked by next. */
void tkw_chunks_free(struct tkw_chunk *c);

/* The hooks of writer.c and writer_records.c: each public call on a recorder lands here. */
uint32_t tkw_rec_intern(tk_writer *w, const char *s);
int tkw_rec_source(tk_writer *w, const char *format, const char *path, const char *host,
		   int64_t rank);
int tkw_rec_process(tk_writer *w, const struct tk_process_info *p, int64_t *out_id);
int tkw_rec_device(tk_writer *w, const struct tk_device_info *d, int64_t *out_id);
int tkw_rec_track(tk_writer *w, const struct tk_track_info *t, int64_t *out_id);
int tkw_rec_event(tk_writer *w, const struct tk_event *ev, int64_t *out_id);
int tkw_rec_kernel(tk_writer *w, const struct tk_event *ev, const struct tk_kernel_info *k,
		   int64_t *out_id);
int tkw_rec_copy(tk_writer *w, const struct tk_event *ev, const struct tk_copy_info *c,
		 int64_t *out_id);
int tkw_rec_set(tk_writer *w, const struct tk_event *ev, const struct tk_set_info *s,
		int64_t *out_id);
int tkw_rec_step(tk_writer *w, const struct tk_event *ev, int64_t step_num, int64_t *out_id);
int tkw_rec_op_details(tk_writer *w, int64_t event_id, const struct tk_op_info *op);
int tkw_rec_flow(tk_writer *w, const char *kind, int64_t src, int64_t dst);
int tkw_rec_counter(tk_writer *w, int64_t track_id, int64_t ts_ns, double value);
int tkw_rec_memory(tk_writer *w, const struct tk_memory_event *m);
int tkw_rec_arg_int(tk_writer *w, int64_t event_id, const char *key, int64_t value);
int tkw_rec_arg_real(tk_writer *w, int64_t event_id, const char *key, double value);
int tkw_rec_arg_text(tk_writer *w, int64_t event_id, const char *key, const char *value);
int tkw_rec_meta_text(tk_writer *w, const char *key, const char *value);
int tkw_rec_meta_int(tk_writer *w, const char *key, int64_t value);
/* tkw_rec_warn() - record a warning of the recorded producer (@ctx: the recorder). */
void tkw_rec_warn(void *ctx, const char *message);

/* Replaying one recording into a real writer: the maps from provisional ids to real ones. */
struct tkw_replay {
	int64_t base_process, base_device, base_track, base_event; /* the real counts at start */
	int64_t n_process, n_device, n_track, n_event;		   /* provisional ids seen */
	uint32_t *strings; /* provisional string id - 1 -> real id */
	size_t n_strings, strings_cap;
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
};

/* tkw_replay_start() - start replaying a recording into @w (which has its earlier files). */
void tkw_replay_start(struct tkw_replay *r, const tk_writer *w,
		      void (*warn)(void *ctx, const char *message), void *warn_ctx);
/* tkw_replay_chunk() - replay chunk @c into @w: the real calls in order; stops at the first
 * failure of @w and returns its status. */
int tkw_replay_chunk(struct tkw_replay *r, tk_writer *w, const struct tkw_chunk *c);
/* tkw_replay_end() - the recording is over: @rec's own failure (an importer's) passed on to @w,
 * the maps freed; returns @w's status. */
int tkw_replay_end(struct tkw_replay *r, tk_writer *w, const tk_writer *rec);

#endif
