/* SPDX-License-Identifier: MIT */
/* sampler.h - sample mode (mode=sample): what sampler.c and its helpers (sampler_engine.c, sampler_agct.c,
 * sampler_native.c) share.  The mode itself is emp_sampler_ops (modes.h).
 *
 * Path of one sample:
 *   engine (sampler_engine.c)  a timer signal (SIGPROF) on the thread to sample: perf_event CPU clock, a
 *                              thread-CPU-clock POSIX timer, setitimer(ITIMER_PROF), or tgkill by the wall sampler
 *   handler (sampler.c)        AsyncGetCallTrace guarded against faults, with unknown_Java recovery
 *                              (sampler_agct.c), native frames by libunwind (sampler_native.c), one ring record
 *   writer thread (sampler.c)  the decoder turns the record into a stack of symbol ids: jmethodIDs resolved with
 *                              JVMTI, native PCs with dladdr, failures into pseudo-frames
 */
#ifndef EMP_SAMPLER_H
#define EMP_SAMPLER_H

#include <jvmti.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "options.h"
#include "thread.h"

/* The signal every engine delivers.  HotSpot uses SIGSEGV, SIGBUS, SIGFPE, SIGILL (implicit checks, polls),
 * SIGQUIT (thread dumps), SIGUSR2 (suspend/resume on some JDKs, _JAVA_SR_SIGNUM), SIGHUP/SIGINT/SIGTERM
 * (shutdown) and ignores SIGPIPE/SIGXFSZ; it never uses SIGPROF.  setitimer(ITIMER_PROF) can deliver only SIGPROF,
 * so one signal serves every engine.  Not to be combined with another SIGPROF user in the same JVM
 * (async-profiler's cpu/itimer modes, JDK 25's experimental JFR jdk.CPUTimeSample). */
#define EMP_SAMPLER_SIGNAL SIGPROF
#define EMP_SAMPLER_SIGNAL_NAME "SIGPROF"

/* AsyncGetCallTrace's interface (HotSpot forte.cpp; not in any JDK header). */
typedef struct {
	jint lineno; /* bci, or -3 for a native method */
	jmethodID method_id;
} emp_asgct_frame;
typedef struct {
	JNIEnv *env_id;
	jint num_frames; /* > 0 frames, <= 0 an outcome code (EMP_AGCT_OUTCOMES) */
	emp_asgct_frame *frames;
} emp_asgct_trace;

/* X(code, counter and pseudo-frame name) — AGCT's outcome codes (forte.cpp's ticks_*). */
#define EMP_AGCT_OUTCOMES(X)                                                                                   \
	X(0, "no_Java_frame")                                                                                  \
	X(-1, "no_class_load")                                                                                 \
	X(-2, "GC_active")                                                                                     \
	X(-3, "unknown_not_Java")                                                                              \
	X(-4, "not_walkable_not_Java")                                                                         \
	X(-5, "unknown_Java")                                                                                  \
	X(-6, "not_walkable_Java")                                                                             \
	X(-7, "unknown_state")                                                                                 \
	X(-8, "thread_exit")                                                                                   \
	X(-9, "deopt")                                                                                         \
	X(-10, "safepoint")
#define EMP_AGCT_UNKNOWN_JAVA (-5)
#define EMP_AGCT_NOT_WALKABLE_JAVA (-6)
/* Our own outcome when AGCT faulted and the fault was recovered (sampler_agct.c). */
#define EMP_AGCT_CRASHED (-100)
#define EMP_AGCT_CRASHED_NAME "agct_crashed"

/* Native frames kept per sample (leaf side). */
#define EMP_SAMPLER_MAX_NATIVE 64

/* The ring record of one sample (EMP_REC_SAMPLE), followed by nnative native PCs (leaf first) and njava
 * jmethodIDs (leaf first, as AGCT returns them).  32 bytes + 8 per frame. */
struct emp_sample_rec {
	uint32_t hdr;
	uint8_t state;    /* enum emp_thread_state */
	uint8_t flags;    /* EMP_SAMPLE_* */
	uint16_t nnative;
	int32_t agct;     /* AGCT's num_frames: > 0, or an outcome code, or EMP_AGCT_CRASHED */
	uint32_t njava;
	uint64_t ticks;
	uint64_t top_pc;  /* EMP_SAMPLE_RECOVERED: the PC AGCT could not walk from (a compiled method's edge) */
};
#define EMP_SAMPLE_RECOVERED 0x1u /* AGCT failed with unknown_Java/not_walkable_Java, the re-walk succeeded */
/* The walk did not reach the thread's entry: AGCT stopped at the depth limit, or ended early on a frame it judged
 * unsafe to walk past (forte.cpp's vframeStreamForte ends a walk there and still returns the frames it has).  The
 * decoder puts a [truncated] pseudo-frame at the root. */
#define EMP_SAMPLE_TRUNCATED 0x2u

/* Per-thread sampler state (emp_thread.sampler).  Allocated when the thread is armed (ThreadStart, on the thread);
 * freed at ThreadEnd on the thread itself, after the engine was stopped, the state left the registry and
 * t->sampler was cleared, so neither a late signal nor the wall sampler can reach it. */
struct emp_sampler_thread {
	struct emp_thread *t;
	pid_t tid;
	int perf_fd;                  /* perf engine: the thread's counter, else -1 */
	int has_timer;                /* timer engine */
	timer_t timer;
	clockid_t cpu_clock;          /* the thread's CPU clock (cpu engines: time sampled) */
	uint64_t armed_at_ns;         /* CPU (cpu) or monotonic (wall) time when armed */
	jthread ref;                  /* wall engine: global reference for GetThreadState */
	/* wall engine: the thread's state as the sampler thread read it just before signalling.
	 * (W) store_release in the wall sampler pairs with (X) load_acquire in the handler. */
	_Atomic int wall_state;
	sigjmp_buf fault_jmp;         /* sampler_agct.c: where a fault inside AGCT returns to */
	struct emp_sampler_thread *next; /* registry (sampler.c), under its mutex */
	/* The method every complete walk of this thread ends in: the run() override of a Thread subclass started by
	 * Thread.start (HotSpot's thread_entry calls run() virtually), or NULL when the thread may enter Java
	 * anywhere (see sampler.c, walk_truncated()).  Set before the engine is armed, then constant. */
	jmethodID entry;
	uint32_t depth;               /* capacity of frames */
	emp_asgct_frame *frames;
	uint64_t native[EMP_SAMPLER_MAX_NATIVE];
};

/* sampler_agct.c */
/* emp_agct_init - find AsyncGetCallTrace in libjvm and install the fault guard (SIGSEGV/SIGBUS handlers chained
 * in front of the JVM's).  Return: 0, or -1 with a message in @err. */
int emp_agct_init(char *err, size_t errlen);
/* emp_agct_walk - AGCT on the current thread from @ucontext into st->frames, recovering unknown_Java at compiled
 * methods' edges.  Return: num_frames (> 0), an outcome code, or EMP_AGCT_CRASHED; *recovered_pc is set to the
 * original PC when a recovery succeeded, else 0.  Async-signal-safe (the handler's own thread only). */
int emp_agct_walk(struct emp_sampler_thread *st, void *ucontext, uint64_t *recovered_pc);

/* sampler_native.c */
/* emp_native_unwind - PCs of the native frames from @ucontext (leaf first) while libunwind has unwind
 * information for them (native code: libjvm, libc, JNI libraries; JIT code has none and ends the walk).
 * Return: number stored in @pcs (at most @max).  Async-signal-safe (see sampler_native.c). */
unsigned emp_native_unwind(void *ucontext, uint64_t *pcs, unsigned max);
/* emp_native_refresh - (re)build the table of loaded objects' text ranges the unwinder stops at; not
 * signal-safe.  Without @force it checks at most every 100 ms whether objects were loaded or unloaded since. */
void emp_native_refresh(int force);
/* emp_native_symbol - writer thread: the symbol id of the native PC @pc (cached).  Return: id or -1. */
int64_t emp_native_symbol(uint64_t pc);

/* sampler_engine.c */
enum emp_engine { EMP_ENGINE_PERF, EMP_ENGINE_TIMER, EMP_ENGINE_ITIMER, EMP_ENGINE_WALL };
const char *emp_engine_name(enum emp_engine e);
/* emp_engine_choose - the engine for @o into *@e: clock=wall: wall; engine=auto: the best that works here (perf,
 * else timer, else itimer); engine=perf|ctimer|itimer: that one, if it works.  Runs on the thread that loads the
 * agent.  Return: 0, or -1 with a one-line message in @err (the engine asked for does not work here). */
int emp_engine_choose(const struct emp_options *o, enum emp_engine *e, char *err, size_t errlen);
/* emp_engine_arm - start sampling the calling thread (perf, timer).  Return: 0 or a negative errno. */
int emp_engine_arm(enum emp_engine e, struct emp_sampler_thread *st, uint64_t interval_ns);
/* emp_engine_disarm - stop sampling @st's thread (any thread may call it for perf and timer). */
void emp_engine_disarm(struct emp_sampler_thread *st);
/* emp_engine_rearm - from the signal handler: the perf engine's counter stops after each overflow; restart it.
 * Async-signal-safe (one ioctl). */
void emp_engine_rearm(struct emp_sampler_thread *st);
/* emp_engine_itimer - start (@interval_ns > 0) or stop the process-wide ITIMER_PROF.  Return: 0 or -errno. */
int emp_engine_itimer(uint64_t interval_ns);

#endif /* EMP_SAMPLER_H */
