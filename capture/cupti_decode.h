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

/* What a decoder has seen; written to meta as cupti.* by tkcap_cupti_decoder_finish(). */
struct tkcap_cupti_stats {
	int64_t records, kernels, memcpys, memsets, memory, api, syncs, markers, overheads, devices,
	    flows, unhandled, invalid_timestamps, dropped, outside_window;
};

/* A device as the decoder knows it: its store row and the limits occupancy needs. */
struct tkcap_cupti_device {
	int known; /* occ is filled (a device record was seen) */
	int64_t store_id;
	struct tku_occ_device occ;
};

struct tkcap_cupti_decoder;

/**
 * tkcap_cupti_decoder_create() - a decoder writing into @w (borrowed) for store process
 * @process_id; thread tracks come from @hw (borrowed), so that host annotations and API calls
 * of one thread share a track. @api (from tkcap_cupti_load; may be NULL until
 * tkcap_cupti_decoder_set_api) walks buffers and names API calls.
 */
int tkcap_cupti_decoder_create(tk_writer *w, int64_t process_id, struct tkcap_host_writer *hw,
			       const struct tkcap_cupti_api *api, struct tkcap_cupti_decoder **out);

/** tkcap_cupti_decoder_set_api() - the CUPTI entry points, when they were not known at create. */
void tkcap_cupti_decoder_set_api(struct tkcap_cupti_decoder *d, const struct tkcap_cupti_api *api);

/** tkcap_cupti_decoder_thread_names() - name thread tracks from /proc/self/task/TID/comm. */
void tkcap_cupti_decoder_thread_names(struct tkcap_cupti_decoder *d, int on);

/**
 * tkcap_cupti_decode_buffer() - decode every record of @buf (@valid bytes), walked with
 * cuptiActivityGetNextRecord. Returns the writer's status.
 */
int tkcap_cupti_decode_buffer(struct tkcap_cupti_decoder *d, uint8_t *buf, size_t valid);

/** tkcap_cupti_decode_record() - decode one record. */
int tkcap_cupti_decode_record(struct tkcap_cupti_decoder *d, const struct tkc_record *r);

/**
 * tkcap_cupti_decoder_gate() - with @on, keep only records that start inside a window opened by
 * tkcap_cupti_decoder_window(@open = 1, ts) and not yet closed (@open = 0) at that time.
 */
void tkcap_cupti_decoder_gate(struct tkcap_cupti_decoder *d, int on);
void tkcap_cupti_decoder_window(struct tkcap_cupti_decoder *d, int open, int64_t ts);

/** tkcap_cupti_decoder_add_dropped() - records CUPTI dropped (cuptiActivityGetNumDroppedRecords). */
void tkcap_cupti_decoder_add_dropped(struct tkcap_cupti_decoder *d, int64_t n);

/** tkcap_cupti_decoder_set_limits() - driver limits for @cupti_device's occupancy (opt-in smem). */
void tkcap_cupti_decoder_set_limits(struct tkcap_cupti_decoder *d, uint32_t cupti_device,
				    int64_t smem_per_block_optin, int64_t reserved_smem_per_block);

/** tkcap_cupti_decoder_stats() - the counts so far. */
void tkcap_cupti_decoder_stats(const struct tkcap_cupti_decoder *d, struct tkcap_cupti_stats *out);

/** tkcap_cupti_decoder_finish() - write the counts to meta (cupti.*); returns the writer status. */
int tkcap_cupti_decoder_finish(struct tkcap_cupti_decoder *d);

void tkcap_cupti_decoder_free(struct tkcap_cupti_decoder *d);

/* ---- devices (cupti_device.c) ---- */

/** tkcap_cupti_device_from_record() - the limits and store row of a CUpti_ActivityDevice5. */
void tkcap_cupti_device_from_record(const struct tkc_device5 *r, struct tkcap_cupti_device *dev,
				    struct tk_device_info *info, char *cc, size_t cclen);

#endif
