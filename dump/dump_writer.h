/* SPDX-License-Identifier: MIT */
/* dump_writer.h - encoder of the emp dump format v1 (doc/dump-format.md).
 *
 * Not thread-safe: one writer is driven by one thread (the agent's writer thread, or a test).  Finished bytes go to
 * a sink callback, whole chunks at a time, so a sink that write(2)s them leaves a file that is readable up to its
 * last complete chunk whenever the process dies. */
#ifndef EMP_DUMP_WRITER_H
#define EMP_DUMP_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "dump.h"

/* A sink takes encoded bytes.  Return: 0, or a negative errno (the writer then stops writing and reports it). */
typedef int (*emp_dump_sink_fn)(void *ctx, const void *buf, size_t len);

struct emp_dump_writer;

/* emp_dump_writer_new - a writer that sends its bytes to @sink.  Return: NULL when out of memory. */
struct emp_dump_writer *emp_dump_writer_new(emp_dump_sink_fn sink, void *sink_ctx);
void emp_dump_writer_free(struct emp_dump_writer *w);
/* emp_dump_writer_set_compress - chunks written from now on are LZ4-compressed (@compress, the default) or LZ4
 * frames of stored blocks: the same format, read the same way, about twice the bytes without LZ4's CPU time
 * (the agent's compress=none). */
void emp_dump_writer_set_compress(struct emp_dump_writer *w, int compress);

/* Bytes handed to the sink so far (the file offset of the next chunk). */
uint64_t emp_dump_writer_offset(const struct emp_dump_writer *w);

/* emp_dump_write_header - the 16-byte file header.  Return: 0 or a negative errno from the sink. */
int emp_dump_write_header(struct emp_dump_writer *w);

/* emp_dump_write_meta - a META chunk of @n key/value pairs (@kv holds 2*@n strings: key, value, ...).
 * Return: 0, -ENOMEM, -EINVAL (a NULL string) or the sink's error. */
int emp_dump_write_meta(struct emp_dump_writer *w, const char *const *kv, size_t n);

/* Symbols are buffered and written by emp_dump_flush_symbols(), which the caller runs before flushing any events
 * chunk that uses them.  Strings are copied.  Return: 0 or -ENOMEM. */
int emp_dump_add_method(struct emp_dump_writer *w, uint32_t id, enum emp_frame_kind kind, uint32_t flags,
			const char *klass, const char *name, const char *descriptor);
int emp_dump_add_thread(struct emp_dump_writer *w, uint32_t id, uint64_t os_tid, uint32_t flags, const char *name);
int emp_dump_flush_symbols(struct emp_dump_writer *w);

/* emp_dump_write_counters - a COUNTERS chunk: cumulative values of @n named counters.  Return: 0 or error. */
int emp_dump_write_counters(struct emp_dump_writer *w, const char *const *names, const uint64_t *values, size_t n);

/* emp_dump_write_pauses - a PAUSES chunk of @n pauses (n > 0).  Return: 0, -ENOMEM or the sink's error. */
int emp_dump_write_pauses(struct emp_dump_writer *w, const struct emp_pause *p, size_t n);

/* emp_dump_write_end - the END chunk (key/value pairs like META), after which nothing may be written. */
int emp_dump_write_end(struct emp_dump_writer *w, const char *const *kv, size_t n);

/* Event builders: one per thread, owned by the caller.  Appending never fails for lack of room in the chunk (the
 * buffer grows); emp_dump_events_full() says when the chunk has reached EMP_CHUNK_RAW_TARGET and should be flushed.
 * Return of the append functions: 0 or -ENOMEM (the event is then not recorded).
 *
 * The fields are the encoder's own; they are in this header only so that the enter/exit appends, which the agent's
 * writer thread runs for every trace record (tens of millions a second), inline into its drain loop. */
struct emp_dump_events {
	uint32_t thread;
	uint64_t count;          /* events in the open chunk */
	uint64_t prev_ticks;     /* ticks of the previous event in the open chunk (delta base) */
	struct emp_buf raw;      /* payload of the open chunk; empty until the first event */
	uint32_t prev_depth;     /* previous sample's stack, for the shared-prefix encoding */
	uint64_t vthread;        /* the virtual thread of the chunk's samples so far (EMP_EV_VTHREAD), 0 none */
	uint32_t *prev_frames;
	uint32_t prev_cap;
};

struct emp_dump_events *emp_dump_events_new(uint32_t thread);
void emp_dump_events_free(struct emp_dump_events *b);
/* @frames: @depth method symbol ids, root first. */
int emp_dump_events_sample(struct emp_dump_events *b, uint64_t ticks, enum emp_thread_state state,
			   const uint32_t *frames, uint32_t depth);
/* @cpu_ns: the thread's CPU time at @ticks (an EMP_EV_CPU event, beside an iteration method's ENTER or EXIT). */
int emp_dump_events_cpu(struct emp_dump_events *b, uint64_t ticks, uint64_t cpu_ns);
/* @vthread: the virtual thread (Thread.threadId(), 0 none) the next samples ran; an EMP_EV_VTHREAD event only when
 * that differs from the chunk's current one. */
int emp_dump_events_vthread(struct emp_dump_events *b, uint64_t ticks, uint64_t vthread);
uint64_t emp_dump_events_count(const struct emp_dump_events *b); /* events in the open chunk */

/* emp_dump_events_open - room for @extra more bytes, and the chunk's head (thread id, base ticks @ticks) when the
 * chunk is empty.  Return: 0 or -ENOMEM.  Called by the appends; not for callers. */
int emp_dump_events_open(struct emp_dump_events *b, uint64_t ticks, size_t extra);

/* An event's head varint and its tick delta; the caller made room for 2 * EMP_VARINT_MAX bytes. */
static inline void emp_dump_events_put(struct emp_dump_events *b, uint64_t head, uint64_t ticks)
{
	uint8_t *p = b->raw.data + b->raw.len;
	p += emp_varint_put(p, head);
	/* Ticks are monotonic per thread in practice; zigzag keeps a rare backwards step (TSC skew) exact. */
	p += emp_varint_put(p, emp_zigzag((int64_t)(ticks - b->prev_ticks)));
	b->raw.len = (size_t)(p - b->raw.data);
	b->prev_ticks = ticks;
	b->count++;
}

static inline int emp_dump_events_room(struct emp_dump_events *b, uint64_t ticks)
{
	if (__builtin_expect(b->raw.len != 0 && b->raw.cap - b->raw.len >= 2 * EMP_VARINT_MAX, 1))
		return 0;
	return emp_dump_events_open(b, ticks, 2 * EMP_VARINT_MAX);
}

/* emp_dump_events_trace - an ENTER, EXIT or EXIT_THROW event whose head varint (kind and, for an ENTER, method:
 * dump.h EMP_EV_*) the caller made. */
static inline int emp_dump_events_trace(struct emp_dump_events *b, uint64_t ticks, uint64_t head)
{
	int rc = emp_dump_events_room(b, ticks);
	if (rc)
		return rc;
	emp_dump_events_put(b, head, ticks);
	return 0;
}

static inline int emp_dump_events_enter(struct emp_dump_events *b, uint64_t ticks, uint32_t method)
{
	return emp_dump_events_trace(b, ticks, (uint64_t)method << EMP_EV_KIND_BITS | EMP_EV_ENTER);
}

static inline int emp_dump_events_exit(struct emp_dump_events *b, uint64_t ticks, int thrown)
{
	return emp_dump_events_trace(b, ticks, thrown ? EMP_EV_EXIT_THROW : EMP_EV_EXIT);
}

static inline int emp_dump_events_full(const struct emp_dump_events *b)
{
	return b->raw.len >= EMP_CHUNK_RAW_TARGET;
}

/* emp_dump_events_flush - compress the open chunk (if any event) into an EVENTS chunk and start a new one. */
int emp_dump_events_flush(struct emp_dump_writer *w, struct emp_dump_events *b);

#endif /* EMP_DUMP_WRITER_H */
