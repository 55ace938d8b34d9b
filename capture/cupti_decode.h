/*
 * The CUPTI activity record decoder: completed CUPTI activity buffers (CUDA 13 record layouts)
 * into store rows through the writer API. Separate from the injection library so that tests
 * can feed it hand-built buffers with no GPU (cuptiActivityGetNextRecord works without one,
 * and tests/capture/fake_cupti.c stands in for libcupti where there is no CUDA at all).
 * Not thread-safe: one decoder per writer, calls serialized by the caller.
 */
#ifndef TK_CUPTI_DECODE_H
#define TK_CUPTI_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/store.h>

#include "cupti_abi.h"
#include "util/occupancy.h"
#include "host.h"

/* What a decoder has seen; written to meta as cupti.* by tk_cupti_decoder_finish(). */
struct tk_cupti_stats {
	int64_t records, kernels, memcpys, memsets, memory, api, syncs, markers, overheads,
	    devices, flows, unhandled, invalid_timestamps, dropped, outside_window;
};

/* A device as the decoder knows it: its store row and the limits occupancy needs. */
struct tk_cupti_device {
	int known; /* occ is filled (a device record was seen) */
	int64_t store_id;
	struct tku_occ_device occ;
};

struct tk_cupti_decoder;

/**
 * tk_cupti_decoder_create() - a decoder writing into @w (borrowed) for store process
 * @process_id; thread tracks come from @hw (borrowed), so that host annotations and API calls
 * of one thread share a track. @api (from tk_cupti_load; may be NULL until
 * tk_cupti_decoder_set_api) walks buffers and names API calls.
 */
int tk_cupti_decoder_create(tk_writer *w, int64_t process_id, struct tk_host_writer *hw,
			    const struct tk_cupti_api *api, struct tk_cupti_decoder **out);

/** tk_cupti_decoder_set_api() - the CUPTI entry points, when they were not known at create. */
void tk_cupti_decoder_set_api(struct tk_cupti_decoder *d, const struct tk_cupti_api *api);

/** tk_cupti_decoder_thread_names() - name thread tracks from /proc/self/task/TID/comm. */
void tk_cupti_decoder_thread_names(struct tk_cupti_decoder *d, int on);

/**
 * tk_cupti_decode_buffer() - decode every record of @buf (@valid bytes), walked with
 * cuptiActivityGetNextRecord. Returns the writer's status.
 */
int tk_cupti_decode_buffer(struct tk_cupti_decoder *d, uint8_t *buf, size_t valid);

/** tk_cupti_decode_record() - decode one record. */
int tk_cupti_decode_record(struct tk_cupti_decoder *d, const struct tkc_record *r);

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
void tk_cupti_device_from_record(const struct tkc_device5 *r, struct tk_cupti_device *dev,
				 struct tk_device_info *info, char *cc, size_t cclen);

#endif
