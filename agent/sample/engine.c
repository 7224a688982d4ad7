/* SPDX-License-Identifier: MIT */
/* engine.c - the timers that deliver EMP_SAMPLER_SIGNAL to the threads to sample.
 *
 * design.md §8: on these machines POSIX CPU timers and setitimer fire on the kernel tick (250/s), so an interval
 * below 4 ms is reached only with perf_event_open's software CPU-clock event, which works unprivileged with
 * exclude_kernel=1 (perf_event_paranoid = 2).  Engines, best first:
 *   perf    one PERF_COUNT_SW_CPU_CLOCK counter per thread (pid = its tid), sample_period = interval (the first
 *           period random, below);
 *           on overflow the kernel disables the counter (event limit 1, PERF_EVENT_IOC_REFRESH) and sends the
 *           signal to the owning thread (F_SETOWN_EX F_OWNER_TID, F_SETSIG); the handler refreshes it.  No mmap
 *           buffer: we only want the signal.
 *   timer   (engine=ctimer) timer_create on the thread's CPU clock with SIGEV_THREAD_ID: thread-directed, tick-limited.
 *   itimer  setitimer(ITIMER_PROF): process-wide, lands on whichever thread runs (GC and JIT threads too:
 *           sampled with threads=all, else counted as lost_no_thread_state), tick-limited.
 *   wall    a sampler thread (sampler.c) tgkills every live Java thread each interval.
 * perf and timer arm any thread of the process, from any thread (threads=all: the JVM-thread scanner arms
 * threads other than itself; vmthreads.c).
 *
 * First expiry.  A per-thread CPU timer that starts at 0 and fires every interval never fires for a thread whose
 * CPU time stays below one interval: a program that runs its work in short-lived threads (a thread pool per
 * request) would be invisible.  So perf and timer give each thread a first expiry drawn uniformly from
 * (0, interval], then fire every interval: a thread that runs T of CPU then gets T / interval samples in
 * expectation whatever T is (exactly: U + k * interval <= T for k = 0, 1, ... with U uniform), so a 0.3 ms thread
 * is sampled with probability 0.3 at 1 ms, and sample_thread_time_ns / interval stays the expected sample count
 * (the achieved-rate figure).  The random source is splitmix64 of the TSC and the thread id: per thread, no
 * shared state, a few instructions.
 *   perf: sample_period is one number, so the counter is opened with the first period; at every overflow the
 *         handler sets the next one (PERF_EVENT_IOC_PERIOD, which also zeroes the kernel's saved remainder, so
 *         the period starts whole) before it refreshes the counter.  The kernel's cpu-clock hrtimer never runs a
 *         period below 10 us (perf_swevent_hrtimer), which a first period below it becomes.  A kernel without
 *         PERF_EVENT_IOC_PERIOD (checked once, perf_check_period()) keeps the fixed first period.
 *
 * Jitter (perf).  A fixed period locks in step with a program whose iterations take a rational fraction of it:
 * CallTree's iteration of 0.50 ms of CPU under 1 ms sampling had every sample land at one phase of every second
 * iteration, drifting slowly, so a leaf with 54.5 % of the time got 48 to 87 % of the samples from one JVM to the
 * next (compare.sh's verdict missed with 10 VMs).  So every period after the first is drawn uniformly from
 * [interval / 2, 3 interval / 2): the mean stays the interval (T / interval samples expected in T of CPU), and the
 * phase is new at every sample.  One more ioctl per sample (< 1 us).
 *   timer: it_value = the first expiry, it_interval = interval.  POSIX CPU timers are checked at the kernel tick
 *         on the running thread, so a thread that runs shorter than a tick is still sampled less often than its
 *         CPU time says (itimer, process-wide, does not have the problem; perf's hrtimer does not either).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "sampler.h"

const char *emp_engine_name(enum emp_engine e)
{
	switch (e) {
	case EMP_ENGINE_PERF:
		return "perf_cpu_clock";
	case EMP_ENGINE_CTIMER:
		return "thread_cpu_timer";
	case EMP_ENGINE_ITIMER:
		return "itimer_prof";
	case EMP_ENGINE_WALL:
		return "wall_tgkill";
	}
	return "?";
}

/* Uniform in [0, @n): splitmix64 (Steele, Lea, Flood 2014) of the TSC and thread @tid; the modulo's bias is below
 * n / 2^64.  Async-signal-safe: a TSC read and arithmetic. */
static uint64_t uniform(pid_t tid, uint64_t n)
{
	uint64_t z = emp_clock_ticks() ^ ((uint64_t)(uint32_t)tid << 32);
	z += 0x9e3779b97f4a7c15u;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	z ^= z >> 31;
	return z % n;
}

/* The first expiry of thread @tid's timer: uniform in [1, @interval_ns] (file comment). */
static uint64_t first_expiry(pid_t tid, uint64_t interval_ns)
{
	return 1 + uniform(tid, interval_ns);
}

/* A CPU-clock counter on thread @tid of this process (0: the calling thread), first overflow after @interval_ns. */
static int perf_open(uint64_t interval_ns, pid_t tid)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = interval_ns;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	long fd = syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* Whether PERF_EVENT_IOC_PERIOD works here, which the random first period and the jitter need (emp_engine_rearm()
 * draws each next period with it); without it every period is the interval.  Written once by
 * emp_engine_choose() in Agent_OnLoad, before any thread is armed; read-only afterwards. */
static int perf_period_settable;

/* Try PERF_EVENT_IOC_PERIOD on the test counter @fd, then close it. */
static void perf_check_period(int fd, uint64_t interval_ns)
{
	perf_period_settable = ioctl(fd, PERF_EVENT_IOC_PERIOD, &interval_ns) == 0;
	close(fd);
}

/* 0 when timer_create on a thread CPU clock works here, else -errno. */
static int ctimer_error(void)
{
	timer_t t;
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = EMP_SAMPLER_SIGNAL;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t))
		return -errno;
	timer_delete(t);
	return 0;
}

int emp_engine_choose(const struct emp_options *o, enum emp_engine *e, char *err, size_t errlen)
{
	int rc;
	if (o->clock == EMP_CLOCK_WALL) {
		*e = EMP_ENGINE_WALL;
		return 0;
	}
	switch (o->engine) {
	case EMP_SAMPLE_ENGINE_AUTO:
		rc = perf_open(o->interval_ns, 0);
		if (rc >= 0) {
			perf_check_period(rc, o->interval_ns);
			*e = EMP_ENGINE_PERF;
		} else {
			*e = ctimer_error() ? EMP_ENGINE_ITIMER : EMP_ENGINE_CTIMER;
		}
		return 0;
	case EMP_SAMPLE_ENGINE_PERF:
		rc = perf_open(o->interval_ns, 0);
		if (rc < 0) {
			snprintf(err, errlen, "engine=perf: perf_event_open (software CPU clock) failed: %s", strerror(-rc));
			return -1;
		}
		perf_check_period(rc, o->interval_ns);
		*e = EMP_ENGINE_PERF;
		return 0;
	case EMP_SAMPLE_ENGINE_CTIMER:
		rc = ctimer_error();
		if (rc) {
			snprintf(err, errlen, "engine=ctimer: timer_create on a thread CPU clock failed: %s", strerror(-rc));
			return -1;
		}
		*e = EMP_ENGINE_CTIMER;
		return 0;
	case EMP_SAMPLE_ENGINE_ITIMER:
		*e = EMP_ENGINE_ITIMER;
		return 0;
	}
	snprintf(err, errlen, "engine: unknown value %d", (int)o->engine);
	return -1;
}

static int arm_perf(struct emp_sampler_thread *st, uint64_t interval_ns)
{
	int fd = perf_open(perf_period_settable ? first_expiry(st->tid, interval_ns) : interval_ns, st->tid);
	if (fd < 0)
		return fd;
	/* Both set before the counter can overflow: it starts at the REFRESH below, and the handler on st->tid (which
	 * may be another thread: vmthreads.c) reads them after the signal that system call makes possible.  From then
	 * on only that handler reads perf_period_ns.  A new counter reads 0: no PERF_EVENT_IOC_RESET. */
	st->perf_period_ns = perf_period_settable ? interval_ns : 0;
	st->perf_fd = fd;
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = st->tid };
	if (fcntl(fd, F_SETFL, O_ASYNC) || fcntl(fd, F_SETSIG, EMP_SAMPLER_SIGNAL) ||
	    fcntl(fd, F_SETOWN_EX, &owner) || ioctl(fd, PERF_EVENT_IOC_REFRESH, 1)) {
		int e = -errno;
		st->perf_fd = -1;
		close(fd);
		return e;
	}
	return 0;
}

static int arm_timer(struct emp_sampler_thread *st, uint64_t interval_ns)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = EMP_SAMPLER_SIGNAL;
	sev._sigev_un._tid = st->tid;
	if (timer_create(st->cpu_clock, &sev, &st->timer))
		return -errno;
	struct itimerspec its = {
		.it_interval = emp_ns_timespec(interval_ns),
		.it_value = emp_ns_timespec(first_expiry(st->tid, interval_ns)),
	};
	if (timer_settime(st->timer, 0, &its, NULL)) {
		int e = -errno;
		timer_delete(st->timer);
		return e;
	}
	st->has_timer = 1;
	return 0;
}

int emp_engine_arm(enum emp_engine e, struct emp_sampler_thread *st, uint64_t interval_ns)
{
	switch (e) {
	case EMP_ENGINE_PERF:
		return arm_perf(st, interval_ns);
	case EMP_ENGINE_CTIMER:
		return arm_timer(st, interval_ns);
	case EMP_ENGINE_ITIMER:
	case EMP_ENGINE_WALL:
		break;
	}
	return 0;
}

void emp_engine_disarm(struct emp_sampler_thread *st)
{
	if (st->perf_fd >= 0) {
		/* Closing stops the counter and its signals; one already queued may still arrive (the handler then
		 * finds no sampler state). */
		close(st->perf_fd);
		st->perf_fd = -1;
	}
	if (st->has_timer) {
		timer_delete(st->timer);
		st->has_timer = 0;
	}
}

void emp_engine_rearm(struct emp_sampler_thread *st)
{
	/* Async-signal-safe: ioctl system calls on a descriptor owned by this thread's state, a TSC read (uniform());
	 * perf_period_ns was set by arm_perf() before the counter started and is only read here. */
	if (st->perf_fd < 0)
		return;
	if (st->perf_period_ns) { /* the next period, jittered (file comment) */
		uint64_t period = st->perf_period_ns / 2 + uniform(st->tid, st->perf_period_ns);
		ioctl(st->perf_fd, PERF_EVENT_IOC_PERIOD, &period);
	}
	ioctl(st->perf_fd, PERF_EVENT_IOC_REFRESH, 1);
}

int emp_engine_itimer(uint64_t interval_ns)
{
	struct itimerval it = {
		.it_interval = { (time_t)(interval_ns / 1000000000u), (suseconds_t)(interval_ns % 1000000000u / 1000u) },
		.it_value = { (time_t)(interval_ns / 1000000000u), (suseconds_t)(interval_ns % 1000000000u / 1000u) },
	};
	return setitimer(ITIMER_PROF, &it, NULL) ? -errno : 0;
}
