/* SPDX-License-Identifier: MIT */
/* ring.c - allocation of the per-thread rings; the lock-free protocol is in ring.h. */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int emp_ring_init(struct emp_ring *r, uint64_t size)
{
	memset(r, 0, sizeof(*r));
	if (size < 4096 || (size & (size - 1)))
		return -EINVAL;
	/* Page-aligned; pages are faulted in as the ring fills (a fault is allowed in a signal handler, and touching
	 * every ring up front would cost memory on applications with thousands of idle threads). */
	if (posix_memalign((void **)&r->data, 4096, size))
		return -ENOMEM;
	r->size = size;
	r->mask = size - 1;
	r->wake_at = size / 4;
	return 0;
}

void emp_ring_destroy(struct emp_ring *r)
{
	free(r->data);
	r->data = NULL;
}
