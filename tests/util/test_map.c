/* Tests of the library's hash map (util/map.h): the index map with collisions, growth and
 * deletion, and the int64-tuple table over it, against a plain array as the reference. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/map.h"

/* The caller's side of an index map: keys in an array; hashes chosen by the test. */
struct keys {
	int64_t *k;
	size_t n;
	int64_t want;
};

static int same(const void *ctx, uint32_t ix)
{
	const struct keys *K = ctx;
	return K->k[ix] == K->want;
}

/* A hash with few distinct values: every key collides with many others. */
static uint64_t bad_hash(int64_t k)
{
	return (uint64_t)(k % 7) << 32 | (uint64_t)(k % 3);
}

static uint32_t find(const struct tku_map *m, struct keys *K, int64_t k, size_t *at)
{
	K->want = k;
	return tku_map_find(m, bad_hash(k), same, K, at);
}

Test(map, colliding_keys_are_told_apart_by_the_callback)
{
	struct tku_map m = {0};
	struct keys K = {calloc(1000, sizeof(int64_t)), 0, 0};
	size_t at;
	cr_assert_eq(find(&m, &K, 5, &at), TKU_MAP_NONE, "an empty map holds nothing");
	for (int64_t k = 0; k < 1000; k++) {
		cr_assert_eq(tku_map_room(&m), 0);
		cr_assert_eq(find(&m, &K, k, &at), TKU_MAP_NONE, "key %ld before it is added",
			     (long)k);
		K.k[K.n] = k;
		tku_map_set(&m, at, bad_hash(k), (uint32_t)K.n++);
	}
	cr_assert_eq(m.count, 1000);
	cr_assert_geq(m.cap, 2000, "at most half full after growing");
	for (int64_t k = 0; k < 1000; k++)
		cr_assert_eq(find(&m, &K, k, NULL), (uint32_t)k, "key %ld", (long)k);
	cr_assert_eq(find(&m, &K, 1000, NULL), TKU_MAP_NONE);
	tku_map_free(&m);
	tku_map_free(NULL);
	free(K.k);
}

Test(map, deletion_keeps_every_other_key_reachable)
{
	struct tku_map m = {0};
	enum { N = 4000 };
	struct keys K = {calloc(N, sizeof(int64_t)), 0, 0};
	size_t at;
	for (int64_t k = 0; k < N; k++) {
		cr_assert_eq(tku_map_room(&m), 0);
		find(&m, &K, k, &at);
		K.k[K.n] = k;
		tku_map_set(&m, at, bad_hash(k), (uint32_t)K.n++);
	}
	/* delete every third key: long runs of colliding keys must close up behind each */
	for (int64_t k = 0; k < N; k += 3) {
		cr_assert_neq(find(&m, &K, k, &at), TKU_MAP_NONE);
		tku_map_del(&m, at);
	}
	for (int64_t k = 0; k < N; k++) {
		uint32_t ix = find(&m, &K, k, NULL);
		if (k % 3 == 0)
			cr_assert_eq(ix, TKU_MAP_NONE, "deleted key %ld is gone", (long)k);
		else
			cr_assert_eq(ix, (uint32_t)k, "key %ld survives the deletions", (long)k);
	}
	cr_assert_eq(m.count, N - (N + 2) / 3);
	tku_map_clear(&m);
	cr_assert_eq(find(&m, &K, 1, NULL), TKU_MAP_NONE, "cleared");
	tku_map_free(&m);
	free(K.k);
}

struct elem {
	int64_t key[3];
	int64_t val;
};

Test(map, table_of_many_tuples_against_a_reference)
{
	struct tku_table t = TKU_TABLE_INIT(struct elem, 3);
	enum { N = 200000 };
	char *live = calloc(N, 1);
	/* add, then delete and re-add pseudo-random keys; the reference says which are live */
	uint64_t x = 12345;
	for (int round = 0; round < 3 * N; round++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		int64_t i = (int64_t)((x >> 33) % N);
		int64_t key[3] = {i, -i, i * 7};
		if (live[i] && round % 2) {
			struct elem out;
			cr_assert_eq(tku_table_del(&t, key, &out), 1);
			cr_assert_eq(out.val, i * 10);
			live[i] = 0;
		} else {
			int added;
			struct elem *e = tku_table_at(&t, key, &added);
			cr_assert_not_null(e);
			cr_assert_eq(added, !live[i], "added once, key %ld", (long)i);
			cr_assert(added ? e->val == 0 : e->val == i * 10,
				  "new elements are zeroed");
			e->val = i * 10;
			live[i] = 1;
		}
	}
	size_t n = 0;
	for (int64_t i = 0; i < N; i++) {
		int64_t key[3] = {i, -i, i * 7};
		struct elem *e = tku_table_get(&t, key);
		cr_assert_eq(e != NULL, live[i], "key %ld", (long)i);
		if (e)
			cr_assert_eq(e->val, i * 10);
		n += live[i];
	}
	cr_assert_eq(t.n, n, "one element per live key");
	for (size_t i = 0; i < t.n; i++) { /* the array holds exactly the live keys */
		const struct elem *e = tku_table_elem(&t, i);
		cr_assert(live[e->key[0]] && e->key[1] == -e->key[0]);
	}
	int64_t absent[3] = {1, 2, 3};
	cr_assert_eq(tku_table_del(&t, absent, NULL), 0);
	tku_table_clear(&t);
	cr_assert_eq(t.n, 0);
	cr_assert_null(tku_table_get(&t, (int64_t[3]){0, 0, 0}));
	tku_table_free(&t);
	tku_table_free(NULL);
	free(live);
}
