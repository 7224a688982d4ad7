/* SPDX-License-Identifier: MIT */
/* writer.c - the writer thread; see writer.h. */
#include "writer.h"

#include <errno.h>
#include <inttypes.h>
#include <jni.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "dump_writer.h"
#include "log.h"
#include "ring.h"
#include "sink.h"
#include "symbols.h"
#include "thread.h"

/* Writer life: OPEN (encoder ready, thread not started) -> RUNNING -> STOPPING -> STOPPED. */
enum { W_NONE, W_OPEN, W_RUNNING, W_STOPPING, W_STOPPED };

static struct {
	struct emp_dump_writer *dump;
	struct emp_sink *sink;
	int discard;                 /* null sink: drain and drop */
	uint64_t flush_ns;
	emp_sample_decode_fn decode;
	pthread_t thread;
	JavaVM *vm;
	struct emp_thread *threads;  /* writer-private list of thread states */
	uint64_t events;
	/* Records turned into events, added to EMP_C_RECORDS_WRITTEN once per drain: a locked add per record
	 * serialized the writer's loads of the ring and cost ~10 ns a record. */
	uint64_t records;
	uint32_t *frames;            /* scratch for sample decoding */
	pthread_mutex_t meta_lock;   /* guards meta_kv */
	char **meta_kv;
	size_t meta_n;
	char end_reason[64];
} w = { .meta_lock = PTHREAD_MUTEX_INITIALIZER };

/* Relaxed for readers that only want a hint (emp_writer_alive on probe paths); transitions that publish work use
 * the stronger orders noted where they happen. */
static _Atomic int state = W_NONE;
/* Futex word: producers set it to 1 and wake the writer; the writer resets it before each pass.  On a cache line
 * of its own with the sleeping flag: a producer's exchange must not evict the line of `state` and `w`, which the
 * writer reads on every pass. */
static struct {
	_Atomic uint32_t word;
	_Atomic int sleeping;
} __attribute__((aligned(64))) wake; /* aligned type: sizeof is 64, the line is not shared */
static __thread int on_writer_thread;

static void futex_wait(_Atomic uint32_t *addr, uint32_t expected, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
}

void emp_writer_wake(void)
{
	/* Async-signal-safe: an atomic exchange and the futex syscall. */
	if (atomic_exchange_explicit(&wake.word, 1, memory_order_release) == 0 &&
	    atomic_load_explicit(&wake.sleeping, memory_order_relaxed))
		syscall(SYS_futex, (uint32_t *)&wake.word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

int emp_writer_alive(void)
{
	int s = atomic_load_explicit(&state, memory_order_relaxed);
	return s == W_OPEN || s == W_RUNNING;
}

int emp_writer_is_current(void)
{
	return on_writer_thread;
}

void emp_writer_set_sample_decoder(emp_sample_decode_fn fn)
{
	w.decode = fn;
}

static void report_write_error(int rc)
{
	static int reported;
	emp_count(EMP_C_WRITE_ERRORS, 1);
	if (!reported) {
		reported = 1;
		emp_error("writing the dump to %s failed: %s; later records are lost", emp_sink_describe(w.sink),
			  strerror(-rc));
	}
}

int emp_writer_open(const struct emp_options *o, struct emp_sink *sink, const char *const *meta_kv, size_t n_meta,
		    char *err, size_t errlen)
{
	w.sink = sink;
	w.discard = emp_sink_discards(sink);
	w.flush_ns = o->flush_ns;
	w.frames = malloc(EMP_MAX_FRAMES * sizeof(*w.frames));
	w.dump = emp_dump_writer_new(emp_sink_write, sink);
	if (!w.dump || !w.frames) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = emp_dump_write_header(w.dump);
	if (!rc)
		rc = emp_dump_write_meta(w.dump, meta_kv, n_meta);
	if (rc) {
		snprintf(err, errlen, "cannot write the dump header to %s: %s", emp_sink_describe(sink), strerror(-rc));
		return -1;
	}
	atomic_store_explicit(&state, W_OPEN, memory_order_release);
	return 0;
}

void emp_writer_add_meta(const char *key, const char *value)
{
	pthread_mutex_lock(&w.meta_lock);
	char **kv = realloc(w.meta_kv, (w.meta_n + 1) * 2 * sizeof(*kv));
	if (kv) {
		w.meta_kv = kv;
		kv[2 * w.meta_n] = strdup(key);
		kv[2 * w.meta_n + 1] = strdup(value);
		if (kv[2 * w.meta_n] && kv[2 * w.meta_n + 1])
			w.meta_n++;
	}
	pthread_mutex_unlock(&w.meta_lock);
}

static void write_pending_meta(void)
{
	pthread_mutex_lock(&w.meta_lock);
	if (w.meta_n) {
		int rc = emp_dump_write_meta(w.dump, (const char *const *)w.meta_kv, w.meta_n);
		if (rc)
			report_write_error(rc);
		for (size_t i = 0; i < 2 * w.meta_n; i++)
			free(w.meta_kv[i]);
		w.meta_n = 0;
	}
	pthread_mutex_unlock(&w.meta_lock);
}

/* Symbols (queued ones and thread names) go out before any events chunk that may use them. */
static void flush_symbols(void)
{
	int rc = emp_symbols_drain(w.dump);
	if (!rc)
		rc = emp_dump_flush_symbols(w.dump);
	if (rc)
		report_write_error(rc);
}

static void flush_events(struct emp_thread *t)
{
	if (!t->events || !emp_dump_events_count(t->events))
		return;
	flush_symbols();
	w.events += emp_dump_events_count(t->events);
	int rc = emp_dump_events_flush(w.dump, t->events);
	if (rc)
		report_write_error(rc);
}

static void encode_record(struct emp_thread *t, const uint8_t *rec, uint32_t size)
{
	uint32_t hdr = *(const uint32_t *)(const void *)rec;
	const struct emp_rec_trace *tr = (const void *)rec;
	int rc = 0;
	switch ((enum emp_ring_type)EMP_REC_TYPE(hdr)) {
	case EMP_REC_ENTER:
		rc = emp_dump_events_enter(t->events, tr->ticks, tr->method);
		break;
	case EMP_REC_EXIT:
	case EMP_REC_EXIT_THROW:
		rc = emp_dump_events_exit(t->events, tr->ticks, EMP_REC_TYPE(hdr) == EMP_REC_EXIT_THROW);
		break;
	case EMP_REC_SAMPLE: {
		uint64_t ticks;
		enum emp_thread_state st;
		uint32_t depth = 0;
		if (!w.decode || w.decode(rec, size, &ticks, &st, w.frames, &depth))
			return;
		rc = emp_dump_events_sample(t->events, ticks, st, w.frames, depth);
		break;
	}
	case EMP_REC_PAD:
		return;
	}
	if (rc) {
		report_write_error(rc);
		return;
	}
	w.records++;
	if (emp_dump_events_full(t->events))
		flush_events(t);
}

/* Drain one thread's ring.  Return: bytes consumed. */
static uint64_t drain(struct emp_thread *t)
{
	uint64_t tail, head;
	if (!emp_ring_consume_begin(&t->ring, &tail, &head))
		return 0;
	uint64_t start = tail;
	if (!t->symbol_written && !w.discard) {
		emp_dump_add_thread(w.dump, t->id, (uint64_t)t->tid, t->flags, t->name);
		t->symbol_written = 1;
	}
	while (tail != head) {
		uint32_t size;
		const uint8_t *rec = emp_ring_record(&t->ring, tail, &size);
		if (!w.discard) {
			if (!t->events && !(t->events = emp_dump_events_new(t->id))) {
				report_write_error(-ENOMEM);
				break;
			}
			encode_record(t, rec, size);
		}
		tail += size;
	}
	emp_ring_consume_end(&t->ring, head);
	emp_count(EMP_C_RECORDS_WRITTEN, w.records);
	w.records = 0;
	return head - start;
}

/* One pass over all threads.  Dead threads are drained one last time and freed. */
static uint64_t pass(int final)
{
	uint64_t moved = 0;
	emp_thread_take_new(&w.threads);
	for (struct emp_thread **pp = &w.threads, *t; (t = *pp) != NULL;) {
		int dead = emp_thread_is_dead(t); /* before the drain: a dead thread's last records are in */
		moved += drain(t);
		if (dead) {
			flush_events(t);
			emp_dump_events_free(t->events);
			*pp = t->writer_next;
			emp_thread_free(t);
			continue;
		}
		if (final)
			flush_events(t);
		pp = &t->writer_next;
	}
	return moved;
}

static void flush_all(void)
{
	write_pending_meta();
	for (struct emp_thread *t = w.threads; t; t = t->writer_next)
		flush_events(t);
	flush_symbols();
	uint64_t values[EMP_COUNTER_COUNT];
	for (int i = 0; i < EMP_COUNTER_COUNT; i++)
		values[i] = emp_counter_get((enum emp_counter)i);
	int rc = emp_dump_write_counters(w.dump, emp_counter_names, values, EMP_COUNTER_COUNT);
	if (rc)
		report_write_error(rc);
}

/* The last pass: drain everything, final counters, END, close.  Runs on the writer thread when it was started,
 * else on the thread that stops it. */
static void finish(void)
{
	on_writer_thread = 1;
	pass(1);
	flush_all();
	char ticks[32], mono[32], real[32], events[32];
	snprintf(ticks, sizeof(ticks), "%" PRIu64, emp_clock_ticks());
	snprintf(mono, sizeof(mono), "%" PRIu64, emp_clock_ns(CLOCK_MONOTONIC));
	snprintf(real, sizeof(real), "%" PRIu64, emp_clock_ns(CLOCK_REALTIME));
	snprintf(events, sizeof(events), "%" PRIu64, w.events);
	const char *kv[] = { "reason", w.end_reason, "clock_end_ticks", ticks, "clock_end_mono_ns", mono,
			     "end_realtime_ns", real, "events", events };
	int rc = emp_dump_write_end(w.dump, kv, sizeof(kv) / sizeof(kv[0]) / 2);
	if (rc)
		report_write_error(rc);
	emp_info("wrote %" PRIu64 " events to %s (%s)", w.events, emp_sink_describe(w.sink), w.end_reason);
	emp_sink_close(w.sink);
	emp_dump_writer_free(w.dump);
	w.dump = NULL;
	w.sink = NULL;
	/* Release: everything above is done before a waiter (emp_writer_stop_async) sees STOPPED. */
	atomic_store_explicit(&state, W_STOPPED, memory_order_release);
}

static void *writer_main(void *arg)
{
	(void)arg;
	JNIEnv *env = NULL;
	on_writer_thread = 1;
	if (w.vm) {
		JavaVMAttachArgs args = { .version = JNI_VERSION_1_8, .name = (char *)"emp writer", .group = NULL };
		if ((*w.vm)->AttachCurrentThreadAsDaemon(w.vm, (void **)&env, &args) != JNI_OK)
			emp_warn("writer thread could not attach to the JVM; sampled methods stay unresolved");
	}
	uint64_t next_flush = emp_clock_ns(CLOCK_MONOTONIC) + w.flush_ns;
	while (atomic_load_explicit(&state, memory_order_acquire) == W_RUNNING) {
		atomic_store_explicit(&wake.word, 0, memory_order_relaxed);
		uint64_t moved = pass(0);
		uint64_t now = emp_clock_ns(CLOCK_MONOTONIC);
		if (now >= next_flush) {
			flush_all();
			next_flush = now + w.flush_ns;
		}
		if (moved < 64 * 1024) {
			/* Little to do: sleep up to 10 ms (a ring holds far more than that at sampling rates), or until a
			 * producer that found its ring full, or a stop request, wakes us. */
			atomic_store_explicit(&wake.sleeping, 1, memory_order_relaxed);
			futex_wait(&wake.word, 0, 10 * 1000000u);
			atomic_store_explicit(&wake.sleeping, 0, memory_order_relaxed);
		}
	}
	finish();
	if (w.vm && env)
		(*w.vm)->DetachCurrentThread(w.vm);
	return NULL;
}

int emp_writer_start(void *vm)
{
	int expected = W_OPEN;
	w.vm = vm;
	if (!atomic_compare_exchange_strong(&state, &expected, W_RUNNING))
		return -1;
	int rc = pthread_create(&w.thread, NULL, writer_main, NULL);
	if (rc) {
		atomic_store(&state, W_OPEN);
		emp_error("cannot start the writer thread: %s", strerror(rc));
		return -1;
	}
	return 0;
}

static void set_reason(const char *reason)
{
	/* A plain bounded copy: async-signal-safe. */
	size_t i = 0;
	for (; reason[i] && i < sizeof(w.end_reason) - 1; i++)
		w.end_reason[i] = reason[i];
	w.end_reason[i] = 0;
}

static void wake_for_stop(void)
{
	atomic_store_explicit(&wake.word, 1, memory_order_release);
	syscall(SYS_futex, (uint32_t *)&wake.word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void emp_writer_stop(const char *reason)
{
	int s = W_RUNNING;
	if (atomic_compare_exchange_strong(&state, &s, W_STOPPING)) {
		set_reason(reason);
		wake_for_stop();
		pthread_join(w.thread, NULL);
		return;
	}
	s = W_OPEN; /* never started (the JVM ended before VMInit): finish here */
	if (atomic_compare_exchange_strong(&state, &s, W_STOPPING)) {
		set_reason(reason);
		finish();
		return;
	}
	/* STOPPING by a signal, or STOPPED: wait for the writer to be done. */
	while (atomic_load_explicit(&state, memory_order_acquire) == W_STOPPING) {
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
	}
}

void emp_writer_stop_async(const char *reason, unsigned timeout_ms)
{
	/* Async-signal-safe: CAS, a bounded copy, futex wake, nanosleep. */
	int s = W_RUNNING;
	if (atomic_compare_exchange_strong(&state, &s, W_STOPPING)) {
		set_reason(reason);
		wake_for_stop();
	}
	for (unsigned i = 0; i < timeout_ms && atomic_load_explicit(&state, memory_order_acquire) == W_STOPPING; i++) {
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
	}
}
