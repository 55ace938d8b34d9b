/*
 * Checks of text tracekit writes (tests of docs/reports.md "Text safety"): a strict UTF-8
 * validator written from the Unicode table of well-formed byte sequences (independent of the
 * library's decoder), and the store whose names carry every kind of hostile text: invalid UTF-8
 * (bytes FF FE, an overlong C0 AF, a surrogate ED A0 80, a sequence cut short E2 82, a code point
 * above U+10FFFF), terminal escape sequences, a C1 control, a newline, Markdown pipes and
 * backticks, U+202E and an HTML script tag.
 */
#ifndef TK_TEXT_CHECK_H
#define TK_TEXT_CHECK_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define TC_BAD "bad\xff\xfe"
#define TC_OVERLONG "overlong\xc0\xaf"
#define TC_SURROGATE "surrogate\xed\xa0\x80"
#define TC_TRUNC "truncated\xe2\x82"
#define TC_BIG "beyond\xf4\x90\x80\x80"
#define TC_ESC "esc\x1b[31mred\x1b[0m"
#define TC_CSI        \
	"csi\xc2\x9b" \
	"2J"
#define TC_NL "new\nline"
#define TC_PIPE "pipe|tick`x`|end"
#define TC_RLO            \
	"rlo\xe2\x80\xae" \
	"gnp.exe"
#define TC_SCRIPT "<script>alert(1)</script>"
#define TC_PROC "proc\x1b]0;owned\x07\xff"
#define TC_DEVICE "GPU\xff\xfe\x1b[2J"
#define TC_REPL "\xef\xbf\xbd" /* U+FFFD */
#define TC_E300_LEN 300	       /* the host thread's name: "é" 300 times (600 bytes, longer than */
/* the exporters' name buffers, so that a cut can split a character) */

/* Length of the well-formed sequence at @s (@n bytes left), 0 when ill-formed (Unicode 15, 3.9). */
static inline size_t tc_wellformed(const unsigned char *s, size_t n)
{
	static const struct {
		unsigned char lo, hi, lo2, hi2;
		size_t len;
	} rows[] = {
	    {0x00, 0x7F, 0, 0, 1},	 {0xC2, 0xDF, 0x80, 0xBF, 2}, {0xE0, 0xE0, 0xA0, 0xBF, 3},
	    {0xE1, 0xEC, 0x80, 0xBF, 3}, {0xED, 0xED, 0x80, 0x9F, 3}, {0xEE, 0xEF, 0x80, 0xBF, 3},
	    {0xF0, 0xF0, 0x90, 0xBF, 4}, {0xF1, 0xF3, 0x80, 0xBF, 4}, {0xF4, 0xF4, 0x80, 0x8F, 4},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		if (s[0] < rows[r].lo || s[0] > rows[r].hi)
			continue;
		size_t len = rows[r].len;
		if (len > n)
			return 0;
		if (len > 1 && (s[1] < rows[r].lo2 || s[1] > rows[r].hi2))
			return 0;
		for (size_t k = 2; k < len; k++)
			if (s[k] < 0x80 || s[k] > 0xBF)
				return 0;
		return len;
	}
	return 0;
}

/* Offset of the first ill-formed byte of @s (@n bytes), or -1 when it is all valid UTF-8. */
static inline long tc_invalid_at(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t len = tc_wellformed(u + i, n - i);
		if (!len)
			return (long)i;
		i += len;
	}
	return -1;
}

/* Expect @s (@what names it) to be valid UTF-8. */
#define TC_EXPECT_UTF8(s, what)                                                            \
	do {                                                                               \
		long at_ = tc_invalid_at((s), strlen(s));                                  \
		cr_expect(at_ < 0, "%s: invalid UTF-8 at byte %ld: ...%.40s", (what), at_, \
			  at_ < 0 ? "" : (s) + (at_ > 20 ? at_ - 20 : 0));                 \
	} while (0)

/* 1 when @s holds a bidirectional control (raw, as UTF-8). */
static inline int tc_has_bidi(const char *s)
{
	static const char *const bidi[] = {"\xd8\x9c",	   "\xe2\x80\x8e", "\xe2\x80\x8f",
					   "\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac",
					   "\xe2\x80\xad", "\xe2\x80\xae", "\xe2\x81\xa6",
					   "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9"};
	for (size_t i = 0; i < sizeof(bidi) / sizeof(bidi[0]); i++)
		if (strstr(s, bidi[i]))
			return 1;
	return 0;
}

/* The hostile kernel names, in the order the store has them. */
static const char *const tc_kernels[] = {TC_BAD,  TC_OVERLONG, TC_SURROGATE, TC_TRUNC,
					 TC_BIG,  TC_ESC,      TC_CSI,	     TC_NL,
					 TC_PIPE, TC_RLO,      TC_SCRIPT};
#define TC_NKERNELS (sizeof(tc_kernels) / sizeof(tc_kernels[0]))

/*
 * Write the hostile store at @path and analyse it: one process (TC_PROC) with a host thread
 * named "é" x 300, one device (TC_DEVICE) whose stream is named TC_OVERLONG; each kernel of
 * tc_kernels launched from the thread, TC_BAD long enough to dominate the device, idle gaps
 * between them, so that findings name them in their evidence.
 */
static inline void tc_write_store(const char *path)
{
	tk_writer *w = NULL;
	char thread[2 * TC_E300_LEN + 1];
	for (int i = 0; i < TC_E300_LEN; i++)
		memcpy(thread + 2 * i, "\xc3\xa9", 2);
	thread[2 * TC_E300_LEN] = '\0';
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	int64_t proc, dev, thr, stream;
	struct tk_process_info p = {10, TC_PROC, "node" TC_RLO, 0};
	TKT_OK(tk_writer_add_source(w, "synth", NULL, "node", 0));
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {
	    0,	 "gpu",	     TC_DEVICE,	    "nvidia",	     "node", proc, 0,	  "9.0",
	    132, 1980000000, 85899345920LL, 3350000000000LL, 989e12, 2048, 65536, 233472};
	TKT_OK(tk_writer_add_device(w, &d, &dev));
	struct tk_track_info t1 = {TK_TRACK_THREAD, thread, proc, TK_NONE, 1, TK_NONE, NULL};
	struct tk_track_info t2 = {TK_TRACK_STREAM, TC_OVERLONG, proc, dev, TK_NONE, 7, NULL};
	TKT_OK(tk_writer_add_track(w, &t1, &thr));
	TKT_OK(tk_writer_add_track(w, &t2, &stream));
	tkt_ev(w, thr, TK_EV_HOST_OP, TC_ESC, "cpu_op", 0, 20000);
	int64_t t = TKT_T0 + 1000;
	for (size_t k = 0; k < TC_NKERNELS; k++) {
		int64_t dur = k == 0 ? 900000 : 5000;
		tkt_launched_op(w, thr, stream, TK_EV_KERNEL, tc_kernels[k], t + 3000, dur, t);
		t += 3000 + dur + 2000;
	}
	tkt_finish(w);
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
}

/* A per-test directory and the hostile store in it, for suites declared with
 * .init = tc_setup, .fini = tc_teardown. */
static char *tc_dir __attribute__((unused)), *tc_db __attribute__((unused));

static inline void tc_setup(void)
{
	tc_dir = tkt_mkdtemp();
	tc_db = tkt_path(tc_dir, "hostile.db");
	tc_write_store(tc_db);
}

static inline void tc_teardown(void)
{
	tkt_rmdir(tc_dir);
	free(tc_db);
	free(tc_dir);
}

#endif
