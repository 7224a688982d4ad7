/* SPDX-License-Identifier: MIT */
/* dump_writer.c - encoder of the emp dump format v1.  Format: doc/dump-format.md. */
#include "dump_writer.h"

#include <errno.h>
/* LZ4F_uncompressedUpdate (compress=none) is in lz4frame.h's static-linking section, though liblz4.so has exported
 * it since 1.9.3 (Debian 12: 1.9.4) */
#define LZ4F_STATIC_LINKING_ONLY
#include <lz4frame.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "varint.h"

struct emp_dump_writer {
	emp_dump_sink_fn sink;
	void *sink_ctx;
	uint64_t offset;        /* bytes handed to the sink */
	int error;              /* first sink error; once set, nothing more is written */
	int store;              /* emp_dump_writer_set_compress(w, 0): blocks stored uncompressed */
	LZ4F_cctx *cctx;        /* reused for every chunk */
	struct emp_buf raw;     /* scratch for META/COUNTERS/END payloads */
	struct emp_buf symbols; /* pending SYMBOLS entries */
	struct emp_buf out;     /* chunk header + LZ4 frame */
};

struct emp_dump_writer *emp_dump_writer_new(emp_dump_sink_fn sink, void *sink_ctx)
{
	struct emp_dump_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	if (LZ4F_isError(LZ4F_createCompressionContext(&w->cctx, LZ4F_VERSION))) {
		free(w);
		return NULL;
	}
	w->sink = sink;
	w->sink_ctx = sink_ctx;
	return w;
}

void emp_dump_writer_free(struct emp_dump_writer *w)
{
	if (!w)
		return;
	LZ4F_freeCompressionContext(w->cctx);
	emp_buf_free(&w->raw);
	emp_buf_free(&w->symbols);
	emp_buf_free(&w->out);
	free(w);
}

void emp_dump_writer_set_compress(struct emp_dump_writer *w, int compress)
{
	w->store = !compress;
}

uint64_t emp_dump_writer_offset(const struct emp_dump_writer *w)
{
	return w->offset;
}

static int emit(struct emp_dump_writer *w, const void *p, size_t n)
{
	if (w->error)
		return w->error;
	int rc = w->sink(w->sink_ctx, p, n);
	if (rc) {
		w->error = rc < 0 ? rc : -EIO;
		return w->error;
	}
	w->offset += n;
	return 0;
}

int emp_dump_write_header(struct emp_dump_writer *w)
{
	uint8_t h[EMP_DUMP_HEADER_LEN] = { 0 };
	memcpy(h, EMP_DUMP_MAGIC, EMP_DUMP_MAGIC_LEN);
	emp_put_u16le(h + 8, EMP_DUMP_VERSION_MAJOR);
	emp_put_u16le(h + 10, EMP_DUMP_VERSION_MINOR);
	return emit(w, h, sizeof(h));
}

/* Compress @raw_len bytes into one LZ4 frame behind a chunk header, and hand both to the sink in one call (with
 * compression off, the frame's blocks are stored: the same format to the reader, LZ4F_decompress copies them).  The
 * frame carries its content size and a checksum (xxHash32) of each compressed block, which the reader verifies:
 * the checksum covers every stored byte, and hashing the compressed bytes rather than the raw ones (a frame's
 * content checksum) costs a fifth as much on trace events (4-5 raw bytes per compressed byte): on a full H2
 * trace, xxHash32 over the raw bytes was 8 % of `calls`'s CPU time and 3 % of the traced run's samples. */
static int write_chunk(struct emp_dump_writer *w, enum emp_chunk_type type, const uint8_t *raw, size_t raw_len)
{
	if (raw_len > EMP_CHUNK_RAW_MAX)
		return -E2BIG;
	LZ4F_preferences_t prefs;
	memset(&prefs, 0, sizeof(prefs));
	prefs.frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
	prefs.frameInfo.contentSize = raw_len;
	prefs.frameInfo.blockSizeID = LZ4F_max256KB;
	prefs.frameInfo.blockMode = w->store ? LZ4F_blockIndependent : LZ4F_blockLinked; /* the former for stored */
	size_t bound = LZ4F_compressFrameBound(raw_len, &prefs);
	w->out.len = 0;
	if (emp_buf_reserve(&w->out, EMP_CHUNK_HEADER_LEN + bound))
		return -ENOMEM;
	uint8_t *dst = w->out.data + EMP_CHUNK_HEADER_LEN;
	size_t n = LZ4F_compressBegin(w->cctx, dst, bound, &prefs);
	if (LZ4F_isError(n))
		return -EIO;
	size_t total = n;
	n = w->store ? LZ4F_uncompressedUpdate(w->cctx, dst + total, bound - total, raw, raw_len, NULL)
		     : LZ4F_compressUpdate(w->cctx, dst + total, bound - total, raw, raw_len, NULL);
	if (LZ4F_isError(n))
		return -EIO;
	total += n;
	n = LZ4F_compressEnd(w->cctx, dst + total, bound - total, NULL);
	if (LZ4F_isError(n))
		return -EIO;
	total += n;

	uint8_t *h = w->out.data;
	emp_put_u32le(h, EMP_CHUNK_MAGIC);
	h[4] = (uint8_t)type;
	h[5] = 0;
	emp_put_u16le(h + 6, 0);
	emp_put_u32le(h + 8, (uint32_t)total);
	emp_put_u32le(h + 12, (uint32_t)raw_len);
	return emit(w, w->out.data, EMP_CHUNK_HEADER_LEN + total);
}

static int write_kv_chunk(struct emp_dump_writer *w, enum emp_chunk_type type, const char *const *kv, size_t n)
{
	w->raw.len = 0;
	if (emp_buf_varint(&w->raw, n))
		return -ENOMEM;
	for (size_t i = 0; i < 2 * n; i++) {
		if (!kv[i])
			return -EINVAL;
		if (emp_buf_str(&w->raw, kv[i]))
			return -ENOMEM;
	}
	return write_chunk(w, type, w->raw.data, w->raw.len);
}

int emp_dump_write_meta(struct emp_dump_writer *w, const char *const *kv, size_t n)
{
	return write_kv_chunk(w, EMP_CHUNK_META, kv, n);
}

int emp_dump_write_end(struct emp_dump_writer *w, const char *const *kv, size_t n)
{
	return write_kv_chunk(w, EMP_CHUNK_END, kv, n);
}

int emp_dump_add_method(struct emp_dump_writer *w, uint32_t id, enum emp_frame_kind kind, uint32_t flags,
			const char *klass, const char *name, const char *descriptor)
{
	struct emp_buf *b = &w->symbols;
	size_t mark = b->len;
	if (emp_buf_varint(b, EMP_SYM_METHOD) || emp_buf_varint(b, id) || emp_buf_varint(b, kind) ||
	    emp_buf_varint(b, flags) || emp_buf_str(b, klass ? klass : "") || emp_buf_str(b, name ? name : "") ||
	    emp_buf_str(b, descriptor ? descriptor : "")) {
		b->len = mark;
		return -ENOMEM;
	}
	/* Keep SYMBOLS chunks near the events' size: a flood of class loading becomes several chunks. */
	return b->len >= EMP_CHUNK_RAW_TARGET ? emp_dump_flush_symbols(w) : 0;
}

int emp_dump_add_thread(struct emp_dump_writer *w, uint32_t id, uint64_t os_tid, uint32_t flags, const char *name)
{
	struct emp_buf *b = &w->symbols;
	size_t mark = b->len;
	if (emp_buf_varint(b, EMP_SYM_THREAD) || emp_buf_varint(b, id) || emp_buf_varint(b, os_tid) ||
	    emp_buf_varint(b, flags) || emp_buf_str(b, name ? name : "")) {
		b->len = mark;
		return -ENOMEM;
	}
	/* Keep SYMBOLS chunks near the events' size: a flood of class loading becomes several chunks. */
	return b->len >= EMP_CHUNK_RAW_TARGET ? emp_dump_flush_symbols(w) : 0;
}

int emp_dump_flush_symbols(struct emp_dump_writer *w)
{
	if (!w->symbols.len)
		return 0;
	int rc = write_chunk(w, EMP_CHUNK_SYMBOLS, w->symbols.data, w->symbols.len);
	w->symbols.len = 0;
	return rc;
}

int emp_dump_write_counters(struct emp_dump_writer *w, const char *const *names, const uint64_t *values, size_t n)
{
	w->raw.len = 0;
	if (emp_buf_varint(&w->raw, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (emp_buf_str(&w->raw, names[i]) || emp_buf_varint(&w->raw, values[i]))
			return -ENOMEM;
	return write_chunk(w, EMP_CHUNK_COUNTERS, w->raw.data, w->raw.len);
}

int emp_dump_write_pauses(struct emp_dump_writer *w, const struct emp_pause *p, size_t n)
{
	w->raw.len = 0;
	for (size_t i = 0; i < n; i++)
		if (emp_buf_varint(&w->raw, p[i].kind) || emp_buf_varint(&w->raw, p[i].start) ||
		    emp_buf_varint(&w->raw, p[i].duration))
			return -ENOMEM;
	return write_chunk(w, EMP_CHUNK_PAUSES, w->raw.data, w->raw.len);
}

struct emp_dump_events *emp_dump_events_new(uint32_t thread)
{
	struct emp_dump_events *b = calloc(1, sizeof(*b));
	if (b)
		b->thread = thread;
	return b;
}

void emp_dump_events_free(struct emp_dump_events *b)
{
	if (!b)
		return;
	emp_buf_free(&b->raw);
	free(b->prev_frames);
	free(b);
}

int emp_dump_events_open(struct emp_dump_events *b, uint64_t ticks, size_t extra)
{
	if (emp_buf_reserve(&b->raw, extra + 2 * EMP_VARINT_MAX))
		return -ENOMEM;
	if (b->raw.len == 0) {
		/* The chunk's head, so that each chunk decodes on its own. */
		b->raw.len += emp_varint_put(b->raw.data, b->thread);
		b->raw.len += emp_varint_put(b->raw.data + b->raw.len, ticks);
		b->prev_ticks = ticks;
		b->prev_depth = 0;
	}
	return 0;
}

int emp_dump_events_sample(struct emp_dump_events *b, uint64_t ticks, enum emp_thread_state state,
			   const uint32_t *frames, uint32_t depth)
{
	if (depth > EMP_MAX_FRAMES)
		return -EINVAL;
	if (emp_dump_events_open(b, ticks, (size_t)(depth + 4) * EMP_VARINT_MAX))
		return -ENOMEM;
	if (depth > b->prev_cap) {
		uint32_t *f = realloc(b->prev_frames, depth * sizeof(*f));
		if (!f)
			return -ENOMEM;
		b->prev_frames = f;
		b->prev_cap = depth;
	}
	uint32_t shared = 0;
	while (shared < depth && shared < b->prev_depth && b->prev_frames[shared] == frames[shared])
		shared++;
	emp_dump_events_put(b, (uint64_t)state << EMP_EV_KIND_BITS | EMP_EV_SAMPLE, ticks);
	uint8_t *p = b->raw.data + b->raw.len;
	p += emp_varint_put(p, shared);
	p += emp_varint_put(p, depth - shared);
	for (uint32_t i = shared; i < depth; i++)
		p += emp_varint_put(p, frames[i]);
	b->raw.len = (size_t)(p - b->raw.data);
	if (depth > shared) /* an empty stack may come with frames == NULL: no memcpy from NULL */
		memcpy(b->prev_frames + shared, frames + shared, (depth - shared) * sizeof(*frames));
	b->prev_depth = depth;
	return 0;
}

int emp_dump_events_cpu(struct emp_dump_events *b, uint64_t ticks, uint64_t cpu_ns)
{
	if (emp_dump_events_open(b, ticks, EMP_VARINT_MAX))
		return -ENOMEM;
	emp_dump_events_put(b, EMP_EV_CPU, ticks);
	b->raw.len += emp_varint_put(b->raw.data + b->raw.len, cpu_ns);
	return 0;
}

int emp_dump_events_vthread(struct emp_dump_events *b, uint64_t ticks, uint64_t vthread)
{
	if (vthread == b->vthread)
		return 0;
	if (emp_dump_events_open(b, ticks, EMP_VARINT_MAX))
		return -ENOMEM;
	emp_dump_events_put(b, EMP_EV_VTHREAD, ticks);
	b->raw.len += emp_varint_put(b->raw.data + b->raw.len, vthread);
	b->vthread = vthread;
	return 0;
}

uint64_t emp_dump_events_count(const struct emp_dump_events *b)
{
	return b->count;
}

int emp_dump_events_flush(struct emp_dump_writer *w, struct emp_dump_events *b)
{
	if (!b->raw.len)
		return 0;
	int rc = write_chunk(w, EMP_CHUNK_EVENTS, b->raw.data, b->raw.len);
	b->raw.len = 0;
	b->count = 0;
	b->prev_depth = 0;
	b->vthread = 0;
	return rc;
}
