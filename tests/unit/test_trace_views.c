/* SPDX-License-Identifier: MIT */
/* test_trace_views.c - the profile views (top, tree, collapsed, flame) and `calls` on a trace dump written here
 * with known calls, on a 1 GHz clock so a tick is a ns and every expected time is worked out by hand below.
 *
 * Thread 0 "main" (ticks):            Thread 1 "worker":
 *   Main.main   0..1000                 R.rec       0..500
 *     A.run     100..700                  R.rec     100..400
 *       A.hot   200..500                    A.hot   150..250 (ends by an exception)
 *       A.hot   550..650
 *     B.cold    800..900
 * Self times: main 1000-600-100 = 300, run 600-300-100 = 200, hot 300+100 (under run) and 100 (under rec;rec),
 * cold 100, outer rec 500-300 = 200, inner rec 300-100 = 200.  Traced time: the root calls, 1000 + 500 = 1500. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "dump_writer.h"
#include "dumpfile.h"

static char dump_path[] = "/tmp/emp-trace-views-XXXXXX";

static int file_write(void *arg, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -5;
}

enum { MAIN, RUN, HOT, COLD, REC, REC_COPY };

/* The inner R.rec is a method of its own with the same name (REC_COPY: a second class loader's R). */
static int rec_copy;

static void write_trace_dump(void)
{
	int fd = mkstemp(dump_path);
	cr_assert(fd >= 0);
	close(fd);
	FILE *f = fopen(dump_path, "wb");
	struct emp_dump_writer *w = emp_dump_writer_new(file_write, f);
	cr_assert(w);
	cr_assert_eq(emp_dump_write_header(w), 0);
	const char *kv[] = { "agent", "emp", "mode", "trace", "clock_hz", "1000000000", "clock_ref_ticks", "0",
			     "clock_ref_mono_ns", "0" };
	cr_assert_eq(emp_dump_write_meta(w, kv, 5), 0);
	emp_dump_add_method(w, MAIN, EMP_FRAME_JAVA, 0, "Main", "main", "([Ljava/lang/String;)V");
	emp_dump_add_method(w, RUN, EMP_FRAME_JAVA, 0, "A", "run", "()V");
	emp_dump_add_method(w, HOT, EMP_FRAME_JAVA, 0, "A", "hot", "()V");
	emp_dump_add_method(w, COLD, EMP_FRAME_JAVA, 0, "B", "cold", "()V");
	emp_dump_add_method(w, REC, EMP_FRAME_JAVA, 0, "R", "rec", "(I)V");
	emp_dump_add_method(w, REC_COPY, EMP_FRAME_JAVA, 0, "R", "rec", "(I)V");
	emp_dump_add_thread(w, 0, 100, 1, "main");
	emp_dump_add_thread(w, 1, 101, 1, "worker");
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	struct emp_dump_events *e0 = emp_dump_events_new(0), *e1 = emp_dump_events_new(1);
	emp_dump_events_enter(e0, 0, MAIN);
	emp_dump_events_enter(e0, 100, RUN);
	emp_dump_events_enter(e0, 200, HOT);
	emp_dump_events_exit(e0, 500, 0);
	emp_dump_events_enter(e0, 550, HOT);
	emp_dump_events_exit(e0, 650, 0);
	emp_dump_events_exit(e0, 700, 0);
	emp_dump_events_enter(e0, 800, COLD);
	emp_dump_events_exit(e0, 900, 0);
	emp_dump_events_exit(e0, 1000, 0);
	emp_dump_events_enter(e1, 0, REC);
	emp_dump_events_enter(e1, 100, rec_copy ? REC_COPY : REC);
	emp_dump_events_enter(e1, 150, HOT);
	emp_dump_events_exit(e1, 250, 1);
	emp_dump_events_exit(e1, 400, 0);
	emp_dump_events_exit(e1, 500, 0);
	cr_assert_eq(emp_dump_events_flush(w, e0), 0);
	cr_assert_eq(emp_dump_events_flush(w, e1), 0);
	/* records after the end of the recording: said apart from the losses */
	const char *cn[] = { "lost_ring_full", "lost_after_shutdown" };
	const uint64_t cv[] = { 0, 7 };
	cr_assert_eq(emp_dump_write_counters(w, cn, cv, 2), 0);
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	emp_dump_events_free(e0);
	emp_dump_events_free(e1);
	emp_dump_writer_free(w);
	cr_assert_eq(fclose(f), 0);
}

static void remove_trace_dump(void)
{
	unlink(dump_path);
}

/* Run @cmd on the dump with up to three options; stdout is redirected by the test. */
static int run(int (*cmd)(int, char **), const char *a0, const char *a1, const char *a2, const char *a3)
{
	return emp_test_run_cmd(cmd, dump_path, a0, a1, a2, a3);
}

TestSuite(trace_views, .init = write_trace_dump, .fini = remove_trace_dump);

Test(trace_views, collapsed_weighs_each_context_by_its_self_ns)
{
	cr_redirect_stdout();
	cr_redirect_stderr();
	cr_assert_eq(run(emp_cmd_collapsed, "collapsed", NULL, NULL, NULL), 0);
	/* A.hot's lines add up to its self_ns in `calls` (400 + 100 = 500), R.rec's too (200 + 200 = 400) */
	cr_assert_stdout_eq_str("Main.main 300\n"
				"Main.main;A.run 200\n"
				"Main.main;A.run;A.hot 400\n"
				"Main.main;B.cold 100\n"
				"R.rec 200\n"
				"R.rec;R.rec 200\n"
				"R.rec;R.rec;A.hot 100\n");
}

Test(trace_views, calls_self_ns_are_the_folded_weights)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_calls, "calls", "--format=csv", NULL, NULL), 0);
	/* rows by total_ns (a recursive method counts each level: R.rec 500 + 300); integer ns; the quantiles are
	 * the middles of their histogram buckets, capped at the max (1000 falls in [992, 1008): middle 1000; 100 in
	 * [100, 102): 101, so A.hot's median of 300, 100, 100 is 101 and B.cold's one call is capped at 100) */
	cr_assert_stdout_eq_str("method,calls,total_ns,self_ns,mean_ns,p50_ns,p99_ns,max_ns,threw\n"
				"Main.main,1,1000,300,1000,1000,1000,1000,0\n"
				"R.rec,2,800,400,400,300,500,500,0\n"
				"A.run,1,600,200,600,600,600,600,0\n"
				"A.hot,3,500,500,167,101,300,300,1\n"
				"B.cold,1,100,100,100,100,100,100,0\n");
}

/* top's csv of the dump: a method's total counts its outermost calls (R.rec 500, not 800); shares of 1500 ns */
static const char top_csv[] = "method,self_ns,total_ns,self_pct,total_pct,calls\n"
			      "A.hot,500,500,33.333333333333336,33.333333333333336,3\n"
			      "R.rec,400,500,26.666666666666668,33.333333333333336,2\n"
			      "Main.main,300,1000,20,66.66666666666667,1\n"
			      "A.run,200,600,13.333333333333334,40,1\n"
			      "B.cold,100,100,6.666666666666667,6.666666666666667,1\n";

Test(trace_views, top_weighs_by_traced_time)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_top, "top", "--format=csv", NULL, NULL), 0);
	cr_assert_stdout_eq_str(top_csv);
}

static void write_rec_copy_dump(void)
{
	rec_copy = 1;
	write_trace_dump();
}

/* Two methods of one name, one inside the other: `top` cannot fold them chunk by chunk (trace_fold.h) and reads the
 * dump into a tree instead, with the same figures. */
Test(trace_views_rec_copy, top_counts_a_call_inside_its_namesake_once, .init = write_rec_copy_dump,
     .fini = remove_trace_dump)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_top, "top", "--format=csv", NULL, NULL), 0);
	cr_assert_stdout_eq_str(top_csv);
}

Test(trace_views, top_text_says_the_traced_time)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_top, "top", NULL, NULL, NULL), 0);
	char expect[4096];
	snprintf(expect, sizeof(expect),
		 "%s: 8 traced calls folded in (0 still open at the end, 0 exits without entry)\n"
		 "%s: mode=trace, 0 samples\n"
		 "%s: losses and sampler outcomes: none\n"
		 "%s: 7 records came after the recording ended (duration=, emp-attach stop or the JVM's end; counter "
		 "lost_after_shutdown): outside it, not lost from it\n"
		 "1500 ns of traced time in the profile (0.000 s, the root calls of every thread)\n"
		 "\n"
		 "Flat profile (traced time)\n"
		 "method     self_ns  total_ns  self_pct  total_pct  calls\n"
		 "A.hot          500       500     33.33      33.33      3\n"
		 "R.rec          400       500     26.67      33.33      2\n"
		 "Main.main      300      1000     20.00      66.67      1\n"
		 "A.run          200       600     13.33      40.00      1\n"
		 "B.cold         100       100      6.67       6.67      1\n",
		 dump_path, dump_path, dump_path, dump_path);
	cr_assert_stdout_eq_str(expect);
}

Test(trace_views, tree_min_pct_cuts_by_traced_time)
{
	cr_redirect_stdout();
	/* 10 % of 1500 ns = 150: B.cold (100) and R.rec;R.rec;A.hot (100) are left out */
	cr_assert_eq(run(emp_cmd_tree, "tree", "--format=csv", "--min-pct=10", NULL), 0);
	cr_assert_stdout_eq_str(
		"path,depth,method,total_samples,total_pct,self_samples,self_pct,calls,total_ns,self_ns\n"
		"Main.main,1,Main.main,0,0,0,0,1,1000,300\n"
		"Main.main;A.run,2,A.run,0,0,0,0,1,600,200\n"
		"Main.main;A.run;A.hot,3,A.hot,0,0,0,0,2,400,400\n"
		"R.rec,1,R.rec,0,0,0,0,1,500,200\n"
		"R.rec;R.rec,2,R.rec,0,0,0,0,1,300,200\n");
}

Test(trace_views, tree_text_shows_time_and_its_share)
{
	cr_redirect_stdout();
	cr_assert_eq(run(emp_cmd_tree, "tree", "--min-pct=30", NULL, NULL), 0);
	char expect[4096];
	snprintf(expect, sizeof(expect),
		 "%s: 8 traced calls folded in (0 still open at the end, 0 exits without entry)\n"
		 "%s: mode=trace, 0 samples\n"
		 "%s: losses and sampler outcomes: none\n"
		 "%s: 7 records came after the recording ended (duration=, emp-attach stop or the JVM's end; counter "
		 "lost_after_shutdown): outside it, not lost from it\n"
		 "paths under 30.00 %% of the traced time (0.002 ms) are left out (--min-pct)\n"
		 "\n"
		 "Calling-context tree (traced time)\n"
		 "calls  total_ms  total%%  self_ms  self%%  method\n"
		 "    1     0.001   66.67    0.000  20.00  Main.main\n"
		 "    1     0.001   40.00    0.000  13.33    A.run\n"
		 "    1     0.001   33.33    0.000  13.33  R.rec\n",
		 dump_path, dump_path, dump_path, dump_path);
	cr_assert_stdout_eq_str(expect);
}

Test(trace_views, flame_frames_are_inclusive_ns)
{
	char out[] = "/tmp/emp-trace-flame-XXXXXX";
	int fd = mkstemp(out);
	cr_assert(fd >= 0);
	close(fd);
	cr_redirect_stderr();
	cr_assert_eq(run(emp_cmd_flame, "flame", "-o", out, NULL), 0);
	FILE *f = fopen(out, "r");
	cr_assert(f);
	char *svg = calloc(1, 1 << 20);
	size_t n = fread(svg, 1, (1 << 20) - 1, f);
	fclose(f);
	unlink(out);
	cr_assert(n > 0);
	static const char *const want[] = {
		"<title>Main.main (1000 ns, 66.67%)</title>", "<title>A.run (600 ns, 40.00%)</title>",
		"<title>A.hot (400 ns, 26.67%)</title>",      "<title>B.cold (100 ns, 6.67%)</title>",
		"<title>R.rec (500 ns, 33.33%)</title>",      "<title>R.rec (300 ns, 20.00%)</title>",
		"<title>A.hot (100 ns, 6.67%)</title>",       "traced time 0.000002 s",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(strstr(svg, want[i]), "missing %s", want[i]);
	/* Main.main spans 1000/1500 of the width, R.rec follows it */
	cr_expect(strstr(svg, "data-x=\"0.000000000\" data-w=\"0.666666667\" data-d=\"1\""));
	cr_expect(strstr(svg, "data-x=\"0.666666667\" data-w=\"0.333333333\" data-d=\"1\""));
	cr_expect(!strstr(svg, "samples,"), "no frame is counted in samples");
	free(svg);
}
