/* SPDX-License-Identifier: MIT */
/* cmd_exactness.c - emp-analyze exactness: the F1 grid of change detection over VM counts and iteration counts
 * (exactness.h) for chosen call-tree nodes, the smallest VM count reaching the F1 threshold, a CSV grid and an SVG
 * heatmap. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "exactness.h"
#include "flame.h"
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
	"                    or its method name; default: the iteration method itself\n"
	"  --max-vms=K       largest k (default: the smaller number of VMs of the two versions); k runs from 2\n"
	"  --iterations=LIST comma-separated iteration counts (default 1, 2, 5, 10, 20, 50, ... up to the fewest\n"
	"                    measurement iterations of a VM, and that count)\n"
	"  --resamples=N     draws per cell and kind (default 1000)\n"
	"  --seed=S          seed of the draws (default 1)\n"
	"  --warmup=N        drop the first N iterations of every VM (default 0; java-sut's timing files hold no\n"
	"                    warm-up rows)\n"
	"  --iteration-name=NAME  timing files: the name of their one node (default iteration)\n"
	"  --run-time=T      a pure mode's DIR of emp-run: a VM's value is its run's cpu (default) or elapsed time\n"
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

static int node_matches(const char *globs, const char *path, const char *method)
{
	char *copy = emp_xstrdup(globs), *save = NULL;
	int hit = 0;
	for (char *g = strtok_r(copy, ",", &save); g && !hit; g = strtok_r(NULL, ",", &save))
		hit = !fnmatch(g, path, 0) || !fnmatch(g, method, 0);
	free(copy);
	return hit;
}

/* F1 -> fill colour: red (0) through yellow (0.5) to green (1). */
static void colour(double f1, char *buf, size_t len)
{
	double t = f1 < 0 ? 0 : f1 > 1 ? 1 : f1;
	int r = t < 0.5 ? 220 : (int)(220 - (t - 0.5) * 2 * 190);
	int g = t < 0.5 ? (int)(60 + t * 2 * 150) : (int)(210 - (t - 0.5) * 2 * 60);
	snprintf(buf, len, "rgb(%d,%d,60)", r, g);
}

static int write_svg(const char *file, struct node_grid *ng, size_t nnodes, const unsigned *iters, size_t ni,
		     size_t kmin, size_t nk, double thr, const char *subtitle)
{
	FILE *f = fopen(file, "w");
	if (!f) {
		emp_errorf("%s: %s", file, strerror(errno));
		return -1;
	}
	const int cw = nk > 60 ? 10 : nk > 30 ? 16 : 28, ch = 22, left = 90, top = 50, gap = 70;
	int pw = left + (int)nk * cw + 20, ph = top + (int)ni * ch + 40;
	int width = pw < 640 ? 640 : pw, height = 40 + (int)nnodes * (ph + gap);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
		   "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		   "<text x=\"10\" y=\"18\" font-size=\"14\">F1 of change detection by VMs (x) and iterations per VM "
		   "(y); outlined: F1 &gt; %.2f</text>\n<text x=\"10\" y=\"34\" fill=\"#555\">",
		width, height, thr);
	emp_xml_escape(f, subtitle);
	fprintf(f, "</text>\n");
	for (size_t n = 0; n < nnodes; n++) {
		int y0 = 40 + (int)n * (ph + gap);
		fprintf(f, "<g transform=\"translate(0,%d)\">\n<text x=\"10\" y=\"30\" font-weight=\"bold\">", y0);
		emp_xml_escape(f, ng[n].path);
		fprintf(f, "</text>\n");
		for (size_t i = 0; i < ni; i++) {
			/* the largest iteration count on top */
			int y = top + (int)(ni - 1 - i) * ch;
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%u</text>\n", left - 6, y + 15, iters[i]);
			for (size_t k = 0; k < nk; k++) {
				const struct emp_exactness_cell *c = &ng[n].cells[i * nk + k];
				char fill[32];
				colour(c->f1, fill, sizeof(fill));
				int x = left + (int)k * cw;
				fprintf(f,
					"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s><title>%zu VMs, "
					"%u iterations: F1 %.3f, P %.3f, R %.3f (TP %u FN %u TN %u FP %u)</title></rect>\n",
					x, y, cw - 1, ch - 1, fill,
					c->f1 > thr ? " stroke=\"black\" stroke-width=\"1.5\"" : "", c->vms, iters[i], c->f1,
					c->precision, c->recall, c->tp, c->fn, c->tn, c->fp);
			}
		}
		for (size_t k = 0; k < nk; k++) {
			size_t vms = kmin + k;
			if (nk <= 30 || vms % 5 == 0 || k == 0)
				fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%zu</text>\n",
					left + (int)k * cw + cw / 2, top + (int)ni * ch + 14, vms);
		}
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">VMs per version</text>\n",
			left + (int)nk * cw / 2, top + (int)ni * ch + 30);
		fprintf(f, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">"
			   "iterations</text>\n</g>\n",
			top + (int)ni * ch / 2, top + (int)ni * ch / 2);
	}
	fprintf(f, "</svg>\n");
	if (fclose(f)) {
		emp_errorf("%s: %s", file, strerror(errno));
		return -1;
	}
	return 0;
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

int emp_cmd_exactness(int argc, char **argv)
{
	struct emp_cli cli = { .command = "exactness", .usage = usage };
	enum { OPT_NODES = EMP_ITER_OPT_FIRST_FREE, OPT_MAX_VMS, OPT_ITERS, OPT_F1, OPT_CSV };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS,
					      EMP_ITER_CLI_OPTS,
					      { "nodes", required_argument, NULL, OPT_NODES },
					      { "max-vms", required_argument, NULL, OPT_MAX_VMS },
					      { "iterations", required_argument, NULL, OPT_ITERS },
					      { "f1", required_argument, NULL, OPT_F1 },
					      { "csv", required_argument, NULL, OPT_CSV },
					      { 0, 0, 0, 0 } };
	const char *nodes = NULL, *svg = NULL, *csv = NULL;
	unsigned *iters = NULL;
	size_t ni = 0, max_vms = 0;
	double thr = 0.98;
	struct emp_iter_cli ic;
	emp_iter_cli_init(&ic);
	int opt;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (emp_cli_common(&cli, opt, optarg) || emp_iter_cli_option(&cli, &ic, opt, optarg))
			continue;
		switch (opt) {
		case OPT_NODES:
			nodes = optarg;
			break;
		case OPT_MAX_VMS:
			max_vms = (size_t)emp_cli_number(&cli, "max-vms", optarg, 2, 1e6);
			break;
		case OPT_ITERS:
			free(iters);
			ni = parse_list(&cli, optarg, &iters);
			break;
		case OPT_F1:
			thr = emp_cli_number(&cli, "f1", optarg, 0, 1);
			break;
		case OPT_CSV:
			csv = optarg;
			break;
		case 'o':
			svg = optarg;
			break;
		default:
			break;
		}
	}
	emp_iter_cli_done(&cli, &ic, argc, argv);
	struct emp_iter_opts io = ic.io;
	const char *const *dir = ic.dir;
	const enum emp_stats_test test = ic.test;
	const double alpha = ic.alpha;
	const unsigned resamples = ic.resamples;
	const uint64_t seed = ic.seed;
	int user_iters = iters != NULL;
	if (!user_iters) {
		/* 1, 2, 5, 10, 20, 50, ...: prefix means are kept for these; the grid uses those a VM reaches */
		static const unsigned step[] = { 1, 2, 5 };
		for (unsigned dec = 1; dec <= 100000000u; dec *= 10)
			for (int j = 0; j < 3; j++) {
				iters = emp_xrealloc(iters, (ni + 1) * sizeof(*iters));
				iters[ni++] = step[j] * dec;
			}
	}
	io.prefix = iters;
	io.nprefix = ni;

	struct emp_iter_set *s = emp_iter_new(&io);
	int nv[2];
	for (unsigned g = 0; g < 2; g++)
		if ((nv[g] = emp_iter_load_dir(s, &cli.in, g, dir[g])) < 0) {
			emp_iter_free(s);
			free(iters);
			return EMP_EXIT_ERROR;
		}
	uint32_t min_iters = UINT32_MAX;
	const char *min_path = "";
	for (size_t i = 0; i < s->nvms; i++)
		if (s->vms[i].iterations < min_iters) {
			min_iters = s->vms[i].iterations;
			min_path = s->vms[i].path;
		}
	/* the grid's iteration counts: their prefix index in io.prefix, plus "all" (index ni) when not listed */
	size_t *pidx = emp_xmalloc((ni + 1) * sizeof(*pidx)), gi = 0;
	unsigned *giters = emp_xmalloc((ni + 1) * sizeof(*giters));
	for (size_t c = 0; c < ni; c++) {
		if (iters[c] > min_iters) {
			if (user_iters) {
				emp_errorf("--iterations %u: %s has only %u measurement iterations", iters[c], min_path,
					   min_iters);
				emp_iter_free(s);
				free(iters);
				free(pidx);
				free(giters);
				return EMP_EXIT_ERROR;
			}
			continue;
		}
		pidx[gi] = c;
		giters[gi++] = iters[c];
	}
	if (!user_iters && (!gi || giters[gi - 1] != min_iters)) {
		pidx[gi] = SIZE_MAX; /* the first min_iters iterations: not a kept prefix unless listed */
		giters[gi++] = min_iters;
	}
	size_t kmax = max_vms ? max_vms : (size_t)(nv[0] < nv[1] ? nv[0] : nv[1]);
	if (kmax < 2)
		kmax = 2;
	size_t kmin = 2, nk = kmax - kmin + 1;

	/* the nodes of interest */
	struct node_grid *ng = NULL;
	size_t nng = 0;
	struct emp_cct_node *root = emp_cct_root(s->cct)->first_child;
	for (uint32_t id = 1; id < emp_cct_size(s->cct); id++) {
		struct emp_cct_node *n = emp_cct_node(s->cct, id);
		char *path = emp_iter_node_path(s, n);
		if (nodes ? !node_matches(nodes, path, emp_symtab_name(s->st, n->gid, 0)) : n != root) {
			free(path);
			continue;
		}
		ng = emp_xrealloc(ng, (nng + 1) * sizeof(*ng));
		ng[nng++] = (struct node_grid){ .n = n, .path = path };
	}
	int rc = cli.in.exit_code;
	if (!nng) {
		emp_errorf("--nodes=%s: no node of the call tree matches", nodes ? nodes : "");
		rc = EMP_EXIT_ERROR;
		goto out;
	}

	/* The cells.  SIZE_MAX stands for "the first min_iters iterations", which is the full per-VM mean only when
	 * every VM has exactly min_iters measurement iterations; otherwise that row is left out. */
	double *v[2] = { emp_xmalloc((size_t)nv[0] * sizeof(double)), emp_xmalloc((size_t)nv[1] * sizeof(double)) };
	int all_equal = 1;
	for (size_t i = 0; i < s->nvms; i++)
		all_equal &= s->vms[i].iterations == min_iters;
	if (gi && pidx[gi - 1] == SIZE_MAX && !all_equal)
		gi--; /* VMs differ in length: only the listed prefixes are exact */
	for (size_t n = 0; n < nng; n++) {
		ng[n].cells = emp_xcalloc(gi * nk, sizeof(*ng[n].cells));
		for (size_t i = 0; i < gi; i++) {
			size_t k2[2] = { 0, 0 };
			for (size_t m = 0; m < s->nvms; m++) {
				const struct emp_iter_vm *vm = &s->vms[m];
				v[vm->group][k2[vm->group]++] = pidx[i] == SIZE_MAX
									? emp_iter_value(vm, ng[n].n->id)
									: emp_iter_prefix_value(s, vm, pidx[i], ng[n].n->id);
			}
			for (size_t k = 0; k < nk; k++) {
				uint64_t cs = emp_exactness_seed(seed, ng[n].path, kmin + k, giters[i]);
				if (emp_exactness_run(v[0], k2[0], v[1], k2[1], kmin + k, resamples, test, alpha, cs,
						      &ng[n].cells[i * nk + k]))
					emp_die("out of memory");
			}
		}
	}
	free(v[0]);
	free(v[1]);

	struct emp_report *rep = emp_report_new(cli.format);
	emp_report_note(rep, "mode=%s, iterations of %s; base %s: %d VMs, new %s: %d VMs, %u+ measurement iterations",
			emp_iter_mode_name(s->mode), emp_symtab_name(s->st, s->iter_gid, 0), dir[0], nv[0], dir[1],
			nv[1], min_iters);
	emp_report_note(rep, "test %s, alpha %g, %u resamples per cell and kind, seed %llu, k = %zu..%zu",
			emp_stats_test_name(test), alpha, resamples, (unsigned long long)seed, kmin, kmax);
	static const char *const cols[] = { "node", "iterations", "required_vms", "f1_at_max_vms", "max_vms" };
	char title[96];
	snprintf(title, sizeof(title), "VMs required for F1 > %g (empty: not reached up to max_vms)", thr);
	struct emp_table *t = emp_table_new("required_vms", title, 5, cols);
	for (size_t n = 0; n < nng; n++)
		for (size_t i = gi; i-- > 0;) {
			size_t req = 0;
			for (size_t k = 0; k < nk && !req; k++)
				if (ng[n].cells[i * nk + k].f1 > thr)
					req = kmin + k;
			emp_table_row(t);
			emp_table_str(t, ng[n].path);
			emp_table_int(t, giters[i]);
			if (req)
				emp_table_int(t, (int64_t)req);
			else
				emp_table_str(t, "");
			emp_table_num(t, ng[n].cells[i * nk + nk - 1].f1, 3);
			emp_table_int(t, (int64_t)kmax);
		}
	emp_report_add(rep, t);
	emp_report_print(rep, stdout);
	emp_report_free(rep);
	char subtitle[256];
	snprintf(subtitle, sizeof(subtitle), "mode=%s, test %s, alpha %g, %u resamples, seed %llu; base %s, new %s",
		 emp_iter_mode_name(s->mode), emp_stats_test_name(test), alpha, resamples, (unsigned long long)seed,
		 dir[0], dir[1]);
	if (svg && write_svg(svg, ng, nng, giters, gi, kmin, nk, thr, subtitle))
		rc = EMP_EXIT_ERROR;
	if (csv && write_csv(csv, ng, nng, giters, gi, nk))
		rc = EMP_EXIT_ERROR;
out:
	for (size_t n = 0; n < nng; n++) {
		free(ng[n].path);
		free(ng[n].cells);
	}
	free(ng);
	free(pidx);
	free(giters);
	emp_iter_free(s);
	free(iters);
	return rc;
}
