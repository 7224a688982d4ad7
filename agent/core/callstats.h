/* SPDX-License-Identifier: MIT */
/* callstats.h - per traced method: calls and self time, counted by the writer thread as it drains the rings (the
 * probes do no extra work), and whether budget= removed its probes; and the CPU time of the traced threads, the
 * budget's base.  For trace mode's budget= (agent/trace/
 * budget.h): the hook registers each selected method with its class, the writer counts, the controller reads.
 * Off (every function a no-op) until emp_callstats_enable(). */
#ifndef EMP_CALLSTATS_H
#define EMP_CALLSTATS_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

/* One method.  calls/self_ticks: written by the writer thread only, read by the controller (relaxed: statistics,
 * a period late at worst).  seen_*: the controller's own.  klass: (P) store_release by the hook in
 * emp_callstats_method() pairs with (Q) load_acquire in emp_callstats_class().  removed: (R) store_release in
 * emp_callstats_remove() (before the retransformation) pairs with (S) load_acquire in emp_callstats_removed()
 * (the hook). */
struct emp_callstat {
	_Atomic uint64_t calls, self_ticks;
	uint64_t seen_calls, seen_self;
	_Atomic(char *) klass;
	_Atomic int removed;
};

struct emp_callstats_stack;

/* Agent_OnLoad, before any other thread runs. */
void emp_callstats_enable(void);
int emp_callstats_on(void);

/* The hook: method @id of class @klass (internal name) is selected.  Thread-safe. */
void emp_callstats_method(uint32_t id, const char *klass);
/* The hook: whether @id's probes were removed. */
int emp_callstats_removed(uint32_t id);

/* Controller: ids registered so far are below this; the stats of @id (NULL when never registered); its class. */
uint32_t emp_callstats_max_id(void);
struct emp_callstat *emp_callstats_get(uint32_t id);
const char *emp_callstats_class(struct emp_callstat *m);
void emp_callstats_remove(struct emp_callstat *m);

/* Writer thread: one drained trace record (ring.h emp_trace_rec_get()) of a thread whose open calls are in *@s. */
void emp_callstats_note(struct emp_callstats_stack **s, uint32_t type, uint32_t method, uint64_t ticks);
void emp_callstats_stack_free(struct emp_callstats_stack *s);

/* A traced thread's CPU clock as last read, the writer's own.  Zero it for a new thread. */
struct emp_callstats_cpu {
	uint64_t ns; /* the reading; 0: none yet */
	uint64_t at; /* CLOCK_MONOTONIC ns of it */
};
#define EMP_CALLSTATS_CPU_NS (10 * 1000000ull) /* how often a thread's CPU clock is read, at most */
/* Writer thread, once per pass for each platform thread with a state (in trace mode: one that ran traced code),
 * @tid its OS thread (0: none, nothing done), @now_ns CLOCK_MONOTONIC: add its CPU time since the last reading to
 * emp_callstats_traced_cpu_ns().  @gone: the thread ended, read it now (its clock may already be unreadable: the
 * time since the previous reading is then lost).  The first reading only sets the start. */
void emp_callstats_thread_cpu(struct emp_callstats_cpu *c, pid_t tid, uint64_t now_ns, int gone);
/* Controller: the traced threads' CPU time counted so far, ns (only grows). */
uint64_t emp_callstats_traced_cpu_ns(void);

#endif /* EMP_CALLSTATS_H */
