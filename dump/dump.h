/* SPDX-License-Identifier: MIT */
/* dump.h - constants and types of the emp dump format v1 (doc/dump-format.md), shared by writer and reader.
 *
 * One definition of the format for both sides: the agent's writers encode with dump_writer.c, the analyzer decodes
 * with dump_reader.c, and both include this header, so they cannot disagree. */
#ifndef EMP_DUMP_H
#define EMP_DUMP_H

#include <stddef.h>
#include <stdint.h>

/* File header: 8-byte magic (PNG style: a high byte, then text, CR LF, ^Z, LF — catches text-mode mangling and
 * truncation to 7 bits), then u16 major, u16 minor, u32 flags (0), all little-endian. */
#define EMP_DUMP_MAGIC        "\x89" "EMP\r\n\x1a\n"
#define EMP_DUMP_MAGIC_LEN    8
#define EMP_DUMP_HEADER_LEN   16
#define EMP_DUMP_VERSION_MAJOR 1
#define EMP_DUMP_VERSION_MINOR 5 /* 1: PAUSES chunks; 2: CPU events; 3: VTHREAD events; 4: budget= META keys;
                                  * 5: safepoint pauses */

/* Chunk header: u32 magic "EMPC", u8 type, u8 flags (0), u16 reserved (0), u32 stored length (bytes of the LZ4
 * frame that follows), u32 raw length (bytes after decompression). */
#define EMP_CHUNK_MAGIC       0x43504d45u /* "EMPC" read as little-endian u32 */
#define EMP_CHUNK_HEADER_LEN  16
/* Upper bound on a chunk's raw size; writers cut chunks well below it, readers reject anything above. */
#define EMP_CHUNK_RAW_MAX     (16u << 20)
/* Writers start a new events chunk once the current one reaches this many raw bytes.  128 KiB: compressing a chunk
 * takes ~0.4 ms on the machines of design.md §8, during which the agent's writer drains no ring; at 1 MiB it took
 * 3.3 ms, longer than a traced thread needs to fill its 1 MiB ring (2.6 ms in MooBench), and the thread waited.
 * LZ4's window is 64 KiB, so the ratio is the same as with 1 MiB chunks (2.0 on MooBench trace events). */
#define EMP_CHUNK_RAW_TARGET  (128u << 10)

enum emp_chunk_type {
	EMP_CHUNK_META     = 1, /* key/value strings describing the run; first chunk of every dump */
	EMP_CHUNK_SYMBOLS  = 2, /* method and thread symbols; always before the events that use them */
	EMP_CHUNK_EVENTS   = 3, /* one thread's events, delta/varint encoded */
	EMP_CHUNK_COUNTERS = 4, /* cumulative named counters (loss by reason, ...); the last one wins */
	EMP_CHUNK_END      = 5, /* the run ended cleanly; nothing follows */
	EMP_CHUNK_PAUSES   = 6, /* since minor 1: pauses of the whole JVM (GC), start and duration in ticks */
};

/* Entries of a PAUSES chunk: varint kind, varint start ticks, varint duration ticks, until the end of the payload. */
enum emp_pause_kind {
	EMP_PAUSE_GC = 1, /* JVMTI GarbageCollectionStart .. GarbageCollectionFinish (a stop-the-world collection) */
	/* since minor 4: the safepoints that ended within one poll interval of the agent's safepoint poller, their
	 * total time (HotSpot's sun.rt.safepointTime) ending at the poll that saw them end (doc/dump-format.md) */
	EMP_PAUSE_SAFEPOINT = 2,    /* no GC pause finished within them */
	EMP_PAUSE_SAFEPOINT_GC = 3, /* a GC pause finished within them: they hold a kind-1 pause and the time to reach
				     * and leave its safepoint */
};
struct emp_pause {
	uint32_t kind;     /* enum emp_pause_kind; a reader keeps kinds it does not know */
	uint64_t start;    /* absolute clock ticks */
	uint64_t duration; /* ticks */
};

/* Entries of a SYMBOLS chunk: each starts with a varint entry kind. */
enum emp_symbol_entry {
	EMP_SYM_METHOD = 1, /* varint id, varint frame kind, varint flags, str class, str name, str descriptor */
	EMP_SYM_THREAD = 2, /* varint id, varint os tid, varint flags, str name */
};

/* What a symbol id stands for in a stack or trace. */
enum emp_frame_kind {
	EMP_FRAME_JAVA   = 0, /* class = binary name with dots, name, descriptor */
	EMP_FRAME_NATIVE = 1, /* class = shared object (basename), name = symbol or "0x..." offset */
	EMP_FRAME_PSEUDO = 2, /* a failed or special sample: name like "[unknown_Java]", class "" */
};

/* Method symbol flags. */
#define EMP_METHOD_ITERATION 0x1u /* calls of this method mark iterations (agent option iteration=) */
/* Thread symbol flags. */
#define EMP_THREAD_JAVA      0x1u /* a Java thread (JVMTI ThreadStart seen, or after an attach a JNIEnv found) */
#define EMP_THREAD_VM        0x2u /* a thread JVMTI did not announce (JIT compiler, GC, VM thread...), found by the
				     sampler in /proc (threads=all); name = its /proc comm; native frames only */
#define EMP_THREAD_VIRTUAL   0x4u /* a virtual thread (JDK 21+, trace mode): its events whatever carriers ran it;
				     os tid 0 */
#define EMP_THREAD_ENDED     0x8u /* set in a redefinition the writer adds once the thread ended and its last events
				     are written: calls still open then were never closed (not cut by the recording) */

/* Event kinds: the low 3 bits of an event's first varint in an EVENTS chunk. */
enum emp_event_kind {
	EMP_EV_ENTER      = 0, /* rest = method id; then zigzag varint tick delta */
	EMP_EV_EXIT       = 1, /* rest = 0; normal return of the innermost open method; then tick delta */
	EMP_EV_EXIT_THROW = 2, /* rest = 0; exceptional exit of the innermost open method; then tick delta */
	EMP_EV_SAMPLE     = 3, /* rest = thread state; tick delta, varint shared, varint n, n varint frame ids */
	EMP_EV_CPU        = 4, /* rest = 0; tick delta, varint thread CPU time in ns (CLOCK_THREAD_CPUTIME_ID), read
				* right after the iteration method's ENTER and right before its EXIT (minor 2) */
	EMP_EV_VTHREAD    = 5, /* rest = 0; tick delta, varint id: the virtual thread (Thread.threadId(), 0 none) the
				* thread ran in its following samples of the chunk, which starts with none (minor 3).  The
				* reader folds it into those SAMPLE events (emp_event.vthread) and hands out no event */
};
#define EMP_EV_KIND_BITS 3

/* Thread states recorded with a sample (sample mode). */
enum emp_thread_state {
	EMP_STATE_UNKNOWN  = 0,
	EMP_STATE_RUNNING  = 1, /* on CPU (cpu clock), or RUNNABLE (wall clock) */
	EMP_STATE_WAITING  = 2, /* Object.wait, LockSupport.park, ... */
	EMP_STATE_BLOCKED  = 3, /* waiting for a monitor */
	EMP_STATE_SLEEPING = 4, /* Thread.sleep */
	EMP_STATE_NATIVE   = 5, /* in native code */
	EMP_STATE_COUNT
};
const char *emp_thread_state_name(unsigned state);

/* A decoded event as the reader hands it out.  frames is valid until the next call into the reader. */
struct emp_event {
	enum emp_event_kind kind;
	uint32_t thread;        /* dump thread id (a THREAD symbol) */
	uint64_t ticks;         /* absolute clock ticks; see emp_dump_ticks_to_ns() */
	uint32_t method;        /* ENTER: method symbol id */
	uint32_t state;         /* SAMPLE: enum emp_thread_state */
	uint32_t depth;         /* SAMPLE: number of frames */
	const uint32_t *frames; /* SAMPLE: method symbol ids, root first, leaf last */
	uint64_t cpu_ns;        /* CPU: the thread's CPU time */
	uint64_t vthread;       /* SAMPLE: the virtual thread the (carrier) thread ran, Thread.threadId(); 0 none */
};

/* Largest stack a sample may carry; the agent clamps its depth= option to it. */
#define EMP_MAX_FRAMES 4096

#endif /* EMP_DUMP_H */
