/* Perfetto export internals shared by perfetto_out.c (events) and perfetto_tracks.c (tracks, counters). */
#ifndef TK_PERFETTO_OUT_H
#define TK_PERFETTO_OUT_H

#include "export_internal.h"

#define PF_SEQ 1		  /* the one trusted_packet_sequence_id */
#define PF_LANES 8		  /* lanes per track (the first is the track itself) */
#define PF_DEPTH 32		  /* nesting depth tracked per lane */
#define PF_UUID_TRACK 0ull	  /* + tracks.id: a thread, stream, derived or counter track */
#define PF_UUID_PROC (1ull << 48) /* + processes.id */
#define PF_UUID_DEV (2ull << 48)  /* + devices.id */
#define PF_UUID_LANE (3ull << 48) /* + lane << 32 + tracks.id */
#define PF_UUID_MEM (4ull << 48)  /* + (device id + 1) << 32 + allocator string id */
#define PF_UUID_UTIL (5ull << 48) /* + devices.id */
#define PF_KIND_CAT (1ull << 32)  /* category iid of events without a category: + kind */
#define PF_MAX_NAME_BITS ((uint64_t)1 << 28) /* string ids with an "interned" bit (32 MiB) */

struct pf_lane {
	int64_t last_start; /* slices of a lane must come in start order */
	unsigned depth;
	int64_t stack[PF_DEPTH]; /* ends of the open slices */
};

struct pf_track {
	int has; /* the track exists and takes slices */
	int nlanes;
	uint32_t name_id;
	uint64_t parent; /* uuid the extra lanes hang under (0: top level) */
	int64_t rank;
	struct pf_lane lanes[PF_LANES];
};

struct pf {
	struct tk_exporter *x;
	struct ex_out out;
	struct pf_track *tracks; /* indexed by track id */
	int64_t ntracks;
	uint8_t *names, *cats; /* bitmaps: string ids already interned */
	uint64_t nbits;
	uint8_t kind_seen[16];
	struct ex_buf te, interned;
	uint64_t *mem; /* memory counter tracks described so far */
	size_t nmem, capmem;
	int64_t misplaced;
};

static inline uint64_t pf_lane_uuid(int64_t track, int lane)
{
	return lane ? PF_UUID_LANE + ((uint64_t)lane << 32) + (uint64_t)track
		    : PF_UUID_TRACK + (uint64_t)track;
}

/* Track descriptors of processes, threads, devices, streams, derived and counter tracks. */
int pf_tracks(struct pf *f);
/* The descriptor of extra lane @lane of track @track. */
int pf_lane_descriptor(struct pf *f, const struct pf_track *t, int64_t track, int lane);
/* Counter samples, memory in use, utilization per step. */
int pf_counters(struct pf *f);
/* One counter sample on track @uuid. */
void pf_counter(struct pf *f, uint64_t uuid, int64_t ts, double v);

#endif
