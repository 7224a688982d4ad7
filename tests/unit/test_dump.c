/* SPDX-License-Identifier: MIT */
/* test_dump.c - the dump format module (dump/): writer -> reader round trip of every field, exact encoded sizes,
 * truncation at every byte, single-byte corruption of every chunk, header errors, clock calibration.
 *
 * Dumps are encoded into memory through the writer's sink callback and written to temporary files for the reader;
 * no binary dump is kept in the repository.  With EMP_TEST_CORPUS set (make fuzz), the test "corpus" also leaves a
 * few valid dumps in that directory as seeds for tests/fuzz/ (fuzz_dump_reader.c, fuzz_trace_fold.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "dump_reader.h"
#include "dump_writer.h"
#include "trace.h"
#include "varint.h"

/* ---- a memory sink ---------------------------------------------------------------------------------------- */

struct mem {
	uint8_t *p;
	size_t n, cap;
	unsigned calls;
	int fail_rc; /* when non-zero, the sink returns it */
};

static int mem_sink(void *ctx, const void *buf, size_t len)
{
	struct mem *m = ctx;
	m->calls++;
	if (m->fail_rc)
		return m->fail_rc;
	if (m->n + len > m->cap) {
		m->cap = (m->n + len) * 2;
		m->p = realloc(m->p, m->cap);
		cr_assert_not_null(m->p);
	}
	memcpy(m->p + m->n, buf, len);
	m->n += len;
	return 0;
}

/* ---- expected events -------------------------------------------------------------------------------------- */

struct xev {
	enum emp_event_kind kind;
	uint32_t thread;
	uint64_t ticks;
	uint32_t method, state, depth;
	uint32_t *frames;
	uint64_t cpu_ns;
};

struct xlist {
	struct xev *v;
	size_t n, cap;
};

static struct xev *xpush(struct xlist *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		cr_assert_not_null(l->v);
	}
	struct xev *e = &l->v[l->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

static void xfree(struct xlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].frames);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Append an event to the builder and to the expected list. */
static void enter(struct emp_dump_events *b, struct xlist *x, uint32_t thread, uint64_t ticks, uint32_t method)
{
	cr_assert_eq(emp_dump_events_enter(b, ticks, method), 0);
	struct xev *e = xpush(x);
	e->kind = EMP_EV_ENTER;
	e->thread = thread;
	e->ticks = ticks;
	e->method = method;
}

static void leave(struct emp_dump_events *b, struct xlist *x, uint32_t thread, uint64_t ticks, int thrown)
{
	cr_assert_eq(emp_dump_events_exit(b, ticks, thrown), 0);
	struct xev *e = xpush(x);
	e->kind = thrown ? EMP_EV_EXIT_THROW : EMP_EV_EXIT;
	e->thread = thread;
	e->ticks = ticks;
}

static void cpu(struct emp_dump_events *b, struct xlist *x, uint32_t thread, uint64_t ticks, uint64_t cpu_ns)
{
	cr_assert_eq(emp_dump_events_cpu(b, ticks, cpu_ns), 0);
	struct xev *e = xpush(x);
	e->kind = EMP_EV_CPU;
	e->thread = thread;
	e->ticks = ticks;
	e->cpu_ns = cpu_ns;
}

static void sample(struct emp_dump_events *b, struct xlist *x, uint32_t thread, uint64_t ticks,
		   enum emp_thread_state st, const uint32_t *frames, uint32_t depth)
{
	cr_assert_eq(emp_dump_events_sample(b, ticks, st, frames, depth), 0);
	struct xev *e = xpush(x);
	e->kind = EMP_EV_SAMPLE;
	e->thread = thread;
	e->ticks = ticks;
	e->state = st;
	e->depth = depth;
	e->frames = malloc((depth ? depth : 1) * sizeof(uint32_t));
	cr_assert_not_null(e->frames);
	if (depth)
		memcpy(e->frames, frames, depth * sizeof(uint32_t));
}

static void assert_event(const struct emp_event *ev, const struct xev *x, size_t i)
{
	cr_assert_eq(ev->kind, x->kind, "event %zu: kind %d, expected %d", i, ev->kind, x->kind);
	cr_assert_eq(ev->thread, x->thread, "event %zu: thread", i);
	cr_assert_eq(ev->ticks, x->ticks, "event %zu: ticks %" PRIu64 ", expected %" PRIu64, i, ev->ticks, x->ticks);
	if (x->kind == EMP_EV_ENTER)
		cr_assert_eq(ev->method, x->method, "event %zu: method", i);
	if (x->kind == EMP_EV_CPU)
		cr_assert_eq(ev->cpu_ns, x->cpu_ns, "event %zu: cpu_ns %" PRIu64 ", expected %" PRIu64, i, ev->cpu_ns,
			     x->cpu_ns);
	if (x->kind == EMP_EV_SAMPLE) {
		cr_assert_eq(ev->state, x->state, "event %zu: state", i);
		cr_assert_eq(ev->depth, x->depth, "event %zu: depth %u, expected %u", i, ev->depth, x->depth);
		for (uint32_t k = 0; k < x->depth; k++)
			cr_assert_eq(ev->frames[k], x->frames[k], "event %zu: frame %u", i, k);
	}
}

/* ---- files ------------------------------------------------------------------------------------------------ */

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(p, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

/* A temporary file holding @n bytes of @p; the caller unlinks @path. */
static void temp_file(char *path, size_t len, const void *p, size_t n)
{
	snprintf(path, len, "/tmp/emp-test-dump-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	write_file(path, p, n);
}

/* Open @n bytes as a dump (the file is unlinked again once open).  Return: reader, or NULL with @err set. */
static struct emp_dump_reader *open_bytes(const void *p, size_t n, char *path, size_t plen, char *err, size_t elen)
{
	struct emp_dump_reader *r;
	temp_file(path, plen, p, n);
	int rc = emp_dump_reader_open(path, &r, err, elen);
	unlink(path);
	if (rc) {
		cr_assert_null(r);
		return NULL;
	}
	cr_assert_not_null(r);
	return r;
}

/* Read every event of @r and compare with the first @n events of @x. */
static void assert_events(struct emp_dump_reader *r, const struct xlist *x, size_t n)
{
	struct emp_event ev;
	size_t i = 0;
	while (emp_dump_reader_next(r, &ev)) {
		cr_assert_lt(i, n, "more events than expected (%zu); status %d: %s", n, emp_dump_reader_status(r),
			     emp_dump_reader_error(r));
		assert_event(&ev, &x->v[i], i);
		i++;
	}
	cr_assert_eq(i, n, "%zu events read, expected %zu; status %d: %s", i, n, emp_dump_reader_status(r),
		     emp_dump_reader_error(r));
	cr_assert_eq(emp_dump_reader_next(r, &ev), 0, "the end stays the end");
}

/* Read every event of @r; the first @limit must match @x.  Return: the number read. */
static size_t count_events(struct emp_dump_reader *r, const struct xlist *x, size_t limit)
{
	struct emp_event ev;
	size_t i = 0;
	while (emp_dump_reader_next(r, &ev)) {
		if (i < limit)
			assert_event(&ev, &x->v[i], i);
		i++;
	}
	return i;
}

/* ---- the small complete dump used by several tests -------------------------------------------------------- */

#define MAX_CHUNKS 16

struct small {
	struct mem m;
	struct xlist x;
	size_t nchunks;
	uint64_t start[MAX_CHUNKS], end[MAX_CHUNKS]; /* chunk i occupies [start, end) */
	enum emp_chunk_type type[MAX_CHUNKS];
	size_t events_upto[MAX_CHUNKS];              /* events in chunks 0..i */
};

static void mark(struct small *s, struct emp_dump_writer *w, enum emp_chunk_type type)
{
	size_t i = s->nchunks++;
	cr_assert_lt(i, MAX_CHUNKS);
	s->start[i] = i ? s->end[i - 1] : EMP_DUMP_HEADER_LEN;
	s->end[i] = emp_dump_writer_offset(w);
	cr_assert_eq(s->end[i], s->m.n);
	cr_assert_gt(s->end[i], s->start[i], "chunk %zu was written", i);
	s->type[i] = type;
	s->events_upto[i] = s->x.n;
}

static const char *const small_meta[] = {
	"agent", "emp", "agent_version", "0.1.0", "mode", "sample", "options", "mode=sample,interval=1ms",
	"clock_hz", "2000000000", "clock_ref_ticks", "1000", "clock_ref_mono_ns", "5000000000",
	"empty", "", "utf8", "caf\xc3\xa9 \xe2\x82\xac",
};
static const char *const small_end[] = {
	"reason", "vm_death", "clock_end_ticks", "3000001000", "clock_end_mono_ns", "7000000000", "events", "14",
};

static int small_stored; /* build_small() writes its chunks' blocks uncompressed (compress=none) */

/* Header, META, SYMBOLS, EVENTS(t0), EVENTS(t1), COUNTERS, EVENTS(t0), SYMBOLS, EVENTS(t1), COUNTERS, END. */
static void build_small(struct small *s)
{
	memset(s, 0, sizeof(*s));
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, &s->m);
	cr_assert_not_null(w);
	emp_dump_writer_set_compress(w, !small_stored);
	struct emp_dump_events *t0 = emp_dump_events_new(0), *t1 = emp_dump_events_new(1);
	cr_assert(t0 && t1);
	cr_assert_eq(emp_dump_write_header(w), 0);
	cr_assert_eq(emp_dump_writer_offset(w), EMP_DUMP_HEADER_LEN);
	cr_assert_eq(emp_dump_write_meta(w, small_meta, sizeof(small_meta) / sizeof(small_meta[0]) / 2), 0);
	mark(s, w, EMP_CHUNK_META);
	cr_assert_eq(emp_dump_add_method(w, 0, EMP_FRAME_JAVA, EMP_METHOD_ITERATION, "emp.sut.CallTree",
					 "runIteration", "()V"), 0);
	cr_assert_eq(emp_dump_add_method(w, 1, EMP_FRAME_NATIVE, 0x80000002u, "libc.so.6", "read", ""), 0);
	cr_assert_eq(emp_dump_add_method(w, 2, EMP_FRAME_PSEUDO, 0, "", "[unknown_Java]", NULL), 0);
	cr_assert_eq(emp_dump_add_thread(w, 0, 4242, EMP_THREAD_JAVA, "main"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 1, 1ull << 40, 0, "worker \xe2\x82\xac"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	mark(s, w, EMP_CHUNK_SYMBOLS);

	enter(t0, &s->x, 0, 1000, 0);
	enter(t0, &s->x, 0, 1005, 1);
	leave(t0, &s->x, 0, 1010, 0);
	leave(t0, &s->x, 0, 1003, 1); /* a backwards step (TSC skew) */
	cr_assert_eq(emp_dump_events_count(t0), 4);
	cr_assert_eq(emp_dump_events_flush(w, t0), 0);
	cr_assert_eq(emp_dump_events_count(t0), 0);
	mark(s, w, EMP_CHUNK_EVENTS);

	static const uint32_t a[] = { 0, 1, 2 }, b[] = { 0, 1 }, c[] = { 0, 2, 1 };
	sample(t1, &s->x, 1, 2000, EMP_STATE_RUNNING, a, 3);
	sample(t1, &s->x, 1, 2100, EMP_STATE_WAITING, b, 2);
	sample(t1, &s->x, 1, 2200, EMP_STATE_NATIVE, c, 3);
	sample(t1, &s->x, 1, 2300, EMP_STATE_UNKNOWN, NULL, 0);
	sample(t1, &s->x, 1, 2400, EMP_STATE_SLEEPING, c, 3);
	cr_assert_eq(emp_dump_events_flush(w, t1), 0);
	mark(s, w, EMP_CHUNK_EVENTS);

	static const char *const cn[] = { "lost_ring_full", "samples" };
	static const uint64_t cv[] = { 3, 5 };
	cr_assert_eq(emp_dump_write_counters(w, cn, cv, 2), 0);
	mark(s, w, EMP_CHUNK_COUNTERS);

	enter(t0, &s->x, 0, 1020, 2);
	leave(t0, &s->x, 0, 1030, 0);
	cr_assert_eq(emp_dump_events_flush(w, t0), 0);
	mark(s, w, EMP_CHUNK_EVENTS);

	cr_assert_eq(emp_dump_add_method(w, 3, EMP_FRAME_JAVA, 0, "emp.sut.Late", "m", "(IJ)Ljava/lang/String;"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	mark(s, w, EMP_CHUNK_SYMBOLS);

	sample(t1, &s->x, 1, 2500, EMP_STATE_BLOCKED, c, 3); /* same stack as the last one, but a new chunk */
	static const uint32_t d[] = { 0, 2, 3 };
	sample(t1, &s->x, 1, 2600, EMP_STATE_RUNNING, d, 3);
	cr_assert_eq(emp_dump_events_flush(w, t1), 0);
	mark(s, w, EMP_CHUNK_EVENTS);

	static const uint64_t cv2[] = { 4, 7 };
	cr_assert_eq(emp_dump_write_counters(w, cn, cv2, 2), 0);
	mark(s, w, EMP_CHUNK_COUNTERS);

	cr_assert_eq(emp_dump_write_end(w, small_end, sizeof(small_end) / sizeof(small_end[0]) / 2), 0);
	mark(s, w, EMP_CHUNK_END);
	/* nothing pending: these write nothing */
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	cr_assert_eq(emp_dump_events_flush(w, t0), 0);
	cr_assert_eq(s->m.n, s->end[s->nchunks - 1]);
	emp_dump_events_free(t0);
	emp_dump_events_free(t1);
	emp_dump_writer_free(w);
}

static void free_small(struct small *s)
{
	free(s->m.p);
	xfree(&s->x);
}

/* Index of the last chunk ending at or before @len, or -1. */
static int last_complete(const struct small *s, uint64_t len)
{
	int k = -1;
	for (size_t i = 0; i < s->nchunks; i++)
		if (s->end[i] <= len)
			k = (int)i;
	return k;
}

TestSuite(dump);

/* ---- round trip ------------------------------------------------------------------------------------------- */

Test(dump, header_bytes)
{
	struct mem m = { 0 };
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, &m);
	cr_assert_eq(emp_dump_write_header(w), 0);
	static const uint8_t want[16] = { 0x89, 'E', 'M', 'P', '\r', '\n', 0x1a, '\n', 1, 0, 5, 0, 0, 0, 0, 0 };
	cr_assert_eq(m.n, 16);
	cr_assert_arr_eq(m.p, want, 16);
	emp_dump_writer_free(w);
	free(m.p);
}

Test(dump, round_trip_every_field)
{
	struct small s;
	build_small(&s);
	char path[64], err[512];
	struct emp_dump_reader *r = open_bytes(s.m.p, s.m.n, path, sizeof(path), err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	cr_assert_str_eq(emp_dump_reader_path(r), path);
	cr_assert_eq(emp_dump_reader_file_size(r), s.m.n);
	cr_assert_eq(emp_dump_reader_version_minor(r), 5);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_READING);
	cr_assert_str_eq(emp_dump_reader_error(r), "");
	assert_events(r, &s.x, s.x.n);
	cr_assert_eq(s.x.n, 13);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
	cr_assert_str_eq(emp_dump_reader_error(r), "");
	cr_assert_eq(emp_dump_reader_good_offset(r), s.m.n);

	/* META, in order, and by key */
	size_t nmeta = sizeof(small_meta) / sizeof(small_meta[0]) / 2;
	cr_assert_eq(emp_dump_meta_count(r), nmeta);
	for (size_t i = 0; i < nmeta; i++) {
		const char *k, *v;
		emp_dump_meta_at(r, i, &k, &v);
		cr_assert_str_eq(k, small_meta[2 * i]);
		cr_assert_str_eq(v, small_meta[2 * i + 1]);
		cr_assert_str_eq(emp_dump_meta(r, small_meta[2 * i]), small_meta[2 * i + 1]);
	}
	cr_assert_null(emp_dump_meta(r, "absent"));
	cr_assert_null(emp_dump_meta(r, "reason"), "END keys are not META keys");
	/* END */
	for (size_t i = 0; i < sizeof(small_end) / sizeof(small_end[0]); i += 2)
		cr_assert_str_eq(emp_dump_end_value(r, small_end[i]), small_end[i + 1]);
	cr_assert_null(emp_dump_end_value(r, "agent"));

	/* methods of every frame kind, with flags */
	cr_assert_eq(emp_dump_method_limit(r), 4);
	const struct emp_dump_method *m = emp_dump_method(r, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->id, 0);
	cr_assert_eq(m->kind, EMP_FRAME_JAVA);
	cr_assert_eq(m->flags, EMP_METHOD_ITERATION);
	cr_assert_str_eq(m->klass, "emp.sut.CallTree");
	cr_assert_str_eq(m->name, "runIteration");
	cr_assert_str_eq(m->descriptor, "()V");
	m = emp_dump_method(r, 1);
	cr_assert_eq(m->id, 1);
	cr_assert_eq(m->kind, EMP_FRAME_NATIVE);
	cr_assert_eq(m->flags, 0x80000002u); /* flags not known today round-trip whole */
	cr_assert_str_eq(m->klass, "libc.so.6");
	cr_assert_str_eq(m->name, "read");
	cr_assert_str_eq(m->descriptor, "");
	m = emp_dump_method(r, 2);
	cr_assert_eq(m->kind, EMP_FRAME_PSEUDO);
	cr_assert_eq(m->flags, 0);
	cr_assert_str_eq(m->klass, "");
	cr_assert_str_eq(m->name, "[unknown_Java]");
	cr_assert_str_eq(m->descriptor, "", "NULL is written as an empty string");
	m = emp_dump_method(r, 3);
	cr_assert_str_eq(m->descriptor, "(IJ)Ljava/lang/String;");
	cr_assert_null(emp_dump_method(r, 4));
	cr_assert_null(emp_dump_method(r, UINT32_MAX));

	/* threads */
	cr_assert_eq(emp_dump_thread_limit(r), 2);
	const struct emp_dump_thread *t = emp_dump_thread(r, 0);
	cr_assert_eq(t->id, 0);
	cr_assert_eq(t->os_tid, 4242);
	cr_assert_eq(t->flags, EMP_THREAD_JAVA);
	cr_assert_str_eq(t->name, "main");
	t = emp_dump_thread(r, 1);
	cr_assert_eq(t->id, 1);
	cr_assert_eq(t->os_tid, 1ull << 40);
	cr_assert_eq(t->flags, 0);
	cr_assert_str_eq(t->name, "worker \xe2\x82\xac");
	cr_assert_null(emp_dump_thread(r, 2));

	/* counters: the last COUNTERS chunk wins */
	cr_assert_eq(emp_dump_counter_count(r), 2);
	const char *name;
	uint64_t value;
	emp_dump_counter_at(r, 0, &name, &value);
	cr_assert_str_eq(name, "lost_ring_full");
	cr_assert_eq(value, 4);
	emp_dump_counter_at(r, 1, &name, &value);
	cr_assert_str_eq(name, "samples");
	cr_assert_eq(value, 7);
	cr_assert_eq(emp_dump_counter(r, "samples"), 7);
	cr_assert_eq(emp_dump_counter(r, "absent"), 0);

	/* chunk and event counts */
	cr_assert_eq(emp_dump_chunks(r, EMP_CHUNK_META), 1);
	cr_assert_eq(emp_dump_chunks(r, EMP_CHUNK_SYMBOLS), 2);
	cr_assert_eq(emp_dump_chunks(r, EMP_CHUNK_EVENTS), 4);
	cr_assert_eq(emp_dump_chunks(r, EMP_CHUNK_COUNTERS), 2);
	cr_assert_eq(emp_dump_chunks(r, EMP_CHUNK_END), 1);
	cr_assert_eq(emp_dump_chunks(r, (enum emp_chunk_type)99), 0);
	cr_assert_eq(emp_dump_events(r, EMP_EV_ENTER), 3);
	cr_assert_eq(emp_dump_events(r, EMP_EV_EXIT), 2);
	cr_assert_eq(emp_dump_events(r, EMP_EV_EXIT_THROW), 1);
	cr_assert_eq(emp_dump_events(r, EMP_EV_SAMPLE), 7);
	cr_assert_eq(emp_dump_events(r, (enum emp_event_kind)99), 0);

	/* calibration: END is 2 s after META, 3e9 ticks apart -> 1.5 GHz (not META's 2 GHz) */
	cr_assert_eq(emp_dump_clock_hz(r), 1.5e9);
	cr_assert_eq(emp_dump_ticks_to_ns(r, 1.5e9), 1e9);
	cr_assert_eq(emp_dump_ticks_to_ns(r, 3), 2);
	emp_dump_reader_close(r);
	free_small(&s);
}

/* compress=none: every chunk is an LZ4 frame whose one block is stored (the size word's high bit), the raw bytes
 * themselves; the reader gives back the same events and figures as for compressed chunks. */
Test(dump, stored_blocks_round_trip)
{
	struct small s;
	small_stored = 1;
	build_small(&s);
	small_stored = 0;
	for (size_t i = 0; i < s.nchunks; i++) {
		const uint8_t *c = s.m.p + s.start[i];
		uint32_t stored = emp_get_u32le(c + 8), raw = emp_get_u32le(c + 12);
		/* header 16, frame header 15 (content size), block size 4, block checksum 4, end mark 4 */
		cr_assert_eq(stored, raw ? 15 + 4 + raw + 4 + 4 : 15 + 4, "chunk %zu", i);
		if (raw) {
			cr_assert_eq(emp_get_u32le(c + 16 + 15), 0x80000000u | raw, "chunk %zu: a stored block", i);
		}
	}
	struct small z;
	build_small(&z);
	cr_assert_gt(s.m.n, z.m.n); /* the compressed dump is smaller */
	char path[64], err[512];
	struct emp_dump_reader *r = open_bytes(s.m.p, s.m.n, path, sizeof(path), err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	assert_events(r, &s.x, s.x.n);
	cr_assert_eq(s.x.n, 13);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
	cr_assert_eq(emp_dump_reader_good_offset(r), s.m.n);
	emp_dump_reader_close(r);
	unlink(path);
	free_small(&s);
	free_small(&z);
}

Test(dump, drain_reads_symbols_and_counters)
{
	struct small s;
	build_small(&s);
	char path[64], err[512];
	struct emp_dump_reader *r = open_bytes(s.m.p, s.m.n, path, sizeof(path), err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	emp_dump_reader_drain(r);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE);
	cr_assert_eq(emp_dump_method_limit(r), 4);
	cr_assert_eq(emp_dump_counter(r, "lost_ring_full"), 4);
	cr_assert_eq(emp_dump_events(r, EMP_EV_SAMPLE), 7);
	emp_dump_reader_close(r);
	free_small(&s);
}

/* Write @x through a fresh writer with symbols for methods 0..@nmethods-1 and thread 0; read back and compare. */
static void round_trip_thread0(struct emp_dump_events *b, struct xlist *x, uint32_t nmethods, struct mem *m,
			       struct emp_dump_writer *w)
{
	cr_assert_eq(emp_dump_events_flush(w, b), 0);
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	char path[64], err[512];
	struct emp_dump_reader *r = open_bytes(m->p, m->n, path, sizeof(path), err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	assert_events(r, x, x->n);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
	cr_assert_eq(emp_dump_method_limit(r), nmethods);
	emp_dump_reader_close(r);
}

static struct emp_dump_writer *writer_with_symbols(struct mem *m, uint32_t nmethods)
{
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, m);
	cr_assert_not_null(w);
	cr_assert_eq(emp_dump_write_header(w), 0);
	cr_assert_eq(emp_dump_write_meta(w, NULL, 0), 0);
	for (uint32_t i = 0; i < nmethods; i++) {
		char name[32];
		snprintf(name, sizeof(name), "m%u", i);
		cr_assert_eq(emp_dump_add_method(w, i, EMP_FRAME_JAVA, 0, "C", name, "()V"), 0);
	}
	cr_assert_eq(emp_dump_add_thread(w, 0, 1, 0, "t"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	return w;
}

Test(dump, tick_deltas_extremes)
{
	struct mem m = { 0 };
	struct emp_dump_writer *w = writer_with_symbols(&m, 2);
	struct emp_dump_events *b = emp_dump_events_new(0);
	struct xlist x = { 0 };
	static const uint64_t ticks[] = { UINT64_MAX - 5, 0, UINT64_MAX, 1ull << 63, (1ull << 63) - 1, 7, 7, 6,
					  UINT64_MAX / 3, 0 };
	for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
		if (i % 2)
			leave(b, &x, 0, ticks[i], (int)(i % 4 == 1));
		else
			enter(b, &x, 0, ticks[i], (uint32_t)(i / 2 % 2));
	}
	round_trip_thread0(b, &x, 2, &m, w);
	emp_dump_events_free(b);
	emp_dump_writer_free(w);
	xfree(&x);
	free(m.p);
}

Test(dump, max_depth_and_shared_prefixes)
{
	struct mem m = { 0 };
	enum { NM = 300 };
	struct emp_dump_writer *w = writer_with_symbols(&m, NM);
	struct emp_dump_events *b = emp_dump_events_new(0);
	struct xlist x = { 0 };
	static uint32_t f[EMP_MAX_FRAMES + 1];
	for (uint32_t i = 0; i <= EMP_MAX_FRAMES; i++)
		f[i] = (i * 7u) % NM;
	sample(b, &x, 0, 100, EMP_STATE_RUNNING, f, EMP_MAX_FRAMES);
	f[4000] = 1;
	sample(b, &x, 0, 200, EMP_STATE_RUNNING, f, EMP_MAX_FRAMES); /* shares 4000 frames */
	sample(b, &x, 0, 300, EMP_STATE_WAITING, f, 10);             /* a prefix of the previous */
	f[5] = 299;
	sample(b, &x, 0, 400, EMP_STATE_BLOCKED, f, EMP_MAX_FRAMES); /* shares 5, then 4091 new */
	enter(b, &x, 0, 450, 299);                                   /* trace events between samples */
	leave(b, &x, 0, 460, 0);
	sample(b, &x, 0, 500, EMP_STATE_BLOCKED, f, EMP_MAX_FRAMES); /* shares everything */
	uint64_t count = emp_dump_events_count(b);
	cr_assert_eq(emp_dump_events_sample(b, 600, EMP_STATE_RUNNING, f, EMP_MAX_FRAMES + 1), -EINVAL);
	cr_assert_eq(emp_dump_events_count(b), count, "a refused sample is not recorded");
	round_trip_thread0(b, &x, NM, &m, w);
	emp_dump_events_free(b);
	emp_dump_writer_free(w);
	xfree(&x);
	free(m.p);
}

/* CPU events (iteration markers' thread CPU times) between trace events and samples, extreme values included. */
Test(dump, cpu_events_round_trip)
{
	struct mem m = { 0 };
	struct emp_dump_writer *w = writer_with_symbols(&m, 4);
	struct emp_dump_events *b = emp_dump_events_new(0);
	struct xlist x = { 0 };
	enter(b, &x, 0, 1000, 2);
	cpu(b, &x, 0, 1000, 0);
	enter(b, &x, 0, 1010, 3);
	leave(b, &x, 0, 1500, 0);
	cpu(b, &x, 0, 2000, 123456789);
	leave(b, &x, 0, 2000, 1);
	uint32_t f[2] = { 1, 2 };
	sample(b, &x, 0, 2100, EMP_STATE_RUNNING, f, 2);
	enter(b, &x, 0, 2200, 2);
	cpu(b, &x, 0, 2200, UINT64_MAX);
	cpu(b, &x, 0, 2300, 1);
	leave(b, &x, 0, 2300, 0);
	cr_assert_eq(emp_dump_events_count(b), 11);
	round_trip_thread0(b, &x, 4, &m, w);
	emp_dump_events_free(b);
	emp_dump_writer_free(w);
	xfree(&x);
	free(m.p);
}

/* The EVENTS chunk starting at @off in @m: its raw length. */
static uint32_t chunk_raw_len(const struct mem *m, uint64_t off)
{
	cr_assert_leq(off + EMP_CHUNK_HEADER_LEN, m->n);
	cr_assert_eq(emp_get_u32le(m->p + off), EMP_CHUNK_MAGIC);
	return emp_get_u32le(m->p + off + 12);
}

Test(dump, events_full_cuts_chunks)
{
	struct mem m = { 0 };
	struct emp_dump_writer *w = writer_with_symbols(&m, 2);
	struct emp_dump_events *b = emp_dump_events_new(0);
	struct xlist x = { 0 };
	/* chunk head: thread 0 (1 byte), base ticks 0 (1 byte); each ENTER of method 1 one tick later: 2 bytes.
	 * The chunk is full at 2 + 2k >= 128 KiB, i.e. after k = 65535 events. */
	uint64_t ticks = 0;
	uint64_t k;
	for (k = 0; k < 65535; k++) {
		cr_assert_eq(emp_dump_events_full(b), 0, "full after %" PRIu64 " events", k);
		enter(b, &x, 0, ticks, 1);
		ticks++;
	}
	cr_assert_eq(emp_dump_events_full(b), 1);
	cr_assert_eq(emp_dump_events_count(b), 65535);
	uint64_t off = emp_dump_writer_offset(w);
	cr_assert_eq(emp_dump_events_flush(w, b), 0);
	cr_assert_eq(chunk_raw_len(&m, off), EMP_CHUNK_RAW_TARGET);
	cr_assert_eq(emp_dump_events_full(b), 0, "a flush starts a new chunk");
	/* second and third chunks of the same thread, with their own time base */
	for (int c = 0; c < 2; c++) {
		leave(b, &x, 0, ticks + 1000, 0);
		enter(b, &x, 0, ticks + 999, 0);
		ticks += 2000;
		off = emp_dump_writer_offset(w);
		cr_assert_eq(emp_dump_events_flush(w, b), 0);
		/* thread 0, base ticks (3 bytes: < 2^21), EXIT dt 0, ENTER dt -1 */
		cr_assert_eq(chunk_raw_len(&m, off), 1 + 3 + 2 + 2);
	}
	round_trip_thread0(b, &x, 2, &m, w);
	emp_dump_events_free(b);
	emp_dump_writer_free(w);
	xfree(&x);
	free(m.p);
}

/* ---- exact encoded sizes ---------------------------------------------------------------------------------- */

Test(dump, encoded_sizes)
{
	struct mem m = { 0 };
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, &m);
	struct emp_dump_events *b = emp_dump_events_new(0);
	cr_assert_eq(emp_dump_write_header(w), 0);

	/* A traced call with method id < 16 and deltas < 64 ticks costs 4 bytes: ENTER 2, EXIT 2. */
	uint64_t off = emp_dump_writer_offset(w);
	cr_assert_eq(emp_dump_events_enter(b, 0, 3), 0);
	cr_assert_eq(emp_dump_events_exit(b, 5, 0), 0);
	cr_assert_eq(emp_dump_events_flush(w, b), 0);
	cr_assert_eq(chunk_raw_len(&m, off), 1 + 1 + 2 + 2, "head (thread, base) + ENTER + EXIT");
	off = emp_dump_writer_offset(w);
	for (int i = 0; i < 10; i++) {
		cr_assert_eq(emp_dump_events_enter(b, (uint64_t)i * 100, 15), 0);
		cr_assert_eq(emp_dump_events_exit(b, (uint64_t)i * 100 + 63, i & 1), 0);
	}
	cr_assert_eq(emp_dump_events_flush(w, b), 0);
	/* base 0 (1 byte); deltas 0 and 63 (zigzag 126) are 1 byte; from the 2nd call the ENTER delta is 37 */
	cr_assert_eq(chunk_raw_len(&m, off), 2 + 10 * 4);

	/* boundaries: method 16 needs a 2-byte head; delta 64 and -65 need 2 bytes, -64 needs 1 */
	off = emp_dump_writer_offset(w);
	cr_assert_eq(emp_dump_events_enter(b, 1000, 16), 0); /* 2 + 1 */
	cr_assert_eq(emp_dump_events_exit(b, 1064, 0), 0);   /* 1 + 2 */
	cr_assert_eq(emp_dump_events_exit(b, 1000, 0), 0);   /* 1 + 1 (-64) */
	cr_assert_eq(emp_dump_events_exit(b, 935, 1), 0);    /* 1 + 2 (-65) */
	cr_assert_eq(emp_dump_events_flush(w, b), 0);
	cr_assert_eq(chunk_raw_len(&m, off), 1 + 2 + 3 + 3 + 2 + 3);

	/* samples: the first of a chunk carries its whole stack; later ones only what differs */
	static const uint32_t s1[] = { 1, 2, 3 }, s2[] = { 1, 2, 4 };
	off = emp_dump_writer_offset(w);
	cr_assert_eq(emp_dump_events_sample(b, 0, EMP_STATE_RUNNING, s1, 3), 0); /* 1+1+1+1+3 */
	cr_assert_eq(emp_dump_events_sample(b, 1, EMP_STATE_RUNNING, s2, 3), 0); /* 1+1+1+1+1 */
	cr_assert_eq(emp_dump_events_sample(b, 2, EMP_STATE_RUNNING, s2, 3), 0); /* 1+1+1+1 */
	cr_assert_eq(emp_dump_events_sample(b, 3, EMP_STATE_RUNNING, s2, 1), 0); /* 1+1+1+1 */
	cr_assert_eq(emp_dump_events_flush(w, b), 0);
	cr_assert_eq(chunk_raw_len(&m, off), 2 + 7 + 5 + 4 + 4);
	/* after a flush the first sample carries its whole stack again */
	off = emp_dump_writer_offset(w);
	cr_assert_eq(emp_dump_events_sample(b, 4, EMP_STATE_RUNNING, s2, 3), 0);
	cr_assert_eq(emp_dump_events_flush(w, b), 0);
	cr_assert_eq(chunk_raw_len(&m, off), 2 + 7);

	/* META: varint n, then str key, str value */
	static const char *const kv[] = { "k", "v", "key", "" };
	off = emp_dump_writer_offset(w);
	cr_assert_eq(emp_dump_write_meta(w, kv, 2), 0);
	cr_assert_eq(chunk_raw_len(&m, off), 1 + 2 + 2 + 4 + 1);
	/* COUNTERS: varint n, then str name, varint value */
	static const char *const cn[] = { "a", "bb" };
	static const uint64_t cv[] = { 127, 128 };
	off = emp_dump_writer_offset(w);
	cr_assert_eq(emp_dump_write_counters(w, cn, cv, 2), 0);
	cr_assert_eq(chunk_raw_len(&m, off), 1 + 2 + 1 + 3 + 2);
	/* SYMBOLS: METHOD kind, id, frame kind, flags, 3 strings; THREAD kind, id, os tid, flags, name */
	off = emp_dump_writer_offset(w);
	cr_assert_eq(emp_dump_add_method(w, 200, EMP_FRAME_JAVA, 0, "A", "b", "()V"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 0, 300, EMP_THREAD_JAVA, "main"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	cr_assert_eq(chunk_raw_len(&m, off), (1 + 2 + 1 + 1 + 2 + 2 + 4) + (1 + 1 + 2 + 1 + 5));

	/* the chunk header around an LZ4 frame */
	const uint8_t *h = m.p + off;
	cr_assert_eq(h[4], EMP_CHUNK_SYMBOLS);
	cr_assert_eq(h[5], 0);
	cr_assert_eq(emp_get_u16le(h + 6), 0);
	uint32_t stored = emp_get_u32le(h + 8);
	cr_assert_eq(off + EMP_CHUNK_HEADER_LEN + stored, m.n, "the chunk ends where the writer's offset is");
	static const uint8_t lz4_magic[4] = { 0x04, 0x22, 0x4d, 0x18 };
	cr_assert_arr_eq(h + 16, lz4_magic, 4, "an LZ4 frame follows the header");
	emp_dump_events_free(b);
	emp_dump_writer_free(w);
	free(m.p);
}

/* ---- writer errors ---------------------------------------------------------------------------------------- */

Test(dump, writer_sink_errors_stick)
{
	struct mem m = { 0 };
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, &m);
	cr_assert_eq(emp_dump_write_header(w), 0);
	m.fail_rc = -ENOSPC;
	static const char *const kv[] = { "a", "b" };
	cr_assert_eq(emp_dump_write_meta(w, kv, 1), -ENOSPC);
	cr_assert_eq(m.calls, 2);
	m.fail_rc = 0;
	cr_assert_eq(emp_dump_write_end(w, kv, 1), -ENOSPC, "the first error sticks");
	cr_assert_eq(m.calls, 2, "the sink is not called again");
	cr_assert_eq(emp_dump_writer_offset(w), EMP_DUMP_HEADER_LEN);
	emp_dump_writer_free(w);

	struct mem m2 = { .fail_rc = 1 };
	w = emp_dump_writer_new(mem_sink, &m2);
	cr_assert_eq(emp_dump_write_header(w), -EIO, "a positive sink result becomes -EIO");
	cr_assert_eq(emp_dump_writer_offset(w), 0);
	emp_dump_writer_free(w);
	free(m.p);
	free(m2.p);
}

Test(dump, writer_rejects_null_kv)
{
	struct mem m = { 0 };
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, &m);
	static const char *const kv[] = { "a", NULL };
	cr_assert_eq(emp_dump_write_meta(w, kv, 1), -EINVAL);
	cr_assert_eq(m.n, 0);
	emp_dump_writer_free(w);
	emp_dump_writer_free(NULL);
	emp_dump_events_free(NULL);
	free(m.p);
}

Test(dump, writer_refuses_oversized_chunk)
{
	struct mem m = { 0 };
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, &m);
	struct emp_dump_events *b = emp_dump_events_new(0);
	cr_assert_eq(emp_dump_write_header(w), 0);
	/* a builder never flushed when full: 2 + 2 * 8388608 raw bytes > EMP_CHUNK_RAW_MAX */
	for (uint32_t i = 0; i < (EMP_CHUNK_RAW_MAX / 2); i++)
		cr_assert_eq(emp_dump_events_enter(b, 0, 1), 0);
	cr_assert_eq(emp_dump_events_flush(w, b), -E2BIG);
	cr_assert_eq(emp_dump_writer_offset(w), EMP_DUMP_HEADER_LEN, "nothing written");
	cr_assert_eq(emp_dump_events_count(b), 0, "the builder starts over");
	emp_dump_events_free(b);
	emp_dump_writer_free(w);
	free(m.p);
}

/* ---- truncation at every byte ----------------------------------------------------------------------------- */

Test(dump, truncated_at_every_byte)
{
	struct small s;
	build_small(&s);
	char path[64], err[512], want[512];
	for (size_t len = 0; len <= s.m.n; len++) {
		struct emp_dump_reader *r = open_bytes(s.m.p, len, path, sizeof(path), err, sizeof(err));
		cr_assert_not_null(r, "length %zu: open failed: %s", len, err);
		int k = last_complete(&s, len);
		size_t nev = k < 0 ? 0 : s.events_upto[k];
		uint64_t good = len < EMP_DUMP_HEADER_LEN ? 0 : k < 0 ? EMP_DUMP_HEADER_LEN : s.end[k];
		assert_events(r, &s.x, nev);
		cr_assert_eq(emp_dump_reader_good_offset(r), good, "length %zu", len);
		cr_assert_eq(emp_dump_reader_file_size(r), len);
		if (len == s.m.n) {
			cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
			cr_assert_str_eq(emp_dump_reader_error(r), "");
		} else {
			cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_TRUNCATED, "length %zu: status %d: %s", len,
				     emp_dump_reader_status(r), emp_dump_reader_error(r));
			if (len < EMP_DUMP_HEADER_LEN)
				snprintf(want, sizeof(want), "%s: truncated at byte %zu inside the 16-byte file header",
					 path, len);
			else if (len == good)
				snprintf(want, sizeof(want), "%s: truncated: ends at byte %zu without an END chunk",
					 path, len);
			else if (len - good < EMP_CHUNK_HEADER_LEN)
				snprintf(want, sizeof(want),
					 "%s: truncated at byte %zu inside the chunk header at byte %" PRIu64
					 "; read up to byte %" PRIu64, path, len, good, good);
			else
				snprintf(want, sizeof(want),
					 "%s: truncated at byte %zu inside the chunk at byte %" PRIu64
					 "; read up to byte %" PRIu64, path, len, good, good);
			cr_assert_str_eq(emp_dump_reader_error(r), want, "length %zu", len);
		}
		/* what was read before the cut is all there */
		if (k >= 0)
			cr_assert_eq(emp_dump_meta_count(r), 9);
		if (k >= 1)
			cr_assert_eq(emp_dump_thread_limit(r), 2);
		cr_assert_eq(emp_dump_counter(r, "samples"), k >= 8 ? 7 : k >= 4 ? 5 : 0);
		cr_assert_eq(emp_dump_chunks(r, EMP_CHUNK_END), len == s.m.n);
		emp_dump_reader_close(r);
	}
	free_small(&s);
}

/* The payload of the chunk whose header is at @h, decompressed into @raw (EMP_CHUNK_RAW_MAX bytes).  Return: its
 * length (the header's raw_len). */
static uint32_t chunk_payload(LZ4F_dctx *d, const uint8_t *h, uint8_t *raw)
{
	uint32_t raw_len = emp_get_u32le(h + 12);
	size_t dst = raw_len, src = emp_get_u32le(h + 8);
	LZ4F_resetDecompressionContext(d);
	cr_assert_eq(LZ4F_decompress(d, raw, &dst, h + EMP_CHUNK_HEADER_LEN, &src, NULL), 0);
	cr_assert_eq(dst, raw_len);
	return raw_len;
}

/* ---- corruption ------------------------------------------------------------------------------------------- */

Test(dump, every_byte_of_every_chunk_flipped)
{
	struct small s;
	build_small(&s);
	uint8_t *copy = malloc(s.m.n);
	char path[64], err[512], at[64];
	static const uint8_t flips[] = { 0xff, 0x01, 0x80 };
	for (size_t c = 0; c < s.nchunks; c++) {
		for (uint64_t pos = s.start[c]; pos < s.end[c]; pos++) {
			for (size_t f = 0; f < sizeof(flips); f++) {
				memcpy(copy, s.m.p, s.m.n);
				copy[pos] ^= flips[f];
				struct emp_dump_reader *r = open_bytes(copy, s.m.n, path, sizeof(path), err, sizeof(err));
				cr_assert_not_null(r, "%s", err);
				/* The chunks before the damaged one read back exactly.  Events of the damaged chunk can
				 * only appear when its type byte was changed (then the payload passes its checksum, and
				 * the reader streams events until one does not decode).  Every flip is noticed: the
				 * block checksum covers every compressed byte (a frame's content checksum missed a flip
				 * of the last LZ4 token's low nibble, a match length the format ignores). */
				uint64_t off = pos - s.start[c];
				size_t before = c ? s.events_upto[c - 1] : 0, n = count_events(r, &s.x, before);
				cr_assert(n == before || (off == 4 && n > before),
					  "chunk %zu byte %" PRIu64 " ^ 0x%02x: %zu events, expected %zu", c, off,
					  flips[f], n, before);
				enum emp_dump_status want = EMP_DUMP_CORRUPT;
				if (off >= 8 && off < 12) {
					/* a damaged stored length that reaches past the end of the file looks exactly like
					 * a file cut short inside that chunk */
					uint32_t stored = emp_get_u32le(copy + s.start[c] + 8);
					uint32_t raw = emp_get_u32le(copy + s.start[c] + 12);
					if (stored <= (uint64_t)raw + raw / 128 + 4096 &&
					    s.start[c] + EMP_CHUNK_HEADER_LEN + stored > s.m.n)
						want = EMP_DUMP_TRUNCATED;
				}
				cr_assert_eq(emp_dump_reader_status(r), want,
					     "chunk %zu (type %d) byte %" PRIu64 " ^ 0x%02x: status %d: %s", c,
					     s.type[c], off, flips[f], emp_dump_reader_status(r),
					     emp_dump_reader_error(r));
				snprintf(at, sizeof(at), "byte %" PRIu64, s.start[c]);
				cr_assert_not_null(strstr(emp_dump_reader_error(r), at),
						   "chunk %zu byte %" PRIu64 ": message '%s' does not name '%s'", c, off,
						   emp_dump_reader_error(r), at);
				cr_assert_eq(emp_dump_reader_good_offset(r), s.start[c],
					     "chunk %zu byte %" PRIu64 " ^ 0x%02x: good offset %" PRIu64 ": %s", c, off,
					     flips[f], emp_dump_reader_good_offset(r), emp_dump_reader_error(r));
				emp_dump_reader_close(r);
			}
		}
	}
	free(copy);
	free_small(&s);
}

/* Dumps written before block checksums frame each chunk with a content checksum (of the raw bytes) instead: they
 * read back exactly, and a damaged one is still caught. */
Test(dump, content_checksum_frames_read)
{
	struct small s;
	build_small(&s);
	struct mem m = { 0 };
	uint8_t *raw = malloc(EMP_CHUNK_RAW_MAX), *frame = malloc(2 * EMP_CHUNK_RAW_MAX);
	LZ4F_dctx *d;
	cr_assert(!LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)));
	cr_assert_eq(mem_sink(&m, s.m.p, EMP_DUMP_HEADER_LEN), 0);
	uint64_t last_frame_end = 0;
	size_t last_events = 0;
	for (size_t c = 0; c < s.nchunks; c++) {
		const uint8_t *h = s.m.p + s.start[c];
		cr_assert_eq(h[EMP_CHUNK_HEADER_LEN + 4] & 0x14, 0x10, "chunk %zu: block checksum, no content checksum", c);
		uint32_t raw_len = chunk_payload(d, h, raw);
		LZ4F_preferences_t prefs;
		memset(&prefs, 0, sizeof(prefs));
		prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
		prefs.frameInfo.contentSize = raw_len;
		prefs.frameInfo.blockSizeID = LZ4F_max256KB;
		size_t n = LZ4F_compressFrame(frame, 2 * EMP_CHUNK_RAW_MAX, raw, raw_len, &prefs);
		cr_assert(!LZ4F_isError(n));
		uint8_t ch[EMP_CHUNK_HEADER_LEN];
		memcpy(ch, h, sizeof(ch));
		emp_put_u32le(ch + 8, (uint32_t)n);
		cr_assert_eq(mem_sink(&m, ch, sizeof(ch)), 0);
		cr_assert_eq(mem_sink(&m, frame, n), 0);
		if (s.type[c] == EMP_CHUNK_EVENTS) {
			last_frame_end = m.n;
			last_events = c;
		}
	}
	char path[64], err[512];
	struct emp_dump_reader *r = open_bytes(m.p, m.n, path, sizeof(path), err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	assert_events(r, &s.x, s.x.n);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
	cr_assert_eq(emp_dump_counter(r, "samples"), 7);
	emp_dump_reader_close(r);
	/* the last EVENTS chunk's content checksum (the frame's last 4 bytes) damaged */
	m.p[last_frame_end - 1] ^= 0x01;
	r = open_bytes(m.p, m.n, path, sizeof(path), err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	cr_assert_eq(count_events(r, &s.x, s.events_upto[last_events - 1]), s.events_upto[last_events - 1]);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_CORRUPT);
	cr_assert_not_null(strstr(emp_dump_reader_error(r), "contentChecksum_invalid"), "%s", emp_dump_reader_error(r));
	emp_dump_reader_close(r);
	LZ4F_freeDecompressionContext(d);
	free(raw);
	free(frame);
	free(m.p);
	free_small(&s);
}

Test(dump, bytes_after_end)
{
	struct small s;
	build_small(&s);
	uint64_t end_at = s.start[s.nchunks - 1];
	char path[64], err[512], want[512];
	uint64_t clen = s.end[0] - s.start[0];
	uint8_t *p = malloc(s.m.n + clen);
	memcpy(p, s.m.p, s.m.n);
	/* one stray byte, and a whole valid chunk */
	p[s.m.n] = 0;
	struct emp_dump_reader *r = open_bytes(p, s.m.n + 1, path, sizeof(path), err, sizeof(err));
	assert_events(r, &s.x, s.x.n);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_CORRUPT);
	snprintf(want, sizeof(want), "%s: corrupt: 1 bytes after the END chunk at byte %" PRIu64, path, end_at);
	cr_assert_str_eq(emp_dump_reader_error(r), want);
	emp_dump_reader_close(r);
	memcpy(p + s.m.n, s.m.p + s.start[0], clen);
	r = open_bytes(p, s.m.n + clen, path, sizeof(path), err, sizeof(err));
	assert_events(r, &s.x, s.x.n);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_CORRUPT);
	snprintf(want, sizeof(want), "%s: corrupt: %" PRIu64 " bytes after the END chunk at byte %" PRIu64, path,
		 clen, end_at);
	cr_assert_str_eq(emp_dump_reader_error(r), want);
	emp_dump_reader_close(r);
	free(p);
	free_small(&s);
}

/* A chunk whose type no reader of this minor version knows is corruption (in a file of a minor version the reader
 * knows); in a file of a later minor version it is skipped. */
Test(dump, unknown_chunk_type)
{
	struct small s;
	build_small(&s);
	char path[64], err[512], want[512];
	/* COUNTERS (chunk 4) relabelled 9: the checksum still holds */
	uint8_t *p = malloc(s.m.n);
	memcpy(p, s.m.p, s.m.n);
	cr_assert_eq(s.type[4], EMP_CHUNK_COUNTERS);
	p[s.start[4] + 4] = 9;
	struct emp_dump_reader *r = open_bytes(p, s.m.n, path, sizeof(path), err, sizeof(err));
	assert_events(r, &s.x, s.events_upto[3]);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_CORRUPT);
	snprintf(want, sizeof(want), "%s: corrupt: unknown chunk type 9 at byte %" PRIu64, path, s.start[4]);
	cr_assert_str_eq(emp_dump_reader_error(r), want);
	emp_dump_reader_close(r);
	/* the same file claiming a later minor version: skipped, the rest reads */
	emp_put_u16le(p + 10, EMP_DUMP_VERSION_MINOR + 1);
	r = open_bytes(p, s.m.n, path, sizeof(path), err, sizeof(err));
	cr_assert_eq(emp_dump_reader_version_minor(r), EMP_DUMP_VERSION_MINOR + 1);
	assert_events(r, &s.x, s.x.n);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
	cr_assert_eq(emp_dump_chunks(r, EMP_CHUNK_COUNTERS), 1);
	cr_assert_eq(emp_dump_counter(r, "samples"), 7);
	emp_dump_reader_close(r);
	free(p);
	free_small(&s);
}

Test(dump, open_errors)
{
	struct small s;
	build_small(&s);
	char path[64], err[512], want[512];
	uint8_t *p = malloc(s.m.n);

	memcpy(p, s.m.p, s.m.n);
	p[0] = 'P';
	cr_assert_null(open_bytes(p, s.m.n, path, sizeof(path), err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: not an emp dump (bad magic at byte 0)", path);
	cr_assert_str_eq(err, want);
	memcpy(p, s.m.p, s.m.n);
	p[7] ^= 0x20;
	cr_assert_null(open_bytes(p, s.m.n, path, sizeof(path), err, sizeof(err)));
	cr_assert_str_eq(err, (snprintf(want, sizeof(want), "%s: not an emp dump (bad magic at byte 0)", path), want));
	/* a prefix of the magic that goes wrong is not a dump either */
	cr_assert_null(open_bytes("\x89" "EMX", 4, path, sizeof(path), err, sizeof(err)));
	cr_assert_str_eq(err, (snprintf(want, sizeof(want), "%s: not an emp dump (bad magic at byte 0)", path), want));
	cr_assert_null(open_bytes("hello, world\n", 13, path, sizeof(path), err, sizeof(err)));

	memcpy(p, s.m.p, s.m.n);
	emp_put_u16le(p + 8, 2);
	cr_assert_null(open_bytes(p, s.m.n, path, sizeof(path), err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: unsupported dump format version 2 (this reader knows 1)", path);
	cr_assert_str_eq(err, want);
	emp_put_u16le(p + 8, 0);
	cr_assert_null(open_bytes(p, 12, path, sizeof(path), err, sizeof(err)), "checked as soon as it is there");
	snprintf(want, sizeof(want), "%s: unsupported dump format version 0 (this reader knows 1)", path);
	cr_assert_str_eq(err, want);

	struct emp_dump_reader *r;
	cr_assert_eq(emp_dump_reader_open("/nonexistent/x.emp", &r, err, sizeof(err)), -1);
	cr_assert_null(r);
	cr_assert_str_eq(err, "/nonexistent/x.emp: cannot open: No such file or directory");
	cr_assert_eq(emp_dump_reader_open("/tmp", &r, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "/tmp: not a regular file");
	emp_dump_reader_close(NULL);
	free(p);
	free_small(&s);
}

/* PAUSES (minor 1): written and read back exactly, across two chunks; a dump of minor 0 (written before PAUSES
 * existed) still reads, and a PAUSES chunk in it is a damaged type byte. */
Test(dump, pauses_round_trip_and_minor_0)
{
	struct mem m = { 0 };
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, &m);
	cr_assert_eq(emp_dump_write_header(w), 0);
	cr_assert_eq(emp_dump_write_meta(w, small_meta, 2), 0);
	static const struct emp_pause a[] = { { EMP_PAUSE_GC, 1000, 250 }, { EMP_PAUSE_GC, 1ull << 62, 0 } };
	static const struct emp_pause b[] = { { 7, 5, 1ull << 40 } }; /* a kind of a later version: kept */
	cr_assert_eq(emp_dump_write_pauses(w, a, 2), 0);
	uint64_t after_meta;
	cr_assert_eq(emp_dump_write_pauses(w, b, 1), 0);
	cr_assert_eq(emp_dump_write_end(w, small_end, 1), 0);
	emp_dump_writer_free(w);
	char path[64], err[512], want[512];
	struct emp_dump_reader *r = open_bytes(m.p, m.n, path, sizeof(path), err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	emp_dump_reader_drain(r);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
	size_t n;
	const struct emp_pause *p = emp_dump_pauses(r, &n);
	cr_assert_eq(n, 3);
	cr_assert_eq(emp_dump_chunks(r, EMP_CHUNK_PAUSES), 2);
	for (size_t i = 0; i < 3; i++) {
		const struct emp_pause *x = i < 2 ? &a[i] : &b[0];
		cr_assert(p[i].kind == x->kind && p[i].start == x->start && p[i].duration == x->duration, "pause %zu", i);
	}
	emp_dump_reader_close(r);

	/* the same bytes as a minor-0 dump: the PAUSES chunk after META is corrupt there */
	emp_put_u16le(m.p + 10, 0);
	uint64_t len = 0;
	memcpy(&len, m.p + EMP_DUMP_HEADER_LEN + 8, 4);
	after_meta = EMP_DUMP_HEADER_LEN + EMP_CHUNK_HEADER_LEN + len;
	r = open_bytes(m.p, m.n, path, sizeof(path), err, sizeof(err));
	emp_dump_reader_drain(r);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_CORRUPT);
	snprintf(want, sizeof(want), "%s: corrupt: unknown chunk type 6 at byte %" PRIu64, path, after_meta);
	cr_assert_str_eq(emp_dump_reader_error(r), want);
	emp_dump_reader_close(r);
	free(m.p);

	/* a dump of minor 0 without PAUSES (as emp 0.1.0 wrote them) reads completely, with no pauses */
	struct small s;
	build_small(&s);
	emp_put_u16le(s.m.p + 10, 0);
	r = open_bytes(s.m.p, s.m.n, path, sizeof(path), err, sizeof(err));
	assert_events(r, &s.x, s.x.n);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE);
	emp_dump_pauses(r, &n);
	cr_assert_eq(n, 0);
	emp_dump_reader_close(r);
	free_small(&s);
}

Test(dump, later_minor_version_reads)
{
	struct small s;
	build_small(&s);
	char path[64], err[512];
	emp_put_u16le(s.m.p + 10, 7);
	struct emp_dump_reader *r = open_bytes(s.m.p, s.m.n, path, sizeof(path), err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	cr_assert_eq(emp_dump_reader_version_minor(r), 7);
	assert_events(r, &s.x, s.x.n);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE);
	emp_dump_reader_close(r);
	free_small(&s);
}

/* ---- clock calibration ------------------------------------------------------------------------------------ */

static struct emp_dump_reader *calib_dump(const char *const *meta, size_t nmeta, const char *const *end,
					  size_t nend, char *path)
{
	struct mem m = { 0 };
	char err[512];
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, &m);
	cr_assert_eq(emp_dump_write_header(w), 0);
	cr_assert_eq(emp_dump_write_meta(w, meta, nmeta), 0);
	if (end)
		cr_assert_eq(emp_dump_write_end(w, end, nend), 0);
	emp_dump_writer_free(w);
	struct emp_dump_reader *r = open_bytes(m.p, m.n, path, 64, err, sizeof(err));
	free(m.p);
	cr_assert_not_null(r, "%s", err);
	emp_dump_reader_drain(r);
	return r;
}

Test(dump, ticks_to_ns_calibration)
{
	char path[64];
	static const char *const meta[] = { "clock_hz", "2000000000", "clock_ref_ticks", "1000",
					    "clock_ref_mono_ns", "5000000000" };
	/* no END (truncated dump): the META rate */
	struct emp_dump_reader *r = calib_dump(meta, 3, NULL, 0, path);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_TRUNCATED);
	cr_assert_eq(emp_dump_clock_hz(r), 2e9);
	cr_assert_eq(emp_dump_ticks_to_ns(r, 2e9), 1e9);
	cr_assert_eq(emp_dump_ticks_to_ns(r, 1), 0.5);
	emp_dump_reader_close(r);
	/* END one second later: the measured rate, 2.5 GHz */
	static const char *const end1[] = { "clock_end_ticks", "2500001000", "clock_end_mono_ns", "6000000000" };
	r = calib_dump(meta, 3, end1, 2, path);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE);
	cr_assert_eq(emp_dump_clock_hz(r), 2.5e9);
	cr_assert_eq(emp_dump_ticks_to_ns(r, 5), 2);
	emp_dump_reader_close(r);
	/* END less than a second later: too short to beat the start-up estimate */
	static const char *const end2[] = { "clock_end_ticks", "1900001000", "clock_end_mono_ns", "5999999999" };
	r = calib_dump(meta, 3, end2, 2, path);
	cr_assert_eq(emp_dump_clock_hz(r), 2e9);
	emp_dump_reader_close(r);
	/* END ticks not after META's: ignored */
	static const char *const end3[] = { "clock_end_ticks", "1000", "clock_end_mono_ns", "9000000000" };
	r = calib_dump(meta, 3, end3, 2, path);
	cr_assert_eq(emp_dump_clock_hz(r), 2e9);
	emp_dump_reader_close(r);
	/* no calibration at all (monotonic clock, ticks are ns) */
	r = calib_dump(NULL, 0, NULL, 0, path);
	cr_assert_eq(emp_dump_clock_hz(r), 1e9);
	cr_assert_eq(emp_dump_ticks_to_ns(r, 123), 123);
	emp_dump_reader_close(r);
	static const char *const junk[] = { "clock_hz", "fast" };
	r = calib_dump(junk, 1, NULL, 0, path);
	cr_assert_eq(emp_dump_clock_hz(r), 1e9, "an unparsable rate falls back to 1 GHz");
	emp_dump_reader_close(r);
}

/* ---- names ------------------------------------------------------------------------------------------------ */

Test(dump, thread_state_names)
{
	static const char *const want[] = { "unknown", "running", "waiting", "blocked", "sleeping", "native" };
	cr_assert_eq(EMP_STATE_COUNT, 6);
	for (unsigned i = 0; i < EMP_STATE_COUNT; i++)
		cr_assert_str_eq(emp_thread_state_name(i), want[i]);
	cr_assert_str_eq(emp_thread_state_name(EMP_STATE_COUNT), "unknown");
	cr_assert_str_eq(emp_thread_state_name(UINT32_MAX), "unknown");
}

/* ---- varints ---------------------------------------------------------------------------------------------- */

Test(dump, varint_edges)
{
	uint8_t buf[16];
	static const uint64_t vals[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX };
	static const size_t lens[] = { 1, 1, 1, 2, 2, 3, 5, 10 };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		cr_assert_eq(emp_varint_put(buf, vals[i]), lens[i]);
		const uint8_t *p = buf;
		uint64_t v;
		cr_assert_eq(emp_varint_get(&p, buf + lens[i], &v), 0);
		cr_assert_eq(v, vals[i]);
		cr_assert_eq(p, buf + lens[i]);
		p = buf;
		cr_assert_eq(emp_varint_get(&p, buf + lens[i] - 1, &v), -1, "cut short");
		cr_assert_eq(p, buf, "cursor unchanged on error");
	}
	/* 2^64 does not fit: 10th byte > 1 */
	static const uint8_t over[10] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02 };
	const uint8_t *p = over;
	uint64_t v;
	cr_assert_eq(emp_varint_get(&p, over + 10, &v), -1);
	static const uint8_t longer[11] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x00 };
	p = longer;
	cr_assert_eq(emp_varint_get(&p, longer + 11, &v), -1, "more than 10 bytes");
	static const int64_t sv[] = { 0, -1, 1, -64, 63, INT64_MIN, INT64_MAX };
	static const uint64_t zz[] = { 0, 1, 2, 127, 126, UINT64_MAX, UINT64_MAX - 1 };
	for (size_t i = 0; i < sizeof(sv) / sizeof(sv[0]); i++) {
		cr_assert_eq(emp_zigzag(sv[i]), zz[i]);
		cr_assert_eq(emp_unzigzag(zz[i]), sv[i]);
	}
}

/* ---- fuzz seeds ------------------------------------------------------------------------------------------- */

/* Write @p (a dump) to @path in the fuzz targets' structured form: a mode byte, then per chunk [u8 type][u16le raw
 * length][raw payload] (tests/fuzz/structured.c wraps each payload into a fresh LZ4 frame). */
static void write_structured(const char *path, const uint8_t *p, size_t n)
{
	uint8_t *out = malloc(1 + n * 64), *raw = malloc(EMP_CHUNK_RAW_MAX);
	size_t len = 0;
	LZ4F_dctx *d;
	cr_assert(!LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)));
	out[len++] = 0;
	for (size_t off = EMP_DUMP_HEADER_LEN; off + EMP_CHUNK_HEADER_LEN <= n;) {
		uint32_t raw_len = chunk_payload(d, p + off, raw);
		cr_assert_leq(raw_len, 0xffff, "structured seeds hold chunks below 64 KiB");
		out[len++] = p[off + 4];
		emp_put_u16le(out + len, (uint16_t)raw_len);
		len += 2;
		memcpy(out + len, raw, raw_len);
		len += raw_len;
		off += EMP_CHUNK_HEADER_LEN + emp_get_u32le(p + off + 8);
	}
	write_file(path, out, len);
	LZ4F_freeDecompressionContext(d);
	free(out);
	free(raw);
}

/* A trace dump for `calls --check` (analyzer/lib/trace.h).  Always: thread 1 (java) has one balanced call and one
 * call still open when the recording ends (open_at_end, no violation), thread 0 (java) one balanced call and then
 * ends.  With @broken, also each kind of trace violation the agent's writer could leave: thread 0 ends with a call
 * open (never closed), thread 2 (virtual) has an exit without entry, and the counter trace_unbalanced_exit is 2. */
static void build_trace_dump(struct mem *m, int broken)
{
	struct emp_dump_writer *w = writer_with_symbols(m, 4);
	cr_assert_eq(emp_dump_add_thread(w, 0, 11, EMP_THREAD_JAVA, "ends"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 1, 12, EMP_THREAD_JAVA, "alive"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 2, 0, EMP_THREAD_JAVA | EMP_THREAD_VIRTUAL, "virtual #21"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	struct emp_dump_events *b[3];
	for (uint32_t t = 0; t < 3; t++)
		cr_assert_not_null(b[t] = emp_dump_events_new(t));
	cr_assert_eq(emp_dump_events_enter(b[0], 100, 0), 0);
	if (broken)
		cr_assert_eq(emp_dump_events_enter(b[0], 105, 1), 0);
	cr_assert_eq(emp_dump_events_enter(b[0], 110, 2), 0);
	cr_assert_eq(emp_dump_events_exit(b[0], 120, 0), 0);
	cr_assert_eq(emp_dump_events_exit(b[0], 130, 0), 0);
	cr_assert_eq(emp_dump_events_enter(b[1], 100, 3), 0);
	cr_assert_eq(emp_dump_events_exit(b[1], 110, 1), 0);
	cr_assert_eq(emp_dump_events_enter(b[1], 120, 3), 0);
	if (broken)
		cr_assert_eq(emp_dump_events_exit(b[2], 100, 0), 0);
	cr_assert_eq(emp_dump_events_enter(b[2], 110, 1), 0);
	cr_assert_eq(emp_dump_events_exit(b[2], 120, 0), 0);
	for (uint32_t t = 0; t < 3; t++) {
		cr_assert_eq(emp_dump_events_flush(w, b[t]), 0);
		emp_dump_events_free(b[t]);
	}
	/* The writer's redefinition once thread 0 ended (probe-writers/writer.c). */
	cr_assert_eq(emp_dump_add_thread(w, 0, 11, EMP_THREAD_JAVA | EMP_THREAD_ENDED, "ends"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	static const char *const cn[] = { "trace_unbalanced_exit" };
	const uint64_t cv[] = { broken ? 2 : 0 };
	cr_assert_eq(emp_dump_write_counters(w, cn, cv, 1), 0);
	cr_assert_eq(emp_dump_write_end(w, small_end, 4), 0);
	emp_dump_writer_free(w);
}

/* The trace dumps above read back: per kind of violation the exact count, and calls open at the end apart. */
Test(dump, trace_validation_kinds)
{
	for (int broken = 0; broken < 2; broken++) {
		struct mem m = { 0 };
		build_trace_dump(&m, broken);
		char path[64], err[256];
		temp_file(path, sizeof(path), m.p, m.n);
		struct emp_dump_reader *r;
		cr_assert_eq(emp_dump_reader_open(path, &r, err, sizeof(err)), 0, "%s", err);
		struct emp_trace *t = emp_trace_new(&(struct emp_trace_ops){ 0 }, NULL);
		struct emp_event ev;
		while (emp_dump_reader_next(r, &ev))
			emp_trace_event(t, &ev);
		cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE);
		emp_trace_finish(t, r);
		const struct emp_trace_stats *st = emp_trace_stats(t);
		cr_expect_eq(st->calls, 4, "broken=%d", broken);
		cr_expect_eq(st->unclosed, broken ? 2 : 1, "broken=%d", broken);
		cr_expect_eq(st->never_closed, broken ? 1 : 0, "broken=%d", broken);
		cr_expect_eq(st->exit_without_entry, broken ? 1 : 0, "broken=%d", broken);
		cr_expect_eq(emp_trace_violations(st), broken ? 2 : 0, "broken=%d", broken);
		cr_expect_eq(emp_dump_counter(r, "trace_unbalanced_exit"), broken ? 2 : 0);
		cr_expect_eq(emp_dump_thread(r, 0)->flags, EMP_THREAD_JAVA | EMP_THREAD_ENDED);
		cr_expect_eq(emp_dump_thread(r, 2)->flags, EMP_THREAD_JAVA | EMP_THREAD_VIRTUAL);
		emp_trace_free(t);
		emp_dump_reader_close(r);
		unlink(path);
		free(m.p);
	}
}

Test(dump, corpus)
{
	const char *dir = getenv("EMP_TEST_CORPUS");
	if (!dir || !*dir)
		return; /* only under `make fuzz` */
	char path[4096];
	struct small s;
	build_small(&s);
	snprintf(path, sizeof(path), "%s/small-complete.emp", dir);
	write_file(path, s.m.p, s.m.n);
	snprintf(path, sizeof(path), "%s/small-structured", dir);
	write_structured(path, s.m.p, s.m.n);
	snprintf(path, sizeof(path), "%s/small-truncated.emp", dir);
	write_file(path, s.m.p, (size_t)(s.start[5] + 20));
	snprintf(path, sizeof(path), "%s/header-only.emp", dir);
	write_file(path, s.m.p, EMP_DUMP_HEADER_LEN);
	free_small(&s);

	/* `calls --check`: a trace with one violation of each kind, and one with calls open only at the end */
	for (int broken = 0; broken < 2; broken++) {
		struct mem tm = { 0 };
		build_trace_dump(&tm, broken);
		snprintf(path, sizeof(path), "%s/trace-%s.emp", dir, broken ? "broken" : "open-at-end");
		write_file(path, tm.p, tm.n);
		/* for tests/fuzz/fuzz_trace_fold.c: events that mutate past the checksums */
		snprintf(path, sizeof(path), "%s/trace-%s-structured", dir, broken ? "broken" : "open-at-end");
		write_structured(path, tm.p, tm.n);
		free(tm.p);
	}

	/* deep samples with shared prefixes, and trace events */
	struct mem m = { 0 };
	struct emp_dump_writer *w = writer_with_symbols(&m, 40);
	struct emp_dump_events *b = emp_dump_events_new(0);
	uint32_t f[200];
	for (uint32_t i = 0; i < 200; i++)
		f[i] = i % 40;
	for (uint32_t i = 0; i < 50; i++) {
		f[150 + i % 50] = (i * 13) % 40;
		cr_assert_eq(emp_dump_events_sample(b, 1000 + i * 10, (enum emp_thread_state)(i % 6), f, 150 + i), 0);
		cr_assert_eq(emp_dump_events_enter(b, 1001 + i * 10, i % 40), 0);
		cr_assert_eq(emp_dump_events_exit(b, 1002 + i * 10 - (i % 3), i & 1), 0);
	}
	cr_assert_eq(emp_dump_events_flush(w, b), 0);
	static const char *const cn[] = { "lost_ring_full" };
	static const uint64_t cv[] = { 1 };
	cr_assert_eq(emp_dump_write_counters(w, cn, cv, 1), 0);
	cr_assert_eq(emp_dump_write_end(w, small_end, 4), 0);
	snprintf(path, sizeof(path), "%s/samples.emp", dir);
	write_file(path, m.p, m.n);
	snprintf(path, sizeof(path), "%s/samples-structured", dir);
	write_structured(path, m.p, m.n);
	emp_dump_events_free(b);
	emp_dump_writer_free(w);
	free(m.p);
}

/* Ids are dense: an id more than 65,536 above the largest defined so far is corruption, so a crafted entry cannot
 * make the reader allocate a table for 2^26 ids.  The largest allowed jump still reads. */
Test(dump, symbol_id_jump_bound)
{
	static const uint32_t ids[] = { 3 + 65536, 3 + 65537 };
	static const enum emp_dump_status want[] = { EMP_DUMP_COMPLETE, EMP_DUMP_CORRUPT };
	for (int i = 0; i < 2; i++) {
		struct mem m = { 0 };
		struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, &m);
		const char *kv[] = { "agent", "emp" };
		cr_assert_eq(emp_dump_write_header(w), 0);
		cr_assert_eq(emp_dump_write_meta(w, kv, 1), 0);
		for (uint32_t id = 0; id < 3; id++)
			cr_assert_eq(emp_dump_add_method(w, id, EMP_FRAME_JAVA, 0, "a.B", "m", "()V"), 0);
		cr_assert_eq(emp_dump_add_method(w, ids[i], EMP_FRAME_JAVA, 0, "a.B", "far", "()V"), 0);
		cr_assert_eq(emp_dump_flush_symbols(w), 0);
		cr_assert_eq(emp_dump_write_end(w, kv, 1), 0);
		emp_dump_writer_free(w);
		char path[64], err[512];
		struct emp_dump_reader *r = open_bytes(m.p, m.n, path, sizeof(path), err, sizeof(err));
		emp_dump_reader_drain(r);
		cr_assert_eq(emp_dump_reader_status(r), want[i], "id %u: status %d", ids[i], emp_dump_reader_status(r));
		if (want[i] == EMP_DUMP_COMPLETE)
			cr_assert_str_eq(emp_dump_method(r, ids[i])->name, "far");
		emp_dump_reader_close(r);
		free(m.p);
	}
}

/* ---- decoding threads (emp_dump_reader_set_jobs) ----------------------------------------------------------- */

/* Read @n bytes with @jobs decoding threads and without, side by side: every event (all fields, sample frames),
 * then the status, message, offsets, symbols, counters and per-type counts must be the same. */
static void assert_jobs_same(const void *p, size_t n, unsigned jobs)
{
	char path[64], err[512];
	temp_file(path, sizeof(path), p, n);
	struct emp_dump_reader *a, *b;
	int rca = emp_dump_reader_open(path, &a, err, sizeof(err)), rcb = emp_dump_reader_open(path, &b, err, sizeof(err));
	unlink(path);
	cr_assert_eq(rca, rcb);
	if (rca)
		return;
	cr_assert_eq(emp_dump_reader_set_jobs(b, jobs), 0);
	struct emp_event ea, eb;
	size_t i = 0;
	for (;; i++) {
		int ma = emp_dump_reader_next(a, &ea), mb = emp_dump_reader_next(b, &eb);
		cr_assert_eq(ma, mb, "length %zu, event %zu: one reader ended (%s | %s)", n, i, emp_dump_reader_error(a),
			     emp_dump_reader_error(b));
		if (!ma)
			break;
		cr_assert(ea.kind == eb.kind && ea.thread == eb.thread && ea.ticks == eb.ticks && ea.method == eb.method &&
				  ea.state == eb.state && ea.depth == eb.depth && ea.cpu_ns == eb.cpu_ns,
			  "length %zu, event %zu differs: kind %d/%d, ticks %" PRIu64 "/%" PRIu64 ", method %u/%u", n, i,
			  ea.kind, eb.kind, ea.ticks, eb.ticks, ea.method, eb.method);
		for (uint32_t k = 0; k < ea.depth; k++)
			cr_assert_eq(ea.frames[k], eb.frames[k]);
	}
	cr_assert_eq(emp_dump_reader_status(a), emp_dump_reader_status(b), "length %zu", n);
	cr_assert_str_eq(emp_dump_reader_error(a), emp_dump_reader_error(b));
	cr_assert_eq(emp_dump_reader_good_offset(a), emp_dump_reader_good_offset(b), "length %zu", n);
	cr_assert_eq(emp_dump_meta_count(a), emp_dump_meta_count(b));
	cr_assert_eq(emp_dump_method_limit(a), emp_dump_method_limit(b));
	cr_assert_eq(emp_dump_thread_limit(a), emp_dump_thread_limit(b));
	cr_assert_eq(emp_dump_counter_count(a), emp_dump_counter_count(b));
	for (size_t k = 0; k < emp_dump_counter_count(a); k++) {
		const char *na, *nb;
		uint64_t va, vb;
		emp_dump_counter_at(a, k, &na, &va);
		emp_dump_counter_at(b, k, &nb, &vb);
		cr_assert_str_eq(na, nb);
		cr_assert_eq(va, vb);
	}
	for (int t = 0; t < 8; t++)
		cr_assert_eq(emp_dump_chunks(a, (enum emp_chunk_type)t), emp_dump_chunks(b, (enum emp_chunk_type)t));
	for (int k = 0; k < 8; k++)
		cr_assert_eq(emp_dump_events(a, (enum emp_event_kind)k), emp_dump_events(b, (enum emp_event_kind)k));
	size_t pa, pb;
	emp_dump_pauses(a, &pa);
	emp_dump_pauses(b, &pb);
	cr_assert_eq(pa, pb);
	emp_dump_reader_close(a);
	emp_dump_reader_close(b);
}

Test(dump, jobs_same_on_every_cut_and_flip)
{
	struct small s;
	build_small(&s);
	for (size_t len = 0; len <= s.m.n; len++)
		assert_jobs_same(s.m.p, len, 3);
	uint8_t *copy = malloc(s.m.n);
	for (size_t pos = EMP_DUMP_HEADER_LEN; pos < s.m.n; pos++) {
		memcpy(copy, s.m.p, s.m.n);
		copy[pos] ^= 0xff;
		assert_jobs_same(copy, s.m.n, 2);
	}
	free(copy);
	free_small(&s);
}

/* A dump like a traced program's: 5 threads, deep stacks whose calls open in one chunk and close in a later one,
 * many chunks (cut by emp_dump_events_full, as the agent's writer does) interleaved across threads, symbols
 * defined as the events come, a method used one chunk before it is defined (corrupt there), counters between. */
static void build_big(struct mem *m, uint64_t *ok_len, int undefined_use)
{
	memset(m, 0, sizeof(*m));
	struct emp_dump_writer *w = emp_dump_writer_new(mem_sink, m);
	cr_assert_not_null(w);
	cr_assert_eq(emp_dump_write_header(w), 0);
	cr_assert_eq(emp_dump_write_meta(w, small_meta, sizeof(small_meta) / sizeof(small_meta[0]) / 2), 0);
	struct emp_dump_events *t[5];
	uint32_t depth[5] = { 0 }, defined = 0;
	uint64_t ticks = 1000, rng = 12345;
	for (uint32_t i = 0; i < 5; i++) {
		cr_assert_eq(emp_dump_add_thread(w, i, 100 + i, EMP_THREAD_JAVA, "t"), 0);
		t[i] = emp_dump_events_new(i);
	}
	char name[32];
	for (int round = 0; round < 40; round++) {
		for (; defined < 50u * (uint32_t)(round + 1); defined++) {
			snprintf(name, sizeof(name), "m%u", defined);
			cr_assert_eq(emp_dump_add_method(w, defined, EMP_FRAME_JAVA, 0, "C", name, "()V"), 0);
		}
		cr_assert_eq(emp_dump_flush_symbols(w), 0);
		for (uint32_t i = 0; i < 5; i++) {
			for (int k = 0; k < 3000; k++) {
				rng = rng * 6364136223846793005ull + 1442695040888963407ull;
				ticks += 1 + (rng >> 60);
				if (depth[i] == 0 || (depth[i] < 200 && (rng >> 33 & 1))) {
					cr_assert_eq(emp_dump_events_enter(t[i], ticks, (uint32_t)(rng >> 40) % defined), 0);
					depth[i]++;
				} else {
					cr_assert_eq(emp_dump_events_exit(t[i], ticks, (rng >> 34 & 15) == 0), 0);
					depth[i]--;
				}
				if (emp_dump_events_full(t[i]))
					cr_assert_eq(emp_dump_events_flush(w, t[i]), 0);
			}
			if (i == 2 && round % 7 == 0)
				cr_assert_eq(emp_dump_events_flush(w, t[i]), 0); /* a short chunk too */
		}
		static const char *const cn[] = { "records_written" };
		uint64_t cv[] = { (uint64_t)round };
		cr_assert_eq(emp_dump_write_counters(w, cn, cv, 1), 0);
	}
	*ok_len = m->n;
	if (undefined_use) {
		/* method `defined` is used before its SYMBOLS chunk */
		cr_assert_eq(emp_dump_events_enter(t[0], ticks + 1, defined), 0);
		cr_assert_eq(emp_dump_events_flush(w, t[0]), 0);
		cr_assert_eq(emp_dump_add_method(w, defined, EMP_FRAME_JAVA, 0, "C", "late", "()V"), 0);
		cr_assert_eq(emp_dump_flush_symbols(w), 0);
	}
	for (uint32_t i = 0; i < 5; i++) {
		cr_assert_eq(emp_dump_events_flush(w, t[i]), 0);
		emp_dump_events_free(t[i]);
	}
	cr_assert_eq(emp_dump_write_end(w, small_end, sizeof(small_end) / sizeof(small_end[0]) / 2), 0);
	emp_dump_writer_free(w);
}

Test(dump, jobs_same_on_a_long_multi_thread_trace)
{
	struct mem m;
	uint64_t ok_len;
	build_big(&m, &ok_len, 0);
	cr_assert_gt(m.n, 8 * (size_t)EMP_CHUNK_RAW_TARGET / 4, "several chunks per thread");
	for (unsigned jobs = 2; jobs <= 5; jobs += 3)
		assert_jobs_same(m.p, m.n, jobs);
	/* cut anywhere: inside chunk headers, payloads, at boundaries */
	for (size_t len = m.n; len > 1000; len = len * 7 / 8)
		assert_jobs_same(m.p, len, 2);
	/* damage in the middle: the chunks before read, nothing after */
	uint8_t *copy = malloc(m.n);
	for (size_t pos = m.n / 3; pos < m.n; pos += m.n / 5) {
		memcpy(copy, m.p, m.n);
		copy[pos] ^= 0x40;
		assert_jobs_same(copy, m.n, 3);
	}
	free(copy);
	free(m.p);
	build_big(&m, &ok_len, 1);
	assert_jobs_same(m.p, m.n, 2);
	/* and the reader says so, naming the chunk */
	char path[64], err[512];
	struct emp_dump_reader *r = open_bytes(m.p, m.n, path, sizeof(path), err, sizeof(err));
	cr_assert_eq(emp_dump_reader_set_jobs(r, 2), 0);
	emp_dump_reader_drain(r);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_CORRUPT);
	cr_assert_not_null(strstr(emp_dump_reader_error(r), "ENTER of an undefined method"), "%s",
			   emp_dump_reader_error(r));
	cr_assert_geq(emp_dump_reader_good_offset(r), ok_len);
	cr_assert_eq(emp_dump_reader_set_jobs(r, 2), -1, "only before the first chunk");
	emp_dump_reader_close(r);
	free(m.p);
}
