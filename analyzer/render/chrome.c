/* SPDX-License-Identifier: MIT */
/* chrome.c - Chrome trace-event JSON; see chrome.h. */
#include "chrome.h"

#include <inttypes.h>

#include "dump_reader.h"
#include "output.h"

/* Print @ns as µs with exactly three decimals (no binary floating point in between). */
static void put_us(FILE *out, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	fprintf(out, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
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
		     uint64_t tid, uint64_t trace_id, uint32_t eoi, uint32_t ess, int threw, int unfinished)
{
	char full[4096];
	snprintf(full, sizeof(full), "%s.%s", klass, name);
	next_event(c);
	fputs("{\"name\":", c->out);
	emp_json_string(c->out, full);
	fputs(",\"cat\":\"java\",\"ph\":\"X\",\"ts\":", c->out);
	put_us(c->out, tin);
	fputs(",\"dur\":", c->out);
	put_us(c->out, tout - tin);
	fprintf(c->out, ",\"pid\":%s,\"tid\":%" PRIu64 ",\"args\":{\"trace\":%" PRIu64 ",\"eoi\":%u,\"ess\":%u%s%s}}",
		c->pid, tid, trace_id, eoi, ess, threw ? ",\"threw\":true" : "", unfinished ? ",\"unfinished\":true" : "");
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
