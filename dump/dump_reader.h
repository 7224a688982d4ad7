/* SPDX-License-Identifier: MIT */
/* dump_reader.h - streaming decoder of the emp dump format v1 (doc/dump-format.md).
 *
 * The reader pulls one event at a time, so memory stays bounded by the symbol tables and one chunk, never by the
 * length of the trace.  META, SYMBOLS, COUNTERS and END chunks are absorbed as they pass and can be queried at any
 * time.  A file cut short is read up to its last complete chunk (status TRUNCATED); a chunk that fails its checks
 * stops the reading (status CORRUPT).  Either way emp_dump_reader_error() names the byte offset.  A reader is used
 * by one thread; emp_dump_reader_set_jobs() gives it workers of its own. */
#ifndef EMP_DUMP_READER_H
#define EMP_DUMP_READER_H

#include <stddef.h>
#include <stdint.h>

#include "dump.h"

struct emp_dump_reader;

struct emp_dump_method {
	uint32_t id;
	enum emp_frame_kind kind;
	uint32_t flags;
	char *klass;      /* binary name with dots (Java), library (native), "" (pseudo) */
	char *name;
	char *descriptor;
};

struct emp_dump_thread {
	uint32_t id;
	uint64_t os_tid;
	uint32_t flags;
	char *name;
};

enum emp_dump_status {
	EMP_DUMP_READING   = 0, /* not at the end yet */
	EMP_DUMP_COMPLETE  = 1, /* END chunk read */
	EMP_DUMP_TRUNCATED = 2, /* the file ends before an END chunk (e.g. the JVM was killed) */
	EMP_DUMP_CORRUPT   = 3, /* a chunk failed its checks; nothing after it is read */
};

/* emp_dump_reader_open - open @path and check its header.
 * Return: 0 and *out, or -1 with a one-line message in @err (file cannot be read, not an emp dump, unsupported
 * version, or cut short inside the header). */
int emp_dump_reader_open(const char *path, struct emp_dump_reader **out, char *err, size_t errlen);
void emp_dump_reader_close(struct emp_dump_reader *r);

/* emp_dump_reader_set_jobs - decompress and decode the chunks ahead in @jobs worker threads (pthreads), while the
 * caller reads the events; 0 or 1: in the calling thread only (the default).  The events, symbols, counters,
 * statuses and messages are exactly those of a reader without workers: the workers only decompress chunks and
 * decode their trace events ahead; every chunk is still applied to the reader's state in file order, in the
 * calling thread, so memory stays bounded (4 * @jobs + 2 chunks in flight).  Call before the first
 * emp_dump_reader_next().  Return: 0, or -1 (called too late, out of memory, no thread could start: the reader
 * then reads without workers). */
int emp_dump_reader_set_jobs(struct emp_dump_reader *r, unsigned jobs);

/* Fold mode: a consumer that can summarize an EVENTS chunk by itself (its events are independent of the other
 * chunks' but for the thread's state at its start) has the workers do that instead of handing out events.
 * emp_dump_fold_fn gets the chunk's decompressed payload (thread and base varints, then the events, unchecked:
 * the function must check every byte it reads) and returns its summary, or NULL; it runs in a worker, or in the
 * reading thread, and @folder says whose state to use: 0 .. folders - 1, never the same at once.
 *
 * emp_dump_reader_set_fold - fold EVENTS chunks with @fold(@arg, ...) in @jobs workers (0 or 1: the reading thread
 * alone), free a summary nobody took with @fold_free.  Call before the first chunk, and make @arg ready before
 * the first emp_dump_reader_next_folded(); then read only with that.  Return: the number of folders (workers + the
 * reading thread), -1 when called too late. */
typedef void *(*emp_dump_fold_fn)(void *arg, unsigned folder, const uint8_t *payload, size_t len);
int emp_dump_reader_set_fold(struct emp_dump_reader *r, unsigned jobs, emp_dump_fold_fn fold,
			     void (*fold_free)(void *folded), void *arg);
/* emp_dump_reader_next_folded - the next EVENTS chunk in file order: its thread (checked to be defined) and its
 * summary (NULL when the fold returned NULL: the caller's to free); every other chunk is applied to the reader's
 * state on the way, as emp_dump_reader_next() does.  Return: 1, or 0 at the end of what can be read (then see
 * emp_dump_reader_status()). */
int emp_dump_reader_next_folded(struct emp_dump_reader *r, uint32_t *thread, void **folded);

/* emp_dump_reader_stop - stop the workers (no fold function runs once it returns) and read nothing more; what was
 * read stays queryable. */
void emp_dump_reader_stop(struct emp_dump_reader *r);

/* emp_dump_reader_next - the next event.  Return: 1 with *ev filled, or 0 at the end of what can be read (then see
 * emp_dump_reader_status()).  ev->frames stays valid until the next call. */
int emp_dump_reader_next(struct emp_dump_reader *r, struct emp_event *ev);

/* emp_dump_reader_skip_events - read to the end without decoding event payloads (headers, symbols, counters). */
void emp_dump_reader_drain(struct emp_dump_reader *r);

enum emp_dump_status emp_dump_reader_status(const struct emp_dump_reader *r);
/* One-line description of a TRUNCATED or CORRUPT status naming the byte offset; "" otherwise. */
const char *emp_dump_reader_error(const struct emp_dump_reader *r);
const char *emp_dump_reader_path(const struct emp_dump_reader *r);
/* Offset just past the last chunk read completely; file size. */
uint64_t emp_dump_reader_good_offset(const struct emp_dump_reader *r);
uint64_t emp_dump_reader_file_size(const struct emp_dump_reader *r);
unsigned emp_dump_reader_version_minor(const struct emp_dump_reader *r);

/* META and END key/value pairs; NULL when absent. */
const char *emp_dump_meta(const struct emp_dump_reader *r, const char *key);
size_t emp_dump_meta_count(const struct emp_dump_reader *r);
void emp_dump_meta_at(const struct emp_dump_reader *r, size_t i, const char **key, const char **value);
const char *emp_dump_end_value(const struct emp_dump_reader *r, const char *key);

/* Symbols read so far.  Ids index the tables; a NULL entry was never defined. */
const struct emp_dump_method *emp_dump_method(const struct emp_dump_reader *r, uint32_t id);
uint32_t emp_dump_method_limit(const struct emp_dump_reader *r); /* largest id + 1 */
/* emp_dump_methods_defined - n such that methods 0 .. n - 1 are all defined so far (a fold checks its ENTER
 * events' ids against it, in file order). */
uint32_t emp_dump_methods_defined(const struct emp_dump_reader *r);
const struct emp_dump_thread *emp_dump_thread(const struct emp_dump_reader *r, uint32_t id);
uint32_t emp_dump_thread_limit(const struct emp_dump_reader *r);

/* Counters of the last COUNTERS chunk read. */
size_t emp_dump_counter_count(const struct emp_dump_reader *r);
void emp_dump_counter_at(const struct emp_dump_reader *r, size_t i, const char **name, uint64_t *value);
/* Value of counter @name, 0 when absent. */
uint64_t emp_dump_counter(const struct emp_dump_reader *r, const char *name);

/* Pauses (PAUSES chunks) read so far, in file order; *n set to their number.  Valid until the next call into the
 * reader.  A dump of minor version 0 has none. */
const struct emp_pause *emp_dump_pauses(const struct emp_dump_reader *r, size_t *n);

/* Chunks and events read so far, by type/kind. */
uint64_t emp_dump_chunks(const struct emp_dump_reader *r, enum emp_chunk_type type);
uint64_t emp_dump_events(const struct emp_dump_reader *r, enum emp_event_kind kind);

/* emp_dump_ticks_to_ns - convert a tick difference to nanoseconds with the dump's clock calibration (the rate
 * measured between the META and END reference points when END is present, else the META rate). */
double emp_dump_ticks_to_ns(const struct emp_dump_reader *r, double ticks);
/* Ticks per second used by emp_dump_ticks_to_ns(). */
double emp_dump_clock_hz(const struct emp_dump_reader *r);

#endif /* EMP_DUMP_READER_H */
