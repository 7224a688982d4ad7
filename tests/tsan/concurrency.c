/* SPDX-License-Identifier: MIT */
/* concurrency.c - the agent's lock-free hand-overs under ThreadSanitizer (`make tsan`), end to end and with exact
 * counts: producer threads attach, fill their rings with ENTER/EXIT records and wake the writer; threads come and
 * go while the writer drains and frees them; a GC thread and a safepoint poller hand pauses over (gcpause.c, one
 * array each) meanwhile; two stop requests race.  The dump is read back: every record is in it, in order per thread, every GC pause recorded is in it (those
 * the full hand-over array dropped are counted), and END names one of the racing reasons.
 *
 * Not Criterion: its forked workers and inheritable arena do not run under TSAN's memory layout.  Exit status 0
 * when every check holds, 1 otherwise (each failure names itself).  Built without TSAN too, so that `make test`
 * runs it (tests/integration/concurrency.sh). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "gcpause.h"
#include "dump_reader.h"
#include "options.h"
#include "ring.h"
#include "sink.h"
#include "symbols.h"
#include "thread.h"
#include "writer.h"

#define PRODUCERS 4
#define ROUNDS 3          /* each producer slot attaches, produces and detaches this many times */
#define CALLS 50000       /* ENTER/EXIT pairs per attachment */
#define RING_BYTES 8192   /* small, so producers find it full and must wake the writer */
#define GC_PAUSES 20000   /* start/finish pairs from the one GC thread (more than the 256 slots hold) */
#define SP_PAUSES 20000   /* safepoint pauses from the one poller thread */

static int failures;
static uint32_t method;
/* Times a producer found its ring full and slept for a writer pass (emp_writer_wait_pass); relaxed: a count. */
static _Atomic uint64_t waits;

#define CHECK(cond, ...)                                                                                       \
	do {                                                                                                   \
		if (!(cond)) {                                                                                 \
			failures++;                                                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
			fprintf(stderr, __VA_ARGS__);                                                          \
			fputc('\n', stderr);                                                                   \
		}                                                                                              \
	} while (0)

/* One record into the calling thread's ring; a full ring wakes the writer and waits, as onfull=block does. */
static void put(struct emp_thread *t, enum emp_ring_type type, uint64_t ticks)
{
	void *r;
	uint32_t len = emp_trace_rec_size(&t->ring, method, ticks);
	for (;;) {
		uint32_t seq = emp_writer_passes();
		if ((r = emp_ring_reserve(&t->ring, len)))
			break;
		atomic_fetch_add_explicit(&waits, 1, memory_order_relaxed);
		emp_writer_wait_pass(seq);
	}
	emp_trace_rec_put(&t->ring, r, len, type, method, ticks);
	if (emp_ring_commit_wake(&t->ring))
		emp_writer_wake();
}

static void *producer(void *arg)
{
	(void)arg;
	for (int round = 0; round < ROUNDS; round++) {
		struct emp_thread *t = emp_thread_attach("producer", EMP_THREAD_JAVA, NULL);
		if (!t) {
			CHECK(0, "emp_thread_attach failed");
			return NULL;
		}
		/* ticks strictly increasing per thread: the reader checks the order */
		for (uint64_t i = 0; i < CALLS; i++) {
			put(t, EMP_REC_ENTER, 2 * i + 1);
			put(t, EMP_REC_EXIT, 2 * i + 2);
		}
		emp_thread_detach(); /* the writer drains and frees it concurrently with the next attach */
	}
	return NULL;
}

/* The JVM's GC callbacks: one thread at a time (gcpause.h), here one thread. */
static void *gc_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < GC_PAUSES; i++) {
		emp_gcpause_start();
		emp_gcpause_finish();
		if (i % 64 == 0)
			sched_yield();
	}
	return NULL;
}

/* safepoint.c's poller: the one producer of the safepoint array. */
static void *poller_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < SP_PAUSES; i++) {
		emp_gcpause_safepoint(&(struct emp_pause){ .kind = EMP_PAUSE_SAFEPOINT, .start = emp_clock_ticks(),
							   .duration = 0 });
		if (i % 64 == 0)
			sched_yield();
	}
	return NULL;
}

static void *stopper(void *arg)
{
	emp_writer_stop(arg);
	return NULL;
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/emp-tsan-XXXXXX", err[256];
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	struct emp_options o;
	if (emp_options_parse("mode=trace,include=emp.tsan.*", &o, err, sizeof(err)) ||
	    emp_clock_init(EMP_TIME_AUTO, 10, err, sizeof(err))) {
		fprintf(stderr, "setup: %s\n", err);
		return 1;
	}
	emp_thread_setup(RING_BYTES);
	emp_symbols_setup();
	method = (uint32_t)emp_symbols_add_method(EMP_FRAME_JAVA, 0, "emp.tsan.Driver", "call", "()V");
	struct emp_sink *sink;
	const char *kv[] = { "agent", "emp", "mode", "trace" };
	if (emp_sink_open(&o, path, &sink, err, sizeof(err)) || emp_writer_open(&o, sink, kv, 2, err, sizeof(err)) ||
	    emp_writer_start()) {
		fprintf(stderr, "writer: %s\n", err);
		return 1;
	}
	/* META added while the writer runs: the meta lock against the writer's flush. */
	emp_writer_add_meta("late", "yes");

	pthread_t th[PRODUCERS], stop[2], gc, poller;
	pthread_create(&gc, NULL, gc_thread, NULL);
	pthread_create(&poller, NULL, poller_thread, NULL);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_create(&th[i], NULL, producer, NULL);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(th[i], NULL);
	pthread_join(gc, NULL);
	pthread_join(poller, NULL);
	/* Two stop requests race: END must carry one of the two reasons, whole. */
	pthread_create(&stop[0], NULL, stopper, "first");
	pthread_create(&stop[1], NULL, stopper, "second");
	pthread_join(stop[0], NULL);
	pthread_join(stop[1], NULL);

	const uint64_t expect = (uint64_t)PRODUCERS * ROUNDS * CALLS * 2;
	CHECK(emp_counter_get(EMP_C_RECORDS_WRITTEN) == expect, "records_written %llu, expected %llu",
	      (unsigned long long)emp_counter_get(EMP_C_RECORDS_WRITTEN), (unsigned long long)expect);
	CHECK(emp_counter_get(EMP_C_THREADS) == PRODUCERS * ROUNDS, "threads %llu",
	      (unsigned long long)emp_counter_get(EMP_C_THREADS));
	const uint64_t gc_kept = emp_counter_get(EMP_C_GC_PAUSES), gc_lost = emp_counter_get(EMP_C_GC_PAUSE_FULL);
	CHECK(gc_kept + gc_lost == GC_PAUSES && gc_kept > 0, "gc pauses %llu kept + %llu lost, expected %d",
	      (unsigned long long)gc_kept, (unsigned long long)gc_lost, GC_PAUSES);
	const uint64_t sp_kept = emp_counter_get(EMP_C_SAFEPOINT_PAUSES),
		       sp_lost = emp_counter_get(EMP_C_SAFEPOINT_PAUSE_FULL);
	CHECK(sp_kept + sp_lost == SP_PAUSES && sp_kept > 0, "safepoint pauses %llu kept + %llu lost, expected %d",
	      (unsigned long long)sp_kept, (unsigned long long)sp_lost, SP_PAUSES);

	struct emp_dump_reader *r;
	if (emp_dump_reader_open(path, &r, err, sizeof(err))) {
		CHECK(0, "cannot read the dump back: %s", err);
	} else {
		uint64_t n = 0, bad_order = 0, last[PRODUCERS * ROUNDS] = { 0 };
		struct emp_event ev;
		while (emp_dump_reader_next(r, &ev)) {
			n++;
			if (ev.thread < PRODUCERS * ROUNDS) {
				if (ev.ticks <= last[ev.thread])
					bad_order++;
				last[ev.thread] = ev.ticks;
			}
		}
		CHECK(emp_dump_reader_status(r) == EMP_DUMP_COMPLETE, "dump not complete: %s",
		      emp_dump_reader_error(r));
		CHECK(n == expect, "%llu events in the dump, expected %llu", (unsigned long long)n,
		      (unsigned long long)expect);
		CHECK(bad_order == 0, "%llu events out of order", (unsigned long long)bad_order);
		CHECK(emp_dump_thread_limit(r) == PRODUCERS * ROUNDS, "%u THREAD symbols",
		      emp_dump_thread_limit(r));
		const char *reason = emp_dump_end_value(r, "reason");
		CHECK(reason && (!strcmp(reason, "first") || !strcmp(reason, "second")), "END reason '%s'",
		      reason ? reason : "(none)");
		size_t np;
		const struct emp_pause *p = emp_dump_pauses(r, &np);
		uint64_t bad = 0, n_gc = 0, n_sp = 0, end_gc = 0, start_sp = 0;
		for (size_t i = 0; i < np; i++) { /* each kind in order on its own */
			if (p[i].kind == EMP_PAUSE_GC) {
				bad += p[i].start < end_gc;
				end_gc = p[i].start + p[i].duration;
				n_gc++;
			} else if (p[i].kind == EMP_PAUSE_SAFEPOINT) {
				bad += p[i].start < start_sp;
				start_sp = p[i].start;
				n_sp++;
			} else {
				bad++;
			}
		}
		CHECK(n_gc == gc_kept, "%llu GC pauses in the dump, %llu recorded", (unsigned long long)n_gc,
		      (unsigned long long)gc_kept);
		CHECK(n_sp == sp_kept, "%llu safepoint pauses in the dump, %llu recorded", (unsigned long long)n_sp,
		      (unsigned long long)sp_kept);
		CHECK(bad == 0, "%llu pauses out of order or of another kind", (unsigned long long)bad);
		const char *late = emp_dump_meta(r, "late");
		CHECK(late && !strcmp(late, "yes"), "META late=%s", late ? late : "(none)");
		emp_dump_reader_close(r);
	}
	unlink(path);
	emp_options_free(&o);
	(void)argc;
	printf("%s: %s (%llu records through %d threads, %llu waits for a writer pass, %llu GC pauses and %llu "
	       "safepoint pauses, %llu and %llu dropped as the arrays were full)\n",
	       argv[0], failures ? "FAILED" : "ok", (unsigned long long)expect, PRODUCERS * ROUNDS,
	       (unsigned long long)atomic_load(&waits), (unsigned long long)gc_kept, (unsigned long long)sp_kept,
	       (unsigned long long)gc_lost, (unsigned long long)sp_lost);
	return failures != 0;
}
