/* SPDX-License-Identifier: MIT */
/* latency.h - emp-load request logs (--log) and the GC pauses of a dump on one time axis, for emp-analyze latency.
 *
 * A log is CSV with the header "due_ns,sent_ns,done_ns,status" and one row per request: due, write and completion
 * time in CLOCK_MONOTONIC ns (empty when never reached), status an HTTP status (100 … 599) or an error name
 * (refused, reset, closed, timeout, bad_response, socket_error, unsent).  A dump's pause ticks are put on the same
 * clock through its META reference point (clock_ref_ticks = clock_ref_mono_ns), so the two line up when the log
 * and the dump come from the same machine and boot.
 *
 * Latencies go into HdrHistogram-layout histograms exactly as emp-load records them (µs, truncated: corrected
 * (done − due) / 1000, uncorrected (done − sent) / 1000, every answered request whatever its status), so the
 * percentiles here equal emp-load's own report of the same run. */
#ifndef EMP_LATENCY_H
#define EMP_LATENCY_H

#include <stddef.h>
#include <stdint.h>

struct emp_dump_reader;
struct emp_hdr;

#define EMP_LATENCY_MAX_KINDS 16

struct emp_latency_log {
	char *path;
	size_t n;                     /* answered requests: the arrays below */
	int64_t *due, *sent, *done;   /* ns, in file order */
	uint64_t non_2xx;             /* answered with a status outside 200 … 299 */
	size_t nkinds;                /* failed requests by error name, in order of first appearance */
	char kind[EMP_LATENCY_MAX_KINDS][24];
	uint64_t kind_count[EMP_LATENCY_MAX_KINDS];
	int64_t t_min, t_max;         /* earliest due and latest time of any row (0, 0 when empty) */
	struct emp_hdr *corrected, *uncorrected;
};

/* emp_latency_read - read the log @path.  Return: 0, or -1 with a one-line message naming the file and line in
 * @err (cannot open, wrong header, malformed row, more than EMP_LATENCY_MAX_KINDS error names). */
int emp_latency_read(const char *path, struct emp_latency_log *out, char *err, size_t errlen);
void emp_latency_free(struct emp_latency_log *l);

struct emp_latency_pause {
	int64_t start_ns, duration_ns; /* CLOCK_MONOTONIC */
};

/* emp_latency_pauses - the pauses of kind @kind (enum emp_pause_kind) of a dump read to its end, on
 * CLOCK_MONOTONIC, sorted by start.  Return: their number and a malloc'ed array in *out (NULL when none); -1 when
 * the dump has no clock reference (META clock_ref_*). */
long emp_latency_pauses(const struct emp_dump_reader *r, uint32_t kind, struct emp_latency_pause **out);

/* emp_latency_overlaps - answered requests of @l whose [due, done] overlaps one of the @n pauses @p (sorted by
 * start), counted among all (*all) and among those with a corrected latency above @threshold_us (*slow). */
void emp_latency_overlaps(const struct emp_latency_log *l, const struct emp_latency_pause *p, size_t n,
			  int64_t threshold_us, uint64_t *all, uint64_t *slow);

#endif /* EMP_LATENCY_H */
