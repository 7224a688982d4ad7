/* SPDX-License-Identifier: MIT */
/* idcache.h - a cache from nonzero 64-bit keys (jmethodIDs, native function addresses) to symbol ids, for the
 * writer thread's decoders (agent/sample: sampler.c, native.c).
 *
 * Open addressing with linear probing, multiplicative (Fibonacci) hashing; the table doubles (first 4096 slots)
 * before it would become more than half full, so a lookup always finds its key or an empty slot.  Nothing is ever
 * evicted: an entry stays until emp_idcache_free().  Not thread-safe (one thread owns a cache), not signal-safe
 * (it allocates).
 *
 * Use: s = emp_idcache_lookup(c, key); if s->key, s->id is the cached id (a hit); else resolve the id and, to cache
 * it, emp_idcache_insert(c, s, key, id) before the next lookup (a miss may also be left uncached). */
#ifndef EMP_IDCACHE_H
#define EMP_IDCACHE_H

#include <stddef.h>
#include <stdint.h>

struct emp_idcache_slot {
	uint64_t key; /* 0: empty */
	int64_t id;
};

struct emp_idcache {
	struct emp_idcache_slot *slots;
	size_t cap, n;         /* slots (0 or a power of two), entries */
	uint64_t hits, misses; /* lookups that found their key / did not (statistics, for tests) */
};

/* emp_idcache_lookup - @key's slot (a key of 0 is never found): slot->key == @key when cached, else slot->key == 0 and the slot is
 * where emp_idcache_insert() puts @key.  Grows the table first when one more entry would make it more than half
 * full.  Return: the slot, or NULL when growing ran out of memory (the cache is unchanged). */
struct emp_idcache_slot *emp_idcache_lookup(struct emp_idcache *c, uint64_t key);

/* emp_idcache_insert - cache @id for @key in @slot, the empty slot the last emp_idcache_lookup(@key) returned. */
void emp_idcache_insert(struct emp_idcache *c, struct emp_idcache_slot *slot, uint64_t key, int64_t id);

/* emp_idcache_free - drop every entry and the table; the cache is empty (and usable) again. */
void emp_idcache_free(struct emp_idcache *c);

#endif /* EMP_IDCACHE_H */
