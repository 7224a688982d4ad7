/* SPDX-License-Identifier: MIT */
/* experiment.c - the experiment's configuration and run plan; see experiment.h. */
#include "experiment.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "argv.h"
#include "runner.h"
#include "stats.h"
#include "util.h"

static const char conf_magic[] = "# emp-run experiment, format 1";

static int name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 64 || s[0] == '.' || s[0] == '-')
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') &&
		    !strchr("._-", *s))
			return 0;
	return 1;
}

static unsigned parse_uint(const char *opt, const char *arg, unsigned min)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (end == arg || *end || errno || arg[0] == '-' || v < min || v > 1000000)
		emp_runner_bad("--%s=%s: expected a whole number from %u to 1000000", opt, arg, min);
	return (unsigned)v;
}

static double parse_double(const char *opt, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v < 0)
		emp_runner_bad("--%s=%s: expected a number >= 0", opt, arg);
	return v;
}

/* Split "NAME=VALUE" of --@opt into the name (returned) and *@value, both malloc'ed; a bad name or a newline in
 * the value is refused (exit 2). */
static char *split_named(const char *opt, const char *arg, char **value)
{
	const char *eq = strchr(arg, '=');
	if (!eq)
		emp_runner_bad("--%s %s: expected NAME=%s", opt, arg, strcmp(opt, "mode") ? "COMMAND" : "AGENT_OPTIONS");
	char *name = strndup(arg, (size_t)(eq - arg));
	if (!name)
		emp_die("out of memory");
	if (!name_ok(name))
		emp_runner_bad("--%s %s: bad name '%s' (letters, digits, '.', '_', '-'; not starting with '.' or '-')",
			       opt, arg, name);
	if (strchr(eq + 1, '\n'))
		emp_runner_bad("--%s %s: a newline in the value", opt, name);
	*value = emp_xstrdup(eq + 1);
	return name;
}

static void add_mode(struct emp_experiment *e, const char *arg)
{
	char *opts, *name = split_named("mode", arg, &opts);
	for (size_t i = 0; i < e->nmodes; i++)
		if (!strcmp(e->modes[i].name, name))
			emp_runner_bad("--mode %s: mode '%s' given twice", arg, name);
	if (!strcmp(name, "slurm"))
		emp_runner_bad("--mode %s: 'slurm' names emp-run's own folder in DIR; choose another mode name", arg);
	/* out= and iteration= are emp-run's: each run has its own dump, every mode the same iteration method */
	for (const char *p = opts; *p;) {
		size_t n = strcspn(p, ",");
		if ((n >= 4 && !strncmp(p, "out=", 4)) || (n >= 10 && !strncmp(p, "iteration=", 10)))
			emp_runner_bad("--mode %s: '%.*s' is set by emp-run (out= per run, iteration= by --iteration)",
				       name, (int)n, p);
		p += n + (p[n] == ',');
	}
	e->modes = emp_xrealloc(e->modes, (e->nmodes + 1) * sizeof(*e->modes));
	e->modes[e->nmodes++] = (struct emp_exp_mode){ .name = name, .opts = opts };
}

static void split_version(struct emp_exp_version *v)
{
	const char *err;
	if (emp_argv_split(v->command, &v->argv, &v->argc, &err))
		emp_runner_bad("--version %s='%s': %s", v->name, v->command, err);
	const char *base = strrchr(v->argv[0], '/');
	base = base ? base + 1 : v->argv[0];
	if (strcmp(base, "java"))
		emp_runner_bad("--version %s='%s': not a java command (the first word must be java or a path to it; "
			       "emp-run adds the agent right after it)", v->name, v->command);
}

static void add_version(struct emp_experiment *e, const char *arg)
{
	char *cmd, *name = split_named("version", arg, &cmd);
	for (size_t i = 0; i < e->nversions; i++)
		if (!strcmp(e->versions[i].name, name))
			emp_runner_bad("--version %s: version '%s' given twice", arg, name);
	e->versions = emp_xrealloc(e->versions, (e->nversions + 1) * sizeof(*e->versions));
	struct emp_exp_version *v = &e->versions[e->nversions++];
	*v = (struct emp_exp_version){ .name = name, .command = cmd };
	split_version(v);
}

static int on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		return 0;
	char *copy = emp_xstrdup(path), *save = NULL;
	int found = 0;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p;
		if (asprintf(&p, "%s/%s", *d ? d : ".", prog) < 0)
			emp_die("out of memory");
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

/* libemp.so next to the emp-run executable (both are in build/). */
static char *default_agent(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return emp_xstrdup("libemp.so");
	exe[n] = 0;
	char *slash = strrchr(exe, '/'), *r;
	*slash = 0;
	if (asprintf(&r, "%s/libemp.so", exe) < 0)
		emp_die("out of memory");
	return r;
}

static void set_defaults(struct emp_experiment *e)
{
	*e = (struct emp_experiment){ .parallel = 1, .dist_factor = 1.1, .dist_slack = 0.05, .dist_threads = 1 };
}

void emp_experiment_parse(struct emp_experiment *e, int argc, char **argv)
{
	enum { O_OUT = 256, O_VMS, O_ITER, O_WARMUP, O_MODE, O_VERSION, O_EXEC, O_PAR, O_PIN, O_SEED, O_RERUN,
	       O_DFACTOR, O_DSLACK, O_DTHREADS, O_AGENT, O_PARTITION, O_TIME };
	static const struct option opts[] = {
		{ "out", required_argument, NULL, O_OUT },
		{ "vms", required_argument, NULL, O_VMS },
		{ "iteration", required_argument, NULL, O_ITER },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "mode", required_argument, NULL, O_MODE },
		{ "version", required_argument, NULL, O_VERSION },
		{ "executor", required_argument, NULL, O_EXEC },
		{ "parallel", required_argument, NULL, O_PAR },
		{ "pin", no_argument, NULL, O_PIN },
		{ "seed", required_argument, NULL, O_SEED },
		{ "rerun-disturbed", required_argument, NULL, O_RERUN },
		{ "disturbed-factor", required_argument, NULL, O_DFACTOR },
		{ "disturbed-slack", required_argument, NULL, O_DSLACK },
		{ "program-threads", required_argument, NULL, O_DTHREADS },
		{ "agent", required_argument, NULL, O_AGENT },
		{ "partition", required_argument, NULL, O_PARTITION },
		{ "time", required_argument, NULL, O_TIME },
		{ 0, 0, 0, 0 } };
	set_defaults(e);
	const char *out = NULL, *agent = NULL, *exec = "local";
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		switch (opt) {
		case O_OUT: out = optarg; break;
		case O_VMS: e->vms = parse_uint("vms", optarg, 1); break;
		case O_ITER:
			if (!*optarg || strchr(optarg, ',') || strchr(optarg, '\n'))
				emp_runner_bad("--iteration=%s: expected pkg.Class.method", optarg);
			e->iteration = emp_xstrdup(optarg);
			break;
		case O_WARMUP: e->warmup = parse_uint("warmup", optarg, 0); break;
		case O_MODE: add_mode(e, optarg); break;
		case O_VERSION: add_version(e, optarg); break;
		case O_EXEC: exec = optarg; break;
		case O_PAR: e->parallel = parse_uint("parallel", optarg, 1); break;
		case O_PIN: e->pin = 1; break;
		case O_SEED:
			e->seed = parse_uint("seed", optarg, 0);
			e->seeded = 1;
			break;
		case O_RERUN: e->rerun_disturbed = parse_uint("rerun-disturbed", optarg, 0); break;
		case O_DFACTOR: e->dist_factor = parse_double("disturbed-factor", optarg); break;
		case O_DSLACK: e->dist_slack = parse_double("disturbed-slack", optarg) / 1000; break;
		case O_DTHREADS:
			e->dist_threads = parse_double("program-threads", optarg);
			if (e->dist_threads < 1)
				emp_runner_bad("--program-threads=%s: expected a number >= 1", optarg);
			break;
		case O_AGENT: agent = optarg; break;
		case O_PARTITION: e->partition = emp_xstrdup(optarg); break;
		case O_TIME: e->time = emp_xstrdup(optarg); break;
		case ':': emp_runner_bad("%s: needs a value (emp-run --help)", argv[optind - 1]);
		default: emp_runner_bad("%s: unknown option (emp-run --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		emp_runner_bad("%s: unexpected argument (emp-run --help)", argv[optind]);
	if (!out)
		emp_runner_bad("--out DIR is required (emp-run --help)");
	if (!e->vms)
		emp_runner_bad("--vms N is required (emp-run --help)");
	if (!e->nmodes)
		emp_runner_bad("at least one --mode NAME=AGENT_OPTIONS is required (pure= runs without the agent)");
	if (!e->nversions)
		emp_runner_bad("at least one --version NAME=COMMAND is required");
	if (!strcmp(exec, "local"))
		e->executor = EMP_EXP_LOCAL;
	else if (!strcmp(exec, "slurm"))
		e->executor = EMP_EXP_SLURM;
	else
		emp_runner_bad("--executor=%s: expected local or slurm", exec);
	if (e->executor == EMP_EXP_LOCAL && (e->partition || e->time))
		emp_runner_bad("--%s is for --executor=slurm", e->partition ? "partition" : "time");
	if (e->executor == EMP_EXP_SLURM && e->pin)
		emp_runner_bad("--pin is for the local executor (under Slurm the tasks' CPUs are Slurm's; runs.csv "
			       "records them)");
	if (e->executor == EMP_EXP_SLURM && !on_path("sbatch"))
		emp_runner_bad("--executor=slurm: no sbatch on the PATH (is Slurm installed? scripts/slurm-local.sh "
			       "start sets up a one-node Slurm)");
	int with_agent = 0;
	for (size_t i = 0; i < e->nmodes; i++)
		with_agent |= e->modes[i].opts[0] != 0;
	if (!with_agent && e->iteration)
		emp_runner_bad("--iteration needs a mode with the agent (every mode is pure)");
	e->dir = emp_runner_abs_path(out);
	e->agent = agent ? emp_runner_abs_path(agent) : default_agent();
	if (with_agent && access(e->agent, R_OK))
		emp_runner_bad("%s: %s (the agent; --agent PATH names another)", e->agent, strerror(errno));
	e->cwd = emp_runner_abs_path(".");
}

char *emp_experiment_text(const struct emp_experiment *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		emp_die("out of memory");
	fprintf(f, "%s\ncwd=%s\nagent=%s\nvms=%u\niteration=%s\nwarmup=%u\n", conf_magic, e->cwd, e->agent, e->vms,
		e->iteration ? e->iteration : "", e->warmup);
	for (size_t i = 0; i < e->nmodes; i++)
		fprintf(f, "mode=%s=%s\n", e->modes[i].name, e->modes[i].opts);
	for (size_t i = 0; i < e->nversions; i++)
		fprintf(f, "version=%s=%s\n", e->versions[i].name, e->versions[i].command);
	fprintf(f, "executor=%s\nparallel=%u\npin=%d\n", e->executor == EMP_EXP_SLURM ? "slurm" : "local", e->parallel,
		e->pin);
	if (e->seeded)
		fprintf(f, "seed=%" PRIu64 "\n", e->seed);
	else
		fputs("seed=\n", f);
	fprintf(f, "rerun-disturbed=%u\ndisturbed-factor=%.17g\ndisturbed-slack=%.17g\nprogram-threads=%.17g\n",
		e->rerun_disturbed, e->dist_factor, e->dist_slack, e->dist_threads);
	fprintf(f, "partition=%s\ntime=%s\n", e->partition ? e->partition : "", e->time ? e->time : "");
	fclose(f);
	return buf;
}

int emp_experiment_save(const struct emp_experiment *e)
{
	char *text = emp_experiment_text(e), *path;
	if (asprintf(&path, "%s/experiment.conf", e->dir) < 0)
		emp_die("out of memory");
	int rc = emp_runner_write_file(path, text, strlen(text));
	free(text);
	free(path);
	return rc;
}

static char *opt_str(const char *v)
{
	return *v ? emp_xstrdup(v) : NULL;
}

int emp_experiment_load(struct emp_experiment *e, const char *dir)
{
	set_defaults(e);
	char *path;
	int missing;
	FILE *f = emp_open_in(dir, "experiment.conf", &path, &missing);
	if (!f)
		return missing ? 1 : -1;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int rc = -1;
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (lineno == 1) {
			if (strcmp(line, conf_magic)) {
				emp_errorf("%s: not an emp-run experiment (first line '%.60s')", path, line);
				goto out;
			}
			continue;
		}
		char *eq = strchr(line, '=');
		if (!eq) {
			emp_errorf("%s:%zu: expected KEY=VALUE", path, lineno);
			goto out;
		}
		*eq = 0;
		const char *k = line, *v = eq + 1;
		char *end = NULL;
		if (!strcmp(k, "cwd")) e->cwd = emp_xstrdup(v);
		else if (!strcmp(k, "agent")) e->agent = emp_xstrdup(v);
		else if (!strcmp(k, "vms")) e->vms = (unsigned)strtoul(v, &end, 10);
		else if (!strcmp(k, "iteration")) e->iteration = opt_str(v);
		else if (!strcmp(k, "warmup")) e->warmup = (unsigned)strtoul(v, &end, 10);
		else if (!strcmp(k, "mode")) add_mode(e, v);
		else if (!strcmp(k, "version")) add_version(e, v);
		else if (!strcmp(k, "executor")) e->executor = strcmp(v, "slurm") ? EMP_EXP_LOCAL : EMP_EXP_SLURM;
		else if (!strcmp(k, "parallel")) e->parallel = (unsigned)strtoul(v, &end, 10);
		else if (!strcmp(k, "pin")) e->pin = (int)strtol(v, &end, 10);
		else if (!strcmp(k, "seed")) {
			e->seeded = *v != 0;
			e->seed = strtoull(v, &end, 10);
		} else if (!strcmp(k, "rerun-disturbed")) e->rerun_disturbed = (unsigned)strtoul(v, &end, 10);
		else if (!strcmp(k, "disturbed-factor")) e->dist_factor = strtod(v, &end);
		else if (!strcmp(k, "disturbed-slack")) e->dist_slack = strtod(v, &end);
		else if (!strcmp(k, "program-threads")) e->dist_threads = strtod(v, &end);
		else if (!strcmp(k, "partition")) e->partition = opt_str(v);
		else if (!strcmp(k, "time")) e->time = opt_str(v);
		else {
			emp_errorf("%s:%zu: unknown key '%s'", path, lineno, k);
			goto out;
		}
		if (end && *end) {
			emp_errorf("%s:%zu: bad value for %s: '%s'", path, lineno, k, v);
			goto out;
		}
	}
	if (!e->cwd || !e->agent || !e->vms || !e->nmodes || !e->nversions) {
		emp_errorf("%s: incomplete (cwd, agent, vms, a mode and a version are required)", path);
		goto out;
	}
	e->dir = emp_xstrdup(dir);
	rc = 0;
out:
	free(line);
	fclose(f);
	free(path);
	return rc;
}

void emp_experiment_free(struct emp_experiment *e)
{
	for (size_t i = 0; i < e->nmodes; i++) {
		free(e->modes[i].name);
		free(e->modes[i].opts);
	}
	for (size_t i = 0; i < e->nversions; i++) {
		free(e->versions[i].name);
		free(e->versions[i].command);
		emp_argv_free(e->versions[i].argv);
	}
	free(e->modes);
	free(e->versions);
	free(e->dir);
	free(e->cwd);
	free(e->agent);
	free(e->iteration);
	free(e->partition);
	free(e->time);
}

size_t emp_experiment_nruns(const struct emp_experiment *e)
{
	return (size_t)e->vms * e->nmodes * e->nversions;
}

struct emp_exp_run emp_experiment_plan(const struct emp_experiment *e, size_t i)
{
	size_t per = e->nmodes * e->nversions, round = i / per, slot = i % per;
	size_t *order = emp_xmalloc(per * sizeof(*order));
	for (size_t k = 0; k < per; k++)
		order[k] = k;
	if (e->seeded) {
		/* one stream per round, so that run i's pair does not depend on the rounds before it being drawn */
		struct emp_stats_rng g;
		emp_stats_rng_seed(&g, e->seed * 1000003u + round);
		for (size_t k = per - 1; k > 0; k--) {
			size_t j = (size_t)emp_stats_rng_below(&g, k + 1), t = order[k];
			order[k] = order[j];
			order[j] = t;
		}
	}
	size_t pair = order[slot];
	free(order);
	return (struct emp_exp_run){ .mode = pair / e->nversions, .version = pair % e->nversions,
				     .vm = (unsigned)round + 1 };
}

char *emp_experiment_run_path(const struct emp_experiment *e, const struct emp_exp_run *r, const char *suffix)
{
	char *p;
	if (asprintf(&p, "%s/%s/%s/vm%u%s", e->dir, e->modes[r->mode].name, e->versions[r->version].name, r->vm,
		     suffix) < 0)
		emp_die("out of memory");
	return p;
}

int emp_experiment_disturbed(const struct emp_experiment *e, double elapsed, double cpu)
{
	return elapsed > cpu / e->dist_threads * e->dist_factor + e->dist_slack;
}
