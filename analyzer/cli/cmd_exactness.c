/* SPDX-License-Identifier: MIT */
/* cmd_exactness.c - emp-analyze exactness: the F1 grid of change detection over VM counts and iteration counts
 * (exactness.h) for chosen call-tree nodes, the smallest VM count reaching the F1 threshold, a CSV grid and an SVG
 * heatmap (heatmap.h). */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "exactness.h"
#include "heatmap.h"
#include "iter_options.h"
#include "iterations.h"
#include "output.h"
#include "stats.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze exactness --base DIR --new DIR [OPTIONS]\n"
	"\n"
	"How many VMs are needed to detect the change between the base and the new version (ICPE'26 method): per\n"
	"node of interest and per cell (k VMs, i iterations) the per-VM values are the means over the first i\n"
	"measurement iterations; RESAMPLES times k VM values are drawn with replacement from each version and tested\n"
	"(p < alpha: true positive, else false negative), RESAMPLES times two sets of k from the base (p < alpha: false\n"
	"positive, else true negative); P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2PR/(P+R).  Prints per node and iteration\n"
	"count the smallest k with F1 > the threshold.  Deterministic for a given --seed.  Input as for `compare`:\n"
	"dumps, or java-sut --timings files (*.csv; pure mode, no agent), whose one node is the iteration\n"
	"(--iteration-name): a VM's value is then its mean duration_ns over the first i rows after --warmup,\n"
	"comparable with the iteration method's row of a trace set.\n"
	"\n"
	"  --base=DIR, --new=DIR  dumps or timing files of the two versions, one per VM run (required)\n"
	"  --nodes=GLOBS     comma-separated globs matched against a node's path (frames joined by ';', as in compare)\n"
	"                    or its method name (an overload's with or without its descriptor); default: the\n"
	"                    iteration method itself\n"
	"  --max-vms=K       largest k (default: the smaller number of VMs of the two versions); k runs from 2\n"
	"  --iterations=LIST comma-separated iteration counts (default 1, 2, 5, 10, 20, 50, ... up to the fewest\n"
	"                    measurement iterations of a VM, and that count)\n"
	"  --resamples=N     draws per cell and kind (default 1000)\n"
	"  --seed=S          seed of the draws (default 1)\n"
	"  --warmup=N        drop the first N iterations of every VM (default 0; java-sut's timing files hold no\n"
	"                    warm-up rows)\n"
	"  --iteration-name=NAME  timing files: the name of their one node (default iteration)\n"
	"  --run-time=T      a pure mode's DIR of emp-run: a VM's value is its run's cpu (default) or elapsed time\n"
	EMP_ITER_CLI_DUMP_USAGE
	"  --test=T          mwu (default), mwu-commons or welch, as in compare\n"
	"  --alpha=A         significance level (default 0.01)\n"
	"  --f1=F            threshold for the required VMs (default 0.98; F1 must be above it)\n"
	"  --sample-ns       sample mode: count a sample as the sampling interval in ns\n"
	"  -o FILE           write the heatmaps (one panel per node) as a self-contained SVG\n"
	"  --csv=FILE        write the grid: node,iterations,vms,tp,fn,tn,fp,precision,recall,f1\n"
	"  --format=F        text (default), csv or json, for the required-VMs table on stdout\n"
	"  --allow-truncated a truncated dump is not an error\n";

struct node_grid {
	struct emp_cct_node *n;
	char *path;
	struct emp_exactness_cell *cells; /* [niters][nk] */
};

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* Parse "10,50,100" into a sorted list without repeats.  Return: the count. */
static size_t parse_list(struct emp_cli *cli, const char *arg, unsigned **out)
{
	char *copy = emp_xstrdup(arg), *save = NULL;
	unsigned *v = NULL;
	size_t n = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		v = emp_xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = (unsigned)emp_cli_number(cli, "iterations", tok, 1, 1e9);
	}
	free(copy);
	if (!n)
		emp_cli_usage_error(cli, "--iterations=%s: expected comma-separated counts", arg);
	qsort(v, n, sizeof(*v), cmp_uint);
	size_t w = 1;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[w - 1])
			v[w++] = v[i];
	*out = v;
	return w;
}

/* One of @globs matches @path, or the name of its method @gid: as printed (an overload's with its descriptor) or
 * without its descriptor. */
static int node_matches(const char *globs, const char *path, const struct emp_symtab *st, uint32_t gid)
{
	char *copy = emp_xstrdup(globs), *save = NULL;
	const char *printed = emp_symtab_name(st, gid, 0), *plain = emp_symtab_get(st, gid)->display;
	int hit = 0;
	for (char *g = strtok_r(copy, ",", &save); g && !hit; g = strtok_r(NULL, ",", &save))
		hit = !fnmatch(g, path, 0) || !fnmatch(g, printed, 0) || !fnmatch(g, plain, 0);
	free(copy);
	return hit;
}

static int write_csv(const char *file, struct node_grid *ng, size_t nnodes, const unsigned *iters, size_t ni,
		     size_t nk)
{
	FILE *f = fopen(file, "w");
	if (!f) {
		emp_errorf("%s: %s", file, strerror(errno));
		return -1;
	}
	fprintf(f, "node,iterations,vms,tp,fn,tn,fp,precision,recall,f1\n");
	for (size_t n = 0; n < nnodes; n++)
		for (size_t i = 0; i < ni; i++)
			for (size_t k = 0; k < nk; k++) {
				const struct emp_exactness_cell *c = &ng[n].cells[i * nk + k];
				emp_csv_field(f, ng[n].path);
				fprintf(f, ",%u,%zu,%u,%u,%u,%u,%.6f,%.6f,%.6f\n", iters[i], c->vms, c->tp, c->fn, c->tn,
					c->fp, c->precision, c->recall, c->f1);
			}
	if (fclose(f)) {
		emp_errorf("%s: %s", file, strerror(errno));
		return -1;
	}
	return 0;
}

/* The command line. */
struct args {
	struct emp_iter_cli ic;
	const char *nodes, *svg, *csv;
	unsigned *iters;         /* --iterations, or the default list (user_iters 0) */
	size_t ni;
	int user_iters;
	size_t max_vms;
	double thr;
};

static void parse_args(struct emp_cli *cli, int argc, char **argv, struct args *a)
{
	enum { OPT_NODES = EMP_ITER_OPT_FIRST_FREE, OPT_MAX_VMS, OPT_ITERS, OPT_F1, OPT_CSV };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS,
					      EMP_ITER_CLI_OPTS,
					      { "nodes", required_argument, NULL, OPT_NODES },
					      { "max-vms", required_argument, NULL, OPT_MAX_VMS },
					      { "iterations", required_argument, NULL, OPT_ITERS },
					      { "f1", required_argument, NULL, OPT_F1 },
					      { "csv", required_argument, NULL, OPT_CSV },
					      { 0, 0, 0, 0 } };
	*a = (struct args){ .thr = 0.98 };
	emp_iter_cli_init(&a->ic);
	int opt;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (emp_cli_common(cli, opt, optarg) || emp_iter_cli_option(cli, &a->ic, opt, optarg))
			continue;
		switch (opt) {
		case OPT_NODES:
			a->nodes = optarg;
			break;
		case OPT_MAX_VMS:
			a->max_vms = (size_t)emp_cli_number(cli, "max-vms", optarg, 2, 1e6);
			break;
		case OPT_ITERS:
			free(a->iters);
			a->ni = parse_list(cli, optarg, &a->iters);
			break;
		case OPT_F1:
			a->thr = emp_cli_number(cli, "f1", optarg, 0, 1);
			break;
		case OPT_CSV:
			a->csv = optarg;
			break;
		case 'o':
			a->svg = optarg;
			break;
		default:
			break;
		}
	}
	emp_iter_cli_done(cli, &a->ic, argc, argv);
	a->user_iters = a->iters != NULL;
	if (!a->user_iters) {
		/* 1, 2, 5, 10, 20, 50, ...: prefix means are kept for these; the grid uses those a VM reaches */
		static const unsigned step[] = { 1, 2, 5 };
		for (unsigned dec = 1; dec <= 100000000u; dec *= 10)
			for (int j = 0; j < 3; j++) {
				a->iters = emp_xrealloc(a->iters, (a->ni + 1) * sizeof(*a->iters));
				a->iters[a->ni++] = step[j] * dec;
			}
	}
	a->ic.io.prefix = a->iters;
	a->ic.io.nprefix = a->ni;
}

/* The grid's axes: iteration counts (rows) and VM counts (columns). */
struct grid {
	size_t *pidx;            /* per row: its prefix index in the iteration list, SIZE_MAX for "all" */
	unsigned *giters;        /* per row: the iteration count */
	size_t gi;               /* rows */
	size_t kmin, kmax, nk;   /* columns: kmin..kmax VMs */
	uint32_t min_iters;      /* the fewest measurement iterations of a VM */
};

/* choose_grid - the rows: the listed counts a VM reaches, plus (default list only) the fewest iterations of a VM
 * when every VM has exactly that many; the columns: 2 .. --max-vms (default: the smaller set).  Return: 0, or -1
 * after printing one line (a listed count more than a VM has). */
static int choose_grid(const struct emp_iter_set *s, const struct args *a, const int nv[2], struct grid *g)
{
	g->min_iters = UINT32_MAX;
	const char *min_path = "";
	for (size_t i = 0; i < s->nvms; i++)
		if (s->vms[i].iterations < g->min_iters) {
			g->min_iters = s->vms[i].iterations;
			min_path = s->vms[i].path;
		}
	/* the grid's iteration counts: their prefix index in io.prefix, plus "all" (index ni) when not listed */
	g->pidx = emp_xmalloc((a->ni + 1) * sizeof(*g->pidx));
	g->giters = emp_xmalloc((a->ni + 1) * sizeof(*g->giters));
	g->gi = 0;
	for (size_t c = 0; c < a->ni; c++) {
		if (a->iters[c] > g->min_iters) {
			if (a->user_iters) {
				emp_errorf("--iterations %u: %s has only %u measurement iterations", a->iters[c],
					   min_path, g->min_iters);
				return -1;
			}
			continue;
		}
		g->pidx[g->gi] = c;
		g->giters[g->gi++] = a->iters[c];
	}
	if (!a->user_iters && (!g->gi || g->giters[g->gi - 1] != g->min_iters)) {
		g->pidx[g->gi] = SIZE_MAX; /* the first min_iters iterations: not a kept prefix unless listed */
		g->giters[g->gi++] = g->min_iters;
	}
	/* SIZE_MAX stands for "the first min_iters iterations", which is the full per-VM mean only when every VM
	 * has exactly min_iters measurement iterations; otherwise that row is left out. */
	int all_equal = 1;
	for (size_t i = 0; i < s->nvms; i++)
		all_equal &= s->vms[i].iterations == g->min_iters;
	if (g->gi && g->pidx[g->gi - 1] == SIZE_MAX && !all_equal)
		g->gi--; /* VMs differ in length: only the listed prefixes are exact */
	g->kmax = a->max_vms ? a->max_vms : (size_t)(nv[0] < nv[1] ? nv[0] : nv[1]);
	if (g->kmax < 2)
		g->kmax = 2;
	g->kmin = 2;
	g->nk = g->kmax - g->kmin + 1;
	return 0;
}

/* The nodes of interest: those matching --nodes, or the iteration method.  Return: their number. */
static size_t select_nodes(const struct emp_iter_set *s, const char *nodes, struct node_grid **out)
{
	struct node_grid *ng = NULL;
	size_t nng = 0;
	struct emp_cct_node *root = emp_cct_root(s->cct)->first_child;
	for (uint32_t id = 1; id < emp_cct_size(s->cct); id++) {
		struct emp_cct_node *n = emp_cct_node(s->cct, id);
		char *path = emp_iter_node_path(s, n);
		if (nodes ? !node_matches(nodes, path, s->st, n->gid) : n != root) {
			free(path);
			continue;
		}
		ng = emp_xrealloc(ng, (nng + 1) * sizeof(*ng));
		ng[nng++] = (struct node_grid){ .n = n, .path = path };
	}
	*out = ng;
	return nng;
}

/* Every cell of every node's grid. */
static void fill_cells(const struct emp_iter_set *s, const struct args *a, const int nv[2], const struct grid *g,
		       struct node_grid *ng, size_t nng)
{
	double *v[2] = { emp_xmalloc((size_t)nv[0] * sizeof(double)), emp_xmalloc((size_t)nv[1] * sizeof(double)) };
	for (size_t n = 0; n < nng; n++) {
		ng[n].cells = emp_xcalloc(g->gi * g->nk, sizeof(*ng[n].cells));
		for (size_t i = 0; i < g->gi; i++) {
			size_t k2[2] = { 0, 0 };
			for (size_t m = 0; m < s->nvms; m++) {
				const struct emp_iter_vm *vm = &s->vms[m];
				v[vm->group][k2[vm->group]++] = g->pidx[i] == SIZE_MAX
									? emp_iter_value(vm, ng[n].n->id)
									: emp_iter_prefix_value(s, vm, g->pidx[i], ng[n].n->id);
			}
			for (size_t k = 0; k < g->nk; k++) {
				uint64_t cs = emp_exactness_seed(a->ic.seed, ng[n].path, g->kmin + k, g->giters[i]);
				if (emp_exactness_run(v[0], k2[0], v[1], k2[1], g->kmin + k, a->ic.resamples, a->ic.test,
						      a->ic.alpha, cs, &ng[n].cells[i * g->nk + k]))
					emp_die("out of memory");
			}
		}
	}
	free(v[0]);
	free(v[1]);
}

/* The required-VMs table on stdout. */
static void print_required(const struct emp_iter_set *s, const struct args *a, const int nv[2], const struct grid *g,
			   const struct node_grid *ng, size_t nng, enum emp_format format)
{
	const struct emp_iter_cli *ic = &a->ic;
	struct emp_report *rep = emp_report_new(format);
	emp_report_note(rep, "mode=%s, iterations of %s; base %s: %d VMs, new %s: %d VMs, %u+ measurement iterations",
			emp_iter_mode_name(s->mode), emp_symtab_name(s->st, s->iter_gid, 0), ic->dir[0], nv[0],
			ic->dir[1], nv[1], g->min_iters);
	emp_iter_cli_notes(rep, s, ic);
	emp_report_note(rep, "test %s, alpha %g, %u resamples per cell and kind, seed %llu, k = %zu..%zu",
			emp_stats_test_name(ic->test), ic->alpha, ic->resamples, (unsigned long long)ic->seed, g->kmin,
			g->kmax);
	static const char *const cols[] = { "node", "iterations", "required_vms", "f1_at_max_vms", "max_vms" };
	char title[96];
	snprintf(title, sizeof(title), "VMs required for F1 > %g (empty: not reached up to max_vms)", a->thr);
	struct emp_table *t = emp_table_new("required_vms", title, 5, cols);
	const size_t nk = g->nk;
	for (size_t n = 0; n < nng; n++)
		for (size_t i = g->gi; i-- > 0;) {
			size_t req = 0;
			for (size_t k = 0; k < nk && !req; k++)
				if (ng[n].cells[i * nk + k].f1 > a->thr)
					req = g->kmin + k;
			emp_table_row(t);
			emp_table_str(t, ng[n].path);
			emp_table_int(t, g->giters[i]);
			if (req)
				emp_table_int(t, (int64_t)req);
			else
				emp_table_str(t, "");
			emp_table_num(t, ng[n].cells[i * nk + nk - 1].f1, 3);
			emp_table_int(t, (int64_t)g->kmax);
		}
	emp_report_add(rep, t);
	emp_report_print(rep, stdout);
	emp_report_free(rep);
}

/* -o: the heatmaps, one panel per node. */
static int write_svg(const struct emp_iter_set *s, const struct args *a, const struct grid *g,
		     const struct node_grid *ng, size_t nng)
{
	const struct emp_iter_cli *ic = &a->ic;
	char subtitle[2 * 4096 + 256]; /* two whole paths: the picture elides, its tooltip keeps them */
	snprintf(subtitle, sizeof(subtitle), "mode=%s, test %s, alpha %g, %u resamples, seed %llu; base %s, new %s",
		 emp_iter_mode_name(s->mode), emp_stats_test_name(ic->test), ic->alpha, ic->resamples,
		 (unsigned long long)ic->seed, ic->dir[0], ic->dir[1]);
	struct emp_heatmap_panel *panels = emp_xcalloc(nng, sizeof(*panels));
	for (size_t n = 0; n < nng; n++)
		panels[n] = (struct emp_heatmap_panel){ .title = ng[n].path, .cells = ng[n].cells };
	const struct emp_heatmap h = { .panels = panels, .npanels = nng, .iters = g->giters, .niters = g->gi,
				       .kmin = g->kmin, .nk = g->nk, .threshold = a->thr, .subtitle = subtitle };
	int rc = emp_heatmap_write(a->svg, &h);
	free(panels);
	return rc;
}

int emp_cmd_exactness(int argc, char **argv)
{
	struct emp_cli cli = { .command = "exactness", .usage = usage };
	struct args a;
	parse_args(&cli, argc, argv, &a);
	struct emp_iter_set *s = emp_iter_new(&a.ic.io);
	struct grid g = { 0 };
	struct node_grid *ng = NULL;
	size_t nng = 0;
	int nv[2], rc = EMP_EXIT_ERROR;
	if (emp_iter_cli_load(&cli, s, &a.ic, nv))
		goto out;
	if (choose_grid(s, &a, nv, &g))
		goto out;
	nng = select_nodes(s, a.nodes, &ng);
	if (!nng) {
		emp_errorf("--nodes=%s: no node of the call tree matches", a.nodes ? a.nodes : "");
		goto out;
	}
	rc = cli.in.exit_code;
	fill_cells(s, &a, nv, &g, ng, nng);
	print_required(s, &a, nv, &g, ng, nng, cli.format);
	if (a.svg && write_svg(s, &a, &g, ng, nng))
		rc = EMP_EXIT_ERROR;
	if (a.csv && write_csv(a.csv, ng, nng, g.giters, g.gi, g.nk))
		rc = EMP_EXIT_ERROR;
out:
	for (size_t n = 0; n < nng; n++) {
		free(ng[n].path);
		free(ng[n].cells);
	}
	free(ng);
	free(g.pidx);
	free(g.giters);
	emp_iter_free(s);
	free(a.iters);
	return rc;
}
