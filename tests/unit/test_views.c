/* SPDX-License-Identifier: MIT */
/* test_views.c - the profile views (tree, top, collapsed, flame) on a dump written here with known samples. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cct.h"
#include "commands.h"
#include "dump_writer.h"
#include "dumpfile.h"
#include "flame.h"
#include "folded.h"
#include "symtab.h"

static char dump_path[] = "/tmp/emp-views-XXXXXX";

/* Symbols: 0 Main.main, 1 A.run, 2 A.hot, 3 B.cold, 4 [unknown_Java], 5 libz.so.1!deflate, 6 X.<init> with a
 * descriptor holding ';'.  Thread 0 "main": 6x main>run>hot, 2x main>run, 1x main>cold.
 * Thread 1 "worker-1": 3x run>hot>deflate, 1x [unknown_Java], 1x main>init. */
static void write_views_dump(void)
{
	int fd = mkstemp(dump_path);
	cr_assert(fd >= 0);
	close(fd);
	FILE *f = fopen(dump_path, "wb");
	struct emp_dump_writer *w = emp_dump_writer_new(emp_test_file_sink, f);
	cr_assert(w);
	cr_assert_eq(emp_dump_write_header(w), 0);
	const char *kv[] = { "agent", "emp", "mode", "sample", "interval_ns", "1000000", "sample_clock", "cpu",
			     "sample_engine", "perf_cpu_clock", "sample_signal", "SIGPROF" };
	cr_assert_eq(emp_dump_write_meta(w, kv, 6), 0);
	emp_dump_add_method(w, 0, EMP_FRAME_JAVA, 0, "Main", "main", "([Ljava/lang/String;)V");
	emp_dump_add_method(w, 1, EMP_FRAME_JAVA, 0, "A", "run", "()V");
	emp_dump_add_method(w, 2, EMP_FRAME_JAVA, 0, "A", "hot", "()V");
	emp_dump_add_method(w, 3, EMP_FRAME_JAVA, 0, "B", "cold", "()V");
	emp_dump_add_method(w, 4, EMP_FRAME_PSEUDO, 0, "", "[unknown_Java]", "");
	emp_dump_add_method(w, 5, EMP_FRAME_NATIVE, 0, "libz.so.1", "deflate", "");
	emp_dump_add_method(w, 6, EMP_FRAME_JAVA, 0, "X", "<init>", "(Ljava/lang/String;)V");
	emp_dump_add_thread(w, 0, 100, 1, "main");
	emp_dump_add_thread(w, 1, 101, 1, "worker-1");
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	struct emp_dump_events *e0 = emp_dump_events_new(0), *e1 = emp_dump_events_new(1);
	const uint32_t s_hot[] = { 0, 1, 2 }, s_run[] = { 0, 1 }, s_cold[] = { 0, 3 }, s_z[] = { 1, 2, 5 },
		       s_unk[] = { 4 }, s_init[] = { 0, 6 };
	uint64_t t = 1000;
	for (int i = 0; i < 6; i++)
		emp_dump_events_sample(e0, t++, EMP_STATE_RUNNING, s_hot, 3);
	for (int i = 0; i < 2; i++)
		emp_dump_events_sample(e0, t++, EMP_STATE_RUNNING, s_run, 2);
	emp_dump_events_sample(e0, t++, EMP_STATE_RUNNING, s_cold, 2);
	for (int i = 0; i < 3; i++)
		emp_dump_events_sample(e1, t++, EMP_STATE_NATIVE, s_z, 3);
	emp_dump_events_sample(e1, t++, EMP_STATE_RUNNING, s_unk, 1);
	emp_dump_events_sample(e1, t++, EMP_STATE_RUNNING, s_init, 2);
	cr_assert_eq(emp_dump_events_flush(w, e0), 0);
	cr_assert_eq(emp_dump_events_flush(w, e1), 0);
	const char *names[] = { "samples", "sample_signals", "sample_thread_time_ns", "agct_unknown_Java" };
	const uint64_t values[] = { 14, 14, 14000000, 1 };
	cr_assert_eq(emp_dump_write_counters(w, names, values, 4), 0);
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	emp_dump_events_free(e0);
	emp_dump_events_free(e1);
	emp_dump_writer_free(w);
	fclose(f);
}

static void remove_views_dump(void)
{
	unlink(dump_path);
}

/* Run @cmd on the dump with up to three options; stdout is redirected by the test. */
static int run(int (*cmd)(int, char **), const char *a0, const char *a1, const char *a2, const char *a3)
{
	return emp_test_run_cmd(cmd, dump_path, a0, a1, a2, a3);
}

TestSuite(views, .init = write_views_dump, .fini = remove_views_dump);

Test(views, tree_csv_paths_and_counts)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_tree, "tree", "--format=csv", "--min-pct=0", NULL), 0);
	cr_assert_stdout_eq_str(
		"path,depth,method,total_samples,total_pct,self_samples,self_pct\n"
		"Main.main,1,Main.main,10,71.42857142857143,0,0\n"
		"Main.main;A.run,2,A.run,8,57.142857142857146,2,14.285714285714286\n"
		"Main.main;A.run;A.hot,3,A.hot,6,42.857142857142854,6,42.857142857142854\n"
		"Main.main;B.cold,2,B.cold,1,7.142857142857143,1,7.142857142857143\n"
		"Main.main;X.<init>,2,X.<init>,1,7.142857142857143,1,7.142857142857143\n"
		"A.run,1,A.run,3,21.428571428571427,0,0\n"
		"A.run;A.hot,2,A.hot,3,21.428571428571427,0,0\n"
		"A.run;A.hot;libz.so.1!deflate,3,libz.so.1!deflate,3,21.428571428571427,3,21.428571428571427\n"
		"[unknown_Java],1,[unknown_Java],1,7.142857142857143,1,7.142857142857143\n");
}

Test(views, tree_min_pct_threads_and_signatures)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_tree, "tree", "--format=csv", "--threads=work*", "--signatures"), 0);
	cr_assert_stdout_eq_str(
		"path,depth,method,total_samples,total_pct,self_samples,self_pct\n"
		"A.run()V,1,A.run()V,3,60,0,0\n"
		"A.run()V;A.hot()V,2,A.hot()V,3,60,0,0\n"
		"A.run()V;A.hot()V;libz.so.1!deflate,3,libz.so.1!deflate,3,60,3,60\n"
		/* a tie at 1 sample: the symbol interned first comes first */
		"[unknown_Java],1,[unknown_Java],1,20,1,20\n"
		"Main.main([Ljava/lang/String:)V,1,Main.main([Ljava/lang/String;)V,1,20,0,0\n"
		"Main.main([Ljava/lang/String:)V;X.<init>(Ljava/lang/String:)V,2,X.<init>(Ljava/lang/String;)V,1,20,1,"
		"20\n");
}

Test(views, tree_text_notes_engine_rate_and_failures)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_tree, "tree", "--min-pct=50", NULL, NULL), 0);
	char expect[4096];
	snprintf(expect, sizeof(expect),
		 "%s: mode=sample, clock=cpu, engine=perf_cpu_clock (SIGPROF), interval 1.000 ms\n"
		 "%s: 14 samples (14 timer signals) over 0.014 s of sampled thread CPU time: 1000.0/s achieved, "
		 "100.0 %% of the 14 expected\n"
		 "%s: losses and sampler outcomes: agct_unknown_Java=1 (7.14 %%)\n"
		 "paths under 50.00 %% of 14 samples are left out (--min-pct)\n"
		 "\n"
		 "Calling-context tree\n"
		 "total  total%%  self  self%%  method\n"
		 "   10   71.43     0   0.00  Main.main\n"
		 "    8   57.14     2  14.29    A.run\n",
		 dump_path, dump_path, dump_path);
	cr_assert_stdout_eq_str(expect);
}

Test(views, top_csv_counts_recursion_once)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_top, "top", "--format=csv", NULL, NULL), 0);
	cr_assert_stdout_eq_str("method,self_samples,total_samples,self_pct,total_pct\n"
				"A.hot,6,9,42.857142857142854,64.28571428571429\n"
				"libz.so.1!deflate,3,3,21.428571428571427,21.428571428571427\n"
				"A.run,2,11,14.285714285714286,78.57142857142857\n"
				"B.cold,1,1,7.142857142857143,7.142857142857143\n"
				"X.<init>,1,1,7.142857142857143,7.142857142857143\n"
				"[unknown_Java],1,1,7.142857142857143,7.142857142857143\n"
				"Main.main,0,10,0,71.42857142857143\n");
}

Test(views, top_include_exclude)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_top, "top", "--format=csv", "--include=A.*", "--exclude=*deflate"), 0);
	cr_assert_stdout_eq_str("method,self_samples,total_samples,self_pct,total_pct\n"
				"A.hot,6,6,75,75\n"
				"A.run,2,8,25,100\n"
				"Main.main,0,8,0,100\n");
}

Test(views, collapsed_escapes_semicolons)
{
	cr_redirect_stdout();
	cr_redirect_stderr(); /* the run description */
	cr_assert_eq(run(emp_cmd_collapsed, "collapsed", "--signatures", NULL, NULL), 0);
	/* pre-order: a caller's own samples before its callees' */
	cr_assert_stdout_eq_str("Main.main([Ljava/lang/String:)V;A.run()V 2\n"
				"Main.main([Ljava/lang/String:)V;A.run()V;A.hot()V 6\n"
				"Main.main([Ljava/lang/String:)V;B.cold()V 1\n"
				"Main.main([Ljava/lang/String:)V;X.<init>(Ljava/lang/String:)V 1\n"
				"A.run()V;A.hot()V;libz.so.1!deflate 3\n"
				"[unknown_Java] 1\n");
}

/* The flame SVG: names escaped, every <g> closed, one <title> per frame with the exact counts. */
Test(views, flame_svg_is_escaped_and_balanced)
{
	struct emp_symtab *st = emp_symtab_new();
	struct emp_cct *c = emp_cct_new();
	uint32_t a = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "p.A", "<init>", "()V");
	uint32_t b = emp_symtab_intern(st, EMP_FRAME_NATIVE, 0, "lib&.so", "x\"<y>'", "");
	uint32_t u = emp_symtab_intern(st, EMP_FRAME_PSEUDO, 0, "", "[unknown_Java]", "");
	const uint32_t s1[] = { a, b }, s2[] = { u };
	emp_cct_add_stack(c, s1, 2, 3);
	emp_cct_add_stack(c, s2, 1, 1);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct emp_flame_opts o = { .title = "t<1>", .subtitle = "s&2" };
	cr_assert_eq(emp_flame_write(m, c, st, &o), 0);
	fclose(m);
	cr_expect(strstr(buf, "<title>p.A.&lt;init&gt; (3 samples, 75.00%)</title>"), "%s", buf);
	cr_expect(strstr(buf, "<title>lib&amp;.so!x&quot;&lt;y&gt;&apos; (3 samples, 75.00%)</title>"));
	cr_expect(strstr(buf, "<title>[unknown_Java] (1 samples, 25.00%)</title>"));
	cr_expect(strstr(buf, ">t&lt;1&gt;</text>"));
	cr_expect(strstr(buf, ">s&amp;2</text>"));
	cr_expect_null(strstr(buf, "<init>"));
	size_t open = 0, close = 0;
	for (const char *p = buf; (p = strstr(p, "<g")); p++)
		open++;
	for (const char *p = buf; (p = strstr(p, "</g>")); p++)
		close++;
	cr_expect_eq(open, 4); /* three frames and the frames group */
	cr_expect_eq(close, 4);
	cr_expect(strstr(buf, "</svg>\n"));
	free(buf);
	emp_cct_free(c);
	emp_symtab_free(st);
}
