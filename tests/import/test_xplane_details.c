/*
 * Tests of the XPlane importer's kernel_details cache: whatever order and however many distinct
 * texts arrive (more than the cache has slots, near-identical texts, texts longer than a slot,
 * the three known variants), the cached result equals parsing the text afresh.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "../../import/xplane_internal.h"

static struct tk_kernel_info blank(void)
{
	struct tk_kernel_info k = {.grid = {TK_NONE, TK_NONE, TK_NONE},
				   .block = {TK_NONE, TK_NONE, TK_NONE},
				   .registers = TK_NONE,
				   .static_smem = TK_NONE,
				   .dynamic_smem = TK_NONE,
				   .occupancy = -1,
				   .blocks_per_sm = -1,
				   .warps_per_sm = -1};
	return k;
}

static void expect_same(const struct tk_kernel_info *a, const struct tk_kernel_info *b,
			const char *text)
{
	for (int d = 0; d < 3; d++) {
		cr_expect_eq(a->grid[d], b->grid[d], "grid[%d] of '%s'", d, text);
		cr_expect_eq(a->block[d], b->block[d], "block[%d] of '%s'", d, text);
	}
	cr_expect_eq(a->registers, b->registers, "registers of '%s'", text);
	cr_expect_eq(a->static_smem, b->static_smem, "static_smem of '%s'", text);
	cr_expect_eq(a->dynamic_smem, b->dynamic_smem, "dynamic_smem of '%s'", text);
	cr_expect(a->occupancy == b->occupancy, "occupancy of '%s'", text);
}

/* Text number @i: one of the three variants, with fields that differ from its neighbours'. */
static void text_of(unsigned i, char *buf, size_t n)
{
	switch (i % 4) {
	case 0: /* current CUDA */
		snprintf(buf, n,
			 "regs:%u static_shared:0 dynamic_shared:%u grid:%u,1,1 block:256,1,1 "
			 "occ_pct:%u.5",
			 16 + i % 200, i * 16, 1 + i, i % 99);
		break;
	case 1: /* ROCm */
		snprintf(buf, n, "regs:%u group_mem:%u grid:%u,2,1 block:64,%u,1 occ_pct:0",
			 i % 128, i, i + 3, 1 + i % 4);
		break;
	case 2: /* TF 2020 */
		snprintf(buf, n, "regs:%u shm:%u grid:%u,1,1 block:%u,1,1", 8 + i % 64, i * 4, i,
			 32 * (1 + i % 8));
		break;
	default: /* longer than a cache slot: parsed every time */
		snprintf(buf, n,
			 "regs:%u static_shared:%u dynamic_shared:0 grid:%u,1,1 block:128,1,1 "
			 "occ_pct:25 %0*u",
			 i % 255, i, i, XP_KD_MAX_TEXT, i);
		break;
	}
}

Test(xplane_details, cache_agrees_with_a_fresh_parse)
{
	struct xp_imp im;
	char text[2 * XP_KD_MAX_TEXT];
	memset(&im, 0, sizeof(im));
	/* 3000 distinct texts (6x the slots), each met several times in a scrambled order. */
	const unsigned distinct = 3000;
	unsigned x = 12345;
	for (unsigned round = 0; round < 20000; round++) {
		x = x * 1103515245u + 12345u;
		unsigned i = round < distinct ? round : (x >> 8) % distinct;
		text_of(i, text, sizeof(text));
		struct tk_kernel_info want = blank(), got = blank();
		xp_parse_kernel_details(text, &want);
		xp_kernel_details(&im, text, &got);
		expect_same(&got, &want, text);
		if (round == 0)
			cr_assert_eq(want.registers, 16); /* the parse itself ran */
	}
	free(im.kd_cache);
}

Test(xplane_details, texts_that_differ_in_one_byte_stay_apart)
{
	struct xp_imp im;
	memset(&im, 0, sizeof(im));
	const char *a = "regs:32 static_shared:0 dynamic_shared:0 grid:80,1,1 block:256,1,1";
	const char *b = "regs:33 static_shared:0 dynamic_shared:0 grid:80,1,1 block:256,1,1";
	for (int r = 0; r < 3; r++) {
		struct tk_kernel_info ka = blank(), kb = blank();
		xp_kernel_details(&im, a, &ka);
		xp_kernel_details(&im, b, &kb);
		cr_expect_eq(ka.registers, 32);
		cr_expect_eq(kb.registers, 33);
		cr_expect_eq(ka.grid[0], 80);
		cr_expect_eq(kb.block[0], 256);
	}
	struct tk_kernel_info e = blank();
	xp_kernel_details(&im, "", &e); /* empty text: nothing set */
	cr_expect_eq(e.registers, TK_NONE);
	free(im.kd_cache);
}
