/* SPDX-License-Identifier: MIT */
/* fuzz_dump_reader.c - libFuzzer target for the dump reader (dump/dump_reader.c).
 *
 * Each input is written to a memfd and read to its end through /proc/self/fd, touching every accessor, under
 * ASan and UBSan (`make fuzz`).  Besides "no crash", it checks the reader's own promises: reading ends in
 * COMPLETE, TRUNCATED or CORRUPT; good_offset never passes the file size; a TRUNCATED or CORRUPT status comes with
 * a message naming the file; every id an event hands out is a defined symbol; every sample's depth is bounded.
 *
 * Its inputs are dump files or structured inputs (structured.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dump_reader.h"
#include "structured.h"

static void touch_symbols(const struct emp_dump_reader *r)
{
	size_t sink = 0;
	for (uint32_t i = 0; i <= emp_dump_method_limit(r); i++) {
		const struct emp_dump_method *m = emp_dump_method(r, i);
		if (!m)
			continue;
		CHECK(m->id == i);
		CHECK(m->kind <= EMP_FRAME_PSEUDO);
		sink += strlen(m->klass) + strlen(m->name) + strlen(m->descriptor);
	}
	CHECK(emp_dump_method(r, emp_dump_method_limit(r)) == NULL);
	for (uint32_t i = 0; i <= emp_dump_thread_limit(r); i++) {
		const struct emp_dump_thread *t = emp_dump_thread(r, i);
		if (t) {
			CHECK(t->id == i);
			sink += strlen(t->name);
		}
	}
	CHECK(emp_dump_thread(r, emp_dump_thread_limit(r)) == NULL);
	for (size_t i = 0; i < emp_dump_meta_count(r); i++) {
		const char *k, *v;
		emp_dump_meta_at(r, i, &k, &v);
		sink += strlen(k) + strlen(v);
		CHECK(emp_dump_meta(r, k) != NULL);
	}
	for (size_t i = 0; i < emp_dump_counter_count(r); i++) {
		const char *name;
		uint64_t value;
		emp_dump_counter_at(r, i, &name, &value);
		sink += strlen(name) + (size_t)value;
		(void)emp_dump_counter(r, name);
	}
	(void)emp_dump_end_value(r, "reason");
	(void)emp_dump_meta(r, "clock_hz");
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	const char *path = emp_fuzz_input_path(data, &size);

	struct emp_dump_reader *r;
	if (emp_dump_reader_open(path, &r, err, sizeof(err))) {
		CHECK(r == NULL);
		CHECK(strncmp(err, path, strlen(path)) == 0);
		return 0;
	}
	CHECK(emp_dump_reader_file_size(r) == size);
	struct emp_event ev;
	uint64_t n = 0;
	while (emp_dump_reader_next(r, &ev)) {
		CHECK(ev.kind <= EMP_EV_CPU);
		CHECK(emp_dump_thread(r, ev.thread) != NULL);
		if (ev.kind == EMP_EV_ENTER)
			CHECK(emp_dump_method(r, ev.method) != NULL);
		if (ev.kind == EMP_EV_SAMPLE) {
			CHECK(ev.depth <= EMP_MAX_FRAMES);
			CHECK(ev.state < EMP_STATE_COUNT);
			for (uint32_t i = 0; i < ev.depth; i++)
				CHECK(emp_dump_method(r, ev.frames[i]) != NULL);
		}
		n++;
		/* symbols may change between chunks: look at them now and then while reading */
		if ((n & 1023) == 0)
			touch_symbols(r);
	}
	CHECK(emp_dump_reader_next(r, &ev) == 0);
	enum emp_dump_status st = emp_dump_reader_status(r);
	CHECK(st == EMP_DUMP_COMPLETE || st == EMP_DUMP_TRUNCATED || st == EMP_DUMP_CORRUPT);
	CHECK(emp_dump_reader_good_offset(r) <= size);
	if (st == EMP_DUMP_COMPLETE) {
		CHECK(emp_dump_reader_good_offset(r) == size);
		CHECK(emp_dump_reader_error(r)[0] == 0);
	} else {
		CHECK(strncmp(emp_dump_reader_error(r), path, strlen(path)) == 0);
	}
	uint64_t total = 0;
	for (int k = EMP_EV_ENTER; k <= EMP_EV_CPU; k++)
		total += emp_dump_events(r, (enum emp_event_kind)k);
	CHECK(total == n);
	for (int t = 0; t < 8; t++)
		(void)emp_dump_chunks(r, (enum emp_chunk_type)t);
	touch_symbols(r);
	double hz = emp_dump_clock_hz(r);
	CHECK(hz > 0);
	(void)emp_dump_ticks_to_ns(r, 12345.0);
	(void)emp_dump_reader_version_minor(r);
	(void)emp_dump_reader_path(r);
	emp_dump_reader_drain(r); /* after the end: a no-op */
	emp_dump_reader_close(r);
	return 0;
}
