/* SPDX-License-Identifier: MIT */
/* tsan.h - happens-before edges ThreadSanitizer cannot see by itself (`make tsan`); nothing in other builds.
 *
 * liburcu's wait-free queue (thread.c, symbols.c) orders with inline-assembly xchg and volatile accesses, which
 * TSAN does not model as atomics: it would report every state handed to the writer as racing with its own
 * initialization.  EMP_TSAN_RELEASE(p) before an enqueue and EMP_TSAN_ACQUIRE(p) after the dequeue of the same
 * object tell TSAN what the queue's full barriers guarantee (liburcu wfcqueue.h: "implicit memory barrier before
 * uatomic_xchg() orders earlier stores").  The queue's own internal accesses are suppressed in
 * tests/tsan/suppressions.txt, and only those. */
#ifndef EMP_TSAN_H
#define EMP_TSAN_H

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define EMP_TSAN_RELEASE(p) __tsan_release((void *)(p))
#define EMP_TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#else
#define EMP_TSAN_RELEASE(p) ((void)(p))
#define EMP_TSAN_ACQUIRE(p) ((void)(p))
#endif

#endif /* EMP_TSAN_H */
