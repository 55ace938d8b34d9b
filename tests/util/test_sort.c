/* Tests of the stable inlined sort (util/sort.h) against a reference: arrays with many equal keys
 * (stability: equal keys keep their input order), sorted, reversed, in runs, of every small
 * size and of sizes around the run length, and an element larger than a machine word. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/sort.h"

struct item {
	int32_t key;
	uint32_t at; /* input position: the reference's tie-break, and what stability keeps */
};

#define ITEM_BEFORE(a, b) ((a)->key < (b)->key)
TKU_SORT_DEFINE(sort_items, struct item, ITEM_BEFORE)

/* A wide element, ordered by two fields as the analyses' keys are. */
struct wide {
	int64_t a, b;
	char pad[40];
	uint32_t at;
};

#define WIDE_BEFORE(x, y) ((x)->a != (y)->a ? (x)->a < (y)->a : (x)->b > (y)->b)
TKU_SORT_DEFINE(sort_wide, struct wide, WIDE_BEFORE)

/* The reference order: by key, then by input position (a stable sort's order). */
static int ref_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static int wide_cmp(const void *pa, const void *pb)
{
	const struct wide *x = pa, *y = pb;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b > y->b ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static uint64_t rng = 88172645463325252ull;
static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

enum shape { RANDOM, FEW_KEYS, SORTED, REVERSED, RUNS, SORTED_BUT_LAST, SHAPES };

static int32_t key_of(enum shape s, size_t i, size_t n)
{
	switch (s) {
	case RANDOM:
		return (int32_t)(next_rand() % 1000003u) - 500000;
	case FEW_KEYS:
		return (int32_t)(next_rand() % 4u);
	case SORTED:
		return (int32_t)(i / 3);
	case REVERSED:
		return (int32_t)(n - i);
	case RUNS: /* ascending runs of 1 to 100, each starting anywhere */
		return (int32_t)((i % 97) * 10 + (i / 97) % 7);
	case SORTED_BUT_LAST:
		return i + 1 == n ? -1 : (int32_t)i;
	default:
		return 0;
	}
}

static void check_items(size_t n, enum shape s)
{
	struct item *v = malloc((n ? n : 1) * sizeof(*v)),
		    *ref = malloc((n ? n : 1) * sizeof(*ref));
	cr_assert(v && ref);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct item){key_of(s, i, n), (uint32_t)i};
	memcpy(ref, v, n * sizeof(*v));
	qsort(ref, n, sizeof(*ref), ref_cmp);
	cr_assert_eq(sort_items(v, n), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert(v[i].key == ref[i].key && v[i].at == ref[i].at,
			  "n %zu shape %d: element %zu is (%d, %u), want (%d, %u)", n, (int)s, i,
			  v[i].key, v[i].at, ref[i].key, ref[i].at);
	free(v);
	free(ref);
}

Test(sort, every_small_size_and_shape)
{
	for (int s = 0; s < SHAPES; s++)
		for (size_t n = 0; n <= 3 * TKU_SORT_MIN_RUN + 5; n++)
			check_items(n, (enum shape)s);
}

Test(sort, large_arrays_stable_like_a_reference)
{
	static const size_t sizes[] = {1000, 4097, 100003};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (int s = 0; s < SHAPES; s++)
			check_items(sizes[k], (enum shape)s);
}

Test(sort, wide_elements_two_keys)
{
	size_t n = 20011;
	struct wide *v = calloc(n, sizeof(*v)), *ref = calloc(n, sizeof(*ref));
	cr_assert(v && ref);
	for (size_t i = 0; i < n; i++) {
		v[i].a = (int64_t)(next_rand() % 50u) << 33;
		v[i].b = (int64_t)(next_rand() % 20u) - 10;
		memset(v[i].pad, (int)(i & 0x7f), sizeof(v[i].pad));
		v[i].at = (uint32_t)i;
	}
	memcpy(ref, v, n * sizeof(*v));
	qsort(ref, n, sizeof(*ref), wide_cmp);
	cr_assert_eq(sort_wide(v, n), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert(v[i].a == ref[i].a && v[i].b == ref[i].b && v[i].at == ref[i].at &&
			      !memcmp(v[i].pad, ref[i].pad, sizeof(v[i].pad)),
			  "element %zu differs from the reference", i);
	free(v);
	free(ref);
}
