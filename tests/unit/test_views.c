/* SPDX-License-Identifier: MIT */
/* test_views.c - the profile views (tree, top, collapsed, flame) on a dump written here with known samples. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "dump_writer.h"

static char dump_path[] = "/tmp/emp-views-XXXXXX";

static int file_write(void *arg, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -5;
}

/* Symbols: 0 Main.main, 1 A.run, 2 A.hot, 3 B.cold, 4 [unknown_Java], 5 libz.so.1!deflate, 6 X.<init> with a
 * descriptor holding ';'.  Thread 0 "main": 6x main>run>hot, 2x main>run, 1x main>cold.
 * Thread 1 "worker-1": 3x run>hot>deflate, 1x [unknown_Java], 1x main>init. */
static void write_views_dump(void)
{
	int fd = mkstemp(dump_path);
	cr_assert(fd >= 0);
	close(fd);
	FILE *f = fopen(dump_path, "wb");
	struct emp_dump_writer *w = emp_dump_writer_new(file_write, f);
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

static int run(int (*cmd)(int, char **), const char *a0, const char *a1, const char *a2, const char *a3)
{
	char *argv[6] = { (char *)a0 };
	int argc = 1;
	const char *extra[] = { a1, a2, a3 };
	for (int i = 0; i < 3; i++)
		if (extra[i])
			argv[argc++] = (char *)extra[i];
	argv[argc++] = dump_path;
	optind = 0; /* reinitialize getopt for every command run */
	int rc = cmd(argc, argv);
	fflush(stdout);
	return rc;
}

TestSuite(views, .init = write_views_dump, .fini = remove_views_dump);

Test(views, tree_csv_paths_and_counts)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_tree, "tree", "--format=csv", "--min-pct=0", NULL), 0);
	cr_assert_stdout_eq_str(
		"path,depth,method,total_samples,total_pct,self_samples,self_pct\n"
		"Main.main,1,Main.main,10,71.428571428571431,0,0\n"
		"Main.main;A.run,2,A.run,8,57.142857142857146,2,14.285714285714286\n"
		"Main.main;A.run;A.hot,3,A.hot,6,42.857142857142854,6,42.857142857142854\n"
		"Main.main;B.cold,2,B.cold,1,7.1428571428571432,1,7.1428571428571432\n"
		"Main.main;X.<init>,2,X.<init>,1,7.1428571428571432,1,7.1428571428571432\n"
		"A.run,1,A.run,3,21.428571428571427,0,0\n"
		"A.run;A.hot,2,A.hot,3,21.428571428571427,0,0\n"
		"A.run;A.hot;libz.so.1!deflate,3,libz.so.1!deflate,3,21.428571428571427,3,21.428571428571427\n"
		"[unknown_Java],1,[unknown_Java],1,7.1428571428571432,1,7.1428571428571432\n");
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
