/* SPDX-License-Identifier: MIT */
/* test_idcache.c - the writer thread's key -> symbol id cache (agent/core/idcache.h): exact hits and misses, growth
 * at half full (4096 slots first, then doubling), no eviction (every entry survives every growth), uncached misses,
 * colliding keys. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "idcache.h"

/* The cache's use by the decoders: a hit returns the cached id, a miss resolves (@id_of) and caches. */
static int64_t get(struct emp_idcache *c, uint64_t key, int64_t (*id_of)(uint64_t))
{
	struct emp_idcache_slot *s = emp_idcache_lookup(c, key);
	cr_assert_not_null(s);
	if (s->key) {
		cr_assert_eq(s->key, key);
		return s->id;
	}
	int64_t id = id_of(key);
	emp_idcache_insert(c, s, key, id);
	return id;
}

static unsigned resolved;
static int64_t resolve(uint64_t key)
{
	resolved++;
	return (int64_t)(key * 3 + 1);
}

Test(idcache, hits_and_misses_exactly)
{
	struct emp_idcache c = { 0 };
	resolved = 0;
	cr_assert_eq(get(&c, 0x7f0000001000, resolve), 0x7f0000001000 * 3 + 1);
	cr_assert_eq(get(&c, 0x7f0000001000, resolve), 0x7f0000001000 * 3 + 1);
	cr_assert_eq(get(&c, 0x7f0000002000, resolve), 0x7f0000002000 * 3 + 1);
	cr_assert_eq(get(&c, 0x7f0000001000, resolve), 0x7f0000001000 * 3 + 1);
	cr_assert_eq(c.hits, 2);
	cr_assert_eq(c.misses, 2);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(resolved, 2);
	cr_assert_eq(c.cap, 4096);
	emp_idcache_free(&c);
	cr_assert_eq(c.cap, 0);
	cr_assert_eq(c.n, 0);
	cr_assert_eq(c.hits + c.misses, 0);
}

Test(idcache, grows_at_half_full_and_never_evicts)
{
	struct emp_idcache c = { 0 };
	resolved = 0;
	/* 2048 entries fit 4096 slots; the lookup for the 2049th doubles the table first. */
	for (uint64_t k = 1; k <= 2048; k++)
		get(&c, k * 8, resolve);
	cr_assert_eq(c.cap, 4096);
	get(&c, 2049 * 8, resolve);
	cr_assert_eq(c.cap, 8192);
	for (uint64_t k = 2050; k <= 10000; k++)
		get(&c, k * 8, resolve);
	cr_assert_eq(c.cap, 32768);
	cr_assert_eq(c.n, 10000);
	cr_assert_eq(c.misses, 10000);
	cr_assert_eq(c.hits, 0);
	/* Nothing was evicted by the three growths: every key is still a hit, with its own id. */
	for (uint64_t k = 1; k <= 10000; k++)
		cr_assert_eq(get(&c, k * 8, resolve), (int64_t)(k * 8 * 3 + 1), "key %llu", (unsigned long long)k);
	cr_assert_eq(c.hits, 10000);
	cr_assert_eq(c.misses, 10000);
	cr_assert_eq(resolved, 10000);
	cr_assert_eq(c.n, 10000);
	emp_idcache_free(&c);
}

Test(idcache, uncached_miss_stays_a_miss)
{
	struct emp_idcache c = { 0 };
	/* A decoder that could not resolve the key does not insert: the next lookup misses again. */
	for (int i = 0; i < 3; i++) {
		struct emp_idcache_slot *s = emp_idcache_lookup(&c, 42);
		cr_assert_not_null(s);
		cr_assert_eq(s->key, 0);
	}
	cr_assert_eq(c.misses, 3);
	cr_assert_eq(c.hits, 0);
	cr_assert_eq(c.n, 0);
	emp_idcache_free(&c);
}

Test(idcache, colliding_keys_keep_their_ids)
{
	struct emp_idcache c = { 0 };
	/* Keys that differ only above the bits the hash keeps for 4096 slots land on one chain. */
	const uint64_t base = 0x1000, step = 1ull << 40;
	for (uint64_t i = 0; i < 64; i++) {
		struct emp_idcache_slot *s = emp_idcache_lookup(&c, base + i * step);
		cr_assert_eq(s->key, 0);
		emp_idcache_insert(&c, s, base + i * step, (int64_t)i);
	}
	for (uint64_t i = 0; i < 64; i++) {
		struct emp_idcache_slot *s = emp_idcache_lookup(&c, base + i * step);
		cr_assert_eq(s->key, base + i * step);
		cr_assert_eq(s->id, (int64_t)i);
	}
	cr_assert_eq(c.misses, 64);
	cr_assert_eq(c.hits, 64);
	emp_idcache_free(&c);
}
