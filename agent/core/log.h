/* SPDX-License-Identifier: MIT */
/* log.h - the agent's messages on stderr ("emp: ..."), filtered by the log= option.
 *
 * emp_log() formats with vsnprintf into a stack buffer and issues one write(2), so lines from several threads
 * never interleave.  It is NOT for signal handlers (vsnprintf is not async-signal-safe): signal paths count what
 * happened in counters.h instead and the writer thread reports it. */
#ifndef EMP_LOG_H
#define EMP_LOG_H

enum emp_log_level { EMP_LOG_ERROR, EMP_LOG_WARN, EMP_LOG_INFO, EMP_LOG_DEBUG };

void emp_log_set_level(enum emp_log_level level);
int emp_log_enabled(enum emp_log_level level);
__attribute__((format(printf, 2, 3))) void emp_log(enum emp_log_level level, const char *fmt, ...);

#define emp_error(...) emp_log(EMP_LOG_ERROR, __VA_ARGS__)
#define emp_warn(...)  emp_log(EMP_LOG_WARN, __VA_ARGS__)
#define emp_info(...)  emp_log(EMP_LOG_INFO, __VA_ARGS__)
#define emp_debug(...) emp_log(EMP_LOG_DEBUG, __VA_ARGS__)

#endif /* EMP_LOG_H */
