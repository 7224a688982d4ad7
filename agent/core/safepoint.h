/* SPDX-License-Identifier: MIT */
/* safepoint.h - the JVM's safepoint pauses (every mode, safepoints=on), from HotSpot's performance counters.
 *
 * JVMTI has no safepoint events.  HotSpot counts safepoints in its jvmstat memory (UsePerfData, on by default):
 * sun.rt.safepoints (+1 when a safepoint begins) and sun.rt.safepointTime (+ the safepoint's whole duration, in
 * sun.os.hrt.frequency ticks, when it ends).  A native thread of the agent ("emp safepoints": no Java thread, so
 * the program never sees it) reads them every millisecond (a few loads).  When the time counter moved, the
 * safepoints that ended since the previous poll become one PAUSES entry: duration = the counter's delta (exact),
 * end = this poll, start = end - duration.  The recorded interval therefore never starts before the true one and
 * lies at most one poll interval (plus the poller's scheduling delay) after it.  Several safepoints ending within
 * one interval make one entry with their total time, placed contiguously.
 *
 * GC: a GC pause runs inside a safepoint.  An entry during whose poll window (from the poll before its first
 * safepoint began to the poll that saw it end) a GC pause finished is EMP_PAUSE_SAFEPOINT_GC, else
 * EMP_PAUSE_SAFEPOINT: the second is what JVMTI does not show.
 *
 * The jvmstat memory is found as the JVM's own mapping of its hsperfdata file (/tmp/hsperfdata_USER/PID in
 * /proc/self/maps); with -XX:-UsePerfData or -XX:+PerfDisableSharedMemory there is none and safepoints are not
 * recorded (a warning says so). */
#ifndef EMP_SAFEPOINT_H
#define EMP_SAFEPOINT_H

/* emp_safepoint_start - find the counters and start the poller (at VMInit, or at once when attached).
 * Return: 0, or -1 when there are no counters or no thread (warning logged). */
int emp_safepoint_start(void);
/* emp_safepoint_stop - one last poll, then the poller ends (before the writer's last drain).  Idempotent. */
void emp_safepoint_stop(void);

#endif /* EMP_SAFEPOINT_H */
