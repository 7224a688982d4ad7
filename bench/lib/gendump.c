/* SPDX-License-Identifier: MIT */
/* gendump.c - a synthetic trace dump for bench/analyzer.sh, written with the agent's own encoder (dump/dump_writer).
 *
 * usage: gendump OUT N_EVENTS [THREADS] [METHODS]
 *
 * Shape: THREADS threads (default 4) whose events are interleaved the way the agent's writer drains its rings
 * (a few thousand events of one thread, then the next), each chunk cut at EMP_CHUNK_RAW_TARGET like the agent's;
 * METHODS methods (default 3000).  Each thread runs a random walk over a fixed call tree: a call at depth d < 7
 * calls one of 3 children chosen by (method, depth), deeper calls one, the stack stays between 1 and 40 frames
 * (root calls end and new traces start), so the distinct calling contexts stay bounded (about 10^5) whatever
 * N_EVENTS.  Durations: 24 to 96 ticks between events at a 2.5 GHz clock.  A deterministic PRNG: the same
 * arguments give the same bytes.  Every call is closed before END, so `calls --check` finds no violation. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump_writer.h"

#define MAX_DEPTH 40
#define SLICE 4096 /* events of one thread before the next */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* The dump writer's sink: stdio's buffered fwrite to the FILE * @ctx. */
static int sink(void *ctx, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, ctx) == len ? 0 : -EIO;
}

struct gthread {
	struct emp_dump_events *ev;
	uint32_t stack[MAX_DEPTH];
	uint32_t depth;
	uint64_t ticks;
};

static void die(const char *what, int rc)
{
	fprintf(stderr, "gendump: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
	exit(1);
}

static uint32_t child_of(uint32_t parent, uint32_t depth, uint32_t methods)
{
	uint32_t j = depth < 7 ? (uint32_t)(rng() % 3) : 0;
	uint64_t h = ((uint64_t)parent * 31 + depth) * 0x9e3779b97f4a7c15ull + j * 0xc2b2ae3d27d4eb4full;
	return (uint32_t)((h >> 32) % methods);
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: gendump OUT N_EVENTS [THREADS] [METHODS]\n");
		return 2;
	}
	uint64_t n_events = strtoull(argv[2], NULL, 10);
	uint32_t nthreads = argc > 3 ? (uint32_t)atoi(argv[3]) : 4, methods = argc > 4 ? (uint32_t)atoi(argv[4]) : 3000;
	if (!n_events || nthreads < 1 || nthreads > 1024 || methods < 2) {
		fprintf(stderr, "gendump: bad arguments\n");
		return 2;
	}
	FILE *out = fopen(argv[1], "wb");
	if (!out)
		die(argv[1], errno);
	struct emp_dump_writer *w = emp_dump_writer_new(sink, out);
	if (!w)
		die("writer", ENOMEM);
	const uint64_t hz = 2500000000ull, t0 = 1000000000ull;
	char hzs[32], t0s[32], tend[32], nend[32], evs[32];
	snprintf(hzs, sizeof(hzs), "%" PRIu64, hz);
	snprintf(t0s, sizeof(t0s), "%" PRIu64, t0);
	const char *meta[] = { "agent", "emp", "agent_version", "gendump", "mode", "trace", "options",
			       "mode=trace (synthetic: bench/lib/gendump.c)", "writer", "file", "clock", "tsc",
			       "clock_hz", hzs, "clock_ref_ticks", t0s, "clock_ref_mono_ns", "0" };
	int rc = emp_dump_write_header(w);
	if (!rc)
		rc = emp_dump_write_meta(w, meta, sizeof(meta) / sizeof(meta[0]) / 2);
	char cls[64], name[64];
	for (uint32_t m = 0; !rc && m < methods; m++) {
		snprintf(cls, sizeof(cls), "bench.pkg%u.Class%u", m % 17, m / 7);
		snprintf(name, sizeof(name), "method%u", m);
		rc = emp_dump_add_method(w, m, EMP_FRAME_JAVA, 0, cls, name, "()V");
	}
	struct gthread *th = calloc(nthreads, sizeof(*th));
	if (!th)
		die("threads", ENOMEM);
	for (uint32_t t = 0; !rc && t < nthreads; t++) {
		snprintf(name, sizeof(name), "worker-%u", t);
		rc = emp_dump_add_thread(w, t, 1000 + t, EMP_THREAD_JAVA, name);
		th[t].ev = emp_dump_events_new(t);
		th[t].ticks = t0 + t;
		if (!th[t].ev)
			rc = -ENOMEM;
	}
	if (!rc)
		rc = emp_dump_flush_symbols(w);
	if (rc)
		die("writing symbols", rc);

	/* stop early enough that closing every open call stays within N_EVENTS */
	uint64_t written = 0, stop = n_events > (uint64_t)nthreads * MAX_DEPTH ? n_events - nthreads * MAX_DEPTH : 0;
	for (uint32_t t = 0; written < stop; t = (t + 1) % nthreads) {
		struct gthread *g = &th[t];
		for (uint32_t k = 0; k < SLICE && written < stop; k++) {
			uint64_t r = rng();
			g->ticks += 24 + (r & 3) * (r >> 2 & 3) * 8; /* mostly short, like probes around small methods */
			/* enter with probability 1/2 below depth 40, exit otherwise; a root exit ends the trace */
			int enter = g->depth == 0 || (g->depth < MAX_DEPTH && (r >> 8 & 1));
			if (enter) {
				uint32_t m = g->depth ? child_of(g->stack[g->depth - 1], g->depth, methods)
						      : (uint32_t)(r >> 16) % 16;
				g->stack[g->depth++] = m;
				rc = emp_dump_events_enter(g->ev, g->ticks, m);
			} else {
				g->depth--;
				rc = emp_dump_events_exit(g->ev, g->ticks, (r >> 9 & 1023) == 0);
			}
			written++;
			if (!rc && emp_dump_events_full(g->ev))
				rc = emp_dump_events_flush(w, g->ev);
			if (rc)
				die("writing events", rc);
		}
	}
	uint64_t end_ticks = t0;
	for (uint32_t t = 0; t < nthreads; t++) {
		struct gthread *g = &th[t];
		while (g->depth) {
			g->ticks += 20;
			g->depth--;
			rc = emp_dump_events_exit(g->ev, g->ticks, 0);
			written++;
			if (!rc && emp_dump_events_full(g->ev))
				rc = emp_dump_events_flush(w, g->ev);
			if (rc)
				die("closing calls", rc);
		}
		if ((rc = emp_dump_events_flush(w, g->ev)))
			die("flushing", rc);
		if (g->ticks > end_ticks)
			end_ticks = g->ticks;
		emp_dump_events_free(g->ev);
	}
	snprintf(tend, sizeof(tend), "%" PRIu64, end_ticks);
	snprintf(nend, sizeof(nend), "%" PRIu64, (uint64_t)((double)(end_ticks - t0) / (double)hz * 1e9));
	snprintf(evs, sizeof(evs), "%" PRIu64, written);
	const char *end[] = { "reason", "vm_death", "clock_end_ticks", tend, "clock_end_mono_ns", nend, "events", evs };
	if ((rc = emp_dump_write_end(w, end, 4)))
		die("writing END", rc);
	emp_dump_writer_free(w);
	free(th);
	if (fclose(out))
		die(argv[1], errno);
	printf("%" PRIu64 "\n", written);
	return 0;
}
