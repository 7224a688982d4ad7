/* SPDX-License-Identifier: MIT */
/* filter.h - include/exclude method filters for trace mode (agent options include=, exclude=).
 *
 * A pattern is matched against the binary class name with dots (com.acme.Outer$Inner) and against
 * "class.method"; it selects a method when it matches EITHER string completely.  `*` matches any
 * sequence of characters, including `.` and `$`.  No other wildcards.
 *
 *   pattern                 matches                                        does not match
 *   Foo*                    Foo.run, FooBar.get, Foo$Inner.x, Foo.x.Y.m(*) bar.Foo.run
 *   com.sun.tools.javac.*   com.sun.tools.javac.Main.compile, ...code.Symbol.name   com.sun.tools.javac (no dot)
 *   Bar                     every method of class Bar                      Bar$In.run, a.Bar.run
 *   Bar.run                 Bar.run                                        Bar.runAll, Bar$X.run
 *   *.get*                  a.B.getX, C.get                                a.B.set (and note: also
 *                           every method of a class whose name contains ".get", e.g. a.getters.X)
 *   *.<init>                every constructor
 *   (*) a class Y in a package named Foo.x also matches Foo* — `*` crosses dots by design.
 *
 * Selection: a method is selected when some include pattern matches and no exclude pattern matches.
 * With no include pattern nothing is selected (the agent refuses trace mode without include= before
 * it gets here).  emp's own classes are always excluded: the probe classes emp.Probe and emp.Guard (and their
 * nested classes) and the package emp.agent.* -- but not emp.sut.*, the test workloads.  No other class is
 * ever excluded, JDK classes included: the agent runs no Java code on a traced path, so no class is needed by the
 * probes or the hook in a way that tracing it could break (tracer.c, "What may be traced").
 *
 * Valid pattern characters: Java identifier characters (letters, digits, _, $, any byte >= 0x80),
 * `.`, `*`, and `<`/`>` only in `<init>`/`<clinit>` after the last dot.  An empty pattern, a space,
 * `..`, a leading or trailing `.`, `/`, `;` inside a pattern etc. are errors.
 *
 * Thread safety: emp_filter_add() must not run concurrently with anything else on the same filter;
 * once built, emp_filter_selects()/emp_filter_may_select_class() are read-only and may run from any
 * number of threads.  Matching allocates nothing.
 */
#ifndef EMP_FILTER_H
#define EMP_FILTER_H

#include <stdbool.h>
#include <stddef.h>

struct emp_filter;

/** emp_filter_new - an empty filter (selects nothing); NULL on OOM. */
struct emp_filter *emp_filter_new(void);
/** emp_filter_free - release @f; NULL is a no-op. */
void emp_filter_free(struct emp_filter *f);

/**
 * emp_filter_add - add the patterns of one option value.
 * @kind: "include" or "exclude".
 * @value: one or more patterns separated by `;` (e.g. "com.acme.*;org.x.Y.run").
 * @err, @errlen: on failure, a one-line message naming the offending pattern (may be NULL/0).
 * Return: 0, -EINVAL (bad kind or pattern; nothing from @value was added) or -ENOMEM.
 */
int emp_filter_add(struct emp_filter *f, const char *kind, const char *value, char *err, size_t errlen);

/** emp_filter_include_count - number of include patterns. */
size_t emp_filter_include_count(const struct emp_filter *f);

/**
 * emp_filter_is_emp_class - is @klass emp's own code (emp/Probe, emp/Guard, their nested classes, emp/agent/), which no
 * pattern and no iteration= may select: a probe inside the probe would recurse.  Internal or binary form.
 */
bool emp_filter_is_emp_class(const char *klass);

/**
 * emp_filter_selects - is method @method of class @klass selected?
 * @klass: class name in internal form (a/b/C$D) or binary form (a.b.C$D); both are accepted.
 */
bool emp_filter_selects(const struct emp_filter *f, const char *klass, const char *method);

/**
 * emp_filter_may_select_class - false when no method of @klass can be selected, so the class need
 * not be parsed at all (a cheap pre-check for the ClassFileLoadHook).  May return true for a class
 * none of whose methods end up selected.
 */
bool emp_filter_may_select_class(const struct emp_filter *f, const char *klass);

#endif /* EMP_FILTER_H */
