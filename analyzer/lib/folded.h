/* SPDX-License-Identifier: MIT */
/* folded.h - FlameGraph's folded-stack text format (`root;child;leaf count`), as written by `collapsed` and the
 * `path` column of `tree`.
 *
 * Frames are separated by ';' and the count follows the last space, so a frame name must not contain ';' or a line
 * break (JVM descriptors do contain ';': `(Ljava/lang/String;)V`).  Escaping: ';' becomes ':', every control
 * character (line breaks, tabs) becomes '?', and an empty name becomes "[empty]".  Spaces stay (FlameGraph takes
 * the count after the last one). */
#ifndef EMP_FOLDED_H
#define EMP_FOLDED_H

#include <stdio.h>

/* emp_folded_escape - write @name escaped as above to @out. */
void emp_folded_escape(FILE *out, const char *name);

#endif /* EMP_FOLDED_H */
