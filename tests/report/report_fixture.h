/*
 * The small store the report tests share (included by tests/report/test_*.c): two GPUs of one
 * process with kernels whose names carry C++ templates, quotes, non-ASCII text and an HTML
 * script tag, a copy, all-reduce kernels on both devices, three steps (the last one an outlier),
 * and allocations and frees on device 0. Every time is known, so the goldens are stable.
 */
#ifndef TK_REPORT_FIXTURE_H
#define TK_REPORT_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define RF_LONG                                                                             \
	"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"    \
	"(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::" \
	"BinaryOpScalarFunctor<float, 1, 1, 0>, std::divides<float>, float>(at::native::"   \
	"(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::" \
	"BinaryOpScalarFunctor<float, 1, 1, 0>, std::divides<float>, float)"
#define RF_SCRIPT "<script>alert(1)</script>"
#define RF_NCCL "ncclDevKernel_AllReduce_Sum_f32_RING_LL"

static void rf_mem(tk_writer *w, int64_t proc, int64_t dev, int64_t ts, int is_free, int64_t addr,
		   int64_t bytes, const char *op)
{
	struct tk_memory_event m;
	memset(&m, 0, sizeof(m));
	m.ts_ns = TKT_T0 + ts;
	m.is_free = is_free;
	m.device_id = dev;
	m.process_id = proc;
	m.address = addr;
	m.bytes = bytes;
	m.mem_kind = TK_MEM_DEVICE;
	m.allocator = "caching";
	m.op_event_id = TK_NONE;
	m.bytes_in_use = TK_NONE;
	m.bytes_reserved = TK_NONE;
	m.bytes_available = TK_NONE;
	m.peak_bytes_in_use = TK_NONE;
	m.requested_bytes = TK_NONE;
	m.fragmentation = -1;
	m.op_name = op;
	TKT_OK(tk_writer_add_memory_event(w, &m));
}

/* Write the fixture store at @path (not analysed). */
static __attribute__((unused)) void rf_write_store(const char *path)
{
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	int64_t proc, d0, d1, thr, s0, s1, s0b;
	struct tk_process_info p = {10, "train", "node-a", 0};
	TKT_OK(tk_writer_add_source(w, "synth", NULL, "node-a", 0));
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {
	    0,	 "gpu",	     "NVIDIA H100", "nvidia",	     "node-a", proc, 0,	    "9.0",
	    132, 1980000000, 85899345920LL, 3350000000000LL, 989e12,   2048, 65536, 233472};
	TKT_OK(tk_writer_add_device(w, &d, &d0));
	d.ordinal = 1;
	d.rank = 1;
	TKT_OK(tk_writer_add_device(w, &d, &d1));
	struct tk_track_info t1 = {TK_TRACK_THREAD, "main", proc, TK_NONE, 1, TK_NONE, NULL};
	struct tk_track_info t2 = {TK_TRACK_STREAM, "Stream #7", proc, d0, TK_NONE, 7, NULL};
	struct tk_track_info t3 = {TK_TRACK_STREAM, "Stream #7", proc, d1, TK_NONE, 7, NULL};
	struct tk_track_info t4 = {TK_TRACK_STREAM, "Stream #8", proc, d0, TK_NONE, 8, NULL};
	TKT_OK(tk_writer_add_track(w, &t1, &thr));
	TKT_OK(tk_writer_add_track(w, &t2, &s0));
	TKT_OK(tk_writer_add_track(w, &t3, &s1));
	TKT_OK(tk_writer_add_track(w, &t4, &s0b));
	/* three steps on the host: 50 us, 50 us, 100 us (an outlier) */
	struct tk_event st = {thr,    TK_EV_STEP, "ProfilerStep#1", 0, NULL, 0,
			      TKT_T0, 50000,	  TK_NONE};
	TKT_OK(tk_writer_add_step(w, &st, 1, NULL));
	st.name = "ProfilerStep#2", st.ts_ns = TKT_T0 + 50000;
	TKT_OK(tk_writer_add_step(w, &st, 2, NULL));
	st.name = "ProfilerStep#3", st.ts_ns = TKT_T0 + 100000, st.dur_ns = 100000;
	TKT_OK(tk_writer_add_step(w, &st, 3, NULL));
	tkt_ev(w, thr, TK_EV_HOST_OP, "aten::linear", "cpu_op", 1000, 20000);
	tkt_ev(w, thr, TK_EV_HOST_OP, "aten::add_", "cpu_op", 60000, 5000);
	tkt_ev(w, thr, TK_EV_RUNTIME_API, "cudaDeviceSynchronize", NULL, 180000, 15000);
	/* device 0: kernels with awkward names, one launched late (a host-bound gap) */
	int64_t t = TKT_T0;
	tkt_launched_op(w, thr, s0, TK_EV_MEMCPY, "Memcpy HtoD (Pageable -> Device)", t + 2000,
			6000, t + 1000);
	tkt_launched_op(w, thr, s0, TK_EV_KERNEL, RF_LONG, t + 8000, 30000, t + 1500);
	tkt_launched_op(w, thr, s0, TK_EV_KERNEL, RF_SCRIPT, t + 38000, 2000, t + 2000);
	tkt_launched_op(w, thr, s0, TK_EV_KERNEL, TKT_ODD_NAME, t + 70000, 10000, t + 65000);
	tkt_launched_op(w, thr, s0, TK_EV_KERNEL, RF_LONG, t + 80000, 30000, t + 66000);
	tkt_launched_op(w, thr, s0b, TK_EV_KERNEL, RF_NCCL, t + 100000, 40000, t + 90000);
	tkt_launched_op(w, thr, s0, TK_EV_KERNEL, RF_SCRIPT, t + 150000, 2000, t + 149000);
	/* device 1: busy the whole time, the all-reduce starts later (device 0 waits for it) */
	tkt_launched_op(w, thr, s1, TK_EV_KERNEL, "volta_sgemm_128x64_nn", t + 1000, 99000,
			t + 500);
	tkt_launched_op(w, thr, s1, TK_EV_KERNEL, RF_NCCL, t + 120000, 20000, t + 100500);
	tkt_launched_op(w, thr, s1, TK_EV_KERNEL, "volta_sgemm_128x64_nn", t + 140000, 55000,
			t + 100600);
	/* device 0 memory: peak 5 MiB at 2 us */
	rf_mem(w, proc, d0, 1000, 0, 0x1000, 1 << 20, "aten::empty");
	rf_mem(w, proc, d0, 2000, 0, 0x200000, 4 << 20, "aten::linear");
	rf_mem(w, proc, d0, 3000, 1, 0x1000, 1 << 20, NULL);
	rf_mem(w, proc, d0, 150000, 1, 0x200000, 4 << 20, NULL);
	tkt_finish(w);
}

/* Read a whole file (malloc'd), NULL when it cannot be read. */
static __attribute__((unused)) char *rf_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0, n;
	char *p = malloc(cap);
	while (p && (n = fread(p + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *np = realloc(p, cap *= 2);
			if (!np) {
				free(p);
				p = NULL;
			}
			p = np;
		}
	}
	fclose(f);
	if (p)
		p[len] = '\0';
	return p;
}

/* @s with every occurrence of @from replaced by @to (malloc'd). */
static __attribute__((unused)) char *rf_replace(const char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	for (const char *p = strstr(s, from); p && fl; p = strstr(p + fl, from))
		n++;
	char *out = malloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1), *o = out;
	cr_assert_not_null(out);
	while (*s) {
		if (fl && !strncmp(s, from, fl)) {
			memcpy(o, to, tl);
			o += tl;
			s += fl;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

#endif
