/* SPDX-License-Identifier: MIT */
/* folded.h - FlameGraph's folded-stack text format (`root;child;leaf count`), as written by `collapsed`, the
 * `path` column of `tree` and the node names of `compare` and `exactness`.
 *
 * Frames are separated by ';' and the count follows the last space, so a frame name must not contain ';' or a line
 * break (JVM descriptors do contain ';': `(Ljava/lang/String;)V`).  Escaping: ';' becomes ':', every control
 * character (line breaks, tabs) becomes '?', and an empty name becomes "[empty]".  Spaces stay (FlameGraph takes
 * the count after the last one). */
#ifndef EMP_FOLDED_H
#define EMP_FOLDED_H

#include <stddef.h>
#include <stdint.h>

struct emp_cct_node;
struct emp_symtab;

/* The escaped names of a symbol table's frames, each escaped at its first use: a tree's paths name the same
 * frames over and over (a 10^8-event trace: 398,423 paths, 284 MB). */
struct emp_folded_names;

/* emp_folded_names_new - names from @st, with their descriptors when @with_desc. */
struct emp_folded_names *emp_folded_names_new(const struct emp_symtab *st, int with_desc);
void emp_folded_names_free(struct emp_folded_names *f);

/**
 * emp_folded_path - the calling context of @n (root first) as one folded line without the count: its outermost
 * @max frames, escaped and joined by ';'.
 * Return: the line, '\0'-terminated, valid until the next call on @f; its length in *@len.
 */
const char *emp_folded_path(struct emp_folded_names *f, const struct emp_cct_node *n, uint32_t max, size_t *len);

#endif /* EMP_FOLDED_H */
