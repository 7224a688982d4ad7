/* SPDX-License-Identifier: MIT */
/* log.c - stderr messages of the agent; see log.h. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

/* Relaxed: the level is set once in Agent_OnLoad before any other thread of ours exists. */
static _Atomic int log_level = EMP_LOG_WARN;

void emp_log_set_level(enum emp_log_level level)
{
	atomic_store_explicit(&log_level, (int)level, memory_order_relaxed);
}

int emp_log_enabled(enum emp_log_level level)
{
	return (int)level <= atomic_load_explicit(&log_level, memory_order_relaxed);
}

void emp_log(enum emp_log_level level, const char *fmt, ...)
{
	if (!emp_log_enabled(level))
		return;
	char buf[1024];
	int saved = errno;
	int n = snprintf(buf, sizeof(buf), "emp: ");
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	for (ssize_t off = 0, w; off < n; off += w) {
		w = write(STDERR_FILENO, buf + off, (size_t)(n - off));
		if (w <= 0)
			break;
	}
	errno = saved;
}
