/* SPDX-License-Identifier: MIT */
/* attach.h - what Agent_OnAttach (agent/agent.c) returns to `emp-attach` (attach/emp_attach.c) through the HotSpot
 * attach protocol's "return code: N" line.  JNI_OK (0) and JNI_ERR (-1) keep their JNI meaning (started or
 * stopped; refused, with the reason on the JVM's stderr); the rest say why nothing was done. */
#ifndef EMP_ATTACH_H
#define EMP_ATTACH_H

/* The option string `emp-attach PID stop` sends: finish the running recording now. */
#define EMP_ATTACH_STOP "stop"

enum emp_attach_code {
	EMP_ATTACH_RUNNING = 101,  /* a recording runs in this JVM already: nothing loaded again */
	EMP_ATTACH_FINISHED = 102, /* this JVM's recording has finished; emp records once per JVM */
	EMP_ATTACH_NONE = 103,     /* stop: no recording in this JVM */
	EMP_ATTACH_BROKEN = 104,   /* an earlier attach failed after the modes' set-up: no second attempt */
};

#endif /* EMP_ATTACH_H */
