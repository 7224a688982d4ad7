/* SPDX-License-Identifier: MIT */
/* chrome.c - Chrome trace-event JSON; see chrome.h. */
#include "chrome.h"

#include <inttypes.h>

#include "dump_reader.h"
#include "output.h"

/* Print @ns as µs, exact (no binary floating point in between) and short: the ns digits without trailing zeros,
 * none (an integer) when they are all zero: 1500 -> 1.5, 2000 -> 2, 1234 -> 1.234. */
static void put_us(FILE *out, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(a % 1000);
	fprintf(out, "%s%" PRIu64, ns < 0 ? "-" : "", a / 1000);
	if (!frac)
		return;
	int digits = 3;
	for (; frac % 10 == 0; frac /= 10)
		digits--;
	fprintf(out, ".%0*u", digits, frac);
}

/* The separator before the next event. */
static void next_event(struct emp_chrome *c)
{
	fputs(c->first ? "\n" : ",\n", c->out);
	c->first = 0;
}

void emp_chrome_begin(struct emp_chrome *c, FILE *out, const char *pid)
{
	*c = (struct emp_chrome){ .out = out, .pid = pid, .first = 1 };
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
}

void emp_chrome_call(struct emp_chrome *c, const char *klass, const char *name, int64_t tin, int64_t tout,
		     uint64_t tid, int threw, int unfinished)
{
	char full[4096];
	snprintf(full, sizeof(full), "%s.%s", klass, name);
	next_event(c);
	fputs("{\"name\":", c->out);
	emp_json_string(c->out, full);
	fputs(",\"ph\":\"X\",\"ts\":", c->out);
	put_us(c->out, tin);
	fputs(",\"dur\":", c->out);
	put_us(c->out, tout - tin);
	fprintf(c->out, ",\"pid\":%s,\"tid\":%" PRIu64, c->pid, tid);
	if (threw || unfinished)
		fprintf(c->out, ",\"args\":{%s%s%s}", threw ? "\"threw\":true" : "", threw && unfinished ? "," : "",
			unfinished ? "\"unfinished\":true" : "");
	fputc('}', c->out);
}

uint64_t emp_chrome_tid(const struct emp_dump_thread *th, uint32_t thread)
{
	if (!th)
		return thread;
	return th->flags & EMP_THREAD_VIRTUAL ? (UINT64_C(1) << 22) + thread : th->os_tid;
}

void emp_chrome_end(struct emp_chrome *c, const struct emp_dump_reader *r)
{
	const char *cmd = emp_dump_meta(r, "command");
	next_event(c);
	fprintf(c->out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%s,\"args\":{\"name\":", c->pid);
	emp_json_string(c->out, cmd && *cmd ? cmd : "java");
	fputs("}}", c->out);
	for (uint32_t t = 0; t < emp_dump_thread_limit(r); t++) {
		const struct emp_dump_thread *th = emp_dump_thread(r, t);
		if (!th)
			continue;
		fprintf(c->out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%s,\"tid\":%" PRIu64
				",\"args\":{\"name\":", c->pid, emp_chrome_tid(th, t));
		emp_json_string(c->out, th->name);
		fputs("}}", c->out);
	}
	fputs("\n]}\n", c->out);
}
