/*
 * Shared helpers of the time-based analyses (docs/metrics.md, "Device time"): the device
 * operations of every device read once from the store (sorted, classified, with the start of the
 * API call that launched each), their exact unions per class, the step intervals, the windows,
 * and the maximal not-busy intervals (gaps) inside a window with their cause (from the launches
 * and the host-side synchronizations, gap_causes.c).
 *
 * Any analysis may call tka_timeline_get(): the timeline is built by the shared pass over the
 * events (event_pass.c, timeline.c), which the first call runs when tk_analyze() has not; every
 * call returns the same read-only object, and tk_analyze() frees it at the end. Everything here
 * is exact integer nanoseconds.
 */
#ifndef TK_ANALYZE_INTERVALS_H
#define TK_ANALYZE_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze_internal.h"

/* Class of a device operation (the name rule is in docs/metrics.md, "Communication kernels"). */
enum tka_op_class {
	TKA_COMPUTE =
	    0, /* kernels that are not communication, memsets, XLA ops that are not collectives */
	TKA_COMM = 1,	/* NCCL/RCCL/collective kernels (or XLA collective ops) */
	TKA_MEMCPY = 2, /* memory copies */
};

/* launch_ts of an operation no launching API call is linked to. */
#define TKA_NO_LAUNCH INT64_MIN

/* One device operation: a kernel, memcpy or memset (XLA op on devices that have none of those). */
struct tka_op {
	int64_t ts, end;      /* [ts, end) in ns; end = ts + dur_ns */
	int64_t id;	      /* events.id */
	int64_t launch_ts;    /* ts_ns of the launching API call, or TKA_NO_LAUNCH */
	int64_t launch_track; /* tracks.id of the launching API call, when launch_ts is one */
	int64_t launch_dur;   /* dur_ns of the launching API call, when launch_ts is one */
	uint32_t name_id;     /* events.name_id */
	uint16_t stream;      /* index into tka_device.streams */
	uint8_t kind;	      /* TK_EV_KERNEL, TK_EV_MEMCPY, TK_EV_MEMSET or TK_EV_XLA_OP */
	uint8_t cls;	      /* enum tka_op_class */
};

/* A half-open interval [start, end) of ns. */
struct tka_span {
	int64_t start, end;
};

/* A set of sorted, disjoint, non-empty spans (touching spans are merged). */
struct tka_spans {
	struct tka_span *v;
	size_t n, cap;
};

/* One step interval of a device (from a step event of its process or on its own tracks). */
/* Where a step's interval comes from (docs/metrics.md, "Steps on the device"). */
enum tka_step_source {
	TKA_STEP_DEVICE = 0,	 /* a step event on the device's own tracks (XPlane Steps line) */
	TKA_STEP_ANNOTATION = 1, /* the device-side ProfilerStep#N annotation of a host step */
	TKA_STEP_LAUNCH = 2,	 /* the device work launched from inside the host step */
	TKA_STEP_HOST = 3,	 /* the host step itself */
};

/** tka_step_source_name() - "device", "device_annotation", "launches" or "host". */
const char *tka_step_source_name(int source);

struct tka_step {
	int64_t event_id;	   /* events.id of the step */
	int64_t step_num;	   /* step_details.step_num, or TK_NONE */
	int64_t ts, end;	   /* [ts, end): the interval the analyses use (see source) */
	int64_t host_ts, host_end; /* the host step's interval; TK_NONE for a device's own step */
	int source;		   /* enum tka_step_source */
};

/* A device track that holds device operations (a stream or a derived line). */
struct tka_stream {
	int64_t track_id;  /* tracks.id */
	int64_t stream_id; /* tracks.stream_id, or TK_NONE */
};

/*
 * A host-side synchronization (gap_causes.c): a runtime/driver API call that blocks its thread
 * until the device catches up (TKA_BLOCKING_API_NAMES), or a `sync` event other than a stream
 * wait, on a host thread.
 */
struct tka_sync {
	int64_t track, ts, end; /* its host thread's tracks.id, and [ts, end) */
	int64_t id, name_id;	/* events.id, events.name_id */
};

/* The synchronizations of the store, sorted by (track, ts, id). */
struct tka_syncs {
	struct tka_sync *v;
	int64_t *max_end; /* max_end[k]: the greatest end among v[first of its track .. k] */
	size_t n;
};

/* The launching thread of the op after a queued gap that may be a sync gap (gap_causes.c). */
struct tka_gap_launch {
	size_t j;      /* the not-busy interval before busy span j (see tka_gaps_each) */
	int64_t track; /* tracks.id of the host thread of the launching API call, or TK_NONE */
};

/* Everything the time-based analyses know about one device. */
struct tka_device {
	int64_t device_id;  /* devices.id */
	int64_t process_id; /* devices.process_id, or TK_NONE */
	int64_t rank;	    /* devices.rank, else the rank of its process, or TK_NONE */
	struct tka_op *ops; /* every device operation, sorted by (ts, id) */
	size_t nops;
	struct tka_stream *streams;
	size_t nstreams;
	struct tka_spans busy;		      /* union of all operations of positive duration */
	size_t *busy_first, *busy_last;	      /* per busy span: index in ops of its first operation
						and of the operation that ends it (the last of those
						with the greatest end) */
	struct tka_spans compute, comm, copy; /* unions per class */
	struct tka_step *steps;		      /* sorted by (ts, event_id) */
	size_t nsteps;
	struct tka_spans device_window; /* [first op start, last op end]: one span, or none */
	struct tka_spans step_window;	/* union of the step intervals (empty without steps) */
	int selected_steps;		/* 1 when the selected window is the steps window */
	const struct tka_spans *window; /* the selected window (device_window or step_window) */
	/* the queued gaps that may be sync gaps, by j (gap_causes.c) */
	struct tka_gap_launch *gap_launch;
	size_t ngap_launch;
	/* the timeline's synchronizations, NULL when there is none */
	const struct tka_syncs *syncs;
};

/* All devices that have device operations (devices without any are left out), by device id. */
struct tka_timeline {
	struct tka_device *dev;
	size_t ndev, dev_cap;
	int launch_source; /* 0 none, 1 flows of kind launch, 2 correlation ids */
	/* host-side synchronizations, for the gap causes */
	struct tka_syncs syncs;
};

/** tka_timeline_get() - build once (then reuse) the timeline of the store in @c. */
int tka_timeline_get(struct tka_ctx *c, const struct tka_timeline **out);

/** tka_timeline_free() - free a timeline (NULL is fine). */
void tka_timeline_free(struct tka_timeline *tl);

/** tka_is_comm_name() - 1 when a kernel/XLA op name is communication by the documented rule. */
int tka_is_comm_name(const char *name);

/** tka_window_name() - "device" or "steps" for the window of @d that tka_device.window is. */
const char *tka_window_name(const struct tka_device *d);

/* ---- span sets ---- */

/** tka_spans_len() - total length of @s. */
int64_t tka_spans_len(const struct tka_spans *s);

/** tka_spans_overlap() - |a ∩ b|. */
int64_t tka_spans_overlap(const struct tka_spans *a, const struct tka_spans *b);

/** tka_spans_len_in() - |s ∩ [start, end)| (binary search, then the spans inside). */
int64_t tka_spans_len_in(const struct tka_spans *s, int64_t start, int64_t end);

/** tka_spans_minus() - @out = a − b (out is reset first); TK_OK or TK_ENOMEM. */
int tka_spans_minus(const struct tka_spans *a, const struct tka_spans *b, struct tka_spans *out);

/** tka_spans_add() - append [start, end) (start must be >= the last end; touching merges). */
int tka_spans_add(struct tka_spans *s, int64_t start, int64_t end);

void tka_spans_free(struct tka_spans *s);

/* ---- gaps ---- */

/*
 * A queued gap shorter than this is launch latency (kernel_wait): HTA's consecutive_kernel_delay
 * (30 us), also the per-stream summary's kernel_wait bound (docs/metrics.md, "Idle gaps").
 */
#define TKA_KERNEL_WAIT_NS 30000

/* Cause of a not-busy interval (docs/metrics.md, "Idle gaps"); the order is the rules' order. */
enum tka_gap_cause {
	TKA_GAP_HOST = 0,	 /* next op launched after the interval began: host-bound */
	TKA_GAP_KERNEL_WAIT = 1, /* queued before, interval < TKA_KERNEL_WAIT_NS: launch latency */
	TKA_GAP_SYNC = 2,	 /* queued, longer, a blocking sync on the launching thread in it */
	TKA_GAP_DEPENDENCY = 3,	 /* queued, longer, no sync found: waited on something unseen */
	TKA_GAP_UNKNOWN = 4,	 /* no next operation, or no launch linked to it */
};

/** tka_gap_cause_name() - "host_bound", "kernel_wait", "sync", "dependency" or "unknown". */
const char *tka_gap_cause_name(int cause);

/* One not-busy interval inside a window. */
struct tka_gap {
	int64_t start, end; /* [start, end) */
	size_t prev, next;  /* indexes in ops of the operation that ended the busy time before and
			       of the one that starts the busy time after; SIZE_MAX when none */
	int cause;	    /* enum tka_gap_cause */
	const struct tka_sync *by; /* TKA_GAP_SYNC: the synchronization that explains it */
};

/*
 * tka_gaps_each() - call @fn for every maximal not-busy interval of @d inside @window (each
 * window span clips the not-busy time separately), in time order; stops at a non-TK_OK return.
 * Every piece of one not-busy interval between two ops gets the interval's cause (before the
 * device's first op, each piece is its own interval).
 */
int tka_gaps_each(const struct tka_device *d, const struct tka_spans *window,
		  int (*fn)(void *arg, const struct tka_gap *g), void *arg);

/*
 * tka_gap_sync() - the synchronization on the launching thread of the op after the not-busy
 * interval j of @d that overlaps [start, end) the most (the earliest on a tie), or NULL.
 */
const struct tka_sync *tka_gap_sync(const struct tka_device *d, size_t j, int64_t start,
				    int64_t end);

#endif
