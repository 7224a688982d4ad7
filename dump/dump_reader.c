/* SPDX-License-Identifier: MIT */
/* dump_reader.c - streaming decoder of the emp dump format v1.  Format: doc/dump-format.md.
 *
 * Every length, count and id read from the file is checked against what remains in its chunk before it is used:
 * the reader is fuzzed (tests/fuzz) and must never read out of bounds, whatever the bytes. */
#include "dump_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <lz4frame.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "varint.h"

/* Ids above these are treated as corruption: the agent allocates ids densely from 0. */
#define MAX_METHOD_ID (1u << 26)
#define MAX_THREAD_ID (1u << 22)
/* Dense ids also mean a new id is never far above the largest seen so far (only ids allocated concurrently and
 * queued out of order sit in between), so an id may exceed the current limit by at most this much.  It keeps a
 * crafted entry from making the reader allocate a table for 2^26 ids. */
#define MAX_ID_JUMP   (1u << 16)

struct kv {
	char *key;
	char *value;
};

struct kv_table {
	struct kv *v;
	size_t n, cap;
};

/* An event a worker decoded ahead: ENTER/EXIT/EXIT_THROW only (any other kind, and anything malformed, stops the
 * worker's decoding; the reader decodes the rest of the chunk itself, so messages and checks stay its own). */
struct pre_event {
	uint64_t ticks;
	uint32_t kind;
	uint32_t method;
};

/* One chunk on its way through the reader.  Fetched (header and stored bytes, by the reading thread, in file
 * order), then decompressed and, for EVENTS, decoded ahead (by a worker, or only decompressed at once without
 * workers), then applied to the reader's state (by the reading thread, in file order: emp_dump_reader_next() sees
 * every chunk exactly as a reader without workers does). */
struct slot {
	/* fetch */
	int status;            /* EMP_DUMP_READING: a chunk was fetched; else the fetch ended here with msg */
	char msg[256];
	uint64_t at, end;      /* file offsets of the chunk and just past it */
	unsigned type;
	uint32_t stored_len, raw_len;
	uint8_t *stored, *raw;
	size_t stored_cap, raw_cap;
	/* decode */
	int state;             /* SLOT_FREE, SLOT_SUBMITTED, SLOT_TAKEN, SLOT_DONE */
	const char *why;       /* decompression failed: why */
	struct pre_event *pre; /* EVENTS: events decoded ahead */
	size_t pre_n, pre_cap;
	const uint8_t *rest;   /* EVENTS: where the decoding ahead stopped (NULL: nothing decoded ahead) */
	uint64_t rest_ticks;   /* the ticks at that point */
	void *folded;          /* EVENTS in fold mode: what the fold function made of it (NULL: nothing yet) */
};
enum { SLOT_FREE, SLOT_SUBMITTED, SLOT_TAKEN, SLOT_DONE };

struct emp_dump_reader {
	FILE *f;
	char *path;
	uint64_t size;         /* file size at open */
	uint64_t offset;       /* file offset of the next unread byte */
	uint64_t good_offset;  /* just past the last complete chunk */
	unsigned minor;
	enum emp_dump_status status;
	char error[256];

	/* Chunks in file order: slots[cur] is the chunk being read; with workers (emp_dump_reader_set_jobs) the next
	 * ones are fetched ahead and decoded by the workers meanwhile (see the pipeline below). */
	LZ4F_dctx *dctx;       /* decompression without workers */
	struct slot *slots;
	unsigned nslots;       /* 1 without workers */
	int cur;               /* slot of the current chunk, -1 before the first */
	unsigned head, count;  /* slots fetched and not read yet: head, head + 1, ... (ring order) */
	int fetch_done;        /* the last fetch hit the end of what can be read, or fetched END: fetch no more */
	uint64_t fetch_good;   /* just past the last chunk fetched whole (for the messages of the fetch) */
	struct pool *pool;     /* the workers; NULL without */

	/* cursor inside the current EVENTS chunk: first its events the worker decoded, then the bytes from ev_p */
	const struct pre_event *pre, *pre_end;
	const uint8_t *ev_p, *ev_end;
	uint64_t chunk_offset; /* file offset of the current chunk (for messages) */
	uint32_t ev_thread;
	uint64_t ev_ticks;
	uint32_t *frames;      /* current sample stack, EMP_MAX_FRAMES entries */
	uint32_t frames_depth; /* depth of the previous sample in this chunk */

	struct kv_table meta, end, counters_kv;
	uint64_t *counter_values;

	struct emp_dump_method **methods;
	uint32_t methods_cap, methods_limit;
	uint32_t methods_dense; /* ids 0 .. methods_dense - 1 are all defined */
	struct emp_dump_thread **threads;
	uint32_t threads_cap, threads_limit;

	struct emp_pause *pauses; /* every PAUSES entry read (a few per GC: bounded by the run's collections) */
	size_t pauses_n, pauses_cap;

	uint64_t chunk_count[8];
	uint64_t event_count[8];
	uint64_t ev_vthread;    /* the open EVENTS chunk's current virtual thread (EMP_EV_VTHREAD) */
	double hz;             /* cached clock rate, 0 = not computed yet */

	/* fold mode (emp_dump_reader_set_fold): EVENTS chunks go to fold() instead of being decoded */
	emp_dump_fold_fn fold;
	void (*fold_free)(void *folded);
	void *fold_arg;
	unsigned cur_type;     /* type of the chunk read last */
	int stopped;           /* emp_dump_reader_stop(): read nothing more */
	void *folded;          /* the current EVENTS chunk's fold result, until emp_dump_reader_next_folded() */
};

__attribute__((format(printf, 3, 4)))
static void set_status(struct emp_dump_reader *r, enum emp_dump_status st, const char *fmt, ...)
{
	if (r->status == EMP_DUMP_CORRUPT || r->status == EMP_DUMP_TRUNCATED)
		return; /* keep the first problem */
	r->status = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

static void kv_clear(struct kv_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].key);
		free(t->v[i].value);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static const char *kv_get(const struct kv_table *t, const char *key)
{
	for (size_t i = t->n; i-- > 0;)
		if (!strcmp(t->v[i].key, key))
			return t->v[i].value;
	return NULL;
}

/* Read a string (varint length + bytes) as a fresh NUL-terminated copy. */
static int get_str(const uint8_t **p, const uint8_t *end, char **out)
{
	uint64_t n;
	if (emp_varint_get(p, end, &n) || n > (uint64_t)(end - *p))
		return -1;
	char *s = malloc(n + 1);
	if (!s)
		return -1;
	memcpy(s, *p, n);
	s[n] = 0;
	*p += n;
	*out = s;
	return 0;
}

static int parse_kv(const uint8_t *p, const uint8_t *end, struct kv_table *t, int append)
{
	uint64_t n;
	if (!append)
		kv_clear(t);
	if (emp_varint_get(&p, end, &n) || n > (uint64_t)(end - p))
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 16;
			struct kv *v = realloc(t->v, cap * sizeof(*v));
			if (!v)
				return -1;
			t->v = v;
			t->cap = cap;
		}
		struct kv *e = &t->v[t->n];
		if (get_str(&p, end, &e->key))
			return -1;
		if (get_str(&p, end, &e->value)) {
			free(e->key);
			return -1;
		}
		t->n++;
	}
	return p == end ? 0 : -1;
}

static int parse_counters(struct emp_dump_reader *r, const uint8_t *p, const uint8_t *end)
{
	uint64_t n;
	kv_clear(&r->counters_kv);
	free(r->counter_values);
	r->counter_values = NULL;
	if (emp_varint_get(&p, end, &n) || n > (uint64_t)(end - p))
		return -1;
	r->counters_kv.v = calloc(n ? n : 1, sizeof(struct kv));
	r->counter_values = calloc(n ? n : 1, sizeof(uint64_t));
	if (!r->counters_kv.v || !r->counter_values)
		return -1;
	r->counters_kv.cap = n;
	for (uint64_t i = 0; i < n; i++) {
		if (get_str(&p, end, &r->counters_kv.v[i].key))
			return -1;
		r->counters_kv.n++;
		if (emp_varint_get(&p, end, &r->counter_values[i]))
			return -1;
	}
	return p == end ? 0 : -1;
}

static int parse_pauses(struct emp_dump_reader *r, const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		uint64_t kind, start, duration;
		if (emp_varint_get(&p, end, &kind) || emp_varint_get(&p, end, &start) ||
		    emp_varint_get(&p, end, &duration) || kind == 0 || kind > UINT32_MAX)
			return -1;
		if (r->pauses_n == r->pauses_cap) {
			size_t cap = r->pauses_cap ? 2 * r->pauses_cap : 64;
			struct emp_pause *np = realloc(r->pauses, cap * sizeof(*np));
			if (!np)
				return -1;
			r->pauses = np;
			r->pauses_cap = cap;
		}
		r->pauses[r->pauses_n++] = (struct emp_pause){ .kind = (uint32_t)kind, .start = start,
							       .duration = duration };
	}
	return 0;
}

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint32_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *a = realloc(*arr, (size_t)c * elem);
	if (!a)
		return -1;
	memset((char *)a + (size_t)*cap * elem, 0, (size_t)(c - *cap) * elem);
	*arr = a;
	*cap = c;
	return 0;
}

static void free_method(struct emp_dump_method *m)
{
	if (!m)
		return;
	free(m->klass);
	free(m->name);
	free(m->descriptor);
	free(m);
}

static void free_thread(struct emp_dump_thread *t)
{
	if (!t)
		return;
	free(t->name);
	free(t);
}

static int parse_symbols(struct emp_dump_reader *r, const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		uint64_t kind, id, a, flags;
		if (emp_varint_get(&p, end, &kind) || emp_varint_get(&p, end, &id) || emp_varint_get(&p, end, &a) ||
		    emp_varint_get(&p, end, &flags) || flags > UINT32_MAX)
			return -1;
		if (kind == EMP_SYM_METHOD) {
			if (id >= MAX_METHOD_ID || id > (uint64_t)r->methods_limit + MAX_ID_JUMP || a > EMP_FRAME_PSEUDO)
				return -1;
			struct emp_dump_method *m = calloc(1, sizeof(*m));
			if (!m)
				return -1;
			m->id = (uint32_t)id;
			m->kind = (enum emp_frame_kind)a;
			m->flags = (uint32_t)flags;
			if (get_str(&p, end, &m->klass) || get_str(&p, end, &m->name) ||
			    get_str(&p, end, &m->descriptor) ||
			    grow((void **)&r->methods, &r->methods_cap, (uint32_t)id + 1, sizeof(*r->methods))) {
				free_method(m);
				return -1;
			}
			free_method(r->methods[id]); /* a redefinition replaces (last wins) */
			r->methods[id] = m;
			if (id >= r->methods_limit)
				r->methods_limit = (uint32_t)id + 1;
			while (r->methods_dense < r->methods_limit && r->methods[r->methods_dense])
				r->methods_dense++;
		} else if (kind == EMP_SYM_THREAD) {
			if (id >= MAX_THREAD_ID || id > (uint64_t)r->threads_limit + MAX_ID_JUMP)
				return -1;
			struct emp_dump_thread *t = calloc(1, sizeof(*t));
			if (!t)
				return -1;
			t->id = (uint32_t)id;
			t->os_tid = a;
			t->flags = (uint32_t)flags;
			if (get_str(&p, end, &t->name) ||
			    grow((void **)&r->threads, &r->threads_cap, (uint32_t)id + 1, sizeof(*r->threads))) {
				free_thread(t);
				return -1;
			}
			free_thread(r->threads[id]);
			r->threads[id] = t;
			if (id >= r->threads_limit)
				r->threads_limit = (uint32_t)id + 1;
		} else {
			return -1;
		}
	}
	return 0;
}

int emp_dump_reader_open(const char *path, struct emp_dump_reader **out, char *err, size_t errlen)
{
	struct emp_dump_reader *r = calloc(1, sizeof(*r));
	uint8_t h[EMP_DUMP_HEADER_LEN];
	struct stat st;
	*out = NULL;
	if (!r) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	r->path = strdup(path);
	r->frames = malloc(EMP_MAX_FRAMES * sizeof(*r->frames));
	r->slots = calloc(1, sizeof(*r->slots));
	r->nslots = 1;
	r->cur = -1;
	if (!r->path || !r->frames || !r->slots || LZ4F_isError(LZ4F_createDecompressionContext(&r->dctx, LZ4F_VERSION))) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	r->f = fopen(path, "rb");
	if (!r->f) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(fileno(r->f), &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	r->size = (uint64_t)st.st_size;
	size_t n = fread(h, 1, sizeof(h), r->f);
	/* A file cut inside its header is a truncated dump when what is there is a prefix of a valid header. */
	size_t magic_n = n < EMP_DUMP_MAGIC_LEN ? n : EMP_DUMP_MAGIC_LEN;
	if (memcmp(h, EMP_DUMP_MAGIC, magic_n)) {
		snprintf(err, errlen, "%s: not an emp dump (bad magic at byte 0)", path);
		goto fail;
	}
	if (n >= 10 && emp_get_u16le(h + 8) != EMP_DUMP_VERSION_MAJOR) {
		snprintf(err, errlen, "%s: unsupported dump format version %u (this reader knows %u)", path,
			 emp_get_u16le(h + 8), EMP_DUMP_VERSION_MAJOR);
		goto fail;
	}
	r->offset = n;
	if (n < sizeof(h)) {
		set_status(r, EMP_DUMP_TRUNCATED, "%s: truncated at byte %zu inside the %d-byte file header", path, n,
			   EMP_DUMP_HEADER_LEN);
	} else {
		r->minor = emp_get_u16le(h + 10);
		r->good_offset = r->fetch_good = n;
	}
	*out = r;
	return 0;
fail:
	emp_dump_reader_close(r);
	return -1;
}

static void pool_stop(struct emp_dump_reader *r);
static void free_slots(struct emp_dump_reader *r);
static void drop_folded(struct emp_dump_reader *r, void **folded);

void emp_dump_reader_close(struct emp_dump_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	pool_stop(r);
	free_slots(r);
	drop_folded(r, &r->folded);
	LZ4F_freeDecompressionContext(r->dctx);
	free(r->frames);
	kv_clear(&r->meta);
	kv_clear(&r->end);
	kv_clear(&r->counters_kv);
	free(r->counter_values);
	for (uint32_t i = 0; i < r->methods_limit; i++)
		free_method(r->methods[i]);
	free(r->methods);
	for (uint32_t i = 0; i < r->threads_limit; i++)
		free_thread(r->threads[i]);
	free(r->threads);
	free(r->pauses);
	free(r->path);
	free(r);
}

static int ensure(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	uint8_t *b = realloc(*buf, need);
	if (!b)
		return -1;
	*buf = b;
	*cap = need;
	return 0;
}

/* Decompress the chunk's LZ4 frame; it must decode to exactly raw_len bytes and end exactly at the end of the
 * stored payload.  LZ4F_decompress verifies the checksums the frame header announces (xxHash32 of each block, or
 * of the content in dumps written before block checksums). */
static int decompress(LZ4F_dctx *dctx, struct slot *c, const char **why)
{
	LZ4F_resetDecompressionContext(dctx);
	size_t src_pos = 0, dst_pos = 0, stored_len = c->stored_len, raw_len = c->raw_len;
	for (;;) {
		size_t src_n = stored_len - src_pos, dst_n = raw_len - dst_pos;
		size_t hint = LZ4F_decompress(dctx, c->raw + dst_pos, &dst_n, c->stored + src_pos, &src_n, NULL);
		if (LZ4F_isError(hint)) {
			*why = LZ4F_getErrorName(hint);
			return -1;
		}
		src_pos += src_n;
		dst_pos += dst_n;
		if (hint == 0)
			break;
		if (src_n == 0 && dst_n == 0) {
			*why = src_pos == stored_len ? "LZ4 frame incomplete" : "LZ4 frame larger than its raw length";
			return -1;
		}
	}
	if (src_pos != stored_len) {
		*why = "bytes after the LZ4 frame";
		return -1;
	}
	if (dst_pos != raw_len) {
		*why = "raw length does not match the LZ4 frame";
		return -1;
	}
	return 0;
}

__attribute__((format(printf, 3, 4)))
static int fetch_end(struct slot *c, int status, const char *fmt, ...)
{
	c->status = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return 0;
}

/* Free a fold result nobody took (the reader was closed, or the slot is used again). */
static void drop_folded(struct emp_dump_reader *r, void **folded)
{
	if (*folded && r->fold_free)
		r->fold_free(*folded);
	*folded = NULL;
}

/* Fetch the next chunk's header and stored bytes into @c (the reading thread, in file order).  Return: 1, or 0 when
 * the file ends or fails here (c->status and c->msg say how; read_chunk() applies that in turn). */
static int fetch(struct emp_dump_reader *r, struct slot *c)
{
	uint8_t h[EMP_CHUNK_HEADER_LEN];
	uint64_t at = r->offset;

	c->at = at;
	c->why = NULL;
	c->pre_n = 0;
	c->rest = NULL;
	drop_folded(r, &c->folded);
	size_t n = fread(h, 1, sizeof(h), r->f);
	r->offset += n;
	if (n == 0)
		return fetch_end(c, EMP_DUMP_TRUNCATED, "%s: truncated: ends at byte %" PRIu64 " without an END chunk",
				 r->path, at);
	if (n < sizeof(h))
		return fetch_end(c, EMP_DUMP_TRUNCATED,
				 "%s: truncated at byte %" PRIu64 " inside the chunk header at byte %" PRIu64
				 "; read up to byte %" PRIu64, r->path, r->offset, at, r->fetch_good);
	uint32_t magic = emp_get_u32le(h), stored_len = emp_get_u32le(h + 8), raw_len = emp_get_u32le(h + 12);
	c->type = h[4];
	if (magic != EMP_CHUNK_MAGIC)
		return fetch_end(c, EMP_DUMP_CORRUPT, "%s: corrupt: bad chunk magic at byte %" PRIu64, r->path, at);
	if (h[5] || emp_get_u16le(h + 6) || raw_len > EMP_CHUNK_RAW_MAX ||
	    stored_len > (uint64_t)raw_len + raw_len / 128 + 4096)
		return fetch_end(c, EMP_DUMP_CORRUPT, "%s: corrupt: bad chunk header at byte %" PRIu64, r->path, at);
	if (ensure(&c->stored, &c->stored_cap, stored_len ? stored_len : 1) ||
	    ensure(&c->raw, &c->raw_cap, raw_len ? raw_len : 1))
		return fetch_end(c, EMP_DUMP_CORRUPT, "%s: out of memory for the chunk at byte %" PRIu64, r->path, at);
	n = fread(c->stored, 1, stored_len, r->f);
	r->offset += n;
	if (n < stored_len)
		return fetch_end(c, EMP_DUMP_TRUNCATED,
				 "%s: truncated at byte %" PRIu64 " inside the chunk at byte %" PRIu64
				 "; read up to byte %" PRIu64, r->path, r->offset, at, r->fetch_good);
	c->stored_len = stored_len;
	c->raw_len = raw_len;
	c->end = r->offset;
	c->status = EMP_DUMP_READING;
	r->fetch_good = r->offset;
	return 1;
}

/* Decode the ENTER/EXIT/EXIT_THROW events of an EVENTS chunk ahead, up to the first event of another kind or
 * anything malformed (the reader decodes from there itself, with its own checks and messages).  A worker runs
 * this: it touches only @c. */
static void decode_ahead(struct slot *c)
{
	const uint8_t *p = c->raw, *end = c->raw + c->raw_len;
	uint64_t thread, ticks, head, dt;
	if (emp_varint_get(&p, end, &thread) || emp_varint_get(&p, end, &ticks))
		return; /* the reader reports it */
	size_t need = (size_t)(end - p) / 2 + 1; /* an event takes at least 2 bytes */
	if (need > c->pre_cap) {
		struct pre_event *v = realloc(c->pre, need * sizeof(*v));
		if (!v)
			return; /* the reader decodes the chunk itself */
		c->pre = v;
		c->pre_cap = need;
	}
	struct pre_event *e = c->pre;
	const uint8_t *ok = p;
	uint64_t ok_ticks = ticks;
	while (p < end) {
		if (emp_varint_get(&p, end, &head) || emp_varint_get(&p, end, &dt))
			break;
		uint32_t kind = (uint32_t)(head & ((1u << EMP_EV_KIND_BITS) - 1));
		uint64_t rest = head >> EMP_EV_KIND_BITS;
		if (kind == EMP_EV_ENTER ? rest >= MAX_METHOD_ID
					 : (kind != EMP_EV_EXIT && kind != EMP_EV_EXIT_THROW) || rest)
			break;
		ticks += (uint64_t)emp_unzigzag(dt);
		*e++ = (struct pre_event){ .ticks = ticks, .kind = kind, .method = (uint32_t)rest };
		ok = p;
		ok_ticks = ticks;
	}
	c->pre_n = (size_t)(e - c->pre);
	c->rest = ok;
	c->rest_ticks = ok_ticks;
}

/* Decompress @c and make its events ready: fold them (fold mode) or, when @ahead, decode them ahead.  @folder: the
 * fold's state index (a worker's, or the reading thread's).  Runs in a worker or in the reading thread; touches
 * only @c (and the fold's state of @folder). */
static void prepare(struct emp_dump_reader *r, LZ4F_dctx *dctx, struct slot *c, unsigned folder, int ahead)
{
	if (decompress(dctx, c, &c->why) || c->type != EMP_CHUNK_EVENTS)
		return;
	if (r->fold)
		c->folded = r->fold(r->fold_arg, folder, c->raw, c->raw_len);
	else if (ahead)
		decode_ahead(c);
}

/* ---- workers ------------------------------------------------------------------------------------------------
 *
 * The reading thread fetches chunks into a ring of slots in file order and submits them; a worker takes the oldest
 * submitted slot, decompresses it and decodes its events ahead, and marks it done; the reading thread reads the
 * slots in ring order, waiting for the next when a worker is decoding it, decompressing it itself when no worker
 * took it yet.  One mutex guards every slot's state and the queue; a slot's buffers belong to whoever took it
 * (SLOT_TAKEN) until SLOT_DONE and to the reading thread otherwise (the mutex's release on one side and acquire
 * on the other order each hand-over). */
struct worker {
	struct pool *pl;
	unsigned index; /* its fold state (0 .. nthreads - 1; the reading thread's is nthreads) */
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t work;   /* a slot was submitted, or stop */
	pthread_cond_t done;   /* a slot is done */
	pthread_t *threads;
	struct worker *workers;
	unsigned nthreads;
	unsigned next;         /* the slot the next worker takes (ring index) */
	unsigned queued;       /* slots submitted and not taken yet */
	int stop;
	struct emp_dump_reader *r;
};

static void *worker_main(void *arg)
{
	const struct worker *w = arg;
	struct pool *pl = w->pl;
	struct emp_dump_reader *r = pl->r;
	LZ4F_dctx *dctx = NULL;
	int no_dctx = LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION));
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->queued && !pl->stop)
			pthread_cond_wait(&pl->work, &pl->mu);
		if (pl->stop)
			break;
		struct slot *c = &r->slots[pl->next];
		pl->next = (pl->next + 1) % r->nslots;
		pl->queued--;
		c->state = SLOT_TAKEN;
		pthread_mutex_unlock(&pl->mu);
		if (no_dctx)
			c->why = "out of memory for decompression";
		else
			prepare(r, dctx, c, w->index, 1);
		pthread_mutex_lock(&pl->mu);
		c->state = SLOT_DONE;
		pthread_cond_broadcast(&pl->done);
	}
	pthread_mutex_unlock(&pl->mu);
	LZ4F_freeDecompressionContext(dctx);
	return NULL;
}

static void pool_stop(struct emp_dump_reader *r)
{
	struct pool *pl = r->pool;
	if (!pl)
		return;
	pthread_mutex_lock(&pl->mu);
	pl->stop = 1;
	pthread_cond_broadcast(&pl->work);
	pthread_mutex_unlock(&pl->mu);
	for (unsigned i = 0; i < pl->nthreads; i++)
		pthread_join(pl->threads[i], NULL);
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->work);
	pthread_cond_destroy(&pl->done);
	free(pl->threads);
	free(pl->workers);
	free(pl);
	r->pool = NULL;
}

static void free_slots(struct emp_dump_reader *r)
{
	for (unsigned i = 0; i < r->nslots; i++) {
		free(r->slots[i].stored);
		free(r->slots[i].raw);
		free(r->slots[i].pre);
		drop_folded(r, &r->slots[i].folded);
	}
	free(r->slots);
	r->slots = NULL;
	r->nslots = 0;
}

int emp_dump_reader_set_jobs(struct emp_dump_reader *r, unsigned jobs)
{
	if (r->pool || r->cur >= 0 || r->count)
		return -1; /* only before the first chunk */
	if (jobs <= 1)
		return 0;
	unsigned nslots = 4 * jobs + 2; /* enough chunks ahead to keep every worker busy while one is read */
	struct slot *slots = calloc(nslots, sizeof(*slots));
	struct pool *pl = calloc(1, sizeof(*pl));
	pthread_t *th = calloc(jobs, sizeof(*th));
	struct worker *wk = calloc(jobs, sizeof(*wk));
	if (!slots || !pl || !th || !wk) {
		free(slots);
		free(pl);
		free(th);
		free(wk);
		return -1;
	}
	free_slots(r);
	r->slots = slots;
	r->nslots = nslots;
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->work, NULL);
	pthread_cond_init(&pl->done, NULL);
	pl->r = r;
	pl->threads = th;
	pl->workers = wk;
	r->pool = pl;
	for (; pl->nthreads < jobs; pl->nthreads++) {
		wk[pl->nthreads] = (struct worker){ pl, pl->nthreads };
		if (pthread_create(&th[pl->nthreads], NULL, worker_main, &wk[pl->nthreads]))
			break;
	}
	if (!pl->nthreads) {
		pool_stop(r); /* no worker could start: read without */
		return -1;
	}
	return 0;
}

/* Move to the next chunk in file order: free the current one's slot, fetch ahead into the free slots, wait until
 * the next is decoded.  Return: its slot, NULL when nothing was fetched. */
static struct slot *next_slot(struct emp_dump_reader *r)
{
	struct pool *pl = r->pool;
	if (pl)
		pthread_mutex_lock(&pl->mu);
	if (r->cur >= 0)
		r->slots[r->cur].state = SLOT_FREE;
	while (!r->fetch_done && r->count < r->nslots) {
		struct slot *c = &r->slots[(r->head + r->count) % r->nslots];
		/* a free slot: no worker touches it, so the fetch runs unlocked */
		if (pl)
			pthread_mutex_unlock(&pl->mu);
		int ok = fetch(r, c);
		if (!ok || c->type == EMP_CHUNK_END)
			r->fetch_done = 1; /* nothing may follow END: reading it checks the file's size */
		if (ok && !pl)
			prepare(r, r->dctx, c, 0, 0); /* without workers the reader decodes every event itself */
		if (pl)
			pthread_mutex_lock(&pl->mu);
		r->count++;
		if (ok && pl) {
			c->state = SLOT_SUBMITTED;
			pl->queued++;
			pthread_cond_signal(&pl->work);
		} else {
			c->state = SLOT_DONE; /* decoded, or nothing to decode: its status says why */
		}
	}
	struct slot *c = NULL;
	if (r->count) {
		r->cur = (int)r->head;
		r->head = (r->head + 1) % r->nslots;
		r->count--;
		c = &r->slots[r->cur];
		if (pl && c->state == SLOT_SUBMITTED) {
			/* No worker took it yet (they are busy, or not scheduled on a loaded machine): rather than wait,
			 * decompress it here (it is the oldest queued slot, so the next a worker would take) and decode
			 * its events in the reading order. */
			pl->next = (pl->next + 1) % r->nslots;
			pl->queued--;
			c->state = SLOT_TAKEN;
			pthread_mutex_unlock(&pl->mu);
			prepare(r, r->dctx, c, pl->nthreads, 0);
			pthread_mutex_lock(&pl->mu);
			c->state = SLOT_DONE;
		}
		while (pl && c->state == SLOT_TAKEN)
			pthread_cond_wait(&pl->done, &pl->mu);
	}
	if (pl)
		pthread_mutex_unlock(&pl->mu);
	return c;
}

/* Read the next chunk.  Return: 1 when a chunk was read (events cursor set for EVENTS), 0 at the end. */
static int read_chunk(struct emp_dump_reader *r)
{
	if (r->status != EMP_DUMP_READING || r->stopped)
		return 0;
	struct slot *c = next_slot(r);
	if (!c) /* cannot happen: the slot that ended the fetching leaves a status other than READING */
		return 0;
	if (c->status != EMP_DUMP_READING) {
		set_status(r, (enum emp_dump_status)c->status, "%s", c->msg);
		return 0;
	}
	if (c->why) {
		set_status(r, EMP_DUMP_CORRUPT, "%s: corrupt: chunk at byte %" PRIu64 ": %s", r->path, c->at, c->why);
		return 0;
	}
	const uint8_t *p = c->raw, *end = c->raw + c->raw_len;
	const char *why = NULL;
	uint64_t at = c->at;
	unsigned type = c->type;
	int bad = 0;
	r->chunk_offset = at;
	r->cur_type = type;
	drop_folded(r, &r->folded);
	switch ((enum emp_chunk_type)type) {
	case EMP_CHUNK_META:
		bad = parse_kv(p, end, &r->meta, 1);
		r->hz = 0;
		break;
	case EMP_CHUNK_SYMBOLS:
		bad = parse_symbols(r, p, end);
		break;
	case EMP_CHUNK_COUNTERS:
		bad = parse_counters(r, p, end);
		break;
	case EMP_CHUNK_END:
		bad = parse_kv(p, end, &r->end, 0);
		r->hz = 0;
		break;
	case EMP_CHUNK_PAUSES:
		if (r->minor < 1) { /* not a type of minor 0: the type byte was damaged */
			set_status(r, EMP_DUMP_CORRUPT, "%s: corrupt: unknown chunk type %u at byte %" PRIu64, r->path,
				   type, at);
			return 0;
		}
		bad = parse_pauses(r, p, end);
		break;
	case EMP_CHUNK_EVENTS: {
		uint64_t thread, base;
		if (emp_varint_get(&p, end, &thread) || emp_varint_get(&p, end, &base) ||
		    thread >= r->threads_limit || !r->threads[thread]) {
			bad = 1;
			why = "events of an undefined thread";
			break;
		}
		/* the events a worker decoded ahead, then the rest from where it stopped (all of them without
		 * workers) */
		r->pre = c->pre;
		r->pre_end = c->pre ? c->pre + c->pre_n : NULL; /* no arithmetic on NULL (a folding reader's chunk) */
		r->ev_p = c->rest ? c->rest : p;
		r->ev_end = end;
		r->ev_thread = (uint32_t)thread;
		r->ev_ticks = c->rest ? c->rest_ticks : base;
		r->frames_depth = 0;
		r->ev_vthread = 0;
		if (r->fold) { /* nothing to decode here: the fold has the chunk */
			r->pre = r->pre_end = NULL;
			r->ev_p = r->ev_end = NULL;
			r->folded = c->folded;
			c->folded = NULL;
		}
		break;
	}
	default:
		/* A later minor version may add chunk types (checksummed, skipped here); a file of a minor version this
		 * reader knows cannot hold one, so there the type byte itself was damaged. */
		if (r->minor <= EMP_DUMP_VERSION_MINOR) {
			set_status(r, EMP_DUMP_CORRUPT, "%s: corrupt: unknown chunk type %u at byte %" PRIu64, r->path,
				   type, at);
			return 0;
		}
		break;
	}
	if (bad) {
		set_status(r, EMP_DUMP_CORRUPT, "%s: corrupt: %s chunk at byte %" PRIu64 ": %s", r->path,
			   type == EMP_CHUNK_EVENTS ? "EVENTS" : type == EMP_CHUNK_SYMBOLS ? "SYMBOLS"
			   : type == EMP_CHUNK_PAUSES ? "PAUSES" : "key/value",
			   at, why ? why : "malformed payload");
		r->ev_p = r->ev_end = NULL;
		r->pre = r->pre_end = NULL;
		return 0;
	}
	r->good_offset = c->end;
	r->chunk_count[type < 8 ? type : 0]++;
	if (type == EMP_CHUNK_END) {
		if (c->end != r->size)
			set_status(r, EMP_DUMP_CORRUPT, "%s: corrupt: %" PRIu64 " bytes after the END chunk at byte %"
				   PRIu64, r->path, r->size - c->end, at);
		else
			r->status = EMP_DUMP_COMPLETE;
	}
	return 1;
}

/* Decode one event at the events cursor.  Return: 1 ok, -1 malformed (why set). */
static int decode_event(struct emp_dump_reader *r, struct emp_event *ev, const char **why)
{
	const uint8_t *p = r->ev_p, *end = r->ev_end;
	uint64_t head, dt;
	if (emp_varint_get(&p, end, &head) || emp_varint_get(&p, end, &dt)) {
		*why = "event cut short";
		return -1;
	}
	memset(ev, 0, sizeof(*ev));
	ev->kind = (enum emp_event_kind)(head & ((1u << EMP_EV_KIND_BITS) - 1));
	uint64_t rest = head >> EMP_EV_KIND_BITS;
	ev->thread = r->ev_thread;
	r->ev_ticks += (uint64_t)emp_unzigzag(dt);
	ev->ticks = r->ev_ticks;
	switch (ev->kind) {
	case EMP_EV_ENTER:
		if (rest >= r->methods_limit || !r->methods[rest]) {
			*why = "ENTER of an undefined method";
			return -1;
		}
		ev->method = (uint32_t)rest;
		break;
	case EMP_EV_EXIT:
	case EMP_EV_EXIT_THROW:
		if (rest) {
			*why = "bad EXIT event";
			return -1;
		}
		break;
	case EMP_EV_CPU:
		if (r->minor < 2) {
			*why = "unknown event kind";
			return -1;
		}
		if (rest || emp_varint_get(&p, end, &ev->cpu_ns)) {
			*why = "bad CPU event";
			return -1;
		}
		break;
	case EMP_EV_VTHREAD:
		if (r->minor < 3) {
			*why = "unknown event kind";
			return -1;
		}
		if (rest || emp_varint_get(&p, end, &r->ev_vthread)) {
			*why = "bad VTHREAD event";
			return -1;
		}
		break;
	case EMP_EV_SAMPLE: {
		uint64_t shared, n;
		if (rest >= EMP_STATE_COUNT || emp_varint_get(&p, end, &shared) || emp_varint_get(&p, end, &n) ||
		    shared > r->frames_depth || n > EMP_MAX_FRAMES - shared) {
			*why = "bad SAMPLE header";
			return -1;
		}
		for (uint64_t i = 0; i < n; i++) {
			uint64_t id;
			if (emp_varint_get(&p, end, &id) || id >= r->methods_limit || !r->methods[id]) {
				*why = "SAMPLE frame of an undefined method";
				return -1;
			}
			r->frames[shared + i] = (uint32_t)id;
		}
		ev->state = (uint32_t)rest;
		ev->vthread = r->ev_vthread;
		ev->depth = r->frames_depth = (uint32_t)(shared + n);
		ev->frames = r->frames;
		break;
	}
	default:
		*why = "unknown event kind";
		return -1;
	}
	r->ev_p = p;
	r->event_count[ev->kind]++;
	return 1;
}

int emp_dump_reader_next(struct emp_dump_reader *r, struct emp_event *ev)
{
	for (;;) {
		if (r->pre < r->pre_end) {
			/* decoded ahead by a worker; the check that needs the symbols read so far is made here, as
			 * decode_event() makes it */
			const struct pre_event *e = r->pre;
			if (e->kind != EMP_EV_ENTER || (e->method < r->methods_limit && r->methods[e->method])) {
				r->pre++;
				memset(ev, 0, sizeof(*ev));
				ev->kind = (enum emp_event_kind)e->kind;
				ev->thread = r->ev_thread;
				ev->ticks = r->ev_ticks = e->ticks;
				ev->method = e->method;
				r->event_count[e->kind]++;
				return 1;
			}
			r->status = EMP_DUMP_READING;
			set_status(r, EMP_DUMP_CORRUPT, "%s: corrupt: EVENTS chunk at byte %" PRIu64
				   ": ENTER of an undefined method", r->path, r->chunk_offset);
			r->good_offset = r->chunk_offset;
			r->pre = r->pre_end = NULL;
			r->ev_p = r->ev_end = NULL;
			return 0;
		}
		if (r->ev_p && r->ev_p < r->ev_end) {
			const char *why = NULL;
			int rc = decode_event(r, ev, &why);
			if (rc == 1 && ev->kind == EMP_EV_VTHREAD)
				continue; /* folded into the SAMPLE events that follow */
			if (rc == 1)
				return 1;
			/* The chunk passed its checksum, so this is a writer bug or a crafted file: stop here. */
			r->status = EMP_DUMP_READING;
			set_status(r, EMP_DUMP_CORRUPT, "%s: corrupt: EVENTS chunk at byte %" PRIu64 ": %s", r->path,
				   r->chunk_offset, why);
			r->good_offset = r->chunk_offset; /* this chunk was not read completely after all */
			r->ev_p = r->ev_end = NULL;
			return 0;
		}
		r->ev_p = r->ev_end = NULL;
		if (!read_chunk(r))
			return 0;
	}
}

int emp_dump_reader_set_fold(struct emp_dump_reader *r, unsigned jobs, emp_dump_fold_fn fold,
			     void (*fold_free)(void *folded), void *arg)
{
	if (r->pool || r->cur >= 0 || r->count)
		return -1; /* only before the first chunk */
	r->fold = fold;
	r->fold_free = fold_free;
	r->fold_arg = arg;
	if (jobs > 1)
		emp_dump_reader_set_jobs(r, jobs); /* on failure the reading thread folds alone: the same result */
	return r->pool ? (int)r->pool->nthreads + 1 : 1;
}

void emp_dump_reader_stop(struct emp_dump_reader *r)
{
	pool_stop(r);
	r->stopped = 1;
}

int emp_dump_reader_next_folded(struct emp_dump_reader *r, uint32_t *thread, void **folded)
{
	while (read_chunk(r)) {
		if (r->cur_type != EMP_CHUNK_EVENTS)
			continue;
		*thread = r->ev_thread;
		*folded = r->folded;
		r->folded = NULL;
		return 1;
	}
	return 0;
}

void emp_dump_reader_drain(struct emp_dump_reader *r)
{
	struct emp_event ev;
	while (emp_dump_reader_next(r, &ev))
		;
}

enum emp_dump_status emp_dump_reader_status(const struct emp_dump_reader *r) { return r->status; }
const char *emp_dump_reader_error(const struct emp_dump_reader *r) { return r->error; }
const char *emp_dump_reader_path(const struct emp_dump_reader *r) { return r->path; }
uint64_t emp_dump_reader_good_offset(const struct emp_dump_reader *r) { return r->good_offset; }
uint64_t emp_dump_reader_file_size(const struct emp_dump_reader *r) { return r->size; }
unsigned emp_dump_reader_version_minor(const struct emp_dump_reader *r) { return r->minor; }

const struct emp_pause *emp_dump_pauses(const struct emp_dump_reader *r, size_t *n)
{
	*n = r->pauses_n;
	return r->pauses;
}

const char *emp_dump_meta(const struct emp_dump_reader *r, const char *key) { return kv_get(&r->meta, key); }
size_t emp_dump_meta_count(const struct emp_dump_reader *r) { return r->meta.n; }

void emp_dump_meta_at(const struct emp_dump_reader *r, size_t i, const char **key, const char **value)
{
	*key = r->meta.v[i].key;
	*value = r->meta.v[i].value;
}

const char *emp_dump_end_value(const struct emp_dump_reader *r, const char *key) { return kv_get(&r->end, key); }

const struct emp_dump_method *emp_dump_method(const struct emp_dump_reader *r, uint32_t id)
{
	return id < r->methods_limit ? r->methods[id] : NULL;
}

uint32_t emp_dump_method_limit(const struct emp_dump_reader *r) { return r->methods_limit; }
uint32_t emp_dump_methods_defined(const struct emp_dump_reader *r) { return r->methods_dense; }

const struct emp_dump_thread *emp_dump_thread(const struct emp_dump_reader *r, uint32_t id)
{
	return id < r->threads_limit ? r->threads[id] : NULL;
}

uint32_t emp_dump_thread_limit(const struct emp_dump_reader *r) { return r->threads_limit; }
size_t emp_dump_counter_count(const struct emp_dump_reader *r) { return r->counters_kv.n; }

void emp_dump_counter_at(const struct emp_dump_reader *r, size_t i, const char **name, uint64_t *value)
{
	*name = r->counters_kv.v[i].key;
	*value = r->counter_values[i];
}

uint64_t emp_dump_counter(const struct emp_dump_reader *r, const char *name)
{
	for (size_t i = 0; i < r->counters_kv.n; i++)
		if (!strcmp(r->counters_kv.v[i].key, name))
			return r->counter_values[i];
	return 0;
}

uint64_t emp_dump_chunks(const struct emp_dump_reader *r, enum emp_chunk_type type)
{
	return (unsigned)type < 8 ? r->chunk_count[type] : 0;
}

uint64_t emp_dump_events(const struct emp_dump_reader *r, enum emp_event_kind kind)
{
	return (unsigned)kind < 8 ? r->event_count[kind] : 0;
}

static double num(const char *s)
{
	return s ? strtod(s, NULL) : 0;
}

double emp_dump_clock_hz(const struct emp_dump_reader *r)
{
	struct emp_dump_reader *m = (struct emp_dump_reader *)r; /* cache only */
	if (m->hz > 0)
		return m->hz;
	double hz = num(kv_get(&r->meta, "clock_hz"));
	double t0 = num(kv_get(&r->meta, "clock_ref_ticks")), n0 = num(kv_get(&r->meta, "clock_ref_mono_ns"));
	double t1 = num(kv_get(&r->end, "clock_end_ticks")), n1 = num(kv_get(&r->end, "clock_end_mono_ns"));
	/* Over a run of a second or more the two reference points give a better rate than the start-up estimate. */
	if (n1 - n0 >= 1e9 && t1 > t0)
		hz = (t1 - t0) / (n1 - n0) * 1e9;
	if (!(hz > 0))
		hz = 1e9;
	m->hz = hz;
	return hz;
}

double emp_dump_ticks_to_ns(const struct emp_dump_reader *r, double ticks)
{
	return ticks / emp_dump_clock_hz(r) * 1e9;
}
