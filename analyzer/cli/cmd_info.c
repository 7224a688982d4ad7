/* SPDX-License-Identifier: MIT */
/* cmd_info.c - emp-analyze info: what a dump holds and whether it is complete. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze info [--format=text|csv|json] [--allow-truncated] FILE...\n"
	"\n"
	"For each dump: its status (complete, truncated, corrupt) and size, the run's description (agent and JVM\n"
	"versions, options, pid, start time, clock), its threads with their event counts and kind (java: announced\n"
	"by JVMTI; virtual: a virtual thread, traced whatever carriers ran it; jvm: one of the JVM's own threads,\n"
	"sampled with threads=all), event counts by kind (vthread: sample mode's changes of the virtual thread a\n"
	"carrier ran; then the samples carriers took while they ran a virtual thread, and how many virtual threads\n"
	"those were), and the agent's counters (losses by reason, rewriter and sampler outcomes).\n";

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static const char *status_name(enum emp_dump_status s)
{
	switch (s) {
	case EMP_DUMP_COMPLETE:
		return "complete";
	case EMP_DUMP_TRUNCATED:
		return "truncated";
	case EMP_DUMP_CORRUPT:
		return "corrupt";
	case EMP_DUMP_READING:
		break;
	}
	return "reading";
}

/* Per pause kind of the dump @r: entries, their total and largest duration (ms).  Kinds 1-3 always, others as
 * "kind N" when present. */
static void pause_rows(struct emp_table *t, const char *file, const struct emp_dump_reader *r)
{
	static const char *const names[] = { [EMP_PAUSE_GC] = "gc", [EMP_PAUSE_SAFEPOINT] = "safepoint",
					      [EMP_PAUSE_SAFEPOINT_GC] = "safepoint_gc" };
	size_t n;
	const struct emp_pause *p = emp_dump_pauses(r, &n);
	uint32_t top = EMP_PAUSE_SAFEPOINT_GC;
	for (size_t i = 0; i < n; i++)
		top = p[i].kind > top ? p[i].kind : top;
	for (uint32_t kind = 1; kind <= top; kind++) {
		uint64_t count = 0;
		double total = 0, max = 0;
		for (size_t i = 0; i < n; i++) {
			if (p[i].kind != kind)
				continue;
			double ms = emp_dump_ticks_to_ns(r, (double)p[i].duration) / 1e6;
			count++;
			total += ms;
			max = ms > max ? ms : max;
		}
		if (kind > EMP_PAUSE_SAFEPOINT_GC && !count)
			continue;
		char other[32];
		snprintf(other, sizeof(other), "kind %u", kind);
		emp_table_row(t);
		emp_table_str(t, file);
		emp_table_str(t, kind <= EMP_PAUSE_SAFEPOINT_GC ? names[kind] : other);
		emp_table_int(t, (int64_t)count);
		emp_table_num(t, total, 3);
		emp_table_num(t, max, 3);
	}
}

int emp_cmd_info(int argc, char **argv)
{
	struct emp_cli cli = { .command = "info", .usage = usage };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS, { 0, 0, 0, 0 } };
	int opt;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1)
		emp_cli_common(&cli, opt, optarg);
	emp_cli_need_files(&cli, argc, argv);

	static const char *const fcols[] = { "file", "status", "bytes", "read_bytes", "format", "chunks", "events" };
	static const char *const mcols[] = { "file", "key", "value" };
	static const char *const tcols[] = { "file", "thread", "os_tid", "name", "events", "samples", "kind" };
	static const char *const ecols[] = { "file", "kind", "count" };
	static const char *const ccols[] = { "file", "counter", "value" };
	static const char *const pcols[] = { "file", "kind", "count", "total_ms", "max_ms" };
	struct emp_table *files = emp_table_new("files", "Dumps", 7, fcols);
	struct emp_table *meta = emp_table_new("meta", "Run", 3, mcols);
	struct emp_table *threads = emp_table_new("threads", "Threads", 7, tcols);
	struct emp_table *events = emp_table_new("events", "Events", 3, ecols);
	struct emp_table *counters = emp_table_new("counters", "Counters", 3, ccols);
	struct emp_table *pauses = emp_table_new("pauses", "Pauses of the whole JVM", 5, pcols);

	for (int i = optind; i < argc; i++) {
		struct emp_dump_reader *r = emp_input_open(&cli.in, argv[i]);
		if (!r)
			continue;
		uint64_t *per_thread = NULL, *per_thread_samples = NULL;
		uint64_t *vthreads = NULL; /* the virtual thread of each sample a carrier took while it ran one */
		size_t nv = 0, vcap = 0;
		uint32_t cap = 0;
		struct emp_event ev;
		while (emp_dump_reader_next(r, &ev)) {
			if (ev.kind == EMP_EV_SAMPLE && ev.vthread) {
				if (nv == vcap)
					vthreads = emp_xrealloc(vthreads, (vcap = vcap ? 2 * vcap : 1024) * sizeof(*vthreads));
				vthreads[nv++] = ev.vthread;
			}
			if (ev.thread >= cap) {
				uint32_t n = ev.thread + 64;
				per_thread = emp_xrealloc(per_thread, n * sizeof(*per_thread));
				per_thread_samples = emp_xrealloc(per_thread_samples, n * sizeof(*per_thread));
				for (uint32_t k = cap; k < n; k++)
					per_thread[k] = per_thread_samples[k] = 0;
				cap = n;
			}
			per_thread[ev.thread]++;
			if (ev.kind == EMP_EV_SAMPLE)
				per_thread_samples[ev.thread]++;
		}
		emp_input_done(&cli.in, r);

		uint64_t chunks = 0, total = 0;
		for (int t = EMP_CHUNK_META; t <= EMP_CHUNK_PAUSES; t++)
			chunks += emp_dump_chunks(r, (enum emp_chunk_type)t);
		for (int k = EMP_EV_ENTER; k <= EMP_EV_VTHREAD; k++)
			total += emp_dump_events(r, (enum emp_event_kind)k);
		char fmt[16];
		snprintf(fmt, sizeof(fmt), "%d.%u", EMP_DUMP_VERSION_MAJOR, emp_dump_reader_version_minor(r));
		emp_table_row(files);
		emp_table_str(files, argv[i]);
		emp_table_str(files, status_name(emp_dump_reader_status(r)));
		emp_table_int(files, (int64_t)emp_dump_reader_file_size(r));
		emp_table_int(files, (int64_t)emp_dump_reader_good_offset(r));
		emp_table_str(files, fmt);
		emp_table_int(files, (int64_t)chunks);
		emp_table_int(files, (int64_t)total);

		for (size_t k = 0; k < emp_dump_meta_count(r); k++) {
			const char *key, *value;
			emp_dump_meta_at(r, k, &key, &value);
			emp_table_row(meta);
			emp_table_str(meta, argv[i]);
			emp_table_str(meta, key);
			emp_table_str(meta, value);
		}
		static const char *const end_keys[] = { "reason", "events" };
		for (size_t k = 0; k < 2; k++) {
			const char *v = emp_dump_end_value(r, end_keys[k]);
			if (!v)
				continue;
			char key[32];
			snprintf(key, sizeof(key), "end_%s", end_keys[k]);
			emp_table_row(meta);
			emp_table_str(meta, argv[i]);
			emp_table_str(meta, key);
			emp_table_str(meta, v);
		}
		for (uint32_t t = 0; t < emp_dump_thread_limit(r); t++) {
			const struct emp_dump_thread *th = emp_dump_thread(r, t);
			if (!th)
				continue;
			emp_table_row(threads);
			emp_table_str(threads, argv[i]);
			emp_table_int(threads, t);
			emp_table_int(threads, (int64_t)th->os_tid);
			emp_table_str(threads, th->name);
			emp_table_int(threads, t < cap ? (int64_t)per_thread[t] : 0);
			emp_table_int(threads, t < cap ? (int64_t)per_thread_samples[t] : 0);
			/* java: announced by JVMTI; virtual: a virtual thread (trace mode); jvm: one of the JVM's own threads (threads=all, native frames only) */
			emp_table_str(threads, th->flags & EMP_THREAD_VIRTUAL ? "virtual"
					      : th->flags & EMP_THREAD_JAVA ? "java"
					      : th->flags & EMP_THREAD_VM   ? "jvm"
									    : "");
		}
		static const char *const kinds[] = { "enter", "exit", "exit_throw", "sample", "cpu", "vthread" };
		for (int k = EMP_EV_ENTER; k <= EMP_EV_VTHREAD; k++) {
			emp_table_row(events);
			emp_table_str(events, argv[i]);
			emp_table_str(events, kinds[k]);
			emp_table_int(events, (int64_t)emp_dump_events(r, (enum emp_event_kind)k));
		}
		/* sample mode: the samples carriers took while they ran a virtual thread, and how many virtual threads */
		qsort(vthreads, nv, sizeof(*vthreads), cmp_u64);
		size_t distinct = 0;
		for (size_t k = 0; k < nv; k++)
			distinct += !k || vthreads[k] != vthreads[k - 1];
		free(vthreads);
		emp_table_row(events);
		emp_table_str(events, argv[i]);
		emp_table_str(events, "samples_in_virtual_threads");
		emp_table_int(events, (int64_t)nv);
		emp_table_row(events);
		emp_table_str(events, argv[i]);
		emp_table_str(events, "virtual_threads_sampled");
		emp_table_int(events, (int64_t)distinct);
		pause_rows(pauses, argv[i], r);
		for (size_t k = 0; k < emp_dump_counter_count(r); k++) {
			const char *name;
			uint64_t value;
			emp_dump_counter_at(r, k, &name, &value);
			emp_table_row(counters);
			emp_table_str(counters, argv[i]);
			emp_table_str(counters, name);
			emp_table_int(counters, (int64_t)value);
		}
		free(per_thread);
		free(per_thread_samples);
		emp_dump_reader_close(r);
	}
	struct emp_report *rep = emp_report_new(cli.format);
	emp_report_add(rep, files);
	emp_report_add(rep, meta);
	emp_report_add(rep, threads);
	emp_report_add(rep, events);
	emp_report_add(rep, pauses);
	emp_report_add(rep, counters);
	emp_report_print(rep, stdout);
	emp_report_free(rep);
	return cli.in.exit_code;
}
