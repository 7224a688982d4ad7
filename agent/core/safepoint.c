/* SPDX-License-Identifier: MIT */
/* safepoint.c - the safepoint poller (safepoint.h).
 *
 * The jvmstat memory (HotSpot's perfMemory and jvmstat's PerfDataBuffer, format 2.0): a prologue (magic 0xcafec0c0
 * in big-endian byte order, byte_order, major, minor, accessible, used, overflow, mod_time_stamp, entry_offset,
 * num_entries), then entries (entry_length, name_offset, vector_length, data_type, flags, data_units,
 * data_variability, data_offset), each with its NUL-terminated name at name_offset and a jlong value at data_offset
 * for a scalar of type 'J'.  HotSpot only appends entries, and creates the sun.rt counters during VM start-up,
 * before VMInit.
 *
 * Reading the counters.  The VM thread updates them with plain 8-byte stores (aligned: single-copy atomic on
 * x86-64); we read them with relaxed atomic loads of the foreign memory.  The time counter is read before the GC
 * count (emp_gcpause_finished): the GC callbacks run on the VM thread inside the safepoint, before it adds the
 * safepoint's time, and x86-64 keeps one thread's stores and another's loads in order (TSO), so a poll that sees a
 * safepoint's time also sees a GC that finished inside it. */
#include "safepoint.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "gcpause.h"
#include "log.h"
#include "thread.h"

#define POLL_NS 1000000u

static struct {
	const _Atomic int64_t *count, *time; /* sun.rt.safepoints, sun.rt.safepointTime */
	uintptr_t lo, hi;                   /* the jvmstat memory */
	double ticks_per_tick;              /* emp clock ticks per sun.os.hrt tick; 0 = not known yet */
	int64_t last_count, last_time;
	uint64_t gc_mark; /* emp_gcpause_finished() at the poll before the open entry's first safepoint began */
	int open;         /* a safepoint began and its time has not been seen yet */
	pthread_t thread;
	int started;
	_Atomic int stop; /* set by emp_safepoint_stop; relaxed: it only ends the loop, which then polls once more */
} sp;

/* The start and end of the JVM's mapping of its hsperfdata file.  Return: 0, or -1 (none). */
static int find_mapping(uintptr_t *lo, uintptr_t *hi)
{
	char want[64], line[4352];
	snprintf(want, sizeof(want), "/%ld", (long)getpid());
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	int found = -1;
	while (found && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/'), *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		size_t n = path ? strlen(path) : 0, w = strlen(want);
		if (!path || !strstr(path, "/hsperfdata_") || n < w || strcmp(path + n - w, want))
			continue;
		unsigned long a, b;
		if (sscanf(line, "%lx-%lx", &a, &b) == 2) {
			*lo = a;
			*hi = b;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

static int32_t i32(const unsigned char *p)
{
	int32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* The jlong scalar named @name in the jvmstat memory [lo, hi), or NULL. */
static const _Atomic int64_t *counter(uintptr_t lo, uintptr_t hi, const char *name)
{
	const unsigned char *base = (const unsigned char *)lo;
	size_t size = hi - lo;
	int32_t off = i32(base + 24), n = i32(base + 28);
	for (int32_t i = 0; i < n && off > 0 && (size_t)off + 20 <= size; i++) {
		const unsigned char *e = base + off;
		int32_t len = i32(e), name_off = i32(e + 4), vlen = i32(e + 8), data_off = i32(e + 16);
		if (len <= 0 || (size_t)off + (size_t)len > size)
			break;
		if (vlen == 0 && e[12] == 'J' && name_off > 0 && name_off < len && data_off >= 0 && data_off + 8 <= len &&
		    data_off % 8 == 0 && (size_t)(len - name_off) > strlen(name) &&
		    !memcmp(e + name_off, name, strlen(name) + 1))
			return (const _Atomic int64_t *)(const void *)(e + data_off);
		off += len;
	}
	return NULL;
}

/* sun.os.hrt.frequency, the unit of sun.rt.safepointTime: HotSpot creates it only after VMInit (StatSampler), so it
 * is looked up when the first safepoint ends; until it exists the ticks are nanoseconds, which they are on Linux
 * (os::elapsed_frequency). */
static double ticks_per_tick(void)
{
	if (!sp.ticks_per_tick) {
		const _Atomic int64_t *freq = counter(sp.lo, sp.hi, "sun.os.hrt.frequency");
		int64_t hz = freq ? atomic_load_explicit(freq, memory_order_relaxed) : 0;
		if (hz > 0)
			sp.ticks_per_tick = emp_clock_hz() / (double)hz;
		else
			return emp_clock_hz() / 1e9;
	}
	return sp.ticks_per_tick;
}

static void poll_once(void)
{
	/* Relaxed: the VM thread's plain stores; the order of these loads is explained at the top. */
	int64_t t = atomic_load_explicit(sp.time, memory_order_relaxed);
	int64_t c = atomic_load_explicit(sp.count, memory_order_relaxed);
	uint64_t gc = emp_gcpause_finished();
	/* After the loads: a safepoint whose time we saw ended before now, so the entry never starts early. */
	uint64_t now = emp_clock_ticks();
	if (c != sp.last_count) {
		emp_count(EMP_C_SAFEPOINTS, (uint64_t)(c - sp.last_count));
		sp.last_count = c;
		sp.open = 1;
	}
	if (t != sp.last_time) {
		uint64_t d = (uint64_t)((double)(t - sp.last_time) * ticks_per_tick() + 0.5);
		if (d > now)
			d = now;
		struct emp_pause p = { .kind = gc != sp.gc_mark ? EMP_PAUSE_SAFEPOINT_GC : EMP_PAUSE_SAFEPOINT,
				       .start = now - d, .duration = d };
		emp_gcpause_safepoint(&p);
		sp.last_time = t;
		sp.open = 0;
	}
	if (!sp.open)
		sp.gc_mark = gc;
}

static void *poller_main(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&sp.stop, memory_order_relaxed)) {
		nanosleep(&(struct timespec){ .tv_nsec = POLL_NS }, NULL);
		poll_once();
	}
	poll_once();
	return NULL;
}

int emp_safepoint_start(void)
{
	uintptr_t lo, hi;
	if (find_mapping(&lo, &hi)) {
		emp_warn("safepoints=on: no hsperfdata mapping (-XX:-UsePerfData or -XX:+PerfDisableSharedMemory?); "
			 "safepoint pauses are not recorded");
		return -1;
	}
	const unsigned char *pro = (const unsigned char *)lo;
	if (hi - lo >= 32 && pro[0] == 0xca && pro[1] == 0xfe && pro[2] == 0xc0 && pro[3] == 0xc0 && pro[4] == 1 &&
	    pro[5] == 2) {
		sp.count = counter(lo, hi, "sun.rt.safepoints");
		sp.time = counter(lo, hi, "sun.rt.safepointTime");
	}
	if (!sp.count || !sp.time) {
		emp_warn("safepoints=on: the hsperfdata memory has no sun.rt.safepoints/safepointTime counters (or is "
			 "not format 2.0 little-endian); safepoint pauses are not recorded");
		return -1;
	}
	sp.lo = lo;
	sp.hi = hi;
	sp.last_count = atomic_load_explicit(sp.count, memory_order_relaxed);
	sp.last_time = atomic_load_explicit(sp.time, memory_order_relaxed);
	sp.gc_mark = emp_gcpause_finished();
	int rc = emp_thread_spawn(&sp.thread, "emp safepoints", poller_main, NULL);
	if (rc) {
		emp_warn("safepoints=on: cannot start the poller thread (%s); safepoint pauses are not recorded",
			 strerror(rc));
		return -1;
	}
	sp.started = 1;
	return 0;
}

void emp_safepoint_stop(void)
{
	if (!sp.started)
		return;
	atomic_store_explicit(&sp.stop, 1, memory_order_relaxed);
	pthread_join(sp.thread, NULL);
	sp.started = 0;
}
