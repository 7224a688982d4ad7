/* SPDX-License-Identifier: MIT */
/* fuzz_dump_reader.c - libFuzzer target for the dump reader (dump/dump_reader.c).
 *
 * Each input is written to a memfd and read to its end through /proc/self/fd, touching every accessor, under
 * ASan and UBSan (`make fuzz`).  Besides "no crash", it checks the reader's own promises: reading ends in
 * COMPLETE, TRUNCATED or CORRUPT; good_offset never passes the file size; a TRUNCATED or CORRUPT status comes with
 * a message naming the file; every id an event hands out is a defined symbol; every sample's depth is bounded.
 *
 * Two kinds of input, told apart by the first byte:
 *   0x89 (the dump magic's first byte): the input is a dump file, as is.
 *   anything else: a "structured" input, so that mutations reach the payload parsers instead of dying at the LZ4
 *     checksums.  Byte 0 bit 0 is the header's minor version (1 = later than this reader: unknown chunk types are
 *     skipped), bit 1 the frames' checksum (0: of each block, as the writer frames them; 1: of the content, as
 *     dumps written before block checksums); then pieces [u8 type][u16le length][payload], each wrapped here into
 *     a chunk with a valid LZ4 frame.  A last piece cut short keeps what it has.  The unit test dump/corpus
 *     writes seeds of both kinds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lz4frame.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dump_reader.h"

#define CHECK(cond)                                                                                            \
	do {                                                                                                   \
		if (!(cond)) {                                                                                 \
			fprintf(stderr, "fuzz_dump_reader: check failed: %s (line %d)\n", #cond, __LINE__);   \
			abort();                                                                               \
		}                                                                                              \
	} while (0)

static int fd = -1;

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

/* Turn a structured input into a dump in @out (grown as needed).  Return: its length. */
static size_t build_structured(const uint8_t *data, size_t size, uint8_t **out, size_t *cap)
{
	size_t need = 16 + (size / 3 + 1) * 16 + LZ4F_compressFrameBound(size, NULL) + (size / 3 + 1) * 64;
	if (need > *cap) {
		*out = realloc(*out, need);
		CHECK(*out != NULL);
		*cap = need;
	}
	uint8_t *o = *out;
	memcpy(o, "\x89" "EMP\r\n\x1a\n", 8);
	o[8] = 1, o[9] = 0, o[10] = data[0] & 1, o[11] = 0;
	memset(o + 12, 0, 4);
	size_t n = 16, pos = 1;
	LZ4F_preferences_t prefs;
	memset(&prefs, 0, sizeof(prefs));
	if (data[0] & 2)
		prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	else
		prefs.frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
	while (pos + 3 <= size) {
		uint8_t type = data[pos];
		size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
		pos += 3;
		if (len > size - pos)
			len = size - pos;
		prefs.frameInfo.contentSize = len;
		size_t bound = LZ4F_compressFrameBound(len, &prefs);
		CHECK(n + 16 + bound <= *cap);
		size_t stored = LZ4F_compressFrame(o + n + 16, bound, data + pos, len, &prefs);
		CHECK(!LZ4F_isError(stored));
		uint32_t h[4] = { 0x43504d45u, type, (uint32_t)stored, (uint32_t)len }; /* little-endian host */
		memcpy(o + n, h, 16);
		n += 16 + stored;
		pos += len;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *built;
	static size_t built_cap;
	char path[64], err[512];
	if (fd < 0) {
		fd = memfd_create("emp-fuzz", 0);
		CHECK(fd >= 0);
	}
	if (size && data[0] != 0x89) {
		size = build_structured(data, size, &built, &built_cap);
		data = built;
	}
	CHECK(ftruncate(fd, 0) == 0);
	CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

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
