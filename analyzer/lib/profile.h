/* SPDX-License-Identifier: MIT */
/* profile.h - the part every profile view shares (top, tree, collapsed, flame): read dumps into one
 * calling-context tree over one symbol table, with thread and frame filters, and describe how each dump was
 * recorded (engine, asked and achieved rate, losses and sampler failures by reason).
 *
 * Samples go into the tree root first; trace events (ENTER/EXIT/EXIT_THROW) are folded into the same tree as
 * calls, total_ns and self_ns (trace.h), or, for a view that wants only the flat profile, into p->flat with no tree
 * (flat.h).  With several dumps the trees of all of them add up (frames merged by name through the symbol table).
 * --threads applies to both; --include/--exclude to samples only. */
#ifndef EMP_PROFILE_H
#define EMP_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "cct.h"
#include "flat.h"
#include "input.h"
#include "notes.h"
#include "symtab.h"

struct emp_dump_reader;

struct emp_profile_opts {
	const char *threads;   /* comma-separated thread name globs or OS thread ids; NULL: every thread */
	const char *include;   /* comma-separated frame name globs: keep a sample with any frame matching */
	const char *exclude;   /* comma-separated frame name globs: drop a sample with any frame matching */
	int with_desc;         /* match and print Java names with their descriptor */
	int max_contexts_given;
	uint32_t max_contexts; /* --max-contexts (when given; else EMP_PROFILE_MAX_CONTEXTS), 0: no limit */
	int flat_traces;       /* traced calls into p->flat, not the tree (top) */
};

/* The calling contexts a view keeps by default (emp_cct_limit): ~140 bytes each (node and hash slots), so the
 * tree stays near 150 MB however many contexts a trace has; far above what a sampled profile or most traces make
 * (H2 traced wholesale: 60,000), far below javac's recursive descent traced wholesale (over 10^8). */
#define EMP_PROFILE_MAX_CONTEXTS 1000000u
/* The pseudo frame that stands for the contexts past the limit. */
#define EMP_PROFILE_MORE_CONTEXTS "[more contexts]"

struct emp_profile {
	struct emp_symtab *st;
	struct emp_cct *cct;
	struct emp_flat flat;     /* the traced calls' flat profile (opts flat_traces) */
	uint32_t more_gid;        /* EMP_PROFILE_MORE_CONTEXTS's symbol */
	uint64_t samples;         /* samples in the tree */
	uint64_t filtered;        /* samples dropped by the thread or frame filters */
	uint64_t trace_events;    /* ENTER/EXIT/EXIT_THROW events folded in */
	uint64_t interval_ns;     /* of the first dump that has one */
	char engine[64];          /* sample_engine of the first dump that has one */
	struct emp_notes notes;   /* how each dump was recorded, what it lost (emp_profile_describe) */
};

/* Long options of the filters, to append to a command's option table; emp_profile_opt() handles them. */
enum { EMP_OPT_THREADS = 1100, EMP_OPT_INCLUDE, EMP_OPT_EXCLUDE, EMP_OPT_SIGNATURES, EMP_OPT_MAX_CONTEXTS };
#define EMP_PROFILE_OPTS                                                                                       \
	{ "threads", required_argument, NULL, EMP_OPT_THREADS },                                               \
	{ "include", required_argument, NULL, EMP_OPT_INCLUDE },                                               \
	{ "exclude", required_argument, NULL, EMP_OPT_EXCLUDE },                                               \
	{ "signatures", no_argument, NULL, EMP_OPT_SIGNATURES },                                               \
	{ "max-contexts", required_argument, NULL, EMP_OPT_MAX_CONTEXTS }
#define EMP_PROFILE_USAGE                                                                                      \
	"  --threads=LIST    only these threads: comma-separated name globs or OS thread ids; a sample a carrier\n"  \
	"                    took while it ran a virtual thread also matches `virtual #N` (N its Thread.threadId())\n" \
	"  --include=GLOBS   only samples with a frame matching one of the comma-separated globs\n"              \
	"  --exclude=GLOBS   drop samples with a frame matching one of the globs\n"                               \
	"  --signatures      Java methods with their descriptor: pkg.Class.method(I)V (default: overloads only)\n"  \
	"  --max-contexts=N  keep at most N calling contexts (default 1000000, about 140 MB; top: 0 = no limit,\n"  \
	"                    so that every method keeps its own figures; top on a trace makes no tree); as the\n"  \
	"                    tree fills, the calls and samples of its lightest contexts go to a\n"                  \
	"                    \"[more contexts]\" frame under their deepest kept caller, and a note says how\n"      \
	"                    much of the total they hold\n"

/* emp_profile_opt - handle @opt when it is one of EMP_PROFILE_OPTS.  Return: 1 when handled, -1 when its value
 * @arg is not valid (--max-contexts: a count up to 2^31), 0 when it is not one of them. */
int emp_profile_opt(struct emp_profile_opts *po, int opt, const char *arg);
/* emp_profile_parse_max_contexts - @arg as --max-contexts' value (a count up to 2^31; 0: no limit) into @max.
 * Return: 0, or -1 when it is not one. */
int emp_profile_parse_max_contexts(const char *arg, uint32_t *max);

/* emp_profile_load - read @files (@n of them) into @p.  Unreadable files are reported through @in (exit status)
 * and skipped; for every dump a description of its recording is added to
 * p->notes (for the report, output.h emp_report_notes). */
void emp_profile_load(struct emp_profile *p, const struct emp_profile_opts *po, struct emp_input *in, char **files,
		      int n);
void emp_profile_free(struct emp_profile *p);

/* emp_profile_weight - what the views weigh frames by: samples, or traced time (EMP_CCT_NS) when the profile holds
 * traced calls and no sample (trace dumps; a sample dump's iteration markers do not turn it into one); in p->flat
 * when the options said flat_traces. */
enum emp_cct_weight emp_profile_weight(const struct emp_profile *p);

/* Display name of @gid in the profile's naming (with or without descriptor). */
const char *emp_profile_name(const struct emp_profile *p, const struct emp_profile_opts *po, uint32_t gid);

/* emp_profile_describe - the notes emp_profile_load() adds for one dump: engine, interval, samples, achieved
 * rate against the rate asked, and every non-zero loss or failure counter. */
void emp_profile_describe(struct emp_dump_reader *r, uint64_t samples, struct emp_notes *notes);

#endif /* EMP_PROFILE_H */
