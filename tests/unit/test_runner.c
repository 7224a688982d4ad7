/* SPDX-License-Identifier: MIT */
/* test_runner.c - emp-run's pure parts: shell-like splitting (runner/argv.h), the run plan and the disturbed rule
 * (runner/experiment.h), the manifest's done rule (runner/manifest.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "argv.h"
#include "experiment.h"
#include "manifest.h"

static void split_is(const char *s, int n, const char *const *want)
{
	char **argv;
	int argc;
	const char *err;
	cr_assert_eq(emp_argv_split(s, &argv, &argc, &err), 0, "%s: %s", s, err ? err : "");
	cr_assert_eq(argc, n, "%s: %d words", s, argc);
	for (int i = 0; i < n; i++)
		cr_assert_str_eq(argv[i], want[i], "%s: word %d", s, i);
	cr_assert_null(argv[n]);
	emp_argv_free(argv);
}

static void split_fails(const char *s, const char *why)
{
	char **argv;
	int argc;
	const char *err;
	cr_assert_eq(emp_argv_split(s, &argv, &argc, &err), -1, "%s", s);
	cr_assert_str_eq(err, why, "%s", s);
	cr_assert_null(argv);
}

Test(argv, splits_like_a_shell)
{
	split_is("java -cp v1.jar com.acme.Main", 4, (const char *[]){ "java", "-cp", "v1.jar", "com.acme.Main" });
	split_is("  a\t b\n", 2, (const char *[]){ "a", "b" });
	split_is("a 'b c' \"d e\"", 3, (const char *[]){ "a", "b c", "d e" });
	split_is("x'y'\"z\"w", 1, (const char *[]){ "xyzw" });
	split_is("'' \"\"", 2, (const char *[]){ "", "" });
	split_is("a\\ b c\\'d", 2, (const char *[]){ "a b", "c'd" });
	split_is("'a\\b' \"a\\b\" \"q\\\"q\" \"\\$x\"", 4, (const char *[]){ "a\\b", "a\\b", "q\"q", "$x" });
	split_is("$HOME *.jar ~ ; |", 5, (const char *[]){ "$HOME", "*.jar", "~", ";", "|" });
}

Test(argv, refuses_what_a_shell_refuses)
{
	split_fails("java 'x", "unterminated single quote");
	split_fails("java \"x", "unterminated double quote");
	split_fails("java x\\", "backslash at the end");
	split_fails("  ", "no words");
	split_fails("", "no words");
}

static struct emp_experiment exp3x2x2(int seeded, uint64_t seed)
{
	static struct emp_exp_mode modes[2] = { { "m0", "" }, { "m1", "mode=sample" } };
	static struct emp_exp_version versions[2] = { { .name = "a" }, { .name = "b" } };
	return (struct emp_experiment){ .dir = "/d", .vms = 3, .modes = modes, .nmodes = 2, .versions = versions,
					.nversions = 2, .seeded = seeded, .seed = seed, .dist_factor = 1.1,
					.dist_slack = 0.05, .dist_threads = 1 };
}

Test(experiment, plan_interleaves_versions_and_modes_in_every_round)
{
	struct emp_experiment e = exp3x2x2(0, 0);
	cr_assert_eq(emp_experiment_nruns(&e), 12);
	for (size_t i = 0; i < 12; i++) {
		struct emp_exp_run r = emp_experiment_plan(&e, i);
		cr_assert_eq(r.vm, i / 4 + 1, "run %zu", i);
		cr_assert_eq(r.mode, (i % 4) / 2, "run %zu", i);
		cr_assert_eq(r.version, i % 2, "run %zu", i);
	}
	struct emp_exp_run r = emp_experiment_plan(&e, 5);
	char *p = emp_experiment_run_path(&e, &r, ".emp");
	cr_assert_str_eq(p, "/d/m0/b/vm2.emp");
	free(p);
}

Test(experiment, seeded_plan_shuffles_within_rounds_only_and_is_reproducible)
{
	struct emp_experiment e = exp3x2x2(1, 7), f = exp3x2x2(1, 8);
	int moved = 0, differs = 0;
	for (size_t round = 0; round < 3; round++) {
		unsigned seen = 0;
		for (size_t k = 0; k < 4; k++) {
			size_t i = round * 4 + k;
			struct emp_exp_run r = emp_experiment_plan(&e, i), again = emp_experiment_plan(&e, i);
			struct emp_exp_run g = emp_experiment_plan(&f, i);
			cr_assert_eq(r.vm, round + 1);
			cr_assert(r.mode == again.mode && r.version == again.version, "run %zu not reproducible", i);
			unsigned pair = (unsigned)(r.mode * 2 + r.version);
			seen |= 1u << pair;
			moved |= pair != k;
			differs |= g.mode != r.mode || g.version != r.version;
		}
		cr_assert_eq(seen, 0xf, "round %zu is not a permutation of the 4 pairs", round);
	}
	cr_assert(moved, "seed 7 left every round in order");
	cr_assert(differs, "seeds 7 and 8 gave the same plan");
}

Test(experiment, disturbed_when_elapsed_exceeds_cpu_over_threads_times_factor_plus_slack)
{
	struct emp_experiment e = exp3x2x2(0, 0);
	cr_assert_not(emp_experiment_disturbed(&e, 1.0, 1.0));
	cr_assert_not(emp_experiment_disturbed(&e, 1.149, 1.0)); /* 1.0 * 1.1 + 0.05 = 1.15 */
	cr_assert(emp_experiment_disturbed(&e, 1.151, 1.0));
	e.dist_threads = 4; /* a program using 4 cores: 4 s of CPU in 1 s is not waiting */
	cr_assert_not(emp_experiment_disturbed(&e, 1.1, 4.0));
	cr_assert(emp_experiment_disturbed(&e, 1.2, 4.0));
}

Test(manifest, done_after_success_or_the_last_allowed_rerun)
{
	struct emp_experiment e = exp3x2x2(0, 0);
	struct emp_manifest_state st[12] = { 0 };
	cr_assert_not(emp_manifest_done(&e, &st[0]));
	struct emp_manifest_row ok = { .index = 0, .attempt = 1 }, bad = { .index = 1, .attempt = 1, .exit = 1 },
				dist = { .index = 2, .attempt = 1, .disturbed = 1 };
	emp_manifest_add(st, &ok);
	emp_manifest_add(st, &bad);
	emp_manifest_add(st, &dist);
	cr_assert(emp_manifest_done(&e, &st[0]));
	cr_assert_not(emp_manifest_done(&e, &st[1]), "a failed run is run again");
	cr_assert(emp_manifest_done(&e, &st[2]), "--rerun-disturbed 0: a disturbed run is kept");
	e.rerun_disturbed = 1;
	cr_assert_not(emp_manifest_done(&e, &st[2]));
	dist.attempt = 2;
	emp_manifest_add(st, &dist);
	cr_assert(emp_manifest_done(&e, &st[2]), "the one rerun used");
	char *line = emp_manifest_format(&e, &dist);
	cr_assert_str_eq(line, "2,m1,a,1,2,0,0.000000,0.000000,0.000000,0.000000,0,0,0.00,0.00,,1\n");
	free(line);
}
