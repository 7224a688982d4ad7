/* SPDX-License-Identifier: MIT */
/* vmthreads.c - threads=all: sampling the threads JVMTI never announces — the JVM's JIT compiler threads,
 * GC workers, VM thread, service threads — so that a CPU profile shows where the whole JVM spends its CPU, not
 * only its Java threads (async-profiler samples every thread of the process too).
 *
 * Discovery.  A scanner thread (emp's own: not attached to the JVM, every signal blocked) lists /proc/self/task at
 * start (VMInit) and then every EMP_VMTHREADS_SCAN_MS.  A tid that is neither a Java thread (claimed, below) nor
 * emp's own (the scanner, the writer: emp_thread_writer_tid(), threads named "emp ...") nor armed already is armed
 * as a JVM thread:
 *   - at once when its name is one HotSpot gives its own threads (a category other than [native thread], see
 *     emp_vmthreads_category()).  A Java thread cannot be mistaken for one: HotSpot sets a JavaThread's OS name
 *     only after it posted its ThreadStart (JavaThread::run, then thread_main_inner), so a Java thread before its
 *     ThreadStart still bears the name it inherited from its creator — "java" for the threads `main` starts.
 *     Compiler threads (hidden JavaThreads) and GC workers are never announced, and the dynamic ones come and go:
 *     waiting would miss their first work.
 *   - any other name: when two consecutive scans saw it.  A new Java thread exists for microseconds before its
 *     ThreadStart, so a thread still unannounced a scan later is not about to be announced (the launcher's first
 *     thread, a JNI library's own threads).
 * Arming gives the thread an emp_thread (emp_thread_new(): made here, not through TLS, with the dump thread flag
 * EMP_THREAD_VM and the /proc comm as name), starts the engine on it — perf: perf_event_open(pid = tid) with the
 * signal directed at that thread (F_SETOWN_EX F_OWNER_TID); timer: timer_create on the thread's CPU clock (the
 * clock id glibc's pthread_getcpuclockid computes from a tid) with SIGEV_THREAD_ID; itimer: nothing, the
 * process-wide timer lands on JVM threads by itself — and maps its tid to the state in a tid map (tidmap.c)
 * for the signal handler.  A thread a scan no longer sees has ended: it is disarmed (unmapped, engine stopped, its
 * CPU time counted) and its emp_thread retired, so the writer drains it one last time and frees it.
 *
 * Take-over.  sampler.c's arm() calls emp_vmthreads_claim() on every Java thread it arms (ThreadStart, on the
 * thread itself).  Under the registry lock that the scanner also holds from "not claimed?" to "armed", the tid is
 * recorded as Java, and a JVM-thread arming of the same tid is undone first.  This covers a Java thread the
 * scanner saw before its ThreadStart, a native thread that attaches through JNI AttachCurrentThread after it was
 * armed, and an unannounced thread at the first scan.  Such a thread has two dump threads with one os tid: the
 * JVM-thread one (flag 0x2) with what was sampled before, then the Java one.  ThreadEnd releases the claim
 * (emp_vmthreads_release()).
 *
 * Tid reuse.  A tid is only reused after its thread is gone.  The perf counter and the CPU timer belong to the
 * thread (the kernel task), not to the number, so they never fire on a successor; a process-wide itimer signal
 * could, until the next scan finds the old thread gone: such a sample goes into the old thread's ring — never a
 * crash, the tid map hands out a state only while it is mapped — and the successor is armed afresh by a later scan.
 *
 * The signal handler (emp_vmthreads_sample) is async-signal-safe: gettid (a system call), the tid map's lock-free
 * lookup, libunwind's local unwinder (native.c), one ring record, relaxed counter adds, the perf engine's
 * refresh ioctl.  It takes native frames only: no AsyncGetCallTrace (these threads have no JNIEnv in our hands,
 * and on a hidden JavaThread such as a compiler thread AGCT has nothing useful to say); the state is RUNNING.
 *
 * CPU time.  sample_thread_time_ns (the analyzer's achieved rate) includes the JVM threads' CPU time from arming
 * to disarming, read from their CPU clocks; sample_vm_thread_time_ns and sample_vm_threads_armed count only those
 * still JVM threads when they are disarmed (after an attach, the program's threads that ran before it are armed
 * here too, and become Java threads at their first sample: emp_sampler_sample_existing()).  The clock of a thread
 * that has ended can no longer be read: the scanner reads every armed thread's clock at each scan, and a thread
 * found gone counts up to that last reading.
 *
 * VMDeath (emp_vmthreads_stop): the scanner is stopped and joined, then every JVM thread is disarmed, before the
 * writer's final drain (agent.c stops the writer after the mode's vm_death).  The JVM's own signal handling is not
 * touched: SIGPROF is the sampler's signal in every mode, and HotSpot never uses it nor blocks it in its threads.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "dump.h"
#include "log.h"
#include "ring.h"
#include "sampler.h"
#include "writer.h"

#define EMP_VMTHREADS_SCAN_MS 100
/* Tid map capacity: up to half of it, 2048 JVM threads, can be armed. */
#define EMP_VMTHREADS_MAP_SLOTS 4096

/* One armed JVM thread.  Created and freed by the scanner (or a claiming Java thread) under vm.lock; the signal
 * handler reaches it only through the tid map, between emp_tidmap_enter and _leave. */
struct emp_vmthread {
	struct emp_sampler_thread st;   /* engine state: tid, perf_fd, timer, cpu_clock, armed_at_ns */
	struct emp_thread *t;           /* ring and dump identity; retired at disarm */
	enum emp_vm_category category;
	int engine_on;                  /* the engine was started: its CPU time counts as sampled */
	uint64_t last_cpu_ns;           /* the thread's CPU clock at the last scan */
	uint64_t seen;                  /* the last scan that listed it */
	struct emp_vmthread *next;      /* vm.armed */
	uint64_t native[EMP_VMTHREAD_MAX_NATIVE]; /* the handler's unwind buffer */
};

/* A growable sorted array of tids. */
struct tids {
	pid_t *v;
	size_t n, cap;
};

static struct {
	int enabled;                    /* threads=all; set at load, before any signal, then constant */
	enum emp_engine engine;
	uint64_t interval_ns;
	uint64_t ring_bytes;
	/* Attach: the Java threads that ran before it never get a ThreadStart, so the scanner arms them like JVM
	 * threads, and their samples walk the Java stack (emp_sampler_sample_existing) into frames of this depth;
	 * 0 at start-up (every Java thread is announced).  Set before the scanner starts, then constant. */
	uint32_t java_depth;
	char **java_names;              /* the Java threads' names at the attach, to name them by (see arm()) */
	size_t n_java_names;
	/* The registry lock: the tid map's writer side, `armed`, `java`, `stop`.  Held from the scanner's "not a Java
	 * thread?" to its arming, and by emp_vmthreads_claim(): that is the take-over rule. */
	pthread_mutex_t lock;
	pthread_cond_t wake;            /* signalled by emp_vmthreads_stop() */
	int stop;
	struct emp_tidmap map;
	struct emp_vmthread *armed;
	struct tids java;               /* claimed Java threads */
	pthread_t scanner;
	int started;
	/* scanner-private */
	pid_t scanner_tid;
	uint64_t gen;
	struct tids prev, cur;          /* unarmed unknown tids of the previous scan; this scan's listing */
} vm = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* --- categories --- */

static int prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

enum emp_vm_category emp_vmthreads_category(const char *comm)
{
	/* HotSpot's names (JDK 17-25), as /proc shows them: cut to 15 characters. */
	static const char *const jit[] = { "C1 CompilerThre", "C2 CompilerThre", "Sweeper thread", "JVMCI" };
	static const char *const gc[] = { "GC Thread", "G1 ", "Shenandoah", "ParGC", "Gang worker", "GC Worker" };
	static const char *const vmt[] = { "VM Thread", "VM Periodic", "Service Thread", "Monitor Deflati",
					   "Signal Dispatch", "Notification Th", "Attach Listener", "Reference Handl",
					   "Finalizer", "Common-Cleaner", "StrDedup", "VM JFR", "JFR ",
					   "RuntimeWorker" /* ZGC's workers for safepoint-time runtime tasks */ };
	for (size_t i = 0; i < sizeof(jit) / sizeof(jit[0]); i++)
		if (prefix(comm, jit[i]))
			return EMP_VM_JIT;
	if (strstr(comm, "CompilerThre"))
		return EMP_VM_JIT;
	for (size_t i = 0; i < sizeof(gc) / sizeof(gc[0]); i++)
		if (prefix(comm, gc[i]))
			return EMP_VM_GC;
	/* ZGC: ZDriver, ZDirector, ZStat, ZUncommitter, ZUnmapper, ZWorker#0, ZWorkerYoung#0, ... */
	if (comm[0] == 'Z' && comm[1] >= 'A' && comm[1] <= 'Z')
		return EMP_VM_GC;
	for (size_t i = 0; i < sizeof(vmt) / sizeof(vmt[0]); i++)
		if (prefix(comm, vmt[i]))
			return EMP_VM_VM;
	return EMP_VM_NATIVE;
}

const char *emp_vmthreads_category_name(int category)
{
	static const char *const names[] = {
#define EMP_VM_CATEGORY_NAME(id, name) [EMP_VM_##id] = name,
		EMP_VM_CATEGORIES(EMP_VM_CATEGORY_NAME)
#undef EMP_VM_CATEGORY_NAME
	};
	return category >= 0 && category < EMP_VM_CATEGORY_COUNT ? names[category] : NULL;
}

/* --- sorted tid sets --- */

/* Index of the first element >= @tid. */
static size_t tids_lower(const struct tids *s, pid_t tid)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int tids_has(const struct tids *s, pid_t tid)
{
	size_t i = tids_lower(s, tid);
	return i < s->n && s->v[i] == tid;
}

/* Return: 0, or -ENOMEM (nothing changed). */
static int tids_add(struct tids *s, pid_t tid)
{
	size_t i = tids_lower(s, tid);
	if (i < s->n && s->v[i] == tid)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		pid_t *v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(*s->v));
	s->v[i] = tid;
	s->n++;
	return 0;
}

static void tids_del(struct tids *s, pid_t tid)
{
	size_t i = tids_lower(s, tid);
	if (i < s->n && s->v[i] == tid) {
		memmove(s->v + i, s->v + i + 1, (s->n - i - 1) * sizeof(*s->v));
		s->n--;
	}
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return x < y ? -1 : x > y;
}

/* --- arming --- */

/* The name of thread @tid from /proc (its comm), or "" when it is gone. */
static void read_comm(pid_t tid, char *name, size_t len)
{
	char path[64];
	name[0] = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, name, len - 1);
	close(fd);
	if (n <= 0)
		return;
	name[n] = 0;
	name[strcspn(name, "\n")] = 0;
}

/* After an attach: the Java name of the thread whose OS name is @comm — HotSpot names a Java thread's OS thread
 * after it, cut to 15 characters — when exactly one Java thread's name fits; else NULL (`main` keeps the
 * launcher's "java"; the workers of a pool cut to the same 15 characters keep them). */
static const char *java_name(const char *comm)
{
	const char *found = NULL;
	size_t n = strlen(comm);
	for (size_t i = 0; i < vm.n_java_names; i++) {
		const char *j = vm.java_names[i];
		if (strncmp(j, comm, n) || (n < 15 && j[n]))
			continue;
		if (found)
			return NULL;
		found = j;
	}
	return found;
}

/* Arm thread @tid named @name; vm.lock held.  The caller checked that it is neither claimed nor armed. */
static void arm(pid_t tid, const char *name)
{
	if (vm.java_depth && emp_vmthreads_category(name) == EMP_VM_NATIVE && java_name(name))
		name = java_name(name);
	struct emp_vmthread *vt = calloc(1, sizeof(*vt));
	struct emp_thread *t = vt ? emp_thread_new(tid, name, EMP_THREAD_VM, vm.ring_bytes) : NULL;
	if (!t) {
		free(vt);
		emp_count(EMP_C_SAMPLE_ARM_FAILED, 1);
		return;
	}
	vt->t = t;
	vt->category = emp_vmthreads_category(name);
	vt->seen = vm.gen;
	vt->st.t = t;
	vt->st.tid = tid;
	vt->st.perf_fd = -1;
	vt->st.cpu_clock = emp_clock_thread_cpu(tid);
	/* a thread HotSpot names as its own is no Java thread of the program's */
	if (vm.java_depth && vt->category == EMP_VM_NATIVE &&
	    (vt->st.frames = calloc(vm.java_depth, sizeof(*vt->st.frames))))
		vt->st.depth = vm.java_depth;
	bool ok = emp_clock_read_ns(vt->st.cpu_clock, &vt->st.armed_at_ns);
	vt->last_cpu_ns = vt->st.armed_at_ns;
	int rc = ok ? emp_tidmap_put(&vm.map, tid, vt) : -ESRCH;
	if (rc) {
		/* gone already (ESRCH), or 2048 JVM threads armed (ENOSPC) */
		emp_thread_retire(t);
		free(vt->st.frames);
		free(vt);
		if (rc != -ESRCH)
			emp_count(EMP_C_SAMPLE_ARM_FAILED, 1);
		return;
	}
	/* Mapped before the engine starts: the first signal finds the state. */
	rc = emp_engine_arm(vm.engine, &vt->st, vm.interval_ns);
	if (rc) {
		/* Stays mapped and listed, unsampled: not retried at every scan. */
		emp_count(EMP_C_SAMPLE_ARM_FAILED, 1);
		emp_debug("sampler: cannot arm JVM thread %d (%s): %s", (int)tid, name, strerror(-rc));
	} else {
		vt->engine_on = 1;
		emp_debug("sampler: JVM thread %d (%s) armed, %s", (int)tid, name,
			  emp_vmthreads_category_name(vt->category));
	}
	vt->next = vm.armed;
	vm.armed = vt;
}

/* Unmap @vt and unlink it; vm.lock held.  Returns once no signal handler uses it (emp_tidmap_remove). */
static void unmap(struct emp_vmthread *vt)
{
	emp_tidmap_remove(&vm.map, vt->st.tid);
	for (struct emp_vmthread **pp = &vm.armed; *pp; pp = &(*pp)->next)
		if (*pp == vt) {
			*pp = vt->next;
			break;
		}
}

/* Stop @vt's engine, count its CPU time, retire its emp_thread, free it.  @alive: the thread still exists, so its
 * clock can be read (else the last scan's reading counts).  No lock needed: @vt was unmapped and unlinked. */
static void finish(struct emp_vmthread *vt, int alive)
{
	emp_engine_disarm(&vt->st);
	uint64_t end;
	if (!alive || !emp_clock_read_ns(vt->st.cpu_clock, &end))
		end = vt->last_cpu_ns;
	uint64_t used = end > vt->st.armed_at_ns ? end - vt->st.armed_at_ns : 0;
	/* Counted here, once the thread's kind is known: after an attach, a thread that ran before it is armed here
	 * and becomes a Java thread at its first sample that finds a JNIEnv (emp_sampler_sample_existing(); no
	 * handler runs on it any more: unmap() waited). */
	if (vt->engine_on) {
		int jvm = (vt->t->flags & EMP_THREAD_VM) != 0;
		emp_count(jvm ? EMP_C_SAMPLE_VM_THREADS_ARMED : EMP_C_SAMPLE_THREADS_ARMED, 1);
		emp_count(EMP_C_SAMPLE_THREAD_TIME_NS, used);
		if (jvm)
			emp_count(EMP_C_SAMPLE_VM_THREAD_TIME_NS, used);
	}
	emp_thread_retire(vt->t);
	free(vt->st.frames);
	free(vt);
}

/* --- the scanner --- */

/* This process's thread ids, sorted, into @out.  Return: 0 or a negative errno. */
static int list_tasks(struct tids *out)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -errno;
	out->n = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (out->n == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 64;
			pid_t *v = realloc(out->v, cap * sizeof(*v));
			if (!v) {
				rc = -ENOMEM;
				break;
			}
			out->v = v;
			out->cap = cap;
		}
		out->v[out->n++] = (pid_t)strtol(e->d_name, NULL, 10);
	}
	closedir(d);
	qsort(out->v, out->n, sizeof(*out->v), cmp_tid);
	return rc;
}

/* One scan.  See the file comment for the rules. */
static void scan(void)
{
	int rc = list_tasks(&vm.cur);
	if (rc) {
		static int warned;
		if (!warned++)
			emp_warn("sampler: cannot list /proc/self/task (%s); the JVM's own threads are not sampled",
				 strerror(-rc));
		return;
	}
	pid_t writer = emp_thread_writer_tid();
	struct emp_vmthread *gone = NULL;
	size_t nunknown = 0;

	pthread_mutex_lock(&vm.lock);
	vm.gen++;
	for (size_t i = 0; i < vm.cur.n; i++) {
		pid_t tid = vm.cur.v[i];
		if (tid == vm.scanner_tid || tid == writer || tids_has(&vm.java, tid))
			continue;
		struct emp_vmthread *vt = emp_tidmap_get(&vm.map, tid);
		if (vt) {
			vt->seen = vm.gen;
			uint64_t now;
			if (emp_clock_read_ns(vt->st.cpu_clock, &now))
				vt->last_cpu_ns = now;
			continue;
		}
		vm.cur.v[nunknown++] = tid; /* compacted in place: cur now holds the unknown tids, still sorted */
	}
	vm.cur.n = nunknown;
	for (struct emp_vmthread *vt = vm.armed, *next; vt; vt = next) {
		next = vt->next;
		if (vt->seen != vm.gen) {
			unmap(vt);
			vt->next = gone;
			gone = vt;
		}
	}
	pthread_mutex_unlock(&vm.lock);

	while (gone) {
		struct emp_vmthread *vt = gone;
		gone = vt->next;
		finish(vt, 0);
	}

	/* Names are read without the lock (a /proc read each); the lock is taken again to arm, re-checking the claim. */
	size_t ndefer = 0;
	for (size_t i = 0; i < vm.cur.n; i++) {
		pid_t tid = vm.cur.v[i];
		char name[64];
		read_comm(tid, name, sizeof(name));
		if (!name[0] || !strncmp(name, "emp ", 4))
			continue; /* gone, or emp's own (agent.c's "emp timer") */
		if (emp_vmthreads_category(name) == EMP_VM_NATIVE && !tids_has(&vm.prev, tid)) {
			vm.cur.v[ndefer++] = tid; /* seen once: armed if the next scan sees it still unannounced */
			continue;
		}
		pthread_mutex_lock(&vm.lock);
		if (!vm.stop && !tids_has(&vm.java, tid) && !emp_tidmap_get(&vm.map, tid))
			arm(tid, name);
		pthread_mutex_unlock(&vm.lock);
	}
	vm.cur.n = ndefer;
	struct tids t = vm.prev;
	vm.prev = vm.cur;
	vm.cur = t;
}

static void *scanner_main(void *arg)
{
	(void)arg;
	vm.scanner_tid = (pid_t)syscall(SYS_gettid);
	/* emp's writer is started just before us (VMInit) and makes itself known at its first pass, at once; it must
	 * not be taken for a JVM thread.  Bounded: a writer that never runs has nothing to protect. */
	pthread_mutex_lock(&vm.lock);
	for (int i = 0; i < 1000 && !vm.stop && !emp_thread_writer_tid(); i++) {
		pthread_mutex_unlock(&vm.lock);
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
		pthread_mutex_lock(&vm.lock);
	}
	if (!vm.stop) {
		pthread_mutex_unlock(&vm.lock);
		scan();
		pthread_mutex_lock(&vm.lock);
	}
	while (!vm.stop) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += EMP_VMTHREADS_SCAN_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!vm.stop && pthread_cond_timedwait(&vm.wake, &vm.lock, &until) != ETIMEDOUT)
			;
		if (vm.stop)
			break;
		pthread_mutex_unlock(&vm.lock);
		scan();
		pthread_mutex_lock(&vm.lock);
	}
	pthread_mutex_unlock(&vm.lock);
	return NULL;
}

/* --- the signal handler's part --- */

/* One sample of JVM thread @vt.  Async-signal-safe (file comment).  No nesting guard: the ring's only producer is
 * this handler on this thread (no probe writes into a JVM thread's ring), and SIGPROF is blocked while its handler
 * runs (installed without SA_NODEFER). */
static void take_sample(struct emp_vmthread *vt, void *uc)
{
	if (vt->st.frames && emp_sampler_sample_existing(vt->t, &vt->st, uc))
		return;
	struct emp_sample_rec head = { .ticks = emp_clock_ticks(), .state = EMP_STATE_RUNNING };
	unsigned n = emp_native_unwind(uc, vt->native, EMP_VMTHREAD_MAX_NATIVE);
	head.flags = EMP_SAMPLE_VM | (n == EMP_VMTHREAD_MAX_NATIVE ? EMP_SAMPLE_TRUNCATED : 0);
	head.nnative = (uint16_t)n;
	head.category = (int32_t)vt->category;
	if (!emp_sample_record(&vt->t->ring, &head, vt->native, NULL))
		emp_count(EMP_C_SAMPLE_VM_SAMPLES, 1);
}

int emp_vmthreads_sample(void *ucontext)
{
	if (!vm.enabled)
		return 0;
	struct emp_tidmap_slot *held;
	struct emp_vmthread *vt = emp_tidmap_enter(&vm.map, (pid_t)syscall(SYS_gettid), &held);
	if (!vt)
		return 0;
	emp_count(EMP_C_SAMPLE_SIGNALS, 1);
	if (emp_writer_alive())
		take_sample(vt, ucontext);
	else
		emp_count(EMP_C_AFTER_SHUTDOWN, 1);
	emp_engine_rearm(&vt->st);
	emp_tidmap_leave(held);
	return 1;
}

/* --- life cycle and the Java side --- */

int emp_vmthreads_setup(enum emp_engine engine, uint64_t interval_ns, uint64_t ring_bytes, char *err,
			size_t errlen)
{
	int rc = emp_tidmap_init(&vm.map, EMP_VMTHREADS_MAP_SLOTS);
	pthread_condattr_t a;
	if (!rc && (pthread_condattr_init(&a) || pthread_condattr_setclock(&a, CLOCK_MONOTONIC) ||
		    pthread_cond_init(&vm.wake, &a)))
		rc = -ENOMEM;
	if (rc) {
		snprintf(err, errlen, "threads=all: cannot set up the thread map: %s", strerror(-rc));
		return -1;
	}
	pthread_condattr_destroy(&a);
	vm.engine = engine;
	vm.interval_ns = interval_ns;
	/* JVM threads produce at most one record per interval: a quarter of a Java thread's ring (64 KiB at the
	 * default 256K, 30 of the deepest samples) is ample for the writer's 10 ms naps. */
	vm.ring_bytes = ring_bytes / 4 < (64u << 10) ? 64u << 10 : ring_bytes / 4;
	vm.enabled = 1;
	return 0;
}

void emp_vmthreads_java_stacks(uint32_t depth, char **names, size_t n)
{
	vm.java_depth = depth;
	vm.java_names = names;
	vm.n_java_names = n;
}

void emp_vmthreads_start(void)
{
	if (!vm.enabled)
		return;
	int rc = emp_thread_spawn(&vm.scanner, "emp vmscan", scanner_main, NULL);
	if (rc)
		emp_warn("sampler: cannot start the JVM-thread scanner (%s); only Java threads are sampled", strerror(rc));
	else
		vm.started = 1;
}

void emp_vmthreads_stop(void)
{
	if (!vm.enabled)
		return;
	pthread_mutex_lock(&vm.lock);
	vm.stop = 1;
	pthread_cond_signal(&vm.wake);
	pthread_mutex_unlock(&vm.lock);
	if (vm.started) {
		pthread_join(vm.scanner, NULL);
		vm.started = 0;
	}
	struct emp_vmthread *all = NULL;
	pthread_mutex_lock(&vm.lock);
	while (vm.armed) {
		struct emp_vmthread *vt = vm.armed;
		unmap(vt);
		vt->next = all;
		all = vt;
	}
	pthread_mutex_unlock(&vm.lock);
	while (all) {
		struct emp_vmthread *vt = all;
		all = vt->next;
		finish(vt, 1);
	}
	/* The tid map itself stays: a handler may still run on a JVM thread (a signal queued before its engine
	 * stopped) and must find an empty map, not freed memory. */
}

void emp_vmthreads_claim(pid_t tid)
{
	if (!vm.enabled)
		return;
	pthread_mutex_lock(&vm.lock);
	if (tids_add(&vm.java, tid))
		emp_warn("sampler: out of memory recording Java thread %d; it may be sampled twice", (int)tid);
	struct emp_vmthread *vt = emp_tidmap_get(&vm.map, tid);
	if (vt)
		unmap(vt);
	pthread_mutex_unlock(&vm.lock);
	if (vt) {
		/* On the thread itself (ThreadStart), which therefore is not inside its own handler: unmap() did not
		 * wait.  The engine stops before the caller starts the Java one. */
		emp_debug("sampler: JVM thread %d (%s) announced by ThreadStart: sampled as a Java thread from now on",
			  (int)tid, vt->t->name);
		finish(vt, 1);
		emp_count(EMP_C_SAMPLE_VM_TAKEOVERS, 1);
	}
}

void emp_vmthreads_release(pid_t tid)
{
	if (!vm.enabled)
		return;
	pthread_mutex_lock(&vm.lock);
	tids_del(&vm.java, tid);
	pthread_mutex_unlock(&vm.lock);
}
