/* SPDX-License-Identifier: MIT */
/* engine.c - the timers that deliver EMP_SAMPLER_SIGNAL to the threads to sample.
 *
 * design.md §8: on these machines POSIX CPU timers and setitimer fire on the kernel tick (250/s), so an interval
 * below 4 ms is reached only with perf_event_open's software CPU-clock event, which works unprivileged with
 * exclude_kernel=1 (perf_event_paranoid = 2).  Engines, best first:
 *   perf    one PERF_COUNT_SW_CPU_CLOCK counter per thread (pid = its tid), sample_period = interval;
 *           on overflow the kernel disables the counter (event limit 1, PERF_EVENT_IOC_REFRESH) and sends the
 *           signal to the owning thread (F_SETOWN_EX F_OWNER_TID, F_SETSIG); the handler refreshes it.  No mmap
 *           buffer: we only want the signal.
 *   timer   (engine=ctimer) timer_create on the thread's CPU clock with SIGEV_THREAD_ID: thread-directed, tick-limited.
 *   itimer  setitimer(ITIMER_PROF): process-wide, lands on whichever thread runs (GC and JIT threads too:
 *           sampled with threads=all, else counted as lost_no_thread_state), tick-limited.
 * perf and timer arm any thread of the process, from any thread (threads=all: the JVM-thread scanner arms
 * threads other than itself; vmthreads.c).
 *   wall    a sampler thread (sampler.c) tgkills every live Java thread each interval.
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

/* A CPU-clock counter on thread @tid of this process (0: the calling thread). */
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
			close(rc);
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
		close(rc);
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
	int fd = perf_open(interval_ns, st->tid);
	if (fd < 0)
		return fd;
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = st->tid };
	if (fcntl(fd, F_SETFL, O_ASYNC) || fcntl(fd, F_SETSIG, EMP_SAMPLER_SIGNAL) ||
	    fcntl(fd, F_SETOWN_EX, &owner) || ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
	    ioctl(fd, PERF_EVENT_IOC_REFRESH, 1)) {
		int e = -errno;
		close(fd);
		return e;
	}
	st->perf_fd = fd;
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
		.it_value = emp_ns_timespec(interval_ns),
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
	/* Async-signal-safe: one ioctl system call on a descriptor owned by this thread's state. */
	if (st->perf_fd >= 0)
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
