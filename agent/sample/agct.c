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
 * Recovery.  On x86-64, AGCT answers unknown_Java/not_walkable_Java when the PC sits where a compiled method's
 * frame is not (or no longer) set up: the stack bang and `push rbp` of the prologue, `pop rbp`, the return poll
 * and `ret` of the epilogue.  design.md §8 measured a third of fib's samples there.  As async-profiler does in its
 * AGCT mode (stackFrame_x64.cpp, read, not copied), we recognise these instructions by their bytes, pop the
 * incomplete frame by hand (the return address is at [rsp], or at [rsp+8] above a pushed rbp), point the PC at the
 * call instruction (return address - 1, so the call site's bytecode is found) and ask AGCT again; the registers are
 * put back afterwards.  The method whose edge we were at is missing from the re-walked stack; the record keeps
 * its PC (top_pc) and the writer names it from the JIT's CompiledMethodLoad events (sampler.c).
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
#include "sampler.h"

typedef void (*agct_fn)(emp_asgct_trace *trace, jint depth, void *ucontext);
static agct_fn agct;
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
	return 0;
}

static int call_guarded(struct emp_sampler_thread *st, void *ucontext)
{
	emp_asgct_trace tr = { .env_id = st->t->jni, .num_frames = 0, .frames = st->frames };
	if (sigsetjmp(st->fault_jmp, 1))
		return EMP_AGCT_CRASHED;
	guard = st;
	atomic_signal_fence(memory_order_seq_cst); /* guard is set before the call, for on_fault on this thread */
#ifdef EMP_FAULT_INJECT
	fault_inject();
#endif
	agct(&tr, (jint)st->depth, ucontext);
	atomic_signal_fence(memory_order_seq_cst);
	guard = NULL;
	return tr.num_frames;
}

/* How to pop the incomplete frame at @ip: 0 not an edge we know; 1 return address at [sp]; 2 rbp pushed: saved rbp
 * at [sp], return address at [sp+8]; 3 `add rsp, imm` then `pop rbp`: *adjust = imm, then as 2. */
static int classify(const uint8_t *ip, uint64_t *adjust)
{
	int after_page_start = ((uintptr_t)ip & 0xfff) >= 8; /* ip[-8..-1] are on the same (mapped) page */
	if (ip[0] == 0xc3 || ip[0] == 0x55)                                   /* ret; push rbp */
		return 1;
	if (ip[0] == 0x89 && ip[1] == 0x84 && ip[2] == 0x24)                    /* stack bang mov [rsp-N], eax */
		return 1;
	if (ip[0] == 0x41 && ip[1] == 0x85 && ip[2] == 0x02 && ip[3] == 0xc3)   /* old return poll: test; ret */
		return 1;
	if (after_page_start && ip[-1] == 0x5d)                                /* just after pop rbp */
		return 1;
	if (after_page_start && ip[0] == 0x0f && ip[1] == 0x87 && ip[-7] == 0x49 && ip[-6] == 0x3b &&
	    ip[-8] == 0x5d)                                                     /* pop rbp; cmp rsp,[r15+d]; ja */
		return 1;
	if (ip[0] == 0x5d)                                                     /* pop rbp */
		return 2;
	if (after_page_start && ip[-1] == 0x55 && ip[0] == 0x48 && (ip[1] == 0x83 || ip[1] == 0x81) &&
	    ip[2] == 0xec)                                                      /* push rbp; sub rsp, imm */
		return 2;
	if (ip[0] == 0x48 && ip[1] == 0x83 && ip[2] == 0xc4 && ip[4] == 0x5d) { /* add rsp, imm8; pop rbp */
		*adjust = ip[3];
		return 3;
	}
	if (ip[0] == 0x48 && ip[1] == 0x81 && ip[2] == 0xc4 && ip[7] == 0x5d) { /* add rsp, imm32; pop rbp */
		uint32_t imm;
		memcpy(&imm, ip + 3, 4);
		*adjust = imm;
		return 3;
	}
	return 0;
}

int emp_agct_walk(struct emp_sampler_thread *st, void *ucontext, uint64_t *recovered_pc)
{
	*recovered_pc = 0;
	int n = call_guarded(st, ucontext);
	if ((n != EMP_AGCT_UNKNOWN_JAVA && n != EMP_AGCT_NOT_WALKABLE_JAVA) || !ucontext)
		return n;
	greg_t *g = ((ucontext_t *)ucontext)->uc_mcontext.gregs;
	const greg_t pc = g[REG_RIP], sp = g[REG_RSP], fp = g[REG_RBP];
	/* Reading at the PC is safe: the thread was executing there.  Reading at sp is safe: it is this thread's
	 * stack below its top. */
	uint64_t adjust = 0;
	const uint64_t *stack = (const uint64_t *)(uintptr_t)sp;
	switch (classify((const uint8_t *)(uintptr_t)pc, &adjust)) {
	case 1:
		g[REG_RIP] = (greg_t)(stack[0] - 1);
		g[REG_RSP] = sp + 8;
		break;
	case 3:
		if (adjust & 7 || adjust > 1u << 20)
			return n;
		stack = (const uint64_t *)(uintptr_t)(sp + (greg_t)adjust);
		/* fall through */
	case 2:
		g[REG_RBP] = (greg_t)stack[0];
		g[REG_RIP] = (greg_t)(stack[1] - 1);
		g[REG_RSP] = (greg_t)(uintptr_t)(stack + 2);
		break;
	default:
		return n;
	}
	int m = call_guarded(st, ucontext);
	g[REG_RIP] = pc;
	g[REG_RSP] = sp;
	g[REG_RBP] = fp;
	if (m > 0) {
		*recovered_pc = (uint64_t)pc;
		return m;
	}
	return m == EMP_AGCT_CRASHED ? m : n; /* a fault in the re-walk is counted as one */
}
