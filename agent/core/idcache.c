/* SPDX-License-Identifier: MIT */
/* idcache.c - u64 key -> symbol id cache; see idcache.h. */
#include "idcache.h"

#include <stdlib.h>

#define EMP_IDCACHE_FIRST_CAP 4096

static struct emp_idcache_slot *probe(const struct emp_idcache *c, uint64_t key)
{
	size_t mask = c->cap - 1;
	for (size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & mask;; i = (i + 1) & mask)
		if (!c->slots[i].key || c->slots[i].key == key)
			return &c->slots[i];
}

static int grow(struct emp_idcache *c)
{
	size_t old_cap = c->cap, cap = old_cap ? old_cap * 2 : EMP_IDCACHE_FIRST_CAP;
	struct emp_idcache_slot *old = c->slots, *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	c->slots = slots;
	c->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].key)
			*probe(c, old[i].key) = old[i];
	free(old);
	return 0;
}

struct emp_idcache_slot *emp_idcache_lookup(struct emp_idcache *c, uint64_t key)
{
	if (2 * (c->n + 1) > c->cap && grow(c))
		return NULL;
	struct emp_idcache_slot *s = probe(c, key);
	if (s->key)
		c->hits++;
	else
		c->misses++;
	return s;
}

void emp_idcache_insert(struct emp_idcache *c, struct emp_idcache_slot *slot, uint64_t key, int64_t id)
{
	slot->key = key;
	slot->id = id;
	c->n++;
}

void emp_idcache_free(struct emp_idcache *c)
{
	free(c->slots);
	*c = (struct emp_idcache){ 0 };
}
