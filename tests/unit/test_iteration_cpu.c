/* SPDX-License-Identifier: MIT */
/* test_iteration_cpu.c - per-VM values of the iteration node with the wall and cpu metrics and --drop-disturbed, on
 * constructed trace dumps whose iterations have known wall and CPU times (clock_hz 1e9: a tick is a ns). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "dump_writer.h"
#include "dumpfile.h"
#include "iterations.h"

struct it {
	uint64_t wall, cpu; /* ns; cpu 0: no CPU events */
};

/* Write a trace dump to @path: the iterations @its of Main.iter one after the other on thread 0, each calling
 * Main.work for 500 ns. */
static void write_dump(const char *path, const struct it *its, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	struct emp_dump_writer *w = emp_dump_writer_new(emp_test_file_sink, f);
	struct emp_dump_events *b = emp_dump_events_new(0);
	cr_assert(w && b);
	static const char *const meta[] = { "mode", "trace", "clock", "monotonic", "clock_hz", "1000000000" };
	cr_assert_eq(emp_dump_write_header(w), 0);
	cr_assert_eq(emp_dump_write_meta(w, meta, 3), 0);
	cr_assert_eq(emp_dump_add_method(w, 0, EMP_FRAME_JAVA, EMP_METHOD_ITERATION, "Main", "iter", "()V"), 0);
	cr_assert_eq(emp_dump_add_method(w, 1, EMP_FRAME_JAVA, 0, "Main", "work", "()V"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 0, 1, EMP_THREAD_JAVA, "main"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	uint64_t t = 1000, cpu = 77;
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(emp_dump_events_enter(b, t, 0), 0);
		if (its[i].cpu)
			cr_assert_eq(emp_dump_events_cpu(b, t, cpu), 0);
		cr_assert_eq(emp_dump_events_enter(b, t + 100, 1), 0);
		cr_assert_eq(emp_dump_events_exit(b, t + 600, 0), 0);
		if (its[i].cpu)
			cr_assert_eq(emp_dump_events_cpu(b, t + its[i].wall, cpu + its[i].cpu), 0);
		cr_assert_eq(emp_dump_events_exit(b, t + its[i].wall, 0), 0);
		t += its[i].wall + 50;
		cpu += its[i].cpu + 10;
	}
	cr_assert_eq(emp_dump_events_flush(w, b), 0);
	static const char *const end[] = { "reason", "test" };
	cr_assert_eq(emp_dump_write_end(w, end, 1), 0);
	emp_dump_events_free(b);
	emp_dump_writer_free(w);
	cr_assert_eq(fclose(f), 0);
}

static char dir[64];

static void setup(void)
{
	strcpy(dir, "/tmp/emp-test-iter.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(iteration_cpu, .init = setup, .fini = teardown);

/* wall 1000/cpu 1000, wall 2000/cpu 1000 (disturbed at 1.1), wall 1500/cpu 1400; then a second VM. */
static const struct it vm1[] = { { 1000, 1000 }, { 2000, 1000 }, { 1500, 1400 } };
static const struct it vm2[] = { { 3000, 2900 }, { 4000, 1000 }, { 5000, 1000 }, { 600, 600 } };

/* Load vm1 and vm2 with @o; the node ids of Main.iter and Main.iter;Main.work through @root and @work. */
static struct emp_iter_set *load(const struct emp_iter_opts *o, uint32_t *root, uint32_t *work)
{
	char p1[96], p2[96];
	snprintf(p1, sizeof(p1), "%s/vm1.emp", dir);
	snprintf(p2, sizeof(p2), "%s/vm2.emp", dir);
	write_dump(p1, vm1, 3);
	write_dump(p2, vm2, 4);
	struct emp_iter_set *s = emp_iter_new(o);
	cr_assert_eq(emp_iter_load(s, NULL, 0, p1), 0);
	cr_assert_eq(emp_iter_load(s, NULL, 1, p2), 0);
	struct emp_cct_node *r = emp_cct_child(s->cct, emp_cct_root(s->cct), s->iter_gid);
	*root = r->id;
	*work = emp_cct_child(s->cct, r, emp_symtab_intern(s->st, EMP_FRAME_JAVA, 0, "Main", "work", "()V"))->id;
	return s;
}

Test(iteration_cpu, wall_metric_keeps_wall_times)
{
	struct emp_iter_opts o = { 0 };
	uint32_t root, work;
	struct emp_iter_set *s = load(&o, &root, &work);
	cr_assert_eq(s->vms[0].iterations, 3);
	cr_assert_float_eq(emp_iter_value(&s->vms[0], root), 1500.0, 1e-9);
	cr_assert_float_eq(emp_iter_value(&s->vms[1], root), 12600.0 / 4, 1e-9);
	cr_assert_float_eq(emp_iter_value(&s->vms[0], work), 500.0, 1e-9);
	cr_assert_eq(s->dropped_disturbed, 0);
	emp_iter_free(s);
}

Test(iteration_cpu, cpu_metric_replaces_the_iteration_node_only)
{
	struct emp_iter_opts o = { .metric = EMP_ITER_METRIC_CPU };
	uint32_t root, work;
	struct emp_iter_set *s = load(&o, &root, &work);
	cr_assert_eq(s->vms[0].iterations, 3);
	cr_assert_float_eq(emp_iter_value(&s->vms[0], root), 3400.0 / 3, 1e-9);
	cr_assert_float_eq(emp_iter_value(&s->vms[1], root), 5500.0 / 4, 1e-9);
	cr_assert_float_eq(emp_iter_value(&s->vms[0], work), 500.0, 1e-9); /* still the wall time */
	cr_assert_float_eq(emp_iter_var(&s->vms[0], root), (2 * (1000.0 - 3400.0 / 3) * (1000.0 - 3400.0 / 3) +
							   (1400.0 - 3400.0 / 3) * (1400.0 - 3400.0 / 3)) / 2, 1e-6);
	emp_iter_free(s);
}

Test(iteration_cpu, drop_disturbed_counts_and_drops)
{
	struct emp_iter_opts o = { .drop_disturbed = 1.1 };
	uint32_t root, work;
	struct emp_iter_set *s = load(&o, &root, &work);
	cr_assert_eq(s->dropped_disturbed, 3); /* vm1's second, vm2's second and third */
	cr_assert_eq(s->vms[0].iterations, 2);
	cr_assert_eq(s->vms[1].iterations, 2);
	cr_assert_float_eq(emp_iter_value(&s->vms[0], root), 1250.0, 1e-9);
	cr_assert_float_eq(emp_iter_value(&s->vms[1], root), 1800.0, 1e-9);
	emp_iter_free(s);

	o.metric = EMP_ITER_METRIC_CPU;
	o.warmup = 1; /* vm1: 1000/1000 is warm-up, only the measurement iterations are judged */
	s = load(&o, &root, &work);
	cr_assert_eq(s->dropped_disturbed, 3);
	cr_assert_eq(s->vms[0].iterations, 1);
	cr_assert_float_eq(emp_iter_value(&s->vms[0], root), 1400.0, 1e-9);
	cr_assert_eq(s->vms[1].iterations, 1);
	cr_assert_float_eq(emp_iter_value(&s->vms[1], root), 600.0, 1e-9);
	emp_iter_free(s);
}

Test(iteration_cpu, cpu_needs_cpu_events_and_dumps)
{
	char p[96];
	snprintf(p, sizeof(p), "%s/old.emp", dir);
	static const struct it nocpu[] = { { 1000, 0 }, { 1000, 0 } };
	write_dump(p, nocpu, 2);
	struct emp_iter_opts o = { .metric = EMP_ITER_METRIC_CPU };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load(s, NULL, 0, p), -1);
	emp_iter_free(s);
	o = (struct emp_iter_opts){ .drop_disturbed = 1.5 };
	s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load(s, NULL, 0, p), -1);
	emp_iter_free(s);
	o = (struct emp_iter_opts){ 0 };
	s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load(s, NULL, 0, p), 0); /* the wall metric reads it */
	emp_iter_free(s);

	snprintf(p, sizeof(p), "%s/t.csv", dir);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs("iteration,ns\n0,1000\n", f);
	fclose(f);
	o = (struct emp_iter_opts){ .metric = EMP_ITER_METRIC_CPU };
	s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load_timings(s, 0, p), -1);
	emp_iter_free(s);
}
