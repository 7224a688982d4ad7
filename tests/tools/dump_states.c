/* SPDX-License-Identifier: MIT */
/* dump_states.c - the thread states a sample-mode dump recorded: one line "THREAD<TAB>STATE<TAB>SAMPLES" per
 * thread (by its name) and state, in thread id then state order.  No report of emp-analyze shows the states, and
 * tests/integration/sample_profile.sh checks clock=wall by them.
 *
 * usage: dump-states FILE.  Exit 0, or 1 (one line on stderr) when the dump cannot be read completely. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dump.h"
#include "dump_reader.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: dump-states FILE\n");
		return 2;
	}
	char err[512];
	struct emp_dump_reader *r;
	if (emp_dump_reader_open(argv[1], &r, err, sizeof(err))) {
		fprintf(stderr, "dump-states: %s\n", err);
		return 1;
	}
	uint64_t (*count)[EMP_STATE_COUNT] = NULL;
	uint32_t nthreads = 0;
	struct emp_event ev;
	while (emp_dump_reader_next(r, &ev)) {
		if (ev.kind != EMP_EV_SAMPLE)
			continue;
		if (ev.thread >= nthreads) {
			uint32_t n = ev.thread + 1;
			void *p = realloc(count, n * sizeof(*count));
			if (!p) {
				fprintf(stderr, "dump-states: out of memory\n");
				return 1;
			}
			count = p;
			for (uint32_t i = nthreads; i < n; i++)
				for (int s = 0; s < EMP_STATE_COUNT; s++)
					count[i][s] = 0;
			nthreads = n;
		}
		count[ev.thread][ev.state < EMP_STATE_COUNT ? ev.state : EMP_STATE_UNKNOWN]++;
	}
	if (emp_dump_reader_status(r) != EMP_DUMP_COMPLETE) {
		fprintf(stderr, "dump-states: %s\n", emp_dump_reader_error(r));
		return 1;
	}
	for (uint32_t i = 0; i < nthreads; i++) {
		const struct emp_dump_thread *t = emp_dump_thread(r, i);
		for (int s = 0; s < EMP_STATE_COUNT; s++)
			if (count[i][s])
				printf("%s\t%s\t%llu\n", t && t->name ? t->name : "?", emp_thread_state_name((unsigned)s),
				       (unsigned long long)count[i][s]);
	}
	free(count);
	emp_dump_reader_close(r);
	return 0;
}
