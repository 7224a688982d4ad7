/* SPDX-License-Identifier: MIT */
/* test_sampler_decode.c - agent/sample/sampler.c emp_sampler_decode(), sample mode's ring record -> stack: a failed
 * walk becomes its outcome's pseudo-frame, a truncated walk gets a [truncated] root, a jmethodID of 0 is
 * [unknown_method], a JVM thread's sample is rooted at its category, native frames come root first with a caller's
 * PC looked up at its call instruction (PC - 1), a state out of range reads as unknown, short records are refused;
 * the counters the decoder keeps, and the symbols it queued, read back by name.
 *
 * No JVM here: jmethodIDs other than 0 would need JVMTI and are left to the integration tests.  Criterion runs each
 * test in a process of its own, so symbol ids start at 0 and the pseudo-frames are named afresh. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "dump_reader.h"
#include "dumpfile.h"
#include "sampler.h"
#include "symbols.h"

/* A record as the handler writes it: head, then nnative PCs and njava jmethodIDs, leaf first. */
struct rec {
	struct emp_sample_rec head;
	uint64_t pcs[4];
};

static uint32_t size_of(const struct rec *r)
{
	return (uint32_t)(sizeof(r->head) + 8u * (r->head.nnative + r->head.njava));
}

struct decoded {
	int rc;
	uint64_t ticks;
	enum emp_thread_state state;
	uint32_t depth;
	uint32_t frames[8];
	uint64_t vthread;
};

static struct decoded decode(const struct rec *r, uint32_t size)
{
	static uint32_t frames[EMP_MAX_FRAMES];
	struct decoded d = { .state = EMP_STATE_COUNT };
	d.rc = emp_sampler_decode((const uint8_t *)r, size, &d.ticks, &d.state, frames, &d.depth, &d.vthread);
	if (!d.rc) {
		cr_assert_leq(d.depth, 8);
		memcpy(d.frames, frames, d.depth * sizeof(*frames));
	}
	return d;
}

static void assert_symbol(const struct emp_dump_reader *r, uint32_t id, enum emp_frame_kind kind, const char *klass,
			  const char *name)
{
	const struct emp_dump_method *m = emp_dump_method(r, id);
	cr_assert_not_null(m, "no symbol %u", id);
	cr_assert_eq(m->kind, kind, "symbol %u", id);
	cr_assert_str_eq(m->klass, klass, "symbol %u", id);
	cr_assert_str_eq(m->name, name, "symbol %u", id);
}

/* The dynamic symbol containing @pc and its object's file name, as the decoder should name the frame. */
static void native_name(uint64_t pc, const char **lib, const char **fn)
{
	Dl_info info;
	cr_assert(dladdr((void *)(uintptr_t)pc, &info) && info.dli_sname && info.dli_fname);
	const char *slash = strrchr(info.dli_fname, '/');
	*lib = slash ? slash + 1 : info.dli_fname;
	*fn = info.dli_sname;
}

Test(sampler_decode, stacks_from_records)
{
	emp_symbols_setup();
	struct decoded d;

	/* a failed walk: its outcome as the only frame; the same outcome again is the same symbol */
	struct rec gc = { .head = { .state = EMP_STATE_RUNNING, .agct = EMP_AGCT_GC_ACTIVE, .ticks = 77 } };
	d = decode(&gc, size_of(&gc));
	cr_assert_eq(d.rc, 0);
	cr_assert_eq(d.ticks, 77);
	cr_assert_eq(d.state, EMP_STATE_RUNNING);
	cr_assert_eq(d.depth, 1);
	cr_assert_eq(d.frames[0], 0);
	d = decode(&gc, size_of(&gc));
	cr_assert(d.rc == 0 && d.depth == 1 && d.frames[0] == 0);
	struct rec crashed = { .head = { .agct = EMP_AGCT_CRASHED, .state = 200 } };
	d = decode(&crashed, size_of(&crashed));
	cr_assert(d.rc == 0 && d.depth == 1 && d.frames[0] == 1);
	cr_assert_eq(d.state, EMP_STATE_UNKNOWN, "a state out of range reads as unknown");
	struct rec other = { .head = { .agct = 3 } }; /* frames claimed, none recorded */
	d = decode(&other, size_of(&other));
	cr_assert(d.rc == 0 && d.depth == 1 && d.frames[0] == 2);

	/* a truncated walk whose one jmethodID is 0: [truncated] at the root, then [unknown_method] */
	struct rec trunc = { .head = { .state = EMP_STATE_NATIVE, .flags = EMP_SAMPLE_TRUNCATED, .agct = 1, .njava = 1 },
			     .pcs = { 0 } };
	d = decode(&trunc, size_of(&trunc));
	cr_assert(d.rc == 0 && d.depth == 2 && d.frames[0] == 3 && d.frames[1] == 4, "depth %u", d.depth);
	cr_assert_eq(d.state, EMP_STATE_NATIVE);
	cr_assert_eq(emp_counter_get(EMP_C_SAMPLE_TRUNCATED), 1);
	cr_assert_eq(emp_counter_get(EMP_C_SAMPLE_UNRESOLVED), 1);

	/* virtual threads: a walk through enterSpecial whose missing frames were read from the chunks is counted in
	 * sample_continuation and _recovered and is not [truncated]; one whose frames could not be read is
	 * [truncated], counted in sample_continuation, _truncated and sample_truncated; the virtual thread the
	 * carrier ran comes out as recorded */
	struct rec cont = { .head = { .flags = EMP_SAMPLE_CONTINUATION | EMP_SAMPLE_CONT_RECOVERED, .agct = 1,
				      .njava = 1, .vthread = 77 },
			    .pcs = { 0 } };
	d = decode(&cont, size_of(&cont));
	cr_assert(d.rc == 0 && d.depth == 1 && d.frames[0] == 4 && d.vthread == 77);
	cont.head.flags = EMP_SAMPLE_CONTINUATION | EMP_SAMPLE_TRUNCATED | EMP_SAMPLE_CONT_TRUNCATED;
	d = decode(&cont, size_of(&cont));
	cr_assert(d.rc == 0 && d.depth == 2 && d.frames[0] == 3 && d.frames[1] == 4);
	cr_assert_eq(emp_counter_get(EMP_C_SAMPLE_CONTINUATION), 2);
	cr_assert_eq(emp_counter_get(EMP_C_SAMPLE_CONT_RECOVERED), 1);
	cr_assert_eq(emp_counter_get(EMP_C_SAMPLE_CONT_TRUNCATED), 1);
	cr_assert_eq(emp_counter_get(EMP_C_SAMPLE_TRUNCATED), 2);

	/* recovered, but no compiled method holds the PC: counted, nothing added */
	struct rec rec = { .head = { .flags = EMP_SAMPLE_RECOVERED, .agct = 1, .njava = 1, .top_pc = 0x1000 } };
	d = decode(&rec, size_of(&rec));
	cr_assert(d.rc == 0 && d.depth == 1 && d.frames[0] == 4);
	cr_assert_eq(emp_counter_get(EMP_C_SAMPLE_RECOVERED_NO_TOP), 1);

	/* a JVM thread's sample: category root, [truncated] (the native walk hit its limit), natives root first;
	 * the caller's PC is the start of libc's div, so its frame is whatever precedes div (looked up at PC - 1).
	 * (div, not e.g. qsort: under ASan, &qsort is the sanitizer's interceptor, which has another name.) */
	uint64_t leaf = (uint64_t)(uintptr_t)&div + 4, caller = (uint64_t)(uintptr_t)&div;
	struct rec vm = { .head = { .flags = EMP_SAMPLE_VM | EMP_SAMPLE_TRUNCATED, .category = EMP_VM_GC, .nnative = 2,
				    .state = EMP_STATE_RUNNING },
			  .pcs = { leaf, caller } };
	d = decode(&vm, size_of(&vm));
	cr_assert(d.rc == 0 && d.depth == 4, "depth %u", d.depth);
	cr_assert_eq(d.frames[0], 5);
	cr_assert_eq(d.frames[1], 3, "the one [truncated] symbol");
	cr_assert_eq(d.frames[2], (uint32_t)emp_native_symbol(caller - 1));
	cr_assert_eq(d.frames[3], (uint32_t)emp_native_symbol(leaf));
	cr_assert_neq(d.frames[2], d.frames[3]);
	cr_assert_eq(emp_counter_get(EMP_C_SAMPLE_VM_TRUNCATED), 1);
	cr_assert_eq(emp_counter_get(EMP_C_SAMPLE_TRUNCATED), 2, "a JVM thread's truncation is counted apart");
	/* a category out of range is a [native thread] */
	struct rec vm_bad = { .head = { .flags = EMP_SAMPLE_VM, .category = 99, .nnative = 1 }, .pcs = { leaf } };
	d = decode(&vm_bad, size_of(&vm_bad));
	cr_assert(d.rc == 0 && d.depth == 2 && d.frames[1] == (uint32_t)emp_native_symbol(leaf));
	uint32_t native_thread = d.frames[0];

	/* records shorter than their head, or than the frames they announce, are refused */
	cr_assert_eq(decode(&gc, sizeof(gc.head) - 1).rc, -1);
	cr_assert_eq(decode(&vm, size_of(&vm) - 1).rc, -1);

	/* the symbols, by name */
	struct emp_dump_reader *r = emp_test_read_symbols();
	assert_symbol(r, 0, EMP_FRAME_PSEUDO, "", "[GC_active]");
	assert_symbol(r, 1, EMP_FRAME_PSEUDO, "", "[agct_crashed]");
	assert_symbol(r, 2, EMP_FRAME_PSEUDO, "", "[agct_other]");
	assert_symbol(r, 3, EMP_FRAME_PSEUDO, "", "[truncated]");
	assert_symbol(r, 4, EMP_FRAME_PSEUDO, "", "[unknown_method]");
	assert_symbol(r, 5, EMP_FRAME_PSEUDO, "", "[GC]");
	assert_symbol(r, native_thread, EMP_FRAME_PSEUDO, "", "[native thread]");
	const char *lib, *fn;
	native_name(leaf, &lib, &fn);
	cr_assert_str_eq(fn, "div");
	assert_symbol(r, d.frames[1], EMP_FRAME_NATIVE, lib, "div");
	emp_dump_reader_close(r);
}
