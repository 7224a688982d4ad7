/* SPDX-License-Identifier: MIT */
/* test_ring.c - the per-thread SPSC ring (agent/core/ring.h): exact positions, wrap-around with PAD records, a full ring
 * that refuses without changing anything, a two-thread stress test. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "ring.h"

static uint64_t head_of(struct emp_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_relaxed);
}

static uint64_t tail_of(struct emp_ring *r)
{
	return atomic_load_explicit(&r->tail, memory_order_relaxed);
}

/* Reserve and commit a record of @len bytes with header type @type; return its offset in the buffer. */
static size_t put(struct emp_ring *r, uint32_t len, uint32_t type, uint32_t tag)
{
	uint8_t *p = emp_ring_reserve(r, len);
	cr_assert_not_null(p, "reserve %u at head %" PRIu64 " tail %" PRIu64, len, head_of(r), tail_of(r));
	uint32_t w[2] = { EMP_REC_HDR(type, len), tag };
	memcpy(p, w, len < 8 ? len : 8);
	emp_ring_commit(r);
	return (size_t)(p - r->data);
}

/* Consume one record at the tail: its type and size; the tag of a non-PAD record in *tag. */
static void get(struct emp_ring *r, uint32_t *type, uint32_t *size, uint32_t *tag)
{
	uint64_t tail, head;
	cr_assert_eq(emp_ring_consume_begin(r, &tail, &head), 1, "ring is empty");
	const uint8_t *p = emp_ring_record(r, tail, size);
	uint32_t w[2];
	memcpy(w, p, 8);
	*type = EMP_REC_TYPE(w[0]);
	*tag = w[1];
	cr_assert_leq(tail + *size, head);
	emp_ring_consume_end(r, tail + *size);
}

Test(ring, init_checks_size)
{
	struct emp_ring r;
	cr_assert_eq(emp_ring_init(&r, 2048), -EINVAL);
	cr_assert_null(r.data);
	cr_assert_eq(emp_ring_init(&r, 6000), -EINVAL);
	cr_assert_eq(emp_ring_init(&r, 0), -EINVAL);
	cr_assert_eq(emp_ring_init(&r, 4096), 0);
	cr_assert_eq(r.size, 4096);
	cr_assert_eq(r.mask, 4095);
	cr_assert_eq((uintptr_t)r.data % 4096, 0, "page aligned");
	cr_assert_eq(head_of(&r), 0);
	cr_assert_eq(tail_of(&r), 0);
	emp_ring_destroy(&r);
	cr_assert_null(r.data);
	emp_ring_destroy(&r);
}

Test(ring, header_macros)
{
	uint32_t h = EMP_REC_HDR(EMP_REC_SAMPLE, 0xabcdef);
	cr_assert_eq(h, 0x04abcdefu);
	cr_assert_eq(EMP_REC_TYPE(h), EMP_REC_SAMPLE);
	cr_assert_eq(EMP_REC_SIZE(h), 0xabcdef);
	cr_assert_eq(sizeof(struct emp_rec_trace), 16);
}

Test(ring, reserve_commit_consume_positions)
{
	struct emp_ring r;
	cr_assert_eq(emp_ring_init(&r, 4096), 0);
	uint64_t tail, head;
	cr_assert_eq(emp_ring_consume_begin(&r, &tail, &head), 0, "empty");

	uint8_t *p = emp_ring_reserve(&r, 16);
	cr_assert_eq(p, r.data);
	cr_assert_eq(r.reserved_head, 16);
	cr_assert_eq(head_of(&r), 0, "invisible before commit");
	cr_assert_eq(emp_ring_consume_begin(&r, &tail, &head), 0);
	struct emp_rec_trace rec = { EMP_REC_HDR(EMP_REC_ENTER, 16), 7, 123456789 };
	memcpy(p, &rec, sizeof(rec));
	emp_ring_commit(&r);
	cr_assert_eq(head_of(&r), 16);

	cr_assert_eq(put(&r, 24, EMP_REC_SAMPLE, 1), 16);
	cr_assert_eq(put(&r, 8, EMP_REC_EXIT, 2), 40);
	cr_assert_eq(head_of(&r), 48);

	cr_assert_eq(emp_ring_consume_begin(&r, &tail, &head), 1);
	cr_assert_eq(tail, 0);
	cr_assert_eq(head, 48);
	uint32_t size;
	const struct emp_rec_trace *got = (const void *)emp_ring_record(&r, 0, &size);
	cr_assert_eq(size, 16);
	cr_assert_eq(got->hdr, EMP_REC_HDR(EMP_REC_ENTER, 16));
	cr_assert_eq(got->method, 7);
	cr_assert_eq(got->ticks, 123456789);
	emp_ring_record(&r, 16, &size);
	cr_assert_eq(size, 24);
	emp_ring_record(&r, 40, &size);
	cr_assert_eq(size, 8);
	emp_ring_consume_end(&r, 48);
	cr_assert_eq(tail_of(&r), 48);
	cr_assert_eq(emp_ring_consume_begin(&r, &tail, &head), 0);
	emp_ring_destroy(&r);
}

Test(ring, wrap_around_with_pad)
{
	struct emp_ring r;
	cr_assert_eq(emp_ring_init(&r, 4096), 0);
	/* 170 records of 24 bytes: head 4080, 16 bytes left before the end of the buffer */
	for (uint32_t i = 0; i < 170; i++) {
		cr_assert_eq(put(&r, 24, EMP_REC_SAMPLE, i), i * 24);
		uint32_t type, size, tag;
		get(&r, &type, &size, &tag);
		cr_assert_eq(type, EMP_REC_SAMPLE);
		cr_assert_eq(size, 24);
		cr_assert_eq(tag, i);
	}
	cr_assert_eq(head_of(&r), 4080);
	cr_assert_eq(tail_of(&r), 4080);
	/* an 8-byte record still fits before the end, without a PAD */
	cr_assert_eq(put(&r, 8, EMP_REC_EXIT, 500), 4080);
	cr_assert_eq(head_of(&r), 4088);
	/* a 24-byte record does not: PAD of 8 bytes at 4088, record at offset 0 (position 4096) */
	cr_assert_eq(put(&r, 24, EMP_REC_SAMPLE, 501), 0);
	cr_assert_eq(head_of(&r), 4120);
	uint32_t hdr;
	memcpy(&hdr, r.data + 4088, 4);
	cr_assert_eq(hdr, EMP_REC_HDR(EMP_REC_PAD, 0));

	uint32_t type, size, tag;
	get(&r, &type, &size, &tag);
	cr_assert_eq(type, EMP_REC_EXIT);
	cr_assert_eq(tag, 500);
	get(&r, &type, &size, &tag);
	cr_assert_eq(type, EMP_REC_PAD);
	cr_assert_eq(size, 8, "a PAD stretches to the end of the buffer");
	cr_assert_eq(tail_of(&r), 4096);
	get(&r, &type, &size, &tag);
	cr_assert_eq(type, EMP_REC_SAMPLE);
	cr_assert_eq(size, 24);
	cr_assert_eq(tag, 501);
	cr_assert_eq(tail_of(&r), 4120);
	emp_ring_destroy(&r);
}

Test(ring, full_refuses_and_changes_nothing)
{
	struct emp_ring r;
	cr_assert_eq(emp_ring_init(&r, 4096), 0);
	memset(r.data, 0xab, 4096);
	cr_assert_null(emp_ring_reserve(&r, 4104), "larger than the ring");
	/* 512 records of 8 bytes fill it exactly */
	for (uint32_t i = 0; i < 512; i++)
		cr_assert_eq(put(&r, 8, EMP_REC_EXIT, i), i * 8);
	cr_assert_eq(head_of(&r), 4096);
	uint8_t before[4096];
	memcpy(before, r.data, sizeof(before));
	uint64_t reserved = r.reserved_head;
	cr_assert_null(emp_ring_reserve(&r, 8));
	cr_assert_eq(head_of(&r), 4096);
	cr_assert_eq(r.reserved_head, reserved);
	cr_assert_arr_eq(r.data, before, sizeof(before));
	/* consuming one record makes room for exactly one at offset 0 */
	uint32_t type, size, tag;
	get(&r, &type, &size, &tag);
	cr_assert_eq(tag, 0);
	cr_assert_eq(put(&r, 8, EMP_REC_EXIT, 512), 0);
	cr_assert_null(emp_ring_reserve(&r, 8));
	emp_ring_destroy(&r);
}

Test(ring, full_with_pad_writes_no_pad)
{
	struct emp_ring r;
	cr_assert_eq(emp_ring_init(&r, 4096), 0);
	memset(r.data, 0xab, 4096);
	for (uint32_t i = 0; i < 510; i++) /* head 4080 */
		put(&r, 8, EMP_REC_EXIT, i);
	uint32_t type, size, tag;
	get(&r, &type, &size, &tag);
	get(&r, &type, &size, &tag); /* tail 16: 32 bytes free, 16 of them before the end */
	cr_assert_eq(tail_of(&r), 16);
	uint8_t before[4096];
	memcpy(before, r.data, sizeof(before));
	/* 16 (PAD) + 24 > 32: refused, and the PAD header is not written */
	cr_assert_null(emp_ring_reserve(&r, 24));
	cr_assert_arr_eq(r.data, before, sizeof(before));
	cr_assert_eq(head_of(&r), 4080);
	get(&r, &type, &size, &tag); /* tail 24: 40 bytes free */
	/* 16 (PAD) + 24 = 40: fits exactly, at offset 0 */
	cr_assert_eq(put(&r, 24, EMP_REC_ENTER, 99), 0);
	cr_assert_eq(head_of(&r), 4120);
	memcpy(&tag, r.data + 4080, 4);
	cr_assert_eq(tag, EMP_REC_HDR(EMP_REC_PAD, 0));
	cr_assert_null(emp_ring_reserve(&r, 8));
	/* 16 bytes exactly at the end of the buffer need no PAD */
	struct emp_ring r2;
	cr_assert_eq(emp_ring_init(&r2, 4096), 0);
	for (uint32_t i = 0; i < 255; i++) /* head 4080 */
		put(&r2, 16, EMP_REC_ENTER, i);
	get(&r2, &type, &size, &tag);
	cr_assert_eq(put(&r2, 16, EMP_REC_ENTER, 255), 4080);
	cr_assert_eq(head_of(&r2), 4096);
	cr_assert_null(emp_ring_reserve(&r2, 24), "16 bytes free");
	cr_assert_eq(emp_ring_reserve(&r2, 16), r2.data);
	emp_ring_destroy(&r2);
	emp_ring_destroy(&r);
}

/* ---- trace records -------------------------------------------------------------------------------------- */

/* Reserve, write and commit a trace record as the probes do; return its size. */
static uint32_t put_trace(struct emp_ring *r, uint32_t type, uint32_t method, uint64_t ticks)
{
	uint32_t len = emp_trace_rec_size(r, method, ticks);
	void *p = emp_ring_reserve(r, len);
	cr_assert_not_null(p);
	emp_trace_rec_put(r, p, len, type, method, ticks);
	emp_ring_commit(r);
	return len;
}

Test(ring, trace_records_short_and_long)
{
	static const struct {
		uint32_t type, method;
		uint64_t ticks;
		uint32_t size;
	} rec[] = {
		{ EMP_REC_ENTER, 7, 5, 8 },                                      /* gap 5 from the base 0 */
		{ EMP_REC_ENTER, 0xffffff, 5, 8 },                               /* gap 0, the largest short id */
		{ EMP_REC_ENTER, 0x1000000, 6, 16 },                             /* id of 25 bits */
		{ EMP_REC_EXIT, 4, 6 + 0xffffffffull, 8 },                       /* the largest short gap */
		{ EMP_REC_EXIT_THROW, 3, 6 + 0xffffffffull + (1ull << 32), 16 }, /* a gap of 2^32 */
		{ EMP_REC_SAMPLE, 0, 0, 24 },                                    /* not a trace record */
		{ EMP_REC_EXIT, 3, 4 + 0xffffffffull + (1ull << 32), 16 },       /* a step back */
		{ EMP_REC_ENTER, 9, 0xfedcba9876543210ull, 16 },                 /* a large jump */
		{ EMP_REC_EXIT, 9, 0xfedcba9876543210ull + 0x80000000ull, 8 },
	};
	struct emp_ring r;
	cr_assert_eq(emp_ring_init(&r, 4096), 0);
	uint64_t base = 0;
	/* A round takes 120 bytes, 15 slots of 8: over 512 rounds it starts at every offset of the 4096-byte ring, so
	 * that each record meets the end of the buffer, a 16-byte one there after a PAD. */
	for (int round = 0; round < 512; round++) {
		r.trace_ticks = base = 0;
		for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
			if (rec[i].type == EMP_REC_SAMPLE)
				put(&r, rec[i].size, EMP_REC_SAMPLE, (uint32_t)i);
			else
				cr_assert_eq(put_trace(&r, rec[i].type, rec[i].method, rec[i].ticks), rec[i].size,
					     "record %zu", i);
		}
		uint64_t tail, head;
		cr_assert_eq(emp_ring_consume_begin(&r, &tail, &head), 1);
		for (size_t i = 0; tail != head;) {
			uint32_t size, type, method;
			uint64_t ticks;
			const uint8_t *p = emp_ring_record(&r, tail, &size);
			tail += size;
			uint32_t t = EMP_REC_TYPE(*(const uint32_t *)(const void *)p);
			int trace = emp_trace_rec_get(p, &base, &type, &method, &ticks);
			if (t == EMP_REC_PAD) {
				cr_assert_eq(trace, 0);
				continue;
			}
			cr_assert_eq(size, rec[i].size, "record %zu round %d", i, round);
			if (rec[i].type == EMP_REC_SAMPLE) {
				cr_assert_eq(trace, 0);
			} else {
				cr_assert_eq(trace, 1, "record %zu", i);
				cr_assert_eq(type, rec[i].type, "record %zu", i);
				cr_assert_eq(method, rec[i].method, "record %zu", i);
				cr_assert_eq(ticks, rec[i].ticks, "record %zu round %d", i, round);
			}
			i++;
		}
		emp_ring_consume_end(&r, head);
	}
	emp_ring_destroy(&r);
}

/* ---- two threads ------------------------------------------------------------------------------------------ */

#define STRESS_RECORDS 3000000u

static uint32_t stress_len(uint32_t seq)
{
	return 8 + 8 * ((seq * 2654435761u) >> 28); /* 8 .. 128 bytes, scattered */
}

static uint64_t stress_word(uint32_t seq, uint32_t i)
{
	return ((uint64_t)seq << 32 | i) * 0x9e3779b97f4a7c15ull;
}

static void *producer(void *arg)
{
	struct emp_ring *r = arg;
	for (uint32_t seq = 0; seq < STRESS_RECORDS; seq++) {
		uint32_t len = stress_len(seq);
		uint8_t *p;
		while (!(p = emp_ring_reserve(r, len)))
			sched_yield();
		uint32_t h[2] = { EMP_REC_HDR(EMP_REC_SAMPLE, len), seq };
		memcpy(p, h, 8);
		for (uint32_t i = 0; i < (len - 8) / 8; i++) {
			uint64_t w = stress_word(seq, i);
			memcpy(p + 8 + 8 * i, &w, 8);
		}
		emp_ring_commit(r);
	}
	return NULL;
}

Test(ring, two_thread_stress)
{
	struct emp_ring r;
	cr_assert_eq(emp_ring_init(&r, 64 << 10), 0);
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, producer, &r), 0);
	uint32_t seq = 0, pads = 0, bad = 0;
	while (seq < STRESS_RECORDS && !bad) {
		uint64_t tail, head;
		if (!emp_ring_consume_begin(&r, &tail, &head)) {
			sched_yield();
			continue;
		}
		while (tail < head) {
			uint32_t size;
			const uint8_t *p = emp_ring_record(&r, tail, &size);
			uint32_t h[2];
			memcpy(h, p, 8);
			if (EMP_REC_TYPE(h[0]) == EMP_REC_PAD) {
				pads++;
			} else {
				uint32_t len = stress_len(seq);
				if (EMP_REC_TYPE(h[0]) != EMP_REC_SAMPLE || size != len || h[1] != seq) {
					bad = 1;
					break;
				}
				for (uint32_t i = 0; i < (len - 8) / 8; i++) {
					uint64_t w;
					memcpy(&w, p + 8 + 8 * i, 8);
					if (w != stress_word(seq, i))
						bad = 1;
				}
				seq++;
			}
			tail += size;
		}
		emp_ring_consume_end(&r, tail);
	}
	cr_assert_eq(bad, 0, "record %u: wrong header, size or content", seq);
	pthread_join(th, NULL);
	cr_assert_eq(seq, STRESS_RECORDS);
	cr_assert_gt(pads, 0, "the buffer wrapped");
	cr_assert_eq(head_of(&r), tail_of(&r), "all consumed");
	emp_ring_destroy(&r);
}
