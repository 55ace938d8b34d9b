/* A small store with one record of every kind and values known by construction, for tests. */
#include <criterion/criterion.h>
#include <tracekit/tracekit.h>

#include "tk_test.h"

#define OK(call) cr_assert_eq((call), TK_OK, "%s: %s", #call, tk_writer_errmsg(w))

int tkt_write_fixture(const char *path)
{
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK, "%s", tk_writer_errmsg(w));
	OK(tk_writer_add_source(w, "synth", NULL, "host-a", 0));
	OK(tk_writer_set_meta_text(w, "clock", "unix_epoch"));
	OK(tk_writer_set_meta_text(w, "source", "test fixture"));
	int64_t proc, dev, thr, strm, ctr, id;
	struct tk_process_info p = {4242, "python train.py", "host-a", 0};
	OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {0,	       "gpu",	      "NVIDIA H100 80GB HBM3",
				   "nvidia",   "host-a",      proc,
				   0,	       "9.0",	      132,
				   1980000000, 85899345920LL, 3350000000000LL,
				   989e12,     2048,	      65536,
				   233472};
	OK(tk_writer_add_device(w, &d, &dev));
	struct tk_track_info t1 = {TK_TRACK_THREAD, "main", proc, TK_NONE, 7, TK_NONE, NULL};
	struct tk_track_info t2 = {TK_TRACK_STREAM, "Stream #7", proc, dev, TK_NONE, 7, NULL};
	struct tk_track_info t3 = {
	    TK_TRACK_COUNTER, "GPU memory allocated", proc, dev, TK_NONE, TK_NONE, "bytes"};
	OK(tk_writer_add_track(w, &t1, &thr));
	OK(tk_writer_add_track(w, &t2, &strm));
	OK(tk_writer_add_track(w, &t3, &ctr));

	struct tk_event op = {thr, TK_EV_HOST_OP, "aten::linear", 0,	  "cpu_op",
			      0,   TKT_T0,	  50000,	  TK_NONE};
	OK(tk_writer_add_event(w, &op, &id));
	struct tk_event api = {
	    thr, TK_EV_RUNTIME_API, "cudaLaunchKernel", 0, NULL, 0, TKT_T0 + 1000, 5000, 100};
	int64_t api_id, k_id;
	OK(tk_writer_add_event(w, &api, &api_id));
	struct tk_event k = {strm, TK_EV_KERNEL,   TKT_ODD_NAME, 0,  "kernel",
			     0,	   TKT_T0 + 10000, 7000,	 100};
	struct tk_kernel_info ki = {"_Z1kIfEvv", {120, 2, 1}, {256, 1, 1}, 32,	 1024,
				    2048,	 0.75,	      1.5,	   12.0, 0};
	OK(tk_writer_add_kernel(w, &k, &ki, &k_id));
	struct tk_event cp = {
	    strm,   TK_EV_MEMCPY, "Memcpy HtoD (Pinned -> Device)", 0, NULL, 0, TKT_T0 + 20000,
	    100000, 101};
	struct tk_copy_info ci = {1048576,	 TK_COPY_H2D, TK_MEM_PINNED,
				  TK_MEM_DEVICE, TK_NONE,     TK_NONE};
	OK(tk_writer_add_copy(w, &cp, &ci, NULL));
	struct tk_event ms = {strm, TK_EV_MEMSET, "Memset (Device)", 0, NULL, 0, TKT_T0 + 130000,
			      1000, 102};
	struct tk_set_info si = {256, 0, TK_MEM_DEVICE};
	OK(tk_writer_add_set(w, &ms, &si, NULL));
	struct tk_event step = {thr, TK_EV_STEP, "ProfilerStep#3", 0,	   NULL,
				0,   TKT_T0,	 200000,	   TK_NONE};
	OK(tk_writer_add_step(w, &step, 3, NULL));
	struct tk_event ann = {thr, TK_EV_ANNOTATION, "## forward ##", 0,      "user_annotation",
			       0,   TKT_T0 + 500,     60000,	       TK_NONE};
	OK(tk_writer_add_event(w, &ann, NULL));
	struct tk_event xop = {strm, TK_EV_XLA_OP,   "fusion.1", 0,	 NULL,
			       0,    TKT_T0 + 10000, 7000,	 TK_NONE};
	int64_t xid;
	OK(tk_writer_add_event(w, &xop, &xid));
	struct tk_op_info oi = {
	    "fusion.1", "jit_train_step", "dense/MatMul", "fusion", 7, 123456789, 4096};
	OK(tk_writer_add_op_details(w, xid, &oi));
	OK(tk_writer_add_flow(w, "launch", api_id, k_id));
	OK(tk_writer_add_counter(w, ctr, TKT_T0 + 1000, 4096));
	OK(tk_writer_add_counter(w, ctr, TKT_T0 + 150000, 0));
	struct tk_memory_event ma = {TKT_T0 + 1000,
				     0,
				     dev,
				     proc,
				     0x7f0000000000LL,
				     4096,
				     TK_MEM_DEVICE,
				     "caching",
				     id,
				     4096,
				     2097152,
				     0,
				     TK_NONE,
				     TK_NONE,
				     TK_NONE,
				     -1,
				     NULL};
	OK(tk_writer_add_memory_event(w, &ma));
	struct tk_memory_event mf = ma;
	mf.ts_ns = TKT_T0 + 150000;
	mf.is_free = 1;
	mf.op_event_id = TK_NONE;
	mf.bytes_in_use = 0;
	OK(tk_writer_add_memory_event(w, &mf));
	OK(tk_writer_add_arg_int(w, k_id, "queued", 3));
	OK(tk_writer_add_arg_real(w, k_id, "est. achieved occupancy %", 75.5));
	OK(tk_writer_add_arg_text(w, k_id, "context", "ctx <1> & \"two\""));
	return tk_writer_finish(w, tkt_err());
}
