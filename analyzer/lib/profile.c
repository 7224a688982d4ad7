/* SPDX-License-Identifier: MIT */
/* profile.c - dumps into one calling-context tree for the profile views; see profile.h. */
#include "profile.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deinstr.h"
#include "dump_reader.h"
#include "trace.h"
#include "trace_fold.h"
#include "util.h"

int emp_profile_parse_max_contexts(const char *arg, uint32_t *max)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || v > (1ull << 31))
		return -1;
	*max = (uint32_t)v;
	return 0;
}

int emp_profile_opt(struct emp_profile_opts *po, int opt, const char *arg)
{
	switch (opt) {
	case EMP_OPT_THREADS:
		po->threads = arg;
		return 1;
	case EMP_OPT_INCLUDE:
		po->include = arg;
		return 1;
	case EMP_OPT_EXCLUDE:
		po->exclude = arg;
		return 1;
	case EMP_OPT_SIGNATURES:
		po->with_desc = 1;
		return 1;
	case EMP_OPT_MAX_CONTEXTS:
		if (emp_profile_parse_max_contexts(arg, &po->max_contexts))
			return -1;
		po->max_contexts_given = 1;
		return 1;
	default:
		return 0;
	}
}

const char *emp_profile_name(const struct emp_profile *p, const struct emp_profile_opts *po, uint32_t gid)
{
	return emp_symtab_name(p->st, gid, po->with_desc);
}

enum emp_cct_weight emp_profile_weight(const struct emp_profile *p)
{
	return !p->samples && (emp_cct_root(p->cct)->total_ns || p->flat.all) ? EMP_CCT_NS : EMP_CCT_SAMPLES;
}

/* Does @s match one of the comma-separated globs of @list? */
static int match_list(const char *list, const char *s)
{
	char pat[1024];
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n && n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = 0;
			if (!fnmatch(pat, s, 0))
				return 1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

/* A sample a carrier took while it ran a virtual thread is that virtual thread's too: `virtual #N` (the name trace
 * mode gives a virtual thread without one, N = Thread.threadId()). */
static int vthread_wanted(const char *list, const struct emp_event *ev)
{
	char name[40];
	if (ev->kind != EMP_EV_SAMPLE || !ev->vthread)
		return 0;
	snprintf(name, sizeof(name), "virtual #%" PRIu64, ev->vthread);
	return match_list(list, name);
}

static int thread_wanted(const char *list, const struct emp_dump_thread *th)
{
	char tid[24];
	if (!th)
		return match_list(list, "");
	snprintf(tid, sizeof(tid), "%" PRIu64, th->os_tid);
	return match_list(list, th->name) || match_list(list, tid);
}

/* Per-gid cache of a frame filter's verdict: 0 unknown, 1 no match, 2 match. */
struct verdicts {
	unsigned char *v;
	uint32_t cap;
};

static int frame_matches(struct verdicts *vc, const struct emp_profile *p, const struct emp_profile_opts *po,
			 const char *list, uint32_t gid)
{
	vc->v = emp_xgrow(vc->v, &vc->cap, gid + 1, 1);
	if (!vc->v[gid])
		vc->v[gid] = match_list(list, emp_profile_name(p, po, gid)) ? 2 : 1;
	return vc->v[gid] == 2;
}

static void percent(char *buf, size_t len, uint64_t part, uint64_t whole)
{
	if (whole)
		snprintf(buf, len, " (%.2f %%)", 100.0 * (double)part / (double)whole);
	else
		snprintf(buf, len, "%s", "");
}

/* Counters that describe the sampling itself rather than a loss or failure. */
static int informational(const char *name)
{
	static const char *const info[] = { "samples", "sample_signals", "sample_thread_time_ns", "agct_ok",
					    "sample_threads_armed", "sample_vm_threads_armed", "sample_vm_samples",
					    "sample_vm_thread_time_ns", "sample_vm_takeovers" };
	for (size_t i = 0; i < sizeof(info) / sizeof(info[0]); i++)
		if (!strcmp(name, info[i]))
			return 1;
	return 0;
}

void emp_profile_describe(struct emp_dump_reader *r, uint64_t samples, struct emp_notes *notes)
{
	const char *path = emp_dump_reader_path(r);
	const char *mode = emp_dump_meta(r, "mode");
	const char *engine = emp_dump_meta(r, "sample_engine");
	const char *sig = emp_dump_meta(r, "sample_signal");
	const char *clock = emp_dump_meta(r, "sample_clock");
	const char *iv = emp_dump_meta(r, "interval_ns");
	uint64_t interval = iv ? strtoull(iv, NULL, 10) : 0;
	uint64_t signals = emp_dump_counter(r, "sample_signals");
	uint64_t time_ns = emp_dump_counter(r, "sample_thread_time_ns");

	if (!mode || strcmp(mode, "sample")) {
		emp_notes_add(notes, "%s: mode=%s, %" PRIu64 " samples", path, mode ? mode : "?", samples);
	} else {
		emp_notes_add(notes, "%s: mode=sample, clock=%s, engine=%s%s%s%s, interval %.3f ms", path,
				clock && *clock ? clock : "?", engine ? engine : "unknown", sig ? " (" : "",
				sig ? sig : "", sig ? ")" : "", (double)interval / 1e6);
		if (time_ns && interval) {
			double secs = (double)time_ns / 1e9, expected = (double)time_ns / (double)interval;
			emp_notes_add(notes,
					"%s: %" PRIu64 " samples (%" PRIu64 " timer signals) over %.3f s of sampled "
					"thread %s time: %.1f/s achieved, %.1f %% of the %.0f expected",
					path, samples, signals, secs, clock && !strcmp(clock, "wall") ? "wall" : "CPU",
					(double)signals / secs, 100.0 * (double)signals / expected, expected);
		} else {
			emp_notes_add(notes, "%s: %" PRIu64 " samples; the dump does not say how much thread time was "
					     "sampled, so the achieved rate is unknown",
					path, samples);
		}
		/* threads=all: how much of it was the JVM's own threads (included in the figures above) */
		const char *threads = emp_dump_meta(r, "sample_threads");
		uint64_t vm_armed = emp_dump_counter(r, "sample_vm_threads_armed");
		if (threads && !strcmp(threads, "all"))
			emp_notes_add(notes,
					"%s: threads=all: %" PRIu64 " of the samples on %" PRIu64 " JVM threads (JIT "
					"compiler, GC, VM; native frames under a [category] root), %.3f s of their CPU time",
					path, emp_dump_counter(r, "sample_vm_samples"), vm_armed,
					(double)emp_dump_counter(r, "sample_vm_thread_time_ns") / 1e9);
		else if (threads)
			emp_notes_add(notes, "%s: threads=java: the JVM's own threads (JIT compiler, GC, VM) were not "
					     "sampled", path);
	}
	char line[4096], pct[32];
	size_t len = 0;
	uint64_t after_end = 0;
	uint64_t base = signals ? signals : samples;
	for (size_t i = 0; i < emp_dump_counter_count(r); i++) {
		const char *name;
		uint64_t value;
		emp_dump_counter_at(r, i, &name, &value);
		if (!value || informational(name) ||
		    (strncmp(name, "lost_", 5) && strncmp(name, "agct_", 5) && strncmp(name, "sample_", 7)))
			continue;
		if (!strcmp(name, "lost_after_shutdown")) { /* outside the recording, not a loss of it: said apart */
			after_end = value;
			continue;
		}
		percent(pct, sizeof(pct), value, !strncmp(name, "sample_", 7) ? 0 : base);
		int w = snprintf(line + len, sizeof(line) - len, "%s %s=%" PRIu64 "%s", len ? "," : "", name, value,
				 pct);
		if (w < 0 || (size_t)w >= sizeof(line) - len)
			break;
		len += (size_t)w;
	}
	emp_notes_add(notes, "%s: losses and sampler outcomes:%s", path, len ? line : " none");
	if (after_end)
		emp_notes_add(notes,
				"%s: %" PRIu64 " records came after the recording ended (duration=, emp-attach stop or the "
				"JVM's end; counter lost_after_shutdown): outside it, not lost from it", path, after_end);
}

/* What a dump's --threads verdicts need: per dump thread id 0 unknown, 1 no, 2 yes (first asked in file order,
 * as the events ask). */
struct thread_filter {
	const char *list;
	struct emp_dump_reader *r;
	signed char *want;
	uint32_t cap;
};

static int thread_is_wanted(struct thread_filter *tf, uint32_t thread)
{
	tf->want = emp_xgrow(tf->want, &tf->cap, thread + 1, 1);
	if (!tf->want[thread])
		tf->want[thread] = thread_wanted(tf->list, emp_dump_thread(tf->r, thread)) ? 2 : 1;
	return tf->want[thread] == 2;
}

static int skip_thread(void *arg, uint32_t thread)
{
	return !thread_is_wanted(arg, thread);
}

/* The traced calls of dump @r (and its notes), as trace.h gives them; @traced: its traced time. */
static void traced_notes(struct emp_profile *p, struct emp_dump_reader *r, const char *file,
			 struct emp_symtab_map *map, const struct emp_trace_stats *ts, uint64_t last_ticks,
			 uint64_t traced)
{
	emp_notes_add(&p->notes, "%s: %" PRIu64 " traced calls folded in (%" PRIu64 " still open at the end%s, %" PRIu64
			     " exits without entry)",
		      file, ts->calls, ts->unclosed, ts->unclosed ? ", counted as ending with the recording" : "",
		      ts->exit_without_entry);
	emp_deinstr_apply(r, file, p->st, map, last_ticks, traced, &p->notes);
}

/* What every dump adds to the profile once read: its status, the sampling figures, its notes. */
static void dump_done(struct emp_profile *p, struct emp_input *in, struct emp_dump_reader *r, uint64_t samples)
{
	emp_input_done(in, r);
	p->samples += samples;
	const char *iv = emp_dump_meta(r, "interval_ns");
	if (!p->interval_ns && iv)
		p->interval_ns = strtoull(iv, NULL, 10);
	const char *engine = emp_dump_meta(r, "sample_engine");
	if (!*p->engine && engine)
		snprintf(p->engine, sizeof(p->engine), "%s", engine);
	emp_profile_describe(r, samples, &p->notes);
}

/* --max-contexts, or the default when not given. */
static uint32_t max_contexts(const struct emp_profile_opts *po)
{
	return po->max_contexts_given ? po->max_contexts : EMP_PROFILE_MAX_CONTEXTS;
}

/* A tree for the profile or one of its dumps, limited as --max-contexts says. */
static struct emp_cct *new_tree(const struct emp_profile *p, const struct emp_profile_opts *po)
{
	struct emp_cct *c = emp_cct_new();
	uint32_t max = max_contexts(po);
	if (max)
		emp_cct_limit(c, max, p->more_gid);
	return c;
}

/* Prune @c when it is due (cct.h), no call being open in it. */
static void prune_unpinned(struct emp_cct *c)
{
	if (emp_cct_prune_due(c))
		free(emp_cct_prune(c, NULL));
}

/* Load trace dump @file with trace_fold.h (every chunk on its own core) at clock rate @hz.  Return: 1 done (or
 * reported unreadable), 0 when it needs trace.h's reading (nothing was added). */
static int load_folded(struct emp_profile *p, const struct emp_profile_opts *po, struct emp_input *in,
		       const char *file, double hz)
{
	struct emp_dump_reader *r = emp_input_reader(in, file);
	if (!r)
		return 1;
	struct emp_symtab_map *map = emp_symtab_map_new(p->st, r);
	/* Into the profile's tree while it is empty (one tree in memory, not two), else into this dump's own, added to
	 * the profile's once all of it folded: a fold that gives up must leave the profile's tree as it was.  The flat
	 * figures: no tree, added once all of it folded. */
	const struct emp_cct_node *top = emp_cct_root(p->cct);
	int direct = !po->flat_traces && emp_cct_size(p->cct) == 1 && !top->total_samples && !top->total_ns;
	struct emp_cct *cct = po->flat_traces ? NULL : direct ? p->cct : new_tree(p, po);
	struct emp_trace_fold *f =
		emp_trace_fold_new(r, emp_input_jobs(in), hz, po->flat_traces ? EMP_TRACE_FOLD_FLAT : 0, cct, map);
	struct thread_filter tf = { .list = po->threads, .r = r };
	struct emp_trace_stats ts;
	uint64_t self_ns, last_ticks, events;
	int rc;
	while ((rc = emp_trace_fold_next(f, po->threads ? skip_thread : NULL, &tf)) > 0)
		;
	if (!rc)
		rc = emp_trace_fold_finish(f, &ts, &self_ns, &last_ticks, &events);
	uint64_t traced = p->flat.all;
	if (!rc && po->flat_traces)
		rc = emp_trace_fold_collect_flat(f, &p->flat);
	emp_trace_fold_free(f);
	if (!rc) {
		if (cct && !direct) {
			emp_cct_add_tree(p->cct, cct);
			prune_unpinned(p->cct);
		}
		p->trace_events += events;
		if (events)
			traced_notes(p, r, file, map, &ts, last_ticks,
				     cct ? emp_cct_root(cct)->total_ns : p->flat.all - traced);
		dump_done(p, in, r, 0);
	} else if (direct) {
		emp_cct_free(p->cct);
		p->cct = new_tree(p, po);
	}
	free(tf.want);
	if (cct && !direct)
		emp_cct_free(cct);
	emp_symtab_map_free(map);
	emp_dump_reader_close(r);
	return !rc;
}

/* What the contexts past --max-contexts hold, as a note: the calls, traced time and samples of the more nodes
 * (never one inside another: a more node is its own descendants). */
static void more_note(struct emp_profile *p, const struct emp_profile_opts *po)
{
	uint64_t calls = 0, ns = 0, samples = 0, nodes = 0;
	for (uint32_t id = 1; id < emp_cct_size(p->cct); id++) {
		const struct emp_cct_node *n = emp_cct_node(p->cct, id);
		if (emp_cct_is_more(p->cct, n)) {
			nodes++;
			calls += n->calls;
			ns += n->total_ns;
			samples += n->total_samples;
		}
	}
	if (!nodes)
		return;
	const struct emp_cct_node *root = emp_cct_root(p->cct);
	char calls_s[96] = "", samples_s[96] = "";
	if (calls)
		snprintf(calls_s, sizeof(calls_s), "%" PRIu64 " calls (%.1f %% of the traced time)", calls,
			 root->total_ns ? 100.0 * (double)ns / (double)root->total_ns : 0.0);
	if (samples)
		snprintf(samples_s, sizeof(samples_s), "%" PRIu64 " samples (%.1f %%)", samples,
			 root->total_samples ? 100.0 * (double)samples / (double)root->total_samples : 0.0);
	emp_notes_add(&p->notes,
		      "more calling contexts than --max-contexts=%" PRIu32 ": %s%s%s of the lightest contexts are in %"
		      PRIu64 " \"" EMP_PROFILE_MORE_CONTEXTS "\" frames under their deepest kept caller; "
		      "--max-contexts=0 keeps every context, about 140 bytes each",
		      max_contexts(po), calls_s,
		      calls && samples ? " and " : "", samples_s, nodes);
}

void emp_profile_load(struct emp_profile *p, const struct emp_profile_opts *po, struct emp_input *in, char **files,
		      int n)
{
	memset(p, 0, sizeof(*p));
	p->st = emp_symtab_new();
	p->more_gid = emp_symtab_intern(p->st, EMP_FRAME_PSEUDO, 0, "", EMP_PROFILE_MORE_CONTEXTS, "");
	p->cct = new_tree(p, po);
	uint32_t *gids = emp_xmalloc(EMP_MAX_FRAMES * sizeof(*gids));
	struct verdicts inc = { 0 }, exc = { 0 };
	for (int f = 0; f < n; f++) {
		double hz = emp_trace_fold_probe(files[f]);
		if (hz > 0 && load_folded(p, po, in, files[f], hz))
			continue;
		struct emp_dump_reader *r = emp_input_open(in, files[f]);
		if (!r)
			continue;
		struct emp_symtab_map *map = emp_symtab_map_new(p->st, r);
		/* the flat figures of its calls come from a tree of its own, with no limit (a method past it would
		 * lose its figures to the more frame) */
		struct emp_cct *calls_tree = po->flat_traces ? emp_cct_new() : p->cct;
		struct emp_trace_cct tc = { .cct = calls_tree, .map = map, .r = r };
		struct emp_trace *tr = NULL; /* created at the first trace event */
		struct thread_filter tf = { .list = po->threads, .r = r };
		uint64_t samples = 0, last_ticks = 0, traced_before = emp_cct_root(p->cct)->total_ns;
		struct emp_event ev;
		while (emp_dump_reader_next(r, &ev)) {
			emp_trace_cct_prune(tr, &tc); /* where a chunk begins, as the fold does */
			last_ticks = ev.ticks > last_ticks ? ev.ticks : last_ticks;
			if (po->threads) {
				if (!thread_is_wanted(&tf, ev.thread) && !vthread_wanted(po->threads, &ev)) {
					p->filtered += ev.kind == EMP_EV_SAMPLE;
					continue;
				}
			}
			if (ev.kind == EMP_EV_CPU)
				continue; /* iteration CPU times: not calls */
			if (ev.kind != EMP_EV_SAMPLE) {
				/* ENTER/EXIT/EXIT_THROW: calls, total_ns and self_ns of the same tree (trace.h); the frame
				 * filters apply to samples only. */
				if (!tr)
					tr = emp_trace_new(&emp_trace_cct_ops, &tc);
				emp_trace_event(tr, &ev);
				p->trace_events++;
				continue;
			}
			uint32_t depth = ev.depth < EMP_MAX_FRAMES ? ev.depth : EMP_MAX_FRAMES;
			int inc_hit = 0, exc_hit = 0;
			for (uint32_t i = 0; i < depth; i++) {
				gids[i] = emp_symtab_map_get(map, ev.frames[i]);
				if (po->include && !inc_hit)
					inc_hit = frame_matches(&inc, p, po, po->include, gids[i]);
				if (po->exclude && !exc_hit)
					exc_hit = frame_matches(&exc, p, po, po->exclude, gids[i]);
			}
			if ((po->include && !inc_hit) || exc_hit) {
				p->filtered++;
				continue;
			}
			emp_cct_add_stack(p->cct, gids, depth, 1);
			if (calls_tree != p->cct) /* no call open in this tree: any moment will do */
				prune_unpinned(p->cct);
			samples++;
		}
		if (tr) {
			emp_trace_close_open(tr, last_ticks, emp_trace_cct_ops.on_call, &tc);
			emp_trace_finish(tr, r);
			traced_notes(p, r, files[f], map, emp_trace_stats(tr), last_ticks,
				     emp_cct_root(calls_tree)->total_ns - (po->flat_traces ? 0 : traced_before));
			emp_trace_free(tr);
		}
		if (po->flat_traces) {
			emp_flat_add_tree(&p->flat, calls_tree, EMP_CCT_NS);
			emp_cct_free(calls_tree);
		}
		dump_done(p, in, r, samples);
		free(tf.want);
		emp_symtab_map_free(map);
		emp_dump_reader_close(r);
	}
	if (p->filtered)
		emp_notes_add(&p->notes, "%" PRIu64 " samples left out by --threads/--include/--exclude", p->filtered);
	more_note(p, po);
	free(inc.v);
	free(exc.v);
	free(gids);
}

void emp_profile_free(struct emp_profile *p)
{
	emp_cct_free(p->cct);
	emp_flat_free(&p->flat);
	emp_symtab_free(p->st);
	emp_notes_free(&p->notes);
	memset(p, 0, sizeof(*p));
}
