/* SPDX-License-Identifier: MIT */
/* symbols.h - method symbols on their way from whoever names them to the dump.
 *
 * Method ids are dense, from 0, one id space for everything a stack or trace can name (Java methods traced or
 * sampled, native frames, pseudo-frames).  Any thread may add a symbol: the rewriter at class load, the sampler's
 * resolution in the writer thread.  Symbols travel to the writer through a wait-free queue; the writer drains the
 * queue after draining the rings, so a record is never written before the symbol it uses (an id handed out before
 * a record was committed is in the queue before the writer reads that record). */
#ifndef EMP_SYMBOLS_H
#define EMP_SYMBOLS_H

#include <stdint.h>

#include "dump.h"

struct emp_dump_writer;

void emp_symbols_setup(void);

/* emp_symbols_add_method - allocate an id for a method and queue its symbol.  Strings are copied; @klass is the
 * binary name with dots or slashes (slashes are turned into dots).  Return: the id, or -1 when out of memory.
 * Thread-safe; not signal-safe. */
int64_t emp_symbols_add_method(enum emp_frame_kind kind, uint32_t flags, const char *klass, const char *name,
			       const char *descriptor);

/* emp_symbols_drain - writer thread: move the queued symbols into @w's pending SYMBOLS chunk.  Return: 0 or a
 * negative errno. */
int emp_symbols_drain(struct emp_dump_writer *w);

#endif /* EMP_SYMBOLS_H */
