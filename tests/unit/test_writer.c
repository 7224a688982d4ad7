/* SPDX-License-Identifier: MIT */
/* test_writer.c - probe-writers/writer.c end to end: records put into a thread's ring come back out of the dump
 * exactly (kind, method, ticks, thread, a sample's state and stack through the decoder), a record the decoder
 * drops is not written, META from open and from emp_writer_add_meta(), the method and thread symbols, the final
 * counters and END with the first stop request's reason.  Once with the writer thread running, once never started
 * (the JVM ended before VMInit: the stopping thread finishes the dump).
 *
 * Criterion runs each test in a process of its own, so the writer's, the threads' and the counters' globals start
 * fresh. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "dump_reader.h"
#include "options.h"
#include "ring.h"
#include "sink.h"
#include "symbols.h"
#include "thread.h"
#include "writer.h"

/* The test's own sample record: what the sampler's decoder would turn into a stack.  drop != 0: the decoder
 * refuses it, as the sampler's does a malformed record. */
struct test_sample {
	uint32_t hdr;
	uint32_t drop;
	uint64_t ticks;
	uint32_t state, depth;
	uint32_t frames[3];
	uint64_t vthread;
};

static int decodes;

/* What the writer's META writer_slice_ns should say on this kernel: a thread asks for a 100 us slice as the writer
 * does, and reads back what the kernel reports (100000 on Linux 6.12+, 0 before). */
static void *slice_probe(void *out)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} a = { .size = 48 };
	cr_assert_eq(syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0), 0);
	a.runtime = 100000;
	cr_assert_eq(syscall(SYS_sched_setattr, 0, &a, 0), 0);
	cr_assert_eq(syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0), 0);
	snprintf(out, 32, "%" PRIu64, a.runtime);
	return NULL;
}

static int test_decode(const uint8_t *raw, uint32_t size, uint64_t *ticks, enum emp_thread_state *state,
		       uint32_t *frames, uint32_t *depth, uint64_t *vthread)
{
	const struct test_sample *rec = (const void *)raw;
	decodes++;
	cr_assert_eq(size, sizeof(*rec));
	if (rec->drop)
		return -1;
	*ticks = rec->ticks;
	*state = (enum emp_thread_state)rec->state;
	*depth = rec->depth;
	*vthread = rec->vthread;
	memcpy(frames, rec->frames, rec->depth * sizeof(*frames));
	return 0;
}

/* A trace record as the probes write it (ring.h); its size must be @size: 8 for the short form, 16 for the long. */
static void put_trace(struct emp_thread *t, enum emp_ring_type type, uint32_t method, uint64_t ticks, uint32_t size)
{
	cr_assert_eq(emp_trace_rec_size(&t->ring, method, ticks), size);
	void *r = emp_ring_reserve(&t->ring, size);
	cr_assert_not_null(r);
	emp_trace_rec_put(&t->ring, r, size, type, method, ticks);
	emp_ring_commit(&t->ring);
}

static void put_sample(struct emp_thread *t, int drop, uint64_t ticks, enum emp_thread_state state,
		       const uint32_t *frames, uint32_t depth, uint64_t vthread)
{
	struct test_sample *r = emp_ring_reserve(&t->ring, sizeof(*r));
	cr_assert_not_null(r);
	memset(r, 0, sizeof(*r));
	r->hdr = EMP_REC_HDR(EMP_REC_SAMPLE, sizeof(*r));
	r->drop = (uint32_t)drop;
	r->ticks = ticks;
	r->state = state;
	r->depth = depth;
	r->vthread = vthread;
	memcpy(r->frames, frames, depth * sizeof(*frames));
	emp_ring_commit(&t->ring);
}

/* Options, clock, threads with rings of @ring_bytes, symbols; a fresh dump file at @path (a mkstemp template). */
static void setup(char *path, struct emp_options *o, uint64_t ring_bytes)
{
	char err[256];
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(emp_options_parse("mode=trace,include=t.*", o, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(emp_clock_init(EMP_TIME_AUTO, 10, err, sizeof(err)), 0, "%s", err);
	emp_thread_setup(ring_bytes);
	emp_symbols_setup();
}

/* setup() with one method, t.W.run, and compress=@compress; the writer open on the dump at @path, not started;
 * this thread attached as "worker", its state returned. */
static struct emp_thread *open_run_writer(char *path, struct emp_options *o, uint64_t ring_bytes, int compress)
{
	char err[256];
	setup(path, o, ring_bytes);
	o->compress = compress;
	cr_assert_eq(emp_symbols_add_method(EMP_FRAME_JAVA, 0, "t.W", "run", "()V"), 0);
	struct emp_sink *sink;
	cr_assert_eq(emp_sink_open(o, path, &sink, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(emp_writer_open(o, sink, NULL, 0, err, sizeof(err)), 0, "%s", err);
	struct emp_thread *t = emp_thread_attach("worker", EMP_THREAD_JAVA, NULL);
	cr_assert_not_null(t);
	return t;
}

/* The dump at @path holds exactly @n ENTERs at ticks 1 .. @n and is complete; its reader (the caller closes it). */
static struct emp_dump_reader *read_enters(const char *path, uint64_t n)
{
	char err[256];
	struct emp_dump_reader *r;
	cr_assert_eq(emp_dump_reader_open(path, &r, err, sizeof(err)), 0, "%s", err);
	struct emp_event ev;
	uint64_t got = 0;
	while (emp_dump_reader_next(r, &ev)) {
		got++;
		cr_assert_eq(ev.kind, EMP_EV_ENTER);
		cr_assert_eq(ev.ticks, got, "event %" PRIu64, got);
	}
	cr_assert_eq(got, n);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
	return r;
}

#define LATE (170 + (1ull << 32))

/* Writes one dump through the writer (started or not) and checks everything in it. */
static void write_and_read_back(int start_thread)
{
	char path[] = "/tmp/emp-writer-XXXXXX", err[256];
	struct emp_options o;
	setup(path, &o, 64 * 1024);
	int64_t run = emp_symbols_add_method(EMP_FRAME_JAVA, 0, "t/W", "run", "()V");
	int64_t leaf = emp_symbols_add_method(EMP_FRAME_JAVA, 0, "t.W", "leaf", "(I)J");
	cr_assert_eq(run, 0);
	cr_assert_eq(leaf, 1);
	struct emp_sink *sink;
	const char *kv[] = { "agent", "emp", "mode", "trace" };
	cr_assert_eq(emp_sink_open(&o, path, &sink, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(emp_writer_open(&o, sink, kv, 2, err, sizeof(err)), 0, "%s", err);
	emp_writer_set_sample_decoder(test_decode);
	if (start_thread)
		cr_assert_eq(emp_writer_start(), 0);
	cr_assert_eq(emp_writer_alive(), 1);
	emp_writer_add_meta("late", "yes");

	struct emp_thread *t = emp_thread_attach("worker", EMP_THREAD_JAVA, NULL);
	cr_assert_not_null(t);
	const uint32_t tid = t->id; /* the writer frees *t once it has drained it after the detach */
	static const uint32_t stack[] = { 0, 1 };
	put_trace(t, EMP_REC_ENTER, 0, 100, 8);
	put_trace(t, EMP_REC_ENTER, 1, 150, 8);
	put_trace(t, EMP_REC_EXIT_THROW, 0, 170, 8);
	put_sample(t, 0, 180, EMP_STATE_SLEEPING, stack, 2, 42); /* ran virtual thread #42: a VTHREAD event first */
	put_sample(t, 1, 185, EMP_STATE_RUNNING, stack, 1, 0);
	put_trace(t, EMP_REC_EXIT, 0, LATE, 16); /* 2^32 ticks after the last trace record: the long form */
	emp_thread_detach();
	emp_writer_stop("test_end");
	emp_writer_stop("second"); /* idempotent: the dump is finished once, with the first reason */
	cr_assert_eq(emp_writer_alive(), 0);
	cr_assert_eq(decodes, 2);
	cr_assert_eq(emp_counter_get(EMP_C_RECORDS_WRITTEN), 5);
	cr_assert_eq(emp_counter_get(EMP_C_WRITE_ERRORS), 0);

	struct emp_dump_reader *r;
	cr_assert_eq(emp_dump_reader_open(path, &r, err, sizeof(err)), 0, "%s", err);
	static const struct {
		enum emp_event_kind kind;
		uint64_t ticks;
		uint32_t method, state, depth;
	} want[] = {
		{ EMP_EV_ENTER, 100, 0, 0, 0 },
		{ EMP_EV_ENTER, 150, 1, 0, 0 },
		{ EMP_EV_EXIT_THROW, 170, 0, 0, 0 },
		{ EMP_EV_SAMPLE, 180, 0, EMP_STATE_SLEEPING, 2 },
		{ EMP_EV_EXIT, LATE, 0, 0, 0 },
	};
	struct emp_event ev;
	size_t n = 0;
	while (emp_dump_reader_next(r, &ev)) {
		cr_assert_lt(n, sizeof(want) / sizeof(want[0]), "more events than written");
		cr_assert_eq(ev.kind, want[n].kind, "event %zu", n);
		cr_assert_eq(ev.ticks, want[n].ticks, "event %zu", n);
		cr_assert_eq(ev.thread, tid, "event %zu", n);
		if (ev.kind == EMP_EV_ENTER)
			cr_assert_eq(ev.method, want[n].method, "event %zu", n);
		if (ev.kind == EMP_EV_SAMPLE) {
			cr_assert_eq(ev.state, want[n].state);
			cr_assert_eq(ev.depth, want[n].depth);
			cr_assert_eq(ev.vthread, 42);
			cr_assert_arr_eq(ev.frames, stack, sizeof(stack));
		}
		n++;
	}
	cr_assert_eq(n, sizeof(want) / sizeof(want[0]));
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
	cr_assert_str_eq(emp_dump_meta(r, "agent"), "emp");
	cr_assert_str_eq(emp_dump_meta(r, "mode"), "trace");
	cr_assert_str_eq(emp_dump_meta(r, "late"), "yes");
	/* the writer thread's nice value (writer_nice=, by default 19 below this process's): set, or refused without
	 * CAP_SYS_NICE and said so */
	cr_assert_eq(emp_dump_meta_count(r), start_thread ? 5 : 3);
	if (start_thread) {
		char slice[32];
		pthread_t th;
		cr_assert_eq(pthread_create(&th, NULL, slice_probe, slice), 0);
		pthread_join(th, NULL);
		cr_assert_str_eq(emp_dump_meta(r, "writer_slice_ns"), slice);
		int base = getpriority(PRIO_PROCESS, 0), nice_want = base - 19 < -20 ? -20 : base - 19;
		char set[32], refused[64];
		snprintf(set, sizeof(set), "%d", nice_want);
		snprintf(refused, sizeof(refused), " (%d refused: ", nice_want);
		const char *v = emp_dump_meta(r, "writer_nice");
		cr_assert_not_null(v);
		cr_assert(!strcmp(v, set) || strstr(v, refused), "writer_nice %s", v);
	}
	cr_assert_str_eq(emp_dump_end_value(r, "reason"), "test_end");
	cr_assert_str_eq(emp_dump_end_value(r, "events"), "6"); /* the 5 records and the VTHREAD event before #42's sample */
	cr_assert_eq(emp_dump_counter(r, "records_written"), 5);
	cr_assert_eq(emp_dump_method_limit(r), 2);
	const struct emp_dump_method *m = emp_dump_method(r, 1);
	cr_assert_not_null(m);
	cr_assert_eq(m->kind, EMP_FRAME_JAVA);
	cr_assert_str_eq(m->klass, "t.W");
	cr_assert_str_eq(m->name, "leaf");
	cr_assert_str_eq(m->descriptor, "(I)J");
	cr_assert_str_eq(emp_dump_method(r, 0)->klass, "t.W");
	cr_assert_eq(emp_dump_thread_limit(r), tid + 1);
	const struct emp_dump_thread *th = emp_dump_thread(r, tid);
	cr_assert_not_null(th);
	cr_assert_str_eq(th->name, "worker");
	cr_assert_eq(th->flags, EMP_THREAD_JAVA);
	cr_assert_eq(th->os_tid, (uint64_t)gettid());
	emp_dump_reader_close(r);
	unlink(path);
	emp_options_free(&o);
}

Test(writer, records_read_back_with_the_thread_running)
{
	write_and_read_back(1);
}

Test(writer, records_read_back_when_never_started)
{
	write_and_read_back(0);
}

/* onfull=block's wait: a thread whose ring is full sleeps in emp_writer_wait_pass() until a pass of the writer has
 * drained it; every record gets through, in order. */
Test(writer, full_ring_waits_for_a_writer_pass)
{
	char path[] = "/tmp/emp-writer-XXXXXX";
	struct emp_options o;
	struct emp_thread *t = open_run_writer(path, &o, 4096, EMP_COMPRESS_AUTO);
	/* Not started yet: nobody drains, so the ring takes exactly 4096 / 8 short records and the wait times out. */
	for (uint64_t i = 1; i <= 512; i++)
		put_trace(t, EMP_REC_ENTER, 0, i, EMP_REC_SHORT_SIZE);
	uint32_t seq = emp_writer_passes();
	cr_assert_null(emp_ring_reserve(&t->ring, EMP_REC_SHORT_SIZE));
	emp_writer_wait_pass(seq);
	cr_assert_eq(emp_writer_passes(), seq);
	cr_assert_eq(emp_writer_start(), 0);
	/* Three rings' worth more, each record after as many waits as it takes. */
	uint64_t waits = 0;
	for (uint64_t i = 513; i <= 2048; i++) {
		for (;;) {
			seq = emp_writer_passes();
			if (emp_ring_reserve(&t->ring, EMP_REC_SHORT_SIZE))
				break;
			waits++;
			emp_writer_wait_pass(seq);
		}
		put_trace(t, EMP_REC_ENTER, 0, i, EMP_REC_SHORT_SIZE);
	}
	cr_assert_geq(waits, 3, "%" PRIu64 " waits for 3 rings' worth of records", waits);
	cr_assert_neq(emp_writer_passes(), 0);
	emp_thread_detach();
	emp_writer_stop("test_end");
	struct emp_dump_reader *r = read_enters(path, 2048);
	cr_assert_eq(emp_dump_counter(r, "records_written"), 2048);
	emp_dump_reader_close(r);
	unlink(path);
	emp_options_free(&o);
}

/* compress=auto: the chunk of a ring the writer finds half full or more is stored, and counted; one it finds less
 * full is compressed.  The writer is never started: emp_writer_stop() drains once, on this thread.  Both dumps
 * read back whole.  @records: short ENTERs of one method one tick apart (about 2 bytes each in the chunk). */
static void auto_compression(uint64_t records, uint64_t stored, off_t min_bytes, off_t max_bytes)
{
	char path[] = "/tmp/emp-writer-XXXXXX";
	struct emp_options o;
	struct emp_thread *t = open_run_writer(path, &o, 64 * 1024, EMP_COMPRESS_AUTO);
	for (uint64_t i = 1; i <= records; i++)
		put_trace(t, EMP_REC_ENTER, 0, i, EMP_REC_SHORT_SIZE);
	emp_thread_detach();
	emp_writer_stop("test_end");
	struct emp_dump_reader *r = read_enters(path, records);
	cr_assert_eq(emp_dump_counter(r, "chunks_stored"), stored);
	emp_dump_reader_close(r);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert(st.st_size >= min_bytes && st.st_size <= max_bytes, "%jd bytes", (intmax_t)st.st_size);
	unlink(path);
	emp_options_free(&o);
}

Test(writer, auto_compression_stores_what_a_writer_behind_finds)
{
	auto_compression(5000, 1, 10000, 1 << 20); /* 40,000 of 65,536 ring bytes: ~10 KB of events, stored */
}

Test(writer, auto_compression_compresses_what_a_writer_in_time_finds)
{
	auto_compression(4000, 0, 0, 4000); /* 32,000 bytes, under half: the same events, compressed */
}
