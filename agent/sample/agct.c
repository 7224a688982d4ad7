/* SPDX-License-Identifier: MIT */
/* agct.c - AsyncGetCallTrace: lookup, fault guard, and recovery of unknown_Java at compiled methods'
 * edges.
 *
 * Fault guard.  AGCT has known crash bugs (JDK-8178287, JDK-8307549).  Our SIGSEGV/SIGBUS handlers are installed in
 * front of the JVM's (which exist by Agent_OnLoad: HotSpot installs its handlers in os::init_2, before agents load)
 * and keep the JVM's flags and mask.  A fault on a thread whose `guard` TLS slot is set — only between the two
 * signal fences around the AGCT call — jumps back to the sigsetjmp before the call (siglongjmp restores the
 * handler's signal mask); every other fault is passed to the JVM's handler with the same arguments, untouched
 * (HotSpot relies on SIGSEGV for implicit null checks and safepoint polls).  Known residue: JDK 21+ marks the
 * thread "in ASGCT" for the duration of the call; a jump out of AGCT leaves that mark set (it matters on macOS
 * W^X only).
 *
 * Recovery.  AGCT answers unknown_Java/not_walkable_Java when the PC sits where a compiled method's frame is not (or
 * no longer) set up: the inline-cache check, stack bangs, `push rbp` or C2's `sub rsp; mov [rsp+d], rbp`, and (JDK
 * 21+: every GC) the nmethod entry barrier of the prologue, up to the blob's frame_complete offset; `pop rbp`, the
 * return poll and `ret` of the epilogue (design.md §8 measured a third of fib's samples there; on JDK 25 the entry
 * barrier alone left 8-12 % of them unknown).  It also fails in the VM's own code between Java frames.  As
 * async-profiler does (read, not copied), we ask the JVM's own tables (vmstructs.c) what the PC is in, find the
 * caller's pc, sp and rbp, ask AGCT again from the caller (PC at the call instruction, return address - 1, so the
 * call site's bytecode is found; into frames[1...], registers put back afterwards) and put the popped method in
 * frames[0] (its jmethodID from its class's jmethodID cache; where the cache has none, the record keeps the PC,
 * top_pc, and the writer names it from the JIT's CompiledMethodLoad events, sampler.c):
 *   nmethod        the frame's state at the PC (none / rbp pushed / allocated / complete) from where the PC is in
 *                  the prologue's known shape, checked against the frame size the tables give (or, for another
 *                  shape, a stack word that returns right after a `call` of this nmethod), or from the epilogue's
 *                  instructions; frame size 0 (method handle intrinsics): no frame
 *   interpreter    a method's entry once `enter` ran (interpreter_entry())
 *   stubs          vtable/itable stubs, the i2c adapter's first instructions, other stubs compiled code called
 *                  (stub_caller()), runtime stubs with a frame size (pop_runtime_stub()); the nmethod entry
 *                  barrier's caller is popped from its prologue too (caller_prologue())
 *   native code    that Java called without a state change (leaf calls): libunwind to the first JIT frame
 * The return address found must lie in the code cache.  unknown_not_Java/not_walkable_not_Java in the VM are
 * repaired in the thread's frame anchor instead (repair_anchor()).  Without the tables (a JVM that lacks a field we
 * need) the state comes from instruction bytes alone (classify()).  Each attempt is counted by outcome
 * (sample_recover_*, outcomes.h).  Every read of JVM memory or of the stack in the recovery runs under the fault
 * guard (libunwind runs outside it: a jump out of it would leave its caches locked).
 *
 * Fault injection (test build only: tests/faultinject.mk compiles build/test/libemp-faultinject.so with
 * -DEMP_FAULT_INJECT; libemp.so has none of it).  With EMP_FAULT_INJECT_EVERY=N in the environment, every N-th
 * guarded AGCT call first reads a page mapped PROT_NONE, inside the guard: the fault must come back as
 * agct_crashed, once per injection (test_fault_injected), and every other fault must still reach the JVM
 * (test_fault_chained).  tests/integration/sample_faults.sh checks both.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#ifdef EMP_FAULT_INJECT
#include <stdlib.h>
#include <sys/mman.h>
#endif

#include "counters.h"
#include "log.h"
#include "sampler.h"
#include "vmstructs.h"
#include "writer.h"

typedef void (*agct_fn)(emp_asgct_trace *trace, jint depth, void *ucontext);
static agct_fn agct;
static int vmstructs_ok; /* the JVM's tables answer every query the recovery asks (set before the handler runs) */
static struct sigaction old_segv, old_bus;
/* Non-NULL only while this thread is inside AGCT; read by on_fault on the same thread. */
static __thread struct emp_sampler_thread *guard __attribute__((tls_model("initial-exec")));

#ifdef EMP_FAULT_INJECT
static const volatile char *fault_page; /* PROT_NONE */
static unsigned long fault_every;       /* EMP_FAULT_INJECT_EVERY, 0 = off */
static _Atomic unsigned long fault_calls;

static void fault_inject_init(void)
{
	const char *e = getenv("EMP_FAULT_INJECT_EVERY");
	fault_every = e ? strtoul(e, NULL, 10) : 0;
	if (!fault_every)
		return;
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fault_page = p == MAP_FAILED ? NULL : p;
}

/* Inside the guard, on the sampled thread: a relaxed counter (statistics only) and a read that faults. */
static void fault_inject(void)
{
	if (!fault_page || atomic_fetch_add_explicit(&fault_calls, 1, memory_order_relaxed) % fault_every)
		return;
	emp_count(EMP_C_FAULT_INJECTED, 1);
	(void)*fault_page;
}
#endif

static void chain(const struct sigaction *old, int sig, siginfo_t *si, void *uc)
{
#ifdef EMP_FAULT_INJECT
	emp_count(EMP_C_FAULT_CHAINED, 1);
#endif
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, si, uc);
	} else if (old->sa_handler == SIG_DFL) {
		/* Nobody handles it: the default action (core dump) when the instruction faults again on return. */
		signal(sig, SIG_DFL);
	} else if (old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	}
}

/* Async-signal-safe: a TLS read, then either siglongjmp to a sigsetjmp of this very thread (the interrupted AGCT
 * call runs inside our own SIGPROF handler) or a call of the JVM's handler. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct emp_sampler_thread *st = guard;
	if (st) {
		guard = NULL;
		siglongjmp(st->fault_jmp, 1);
	}
	chain(sig == SIGSEGV ? &old_segv : &old_bus, sig, si, uc);
}

static int install_guard(int sig, struct sigaction *old)
{
	if (sigaction(sig, NULL, old))
		return -errno;
	struct sigaction sa = *old; /* the JVM's mask and flags (SA_ONSTACK, SA_RESTART...) */
	sa.sa_sigaction = on_fault;
	sa.sa_flags |= SA_SIGINFO;
	sa.sa_flags &= ~SA_RESETHAND;
	return sigaction(sig, &sa, NULL) ? -errno : 0;
}

int emp_agct_init(char *err, size_t errlen)
{
	agct = (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
	if (!agct) {
		snprintf(err, errlen, "mode=sample: this JVM has no AsyncGetCallTrace (not HotSpot?)");
		return -1;
	}
	int rc = install_guard(SIGSEGV, &old_segv);
	if (!rc)
		rc = install_guard(SIGBUS, &old_bus);
	if (rc) {
		snprintf(err, errlen, "mode=sample: cannot install the AsyncGetCallTrace fault guard: %s", strerror(-rc));
		return -1;
	}
#ifdef EMP_FAULT_INJECT
	fault_inject_init();
#endif
	char what[160];
	vmstructs_ok = emp_vmstructs_init(what, sizeof(what));
	if (*what)
		emp_info("mode=sample: %s: %s", what,
			 vmstructs_ok ? "some failed walks are not recovered"
				      : "failed walks are recovered by instruction patterns only");
	/* in the dump, so that a JDK whose tables lack a field we need shows in every profile (and in the tests) */
	emp_writer_add_meta("sample_vmstructs", *what ? what : "complete");
	return 0;
}

/* The fault guard (sampler.h). */
int emp_agct_guarded(struct emp_sampler_thread *st, int (*fn)(struct emp_sampler_thread *, void *), void *arg)
{
	if (sigsetjmp(st->fault_jmp, 1))
		return EMP_AGCT_CRASHED;
	guard = st;
	atomic_signal_fence(memory_order_seq_cst); /* guard is set before the call, for on_fault on this thread */
	int r = fn(st, arg);
	atomic_signal_fence(memory_order_seq_cst);
	guard = NULL;
	return r;
}

struct agct_call {
	void *ucontext;
	emp_asgct_frame *frames;
	uint32_t depth;
};

static int agct_call(struct emp_sampler_thread *st, void *arg)
{
	const struct agct_call *c = arg;
	emp_asgct_trace tr = { .env_id = st->t->jni, .num_frames = 0, .frames = c->frames };
#ifdef EMP_FAULT_INJECT
	fault_inject();
#endif
	agct(&tr, (jint)c->depth, c->ucontext);
	return tr.num_frames;
}

/* AGCT into @frames (@depth of them) from @ucontext, guarded. */
static int agct_guarded(struct emp_sampler_thread *st, void *ucontext, emp_asgct_frame *frames, uint32_t depth)
{
	struct agct_call c = { ucontext, frames, depth };
	return emp_agct_guarded(st, agct_call, &c);
}

/* Where the frame at the PC keeps its caller (x86-64 HotSpot frames: [return address][saved rbp][the rest]). */
enum frame_state {
	FRAME_NONE,     /* not set up, or already torn down: return address at [sp] */
	FRAME_PUSHED,   /* rbp pushed, rsp not (or no longer) moved: saved rbp at [sp], return address at [sp+8] */
	FRAME_COMPLETE, /* frame_size words: return address at [sp + 8*frame_size - 8], saved rbp below it */
	FRAME_ADJUST,   /* `add rsp, imm` before `pop rbp`: as COMPLETE with 8*frame_size = imm + 16 (no tables) */
	FRAME_ALLOCATED, /* as COMPLETE, but rbp is not saved yet: the caller's rbp is still in the register */
};

/* Fallback without the JVM's tables: how to pop the incomplete frame at @ip, by instruction bytes alone.  Return:
 * -1 not an edge we know, else the state (*adjust = imm for FRAME_ADJUST). */
static int classify(const uint8_t *ip, uint64_t *adjust)
{
	int after_page_start = ((uintptr_t)ip & 0xfff) >= 8; /* ip[-8..-1] are on the same (mapped) page */
	if (ip[0] == 0xc3 || ip[0] == 0x55)                                   /* ret; push rbp */
		return FRAME_NONE;
	if (ip[0] == 0x89 && ip[1] == 0x84 && ip[2] == 0x24)                    /* stack bang mov [rsp-N], eax */
		return FRAME_NONE;
	if (ip[0] == 0x41 && ip[1] == 0x85 && ip[2] == 0x02 && ip[3] == 0xc3)   /* old return poll: test; ret */
		return FRAME_NONE;
	if (after_page_start && ip[-1] == 0x5d)                                /* just after pop rbp */
		return FRAME_NONE;
	if (after_page_start && ip[0] == 0x0f && ip[1] == 0x87 &&
	    ((ip[-8] == 0x5d && ip[-7] == 0x49 && ip[-6] == 0x3b) ||           /* pop rbp; cmp rsp,[r15+d32]; ja */
	     (ip[-5] == 0x5d && ip[-4] == 0x49 && ip[-3] == 0x3b)))             /* pop rbp; cmp rsp,[r15+d8]; ja */
		return FRAME_NONE;
	if (ip[0] == 0x5d)                                                     /* pop rbp */
		return FRAME_PUSHED;
	if (after_page_start && ip[-1] == 0x55 && ip[0] == 0x48 && (ip[1] == 0x83 || ip[1] == 0x81) &&
	    ip[2] == 0xec)                                                      /* push rbp; sub rsp, imm */
		return FRAME_PUSHED;
	if (ip[0] == 0x48 && ip[1] == 0x83 && ip[2] == 0xc4 && ip[4] == 0x5d) { /* add rsp, imm8; pop rbp */
		*adjust = ip[3];
		return FRAME_ADJUST;
	}
	if (ip[0] == 0x48 && ip[1] == 0x81 && ip[2] == 0xc4 && ip[7] == 0x5d) { /* add rsp, imm32; pop rbp */
		uint32_t imm;
		memcpy(&imm, ip + 3, 4);
		*adjust = imm;
		return FRAME_ADJUST;
	}
	return -1;
}

/* `sub rsp, imm8/imm32` at @p (before @end): its length, and the immediate in *@imm; 0 when it is not there. */
static int sub_rsp(const uint8_t *p, const uint8_t *end, uint32_t *imm)
{
	if (p + 4 <= end && p[0] == 0x48 && p[1] == 0x83 && p[2] == 0xec) {
		*imm = p[3];
		return 4;
	}
	if (p + 7 <= end && p[0] == 0x48 && p[1] == 0x81 && p[2] == 0xec) {
		memcpy(imm, p + 3, 4);
		return 7;
	}
	return 0;
}

/* The frame state in a compiled method's prologue, @off bytes into its code.  Before the verified entry is the
 * inline-cache check, with no frame.  The verified entry point has one of two shapes (C1, C2, native wrappers):
 *   [stack bangs `mov [rsp-N], eax`] `push rbp` [`mov rbp, rsp`] [`sub rsp, 8*frame_size - 16`]
 *   `sub rsp, 8*frame_size - 8` `mov [rsp + 8*frame_size - 16], rbp`   (C2 without a stack bang)
 * then (JDK 21+, or some GCs) the nmethod entry barrier, until frame_complete.  Return: the state, or -1 when the
 * code does not have either shape, or not the frame size the tables give. */
static int prologue_state(const struct emp_vm_blob *b, int off)
{
	if (off < b->verified_entry)
		return FRAME_NONE;
	const uint8_t *p = (const uint8_t *)(b->code_begin + (uintptr_t)b->verified_entry);
	const uint8_t *end = (const uint8_t *)(b->code_begin + (uintptr_t)b->frame_complete), *pc = p + off - b->verified_entry;
	const uint32_t frame = 8u * (uint32_t)b->frame_size;
	uint32_t imm = 0;
	int len;
	while (p + 7 <= end && p[0] == 0x89 && p[1] == 0x84 && p[2] == 0x24)
		p += 7;
	if (p < end && *p == 0x55) {
		if (pc <= p)
			return FRAME_NONE;
		p++;
		if (p + 3 <= end && p[0] == 0x48 && p[1] == 0x89 && p[2] == 0xe5) /* mov rbp, rsp (PreserveFramePointer) */
			p += 3;
		p += sub_rsp(p, end, &imm);
		if (imm + 16 != frame)
			return -1;
		return pc < p ? FRAME_PUSHED : FRAME_COMPLETE;
	}
	if ((len = sub_rsp(p, end, &imm)) && imm + 8 == frame && p + len + 5 <= end && p[len] == 0x48 &&
	    p[len + 1] == 0x89 && p[len + 2] == 0x6c && p[len + 3] == 0x24 && p[len + 4] + 16u == frame) {
		if (pc <= p)
			return FRAME_NONE;
		return pc <= p + len ? FRAME_ALLOCATED : FRAME_COMPLETE; /* at the `mov`: rbp not saved yet */
	}
	return -1;
}

/* Whether @ret is the return address of a `call rel32` to @blob's entry or verified entry point (as compiled code
 * calls a compiled method): the check that a word on the stack really is the caller's return address when the
 * prologue's shape is not one prologue_state() knows. */
static int called_here(uintptr_t ret, const struct emp_vm_blob *b)
{
	if (!emp_vmstructs_in_code(ret) || ((const uint8_t *)ret)[-5] != 0xe8)
		return 0;
	int32_t rel;
	memcpy(&rel, (const uint8_t *)ret - 4, 4);
	uintptr_t target = ret + (uintptr_t)(intptr_t)rel;
	return target == b->code_begin || target == b->code_begin + (uintptr_t)b->verified_entry;
}

/* The frame state at a compiled method's PC where the frame is complete or being torn down: the epilogue is
 * [`add rsp, imm`] `pop rbp` [the return poll `cmp rsp, [r15+d]; ja`] `ret`. */
static int body_state(const uint8_t *ip)
{
	if (ip[0] == 0x5d)
		return FRAME_PUSHED;
	if (ip[0] == 0xc3)
		return FRAME_NONE;
	if (ip[-1] == 0x5d && ip[0] == 0x49 && ip[1] == 0x3b && (ip[2] == 0x67 || ip[2] == 0xa7))
		return FRAME_NONE; /* at the poll, rbp popped (the code before the PC is the same blob's: mapped) */
	if (ip[0] == 0x0f && ip[1] == 0x87 &&
	    ((ip[-5] == 0x5d && ip[-4] == 0x49 && ip[-3] == 0x3b) || (ip[-8] == 0x5d && ip[-7] == 0x49 && ip[-6] == 0x3b)))
		return FRAME_NONE; /* at the poll's branch */
	return FRAME_COMPLETE;
}

/* Under the guard: when @*pc is in a runtime stub (a blob of the VM's own code with a frame: C1/C2 runtime calls,
 * the stubs that call into the VM), pop that frame: the caller's sp is 8 * frame_size above the stub's sp, its
 * return address and rbp below it.  HotSpot marks most of these stubs' frames "never safe" for AGCT (frame_complete
 * -1), although they are complete wherever the stub calls out, which is the only place a return address or an anchor
 * can point into one.  Return: 1 popped, 0 not such a stub (nothing changed), -1 the result is implausible. */
static int pop_runtime_stub(uintptr_t *pc, uintptr_t *sp, uintptr_t *fp)
{
	struct emp_vm_blob b;
	if (emp_vmstructs_blob(*pc, &b) || b.is_nmethod || b.is_interpreter || b.is_adapter || b.is_vtable_stub ||
	    b.frame_size <= 0 || b.frame_size > 1 << 17)
		return 0;
	const uintptr_t *caller_sp = (const uintptr_t *)(*sp + 8u * (uintptr_t)b.frame_size);
	if (!emp_vmstructs_in_code(caller_sp[-1]))
		return -1;
	*pc = caller_sp[-1];
	*fp = caller_sp[-2];
	*sp = (uintptr_t)caller_sp;
	return 1;
}

/* Whether @ret is a return address into compiled code: it is in an nmethod, right after a `call rel32`, `call
 * r10/r11` (with its REX prefix) or `call [reg+disp8]`. */
static int returns_to_nmethod(uintptr_t ret)
{
	struct emp_vm_blob b;
	if (!emp_vmstructs_in_code(ret) || emp_vmstructs_blob(ret - 1, &b) || !b.is_nmethod || ret - 5 < b.code_begin)
		return 0;
	const uint8_t *r = (const uint8_t *)ret;
	return r[-5] == 0xe8 || (r[-3] == 0x41 && r[-2] == 0xff && (r[-1] & 0xf8) == 0xd0) ||
	       (r[-3] == 0xff && (r[-2] & 0xf8) == 0x50);
}

/* A recovery in progress: the registers at the signal, then the caller's and the edge's method. */
struct recovery {
	uintptr_t pc, sp, fp, rbx, r13;
	uintptr_t caller_pc, caller_sp, caller_fp;
	jmethodID method;    /* the method whose edge the PC is at, or NULL: the writer names it by PC */
	int frameless;       /* a stub or native code: the caller's walk is the whole Java stack */
	int stub;            /* ...a stub other than a vtable/itable stub */
	uintptr_t alt_sp;    /* another caller sp to try when AGCT refuses caller_sp, or 0 */
	int outcome;         /* EMP_C_RECOVER_* when the recovery gives up */
};

/* Words above a stub's sp searched for its caller's return address (register saves: 16 general, 2 per xmm). */
#define STUB_SCAN_WORDS 64

/* Under the guard: the caller of a stub that compiled code called (arraycopy, barrier, runtime call, c2i adapter),
 * the stub's frame at @sp/@fp: the caller's return address at [sp] (frameless, or nothing pushed yet), else above
 * rbp (an `enter` frame), else the first word above sp that is one; accepted only when it returns into compiled
 * code right after a call.  A c2i adapter
 * (compiled caller, interpreted callee) keeps the return address at [sp] but moves sp down once it has put the
 * caller's sp in r13: sp + 8 is tried first, then r13 (r->alt_sp).  Return: 0, or -1 with r->outcome. */
static int stub_caller(struct recovery *r, uintptr_t sp, uintptr_t fp, int adapter)
{
	const uintptr_t *s = (const uintptr_t *)sp, *f = (const uintptr_t *)fp;
	if (returns_to_nmethod(s[0])) {
		r->caller_pc = s[0];
		r->caller_sp = sp + 8;
		r->caller_fp = fp;
		if (adapter && !(r->r13 & 7) && r->r13 > sp + 8 && r->r13 - sp < 65536)
			r->alt_sp = r->r13;
		return 0;
	}
	if (!adapter && !(fp & 7) && fp > sp && fp - sp < 4096 && returns_to_nmethod(f[1])) {
		r->caller_pc = f[1];
		r->caller_sp = fp + 16;
		r->caller_fp = f[0];
		return 0;
	}
	/* a stub that saved registers (pushes, no `enter`) before calling into the VM: the first word above them
	 * that returns into compiled code right after a call (AGCT checks the rest: that frame's PcDesc and its
	 * callers) */
	for (unsigned i = 1; !adapter && i < STUB_SCAN_WORDS; i++)
		if (returns_to_nmethod(s[i])) {
			r->caller_pc = s[i];
			r->caller_sp = sp + 8 * (i + 1);
			r->caller_fp = fp;
			return 0;
		}
	r->outcome = EMP_C_RECOVER_NOT_NMETHOD;
	return -1;
}

/* Words of an interpreted frame's fixed part below rbp that can be pushed while AGCT still cannot walk it: up to the
 * bcp slot (x86-64: sender sp, last sp, method, mirror, mdp, cache, locals; JDK 21+ adds the extended sp). */
#define INTERP_PARTIAL_WORDS 8

/* The interpreter, at a method's entry while it builds the frame (generate_fixed_frame: push the return address,
 * `enter`, then the fixed slots; AGCT cannot walk the frame until they are there).  Only the state after `enter`
 * is unwound: rbp is then the new frame's, at most INTERP_PARTIAL_WORDS above sp, with the return address above
 * it and the caller's sp in the sender-sp slot (or still in r13, the register the caller passes it in, before that
 * slot is pushed).  Before `enter` rbp is the caller's: an interpreted caller's rbp lies above its whole fixed frame
 * (more than INTERP_PARTIAL_WORDS), a compiled caller's rbp is no stack address near sp.  The method is rbx (the
 * entry's Method* register), accepted only when it is one of its class's methods.  Return: 0 or -1 with
 * r->outcome. */
static int interpreter_entry(struct recovery *r)
{
	int sender_slot = emp_vmstructs_interpreter_sender_sp();
	uintptr_t fp = r->fp;
	if (!sender_slot || fp & 7 || fp < r->sp || fp - r->sp > 8 * INTERP_PARTIAL_WORDS) {
		r->outcome = EMP_C_RECOVER_INTERPRETER;
		return -1;
	}
	const uintptr_t *frame = (const uintptr_t *)fp;
	uintptr_t sender_sp = fp - r->sp >= (uintptr_t)(-sender_slot) * 8 ? frame[sender_slot] : r->r13;
	r->method = emp_vmstructs_method_id(r->rbx);
	if (!r->method || sender_sp < fp + 16 || sender_sp - fp > 1u << 20) {
		r->outcome = EMP_C_RECOVER_INTERPRETER;
		return -1;
	}
	r->caller_pc = frame[1];
	r->caller_fp = frame[0];
	r->caller_sp = sender_sp;
	return 0;
}

/* Under the guard (it reads JVM memory and the stack): find the caller of the frame at r->pc.  Return: 0, or -1
 * with r->outcome set. */
static int find_caller(struct emp_sampler_thread *st, void *arg)
{
	(void)st;
	struct recovery *r = arg;
	const uint8_t *ip = (const uint8_t *)r->pc;
	struct emp_vm_blob b;
	uint64_t frame_bytes = 0;
	int state;
	if (!vmstructs_ok) {
		state = classify(ip, &frame_bytes);
		frame_bytes += 16;
	} else if (emp_vmstructs_blob(r->pc, &b)) {
		r->outcome = EMP_C_RECOVER_NO_BLOB;
		return -1;
	} else if (b.is_interpreter) {
		if (interpreter_entry(r))
			return -1;
		goto check_caller;
	} else if (b.is_vtable_stub) {
		r->frameless = 1;
		state = FRAME_NONE;
	} else if (b.is_adapter && (r->pc == b.code_begin || (r->pc == b.code_begin + 3 && ip[0] == 0x58))) {
		/* the i2c adapter's first instructions, before `pop rax` takes the return address off the stack (it
		 * begins `mov r11, rsp`, 3 bytes); rbx is the callee's Method* */
		state = FRAME_NONE;
		r->method = emp_vmstructs_method_id(r->rbx);
		r->frameless = !r->method;
	} else if (!b.is_nmethod) {
		r->frameless = r->stub = 1;
		if (stub_caller(r, r->sp, r->fp, b.is_adapter))
			return -1;
		goto check_caller;
	} else {
		int off = (int)(r->pc - b.code_begin);
		if (off >= b.stub) {
			r->outcome = EMP_C_RECOVER_IN_STUB;
			return -1;
		}
		const uintptr_t *sp = (const uintptr_t *)r->sp;
		if (!b.frame_size) /* a method handle intrinsic's frameless dispatch (gen_special_dispatch) */
			state = FRAME_NONE;
		else if (off >= b.frame_complete)
			state = body_state(ip);
		else if ((state = prologue_state(&b, off)) < 0)
			state = called_here(sp[0], &b) ? FRAME_NONE : called_here(sp[1], &b) ? FRAME_PUSHED : -1;
		frame_bytes = 8u * (uint64_t)(uint32_t)b.frame_size;
		r->method = emp_vmstructs_method_id(b.method);
	}
	const uintptr_t *sp = (const uintptr_t *)r->sp;
	switch (state) {
	case FRAME_NONE:
		r->caller_pc = sp[0];
		r->caller_sp = r->sp + 8;
		r->caller_fp = r->fp;
		break;
	case FRAME_PUSHED:
		r->caller_pc = sp[1];
		r->caller_sp = r->sp + 16;
		r->caller_fp = sp[0];
		break;
	case FRAME_COMPLETE:
	case FRAME_ADJUST:
	case FRAME_ALLOCATED:
		if (frame_bytes < 16 || frame_bytes & 7 || frame_bytes > 1u << 20) {
			r->outcome = EMP_C_RECOVER_NO_EDGE;
			return -1;
		}
		r->caller_pc = sp[frame_bytes / 8 - 1];
		r->caller_sp = r->sp + frame_bytes;
		r->caller_fp = state == FRAME_ALLOCATED ? r->fp : sp[frame_bytes / 8 - 2];
		break;
	default:
		r->outcome = EMP_C_RECOVER_NO_EDGE;
		return -1;
	}
check_caller:
	/* Java's callers are in the code cache: compiled code, the interpreter, the call stub */
	if (vmstructs_ok && !emp_vmstructs_in_code(r->caller_pc)) {
		r->outcome = EMP_C_RECOVER_BAD_CALLER;
		return -1;
	}
	return 0;
}

/* Under the guard: the slot and value that make the thread's frame anchor walkable, or 0 (r->outcome set). */
struct anchor_fix {
	struct emp_vm_anchor a; /* the anchor as found (the values to put back) */
	uintptr_t sp, fp, pc;   /* the walkable anchor */
	int stub;               /* pop_runtime_stub() moved it to the stub's caller */
	int outcome;
};

static int find_anchor_pc(struct emp_sampler_thread *st, void *arg)
{
	struct anchor_fix *f = arg;
	struct emp_vm_anchor *a = &f->a;
	if (!vmstructs_ok || emp_vmstructs_anchor(st->vm_thread, a) || !a->in_vm || !a->sp) {
		f->outcome = EMP_C_RECOVER_NO_ANCHOR;
		return -1;
	}
	/* no pc: as HotSpot's JavaFrameAnchor::make_walkable() on x86, the return address of the call out of Java */
	f->pc = a->pc ? a->pc : ((const uintptr_t *)a->sp)[-1];
	f->sp = a->sp;
	f->fp = a->fp;
	if (!emp_vmstructs_in_code(f->pc) || (f->stub = pop_runtime_stub(&f->pc, &f->sp, &f->fp)) < 0) {
		f->outcome = EMP_C_RECOVER_BAD_CALLER;
		return -1;
	}
	if (a->pc && !f->stub) {
		f->outcome = EMP_C_RECOVER_NO_ANCHOR; /* walkable, and not from a runtime stub: nothing to repair */
		return -1;
	}
	return 0;
}

/* unknown_not_Java / not_walkable_not_Java: the thread is in the VM, called from Java through a stub that set the
 * anchor's sp but not its pc (HotSpot fills the pc in, make_walkable(), only when another thread is to walk the
 * stack: at a safepoint or handshake, which cannot happen while the thread is _thread_in_vm), or through a runtime
 * stub whose frame AGCT refuses (pop_runtime_stub()).  So we make the anchor walkable, or move it to the stub's
 * caller, for the duration of one AGCT call and put the old values back; the thread is interrupted by this very
 * handler, and no other thread reads its anchor while it is in the VM (in any other state we leave it alone).
 * (async-profiler fills the pc in the same way, read, not copied.) */
static int repair_anchor(struct emp_sampler_thread *st, void *ucontext, int n)
{
	struct anchor_fix f = { 0 };
	int rc = emp_agct_guarded(st, find_anchor_pc, &f);
	if (rc) {
		emp_count(rc == EMP_AGCT_CRASHED ? EMP_C_RECOVER_FAULT : (enum emp_counter)f.outcome, 1);
		return n;
	}
	volatile uintptr_t *sp = f.a.sp_slot, *fp = f.a.fp_slot, *pc = f.a.pc_slot;
	*fp = f.fp;
	*pc = f.pc;
	*sp = f.sp;
	atomic_signal_fence(memory_order_seq_cst); /* the stores before AGCT reads the anchor (same thread) */
	int m = agct_guarded(st, ucontext, st->frames, st->depth);
	atomic_signal_fence(memory_order_seq_cst);
	*sp = f.a.sp;
	*fp = f.a.fp;
	*pc = f.a.pc;
	if (m <= 0) {
		emp_count(EMP_C_RECOVER_REWALK_FAILED, 1);
		return m == EMP_AGCT_CRASHED ? m : n;
	}
	emp_count(EMP_C_RECOVER_ANCHOR, 1);
	if (f.stub)
		emp_count(EMP_C_RECOVER_RUNTIME_STUB, 1);
	return m;
}

/* Under the guard: a stub's caller that is a compiled method still in its prologue (the call of the nmethod entry
 * barrier's slow path, before frame_complete: AGCT refuses the frame) is popped too, and named.  Return: 0. */
static int caller_prologue(struct emp_sampler_thread *st, void *arg)
{
	(void)st;
	struct recovery *r = arg;
	struct emp_vm_blob b;
	if (emp_vmstructs_blob(r->caller_pc - 1, &b) || !b.is_nmethod || b.frame_size < 2 ||
	    (int)(r->caller_pc - 1 - b.code_begin) >= b.frame_complete ||
	    prologue_state(&b, (int)(r->caller_pc - 1 - b.code_begin)) != FRAME_COMPLETE)
		return 0;
	jmethodID method = emp_vmstructs_method_id(b.method);
	const uintptr_t *sp = (const uintptr_t *)r->caller_sp;
	uintptr_t pc = sp[b.frame_size - 1];
	if (!method || !emp_vmstructs_in_code(pc))
		return 0;
	r->method = method;
	r->frameless = 0;
	r->caller_pc = pc;
	r->caller_fp = sp[b.frame_size - 2];
	r->caller_sp += 8u * (uintptr_t)b.frame_size;
	return 0;
}

/* Under the guard: the native frames were called from a stub (a runtime stub with a frame size, or another stub):
 * the stub's caller instead.  Return: >= 0, or -1 (r->outcome set). */
static int pop_caller_stub(struct emp_sampler_thread *st, void *arg)
{
	(void)st;
	struct recovery *r = arg;
	struct emp_vm_blob b;
	int rc = pop_runtime_stub(&r->caller_pc, &r->caller_sp, &r->caller_fp);
	if (rc < 0)
		r->outcome = EMP_C_RECOVER_BAD_CALLER;
	else if (!rc && !emp_vmstructs_blob(r->caller_pc, &b) && !b.is_nmethod && !b.is_interpreter)
		rc = stub_caller(r, r->caller_sp, r->caller_fp, b.is_adapter);
	return rc;
}

int emp_agct_walk(struct emp_sampler_thread *st, void *ucontext, uint64_t *recovered_pc)
{
	*recovered_pc = 0;
	int n = agct_guarded(st, ucontext, st->frames, st->depth);
	if (n == EMP_AGCT_UNKNOWN_NOT_JAVA || n == EMP_AGCT_NOT_WALKABLE_NOT_JAVA)
		return repair_anchor(st, ucontext, n);
	if ((n != EMP_AGCT_UNKNOWN_JAVA && n != EMP_AGCT_NOT_WALKABLE_JAVA) || !ucontext || st->depth < 2)
		return n;
	greg_t *g = ((ucontext_t *)ucontext)->uc_mcontext.gregs;
	struct recovery r = { .pc = (uintptr_t)g[REG_RIP], .sp = (uintptr_t)g[REG_RSP], .fp = (uintptr_t)g[REG_RBP],
			      .rbx = (uintptr_t)g[REG_RBX], .r13 = (uintptr_t)g[REG_R13] };
	int rc = emp_agct_guarded(st, find_caller, &r), native = 0;
	if (rc == -1 && r.outcome == EMP_C_RECOVER_NO_BLOB && !emp_vmstructs_in_code(r.pc)) {
		/* not JIT code: native code Java called without a state transition (a leaf call into the VM: the thread
		 * stays _thread_in_Java and sets no anchor); libunwind knows these frames, then the JIT code follows.
		 * Outside the guard: a fault must not jump out of libunwind (its caches are taken with signals
		 * blocked). */
		uint64_t pc, sp, fp;
		if (!emp_native_to_jit(ucontext, &pc, &sp, &fp) && emp_vmstructs_in_code(pc)) {
			r.caller_pc = pc;
			r.caller_sp = sp;
			r.caller_fp = fp;
			r.frameless = native = 1;
			rc = emp_agct_guarded(st, pop_caller_stub, &r);
			rc = rc > 0 ? 0 : rc;
		}
	}
	if (rc) {
		emp_count(rc == EMP_AGCT_CRASHED ? EMP_C_RECOVER_FAULT : (enum emp_counter)r.outcome, 1);
		return n;
	}
	if (r.frameless)
		emp_agct_guarded(st, caller_prologue, &r);
	/* The call instruction, so that AGCT finds the call site's bytecode */
	g[REG_RIP] = (greg_t)(r.caller_pc - 1);
	g[REG_RSP] = (greg_t)r.caller_sp;
	g[REG_RBP] = (greg_t)r.caller_fp;
	int m = agct_guarded(st, ucontext, st->frames + 1, st->depth - 1);
	if (m <= 0 && m != EMP_AGCT_CRASHED && r.alt_sp) {
		g[REG_RSP] = (greg_t)r.alt_sp;
		m = agct_guarded(st, ucontext, st->frames + 1, st->depth - 1);
	}
	g[REG_RIP] = (greg_t)r.pc;
	g[REG_RSP] = (greg_t)r.sp;
	g[REG_RBP] = (greg_t)r.fp;
	if (m <= 0 && m != EMP_AGCT_CRASHED && r.method && emp_vmstructs_is_call_stub_return(r.caller_pc)) {
		/* called by the VM (an entry frame), which AGCT does not walk from: the method alone; the sampler
		 * marks the walk truncated unless that is the thread's entry */
		emp_count(EMP_C_SAMPLE_RECOVERED, 1);
		emp_count(EMP_C_RECOVER_NAMED, 1);
		st->frames[0] = (emp_asgct_frame){ .lineno = -1, .method_id = r.method };
		return 1;
	}
	if (m <= 0) {
		emp_count(EMP_C_RECOVER_REWALK_FAILED, 1);
		return m == EMP_AGCT_CRASHED ? m : n; /* a fault in the re-walk is counted as one */
	}
	if (r.frameless) {
		emp_count(native ? EMP_C_RECOVER_NATIVE : r.stub ? EMP_C_RECOVER_STUB : EMP_C_RECOVER_VTABLE_STUB, 1);
		memmove(st->frames, st->frames + 1, (size_t)m * sizeof(*st->frames));
		return m;
	}
	emp_count(EMP_C_SAMPLE_RECOVERED, 1);
	if (r.method) {
		emp_count(EMP_C_RECOVER_NAMED, 1);
		st->frames[0] = (emp_asgct_frame){ .lineno = -1, .method_id = r.method };
		return m + 1;
	}
	emp_count(EMP_C_RECOVER_BY_PC, 1);
	memmove(st->frames, st->frames + 1, (size_t)m * sizeof(*st->frames));
	*recovered_pc = (uint64_t)r.pc;
	return m;
}
