/*
 * Fuzz target: the report writers over hostile names and values. The bytes are decoded into a
 * small store through the writer (names, categories, allocators, args and values all come from
 * the input: '<', '&', quotes, control characters, invalid UTF-8, long C++ symbols), analysed,
 * and written in one report format, or diffed against a store built from the second half of the
 * input (the first byte chooses). With FZ_CHECK_OUTPUT the outputs must also be valid:
 * JSON that cJSON parses, and valid UTF-8 in every format.
 *
 * Decoding: a mode byte (above), a header (pid, process, host, device names, stream and thread track names), then
 * records until the input ends, each a kind byte and its fields (see add_record()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/report.h>
#include <tracekit/store.h>
#include <unistd.h>

#include "fuzz_util.h"

#ifndef FZ_CHECK_OUTPUT
#define FZ_CHECK_OUTPUT 1
#endif
#if FZ_CHECK_OUTPUT && TK_FUZZ_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

#define FZ_MAX_RECORDS 200
#define FZ_NAME 300

struct ctx {
	tk_writer *w;
	struct fz_in in;
	int64_t pid, dev, host_track, stream_track, counter_track;
	int64_t ts, last_event;
	char name[FZ_NAME + 1], cat[FZ_NAME + 1], extra[FZ_NAME + 1];
};

static int64_t next_ts(struct ctx *c)
{
	c->ts += (int64_t)fz_u64(&c->in, 2) * 16;
	return c->ts;
}

static void add_record(struct ctx *c)
{
	struct tk_event ev = {0};
	uint8_t kind = fz_u8(&c->in) % 10;
	int64_t id = TK_NONE;
	ev.name = fz_str(&c->in, c->name, FZ_NAME);
	ev.ts_ns = next_ts(c);
	ev.dur_ns = (int64_t)fz_u64(&c->in, 3);
	ev.correlation_id = TK_NONE;
	ev.track_id = kind < 5 ? c->stream_track : c->host_track;
	switch (kind) {
	case 0:
	case 1: {
		struct tk_kernel_info k = {
		    .mangled_name = NULL, .occupancy = -1, .blocks_per_sm = -1, .warps_per_sm = -1};
		for (int i = 0; i < 3; i++) {
			k.grid[i] = 1 + (int64_t)fz_u8(&c->in);
			k.block[i] = 1 + (int64_t)fz_u8(&c->in);
		}
		k.registers = fz_u8(&c->in);
		k.static_smem = k.dynamic_smem = (int64_t)fz_u64(&c->in, 2);
		ev.kind = TK_EV_KERNEL;
		ev.correlation_id = fz_u8(&c->in);
		tk_writer_add_kernel(c->w, &ev, &k, &id);
		break;
	}
	case 2: {
		struct tk_copy_info cp = {.bytes = (int64_t)fz_u64(&c->in, 4),
					  .copy_kind = fz_u8(&c->in) % 6,
					  .src_device_id = TK_NONE,
					  .dst_device_id = TK_NONE};
		ev.kind = TK_EV_MEMCPY;
		tk_writer_add_copy(c->w, &ev, &cp, &id);
		break;
	}
	case 3: {
		struct tk_set_info s = {.bytes = (int64_t)fz_u64(&c->in, 3), .value = TK_NONE};
		ev.kind = TK_EV_MEMSET;
		tk_writer_add_set(c->w, &ev, &s, &id);
		break;
	}
	case 4:
	case 5: {
		struct tk_op_info op = {
		    .program_id = TK_NONE, .flops = TK_NONE, .bytes_accessed = TK_NONE};
		op.hlo_op = ev.name;
		op.hlo_module = fz_str(&c->in, c->cat, FZ_NAME);
		op.op_category = fz_str(&c->in, c->extra, FZ_NAME);
		ev.kind = kind == 4 ? TK_EV_XLA_OP : TK_EV_FRAMEWORK_OP;
		ev.category = op.op_category;
		if (tk_writer_add_event(c->w, &ev, &id) == TK_OK)
			tk_writer_add_op_details(c->w, id, &op);
		break;
	}
	case 6:
		ev.kind = TK_EV_STEP;
		tk_writer_add_step(c->w, &ev, fz_u8(&c->in), &id);
		break;
	case 7: {
		struct tk_memory_event m = {.device_id = c->dev,
					    .process_id = c->pid,
					    .address = (int64_t)fz_u64(&c->in, 2) * 256,
					    .mem_kind = TK_MEM_DEVICE,
					    .op_event_id = TK_NONE,
					    .bytes_in_use = TK_NONE,
					    .bytes_reserved = TK_NONE,
					    .bytes_available = TK_NONE,
					    .peak_bytes_in_use = TK_NONE,
					    .requested_bytes = TK_NONE,
					    .fragmentation = -1};
		m.ts_ns = ev.ts_ns;
		m.is_free = fz_u8(&c->in) & 1;
		m.bytes = 1 + (int64_t)fz_u64(&c->in, 3);
		m.allocator = fz_str(&c->in, c->cat, FZ_NAME);
		m.op_name = ev.name;
		tk_writer_add_memory_event(c->w, &m);
		break;
	}
	case 8:
		tk_writer_add_counter(c->w, c->counter_track, ev.ts_ns,
				      (double)(int8_t)fz_u8(&c->in));
		break;
	default:
		ev.kind = (fz_u8(&c->in) & 1) ? TK_EV_HOST_OP : TK_EV_RUNTIME_API;
		ev.category = fz_str(&c->in, c->cat, FZ_NAME);
		ev.correlation_id = fz_u8(&c->in);
		if (tk_writer_add_event(c->w, &ev, &id) == TK_OK) {
			tk_writer_add_arg_text(c->w, id, fz_str(&c->in, c->extra, 40), ev.name);
			if (c->last_event != TK_NONE)
				tk_writer_add_flow(c->w, "launch", id, c->last_event);
		}
		break;
	}
	if (id != TK_NONE)
		c->last_event = id;
}

/* Build a store at @path from @data; 0 when it was finished. */
static int build_store(const char *path, const uint8_t *data, size_t size)
{
	struct ctx c = {.in = {data, size}, .last_event = TK_NONE, .ts = 1000};
	char pname[64], host[64], dname[64], tname[64], sname[64];
	fz_check(tk_writer_create(path, &c.w) == TK_OK, "tk_writer_create", tk_writer_errmsg(c.w));
	struct tk_process_info p = {.pid = (int64_t)fz_u64(&c.in, 2), .rank = TK_NONE};
	p.name = fz_str(&c.in, pname, 63);
	p.host = fz_str(&c.in, host, 63);
	tk_writer_add_source(c.w, "fuzz", p.name, p.host, TK_NONE);
	tk_writer_add_process(c.w, &p, &c.pid);
	struct tk_device_info d = {.ordinal = 0,
				   .process_id = c.pid,
				   .rank = TK_NONE,
				   .sm_count = 132,
				   .clock_hz = 1980000000,
				   .memory_bytes = 1LL << 36,
				   .memory_bandwidth_bps = 3350000000000LL,
				   .peak_flops = 1e15,
				   .max_threads_per_sm = 2048,
				   .max_regs_per_sm = 65536,
				   .max_smem_per_sm = 233472};
	d.name = fz_str(&c.in, dname, 63);
	d.host = p.host;
	tk_writer_add_device(c.w, &d, &c.dev);
	struct tk_track_info t = {.kind = TK_TRACK_STREAM,
				  .process_id = c.pid,
				  .device_id = c.dev,
				  .tid = TK_NONE,
				  .stream_id = 7};
	t.name = fz_str(&c.in, sname, 63);
	tk_writer_add_track(c.w, &t, &c.stream_track);
	t = (struct tk_track_info){.kind = TK_TRACK_THREAD,
				   .process_id = c.pid,
				   .device_id = TK_NONE,
				   .tid = 1,
				   .stream_id = TK_NONE};
	t.name = fz_str(&c.in, tname, 63);
	tk_writer_add_track(c.w, &t, &c.host_track);
	t = (struct tk_track_info){.kind = TK_TRACK_COUNTER,
				   .process_id = c.pid,
				   .device_id = c.dev,
				   .tid = TK_NONE,
				   .stream_id = TK_NONE,
				   .name = t.name,
				   .unit = "bytes"};
	tk_writer_add_track(c.w, &t, &c.counter_track);
	for (int i = 0; i < FZ_MAX_RECORDS && c.in.n && tk_writer_status(c.w) == TK_OK; i++)
		add_record(&c);
	if (tk_writer_status(c.w) != TK_OK) { /* a call the writer refuses: not what is fuzzed */
		tk_writer_abort(c.w);
		return -1;
	}
	int rc = tk_writer_finish(c.w, fz_err());
	fz_check(rc == TK_OK, "tk_writer_finish", fz_errmsg());
	return 0;
}

#if FZ_CHECK_OUTPUT
/* 1 when @s (@n bytes) is valid UTF-8 (no overlongs, no surrogates, at most U+10FFFF). */
static int valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], need, cp;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			need = 1, cp = c & 0x1F;
		else if (c >= 0xE0 && c <= 0xEF)
			need = 2, cp = c & 0x0F;
		else if (c >= 0xF0 && c <= 0xF4)
			need = 3, cp = c & 0x07;
		else
			return 0;
		for (unsigned k = 1; k <= need; k++) {
			if (i + k >= n || (s[i + k] & 0xC0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if ((need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
		    (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			return 0;
		i += need + 1;
	}
	return 1;
}
#endif

/* Check one output: valid UTF-8, and for JSON, parseable. */
static void check_output(const char *buf, size_t len, enum tk_report_format f, const char *what)
{
#if FZ_CHECK_OUTPUT
	fz_check(valid_utf8((const unsigned char *)buf, len), "output is not valid UTF-8", what);
#if TK_FUZZ_HAVE_CJSON
	if (f == TK_REPORT_JSON) {
		cJSON *j = cJSON_ParseWithLength(buf, len);
		fz_check(j != NULL, "JSON output does not parse", what);
		cJSON_Delete(j);
	}
#endif
#endif
	(void)buf, (void)len, (void)f, (void)what;
}

static void run_one(const uint8_t *data, size_t size)
{
	const char *a = fz_path("before.db"), *b = fz_path("after.db");
	struct tk_analyze_options ao;
	struct tk_report_options ro;
	char *buf = NULL;
	size_t len = 0;
	if (size < 1)
		return;
	/* The first byte chooses the output (one per execution keeps the target fast): bits 0-1
	 * the format, bit 2 a diff against a store built from the second half of the input. */
	enum tk_report_format f = (enum tk_report_format)(data[0] & 3);
	int diff = (data[0] >> 2) & 1;
	data++, size--;
	if (build_store(a, data, size) != 0)
		return;
	if (diff && build_store(b, data + size / 2, size - size / 2) != 0)
		diff = 0;
	tk_analyze_options_init(&ao);
	int rc = tk_analyze(a, &ao, fz_err());
	fz_check(rc == TK_OK, "tk_analyze of a store the writer finished", fz_errmsg());
	if (diff) {
		rc = tk_analyze(b, &ao, fz_err());
		fz_check(rc == TK_OK, "tk_analyze of a store the writer finished", fz_errmsg());
	}
	tk_report_options_init(&ro);
	ro.format = f;
	ro.top = 1 + (int)(size % 25);
	FILE *out = open_memstream(&buf, &len);
	fz_check(out != NULL, "open_memstream", NULL);
	rc = diff ? tk_report_diff(out, a, b, &ro, fz_err())
		  : tk_report_write(out, a, &ro, fz_err());
	fclose(out);
	fz_check(rc == TK_OK, diff ? "tk_report_diff" : "tk_report_write", fz_errmsg());
	check_output(buf, len, f, diff ? "diff" : "report");
	free(buf);
	unlink(a);
	unlink(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run_one(data, size);
	fz_sqlite_check("building, analysing and reporting stores");
	return 0;
}
