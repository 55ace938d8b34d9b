/*
 * The XPlane stat names tracekit knows, once, for the XPlane reader (import/) and writer
 * (export/): X(CODE, "name", flags), giving enum xs_stat XS_CODE. XS_R: the importer maps the
 * stat to a column (other stats become args); XS_W: the exporter declares it in every plane's
 * stat metadata, with the stat's code as its id. The order fixes those ids (1, 2, ...): keep it,
 * and add new stats at the end.
 */
#ifndef TK_SCHEMAS_XPLANE_STATS_H
#define TK_SCHEMAS_XPLANE_STATS_H

#define XS_R 1u /* read into a column by the importer */
#define XS_W 2u /* written by the exporter */

#define XS_STATS(X)                                                                                  \
	X(KERNEL_DETAILS, "kernel_details", XS_R | XS_W)                                             \
	X(MEMCPY_DETAILS, "memcpy_details", XS_R | XS_W)                                             \
	X(MEMSET_DETAILS, "Memset_details", XS_R | XS_W)                                             \
	X(CORRELATION_ID, "correlation_id", XS_R | XS_W)                                             \
	X(HLO_OP, "hlo_op", XS_R | XS_W)                                                             \
	X(HLO_MODULE, "hlo_module", XS_R | XS_W)                                                     \
	X(PROGRAM_ID, "program_id", XS_R | XS_W)                                                     \
	X(TF_OP, "tf_op", XS_R | XS_W)                                                               \
	X(HLO_CATEGORY, "hlo_category", XS_R | XS_W)                                                 \
	X(FLOPS, "flops", XS_R | XS_W)                                                               \
	X(BYTES_ACCESSED, "bytes_accessed", XS_R | XS_W)                                             \
	X(STEP_NUM, "step_num", XS_R | XS_W)                                                         \
	X(ALLOCATOR_NAME, "allocator_name", XS_R | XS_W)                                             \
	X(BYTES_RESERVED, "bytes_reserved", XS_R | XS_W)                                             \
	X(BYTES_ALLOCATED, "bytes_allocated", XS_R | XS_W)                                           \
	X(BYTES_AVAILABLE, "bytes_available", XS_R | XS_W)                                           \
	X(PEAK_BYTES_IN_USE, "peak_bytes_in_use", XS_R | XS_W)                                       \
	X(REQUESTED_BYTES, "requested_bytes", XS_R | XS_W)                                           \
	X(ALLOCATION_BYTES, "allocation_bytes", XS_R | XS_W)                                         \
	X(ADDR, "addr", XS_R | XS_W)                                                                 \
	X(FRAGMENTATION, "fragmentation", XS_R | XS_W)                                               \
	X(CLOCK_RATE, "clock_rate", XS_R | XS_W)                                                     \
	X(CORE_COUNT, "core_count", XS_R | XS_W)                                                     \
	X(MEMORY_BANDWIDTH, "memory_bandwidth", XS_R | XS_W)                                         \
	X(MEMORY_SIZE, "memory_size", XS_R | XS_W)                                                   \
	X(CC_MAJOR, "compute_cap_major", XS_R | XS_W)                                                \
	X(CC_MINOR, "compute_cap_minor", XS_R | XS_W)                                                \
	X(PEAK_TFLOPS, "peak_teraflops_per_second", XS_R | XS_W)                                     \
	X(PEAK_HBM_BW, "peak_hbm_bw_gigabytes_per_second", XS_R | XS_W)                              \
	X(DEVICE_VENDOR, "device_vendor", XS_R | XS_W)                                               \
	X(GPU_DEVICE_NAME, "gpu_device_name", XS_R | XS_W)                                           \
	X(DEVICE_TYPE_STRING, "device_type_string", XS_R | XS_W)                                     \
	X(PROFILE_START, "profile_start_time", XS_R | XS_W)                                          \
	X(PROFILE_STOP, "profile_stop_time", XS_R | XS_W)                                            \
	X(DEVICE_ID, "device_id", XS_W)                                                              \
	X(MANGLED_NAME, "mangled_name", XS_W)                                                        \
	X(MAX_THREADS_PER_SM, "max_threads_per_sm", XS_R | XS_W)                                     \
	X(MAX_REGS_PER_SM, "max_regs_per_sm", XS_R | XS_W)                                           \
	X(MAX_SMEM_PER_SM, "max_smem_per_sm", XS_R | XS_W)                                           \
	/* tracekit's own stats, where XPlane has no field (docs/export.md, "Processes and         \
	 * hosts"; import/xplane_procs.c) */ \
	X(TK_HOST, "tracekit_host", XS_R | XS_W) /* Task Environment: host name, "" none */          \
	X(TK_PROCESSES, "tracekit_processes", XS_R | XS_W) /* Task Environment: a text table */      \
	X(TK_PROCESS, "tracekit_process", XS_R | XS_W)	   /* key of the owning process */           \
	X(TK_RANK, "tracekit_rank", XS_R | XS_W)	   /* device plane: the device's rank */     \
	X(TK_ORDINAL, "tracekit_ordinal", XS_R | XS_W)	   /* device plane: the store ordinal */     \
	X(TK_LINE_PROCESSES, "tracekit_line_processes", XS_R | XS_W) /* "line_id key" per line */    \
	X(TK_KIND, "tracekit_kind", XS_R | XS_W)	   /* the store's event kind code */         \
	X(TK_CATEGORY, "tracekit_category", XS_R | XS_W)   /* ref to the category's metadata */      \
	X(TK_ALLOCATOR, "tracekit_allocator", XS_R | XS_W) /* when allocator_name differs */         \
	/* read only */                                                                              \
	X(GROUP_ID, "group_id", XS_R)                                                                \
	X(INDEX_ON_HOST, "index_on_host", XS_R)                                                      \
	X(DEVICE_ORDINAL, "device_ordinal", XS_R)

enum xs_stat {
	XS_OTHER, /* 0: none of the list (the importer keeps such a stat as an arg) */
#define XS_ENUM_(code, name, flags) XS_##code,
	XS_STATS(XS_ENUM_)
#undef XS_ENUM_
	    XS_COUNT
};

/* xs_name() - the stat name of @s ("" for XS_OTHER or out of range). */
static inline const char *xs_name(unsigned long long s)
{
	switch (s) {
#define XS_NAME_(code, name, flags) \
	case XS_##code:             \
		return name;
		XS_STATS(XS_NAME_)
#undef XS_NAME_
	default:
		return "";
	}
}

/* xs_flags() - XS_R / XS_W of @s (0 for XS_OTHER or out of range). */
static inline unsigned xs_flags(unsigned long long s)
{
	switch (s) {
#define XS_FLAGS_(code, name, flags) \
	case XS_##code:              \
		return flags;
		XS_STATS(XS_FLAGS_)
#undef XS_FLAGS_
	default:
		return 0;
	}
}

#endif
