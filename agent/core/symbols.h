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

/* emp_symbols_intern_method - the id emp_symbols_intern_method gave before to the same kind, flags, class (dots
 * or slashes alike), name and descriptor, or a new id from emp_symbols_add_method.  *@fresh is 1 for a new id, 0
 * for an old one.  For the rewriter: a class it sees again (retransformed by anyone, since the hook of a
 * retransformation-capable agent gets the original bytes each time; or a class of the same name from another
 * loader) keeps its methods' ids, so traces before and after stay one method.  Return: the id, or -1 when out of
 * memory.  Thread-safe (a mutex; class loading is not a hot path); not signal-safe. */
int64_t emp_symbols_intern_method(enum emp_frame_kind kind, uint32_t flags, const char *klass, const char *name,
				  const char *descriptor, int *fresh);

/* emp_symbols_drain - writer thread: move the queued symbols into @w's pending SYMBOLS chunk.  Return: 0 or a
 * negative errno. */
int emp_symbols_drain(struct emp_dump_writer *w);

#endif /* EMP_SYMBOLS_H */
