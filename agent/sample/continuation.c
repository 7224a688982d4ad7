/* SPDX-License-Identifier: MIT */
/* continuation.c - a mounted continuation's frames that AsyncGetCallTrace skips, read from its stack chunks.
 *
 * A virtual thread runs as a continuation (jdk.internal.vm.Continuation) mounted on a carrier: Continuation.run
 * calls Continuation.enterSpecial, whose frame is the bottom of the continuation's frames on the carrier's stack.
 * At each unmount HotSpot freezes those frames into a stack chunk (jdk.internal.vm.StackChunk, a heap object:
 * Continuation.tail, older chunks through StackChunk.parent); at the next mount it thaws only the top frames back
 * onto the stack when the chunk is large or holds interpreted frames, and makes the lowest thawed frame return
 * into a return barrier that thaws more.  AGCT's walk goes from that lowest thawed frame straight to enterSpecial:
 * the frames still in the chunk, Continuation.enter up to the caller of the lowest thawed frame, are missing.
 *
 * We read them from the chunk, as HotSpot's StackChunkFrameStream walks it (x86-64; read, not copied): the frames
 * lie from chunk start + 8 * StackChunk.sp to start + 8 * StackChunk.bottom as they lay on the stack, each frame's
 * return address in the word below its sp; a compiled frame is its code blob's frame size; an interpreted frame's
 * saved rbp, sender sp and locals pointer are stored relative (rbp at (sp - 2) + [sp - 2] words), the next frame
 * at rbp + 2 unless its locals reach the bottom, its unextended sp (a compiled caller's frame size counts from
 * there) the sender sp; a compiled frame's Java methods come from its scope descriptors at the return
 * address (inlined methods too, vmstructs.c).  The walk of a chunk must end exactly at its bottom; the frames must
 * end in Continuation.enter (then they are all there: EMP_SAMPLE_CONT_RECOVERED), else the sample stays marked
 * [truncated].
 *
 * Which continuation: the carrier's java.lang.Thread.cont is its innermost mounted continuation (Continuation.run
 * sets it before enterSpecial), Continuation.parent the next one out; the k-th enterSpecial of a walk from the
 * leaf is that many parents out.
 *
 * Where this is off (the sample then keeps [truncated]): JDK 17 (no continuations), JDKs whose tables or nmethod
 * layout vmstructs.c does not read (emp_vmstructs_cont_ok), ZGC and Shenandoah (their heap references are colored
 * or may be forwarded: a raw load is not the object), and the sampler-thread-less attach threads (no JavaThread).
 *
 * Async-signal-safety: the handler-side code reads this thread's frames, JVM structures and heap objects with plain
 * loads under agct.c's fault guard, moves words within the thread's own frame array, and allocates nothing.  Only
 * this thread thaws or freezes its continuation, so the chunks do not change under the walk.  A thread sampled while
 * it runs Java code is not at a safepoint, so no collection moves the objects meanwhile; one sampled while blocked
 * (clock=wall) may be, and the loads may then see an object's old or new copy: the walk must still end exactly at
 * each chunk's bottom, through return addresses that have PcDescs, in Continuation.enter, or it is not used.
 */
#include <string.h>

#include "counters.h"
#include "log.h"
#include "sampler.h"
#include "vmstructs.h"
#include "writer.h"

/* Chunks and frames one recovery reads at most. */
#define CONT_MAX_CHUNKS 64
#define CONT_MAX_INLINE 64

static struct {
	/* Continuation.enterSpecial and enter (JDK 21+; NULL before).  (CE) enter_special's store_release, after
	 * enter and the walk's fields below, pairs with (CL) the handler's load_acquire: threads the scanner armed
	 * (vmthreads.c) take samples without the sampler's lock.  NULL there: no check. */
	_Atomic(jmethodID) enter_special;
	jmethodID enter;
	int walk;                          /* the chunk walk is on */
	int64_t thread_cont, thread_tid;   /* field offsets: Thread.cont, Thread.tid */
	int64_t cont_parent, cont_tail;    /* Continuation.parent, .tail */
	int64_t chunk_parent, chunk_size, chunk_sp, chunk_bottom; /* StackChunk.parent, size, sp, bottom */
	int64_t stack_offset;              /* bytes from a StackChunk to its stack (the class's instance size) */
	int compressed;                    /* heap references are narrow oops */
	uintptr_t narrow_base;
	int narrow_shift;
	int method_slot, locals_slot, sender_sp_slot; /* interpreted frames: words from rbp */
} c;

/* The offset of @cls's instance field @name (Unsafe.objectFieldOffset), or -1. */
static int64_t field_offset(JNIEnv *jni, jobject unsafe, jmethodID offset_of, const char *cls, const char *name)
{
	jclass k = (*jni)->FindClass(jni, cls);
	jstring n = k ? (*jni)->NewStringUTF(jni, name) : NULL;
	jlong off = n ? (*jni)->CallLongMethod(jni, unsafe, offset_of, k, n) : -1;
	if ((*jni)->ExceptionCheck(jni)) {
		(*jni)->ExceptionClear(jni);
		off = -1;
	}
	if (n)
		(*jni)->DeleteLocalRef(jni, n);
	if (k)
		(*jni)->DeleteLocalRef(jni, k);
	return off;
}

/* The chunk walk's set-up.  Return: NULL when it is on, else why not. */
static const char *walk_init(JNIEnv *jni)
{
	if (!emp_vmstructs_cont_ok())
		return "the JVM's tables lack a field it needs, or its nmethods are laid out otherwise";
	int zgc = 0, shenandoah = 0, coops = 0;
	emp_vmstructs_flag("UseZGC", &zgc);
	emp_vmstructs_flag("UseShenandoahGC", &shenandoah);
	if (zgc || shenandoah)
		return "ZGC and Shenandoah heap references cannot be read without their barriers";
	if (emp_vmstructs_flag("UseCompressedOops", &coops))
		return "no UseCompressedOops flag";
	jclass uc = (*jni)->FindClass(jni, "jdk/internal/misc/Unsafe");
	jmethodID get = uc ? (*jni)->GetStaticMethodID(jni, uc, "getUnsafe", "()Ljdk/internal/misc/Unsafe;") : NULL;
	jmethodID offset_of = uc ? (*jni)->GetMethodID(jni, uc, "objectFieldOffset", "(Ljava/lang/Class;Ljava/lang/String;)J")
				 : NULL;
	jobject unsafe = get && offset_of ? (*jni)->CallStaticObjectMethod(jni, uc, get) : NULL;
	if ((*jni)->ExceptionCheck(jni)) {
		(*jni)->ExceptionClear(jni);
		unsafe = NULL;
	}
	const char *why = NULL;
	if (!unsafe) {
		why = "no jdk.internal.misc.Unsafe.objectFieldOffset";
	} else {
		c.thread_cont = field_offset(jni, unsafe, offset_of, "java/lang/Thread", "cont");
		c.thread_tid = field_offset(jni, unsafe, offset_of, "java/lang/Thread", "tid");
		c.cont_parent = field_offset(jni, unsafe, offset_of, "jdk/internal/vm/Continuation", "parent");
		c.cont_tail = field_offset(jni, unsafe, offset_of, "jdk/internal/vm/Continuation", "tail");
		c.chunk_parent = field_offset(jni, unsafe, offset_of, "jdk/internal/vm/StackChunk", "parent");
		c.chunk_size = field_offset(jni, unsafe, offset_of, "jdk/internal/vm/StackChunk", "size");
		c.chunk_sp = field_offset(jni, unsafe, offset_of, "jdk/internal/vm/StackChunk", "sp");
		c.chunk_bottom = field_offset(jni, unsafe, offset_of, "jdk/internal/vm/StackChunk", "bottom");
		if (c.thread_cont < 0 || c.thread_tid < 0 || c.cont_parent < 0 || c.cont_tail < 0 || c.chunk_parent < 0 || c.chunk_size < 0 ||
		    c.chunk_sp < 0 || c.chunk_bottom < 0)
			why = "a field of Thread, Continuation or StackChunk is missing";
		(*jni)->DeleteLocalRef(jni, unsafe);
	}
	if (uc)
		(*jni)->DeleteLocalRef(jni, uc);
	if (why)
		return why;
	/* The stack follows a StackChunk's fields (InstanceStackChunkKlass::offset_of_stack: the instance size).  A
	 * local reference is the address of a slot holding the object (JNIHandles; the low two bits tag the kind). */
	jclass chunk = (*jni)->FindClass(jni, "jdk/internal/vm/StackChunk");
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (!chunk)
		return "no class jdk.internal.vm.StackChunk";
	c.stack_offset = emp_vmstructs_instance_size(*(const uintptr_t *)((uintptr_t)chunk & ~(uintptr_t)3));
	(*jni)->DeleteLocalRef(jni, chunk);
	if (c.stack_offset <= c.chunk_bottom || c.stack_offset > 256)
		return "the size of a StackChunk is not plausible";
	c.compressed = coops;
	emp_vmstructs_narrow_oops(&c.narrow_base, &c.narrow_shift);
	c.method_slot = emp_vmstructs_interpreter_method();
	c.locals_slot = emp_vmstructs_interpreter_locals();
	c.sender_sp_slot = emp_vmstructs_interpreter_sender_sp();
	return NULL;
}

void emp_continuation_init(JNIEnv *jni)
{
	/* a well-known class, loaded with the VM; absent before JDK 19 */
	jclass cont = (*jni)->FindClass(jni, "jdk/internal/vm/Continuation");
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (!cont)
		return;
	jmethodID special = (*jni)->GetStaticMethodID(jni, cont, "enterSpecial", "(Ljdk/internal/vm/Continuation;ZZ)V");
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	c.enter = (*jni)->GetStaticMethodID(jni, cont, "enter", "(Ljdk/internal/vm/Continuation;Z)V");
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	(*jni)->DeleteLocalRef(jni, cont);
	if (!special || !c.enter)
		return; /* a JDK with other names: no check rather than a wrong one */
	const char *why = walk_init(jni);
	c.walk = !why;
	emp_writer_add_meta("sample_continuation_frames", why ? why : "from stack chunks");
	if (why)
		emp_info("mode=sample: virtual threads' frames not yet thawed are not read (%s): such samples are marked "
			 "[truncated]", why);
	/* (CE) release; pairs with (CL) in emp_continuation_check() */
	atomic_store_explicit(&c.enter_special, special, memory_order_release);
}

/* --- the handler side --- */

/* The object the reference field at @addr points to (a narrow oop decoded), 0 for null. */
static uintptr_t ref_at(uintptr_t addr)
{
	if (!c.compressed)
		return *(const uintptr_t *)addr;
	uint32_t narrow = *(const uint32_t *)addr;
	return narrow ? c.narrow_base + ((uintptr_t)narrow << c.narrow_shift) : 0;
}

static int32_t int_at(uintptr_t addr)
{
	return *(const int32_t *)addr;
}

/* One recovery: the frames of the @k-th mounted continuation (0 the innermost) into @out (@cap of them). */
struct cont_walk {
	int k;
	emp_asgct_frame *out;
	int cap, n;
	enum emp_counter outcome; /* why it failed */
};

/* The frames of @chunk, leaf first, appended to w->out.  Return: 0 when the walk ended exactly at the chunk's
 * bottom, -1 otherwise. */
static int chunk_frames(uintptr_t chunk, struct cont_walk *w)
{
	int32_t size = int_at(chunk + (uintptr_t)c.chunk_size), sp = int_at(chunk + (uintptr_t)c.chunk_sp);
	int32_t bottom = int_at(chunk + (uintptr_t)c.chunk_bottom);
	if (size <= 0 || size > (1 << 24) || sp < 0 || sp > bottom || bottom > size)
		return -1;
	uintptr_t start = chunk + (uintptr_t)c.stack_offset;
	/* p the frame's sp, u its unextended sp: a compiled frame that called an interpreted one through an adapter
	 * was extended by the callee's arguments, and its frame size counts from where it was before */
	const uintptr_t *p = (const uintptr_t *)start + sp, *u = p, *end = (const uintptr_t *)start + bottom;
	uintptr_t methods[CONT_MAX_INLINE];
	w->outcome = EMP_C_CONT_RECOVER_BAD_FRAME;
	while (p < end) {
		uintptr_t pc = p[-1];
		struct emp_vm_blob b;
		int m;
		if (emp_vmstructs_blob(pc, &b))
			return -1;
		if (b.is_interpreter) {
			/* derelativized rbp (StackChunkFrameStream::fp) */
			const uintptr_t *fp = p - 2 + (intptr_t)p[-2];
			if (fp < p || fp >= end)
				return -1;
			methods[0] = fp[c.method_slot];
			m = 1;
			const uintptr_t *locals = fp + (intptr_t)fp[c.locals_slot];
			u = locals + 1 >= end ? end : fp + (intptr_t)fp[c.sender_sp_slot];
			p = locals + 1 >= end ? end : fp + 2;
			if (u < p)
				return -1;
		} else if (b.is_nmethod || b.frame_size > 0) {
			m = b.is_nmethod ? emp_vmstructs_scopes(&b, pc, (uintptr_t)u, methods, CONT_MAX_INLINE) : 0;
			if (m < 0 || b.frame_size <= 0 || b.frame_size > (1 << 16))
				return -1;
			p = u + b.frame_size;
			if (p >= end - 2)
				p = end;
			u = p;
		} else {
			return -1;
		}
		for (int i = 0; i < m; i++) {
			if (w->n >= w->cap) {
				w->outcome = EMP_C_CONT_RECOVER_DEPTH;
				return -1;
			}
			w->out[w->n++] = (emp_asgct_frame){ .lineno = -1, .method_id = emp_vmstructs_method_id(methods[i]) };
		}
	}
	return p == end ? 0 : -1;
}

/* Under the guard: w->k's continuation's chunk frames into w->out.  Return: 0 when they end in
 * Continuation.enter, -1 otherwise. */
static int read_chunks(struct emp_sampler_thread *st, void *arg)
{
	struct cont_walk *w = arg;
	w->outcome = EMP_C_CONT_RECOVER_NO_CONTINUATION;
	uintptr_t thread = emp_vmstructs_thread_oop(st->vm_thread, 0);
	uintptr_t cont = thread ? ref_at(thread + (uintptr_t)c.thread_cont) : 0;
	for (int i = 0; i < w->k && cont; i++)
		cont = ref_at(cont + (uintptr_t)c.cont_parent);
	if (!cont || cont & 7)
		return -1;
	uintptr_t chunk = ref_at(cont + (uintptr_t)c.cont_tail);
	for (int i = 0; chunk && i < CONT_MAX_CHUNKS; i++) {
		if (chunk & 7 || chunk_frames(chunk, w))
			return -1;
		if (w->n && w->out[w->n - 1].method_id == c.enter)
			return 0;
		chunk = ref_at(chunk + (uintptr_t)c.chunk_parent);
	}
	w->outcome = EMP_C_CONT_RECOVER_NO_ENTER;
	return -1;
}

/* The frames of the @k-th continuation inserted into st->frames at @at (the walk's @n frames).  Return: the new
 * number of frames, or -1 (st->frames unchanged). */
static int recover(struct emp_sampler_thread *st, int n, int at, int k)
{
	int rest = n - at, cap = (int)st->depth - rest - at;
	if (cap <= 0) {
		emp_count(EMP_C_CONT_RECOVER_DEPTH, 1);
		return -1;
	}
	emp_asgct_frame *f = st->frames;
	/* the root side out of the way, to the end of the array (no copy of the frames elsewhere: a signal handler) */
	memmove(f + st->depth - rest, f + at, (size_t)rest * sizeof(*f));
	struct cont_walk w = { .k = k, .out = f + at, .cap = cap };
	int rc = emp_agct_guarded(st, read_chunks, &w);
	int added = rc ? 0 : w.n;
	memmove(f + at + added, f + st->depth - rest, (size_t)rest * sizeof(*f));
	if (rc)
		emp_count(rc == EMP_AGCT_CRASHED ? EMP_C_CONT_RECOVER_FAULT : w.outcome, 1);
	return rc ? -1 : n + added;
}

int emp_continuation_check(struct emp_sampler_thread *st, int n, uint8_t *flags)
{
	/* (CL) acquire; pairs with (CE) in emp_continuation_init() */
	jmethodID special = atomic_load_explicit(&c.enter_special, memory_order_acquire);
	if (!special)
		return n;
	emp_asgct_frame *f = st->frames;
	for (int i = 0, k = 0; i < n; i++) {
		if (f[i].method_id != special)
			continue;
		*flags |= EMP_SAMPLE_CONTINUATION;
		if (i > 0 && f[i - 1].method_id != c.enter) {
			int m = c.walk && st->vm_thread ? recover(st, n, i, k) : -1;
			if (m < 0) {
				*flags |= EMP_SAMPLE_TRUNCATED | EMP_SAMPLE_CONT_TRUNCATED;
				return n;
			}
			*flags |= EMP_SAMPLE_CONT_RECOVERED;
			i += m - n;
			n = m;
		}
		k++;
	}
	return n;
}

/* Under the guard: the mounted virtual thread's id into *arg (left 0 when none). */
static int read_vthread(struct emp_sampler_thread *st, void *arg)
{
	uintptr_t carrier = emp_vmstructs_thread_oop(st->vm_thread, 0);
	uintptr_t vthread = emp_vmstructs_thread_oop(st->vm_thread, 1);
	if (carrier && vthread && vthread != carrier && !(vthread & 7))
		*(uint64_t *)arg = (uint64_t)*(const int64_t *)(vthread + (uintptr_t)c.thread_tid);
	return 0;
}

uint64_t emp_continuation_vthread(struct emp_sampler_thread *st)
{
	uint64_t id = 0;
	/* (CL) acquire, as in emp_continuation_check(): c.walk and the offsets were set before enter_special */
	if (!atomic_load_explicit(&c.enter_special, memory_order_acquire) || !c.walk || !st->vm_thread)
		return 0;
	if (emp_agct_guarded(st, read_vthread, &id))
		return 0;
	return id;
}
