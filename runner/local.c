/* SPDX-License-Identifier: MIT */
/* local.c - the local executor; see local.h. */
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "runner.h"
#include "util.h"

/* Set by the handler, read by the loop between wait4 calls (wait4 returns EINTR: no SA_RESTART). */
static volatile sig_atomic_t stop_signal;
/* The process group of the run in each slot (0: free).  Written by the loop with SIGINT and SIGTERM blocked,
 * read by the handler: a pid_t is an int, so a sig_atomic_t holds it. */
static volatile sig_atomic_t *slot_pgid;
static unsigned nslots;

/* Async-signal-safe: stores to sig_atomic_t and kill(2) only. */
static void on_signal(int sig)
{
	stop_signal = sig;
	for (unsigned i = 0; i < nslots; i++)
		if (slot_pgid[i] > 0)
			kill(-(pid_t)slot_pgid[i], SIGTERM);
}

/* The CPU set of each of @k slots: consecutive equal shares of the CPUs emp-run may use.  Return: 0 when there
 * are fewer CPUs than slots (no pinning). */
static int slot_sets(unsigned k, cpu_set_t *sets)
{
	cpu_set_t all;
	if (sched_getaffinity(0, sizeof(all), &all))
		return 0;
	int ncpu = CPU_COUNT(&all), w = ncpu / (int)k, seen = 0;
	if (w == 0)
		return 0;
	for (unsigned i = 0; i < k; i++)
		CPU_ZERO(&sets[i]);
	for (int c = 0; c < CPU_SETSIZE && seen < w * (int)k; c++)
		if (CPU_ISSET(c, &all))
			CPU_SET(c, &sets[seen++ / w]);
	return 1;
}

static int open_manifest(const char *path)
{
	if (emp_runner_trim_torn(path))
		return -1;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb)) {
		emp_errorf("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (sb.st_size == 0 && emp_runner_append(fd, path, EMP_MANIFEST_HEADER, strlen(EMP_MANIFEST_HEADER))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void progress(const struct emp_experiment *e, const struct emp_manifest_row *r, size_t done, size_t total,
		     double mean, unsigned par)
{
	struct emp_exp_run run = emp_experiment_plan(e, r->index);
	double eta = mean * (double)(total - done) / par;
	fprintf(stderr, "emp-run: [%zu/%zu] %s/%s vm%u", done, total, e->modes[run.mode].name,
		e->versions[run.version].name, run.vm);
	if (r->attempt > 1)
		fprintf(stderr, " attempt %u", r->attempt);
	fprintf(stderr, ": %.2f s elapsed, %.2f s cpu%s%s; ETA %d:%02d\n", r->elapsed, r->user + r->sys,
		r->disturbed ? ", disturbed" : "", r->exit ? ", FAILED" : "", (int)eta / 60, (int)eta % 60);
}

int emp_local_execute(const struct emp_experiment *e, const struct emp_local_opts *o, const size_t *todo, size_t n,
		      struct emp_manifest_state *st)
{
	int fd = open_manifest(o->manifest);
	if (fd < 0)
		return EMP_RUNNER_EXIT_FAILED;
	unsigned k = o->parallel ? o->parallel : 1;
	if (k > n)
		k = n ? (unsigned)n : 1;
	struct emp_launch *slots = emp_xcalloc(k, sizeof(*slots));
	cpu_set_t *sets = emp_xcalloc(k, sizeof(*sets));
	int pinned = (o->pin || o->parallel > 1) && slot_sets(k, sets);
	if ((o->pin || o->parallel > 1) && !pinned)
		emp_errorf("fewer CPUs than --parallel %u: runs are not pinned", k);
	slot_pgid = emp_xcalloc(k, sizeof(*slot_pgid));
	nslots = k;
	stop_signal = 0;
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term; /* no SA_RESTART: wait4 returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigset_t stops, saved;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);

	/* the queue: plan order, a rerun goes first */
	size_t *queue = emp_xmalloc((n + 1) * sizeof(*queue)), head = 0, tail = n, running = 0, finished = 0;
	memcpy(queue, todo, n * sizeof(*queue));
	size_t total = n, recorded = 0;
	double sum_elapsed = 0;
	int rc = EMP_RUNNER_EXIT_OK;
	for (;;) {
		for (unsigned s = 0; s < k && head < tail; s++) {
			if (slot_pgid[s])
				continue;
			sigprocmask(SIG_BLOCK, &stops, &saved);
			if (stop_signal) {
				sigprocmask(SIG_SETMASK, &saved, NULL);
				break;
			}
			size_t idx = queue[head];
			if (emp_launch_start(e, idx, st[idx].attempts + 1, pinned ? &sets[s] : NULL, &slots[s])) {
				sigprocmask(SIG_SETMASK, &saved, NULL);
				rc = EMP_RUNNER_EXIT_FAILED;
				head = tail; /* start nothing more */
				break;
			}
			head++;
			slot_pgid[s] = slots[s].pid;
			running++;
			sigprocmask(SIG_SETMASK, &saved, NULL);
		}
		if (!running)
			break;
		int status;
		struct rusage ru;
		pid_t pid = wait4(-1, &status, 0, &ru);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			emp_errorf("wait4: %s", strerror(errno));
			rc = EMP_RUNNER_EXIT_FAILED;
			break;
		}
		unsigned s = 0;
		while (s < k && slots[s].pid != pid)
			s++;
		if (s == k)
			continue; /* not one of ours */
		sigprocmask(SIG_BLOCK, &stops, &saved);
		slot_pgid[s] = 0;
		sigprocmask(SIG_SETMASK, &saved, NULL);
		running--;
		struct emp_manifest_row row;
		emp_launch_finish(e, &slots[s], status, &ru, &row);
		if (stop_signal && row.exit != 0)
			continue; /* stopped by us: not a result */
		char *line = emp_manifest_format(e, &row);
		int werr = emp_runner_append(fd, o->manifest, line, strlen(line));
		free(line);
		if (werr) {
			rc = EMP_RUNNER_EXIT_FAILED;
			head = tail;
			continue;
		}
		emp_manifest_add(st, &row);
		recorded++;
		sum_elapsed += row.elapsed;
		if (row.exit)
			rc = EMP_RUNNER_EXIT_FAILED;
		int again = !row.exit && !emp_manifest_done(e, &st[row.index]);
		if (again) { /* a disturbed run while reruns are left: next, before the rest of the plan */
			memmove(queue + head + 1, queue + head, (tail - head) * sizeof(*queue));
			queue[head] = row.index;
			tail++;
			total++;
			queue = emp_xrealloc(queue, (tail + 1) * sizeof(*queue));
		}
		finished++;
		if (o->progress)
			progress(e, &row, finished, total, sum_elapsed / (double)recorded, k);
	}
	if (stop_signal)
		rc = EMP_RUNNER_EXIT_INTERRUPTED;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	free((void *)slot_pgid);
	slot_pgid = NULL;
	nslots = 0;
	free(queue);
	free(sets);
	free(slots);
	close(fd);
	return rc;
}
