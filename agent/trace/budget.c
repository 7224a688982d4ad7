/* SPDX-License-Identifier: MIT */
/* budget.c - budget=PCT: per-method calls and self time counted by the writer, a controller thread that removes
 * the probes of the methods costing most for the time they account for; see budget.h. */
#include "budget.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "callstats.h"
#include "clock.h"
#include "counters.h"
#include "log.h"
#include "ring.h"
#include "writer.h"

/* The controller's period, short: what a removal costs is mostly the JIT's work, not the probes' — every
 * RetransformClasses throws away the compiled code of the classes it rewrites (and of the code that inlined their
 * methods), which the JIT then compiles again.  Deciding early, before the hot paths are compiled with their probes,
 * saves most of that: on H2 (bench/README.md, "budget: the controller's period") 25 ms against 200 ms took
 * `budget=10` from 1.67× to 1.25× pure on JDK 17 and from 2.71× to 1.64× on JDK 25. */
#define PERIOD_NS (25 * 1000000ull)
/* Periods are merged until they hold this much of the traced threads' CPU time: less decides nothing (too few calls
 * to rank, and the base is read only every EMP_CALLSTATS_CPU_NS per thread). */
#define MIN_CPU_NS (10 * 1000000ull)
/* Removal aims this far under the budget: a wave of removals costs a recompilation of the classes it rewrites, so
 * one deep wave is cheaper than several shallow ones (0.4 against 0.8: fewer waves, same measured overhead or
 * less in the A/B above). */
#define AIM 0.4
#define WRITER_MIN_CALLS 100000
/* The thread-state transition of one JNI probe pair (two static native calls), which the calibration loop cannot
 * time from C: ≈ 25 ns measured on JDK 17 by giving the natives empty bodies (tracer.c, file comment).  The FFM
 * flavour's critical downcalls make no transition. */
#define JNI_PAIR_TRANSITION_NS 25.0

static struct {
	double pct; /* 0: no budget */
	double pair_ns;         /* the controller's own */
	double writer_per_call; /* the controller's own: writer CPU ns per call drained, see decide() */
	uint64_t writer_ns, writer_calls; /* the controller's own: what decide() gathers for writer_per_call */
	struct emp_budget_probes probes;
	int started;
	pthread_mutex_t lock; /* guards stop and done, with cond */
	pthread_cond_t cond;
	int stop;
	int done; /* the controller's loop ended */
} b = { .lock = PTHREAD_MUTEX_INITIALIZER };

void emp_budget_setup(double pct)
{
	b.pct = pct;
	if (pct > 0)
		emp_callstats_enable();
}

/* ---- controller ----------------------------------------------------------------------------------------------- */

/* The probe's cost per call (an entry and an exit), calibrated once at the controller's start: the C work of a
 * probe pair (two emp_clock_ticks() reads, two trace records reserved, filled and committed in a ring, as
 * enter_fast/exit_fast do) timed over 100,000 pairs on the thread's CPU clock, the best of 3, plus the JNI
 * transition the loop cannot reproduce (JNI_PAIR_TRANSITION_NS) for the JNI flavour.  The writer's work is not in
 * it: decide() adds the writer thread's measured CPU time.  What neither counts (the inlining a probe prevents,
 * caches) makes the estimate a lower bound of the agent's cost. */
static double calibrate(int ffm)
{
	enum { N = 100000 };
	struct emp_ring r;
	double best = 0;
	if (emp_ring_init(&r, 1u << 16))
		return 50.0; /* out of memory: the figure of design.md §8 */
	for (int run = 0; run < 3; run++) {
		uint64_t t0 = emp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		for (uint32_t i = 0; i < N; i++) {
			for (int k = 0; k < 2; k++) {
				uint64_t now = emp_clock_ticks();
				uint32_t len = emp_trace_rec_size(&r, i, now);
				void *rec = emp_ring_reserve(&r, len);
				emp_trace_rec_put(&r, rec, len, k ? EMP_REC_EXIT : EMP_REC_ENTER, i, now);
				emp_ring_commit(&r);
			}
			emp_ring_consume_end(&r, atomic_load_explicit(&r.head, memory_order_relaxed));
		}
		double ns = (double)(emp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / N;
		if (run == 0 || ns < best)
			best = ns;
	}
	emp_ring_destroy(&r);
	return best + (ffm ? 0.0 : JNI_PAIR_TRANSITION_NS);
}

struct cand {
	uint32_t id;
	uint64_t calls, self_ticks;
	double score;
};

static int by_score(const void *a, const void *c)
{
	double x = ((const struct cand *)a)->score, y = ((const struct cand *)c)->score;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The classes the current decision retransforms: those of the methods it removes that emp/Guard cannot switch off. */
static struct {
	char **names;
	size_t n;
} batch;

static int in_batch(const char *klass)
{
	for (size_t i = 0; i < batch.n; i++)
		if (!strcmp(batch.names[i], klass))
			return 1;
	return 0;
}

/* Name @c in the dump: META deinstrumented.<id> = "calls=N self_ns=N at_ticks=N reason=budget". */
static void name_removed(const struct cand *c, const struct emp_callstat *m, double ns_per_tick)
{
	char key[32], val[160];
	snprintf(key, sizeof(key), "deinstrumented.%u", c->id);
	snprintf(val, sizeof(val), "calls=%llu self_ns=%llu at_ticks=%llu reason=budget",
		 (unsigned long long)atomic_load_explicit(&m->calls, memory_order_relaxed),
		 (unsigned long long)((double)atomic_load_explicit(&m->self_ticks, memory_order_relaxed) * ns_per_tick),
		 (unsigned long long)emp_clock_ticks());
	emp_writer_add_meta(key, val);
}

/* Switch method @id off in emp/Guard.OFF (a JNI array write from this agent thread; the probes read the byte with a
 * plain load and see it soon, see Guard.java).  Return: 1, or 0 when @id is beyond the array (or there is none). */
static int switch_off(JNIEnv *jni, uint32_t id)
{
	static const jbyte one = 1;
	if (!b.probes.off || id >= (uint32_t)b.probes.off_len)
		return 0;
	(*jni)->SetByteArrayRegion(jni, b.probes.off, (jsize)id, 1, &one);
	return 1;
}

/* One period: the traced threads ran @cpu_ns of CPU time, the writer @writer_ns.  The agent's cost: the calls
 * drained × (the calibrated probe pair + the writer's CPU time per call).  The writer's share per call is taken
 * over the last run of periods that drained at least WRITER_MIN_CALLS calls together (b.writer_per_call): its CPU
 * time has a part that does not shrink with the calls (its wake-ups, flushes), which spread over a few calls would
 * make every method look costly.  Not from single periods of that many: once the first waves are removed a period
 * drains far fewer, and the figure stayed that of a full trace's first periods (LZ4 on long runs of alike
 * records), well under what a budget run's writer spends per call (46-124 ns on H2, JDK 25, `log=debug`).
 * Remove methods until that cost is under the budget: switch them off in emp/Guard, or retransform the classes of
 * those it cannot hold.  A switched-off method still costs its guard (a byte load and a branch once compiled),
 * counted as nothing.  Return: methods removed. */
static size_t decide(JNIEnv *jni, uint64_t cpu_ns, uint64_t writer_ns)
{
	uint32_t max = emp_callstats_max_id();
	struct cand *c = malloc((size_t)max * sizeof(*c) + 1);
	size_t n = 0;
	uint64_t calls = 0, live = 0; /* calls drained; those of methods that still have their probes */
	double ns_per_tick = 1e9 / emp_clock_hz();
	if (!c)
		return 0;
	for (uint32_t id = 0; id < max; id++) {
		struct emp_callstat *m = emp_callstats_get(id);
		if (!m)
			continue;
		uint64_t k = atomic_load_explicit(&m->calls, memory_order_relaxed);
		uint64_t s = atomic_load_explicit(&m->self_ticks, memory_order_relaxed);
		uint64_t dk = k - m->seen_calls, ds = s - m->seen_self;
		m->seen_calls = k;
		m->seen_self = s;
		calls += dk;
		/* A removed method's calls drained now were made before its removal (the writer lags) or by frames
		 * that still run its old code: no cost to come. */
		if (dk && !atomic_load_explicit(&m->removed, memory_order_relaxed)) {
			live += dk;
			c[n++] = (struct cand){ id, dk, ds, (double)dk / ((double)ds * ns_per_tick + 1.0) };
		}
	}
	b.writer_ns += writer_ns;
	b.writer_calls += calls;
	if (b.writer_calls >= WRITER_MIN_CALLS) {
		b.writer_per_call = (double)b.writer_ns / (double)b.writer_calls;
		b.writer_ns = b.writer_calls = 0;
	}
	double per_call = b.pair_ns + b.writer_per_call;
	double cost = (double)live * per_call, limit = b.pct / 100.0 * (double)cpu_ns;
	size_t removed = 0, switched = 0;
	batch.n = 0;
	if (cost > limit) {
		qsort(c, n, sizeof(*c), by_score);
		for (size_t i = 0; i < n && cost > AIM * limit; i++) {
			struct emp_callstat *m = emp_callstats_get(c[i].id);
			int off = switch_off(jni, c[i].id);
			if (!off) {
				char *klass = (char *)emp_callstats_class(m);
				char **names = klass ? realloc(batch.names, (batch.n + 1) * sizeof(char *)) : NULL;
				if (!names)
					continue;
				batch.names = names;
				if (!in_batch(klass))
					batch.names[batch.n++] = klass;
			}
			emp_callstats_remove(m);
			name_removed(&c[i], m, ns_per_tick);
			cost -= (double)c[i].calls * per_call;
			removed++;
			switched += (size_t)off;
		}
	}
	free(c);
	if (removed) {
		emp_count(EMP_C_METHODS_DEINSTRUMENTED, removed);
		uint64_t t0 = emp_clock_ns(CLOCK_MONOTONIC);
		if (batch.n)
			b.probes.retransform(jni, in_batch);
		emp_debug("budget: %zu methods removed (%zu switched off), %zu classes retransformed in %.1f ms; a call "
			  "costs %.1f ns (%.1f of it the writer's)", removed, switched, batch.n,
			  (double)(emp_clock_ns(CLOCK_MONOTONIC) - t0) / 1e6, per_call, b.writer_per_call);
	}
	return removed;
}

/* The budget's base: the traced threads' CPU time (callstats.h), as budget= promises — the process's counts the JIT
 * compiler and GC threads too, a third of the CPU time of H2's run under pure (perf), and so allowed the probes
 * more than PCT % of the program's own time.  Until a platform thread's time has been counted (a program whose
 * traced code runs on virtual threads only: their carriers have no state of their own), the process's.  *@traced
 * says which: the switch happens once, at the first traced thread's second reading. */
static uint64_t base_cpu_ns(int *traced)
{
	uint64_t t = emp_callstats_traced_cpu_ns();
	*traced = t != 0;
	return t ? t : emp_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* The controller: a JVMTI agent thread (RunAgentThread), as it must call RetransformClasses.  The JVM leaves such
 * a thread out of Thread.activeCount/enumerate, Thread.getAllStackTraces and the ThreadMXBean views; its
 * java.lang.Thread still takes a thread id and jcmd Thread.print lists it (as the wall-clock sampler). */
static void JNICALL controller_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
	(void)jvmti, (void)arg;
	b.pair_ns = calibrate(b.probes.ffm); /* here, not on the thread running VMInit: the program starts meanwhile */
	char v[64];
	snprintf(v, sizeof(v), "%.1f", b.pair_ns);
	emp_writer_add_meta("budget_probe_pair_ns", v);
	emp_info("budget=%g%%: a probe pair costs %.1f ns (calibrated)", b.pct, b.pair_ns);
	int traced, now_traced;
	uint64_t cpu = base_cpu_ns(&traced), wcpu = emp_writer_cpu_ns();
	uint64_t next = emp_clock_ns(CLOCK_MONOTONIC) + PERIOD_NS;
	pthread_mutex_lock(&b.lock);
	while (!b.stop) {
		struct timespec until = emp_ns_timespec(next);
		if (pthread_cond_timedwait(&b.cond, &b.lock, &until) != ETIMEDOUT)
			continue;
		next += PERIOD_NS;
		uint64_t now = base_cpu_ns(&now_traced);
		if (now_traced != traced) { /* the base changed clocks: start the period again on the new one */
			traced = now_traced;
			cpu = now;
			wcpu = emp_writer_cpu_ns();
			continue;
		}
		if (now - cpu < MIN_CPU_NS)
			continue;
		uint64_t wnow = emp_writer_cpu_ns();
		pthread_mutex_unlock(&b.lock);
		decide(jni, now - cpu, wnow > wcpu ? wnow - wcpu : 0);
		cpu = now;
		wcpu = wnow;
		pthread_mutex_lock(&b.lock);
	}
	b.done = 1;
	pthread_cond_broadcast(&b.cond);
	pthread_mutex_unlock(&b.lock);
}

/* The system thread group (a global ref), taken at VMInit by emp_budget_prepare(): a native thread cannot ask
 * for it before it is attached. */
static jthreadGroup system_group;

void emp_budget_prepare(jvmtiEnv *jvmti, JNIEnv *jni)
{
	jint n = 0;
	jthreadGroup *groups = NULL;
	if ((*jvmti)->GetTopThreadGroups(jvmti, &n, &groups) != JVMTI_ERROR_NONE)
		return;
	if (n > 0)
		system_group = (*jni)->NewGlobalRef(jni, groups[0]);
	for (jint i = 0; i < n; i++)
		(*jni)->DeleteLocalRef(jni, groups[i]);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)groups);
}

JNIEnv *emp_budget_attach(JavaVM *vm, const char *name)
{
	JNIEnv *env = NULL;
	JavaVMAttachArgs args = { JNI_VERSION_1_8, (char *)name, system_group };
	if (!system_group || (*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, &args) != JNI_OK)
		return NULL;
	return env;
}

int emp_budget_start(jvmtiEnv *jvmti, JNIEnv *jni, const struct emp_budget_probes *probes)
{
	if (b.pct <= 0)
		return 0;
	b.probes = *probes;
	char v[64];
	snprintf(v, sizeof(v), "%g", b.pct);
	emp_writer_add_meta("budget_pct", v);
	pthread_condattr_t a;
	if (pthread_condattr_init(&a) || pthread_condattr_setclock(&a, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&b.cond, &a)) {
		emp_warn("budget=: cannot set up the controller; every selected call is recorded");
		return -1;
	}
	pthread_condattr_destroy(&a);
	jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
	jmethodID ctor = tc ? (*jni)->GetMethodID(jni, tc, "<init>", "(Ljava/lang/String;)V") : NULL;
	jstring name = ctor ? (*jni)->NewStringUTF(jni, "emp budget") : NULL;
	jobject thread = name ? (*jni)->NewObject(jni, tc, ctor, name) : NULL;
	b.started = thread && (*jvmti)->RunAgentThread(jvmti, thread, controller_main, NULL,
						       JVMTI_THREAD_NORM_PRIORITY) == JVMTI_ERROR_NONE;
	(*jni)->ExceptionClear(jni);
	if (!b.started) {
		emp_warn("budget=: cannot start the controller thread; every selected call is recorded");
		return -1;
	}
	return 0;
}

/* Wait for the controller's loop to end (an agent thread cannot be joined). */
void emp_budget_stop(void)
{
	if (!b.started)
		return;
	pthread_mutex_lock(&b.lock);
	b.stop = 1;
	pthread_cond_broadcast(&b.cond);
	while (!b.done)
		pthread_cond_wait(&b.cond, &b.lock);
	pthread_mutex_unlock(&b.lock);
	b.started = 0;
}
