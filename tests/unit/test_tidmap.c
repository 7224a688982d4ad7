/* SPDX-License-Identifier: MIT */
/* test_tidmap.c - the lock-free tid map the signal handler reads to find a JVM thread's state (threads=all,
 * agent/sample/tidmap.c) — exact results against a reference model over random operations with collisions and
 * tombstones, a remove that waits for the reader holding the value, and a stress test in which readers must never
 * hold a value that was removed or that belongs to another key. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "sampler.h"

Test(tidmap, init_checks_capacity)
{
	struct emp_tidmap m;
	cr_assert_eq(emp_tidmap_init(&m, 0), -EINVAL);
	cr_assert_eq(emp_tidmap_init(&m, 1), -EINVAL);
	cr_assert_eq(emp_tidmap_init(&m, 12), -EINVAL);
	cr_assert_null(m.slots);
	cr_assert_eq(emp_tidmap_init(&m, 8), 0);
	cr_assert_eq(m.mask, 7u);
	emp_tidmap_destroy(&m);
	cr_assert_null(m.slots);
}

Test(tidmap, put_get_remove)
{
	struct emp_tidmap m;
	int a, b;
	struct emp_tidmap_slot *held;
	cr_assert_eq(emp_tidmap_init(&m, 16), 0);
	cr_assert_null(emp_tidmap_get(&m, 100));
	cr_assert_null(emp_tidmap_enter(&m, 100, &held));
	cr_assert_eq(emp_tidmap_put(&m, 100, &a), 0);
	cr_assert_eq(emp_tidmap_put(&m, 101, &b), 0);
	cr_assert_eq(emp_tidmap_put(&m, 100, &b), -EEXIST);
	cr_assert_eq(emp_tidmap_put(&m, 0, &a), -EINVAL);
	cr_assert_eq(emp_tidmap_put(&m, -1, &a), -EINVAL, "-1 is the tombstone, never a key");
	cr_assert_eq(emp_tidmap_put(&m, 102, NULL), -EINVAL);
	cr_assert_eq(m.live, 2u);
	cr_assert_eq(emp_tidmap_get(&m, 100), &a, "EEXIST left the value unchanged");
	cr_assert_eq(emp_tidmap_get(&m, 101), &b);
	cr_assert_eq(emp_tidmap_enter(&m, 101, &held), &b);
	cr_assert_eq(atomic_load(&held->busy), 1u);
	emp_tidmap_leave(held);
	cr_assert_eq(atomic_load(&held->busy), 0u);
	cr_assert_eq(emp_tidmap_remove(&m, 100), &a);
	cr_assert_null(emp_tidmap_remove(&m, 100));
	cr_assert_null(emp_tidmap_get(&m, 100));
	cr_assert_null(emp_tidmap_enter(&m, 100, &held));
	cr_assert_eq(emp_tidmap_get(&m, 101), &b);
	cr_assert_eq(m.live, 1u);
	cr_assert_null(emp_tidmap_enter(&m, 0, &held));
	emp_tidmap_destroy(&m);
}

Test(tidmap, half_full_then_tombstones_reused)
{
	struct emp_tidmap m;
	int v[8];
	cr_assert_eq(emp_tidmap_init(&m, 8), 0);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(emp_tidmap_put(&m, 10 + i, &v[i]), 0);
	cr_assert_eq(emp_tidmap_put(&m, 20, &v[4]), -ENOSPC, "at most half the slots hold keys");
	/* Churn far beyond the capacity: removed slots are reused, so a map of 8 slots serves any number of tids. */
	for (int round = 0; round < 1000; round++) {
		pid_t old = 10 + round % 4 + 4 * (round / 4), tid = old + 4;
		cr_assert_eq(emp_tidmap_remove(&m, old), &v[round % 4], "round %d", round);
		cr_assert_eq(emp_tidmap_put(&m, tid, &v[round % 4]), 0, "round %d", round);
		cr_assert_eq(m.live, 4u);
	}
	for (int i = 0; i < 4; i++)
		cr_assert_eq(emp_tidmap_get(&m, 1010 + i), &v[i]);
	emp_tidmap_destroy(&m);
}

/* A seeded xorshift, so a failure repeats. */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Random puts and removes over 40 tids in 16 slots (long probe chains, many tombstones), against a plain array:
 * after every operation, get() and enter() agree with the model for every tid. */
Test(tidmap, model_check)
{
	enum { TIDS = 40, SLOTS = 16 };
	struct emp_tidmap m;
	int values[TIDS + 1];
	void *model[TIDS + 1] = { 0 };
	unsigned live = 0;
	cr_assert_eq(emp_tidmap_init(&m, SLOTS), 0);
	for (int op = 0; op < 20000; op++) {
		pid_t tid = (pid_t)(1 + rnd() % TIDS);
		if (rnd() % 2) {
			int rc = emp_tidmap_put(&m, tid, &values[tid]);
			int want = model[tid] ? -EEXIST : 2 * (live + 1) > SLOTS ? -ENOSPC : 0;
			cr_assert_eq(rc, want, "op %d put %d", op, (int)tid);
			if (!rc) {
				model[tid] = &values[tid];
				live++;
			}
		} else {
			cr_assert_eq(emp_tidmap_remove(&m, tid), model[tid], "op %d remove %d", op, (int)tid);
			if (model[tid])
				live--;
			model[tid] = NULL;
		}
		cr_assert_eq(m.live, live);
		for (pid_t t = 1; t <= TIDS; t++) {
			struct emp_tidmap_slot *held = NULL;
			cr_assert_eq(emp_tidmap_get(&m, t), model[t], "op %d get %d", op, (int)t);
			void *v = emp_tidmap_enter(&m, t, &held);
			cr_assert_eq(v, model[t], "op %d enter %d", op, (int)t);
			if (v)
				emp_tidmap_leave(held);
		}
	}
	emp_tidmap_destroy(&m);
}

struct remover {
	struct emp_tidmap *m;
	void *removed;
	atomic_int done;
};

static void *remove_main(void *arg)
{
	struct remover *r = arg;
	r->removed = emp_tidmap_remove(r->m, 42);
	atomic_store(&r->done, 1);
	return NULL;
}

/* The guarantee the signal handler relies on: remove() does not return while a reader holds the value. */
Test(tidmap, remove_waits_for_the_reader)
{
	struct emp_tidmap m;
	int value;
	struct emp_tidmap_slot *held;
	cr_assert_eq(emp_tidmap_init(&m, 8), 0);
	cr_assert_eq(emp_tidmap_put(&m, 42, &value), 0);
	cr_assert_eq(emp_tidmap_enter(&m, 42, &held), &value);
	struct remover r = { .m = &m };
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, remove_main, &r), 0);
	/* Give a remove that does not wait every chance to return (no timing is asserted: it must not return). */
	for (int i = 0; i < 20; i++) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	cr_assert_eq(atomic_load(&r.done), 0, "remove() returned while the value was held");
	struct emp_tidmap_slot *again;
	cr_assert_null(emp_tidmap_enter(&m, 42, &again), "a new reader does not get a value being removed");
	emp_tidmap_leave(held);
	pthread_join(th, NULL);
	cr_assert_eq(atomic_load(&r.done), 1);
	cr_assert_eq(r.removed, &value);
	cr_assert_null(emp_tidmap_get(&m, 42));
	emp_tidmap_destroy(&m);
}

/* Stress: readers look up tids while a writer keeps 3 of 12 tids mapped in 8 slots, removing one and putting
 * another each round, so slots are reused by other tids all the time and values are recycled across tids.  A value
 * is "owned" by one tid from its put to the return of its remove; a reader must only ever hold a value owned by the
 * tid it asked for, for the whole time it holds it.  (A remove that does not wait for the reader fails this at
 * once; a reader that skips the re-check of the key after taking the value — the slot reused for another tid
 * between its two loads — only rarely: that window is a few instructions wide.) */
enum { STRESS_READERS = 3, STRESS_TIDS = 12, STRESS_LIVE = 3, STRESS_VALUES = 8, STRESS_ROUNDS = 1000000 };
struct stress_value {
	_Atomic pid_t owner; /* 0 while free */
};
static struct {
	struct emp_tidmap m;
	struct stress_value values[STRESS_VALUES];
	atomic_int stop;
	atomic_ulong hits, violations;
} st;

static void *stress_reader(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg;
	while (!atomic_load_explicit(&st.stop, memory_order_relaxed)) {
		pid_t tid = (pid_t)(1000 + k++ % STRESS_TIDS);
		struct emp_tidmap_slot *held;
		struct stress_value *v = emp_tidmap_enter(&st.m, tid, &held);
		if (!v)
			continue;
		for (int i = 0; i < 32; i++) /* a while: a remove that does not wait has time to free it */
			if (atomic_load_explicit(&v->owner, memory_order_relaxed) != tid)
				atomic_fetch_add(&st.violations, 1);
		emp_tidmap_leave(held);
		atomic_fetch_add_explicit(&st.hits, 1, memory_order_relaxed);
	}
	return NULL;
}

Test(tidmap, stress_readers_never_hold_a_removed_value)
{
	cr_assert_eq(emp_tidmap_init(&st.m, 8), 0);
	pthread_t readers[STRESS_READERS];
	for (int r = 0; r < STRESS_READERS; r++)
		cr_assert_eq(pthread_create(&readers[r], NULL, stress_reader, (void *)(uintptr_t)(5 * r)), 0);
	unsigned next = 0;
	for (int round = 0; round < STRESS_ROUNDS; round++) {
		pid_t out = 1000 + (round + STRESS_TIDS - STRESS_LIVE) % STRESS_TIDS, in = 1000 + round % STRESS_TIDS;
		struct stress_value *old = emp_tidmap_remove(&st.m, out);
		if (old)
			atomic_store_explicit(&old->owner, 0, memory_order_relaxed); /* freed */
		/* the next free value, possibly one another tid owned a moment ago */
		struct stress_value *v;
		do
			v = &st.values[next++ % STRESS_VALUES];
		while (atomic_load_explicit(&v->owner, memory_order_relaxed));
		atomic_store_explicit(&v->owner, in, memory_order_relaxed);
		cr_assert_eq(emp_tidmap_put(&st.m, in, v), 0, "round %d", round);
	}
	atomic_store(&st.stop, 1);
	for (int r = 0; r < STRESS_READERS; r++)
		pthread_join(readers[r], NULL);
	cr_log_info("tidmap stress: %lu reader hits", atomic_load(&st.hits));
	cr_assert_eq(atomic_load(&st.violations), 0ul);
	cr_assert_gt(atomic_load(&st.hits), 0ul, "the readers found their values");
	emp_tidmap_destroy(&st.m);
}
