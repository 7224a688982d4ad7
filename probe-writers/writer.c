/* SPDX-License-Identifier: MIT */
/* writer.c - the writer thread; see writer.h. */
#include "writer.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "dump_writer.h"
#include "callstats.h"
#include "gcpause.h"
#include "log.h"
#include "ring.h"
#include "sink.h"
#include "symbols.h"
#include "thread.h"

/* Writer life: OPEN (encoder ready, thread not started) -> RUNNING -> STOPPING -> STOPPED. */
enum { W_NONE, W_OPEN, W_RUNNING, W_STOPPING, W_STOPPED };

/* What the writer keeps per thread state it drains: its own, never seen by producers (thread.h owns the ring). */
struct wthread {
	struct emp_thread *t;
	struct emp_dump_events *events; /* the thread's encoder, created at its first record */
	int name_written;               /* its THREAD symbol is in the dump */
	struct emp_callstats_stack *budget; /* budget=: the thread's open calls, for calls and self time per method */
	struct emp_callstats_cpu cpu;       /* budget=: its CPU clock, for the traced threads' CPU time */
	uint64_t trace_ticks;               /* ticks of the ring's last trace record: emp_trace_rec_get()'s base */
	struct wthread *next;
};

static struct {
	struct emp_dump_writer *dump;
	struct emp_sink *sink;
	int discard;                 /* null sink: drain and drop */
	int compress;                /* compress= (enum emp_compress) */
	int stored;                  /* compress=auto: the chunks flushed now are stored (see drain()) */
	uint64_t flush_ns;
	int nice, nice_given;        /* writer_nice= (options.h) */
	emp_sample_decode_fn decode;
	pthread_t thread;
	struct wthread *threads;     /* the states being drained */
	struct emp_thread *pending;  /* taken from the hand-off queue but not yet listed (out of memory): next pass */
	uint64_t events;
	/* Records turned into events, added to EMP_C_RECORDS_WRITTEN once per drain: a locked add per record
	 * serialized the writer's loads of the ring and cost ~10 ns a record. */
	uint64_t records;
	uint32_t *frames;            /* scratch for sample decoding */
	struct emp_pause *pauses;    /* GC pauses drained from gcpause.c since the last flush (writer thread only) */
	size_t pauses_n, pauses_cap;
	pthread_mutex_t meta_lock;   /* guards meta_kv */
	char **meta_kv;
	size_t meta_n;
} w = { .meta_lock = PTHREAD_MUTEX_INITIALIZER };

/* END's reason: the first stop request names it (set_reason).  A string with static storage duration, so that a
 * signal handler can set it with one CAS.  (R) The requester stores it before its state CAS to STOPPING; the
 * writer loads it after its acquire load of state saw STOPPING (writer_main), see set_reason(). */
static _Atomic(const char *) end_reason;
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "set_reason() runs in signal handlers: its CAS must be lock-free");

/* Relaxed for readers that only want a hint (emp_writer_alive on probe paths); transitions that publish work use
 * the stronger orders noted where they happen. */
static _Atomic int state = W_NONE;
/* Futex word: producers set it to 1 and wake the writer; the writer resets it before each pass.  On a cache line
 * of its own with the sleeping flag: a producer's exchange must not evict the line of `state` and `w`, which the
 * writer reads on every pass.
 *
 * No wake-up is lost.  It is the store-buffer (Dekker) pattern, so both sides are seq_cst:
 *   (W1) producer: exchange(word, 1) then load(sleeping)   (emp_writer_wake)
 *   (W2) writer:   store(sleeping, 1) then load(word)      (writer_main, before futex_wait)
 * In the single total order of seq_cst operations either the writer's load sees word == 1 (it does not sleep) or
 * the producer's load sees sleeping == 1 (it calls FUTEX_WAKE; if the writer has not reached futex_wait yet, the
 * kernel's own check of word == 0 fails there).  The writer's reset before a pass is an acquire exchange (W3): it
 * reads the producer's release of word, so the pass sees every record the producer committed before waking it.
 * The 10 ms timeout of futex_wait only bounds how long an idle writer sleeps when nobody wakes it. */
static struct {
	_Atomic uint32_t word;
	_Atomic int sleeping;
} __attribute__((aligned(64))) wake; /* aligned type: sizeof is 64, the line is not shared */

/* Passes: producers whose ring is full sleep on `seq` until the writer's next pass ends, instead of yielding in a
 * loop: on a machine with more runnable threads than cores a yielding producer mostly hands the core to another
 * producer, rarely to the writer it waits for, and burns the CPU the writer needs.
 *
 * No wake-up is lost; the store-buffer pattern again, both sides seq_cst:
 *   (P1) producer: fetch_add(waiters, 1), then FUTEX_WAIT, whose kernel check reads seq   (emp_writer_wait_pass)
 *   (P2) writer:   fetch_add(seq, 1) after a pass, then load(waiters)                      (end_pass)
 * Either the writer sees the waiter and calls FUTEX_WAKE, or the kernel's check sees the new seq and the producer
 * does not sleep.  The producer reads seq (P3, acquire) before its last look at the ring: it pairs with (P2)'s
 * release side, so a pass that ended before that read has given its room back (the ring's (D)) and the look finds
 * it.  The 1 ms timeout only bounds a wait across the writer's stop. */
static struct {
	_Atomic uint32_t seq;
	_Atomic uint32_t waiters;
} __attribute__((aligned(64))) passes;

static void futex_wait(_Atomic uint32_t *addr, uint32_t expected, uint64_t ns)
{
	struct timespec ts = emp_ns_timespec(ns);
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
}

void emp_writer_wake(void)
{
	/* Async-signal-safe: an atomic exchange and the futex syscall.  (W1), pairs with (W2) and (W3). */
	if (atomic_exchange_explicit(&wake.word, 1, memory_order_seq_cst) == 0 &&
	    atomic_load_explicit(&wake.sleeping, memory_order_seq_cst))
		syscall(SYS_futex, (uint32_t *)&wake.word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

uint32_t emp_writer_passes(void)
{
	/* (P3) acquire; pairs with (P2). */
	return atomic_load_explicit(&passes.seq, memory_order_acquire);
}

void emp_writer_wait_pass(uint32_t seen)
{
	/* (P1), pairs with (P2). */
	atomic_fetch_add_explicit(&passes.waiters, 1, memory_order_seq_cst);
	emp_writer_wake();
	futex_wait(&passes.seq, seen, 1000000u);
	/* Relaxed: a writer that still counts us only makes one needless FUTEX_WAKE. */
	atomic_fetch_sub_explicit(&passes.waiters, 1, memory_order_relaxed);
}

/* A pass has given its room back: wake the producers waiting for it. */
static void end_pass(void)
{
	/* (P2), pairs with (P1) and (P3). */
	atomic_fetch_add_explicit(&passes.seq, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&passes.waiters, memory_order_seq_cst))
		syscall(SYS_futex, (uint32_t *)&passes.seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

int emp_writer_alive(void)
{
	int s = atomic_load_explicit(&state, memory_order_relaxed);
	return s == W_OPEN || s == W_RUNNING;
}

uint64_t emp_writer_cpu_ns(void)
{
	clockid_t id;
	/* Relaxed: the caller's thread was created after emp_writer_start() set w.thread (thread creation orders it);
	 * the state only says whether the thread is still there. */
	if (atomic_load_explicit(&state, memory_order_relaxed) != W_RUNNING || pthread_getcpuclockid(w.thread, &id))
		return 0;
	return emp_clock_ns(id);
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
	w.nice = o->writer_nice;
	w.nice_given = o->writer_nice_given;
	w.frames = malloc(EMP_MAX_FRAMES * sizeof(*w.frames));
	w.dump = emp_dump_writer_new(emp_sink_write, sink);
	if (!w.dump || !w.frames) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	w.compress = o->compress;
	w.stored = 0; /* a recording after another (emp-attach) starts compressing, as its new dump writer does */
	emp_dump_writer_set_compress(w.dump, o->compress != EMP_COMPRESS_NONE);
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
	char *k = strdup(key), *v = strdup(value);
	pthread_mutex_lock(&w.meta_lock);
	char **kv = k && v ? realloc(w.meta_kv, (w.meta_n + 1) * 2 * sizeof(*kv)) : NULL;
	if (kv) {
		w.meta_kv = kv;
		kv[2 * w.meta_n] = k;
		kv[2 * w.meta_n + 1] = v;
		w.meta_n++;
	}
	pthread_mutex_unlock(&w.meta_lock);
	if (!kv) {
		free(k);
		free(v);
		emp_warn("out of memory: META %s=%s is not recorded", key, value);
	}
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

static void flush_events(struct wthread *t)
{
	if (!t->events || !emp_dump_events_count(t->events))
		return;
	flush_symbols();
	w.events += emp_dump_events_count(t->events);
	if (w.stored)
		emp_count(EMP_C_CHUNKS_STORED, 1);
	int rc = emp_dump_events_flush(w.dump, t->events);
	if (rc)
		report_write_error(rc);
}

/* A trace record's event kind is its record type less one, so that the writer computes an event's head without a
 * branch on its type (ENTERs and EXITs interleave at random: a jump table mispredicts on most records). */
_Static_assert(EMP_EV_ENTER == EMP_REC_ENTER - 1 && EMP_EV_EXIT == EMP_REC_EXIT - 1 &&
		       EMP_EV_EXIT_THROW == EMP_REC_EXIT_THROW - 1,
	       "trace record types and event kinds in step");

/* One trace record, decoded by emp_trace_rec_get(). */
static int encode_trace(struct wthread *t, uint32_t type, uint32_t method, uint64_t ticks)
{
	uint32_t kind = type - EMP_REC_ENTER;
	/* an ENTER's head holds its method; an EXIT's none (its record's method is not read) */
	uint64_t head = ((uint64_t)method << EMP_EV_KIND_BITS & -(uint64_t)(kind == EMP_EV_ENTER)) | kind;
	return emp_dump_events_trace(t->events, ticks, head);
}

/* Any other record. */
static int encode_other(struct wthread *t, const uint8_t *rec, uint32_t size)
{
	uint32_t hdr = *(const uint32_t *)(const void *)rec;
	switch (EMP_REC_TYPE(hdr)) {
	case EMP_REC_CPU: {
		const struct emp_rec_cpu *c = (const void *)rec;
		return emp_dump_events_cpu(t->events, c->ticks, c->cpu_ns);
	}
	case EMP_REC_SAMPLE: {
		uint64_t ticks, vthread = 0;
		enum emp_thread_state st;
		uint32_t depth = 0;
		if (!w.decode || w.decode(rec, size, &ticks, &st, w.frames, &depth, &vthread))
			return 1;
		int rc = emp_dump_events_vthread(t->events, ticks, vthread);
		return rc ? rc : emp_dump_events_sample(t->events, ticks, st, w.frames, depth);
	}
	default: /* PAD */
		return 1;
	}
}

/* After a record's encoding returned @rc: 0 written, 1 nothing to write, else an error. */
static void encoded(struct wthread *t, int rc)
{
	if (rc) {
		if (rc < 0)
			report_write_error(rc);
		return;
	}
	w.records++;
	if (emp_dump_events_full(t->events))
		flush_events(t);
}

/* compress=auto: store the chunks of a ring the writer finds half full or more, or while a producer waits for room.
 * A producer wakes the writer when its ring passes a quarter (ring.h), so a writer that keeps up finds about that;
 * finding twice as much, it did not run in time, and LZ4, two thirds of its work on a full trace, is what it can
 * leave out: a stored chunk is about twice the bytes, read the same way (doc/dump-format.md). */
static void choose_compression(const struct emp_ring *r, uint64_t backlog)
{
	if (w.compress != EMP_COMPRESS_AUTO)
		return;
	/* Relaxed: a hint; a waiter the load misses only makes this one chunk compressed. */
	int stored = backlog >= r->size / 2 || atomic_load_explicit(&passes.waiters, memory_order_relaxed);
	if (stored != w.stored)
		emp_dump_writer_set_compress(w.dump, !stored);
	w.stored = stored;
}

/* Drain one thread's ring.  Return: bytes consumed. */
static uint64_t drain(struct wthread *wt)
{
	struct emp_thread *t = wt->t;
	uint64_t tail, head;
	if (!emp_ring_consume_begin(&t->ring, &tail, &head))
		return 0;
	uint64_t start = tail;
	choose_compression(&t->ring, head - tail);
	int budget_on = emp_callstats_on();
	if (!wt->name_written && !w.discard) {
		int rc = emp_dump_add_thread(w.dump, t->id, (uint64_t)t->tid, t->flags, t->name);
		if (rc)
			report_write_error(rc); /* counted; tried again at the next drain */
		else
			wt->name_written = 1;
	}
	int encode = !w.discard;
	if (encode && !wt->events && !(wt->events = emp_dump_events_new(t->id))) {
		report_write_error(-ENOMEM);
		encode = 0; /* this pass's records are lost (counted); the next pass tries again */
	}
	while (tail != head) {
		uint32_t size, type, method;
		uint64_t ticks;
		const uint8_t *rec = emp_ring_record(&t->ring, tail, &size);
		tail += size;
		/* Every trace record is decoded, also with the null sink: the short form's base moves on each one. */
		int trace = emp_trace_rec_get(rec, &wt->trace_ticks, &type, &method, &ticks);
		if (trace && budget_on)
			emp_callstats_note(&wt->budget, type, method, ticks);
		if (encode)
			encoded(wt, trace ? encode_trace(wt, type, method, ticks) : encode_other(wt, rec, size));
	}
	emp_ring_consume_end(&t->ring, head);
	emp_count(EMP_C_RECORDS_WRITTEN, w.records);
	w.records = 0;
	return head - start;
}

/* List the states handed over since the last pass, in hand-over order (about the order of their ids) ahead of the
 * others: their THREAD symbols are then written in about ascending id order, which the reader requires to within
 * 65,536 (thousands of virtual threads can start between two passes).  One the writer cannot list now (out of
 * memory) waits in w.pending for the next pass; its ring fills meanwhile and its producer counts what does not
 * fit. */
static void take_new(void)
{
	struct wthread *first = NULL, **last = &first;
	for (;;) {
		struct emp_thread *t = w.pending ? w.pending : emp_thread_take_new();
		if (!t)
			break;
		struct wthread *wt = calloc(1, sizeof(*wt));
		if (!wt) {
			w.pending = t;
			report_write_error(-ENOMEM);
			break;
		}
		w.pending = NULL;
		wt->t = t;
		*last = wt;
		last = &wt->next;
	}
	*last = w.threads;
	w.threads = first;
}

/* Move the GC pauses out of gcpause.c's fixed array (so it never fills between flushes); they are written as one
 * PAUSES chunk per flush.  Out of memory: they stay in the array, which drops and counts what does not fit. */
static void take_pauses(void)
{
	for (;;) {
		if (w.pauses_n == w.pauses_cap) {
			size_t cap = w.pauses_cap ? 2 * w.pauses_cap : EMP_GCPAUSE_SLOTS;
			struct emp_pause *p = realloc(w.pauses, cap * sizeof(*p));
			if (!p)
				return;
			w.pauses = p;
			w.pauses_cap = cap;
		}
		size_t n = emp_gcpause_drain(w.pauses + w.pauses_n, w.pauses_cap - w.pauses_n);
		if (n == 0)
			return;
		if (!w.discard)
			w.pauses_n += n;
	}
}

static void flush_pauses(void)
{
	if (w.pauses_n) {
		int rc = emp_dump_write_pauses(w.dump, w.pauses, w.pauses_n);
		if (rc)
			report_write_error(rc);
		w.pauses_n = 0;
	}
}

/* One pass over all threads.  Dead threads are drained one last time and freed. */
static uint64_t pass(int final)
{
	uint64_t moved = 0;
	take_new();
	take_pauses();
	int budget_on = emp_callstats_on();
	uint64_t now = budget_on ? emp_clock_ns(CLOCK_MONOTONIC) : 0;
	for (struct wthread **pp = &w.threads, *wt; (wt = *pp) != NULL;) {
		int dead = emp_thread_is_dead(wt->t); /* before the drain: a dead thread's last records are in */
		moved += drain(wt);
		if (budget_on) /* a virtual thread's state (tid 0) is skipped there */
			emp_callstats_thread_cpu(&wt->cpu, wt->t->tid, now, dead);
		if (dead) {
			flush_events(wt);
			/* Its last events are out: say it ended, so a reader tells calls it left open (never closed) from
			 * calls the end of the recording cut.  `ended` is read after (F) in emp_thread_is_dead(). */
			if (wt->name_written && wt->t->ended) {
				int rc = emp_dump_add_thread(w.dump, wt->t->id, (uint64_t)wt->t->tid,
							     wt->t->flags | EMP_THREAD_ENDED, wt->t->name);
				if (rc)
					report_write_error(rc);
			}
			emp_dump_events_free(wt->events);
			emp_callstats_stack_free(wt->budget);
			*pp = wt->next;
			emp_thread_free(wt->t);
			free(wt);
			continue;
		}
		if (final)
			flush_events(wt);
		pp = &wt->next;
	}
	return moved;
}

static void flush_all(void)
{
	write_pending_meta();
	for (struct wthread *wt = w.threads; wt; wt = wt->next)
		flush_events(wt);
	flush_symbols();
	flush_pauses();
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
	/* (R) acquire; pairs with the requester's CAS in set_reason(), which precedes its CAS of state to STOPPING. */
	const char *reason = atomic_load_explicit(&end_reason, memory_order_acquire);
	if (!reason)
		reason = "unknown";
	pass(1);
	flush_all();
	char ticks[32], mono[32], real[32], events[32];
	snprintf(ticks, sizeof(ticks), "%" PRIu64, emp_clock_ticks());
	snprintf(mono, sizeof(mono), "%" PRIu64, emp_clock_ns(CLOCK_MONOTONIC));
	snprintf(real, sizeof(real), "%" PRIu64, emp_clock_ns(CLOCK_REALTIME));
	snprintf(events, sizeof(events), "%" PRIu64, w.events);
	const char *kv[] = { "reason", reason, "clock_end_ticks", ticks, "clock_end_mono_ns", mono,
			     "end_realtime_ns", real, "events", events };
	int rc = emp_dump_write_end(w.dump, kv, sizeof(kv) / sizeof(kv[0]) / 2);
	if (rc)
		report_write_error(rc);
	emp_info("wrote %" PRIu64 " events to %s (%s)", w.events, emp_sink_describe(w.sink), reason);
	emp_sink_close(w.sink);
	emp_dump_writer_free(w.dump);
	w.dump = NULL;
	free(w.pauses);
	w.pauses = NULL;
	w.pauses_n = w.pauses_cap = 0;
	w.sink = NULL;
	/* Release: everything above is done before a waiter (emp_writer_stop_async) sees STOPPED. */
	atomic_store_explicit(&state, W_STOPPED, memory_order_release);
}

/* writer_nice=: the writer thread's nice value, set from the writer itself (Linux keeps a nice value per thread;
 * setpriority(PRIO_PROCESS, tid) changes that thread's alone).  Above the traced threads' priority, a writer woken
 * by a producer (every quarter ring) runs at once rather than after their time slices, so it drains their rings
 * before they fill: on a full H2 trace (4 threads, 2 cores) ring_full_waits fell from ~1,800 to 83-395 at -10 and
 * 47-144 at -19 (bench/README.md "the writer's priority").  Its work is the same; only when it runs changes, and it
 * sleeps as soon as the rings are drained.  Lowering a nice value needs CAP_SYS_NICE, or RLIMIT_NICE's leave: when
 * refused, the writer takes the lowest RLIMIT_NICE allows if that is below the JVM's, else keeps the JVM's; the
 * META key writer_nice says what it got. */
static void set_priority(void)
{
	errno = 0;
	int base = getpriority(PRIO_PROCESS, 0); /* this thread's: inherited from the thread that loaded the agent */
	if (base == -1 && errno)
		base = 0;
	int want = w.nice_given ? w.nice : base - 19 < -20 ? -20 : base - 19;
	const id_t tid = (id_t)syscall(SYS_gettid);
	char v[96];
	if (want == base || !setpriority(PRIO_PROCESS, tid, want)) {
		snprintf(v, sizeof(v), "%d", want);
	} else {
		int e = errno, floor = base;
		struct rlimit rl; /* RLIMIT_NICE's ceiling c allows nice values down to 20 - c */
		if (!getrlimit(RLIMIT_NICE, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= 40 &&
		    20 - (int)rl.rlim_cur < base && 20 - (int)rl.rlim_cur > want &&
		    !setpriority(PRIO_PROCESS, tid, 20 - (int)rl.rlim_cur))
			floor = 20 - (int)rl.rlim_cur;
		snprintf(v, sizeof(v), "%d (%d refused: %s)", floor, want, strerror(e));
	}
	emp_writer_add_meta("writer_nice", v);
}

/* The kernel's struct sched_attr as of its first version (SCHED_ATTR_SIZE_VER0, 48 bytes): glibc before 2.41 does
 * not declare it, and the <linux/sched/types.h> one clashes with a glibc that does. */
struct writer_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};
_Static_assert(sizeof(struct writer_sched_attr) == 48, "SCHED_ATTR_SIZE_VER0");

#define WRITER_SLICE_NS 100000u /* the shortest slice Linux allows a fair task */

/* The writer's time slice.  Linux 6.6+ schedules fair tasks by EEVDF, which protects the running task's slice from
 * a woken task that has the same slice: at 250 Hz the writer woken by a producer then waited for the next tick,
 * up to 4 ms, whatever its nice value (on a full H2 trace 44 of 8,027 wakes took more than 1 ms, up to 4.4).  A
 * task with a shorter slice preempts at once (PREEMPT_SHORT); since 6.12 a fair task may ask for one, without
 * privilege, as sched_setattr's sched_runtime (the shortest is 100 us).  With it the wakes above 1 ms fell to 10
 * and ring_full_waits from 14-32 to 7-15 (bench/README.md "8-byte trace records").  Older kernels ignore
 * sched_runtime for fair tasks.  The META key writer_slice_ns says what the kernel reports back: the slice, or 0
 * where it has none to report (before 6.12). */
static void set_slice(void)
{
	struct writer_sched_attr a;
	char v[96];
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	/* Keep the policy and nice value set_priority() left; sched_setattr sets them too. */
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0)) {
		snprintf(v, sizeof(v), "not set (sched_getattr: %s)", strerror(errno));
	} else if (a.policy != SCHED_OTHER) {
		snprintf(v, sizeof(v), "not set (policy %u)", a.policy);
	} else {
		a.size = sizeof(a);
		a.flags = 0;
		a.runtime = WRITER_SLICE_NS;
		int rc = (int)syscall(SYS_sched_setattr, 0, &a, 0), e = errno;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		if (rc)
			snprintf(v, sizeof(v), "not set (%s)", strerror(e));
		else if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0))
			snprintf(v, sizeof(v), "unknown (sched_getattr: %s)", strerror(errno));
		else
			snprintf(v, sizeof(v), "%" PRIu64, a.runtime);
	}
	emp_writer_add_meta("writer_slice_ns", v);
}

static void *writer_main(void *arg)
{
	(void)arg;
	set_priority();
	set_slice();
	uint64_t next_flush = emp_clock_ns(CLOCK_MONOTONIC) + w.flush_ns;
	while (atomic_load_explicit(&state, memory_order_acquire) == W_RUNNING) {
		/* (W3) acquire; pairs with a producer's (W1). */
		atomic_exchange_explicit(&wake.word, 0, memory_order_acquire);
		uint64_t moved = pass(0);
		end_pass();
		uint64_t now = emp_clock_ns(CLOCK_MONOTONIC);
		if (now >= next_flush) {
			flush_all();
			next_flush = now + w.flush_ns;
		}
		if (moved < 64 * 1024) {
			/* Little to do: sleep up to 10 ms (a ring holds far more than that at sampling rates), or until a
			 * producer that found its ring full, or a stop request, wakes us. */
			/* (W2), pairs with (W1): no wake-up is lost (see `wake`). */
			atomic_store_explicit(&wake.sleeping, 1, memory_order_seq_cst);
			if (atomic_load_explicit(&wake.word, memory_order_seq_cst) == 0)
				futex_wait(&wake.word, 0, 10 * 1000000u);
			/* Relaxed: a producer that still sees 1 only makes one needless FUTEX_WAKE. */
			atomic_store_explicit(&wake.sleeping, 0, memory_order_relaxed);
		}
	}
	finish();
	return NULL;
}

int emp_writer_start(void)
{
	int expected = W_OPEN;
	if (!atomic_compare_exchange_strong(&state, &expected, W_RUNNING))
		return -1;
	int rc = emp_thread_spawn(&w.thread, "emp writer", writer_main, NULL);
	if (rc) {
		atomic_store(&state, W_OPEN);
		emp_error("cannot start the writer thread: %s", strerror(rc));
		return -1;
	}
	return 0;
}

/* The first stop request names END's reason; called before the request's CAS of state, so the writer, which
 * reads it after seeing STOPPING, sees it.  Async-signal-safe: one lock-free CAS.  (R) acq_rel: a later requester
 * whose CAS fails acquires the first one's reason before its own state CAS (seq_cst) publishes it in turn. */
static void set_reason(const char *reason)
{
	const char *none = NULL;
	atomic_compare_exchange_strong_explicit(&end_reason, &none, reason, memory_order_acq_rel,
						memory_order_acquire);
}

static void wake_for_stop(void)
{
	atomic_store_explicit(&wake.word, 1, memory_order_release);
	syscall(SYS_futex, (uint32_t *)&wake.word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void emp_writer_stop(const char *reason)
{
	set_reason(reason);
	int s = W_RUNNING;
	if (atomic_compare_exchange_strong(&state, &s, W_STOPPING)) {
		wake_for_stop();
		pthread_join(w.thread, NULL);
		return;
	}
	s = W_OPEN; /* never started (the JVM ended before VMInit): finish here */
	if (atomic_compare_exchange_strong(&state, &s, W_STOPPING)) {
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
	/* Async-signal-safe: two CAS, futex wake, nanosleep. */
	set_reason(reason);
	int s = W_RUNNING;
	if (atomic_compare_exchange_strong(&state, &s, W_STOPPING))
		wake_for_stop();
	for (unsigned i = 0; i < timeout_ms && atomic_load_explicit(&state, memory_order_acquire) == W_STOPPING; i++) {
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
	}
}
