/* SPDX-License-Identifier: MIT */
/* tracer.c - trace mode: class rewriting at load, the emp/Probe probes, retransformation at VMInit; see tracer.h.
 *
 * Two flavours of emp/Probe (agent/trace/java/{jni,ffm}/emp/Probe.java), one chosen at VMInit:
 *   FFM  (JDK 22+, mode=trace, no include pattern can select a JDK class): each probe calls its C fast path through
 *        a static final foreign-function downcall handle linked with Linker.Option.critical(false), so the thread
 *        stays in its Java state (no transition, no safepoint poll) and C2 inlines the handle down to the native
 *        call.  A JDK class in a probe of this flavour could recurse (a downcall runs java.lang.invoke, java.util,
 *        jdk.internal code), hence the pattern check (jdk_reachable()).
 *   JNI  (otherwise, JDK 17 always): static natives bound with RegisterNatives.
 * Both run the same fast path, enter_fast()/exit_fast(): TLS state, one policy load, the nesting guard, rdtsc,
 * one 8-byte record (ring.h) reserved and committed in the thread's ring.  Whatever is not the common case (no thread
 * state yet, a full ring, a dropped subtree, after VMDeath, reentry) returns 1 having changed nothing, and the slow
 * path enter_slow()/exit_slow_common() handles it with a JNIEnv in the thread's native state: there it may attach
 * the thread (JVMTI) or wait for the writer, which a thread in its Java state must not (it would hold up every
 * safepoint).  The FFM flavour calls the slow path as the JNI natives enterSlow/exitSlow/exitThrowSlow.
 *
 * Cost per traced call (enter + exit), MooBench depth 50, writer=null, medians of 5 interleaved JVMs on the 2-vCPU
 * VM of design.md §8 at load 5-9 (pure-vs-pure noise ≈ ±2 ns per call):
 *   JNI flavour (JDK 17, and JDK 25 when forced)  53-64 ns.  Taken apart on JDK 17 by removing one part at a time:
 *       both JNI transitions (natives with empty bodies) ≈ 25 ns, the two rdtsc reads ≈ 26 ns, the C body ≈ 12 ns.
 *   FFM flavour (JDK 25)                          ≈ 30 ns: the critical downcall saves most of the transitions.
 * On a quiet machine (bench/README.md, probe-cost: slope over depths 10/50/100, 5 VMs each) the same comparison gave
 * JNI 74-80 ns and FFM 45 ns per call: the depth-50 figures above flatter both, the ≈ 30 ns saved hold.
 * The timestamp is now the largest part.  Records written from Java instead would need System.nanoTime (≈ 26 ns a
 * read, design.md §8) where rdtsc costs 13 ns behind either call: no gain possible, so records are written in C.
 *
 * What may be traced: every class the JVM lets an agent modify, JDK classes included (java.lang.Object, Thread,
 * Class, ClassLoader, java.lang.invoke, jdk.internal.*, ...); the only classes never rewritten are emp's own
 * (filter.h).  The rule behind this, rather than a list of classes to avoid: nothing the agent does for a traced
 * method runs Java code.  The ClassFileLoadHook is C (parse, rewrite, symbol table, JVMTI Allocate); a JNI probe's
 * body touches only the thread's ring, and its slow path calls JVMTI GetThreadInfo, which reads the Thread object
 * without an upcall.  So a probe cannot recurse into a traced method, cannot need a class that is being loaded or
 * initialized, and cannot run before emp/Probe exists (the hook rewrites nothing before define_probe(); classes
 * loaded earlier are retransformed at VMInit, and frames already running keep their old code).  The FFM flavour
 * breaks the rule (its probes run java.lang.invoke and jdk.internal code), so it is used only when no include
 * pattern can select a JDK class (jdk_reachable()).  Verified with include=* and every JDK package on JDK 17 and
 * 25 (tests/integration/trace_broad.sh: output, stderr and exit status identical to a run without the agent).
 *
 * Module reads.  A rewritten class of a named module calls emp/Probe, which lives in the bootstrap loader's unnamed
 * module; a named module does not read it by default.  The JVM (9+) takes care of it: when an agent's hook changes
 * a class of a named module, or a class of it is retransformed, HotSpot sets the module's has_default_read_edges
 * flag, which ModuleEntry::can_read() honours natively for the unnamed modules of the boot and app loaders, and calls
 * jdk.internal.module.Modules.transformedByAgent once per module.  The agent adds no read edge itself: it used to
 * call JVMTI AddModuleReads from the hook for every rewritten class, a Java upcall (Modules.addReads,
 * Module.implAddReads, WeakPairMap, ConcurrentHashMap) made while the class being loaded may be one that upcall
 * needs.  With include=java.lang.*, j* or * the VM then recursed in class resolution until its native stack
 * overflowed (a silent SIGSEGV at start); with *.get* the upcall failed with JVMTI_ERROR_INTERNAL (113), one line
 * on stderr per class.
 *
 * The probes run on the traced thread, interleaved with its Java code; the only other party touching the thread's
 * state is the sampler's signal handler (sample mode with iteration=, which always uses the JNI flavour), kept out
 * by the nesting guard:
 *   probe: nesting = 1; signal fence; ... ring reserve/commit ...; signal fence; nesting = 0
 * A handler that interrupts the probe sees nesting != 0 and does not touch the ring (sampler.c counts that).  The
 * fences are signal fences (compiler barriers): handler and probe run on the same CPU thread.
 */
#include "tracer.h"

#include <errno.h>
#include <jni.h>
#include <jvmti.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "callstats.h"
#include "clock.h"
#include "counters.h"
#include "dump.h"
#include "filter.h"
#include "log.h"
#include "probe_class.h"
#include "rewriter.h"
#include "ring.h"
#include "symbols.h"
#include "thread.h"
#include "vthread.h"
#include "writer.h"

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

enum { EMP_TRACER_FAST_BLOCK = 1, EMP_TRACER_FAST_DROP = 2 };

static struct {
	jvmtiEnv *jvmti;
	struct emp_filter *filter; /* NULL for the iteration-only hooks */
	char *iter_class;          /* iteration=: class with dots, or NULL */
	char *iter_method;
	enum emp_onfull onfull;
	/* 1 once emp/Probe is defined and bound: the hook may rewrite.  (R) store_release in define_probe() pairs
	 * with (S) load_acquire in on_class_file_load(): a rewritten class is defined only after its probes exist. */
	_Atomic int ready;
	/* What the fast path may do: EMP_TRACER_FAST_BLOCK or _DROP (the onfull= policy, set at Agent_OnLoad), or 0
	 * once VMDeath came: every probe then takes the slow path, which counts its record lost_after_shutdown.
	 * Relaxed: a hint; a record committed in the instant between VMDeath and the writer's final drain is still
	 * written, one committed after the drain stays in the ring (a race the JVM's shutdown makes unavoidable). */
	_Atomic int fast;
	/* 1 when the FFM flavour may be used: mode=trace, no include pattern can select a JDK class (jdk_reachable), and
	 * no budget=.  Under a budget most recorded calls are made before the JIT has compiled their callers (the
	 * controller removes the hot methods within tens of ms), where a downcall handle runs interpreted and costs far
	 * more than a JNI call: on H2 with JDK 25, budget=10 ran at 1.19× pure with JNI probes against 1.33× with FFM
	 * ones (5 interleaved rounds, bench/README.md "budget: guarded probes"). */
	int ffm_allowed;
	/* 1 with mode=trace: virtual threads get trace states of their own (vthread.h).  Not for sample mode's
	 * iteration= hooks: the sampler keeps its per-thread data in the carrier's state. */
	int vthreads;
	int ffm_used; /* the FFM flavour was defined (define_probe()) */
	/* budget=: classes are rewritten in the guarded shape calling emp/Guard (rewriter.h, budget.h), whose OFF array
	 * (a global ref, guard_len entries) switches methods off.  Set by define_probe() before (R). */
	const struct emp_probes *probes; /* NULL: the plain shape calling emp/Probe */
	jbyteArray guard_off;
	jsize guard_len;
	int budget; /* budget= was given */
	/* The FFM flavour's three downcall handles (global refs), linked at VMInit; NULL with the JNI flavour. */
	jobject ffm_handle[3];
	/* 1 once the recording ended early (duration=, emp-attach PID stop): the hook leaves every class as it is, so
	 * that the retransformation of emp_tracer_restore() gives the classes their original bytes back.  (R2)
	 * store_release there pairs with (S2) load_acquire in the hook. */
	_Atomic int restoring;
} tr;

/* ---- probe fast path ------------------------------------------------------------------------------------------ */

/* The rewriter passes an iteration method's id with this bit set (select_method()), so that the probes tell the
 * iteration markers from other calls by a test of their argument: only the markers read the thread's CPU clock.
 * Method ids stay below 2^26 (dump.h), clear of it. */
#define ITER_BIT 0x40000000


/* A thread that reaches a probe without a state: a virtual thread at its first traced call, threads that started
 * before VMInit (JDK system threads) or that the JVM did not announce with ThreadStart.  Cold path: JVMTI
 * GetThreadInfo and an allocation. */
static __attribute__((noinline, cold)) struct emp_thread *attach_lazily(JNIEnv *env)
{
	if (emp_vthread_mounted()) {
		/* Never the carrier's state: its own is set aside while the virtual thread runs. */
		struct emp_thread *v = emp_vthread_attach(env);
		if (!v)
			emp_count(EMP_C_NO_THREAD_STATE, 1);
		return v;
	}
	jvmtiThreadInfo info;
	memset(&info, 0, sizeof(info));
	int have = (*tr.jvmti)->GetThreadInfo(tr.jvmti, NULL, &info) == JVMTI_ERROR_NONE;
	struct emp_thread *t = emp_thread_attach(have ? info.name : NULL, EMP_THREAD_JAVA, env);
	if (have && info.name)
		(*tr.jvmti)->Deallocate(tr.jvmti, (unsigned char *)info.name);
	if (!t)
		emp_count(EMP_C_NO_THREAD_STATE, 1);
	return t;
}

/* onfull=block, ring full: sleep until a pass of the writer gives room back (emp_writer_wait_pass()).  Return: room
 * for a record of @len bytes, or NULL when the writer is gone (the record is then counted lost_after_shutdown). */
static __attribute__((noinline, cold)) void *wait_for_room(struct emp_thread *t, uint32_t len)
{
	emp_count(EMP_C_RING_FULL_WAITS, 1);
	for (;;) {
		uint32_t seq = emp_writer_passes();
		void *rec = emp_ring_reserve(&t->ring, len);
		if (rec)
			return rec;
		if (!emp_writer_alive()) {
			emp_count(EMP_C_AFTER_SHUTDOWN, 1);
			return NULL;
		}
		emp_writer_wait_pass(seq);
	}
}

/* Publish the reserved record; every quarter ring, make sure the writer is awake (emp_ring_commit_wake()).  The
 * wake is an atomic exchange and, only when the writer sleeps, one futex syscall: it never blocks, so the FFM
 * flavour may make it from its Java state. */
static inline void commit(struct emp_thread *t)
{
	if (unlikely(emp_ring_commit_wake(&t->ring)))
		emp_writer_wake();
}

/* onfull=drop, an entry at depth @depth (1 = outermost) whose record takes @len bytes: reserve them only when the
 * ring also has room for the exits of all @depth open calls, so that an exit never finds the ring full.  An exit's
 * record takes at most 16 bytes (ring.h), and those of the open calls take less than the ring, so they cross its end
 * at most once: one PAD of at most 8 bytes (a 16-byte record at the last 8 bytes).  The larger trial reservation
 * may add a PAD of its own; the remaining room then still covers the exits.  Return: the record, or NULL (nothing
 * reserved). */
static inline void *reserve_with_headroom(struct emp_ring *r, uint32_t depth, uint32_t len)
{
	uint64_t headroom = (uint64_t)depth * sizeof(struct emp_rec_trace) + EMP_REC_SHORT_SIZE;
	if (headroom + len > r->size)
		return NULL;
	void *rec = emp_ring_reserve(r, (uint32_t)(headroom + len));
	if (rec)
		r->reserved_head -= headroom; /* commit publishes only our record */
	return rec;
}

/* Record the thread's CPU time beside an iteration marker's ENTER or EXIT at @now.  The caller holds the nesting
 * guard (t->nesting).  clock_gettime() is a system call that neither blocks nor calls the JVM, so the FFM flavour
 * may run it.  A full ring or a failing clock leaves the iteration without a CPU time (counted); it never waits. */
static void put_cpu(struct emp_thread *t, uint64_t now)
{
	struct timespec ts;
	struct emp_rec_cpu *rec;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) || !(rec = emp_ring_reserve(&t->ring, sizeof(*rec)))) {
		emp_count(EMP_C_ITER_CPU_LOST, 1);
		return;
	}
	rec->hdr = EMP_REC_HDR(EMP_REC_CPU, sizeof(*rec));
	rec->pad = 0;
	rec->ticks = now;
	rec->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	commit(t);
}

/* The common case of an entry, in one pass: the thread has a state, is not inside a dropped subtree, the agent is
 * running and the ring has room.  Return: 0 when the record is committed, 1 when the slow path must run (nothing
 * was changed).  No JNIEnv: the FFM flavour calls this without a thread-state transition (see the file comment);
 * it never blocks, allocates or calls the JVM.  The nesting guard keeps the sampler's signal handler out of the
 * ring while we are in it (sample mode with iteration=): the handler runs on this thread, so signal fences order
 * the guard against it. */
static inline int enter_fast(jint id)
{
	struct emp_thread *t = emp_tls_thread;
	/* Relaxed: a hint, see tr.fast. */
	int fast = atomic_load_explicit(&tr.fast, memory_order_relaxed);
	if (unlikely(!t || !fast || t->nesting || t->trace_skip || (id & ITER_BIT)))
		return 1;
	t->nesting = 1;
	atomic_signal_fence(memory_order_seq_cst);
	uint64_t now = emp_clock_ticks();
	uint32_t len = emp_trace_rec_size(&t->ring, (uint32_t)id, now);
	void *rec = fast == EMP_TRACER_FAST_DROP ? reserve_with_headroom(&t->ring, t->trace_depth + 1, len)
						 : emp_ring_reserve(&t->ring, len);
	if (likely(rec)) {
		t->trace_depth++;
		emp_trace_rec_put(&t->ring, rec, len, EMP_REC_ENTER, (uint32_t)id, now);
		commit(t);
	}
	atomic_signal_fence(memory_order_seq_cst);
	t->nesting = 0;
	return !rec;
}

/* An exit's common case, as enter_fast(): an entry is open outside any dropped subtree.  With onfull=drop the
 * entry reserved room for this record, so the ring is full here only with onfull=block. */
static inline int exit_fast(jint id, uint32_t type)
{
	struct emp_thread *t = emp_tls_thread;
	if (unlikely(!t || !atomic_load_explicit(&tr.fast, memory_order_relaxed) || t->nesting || t->trace_skip ||
		     !t->trace_depth || (id & ITER_BIT)))
		return 1;
	t->nesting = 1;
	atomic_signal_fence(memory_order_seq_cst);
	uint64_t now = emp_clock_ticks();
	uint32_t len = emp_trace_rec_size(&t->ring, (uint32_t)id, now);
	void *rec = emp_ring_reserve(&t->ring, len);
	if (likely(rec)) {
		t->trace_depth--;
		emp_trace_rec_put(&t->ring, rec, len, type, (uint32_t)id, now);
		commit(t);
	}
	atomic_signal_fence(memory_order_seq_cst);
	t->nesting = 0;
	return !rec;
}

static inline struct emp_thread *probe_begin(JNIEnv *env)
{
	struct emp_thread *t = emp_tls_thread;
	if (unlikely(!t) && !(t = attach_lazily(env)))
		return NULL;
	if (unlikely(t->nesting)) {
		emp_count(EMP_C_REENTRANT, 1);
		return NULL;
	}
	t->nesting = 1;
	atomic_signal_fence(memory_order_seq_cst);
	return t;
}

static inline void probe_end(struct emp_thread *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	t->nesting = 0;
}

/* Every case of an entry: attach, reentrancy, dropped subtree, after VMDeath, full ring (wait or drop). */
static __attribute__((noinline, cold)) void JNICALL enter_slow(JNIEnv *env, jclass cls, jint id)
{
	(void)cls;
	struct emp_thread *t = probe_begin(env);
	if (!t)
		return;
	uint64_t now = emp_clock_ticks();
	uint32_t depth = ++t->trace_depth;
	uint32_t method = (uint32_t)(id & ~ITER_BIT);
	uint32_t len = emp_trace_rec_size(&t->ring, method, now);
	void *rec;
	if (unlikely(t->trace_skip)) {
		emp_count(EMP_C_RING_FULL_DROPPED, 1); /* inside a dropped subtree (onfull=drop) */
		goto out;
	}
	if (unlikely(!atomic_load_explicit(&tr.fast, memory_order_relaxed))) {
		emp_count(EMP_C_AFTER_SHUTDOWN, 1);
		goto out;
	}
	if (tr.onfull == EMP_ONFULL_DROP) {
		if (!(rec = reserve_with_headroom(&t->ring, depth, len))) {
			emp_count(EMP_C_RING_FULL_DROPPED, 1);
			t->trace_skip = depth;
			emp_writer_wake(); /* the writer may be asleep with little to do: this ring needs it */
			goto out;
		}
	} else if (unlikely(!(rec = emp_ring_reserve(&t->ring, len))) && !(rec = wait_for_room(t, len))) {
		goto out;
	}
	emp_trace_rec_put(&t->ring, rec, len, EMP_REC_ENTER, method, now);
	commit(t);
	if (id & ITER_BIT)
		put_cpu(t, now);
out:
	probe_end(t);
}

static __attribute__((noinline, cold)) void exit_slow_common(JNIEnv *env, jint id, uint32_t type)
{
	struct emp_thread *t = probe_begin(env);
	if (!t)
		return;
	uint64_t now = emp_clock_ticks();
	uint32_t method = (uint32_t)(id & ~ITER_BIT);
	void *rec;
	if (unlikely(!t->trace_depth)) {
		/* No open entry: the call began before this thread had a state, or before its class was rewritten
		 * (an instrumented caller returning into old code cannot happen: running frames keep their code). */
		emp_count(EMP_C_UNBALANCED_EXIT, 1);
		goto out;
	}
	uint32_t depth = t->trace_depth--;
	if (unlikely(t->trace_skip)) {
		if (t->trace_skip == depth)
			t->trace_skip = 0; /* the dropped subtree is closed */
		emp_count(EMP_C_RING_FULL_DROPPED, 1);
		goto out;
	}
	if (unlikely(!atomic_load_explicit(&tr.fast, memory_order_relaxed))) {
		emp_count(EMP_C_AFTER_SHUTDOWN, 1);
		goto out;
	}
	if (id & ITER_BIT)
		put_cpu(t, now);
	/* With onfull=drop the entry reserved room for this record, so the wait below is not taken (but the CPU
	 * record just above may have used that room: then the wait is taken, bounded as with onfull=block). */
	uint32_t len = emp_trace_rec_size(&t->ring, method, now);
	if (unlikely(!(rec = emp_ring_reserve(&t->ring, len))) && !(rec = wait_for_room(t, len)))
		goto out;
	emp_trace_rec_put(&t->ring, rec, len, type, method, now);
	commit(t);
out:
	probe_end(t);
}

static void JNICALL exit_slow(JNIEnv *env, jclass cls, jint id)
{
	(void)cls;
	exit_slow_common(env, id, EMP_REC_EXIT);
}

static void JNICALL exit_throw_slow(JNIEnv *env, jclass cls, jint id)
{
	(void)cls;
	exit_slow_common(env, id, EMP_REC_EXIT_THROW);
}

/* JNI flavour: static natives, the thread in its native state. */
static void JNICALL jni_enter(JNIEnv *env, jclass cls, jint id)
{
	if (unlikely(enter_fast(id)))
		enter_slow(env, cls, id);
}

static void JNICALL jni_exit(JNIEnv *env, jclass cls, jint id)
{
	if (unlikely(exit_fast(id, EMP_REC_EXIT)))
		exit_slow(env, cls, id);
}

static void JNICALL jni_exit_throw(JNIEnv *env, jclass cls, jint id)
{
	if (unlikely(exit_fast(id, EMP_REC_EXIT_THROW)))
		exit_throw_slow(env, cls, id);
}

/* FFM flavour: called by critical downcalls, the thread still in its Java state. */
static jint ffm_enter(jint id)
{
	return enter_fast(id);
}

static jint ffm_exit(jint id)
{
	return exit_fast(id, EMP_REC_EXIT);
}

static jint ffm_exit_throw(jint id)
{
	return exit_fast(id, EMP_REC_EXIT_THROW);
}

/* ---- selection and rewriting ---------------------------------------------------------------------------------- */

/* Is @klass (internal form, slashes) the class named by @dotted (dots)? */
static int same_class(const char *klass, const char *dotted)
{
	for (; *klass && *dotted; klass++, dotted++)
		if (*klass != (*dotted == '.' ? '/' : *dotted) && *klass != *dotted)
			return 0;
	return !*klass && !*dotted;
}

static int is_iteration(const char *klass, const char *method)
{
	return tr.iter_class && same_class(klass, tr.iter_class) && (!method || !strcmp(method, tr.iter_method));
}

static int class_may_be_selected(const char *klass)
{
	if (emp_filter_is_emp_class(klass))
		return 0;
	return is_iteration(klass, NULL) || (tr.filter && emp_filter_may_select_class(tr.filter, klass));
}

/* What the rewriter's method selection saw in one class: methods selected, how many of them had no id yet, and
 * how many budget= took out (budget.h). */
struct selection {
	unsigned selected;
	unsigned fresh;
	unsigned removed;
};

static int32_t select_method(void *ctx, const char *klass, const char *method, const char *descriptor,
			     uint16_t access_flags)
{
	(void)access_flags;
	struct selection *sel = ctx;
	int iter = is_iteration(klass, method);
	if (!iter && !(tr.filter && emp_filter_selects(tr.filter, klass, method)))
		return -1;
	int fresh;
	int64_t id = emp_symbols_intern_method(EMP_FRAME_JAVA, iter ? EMP_METHOD_ITERATION : 0, klass, method,
					       descriptor, &fresh);
	if (id < 0 || id >= ITER_BIT)
		return -1;
	if (!iter && emp_callstats_removed((uint32_t)id)) {
		sel->removed++;
		return -1;
	}
	if (fresh)
		emp_callstats_method((uint32_t)id, klass);
	sel->selected++;
	sel->fresh += (unsigned)fresh;
	return (int32_t)(iter ? id | ITER_BIT : id);
}

static void count_stats(const struct emp_rewrite_stats *st)
{
	emp_count(EMP_C_CLASSES_REWRITTEN, st->classes_rewritten);
	emp_count(EMP_C_METHODS_INSTRUMENTED, st->methods_instrumented);
	emp_count(EMP_C_BUDGET_METHODS_SMALL, st->methods_small);
	for (int i = 1; i < EMP_REWRITE_NREASONS; i++) {
		if (st->methods_skipped[i]) {
			emp_count(EMP_C_METHODS_SKIPPED, st->methods_skipped[i]);
			emp_count((enum emp_counter)(EMP_C_RW_SKIP_NOMEM + i - 1), st->methods_skipped[i]);
		}
		if (st->classes_failed[i]) {
			emp_count(EMP_C_CLASSES_FAILED, st->classes_failed[i]);
			emp_count((enum emp_counter)(EMP_C_RW_FAIL_NOMEM + i - 1), st->classes_failed[i]);
		}
	}
}

static void JNICALL on_class_file_load(jvmtiEnv *jvmti, JNIEnv *jni, jclass redefined, jobject loader,
				       const char *name, jobject protection_domain, jint len, const unsigned char *data,
				       jint *new_len, unsigned char **new_data)
{
	(void)jni;
	(void)loader;
	(void)protection_domain;
	/* (S) acquire; pairs with (R) in define_probe().  Before that, classes are left alone (and retransformed
	 * at VMInit if they may be selected). */
	if (!name || !atomic_load_explicit(&tr.ready, memory_order_acquire))
		return;
	/* (S2) acquire; pairs with (R2). */
	if (atomic_load_explicit(&tr.restoring, memory_order_acquire))
		return;
	if (!class_may_be_selected(name)) {
		emp_count(EMP_C_CLASSES_NOT_SELECTED, 1);
		return;
	}
	struct emp_rewrite_stats st;
	memset(&st, 0, sizeof(st));
	struct selection sel = { 0, 0, 0 };
	uint8_t *out = NULL;
	size_t out_len = 0;
	int rc = emp_rewrite_class(data, (size_t)len, select_method, &sel, tr.probes, &out, &out_len, &st);
	/* A retransformation of a class rewritten before (by anyone's RetransformClasses: the hook gets the original
	 * bytes again) rewrites it the same way with the same ids (less those budget= removed); its methods were
	 * counted the first time. */
	if (!(redefined && (sel.selected || sel.removed) && !sel.fresh))
		count_stats(&st);
	if (rc) {
		emp_debug("class %s left unchanged: %s", name, emp_rewrite_reason_str(rc));
		return;
	}
	if (!sel.selected)
		emp_count(EMP_C_CLASSES_NOT_SELECTED, 1);
	if (!out)
		return;
	unsigned char *mem = NULL;
	if (out_len > INT32_MAX || (*jvmti)->Allocate(jvmti, (jlong)out_len, &mem) != JVMTI_ERROR_NONE) {
		free(out);
		emp_count(EMP_C_CLASSES_FAILED, 1);
		emp_count(EMP_C_RW_FAIL_NOMEM, 1);
		return;
	}
	memcpy(mem, out, out_len);
	free(out);
	*new_len = (jint)out_len;
	*new_data = mem;
}

/* ---- life cycle ----------------------------------------------------------------------------------------------- */

/* A critical downcall handle (int)int to the C function @fn, linked as Linker.nativeLinker().downcallHandle(
 * MemorySegment.ofAddress(fn), FunctionDescriptor.of(JAVA_INT, JAVA_INT), Linker.Option.critical(false)) would,
 * except that downcallHandle is a restricted method: called from the bootstrap loader's unnamed module it prints a
 * warning on the program's stderr (JDK 24+) or, under --illegal-native-access=deny, throws.  Enabling native
 * access for that module is no way out: the flag is shared by every unnamed module, the program's included.  So
 * this calls what downcallHandle calls after its access check, the private AbstractLinker.downcallHandle0 (JNI
 * ignores access control), and binds the address with MethodHandle.bindTo.  Return: a global ref, or NULL (the
 * JVM lacks the API, JDK 21 and older; any pending exception cleared). */
static jobject ffm_link(JNIEnv *jni, jint (*fn)(jint))
{
	jobject handle = NULL;
	if ((*jni)->PushLocalFrame(jni, 16) != JNI_OK) {
		(*jni)->ExceptionClear(jni);
		return NULL;
	}
	jclass linker_c = (*jni)->FindClass(jni, "java/lang/foreign/Linker");
	jclass option_c = linker_c ? (*jni)->FindClass(jni, "java/lang/foreign/Linker$Option") : NULL;
	jclass layout_c = option_c ? (*jni)->FindClass(jni, "java/lang/foreign/ValueLayout") : NULL;
	jclass mlayout_c = layout_c ? (*jni)->FindClass(jni, "java/lang/foreign/MemoryLayout") : NULL;
	jclass fdesc_c = mlayout_c ? (*jni)->FindClass(jni, "java/lang/foreign/FunctionDescriptor") : NULL;
	jclass segment_c = fdesc_c ? (*jni)->FindClass(jni, "java/lang/foreign/MemorySegment") : NULL;
	jclass abstract_c = segment_c ? (*jni)->FindClass(jni, "jdk/internal/foreign/abi/AbstractLinker") : NULL;
	jclass mh_c = abstract_c ? (*jni)->FindClass(jni, "java/lang/invoke/MethodHandle") : NULL;
	if (!mh_c)
		goto out;
	jmethodID native_linker = (*jni)->GetStaticMethodID(jni, linker_c, "nativeLinker",
							    "()Ljava/lang/foreign/Linker;");
	jmethodID critical = native_linker ? (*jni)->GetStaticMethodID(jni, option_c, "critical",
									"(Z)Ljava/lang/foreign/Linker$Option;")
					   : NULL;
	jfieldID java_int = critical ? (*jni)->GetStaticFieldID(jni, layout_c, "JAVA_INT",
								 "Ljava/lang/foreign/ValueLayout$OfInt;")
				     : NULL;
	jmethodID of = java_int ? (*jni)->GetStaticMethodID(jni, fdesc_c, "of",
							     "(Ljava/lang/foreign/MemoryLayout;[Ljava/lang/foreign/"
							     "MemoryLayout;)Ljava/lang/foreign/FunctionDescriptor;")
				: NULL;
	jmethodID of_address = of ? (*jni)->GetStaticMethodID(jni, segment_c, "ofAddress",
							       "(J)Ljava/lang/foreign/MemorySegment;")
				  : NULL;
	jmethodID downcall0 = of_address ? (*jni)->GetMethodID(jni, abstract_c, "downcallHandle0",
								"(Ljava/lang/foreign/FunctionDescriptor;[Ljava/lang/"
								"foreign/Linker$Option;)Ljava/lang/invoke/MethodHandle;")
					 : NULL;
	jmethodID bind_to = downcall0 ? (*jni)->GetMethodID(jni, mh_c, "bindTo",
							     "(Ljava/lang/Object;)Ljava/lang/invoke/MethodHandle;")
				      : NULL;
	if (!bind_to)
		goto out;
	jobject linker = (*jni)->CallStaticObjectMethod(jni, linker_c, native_linker);
	jobject option = linker ? (*jni)->CallStaticObjectMethod(jni, option_c, critical, JNI_FALSE) : NULL;
	jobjectArray options = option ? (*jni)->NewObjectArray(jni, 1, option_c, option) : NULL;
	jobject int_layout = options ? (*jni)->GetStaticObjectField(jni, layout_c, java_int) : NULL;
	jobjectArray args = int_layout ? (*jni)->NewObjectArray(jni, 1, mlayout_c, int_layout) : NULL;
	jobject fdesc = args ? (*jni)->CallStaticObjectMethod(jni, fdesc_c, of, int_layout, args) : NULL;
	jobject segment = fdesc ? (*jni)->CallStaticObjectMethod(jni, segment_c, of_address, (jlong)(uintptr_t)fn)
				: NULL;
	jobject unbound = segment && (*jni)->IsInstanceOf(jni, linker, abstract_c)
				  ? (*jni)->CallObjectMethod(jni, linker, downcall0, fdesc, options)
				  : NULL;
	jobject bound = unbound ? (*jni)->CallObjectMethod(jni, unbound, bind_to, segment) : NULL;
	if (bound && !(*jni)->ExceptionCheck(jni))
		handle = (*jni)->NewGlobalRef(jni, bound);
out:
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	(*jni)->PopLocalFrame(jni, NULL);
	return handle;
}

/* The FFM flavour's handle(which): the handles linked by link_ffm(), read once by emp/Probe's static
 * initializer.  @which is 0, 1 or 2 (the class is ours). */
static jobject JNICALL ffm_handle(JNIEnv *env, jclass cls, jint which)
{
	(void)cls;
	return (*env)->NewLocalRef(env, tr.ffm_handle[which]);
}

/* Link the FFM flavour's three handles into tr.ffm_handle.  Return: 0, or -1 (the JNI flavour must be used; no
 * handle kept). */
static int link_ffm(JNIEnv *jni)
{
	static jint (*const fns[3])(jint) = { ffm_enter, ffm_exit, ffm_exit_throw };
	if (!emp_probe_class_ffm_len)
		return -1;
	for (int i = 0; i < 3; i++) {
		if (!(tr.ffm_handle[i] = ffm_link(jni, fns[i]))) {
			for (int j = 0; j < i; j++) {
				(*jni)->DeleteGlobalRef(jni, tr.ffm_handle[j]);
				tr.ffm_handle[j] = NULL;
			}
			return -1;
		}
	}
	return 0;
}

/* budget= leaves methods of fewer bytecode bytes than this uninstrumented.  C2 inlines a method at any call site,
 * however rarely taken, when it has at most 35 bytes (MaxInlineSize); the guarded shape's probes add 22 or more,
 * which pushed H2's small methods (getters of 14-35 bytes) over that limit at 895 call sites, and with every probe
 * switched off its query phase still ran 1.26-1.42x pure.  Left out, budget=10 went from 1.20-1.26x to 1.07-1.10x
 * pure on JDK 25 (bench/README.md, "budget: small methods left out").  A budget would remove such a method
 * first anyway: tiny and hot, it costs most for the time it accounts for; its time is in its caller's. */
#define EMP_BUDGET_MIN_CODE 36

/* budget=: define emp/Guard in the bootstrap loader (after emp/Probe, which it calls), initialize it and keep its
 * OFF array; from then on the hook rewrites in the guarded shape.  Return: 0 or -1 (the plain shape is used). */
static int define_guard(JNIEnv *jni)
{
	static const struct emp_probes guarded = { .klass = "emp/Guard", .guarded = 1,
						   .min_code_len = EMP_BUDGET_MIN_CODE };
	jclass guard = (*jni)->DefineClass(jni, "emp/Guard", NULL, (const jbyte *)emp_guard_class,
					   (jsize)emp_guard_class_len);
	/* GetStaticFieldID initializes the class: OFF exists after it. */
	jfieldID fid = guard ? (*jni)->GetStaticFieldID(jni, guard, "OFF", "[B") : NULL;
	jobject off = fid ? (*jni)->GetStaticObjectField(jni, guard, fid) : NULL;
	tr.guard_off = off ? (*jni)->NewGlobalRef(jni, off) : NULL;
	if (!tr.guard_off) {
		(*jni)->ExceptionClear(jni);
		return -1;
	}
	tr.guard_len = (*jni)->GetArrayLength(jni, tr.guard_off);
	tr.probes = &guarded;
	return 0;
}

/* Define emp/Probe in the bootstrap loader, bind its natives, initialize it, remember its module.  The FFM flavour
 * when @ffm and its handles link, else the JNI flavour.  Return: 0 or -1 (logged). */
static int define_probe(JNIEnv *jni, int ffm)
{
	static const JNINativeMethod jni_natives[] = {
		{ (char *)"enter", (char *)"(I)V", (void *)jni_enter },
		{ (char *)"exit", (char *)"(I)V", (void *)jni_exit },
		{ (char *)"exitThrow", (char *)"(I)V", (void *)jni_exit_throw },
	};
	static const JNINativeMethod ffm_natives[] = {
		{ (char *)"handle", (char *)"(I)Ljava/lang/invoke/MethodHandle;", (void *)ffm_handle },
		{ (char *)"enterSlow", (char *)"(I)V", (void *)enter_slow },
		{ (char *)"exitSlow", (char *)"(I)V", (void *)exit_slow },
		{ (char *)"exitThrowSlow", (char *)"(I)V", (void *)exit_throw_slow },
	};
	ffm = ffm && !link_ffm(jni);
	jclass probe = (*jni)->DefineClass(jni, "emp/Probe", NULL,
					   (const jbyte *)(ffm ? emp_probe_class_ffm : emp_probe_class_jni),
					   (jsize)(ffm ? emp_probe_class_ffm_len : emp_probe_class_jni_len));
	if (!probe || (*jni)->RegisterNatives(jni, probe, ffm ? ffm_natives : jni_natives, ffm ? 4 : 3) != JNI_OK) {
		(*jni)->ExceptionClear(jni);
		emp_error("cannot define the probe class emp/Probe in the bootstrap loader; nothing is traced");
		return -1;
	}
	/* Run the static initializer now (GetStaticMethodID initializes the class), not in a probe of the program. */
	if (!(*jni)->GetStaticMethodID(jni, probe, "enter", "(I)V")) {
		(*jni)->ExceptionClear(jni);
		emp_error("cannot initialize the probe class emp/Probe; nothing is traced");
		return -1;
	}
	if (tr.budget && define_guard(jni))
		emp_warn("budget=: cannot define emp/Guard; methods are removed by retransforming their classes");
	emp_info("trace probes: %s%s", ffm ? "critical foreign-function downcalls" : "JNI static natives",
		 tr.probes ? ", guarded by emp/Guard" : "");
	tr.ffm_used = ffm;
	/* (R) release: the probe class and its natives before any rewritten class; pairs with (S). */
	atomic_store_explicit(&tr.ready, 1, memory_order_release);
	return 0;
}

/* Retransform the loaded, modifiable classes for which @want(internal name) is non-zero, in one call, and one by
 * one when the batch is refused (one bad class must not keep the others as they are); count each in @done or
 * retransform_failed. */
static void retransform_where(jvmtiEnv *jvmti, JNIEnv *jni, int (*want)(const char *klass), enum emp_counter done)
{
	jint n = 0;
	jclass *classes = NULL;
	if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE)
		return;
	jint m = 0;
	for (jint i = 0; i < n; i++) {
		char *sig = NULL;
		jboolean modifiable = JNI_FALSE;
		int keep = 0;
		if ((*jvmti)->GetClassSignature(jvmti, classes[i], &sig, NULL) == JVMTI_ERROR_NONE && sig &&
		    sig[0] == 'L') {
			size_t sl = strlen(sig);
			sig[sl - 1] = 0;
			keep = want(sig + 1) &&
			       (*jvmti)->IsModifiableClass(jvmti, classes[i], &modifiable) == JVMTI_ERROR_NONE &&
			       modifiable;
		}
		if (sig)
			(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
		if (keep)
			classes[m++] = classes[i];
		else
			(*jni)->DeleteLocalRef(jni, classes[i]);
	}
	if (m && (*jvmti)->RetransformClasses(jvmti, m, classes) == JVMTI_ERROR_NONE) {
		emp_count(done, (uint64_t)m);
	} else {
		for (jint i = 0; i < m; i++) {
			jvmtiError e = (*jvmti)->RetransformClasses(jvmti, 1, &classes[i]);
			emp_count(e == JVMTI_ERROR_NONE ? done : EMP_C_RETRANSFORM_FAILED, 1);
			if (e != JVMTI_ERROR_NONE)
				emp_debug("RetransformClasses refused a class (JVMTI error %d)", e);
		}
	}
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	for (jint i = 0; i < m; i++)
		(*jni)->DeleteLocalRef(jni, classes[i]);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}

/* Classes loaded before emp/Probe existed that the filters may select. */
static void retransform_loaded(jvmtiEnv *jvmti, JNIEnv *jni)
{
	retransform_where(jvmti, jni, class_may_be_selected, EMP_C_CLASSES_RETRANSFORMED);
}

/* budget.h's emp_budget_retransform_fn: the classes whose method set budget= reduced. */
static void retransform_for_budget(JNIEnv *jni, int (*want)(const char *klass))
{
	retransform_where(tr.jvmti, jni, want, EMP_C_CLASSES_RETRANSFORMED);
}

void emp_tracer_restore(JavaVM *vm, JNIEnv *jni)
{
	if (!tr.jvmti)
		return;
	/* (R2) release: every hook that runs from here on leaves its class alone, also when VMInit has not defined
	 * emp/Probe yet (a duration= shorter than the JVM's start): then nothing was rewritten and nothing will be. */
	atomic_store_explicit(&tr.restoring, 1, memory_order_release);
	if (!atomic_load_explicit(&tr.ready, memory_order_acquire) || !vm)
		return;
	JNIEnv *own = jni ? jni : emp_budget_attach(vm, "emp stop");
	if (!own) {
		emp_warn("cannot attach to the JVM to remove the probes; they stay until the JVM ends");
		return;
	}
	retransform_where(tr.jvmti, own, class_may_be_selected, EMP_C_CLASSES_RESTORED);
	if (!jni)
		(*vm)->DetachCurrentThread(vm);
}

/* Split iteration=pkg.Class.method into class and method.  Return: 0 or -1 (message in @err). */
static int set_iteration(const char *iteration, char *err, size_t errlen)
{
	if (!iteration)
		return 0;
	const char *dot = strrchr(iteration, '.');
	tr.iter_class = strndup(iteration, (size_t)(dot - iteration));
	tr.iter_method = strdup(dot + 1);
	if (!tr.iter_class || !tr.iter_method) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int add_hook(jvmtiEnv *jvmti, const struct emp_options *o, jvmtiCapabilities *caps, jvmtiEventCallbacks *cb,
		    char *err, size_t errlen)
{
	tr.jvmti = jvmti;
	tr.onfull = o->onfull;
	atomic_store_explicit(&tr.fast, o->onfull == EMP_ONFULL_DROP ? EMP_TRACER_FAST_DROP : EMP_TRACER_FAST_BLOCK,
			      memory_order_relaxed);
	if (set_iteration(o->iteration, err, errlen))
		return -1;
	caps->can_retransform_classes = 1;
	caps->can_generate_all_class_hook_events = 1;
	cb->ClassFileLoadHook = on_class_file_load;
	return 0;
}

/* The namespaces of the JDK's own classes.  A downcall through a method handle runs JDK code (java.lang.invoke,
 * jdk.internal.foreign, java.util.Objects, ... in the interpreter, and more while a call site is linked): a probe of
 * the FFM flavour in any of it would call itself until the stack overflows. */
static const char *const jdk_namespaces[] = { "java.", "javax.", "jdk.", "sun.", "com.sun." };

/* Can the pattern @pat (@len bytes, filter.h syntax) match some class name or class.method that starts with
 * @prefix?  `*` matches any run of characters, so it can always produce the rest of the prefix. */
static int pattern_may_match_prefix(const char *pat, size_t len, const char *prefix)
{
	for (size_t i = 0;; i++) {
		if (!prefix[i] || (i < len && pat[i] == '*'))
			return 1;
		if (i == len || pat[i] != prefix[i])
			return 0;
	}
}

/* Can a method of a JDK class be selected by @o's include patterns (each value may hold ';'-separated patterns;
 * exclude patterns are ignored, erring on the safe side) or be the iteration method? */
static int jdk_reachable(const struct emp_options *o)
{
	for (size_t n = 0; n <= o->n_include; n++) {
		const char *v = n < o->n_include ? o->include[n] : o->iteration;
		for (const char *p = v; p && *p;) {
			size_t len = strcspn(p, ";");
			for (size_t k = 0; k < sizeof(jdk_namespaces) / sizeof(jdk_namespaces[0]); k++)
				if (pattern_may_match_prefix(p, len, jdk_namespaces[k]))
					return 1;
			p += len + (p[len] == ';');
		}
	}
	return 0;
}

static int tracer_onload(jvmtiEnv *jvmti, const struct emp_options *o, jvmtiCapabilities *caps,
			 jvmtiEventCallbacks *cb, char *err, size_t errlen)
{
	tr.ffm_allowed = !jdk_reachable(o) && !(o->budget_pct > 0);
	tr.budget = o->budget_pct > 0;
	emp_budget_setup(o->budget_pct);
	tr.vthreads = 1;
	if (!(tr.filter = emp_filter_new())) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < o->n_include; i++)
		if (emp_filter_add(tr.filter, "include", o->include[i], err, errlen))
			return -1;
	for (size_t i = 0; i < o->n_exclude; i++)
		if (emp_filter_add(tr.filter, "exclude", o->exclude[i], err, errlen))
			return -1;
	return add_hook(jvmti, o, caps, cb, err, errlen);
}

static int iteration_onload(jvmtiEnv *jvmti, const struct emp_options *o, jvmtiCapabilities *caps,
			    jvmtiEventCallbacks *cb, char *err, size_t errlen)
{
	if (!o->iteration)
		return 0;
	return add_hook(jvmti, o, caps, cb, err, errlen);
}

static int tracer_enable(jvmtiEnv *jvmti, char *err, size_t errlen)
{
	if (!tr.jvmti)
		return 0; /* iteration-only hooks without iteration= */
	jvmtiError e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
	if (e != JVMTI_ERROR_NONE) {
		snprintf(err, errlen, "cannot enable the ClassFileLoadHook (JVMTI error %d)", e);
		return -1;
	}
	return 0;
}

static void tracer_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	(void)thread;
	if (!tr.jvmti)
		return;
	if (tr.vthreads)
		emp_vthread_start(jni); /* before any virtual thread can run: the program's main has not started */
	if (define_probe(jni, tr.ffm_allowed))
		return;
	retransform_loaded(jvmti, jni);
	emp_budget_prepare(jvmti, jni);
	struct emp_budget_probes bp = { tr.ffm_used, tr.guard_off, tr.guard_len, retransform_for_budget };
	emp_budget_start(jvmti, jni, &bp);
}

static void tracer_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	(void)jvmti;
	(void)jni;
	emp_budget_stop(); /* its last names go out before the writer's final drain */
	atomic_store_explicit(&tr.fast, 0, memory_order_relaxed);
}

const struct emp_mode_ops emp_tracer_ops = {
	.name = "trace",
	.onload = tracer_onload,
	.enable = tracer_enable,
	.vm_init = tracer_vm_init,
	.vm_death = tracer_vm_death,
};

const struct emp_mode_ops emp_tracer_iteration_ops = {
	.name = "trace-iteration",
	.onload = iteration_onload,
	.enable = tracer_enable,
	.vm_init = tracer_vm_init,
	.vm_death = tracer_vm_death,
};
