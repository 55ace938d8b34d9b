/*
 * The CUPTI activity record decoder: completed CUPTI activity buffers (CUDA 13 record layouts)
 * into store rows through the writer API. Separate from the injection library so that tests
 * can feed it hand-built buffers with no GPU (cuptiActivityGetNextRecord works without one).
 * Not thread-safe: one decoder per writer, calls serialized by the caller.
 */
#ifndef TK_CUPTI_DECODE_H
#define TK_CUPTI_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <cupti.h>
#include <tracekit/store.h>

#include "host.h"

/* What a decoder has seen; written to meta as cupti.* by tk_cupti_decoder_finish(). */
struct tk_cupti_stats {
	int64_t records, kernels, memcpys, memsets, memory, api, syncs, markers, overheads,
	    devices, flows, unhandled, invalid_timestamps, dropped, outside_window;
};

/* Device limits the occupancy computation needs (from CUpti_ActivityDevice5 and the driver). */
struct tk_cupti_device {
	int known; /* limits below are filled */
	int64_t store_id;
	int cc_major, cc_minor, sm_count, max_threads_per_block, max_threads_per_sm;
	int regs_per_block, regs_per_sm, max_blocks_per_sm;
	int64_t smem_per_block, smem_per_sm, smem_per_block_optin, reserved_smem_per_block;
};

struct tk_cupti_decoder;

/**
 * tk_cupti_decoder_create() - a decoder writing into @w (borrowed) for store process
 * @process_id; thread tracks come from @hw (borrowed), so that host annotations and API calls
 * of one thread share a track.
 */
int tk_cupti_decoder_create(tk_writer *w, int64_t process_id, struct tk_host_writer *hw,
			    struct tk_cupti_decoder **out);

/** tk_cupti_decoder_thread_names() - name thread tracks from /proc/self/task/TID/comm. */
void tk_cupti_decoder_thread_names(struct tk_cupti_decoder *d, int on);

/**
 * tk_cupti_decode_buffer() - decode every record of @buf (@valid bytes), walked with
 * cuptiActivityGetNextRecord. Returns the writer's status.
 */
int tk_cupti_decode_buffer(struct tk_cupti_decoder *d, uint8_t *buf, size_t valid);

/** tk_cupti_decode_record() - decode one record. */
int tk_cupti_decode_record(struct tk_cupti_decoder *d, const CUpti_Activity *r);

/**
 * tk_cupti_decoder_gate() - with @on, keep only records that start inside a window opened by
 * tk_cupti_decoder_window(@open = 1, ts) and not yet closed (@open = 0) at that time.
 */
void tk_cupti_decoder_gate(struct tk_cupti_decoder *d, int on);
void tk_cupti_decoder_window(struct tk_cupti_decoder *d, int open, int64_t ts);

/** tk_cupti_decoder_add_dropped() - records CUPTI dropped (cuptiActivityGetNumDroppedRecords). */
void tk_cupti_decoder_add_dropped(struct tk_cupti_decoder *d, int64_t n);

/** tk_cupti_decoder_set_limits() - driver limits for @cupti_device's occupancy (opt-in smem). */
void tk_cupti_decoder_set_limits(struct tk_cupti_decoder *d, uint32_t cupti_device,
				 int64_t smem_per_block_optin, int64_t reserved_smem_per_block);

/** tk_cupti_decoder_stats() - the counts so far. */
void tk_cupti_decoder_stats(const struct tk_cupti_decoder *d, struct tk_cupti_stats *out);

/** tk_cupti_decoder_finish() - write the counts to meta (cupti.*); returns the writer status. */
int tk_cupti_decoder_finish(struct tk_cupti_decoder *d);

void tk_cupti_decoder_free(struct tk_cupti_decoder *d);

/* ---- devices (cupti_device.c) ---- */

/** tk_cupti_device_from_record() - the limits and store row of a CUpti_ActivityDevice5. */
void tk_cupti_device_from_record(const CUpti_ActivityDevice5 *r, struct tk_cupti_device *dev,
				 struct tk_device_info *info, char *cc, size_t cclen);

/**
 * tk_cupti_occupancy() - theoretical occupancy (0..1) of a launch on @dev, with active blocks
 * per SM in *active; -1 when the limits are unknown or the calculator refuses them.
 */
double tk_cupti_occupancy(const struct tk_cupti_device *dev, int block_threads, int regs,
			  int64_t static_smem, int64_t dynamic_smem, int *active);

#endif
