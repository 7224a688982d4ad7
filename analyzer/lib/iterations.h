/* SPDX-License-Identifier: MIT */
/* iterations.h - per-VM values of calling-context-tree nodes from dumps split into iterations (design.md §5).
 *
 * A dump recorded with the agent option iteration=pkg.Class.method holds an ENTER/EXIT pair for every call of that
 * method (symbol flag EMP_METHOD_ITERATION), in both modes.  Per thread, an iteration is what happens between the
 * ENTER of an outermost call of the iteration method and its EXIT (EXIT_THROW too) on the same thread:
 *   trace mode   every complete call inside it adds its inclusive duration (ns) to the node of its call path;
 *   sample mode  every sample of that thread inside it adds 1 (or the sampling interval in ns, sample_ns) to every
 *                node on its stack from the iteration method down.
 * Node paths start at the iteration method: the frames above it (main, ...) are not part of the tree.  A sample
 * inside an iteration whose stack lacks the iteration method (a failed walk: [unknown_Java] ...) is put below the
 * iteration method's node as it is.  Samples and calls outside iterations are ignored.
 * A dump whose agent options (META options) name no iteration= method is one iteration, the whole run: the
 * pseudo frame `run` takes the place of the iteration method, every sample adds to it and to its whole stack (from
 * the thread's root frame), every traced call to its path from its thread's root call, a root call to `run` too
 * (a call still open when the recording ended — a System.exit, a daemon thread — as ending with its last event,
 * as the tree views count it);
 * warm-up, the cpu metric and dropping disturbed iterations do not apply (the latter two are refused).
 *
 * The iterations of a VM are ordered by their start time (over all threads), the first @warmup are dropped, and
 * the rest are the measurement iterations.  A node's per-VM value is the mean over the measurement iterations of
 * its per-iteration value, a node absent from an iteration counting 0 there (the original ICPE tooling dropped
 * those, a bias).  Prefix means over the first i measurement iterations are kept for the iteration counts asked
 * (exactness).  Memory: the nodes of the union tree times the VMs (a few doubles each), plus while one dump is
 * read its iterations' sparse (node, value) lists.
 *
 * A set may instead hold java-sut timing files (timings.h; pure mode: no agent, the SUT times its own
 * iterations).  Such a set has exactly one node, the iteration, named by emp_iter_opts.iteration_name (a pseudo
 * frame, so its node path is that name): a file's rows after the first @warmup are the measurement iterations in
 * file order, each row the iteration node's value in that iteration, and the per-VM mean, variance and prefix
 * means follow the same rules as for dumps.  With iteration_name = pkg.Class.method a pure set's node path is
 * the one the iteration method's node has in a trace set, and its values are comparable.
 *
 * A pure set may also be the runs of an emp-run directory EXP/<mode>/<version> with no file of either kind
 * (timings.h emp_timings_runs()): each run is one VM with one iteration, its process (or elapsed) time in ns;
 * --warmup does not apply.  Runs and timing files are not mixed in one comparison.
 *
 * Every VM of a set shares one symbol table and one union tree, so node ids are comparable across VMs and
 * versions.  With o.max_contexts the tree is pruned as the views' trees are (cct.h emp_cct_prune, where a chunk of
 * events begins; weights: every node's values so far over all VMs read; the open calls' nodes and the iteration
 * method's kept).  A prune makes the values read so far void: a context it removed would otherwise have its
 * values in a "[more contexts]" node in the VMs read before and in a node of its own in a VM read after, a
 * difference the tests would call a change.  So after the last dump, emp_iter_settle() freezes the tree (cct.h
 * emp_cct_freeze) and reads every dump again: every VM then puts each path where every other does, and the
 * contexts kept are the heavy ones of all VMs.  A set whose tree never reached the limit is read once.  A set holds
 * dumps or timing files, never both; every dump of a set must have the same mode (sample or trace), the same
 * iteration method and, in sample mode, the same interval.  Not thread-safe.
 */
#ifndef EMP_ITERATIONS_H
#define EMP_ITERATIONS_H

#include <stddef.h>
#include <stdint.h>

#include "cct.h"
#include "input.h"
#include "stats.h"
#include "symtab.h"
#include "timings.h"

/* The kind of a set: none before its first file, the dumps' mode, or pure (timing files). */
enum emp_iter_mode { EMP_ITER_MODE_NONE, EMP_ITER_MODE_SAMPLE, EMP_ITER_MODE_TRACE, EMP_ITER_MODE_PURE };

/* The iteration method's node value in dumps: its wall-clock time (trace: inclusive duration; sample: samples),
 * or its thread CPU time in ns from the CPU events at its entry and exit (dump format 1.2, doc/dump-format.md). */
enum emp_iter_metric { EMP_ITER_METRIC_WALL, EMP_ITER_METRIC_CPU };

/* --drop-disturbed without a factor: an iteration is disturbed when its wall time exceeds its CPU time by 10 %. */
#define EMP_ITER_DISTURBED_FACTOR 1.1

struct emp_iter_opts {
	unsigned warmup;          /* iterations dropped at the start of every VM */
	int sample_ns;            /* sample mode: a sample counts the interval in ns instead of 1 */
	const unsigned *prefix;   /* iteration counts (>= 1) for prefix means; NULL when none */
	size_t nprefix;
	const char *iteration_name; /* timing sets: the name of their one node; NULL for "iteration" */
	enum emp_timings_run_time run_time; /* emp-run runs: a run's process time (default) or elapsed time */
	enum emp_iter_metric metric;        /* dumps: the iteration node's value */
	double drop_disturbed;    /* dumps: > 0 drops measurement iterations whose wall time exceeds this factor times
				   * their CPU time; 0 keeps all */
	uint32_t max_contexts;    /* dumps: the union tree's limit (cct.h emp_cct_limit; 0 none), see below */
	int progress;             /* dumps: a line on stderr for each dump whose reading took a second or more, and
				   * before emp_iter_settle() reads them again */
};

struct emp_iter_vm {
	char *path;               /* the dump or timing file */
	unsigned group;           /* the caller's group (base 0, new 1) */
	uint32_t iterations;      /* measurement iterations */
	uint32_t nnodes;          /* the arrays cover node ids < nnodes; larger ids are 0 in this VM */
	double *mean;             /* [nnodes] per-VM value */
	double *var;              /* [nnodes] sample variance over the measurement iterations (0 with fewer than 2) */
	double *prefix;           /* [nprefix * nnodes] mean over the first prefix[c] measurement iterations; NAN when
				   * the VM has fewer */
};

struct emp_iter_set {
	struct emp_symtab *st;
	struct emp_cct *cct;      /* union of the VMs' iteration trees; the root's child is the iteration method */
	enum emp_iter_mode mode;
	uint64_t interval_ns;     /* sample mode: the dumps' sampling interval */
	uint32_t iter_gid;        /* the iteration method (pure: the iteration's pseudo frame), EMP_CCT_NO_SYMBOL
				   * before the first file */
	int runs_set;             /* pure: the VMs are emp-run runs (one value each), not timing files */
	char *first_path;         /* the file that set mode, interval and iteration method (for messages) */
	struct emp_iter_vm *vms;
	size_t nvms;
	uint64_t dropped_disturbed; /* measurement iterations dropped by o.drop_disturbed, over all VMs */
	int pruned;               /* the tree was pruned (o.max_contexts): emp_iter_settle() reads the dumps again */
	struct emp_iter_opts o;
};

/* emp_iter_new - an empty set; @o (and the prefix array it points to) must outlive it.  Exits when out of memory. */
struct emp_iter_set *emp_iter_new(const struct emp_iter_opts *o);
void emp_iter_free(struct emp_iter_set *s);

/* emp_iter_load - read the dump @path as one VM of @group.  Truncated and corrupt dumps are reported through @in
 * (emp_input_done: exit status 3 or 1; @in may be NULL) and used as far as they could be read.
 * Return: 0, or -1 after printing one line: the set holds timing files, o.iteration_name is set (it names the node
 * of timing files only), unreadable dump, mode neither sample nor trace, a mode, iteration method or sampling
 * interval differing from the dumps read before, no iteration markers, or no measurement iteration left after the
 * warm-up, or (o.metric cpu or o.drop_disturbed) a measurement iteration without CPU times or none left after
 * dropping the disturbed ones. */
int emp_iter_load(struct emp_iter_set *s, struct emp_input *in, unsigned group, const char *path);
/* emp_iter_settle - after the last emp_iter_load*(): when the tree was pruned, freeze it and read every dump again
 * in the same order (see above; their status is not reported again).  Return: 0, or -1 after printing one line (a
 * dump that emp_iter_load() read before is refused now: changed meanwhile). */
int emp_iter_settle(struct emp_iter_set *s, struct emp_input *in);
/* emp_iter_load_timings - read the java-sut timing file @path as one VM of @group (pure mode).
 * Return: 0, or -1 after printing one line: the set holds dumps, or emp_timings_read() refused the file (no row
 * left after the warm-up among the reasons). */
int emp_iter_load_timings(struct emp_iter_set *s, unsigned group, const char *path);
/* (emp_iter_load_timings() and emp_iter_load_dir() also refuse timing files and runs with o.metric cpu or
 * o.drop_disturbed: those need dumps.) */
/* emp_iter_load_dir - the run files of the directory @dir (timings.h emp_timings_list()), in name order, as VMs
 * of @group: its *.emp dumps when it holds no *.csv, its *.csv timing files when it holds no *.emp, its emp-run
 * runs when it holds neither.
 * Return: the number of files read, or -1 after printing one line: not a directory, both or neither kind of file
 * in it, a kind other than the set's (dumps and timing files are not compared), or a file that emp_iter_load() or
 * emp_iter_load_timings() refused. */
int emp_iter_load_dir(struct emp_iter_set *s, struct emp_input *in, unsigned group, const char *dir);

/* emp_iter_value - the per-VM value of node @id in @vm (0 when the VM never reached the node). */
double emp_iter_value(const struct emp_iter_vm *vm, uint32_t id);
/* emp_iter_var - the within-VM variance of node @id in @vm. */
double emp_iter_var(const struct emp_iter_vm *vm, uint32_t id);
/* emp_iter_prefix_value - the mean of node @id over the first o.prefix[@c] iterations of @vm. */
double emp_iter_prefix_value(const struct emp_iter_set *s, const struct emp_iter_vm *vm, size_t c, uint32_t id);

/* emp_iter_more_share - the "[more contexts]" nodes of the set's tree (o.max_contexts): return how many, and in
 * @share[g] the sum of their values over group g's VMs against the iteration method's (0 when it has none). */
uint32_t emp_iter_more_share(const struct emp_iter_set *s, double share[2]);

/* emp_iter_node_path - the call path of @n from the iteration method down (pure: the iteration's name), frames by
 * their display names (no descriptor) escaped as in folded stacks (';' becomes ':', control characters '?') and
 * joined by ';', so the method is the last element.  Return: a malloc'ed string. */
char *emp_iter_node_path(const struct emp_iter_set *s, const struct emp_cct_node *n);

/* Name of a mode as the dumps' META spells it ("sample", "trace"), "pure" for timing files. */
const char *emp_iter_mode_name(enum emp_iter_mode m);

#endif /* EMP_ITERATIONS_H */
