/* SPDX-License-Identifier: MIT */
/* test_timings.c - java-sut timing files (analyzer/lib/timings.h) and the pure-mode sets compare and exactness build
 * from them (analyzer/lib/iterations.h emp_iter_load_dir on a directory of *.csv).
 *
 * Expected values are computed by hand from the synthetic files written here: exact per-VM means, variances and
 * prefix means after the warm-up, and an F1 step decided by construction (every base VM has the same value, every
 * new VM a larger one: see timing_set_f1_steps_from_0_to_1_at_5_vms). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exactness.h"
#include "iterations.h"
#include "timings.h"

static char dir[] = "/tmp/emp-timings-XXXXXX";

static void make_dir(void)
{
	cr_redirect_stderr(); /* the refusals' one-line messages; tests/integration checks their wording */
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* The path DIR/NAME in a static buffer (one at a time). */
static const char *at(const char *fmt, ...)
{
	static char path[256], name[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* A timing file with the header and the durations @ns[0..n) as iterations 0..n-1. */
static void write_timings(const char *path, const long *ns, size_t n)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs("iteration,duration_ns\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%zu,%ld\n", i, ns[i]);
	cr_assert_eq(fclose(f), 0);
}

TestSuite(timings, .init = make_dir, .fini = remove_dir);

Test(timings, read_drops_the_warmup_rows)
{
	/* CRLF line ends and a last line without one are accepted */
	write_file(at("a.csv"), "iteration,duration_ns\r\n0,5000\r\n1,4000\r\n2,100\r\n3,250\r\n4,18446744073709551615");
	double *ns;
	size_t n;
	cr_assert_eq(emp_timings_read(at("a.csv"), 2, &ns, &n), 0);
	cr_assert_eq(n, 3);
	cr_assert(ns[0] == 100 && ns[1] == 250 && ns[2] == 18446744073709551615.0, "%g %g %g", ns[0], ns[1], ns[2]);
	free(ns);
	cr_assert_eq(emp_timings_read(at("a.csv"), 0, &ns, &n), 0);
	cr_assert_eq(n, 5);
	cr_assert(ns[0] == 5000 && ns[4] == 18446744073709551615.0);
	free(ns);
	cr_assert_eq(emp_timings_read(at("a.csv"), 4, &ns, &n), 0);
	cr_assert_eq(n, 1);
	free(ns);
}

Test(timings, read_refuses_what_is_not_a_timing_file)
{
	static const char *const bad[] = {
		"",                                        /* empty */
		"iter,ns\n0,5\n",                          /* header */
		"iteration,duration_ns\n0,5\n1,6x\n",      /* not an integer */
		"iteration,duration_ns\n0,5\n1,-6\n",      /* negative duration */
		"iteration,duration_ns\n-1,5\n",           /* negative iteration */
		"iteration,duration_ns\n0,5\n2,6\n",       /* a row missing */
		"iteration,duration_ns\n0,5\n\n1,6\n",     /* an empty line */
		"iteration,duration_ns\n0,5,7\n",          /* a third field */
		"iteration,duration_ns\n0,99999999999999999999\n", /* beyond 64 bits */
		"iteration,duration_ns\n",                 /* no row */
	};
	double *ns = (double *)1;
	size_t n = 7;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(at("bad.csv"), bad[i]);
		cr_assert_eq(emp_timings_read(at("bad.csv"), 0, &ns, &n), -1, "case %zu accepted", i);
		cr_assert_null(ns, "case %zu", i);
		cr_assert_eq(n, 0, "case %zu", i);
	}
	cr_assert_eq(emp_timings_read(at("missing.csv"), 0, &ns, &n), -1);
	/* the warm-up swallows every row */
	write_file(at("two.csv"), "iteration,duration_ns\n0,5\n1,6\n");
	cr_assert_eq(emp_timings_read(at("two.csv"), 2, &ns, &n), -1);
	cr_assert_eq(emp_timings_read(at("two.csv"), 1, &ns, &n), 0);
	cr_assert(n == 1 && ns[0] == 6);
	free(ns);
}

Test(timings, list_keeps_regular_files_with_the_suffix_in_name_order)
{
	write_file(at("b.csv"), "");
	write_file(at("a.csv"), "");
	write_file(at("c.emp"), "");
	write_file(at(".csv"), "");     /* nothing before the suffix */
	write_file(at("d.csv.txt"), "");
	cr_assert_eq(mkdir(at("sub.csv"), 0700), 0); /* not a regular file */
	char link[256];
	snprintf(link, sizeof(link), "%s", at("a.csv"));
	cr_assert_eq(symlink(link, at("0-link.csv")), 0); /* followed */
	char **p;
	int n = emp_timings_list(dir, ".csv", &p);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(p[0], at("0-link.csv"));
	cr_assert_str_eq(p[1], at("a.csv"));
	cr_assert_str_eq(p[2], at("b.csv"));
	emp_timings_list_free(p, (size_t)n);
	n = emp_timings_list(dir, ".emp", &p);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(p[0], at("c.emp"));
	emp_timings_list_free(p, (size_t)n);
	n = emp_timings_list(at("sub.csv"), ".csv", &p);
	cr_assert_eq(n, 0);
	cr_assert_null(p);
	cr_assert_eq(emp_timings_list(at("nonexistent"), ".csv", &p), -1);
	cr_assert_null(p);
}

Test(timings, timing_set_per_vm_means_after_warmup)
{
	cr_assert_eq(mkdir(at("base"), 0700), 0);
	static const long vm0[] = { 9000, 100, 200, 300 }, vm1[] = { 8000, 400, 400, 400, 400 };
	write_timings(at("base/vm0.csv"), vm0, 4);
	write_timings(at("base/vm1.csv"), vm1, 5);
	static const unsigned prefix[] = { 1, 2, 4 };
	struct emp_iter_opts o = { .warmup = 1, .prefix = prefix, .nprefix = 3,
				   .iteration_name = "emp.sut.CallTree.runIteration" };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("base")), 2);
	cr_assert_eq(s->mode, EMP_ITER_MODE_PURE);
	cr_assert_str_eq(emp_iter_mode_name(s->mode), "pure");
	cr_assert_eq(emp_cct_size(s->cct), 2, "root and the iteration, nothing else");
	struct emp_cct_node *it = emp_cct_root(s->cct)->first_child;
	char *path = emp_iter_node_path(s, it);
	cr_assert_str_eq(path, "emp.sut.CallTree.runIteration");
	free(path);
	cr_assert_eq(s->nvms, 2);
	const struct emp_iter_vm *a = &s->vms[0], *b = &s->vms[1];
	cr_assert_str_eq(a->path, at("base/vm0.csv"));
	cr_assert(a->group == 0 && a->iterations == 3 && b->iterations == 4);
	/* vm0: 100, 200, 300 after the warm-up row */
	cr_assert(emp_iter_value(a, it->id) == 200, "%g", emp_iter_value(a, it->id));
	cr_assert(emp_iter_var(a, it->id) == 10000, "%g", emp_iter_var(a, it->id));
	cr_assert(emp_iter_prefix_value(s, a, 0, it->id) == 100);
	cr_assert(emp_iter_prefix_value(s, a, 1, it->id) == 150);
	cr_assert(isnan(emp_iter_prefix_value(s, a, 2, it->id)), "vm0 has 3 measurement iterations, not 4");
	cr_assert(emp_iter_value(b, it->id) == 400 && emp_iter_var(b, it->id) == 0);
	cr_assert(emp_iter_prefix_value(s, b, 2, it->id) == 400);

	/* a second directory joins the same node; the default name is "iteration" */
	emp_iter_free(s);
	o.iteration_name = NULL;
	o.warmup = 0;
	s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("base")), 2);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 1, at("base")), 2);
	cr_assert_eq(emp_cct_size(s->cct), 2);
	it = emp_cct_root(s->cct)->first_child;
	path = emp_iter_node_path(s, it);
	cr_assert_str_eq(path, "iteration");
	free(path);
	cr_assert(s->nvms == 4 && s->vms[3].group == 1);
	cr_assert(emp_iter_value(&s->vms[2], it->id) == 2400, "(9000 + 100 + 200 + 300) / 4");
	cr_assert(emp_iter_value(&s->vms[3], it->id) == 1920, "(8000 + 4 * 400) / 5");
	emp_iter_free(s);
}

/* Every base VM has the mean 1000 and the new VMs 1100, 1110, ... 1170 (complete separation).  Base-vs-base draws
 * are all ties: p = 1, so FP = 0 at every k.  Base-vs-new draws have U = k^2 with the base tied k-fold; by the
 * normal approximation with tie and continuity correction (scipy 1.10: p = 0.0131 at k = 4 for the most extreme
 * tie pattern of the new values, 0.0075 at k = 5 for the least extreme) no draw is significant at alpha = 0.01
 * for k <= 4 and every draw is for k >= 5: F1 = 0 (TP = 0) up to 4 VMs, exactly 1 from 5 VMs on. */
Test(timings, timing_set_f1_steps_from_0_to_1_at_5_vms)
{
	cr_assert_eq(mkdir(at("base"), 0700), 0);
	cr_assert_eq(mkdir(at("new"), 0700), 0);
	for (int vm = 0; vm < 8; vm++) {
		/* a slow warm-up row that would break both properties if it were kept */
		long b[] = { 50000 + 1000 * vm, 990, 1010, 980, 1020 };
		long n[] = { 100, 1100 + 10 * vm, 1100 + 10 * vm, 1100 + 10 * vm - 7, 1100 + 10 * vm + 7 };
		write_timings(at("base/vm%d.csv", vm), b, 5);
		write_timings(at("new/vm%d.csv", vm), n, 5);
	}
	struct emp_iter_opts o = { .warmup = 1 };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("base")), 8);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 1, at("new")), 8);
	uint32_t id = emp_cct_root(s->cct)->first_child->id;
	double v[2][8];
	size_t k2[2] = { 0, 0 };
	for (size_t i = 0; i < s->nvms; i++)
		v[s->vms[i].group][k2[s->vms[i].group]++] = emp_iter_value(&s->vms[i], id);
	cr_assert(k2[0] == 8 && k2[1] == 8);
	for (int i = 0; i < 8; i++) {
		cr_assert(v[0][i] == 1000, "base vm%d: %g", i, v[0][i]);
		cr_assert(v[1][i] == 1100 + 10 * i, "new vm%d: %g", i, v[1][i]);
	}
	for (size_t k = 2; k <= 8; k++) {
		struct emp_exactness_cell c;
		cr_assert_eq(emp_exactness_run(v[0], 8, v[1], 8, k, 1000, EMP_STATS_MWU, 0.01, 1 + k, &c), 0);
		cr_assert(c.fp == 0 && c.tn == 1000, "k %zu: fp %u tn %u", k, c.fp, c.tn);
		if (k <= 4)
			cr_assert(c.tp == 0 && c.fn == 1000 && c.f1 == 0, "k %zu: tp %u f1 %g", k, c.tp, c.f1);
		else
			cr_assert(c.tp == 1000 && c.fn == 0 && c.f1 == 1, "k %zu: tp %u f1 %g", k, c.tp, c.f1);
	}
	emp_iter_free(s);
}

Test(timings, sets_hold_one_kind_of_file)
{
	static const long ns[] = { 10, 20 };
	cr_assert_eq(mkdir(at("csv"), 0700), 0);
	cr_assert_eq(mkdir(at("mixed"), 0700), 0);
	cr_assert_eq(mkdir(at("dumps"), 0700), 0);
	cr_assert_eq(mkdir(at("empty"), 0700), 0);
	write_timings(at("csv/vm0.csv"), ns, 2);
	write_timings(at("mixed/vm0.csv"), ns, 2);
	write_file(at("mixed/vm1.emp"), "");
	write_file(at("dumps/vm0.emp"), "");
	struct emp_iter_opts o = { 0 };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("mixed")), -1);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("empty")), -1);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("nonexistent")), -1);
	cr_assert_eq(s->nvms, 0);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("csv")), 1);
	/* refused before any dump is opened: the dump here is not even readable, and nothing is added */
	cr_assert_eq(emp_iter_load_dir(s, NULL, 1, at("dumps")), -1);
	cr_assert_eq(emp_iter_load(s, NULL, 1, at("dumps/vm0.emp")), -1);
	cr_assert_eq(s->nvms, 1);
	cr_assert_eq(s->mode, EMP_ITER_MODE_PURE);
	emp_iter_free(s);
}

/* An emp-run experiment in DIR: runs.csv (the manifest's columns, as runner/manifest.h writes them) and the
 * directories of mode p, versions a and b. */
static void write_runs(const char *rows)
{
	cr_assert_eq(mkdir(at("p"), 0755), 0);
	cr_assert_eq(mkdir(at("p/a"), 0755), 0);
	cr_assert_eq(mkdir(at("p/b"), 0755), 0);
	char text[2048];
	snprintf(text, sizeof(text), "index,mode,version,vm,attempt,exit,elapsed_s,cpu_s,user_s,sys_s,voluntary_cs,"
				     "involuntary_cs,load_before,load_after,cpus,disturbed\n%s", rows);
	write_file(at("runs.csv"), text);
}

Test(timings, runs_of_an_emp_run_directory_last_attempt_per_vm)
{
	write_runs("0,p,a,1,1,0,2.5,1.0,0.9,0.1,1,1,0.1,0.1,0-1,1\n"
		   "1,p,b,1,1,0,3.0,3.0,2.9,0.1,1,1,0.1,0.1,0-1,0\n"
		   "0,p,a,1,2,0,1.25,1.125,1.0,0.125,1,1,0.1,0.1,0-1,0\n"
		   "4,p,a,10,1,0,1.5,1.5,1.5,0,1,1,0.1,0.1,0 2,0\n"
		   "2,p,a,2,1,0,2.0,1.75,1.5,0.25,1,1,0.1,0.1,0-1,0\n");
	char **labels;
	double *ns;
	cr_assert_eq(emp_timings_runs(at("p/a"), EMP_TIMINGS_RUN_CPU, &labels, &ns), 3);
	cr_assert_eq(ns[0], 1.125e9); /* vm1's second attempt; the first (disturbed) is not used */
	cr_assert_eq(ns[1], 1.75e9);
	cr_assert_eq(ns[2], 1.5e9);   /* vm10 after vm2: by number */
	cr_assert_str_eq(labels[2], at("p/a/vm10"));
	emp_timings_list_free(labels, 3);
	free(ns);
	cr_assert_eq(emp_timings_runs(at("p/a"), EMP_TIMINGS_RUN_ELAPSED, &labels, &ns), 3);
	cr_assert_eq(ns[0], 1.25e9);
	cr_assert_eq(ns[1], 2.0e9);
	emp_timings_list_free(labels, 3);
	free(ns);
	/* a set of them: one node, "run", one iteration per VM */
	struct emp_iter_opts o = { 0 };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("p/a")), 3);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 1, at("p/b")), 1);
	cr_assert(s->runs_set);
	cr_assert_eq(s->mode, EMP_ITER_MODE_PURE);
	cr_assert_eq(s->vms[3].iterations, 1);
	char *path = emp_iter_node_path(s, emp_cct_child(s->cct, emp_cct_root(s->cct), s->iter_gid));
	cr_assert_str_eq(path, "run");
	free(path);
	uint32_t id = emp_cct_child(s->cct, emp_cct_root(s->cct), s->iter_gid)->id;
	cr_assert_eq(emp_iter_value(&s->vms[3], id), 3.0e9);
	emp_iter_free(s);
}

Test(timings, runs_refusals)
{
	char **labels;
	double *ns;
	cr_assert_eq(emp_timings_runs(dir, EMP_TIMINGS_RUN_CPU, &labels, &ns), 0, "no ../../runs.csv: not emp-run's");
	write_runs("0,p,a,1,1,0,1,1,1,0,1,1,0.1,0.1,0,0\n"
		   "1,p,a,2,1,1,1,1,1,0,1,1,0.1,0.1,0,0\n");
	cr_assert_eq(emp_timings_runs(at("p/a"), EMP_TIMINGS_RUN_CPU, &labels, &ns), -1, "vm2 failed");
	cr_assert_null(ns);
	cr_assert_eq(emp_timings_runs(at("p/b"), EMP_TIMINGS_RUN_CPU, &labels, &ns), -1, "no run of p/b");
	write_file(at("runs.csv"), "mode,version,vm\np,a,1\n");
	cr_assert_eq(emp_timings_runs(at("p/a"), EMP_TIMINGS_RUN_CPU, &labels, &ns), -1, "no attempt column");
}

Test(timings, runs_and_timing_files_are_not_mixed)
{
	write_runs("0,p,a,1,1,0,1,1,1,0,1,1,0.1,0.1,0,0\n");
	write_timings(at("t.csv"), (const long[]){ 5, 6 }, 2);
	cr_assert_eq(mkdir(at("t"), 0755), 0);
	write_timings(at("t/vm1.csv"), (const long[]){ 5, 6 }, 2);
	struct emp_iter_opts o = { 0 };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("p/a")), 1);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 1, at("t")), -1);
	emp_iter_free(s);
	s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 0, at("t")), 1);
	cr_assert_eq(emp_iter_load_dir(s, NULL, 1, at("p/a")), -1);
	emp_iter_free(s);
}
