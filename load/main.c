/* SPDX-License-Identifier: MIT */
/* main.c - emp-load: an open-loop, constant-rate HTTP/1.1 load generator in its own process (issue 12).
 *
 * Request i is due at t0 + i/R whatever happened before.  At its due time it joins a FIFO; the first idle one
 * of C keep-alive connections writes it (no pipelining: one request per connection at a time).  Its latency is
 * taken from the due time (corrected: the wait for a free connection, i.e. for the server, counts) and from the
 * write (uncorrected: what a tool that only times the requests it sends reports), into two HdrHistogram-layout
 * histograms (analyzer/lib/hdr.h, µs, 1 µs … 1 h, 3 digits).  --closed gives each connection its own closed
 * loop instead: its next request is due C/R after its previous one or when that one's reply arrives, whichever
 * is later, so a stalled server is simply sent fewer requests, as with closed-loop tools.
 *
 * One thread, epoll, non-blocking sockets, a timerfd armed at the next due time or deadline (ns resolution).
 * All times are CLOCK_MONOTONIC, so --log rows line up with an emp dump of the server (emp-analyze latency). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "hdr.h"
#include "http.h"
#include "mix.h"

#define EXIT_OK    0
#define EXIT_FAIL  1 /* the run finished (results printed) but some requests failed, or it was interrupted */
#define EXIT_USAGE 2

/* Why a request failed; the CSV names them as below. */
#define LOAD_ERRORS(X)                                                                      \
	X(REFUSED, "refused")           /* connect: ECONNREFUSED (nothing listens) */        \
	X(RESET, "reset")               /* ECONNRESET or EPIPE while writing or reading */    \
	X(CLOSED, "closed")             /* the server closed the connection before replying */ \
	X(TIMEOUT, "timeout")           /* no complete reply within --timeout of the write */ \
	X(BAD_RESPONSE, "bad_response") /* not an HTTP/1.1 response with Content-Length */     \
	X(SOCKET, "socket_error")       /* any other socket error */                          \
	X(NON_2XX, "non_2xx")           /* a complete reply with a status outside 200 … 299 */ \
	X(UNSENT, "unsent")             /* due, but no connection was free by the end */
enum load_error {
#define X(id, name) ERR_##id,
	LOAD_ERRORS(X)
#undef X
	ERR_COUNT
};
static const char *const error_names[] = {
#define X(id, name) name,
	LOAD_ERRORS(X)
#undef X
};

static const char USAGE[] =
	"usage: emp-load --target HOST:PORT --rate R --duration TIME [options]\n"
	"Open-loop constant-rate HTTP/1.1 load: request i is due at t0 + i/R; latency from the due time (corrected)\n"
	"and from the write (uncorrected).\n"
	"  --target HOST:PORT        server to load (GET /<route> HTTP/1.1, keep-alive)\n"
	"  --rate R                  requests per second (> 0)\n"
	"  --duration TIME           how long requests are issued; TIME is a number with unit us, ms or s (10s)\n"
	"  --connections C           keep-alive connections, one request in flight on each (default 16)\n"
	"  --mix ROUTE:W,...         routes and weights (default cheap:100; e.g. cheap:70,alloc:20,cpu:10)\n"
	"  --closed                  closed loop per connection: next request C/R after the previous one or at\n"
	"                            its reply, whichever is later (what closed-loop tools measure)\n"
	"  --timeout TIME            a request fails if its reply is not complete TIME after the write; the run\n"
	"                            waits at most TIME after --duration for the rest (default 2s)\n"
	"  --log FILE                one CSV row per request: due_ns,sent_ns,done_ns,status (CLOCK_MONOTONIC ns;\n"
	"                            status = HTTP status or an error name; empty times were never reached)\n"
	"  --format text|csv|json    result format on stdout (default text)\n"
	"exit status: 0 every request answered 2xx; 1 some failed or the run was interrupted (results printed);\n"
	"2 bad command line\n";

enum conn_state { C_DOWN, C_CONNECTING, C_IDLE, C_BUSY };

struct pending {
	int64_t due;
	uint32_t route;
};

struct conn {
	int fd;
	enum conn_state st;
	struct pending req;   /* C_CONNECTING/C_BUSY: the request it carries */
	int64_t sent;         /* C_BUSY: when its first byte was written (0 while connecting) */
	int64_t deadline;     /* C_CONNECTING/C_BUSY: when it times out */
	size_t wr_off;
	size_t rx_len;
	int64_t next_due;     /* --closed: when this connection's next request is due */
	char rx[16 << 10];
};

struct opts {
	const char *target;
	char host[256], port[16];
	double rate;
	int64_t duration_ns, timeout_ns;
	int connections;
	int closed;
	const char *log;
	const char *format;
	struct emp_mix mix;
	char mix_spec[512];
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	/* Async-signal-safe: one store to a volatile sig_atomic_t; the loop sees it when epoll_wait returns EINTR. */
	stop_signal = sig;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((noreturn, format(printf, 1, 2))) static void usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("emp-load: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (try --help)\n", stderr);
	exit(EXIT_USAGE);
}

/* TIME: a decimal number with unit us, ms or s (emp's options take integers; load times like 1.5s are common). */
static int64_t parse_time(const char *flag, const char *v, int64_t max_ns)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	double mult = 0;
	if (end != v && !errno) {
		if (!strcmp(end, "us"))
			mult = 1e3;
		else if (!strcmp(end, "ms"))
			mult = 1e6;
		else if (!strcmp(end, "s"))
			mult = 1e9;
	}
	if (mult == 0)
		usage_error("%s %s: expected a number with unit us, ms or s (e.g. 10s)", flag, v);
	if (!(x * mult >= 1e3 && x * mult <= (double)max_ns))
		usage_error("%s %s: must be between 1us and %" PRId64 "s", flag, v, max_ns / 1000000000);
	return (int64_t)(x * mult);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->connections = 16;
	o->timeout_ns = 2000000000;
	o->format = "text";
	snprintf(o->mix_spec, sizeof(o->mix_spec), "cheap:100");
	int have_rate = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(USAGE, stdout);
			exit(EXIT_OK);
		}
		if (!strcmp(a, "--closed")) {
			o->closed = 1;
			continue;
		}
		static const char *const valued[] = { "--target", "--rate", "--duration", "--connections", "--mix",
						      "--timeout", "--log", "--format" };
		const char *v = NULL;
		for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++)
			if (!strcmp(a, valued[k]))
				v = "";
		if (!v)
			usage_error("unknown option '%s'", a);
		if (i + 1 >= argc)
			usage_error("option '%s' needs a value", a);
		v = argv[++i];
		char *end;
		if (!strcmp(a, "--target")) {
			const char *colon = strrchr(v, ':');
			long port = colon ? strtol(colon + 1, &end, 10) : -1;
			if (!colon || colon == v || (size_t)(colon - v) >= sizeof(o->host) || !colon[1] || *end ||
			    port < 1 || port > 65535)
				usage_error("--target %s: expected HOST:PORT with a port 1..65535", v);
			o->target = v;
			snprintf(o->host, sizeof(o->host), "%.*s", (int)(colon - v), v);
			if (o->host[0] == '[' && o->host[strlen(o->host) - 1] == ']') { /* [::1]:8080 */
				memmove(o->host, o->host + 1, strlen(o->host));
				o->host[strlen(o->host) - 1] = '\0';
			}
			snprintf(o->port, sizeof(o->port), "%ld", port);
		} else if (!strcmp(a, "--rate")) {
			errno = 0;
			o->rate = strtod(v, &end);
			if (end == v || *end || errno || !(o->rate > 0 && o->rate <= 1e7))
				usage_error("--rate %s: expected requests per second, > 0 and at most 1e7", v);
			have_rate = 1;
		} else if (!strcmp(a, "--duration")) {
			o->duration_ns = parse_time(a, v, 86400 * (int64_t)1000000000);
		} else if (!strcmp(a, "--timeout")) {
			o->timeout_ns = parse_time(a, v, 3600 * (int64_t)1000000000);
		} else if (!strcmp(a, "--connections")) {
			errno = 0;
			long c = strtol(v, &end, 10);
			if (end == v || *end || errno || c < 1 || c > 10000)
				usage_error("--connections %s: expected an integer 1..10000", v);
			o->connections = (int)c;
		} else if (!strcmp(a, "--mix")) {
			if (strlen(v) >= sizeof(o->mix_spec))
				usage_error("--mix: longer than %zu characters", sizeof(o->mix_spec) - 1);
			snprintf(o->mix_spec, sizeof(o->mix_spec), "%s", v);
		} else if (!strcmp(a, "--log")) {
			o->log = v;
		} else if (!strcmp(a, "--format")) {
			if (strcmp(v, "text") && strcmp(v, "csv") && strcmp(v, "json"))
				usage_error("--format %s: expected text, csv or json", v);
			o->format = v;
		}
	}
	if (!o->target)
		usage_error("--target HOST:PORT is required");
	if (!have_rate)
		usage_error("--rate R is required");
	if (!o->duration_ns)
		usage_error("--duration TIME is required");
	char err[256];
	if (emp_mix_parse(&o->mix, o->mix_spec, err, sizeof(err)))
		usage_error("%s", err);
}

struct run {
	struct opts *o;
	struct addrinfo *addr;
	int ep, tfd;
	struct conn *conns;
	char (*request)[400];       /* per route: the request bytes */
	size_t request_len[EMP_MIX_MAX];
	struct pending *queue;      /* FIFO ring of due requests waiting for a connection */
	size_t q_head, q_len, q_cap;
	struct emp_hdr *corrected, *uncorrected;
	FILE *log;
	int64_t t0, t_end, t_stop;  /* start, end of issuing, end of waiting */
	uint64_t issued;            /* open mode: requests made due so far (index of the next) */
	uint64_t due, sent, completed, ok;
	uint64_t errors[ERR_COUNT];
	uint64_t over_range;        /* latencies beyond 1 h (not recorded) */
	int64_t lag_max;            /* open mode: how late the generator noticed a due time, at most */
	int64_t last_ok, gone_at;   /* server death: first failure after the last success, if only failures follow */
	int gone_refused;
};

static void log_row(struct run *r, const struct pending *p, int64_t sent, int64_t done, int status,
		    enum load_error err)
{
	if (!r->log)
		return;
	fprintf(r->log, "%" PRId64 ",", p->due);
	if (sent)
		fprintf(r->log, "%" PRId64, sent);
	fputc(',', r->log);
	if (done)
		fprintf(r->log, "%" PRId64, done);
	if (status)
		fprintf(r->log, ",%d\n", status);
	else
		fprintf(r->log, ",%s\n", error_names[err]);
}

static void conn_close(struct run *r, struct conn *c)
{
	if (c->fd >= 0) {
		epoll_ctl(r->ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	c->fd = -1;
	c->st = C_DOWN;
	c->rx_len = 0;
}

/* --closed: @c's next request is due C/R after its last one or now (its reply or failure), whichever is later. */
static void closed_next(struct run *r, struct conn *c, int64_t now)
{
	if (!r->o->closed)
		return;
	int64_t next = c->req.due + (int64_t)(1e9 * r->o->connections / r->o->rate);
	c->next_due = next > now ? next : now;
}

/* The request on @c failed: count it, log it, close the connection (its state is unknown). */
static void fail(struct run *r, struct conn *c, enum load_error err, int64_t now)
{
	r->errors[err]++;
	if (r->gone_at == 0 || r->gone_at < r->last_ok)
		r->gone_at = now;
	if (err == ERR_REFUSED)
		r->gone_refused = 1;
	log_row(r, &c->req, c->sent, now, 0, err);
	conn_close(r, c);
	closed_next(r, c, now);
}

static enum load_error error_of_errno(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return ERR_REFUSED;
	case ECONNRESET:
	case EPIPE:
		return ERR_RESET;
	case ETIMEDOUT:
		return ERR_TIMEOUT;
	default:
		return ERR_SOCKET;
	}
}

static void watch(struct run *r, struct conn *c, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };
	if (epoll_ctl(r->ep, op, c->fd, &ev)) {
		fprintf(stderr, "emp-load: epoll_ctl: %s\n", strerror(errno));
		exit(EXIT_FAIL);
	}
}

/* Write (the rest of) @c's request; on completion wait for the reply. */
static void conn_write(struct run *r, struct conn *c, int64_t now)
{
	const char *req = r->request[c->req.route];
	size_t len = r->request_len[c->req.route];
	if (c->sent == 0) {
		c->sent = now;
		c->deadline = now + r->o->timeout_ns;
		r->sent++;
	}
	while (c->wr_off < len) {
		ssize_t n = send(c->fd, req + c->wr_off, len - c->wr_off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			watch(r, c, EPOLLOUT | EPOLLIN | EPOLLRDHUP, EPOLL_CTL_MOD);
			return;
		}
		if (n < 0) {
			fail(r, c, error_of_errno(errno), now);
			return;
		}
		c->wr_off += (size_t)n;
	}
	watch(r, c, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_MOD);
}

/* Start @c on request @p: connect first if it is down. */
static void conn_start(struct run *r, struct conn *c, struct pending p, int64_t now)
{
	c->req = p;
	c->sent = 0;
	c->wr_off = 0;
	c->rx_len = 0;
	if (c->st == C_IDLE) {
		c->st = C_BUSY;
		conn_write(r, c, now);
		return;
	}
	c->fd = socket(r->addr->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		c->st = C_CONNECTING;
		fail(r, c, ERR_SOCKET, now);
		return;
	}
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->st = C_CONNECTING;
	c->deadline = now + r->o->timeout_ns;
	if (connect(c->fd, r->addr->ai_addr, r->addr->ai_addrlen) == 0) {
		watch(r, c, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_ADD);
		c->st = C_BUSY;
		conn_write(r, c, now);
	} else if (errno == EINPROGRESS) {
		watch(r, c, EPOLLOUT, EPOLL_CTL_ADD);
	} else {
		fail(r, c, error_of_errno(errno), now);
	}
}

static void record(struct run *r, struct conn *c, const struct emp_http_response *resp, int64_t now)
{
	r->completed++;
	if (emp_hdr_record(r->corrected, (now - c->req.due) / 1000) ||
	    emp_hdr_record(r->uncorrected, (now - c->sent) / 1000))
		r->over_range++;
	if (resp->status >= 200 && resp->status <= 299) {
		r->ok++;
		r->last_ok = now;
	} else {
		r->errors[ERR_NON_2XX]++;
	}
	log_row(r, &c->req, c->sent, now, resp->status, ERR_COUNT);
}

static void conn_event(struct run *r, struct conn *c, uint32_t ev, int64_t now)
{
	if (c->st == C_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
			fail(r, c, error_of_errno(err ? err : errno), now);
			return;
		}
		c->st = C_BUSY;
		conn_write(r, c, now);
		return;
	}
	if (c->st == C_BUSY && (ev & EPOLLOUT) && c->wr_off < r->request_len[c->req.route]) {
		conn_write(r, c, now);
		if (c->st != C_BUSY)
			return;
	}
	if (!(ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
		return;
	for (;;) {
		if (c->rx_len == sizeof(c->rx)) {
			if (c->st == C_BUSY)
				fail(r, c, ERR_BAD_RESPONSE, now);
			else
				conn_close(r, c);
			return;
		}
		ssize_t n = recv(c->fd, c->rx + c->rx_len, sizeof(c->rx) - c->rx_len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			/* An idle connection the server closed (keep-alive timeout) is no failure: it reconnects. */
			if (c->st == C_BUSY)
				fail(r, c, n == 0 ? ERR_CLOSED : error_of_errno(errno), now);
			else
				conn_close(r, c);
			return;
		}
		if (c->st != C_BUSY) { /* bytes nobody asked for */
			conn_close(r, c);
			return;
		}
		c->rx_len += (size_t)n;
		struct emp_http_response resp;
		int st = emp_http_parse(c->rx, c->rx_len, &resp);
		if (st < 0 || (st > 0 && resp.length != c->rx_len)) { /* garbage, or bytes after the reply */
			fail(r, c, ERR_BAD_RESPONSE, now);
			return;
		}
		if (st > 0) {
			record(r, c, &resp, now);
			c->rx_len = 0;
			c->st = C_IDLE;
			closed_next(r, c, now);
			if (resp.close)
				conn_close(r, c);
			return;
		}
	}
}

static void push(struct run *r, struct pending p)
{
	if (r->q_len == r->q_cap) {
		size_t cap = r->q_cap ? 2 * r->q_cap : 1024;
		struct pending *q = malloc(cap * sizeof(*q));
		if (!q) {
			fprintf(stderr, "emp-load: out of memory (%zu requests waiting)\n", r->q_len);
			exit(EXIT_FAIL);
		}
		for (size_t i = 0; i < r->q_len; i++)
			q[i] = r->queue[(r->q_head + i) % r->q_cap];
		free(r->queue);
		r->queue = q;
		r->q_cap = cap;
		r->q_head = 0;
	}
	r->queue[(r->q_head + r->q_len) % r->q_cap] = p;
	r->q_len++;
}

static int64_t due_of(const struct run *r, uint64_t i)
{
	return r->t0 + (int64_t)((long double)i * 1e9L / (long double)r->o->rate);
}

/* Make due what is due by @now, hand waiting requests to free connections, time out what is late.  Return the
 * next instant something must happen (0: nothing scheduled). */
static int64_t step(struct run *r, int64_t now)
{
	struct opts *o = r->o;
	int64_t next = r->t_stop;
	if (!o->closed) {
		for (int64_t d; now < r->t_stop && (d = due_of(r, r->issued)) < r->t_end; r->issued++) {
			if (d > now) {
				next = d < next ? d : next;
				break;
			}
			if (now - d > r->lag_max)
				r->lag_max = now - d;
			push(r, (struct pending){ .due = d, .route = (uint32_t)emp_mix_next(&o->mix) });
			r->due++;
		}
	}
	for (int i = 0; i < o->connections; i++) {
		struct conn *c = &r->conns[i];
		if ((c->st == C_CONNECTING || c->st == C_BUSY) && c->deadline <= now)
			fail(r, c, ERR_TIMEOUT, now);
		if (c->st == C_DOWN || c->st == C_IDLE) {
			if (o->closed) {
				if (c->next_due >= r->t_end || now >= r->t_stop)
					continue;
				if (c->next_due > now) {
					next = c->next_due < next ? c->next_due : next;
					continue;
				}
				r->due++;
				conn_start(r, c,
					   (struct pending){ .due = c->next_due,
							     .route = (uint32_t)emp_mix_next(&o->mix) },
					   now);
			} else if (r->q_len && now < r->t_stop) {
				struct pending p = r->queue[r->q_head];
				r->q_head = (r->q_head + 1) % r->q_cap;
				r->q_len--;
				conn_start(r, c, p, now);
			}
		}
		if ((c->st == C_CONNECTING || c->st == C_BUSY) && c->deadline < next)
			next = c->deadline;
	}
	return next;
}

static int busy(const struct run *r)
{
	for (int i = 0; i < r->o->connections; i++)
		if (r->conns[i].st == C_CONNECTING || r->conns[i].st == C_BUSY)
			return 1;
	return 0;
}

static void report(struct run *r, int interrupted)
{
	struct opts *o = r->o;
	static const double pct[] = { 50, 90, 99, 99.9, 99.99 };
	struct emp_hdr *h[2] = { r->corrected, r->uncorrected };
	static const char *const names[2] = { "corrected", "uncorrected" };
	double secs = (double)((r->t_end < mono_ns() ? r->t_end : mono_ns()) - r->t0) / 1e9;
	uint64_t failed = 0;
	for (int e = 0; e < ERR_COUNT; e++)
		failed += e == ERR_NON_2XX ? 0 : r->errors[e];
	int gone = r->last_ok && r->gone_at > r->last_ok && r->gone_refused;
	if (!strcmp(o->format, "csv")) {
		puts("measure,count,p50_us,p90_us,p99_us,p999_us,p9999_us,max_us");
		for (int k = 0; k < 2; k++) {
			printf("%s,%" PRIu64, names[k], emp_hdr_count(h[k]));
			for (size_t i = 0; i < 5; i++)
				printf(",%" PRId64, emp_hdr_percentile(h[k], pct[i]));
			printf(",%" PRId64 "\n", emp_hdr_max(h[k]));
		}
		for (int e = 0; e < ERR_COUNT; e++)
			printf("error,%s,%" PRIu64 "\n", error_names[e], r->errors[e]);
		printf("info,due,%" PRIu64 "\ninfo,sent,%" PRIu64 "\ninfo,completed,%" PRIu64 "\n", r->due, r->sent,
		       r->completed);
		printf("info,generator_lag_max_us,%" PRId64 "\n", r->lag_max / 1000);
		if (gone)
			printf("info,server_gone_s,%.3f\n", (double)(r->gone_at - r->t0) / 1e9);
		if (interrupted)
			printf("info,interrupted,1\n");
	} else if (!strcmp(o->format, "json")) {
		printf("{\"target\":\"%s\",\"rate\":%.6g,\"duration_s\":%.6g,\"connections\":%d,\"mode\":\"%s\",",
		       o->target, o->rate, (double)o->duration_ns / 1e9, o->connections, o->closed ? "closed" : "open");
		for (int k = 0; k < 2; k++) {
			printf("\"%s\":{\"count\":%" PRIu64, names[k], emp_hdr_count(h[k]));
			static const char *const keys[] = { "p50_us", "p90_us", "p99_us", "p999_us", "p9999_us" };
			for (size_t i = 0; i < 5; i++)
				printf(",\"%s\":%" PRId64, keys[i], emp_hdr_percentile(h[k], pct[i]));
			printf(",\"max_us\":%" PRId64 "},", emp_hdr_max(h[k]));
		}
		printf("\"errors\":{");
		for (int e = 0; e < ERR_COUNT; e++)
			printf("%s\"%s\":%" PRIu64, e ? "," : "", error_names[e], r->errors[e]);
		printf("},\"due\":%" PRIu64 ",\"sent\":%" PRIu64 ",\"completed\":%" PRIu64
		       ",\"generator_lag_max_us\":%" PRId64,
		       r->due, r->sent, r->completed, r->lag_max / 1000);
		if (gone)
			printf(",\"server_gone_s\":%.3f", (double)(r->gone_at - r->t0) / 1e9);
		printf(",\"interrupted\":%s}\n", interrupted ? "true" : "false");
	} else {
		printf("emp-load: %s mode=%s rate=%g/s duration=%gs connections=%d mix=%s timeout=%gs\n", o->target,
		       o->closed ? "closed" : "open", o->rate, (double)o->duration_ns / 1e9, o->connections,
		       o->mix_spec, (double)o->timeout_ns / 1e9);
		printf("requests: %" PRIu64 " due, %" PRIu64 " sent, %" PRIu64 " answered (%" PRIu64
		       " 2xx), %" PRIu64 " failed; %.1f answered/s; generator lag max %" PRId64 " us\n",
		       r->due, r->sent, r->completed, r->ok, failed, secs > 0 ? (double)r->completed / secs : 0.0,
		       r->lag_max / 1000);
		printf("%-12s %9s %10s %10s %10s %10s %10s %10s\n", "latency", "count", "p50_us", "p90_us", "p99_us",
		       "p99.9_us", "p99.99_us", "max_us");
		for (int k = 0; k < 2; k++) {
			printf("%-12s %9" PRIu64, names[k], emp_hdr_count(h[k]));
			for (size_t i = 0; i < 5; i++)
				printf(" %10" PRId64, emp_hdr_percentile(h[k], pct[i]));
			printf(" %10" PRId64 "\n", emp_hdr_max(h[k]));
		}
		printf("errors:");
		for (int e = 0; e < ERR_COUNT; e++)
			printf(" %s %" PRIu64 "%s", error_names[e], r->errors[e], e + 1 < ERR_COUNT ? "," : "\n");
		if (gone)
			printf("server gone at %.3f s: connections refused, no reply after it\n",
			       (double)(r->gone_at - r->t0) / 1e9);
		if (interrupted)
			printf("interrupted by signal %d: results up to then\n", interrupted);
	}
	if (r->over_range)
		fprintf(stderr, "emp-load: %" PRIu64 " latencies above 1 h not recorded\n", r->over_range);
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_args(argc, argv, &o);
	struct run r = { .o = &o };

	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	int gai = getaddrinfo(o.host, o.port, &hints, &r.addr);
	if (gai) {
		fprintf(stderr, "emp-load: --target %s: %s\n", o.target, gai_strerror(gai));
		return EXIT_USAGE;
	}
	r.corrected = emp_hdr_new(1, 3600LL * 1000000, 3);
	r.uncorrected = emp_hdr_new(1, 3600LL * 1000000, 3);
	r.conns = calloc((size_t)o.connections, sizeof(*r.conns));
	r.request = calloc(o.mix.n, sizeof(*r.request));
	if (!r.corrected || !r.uncorrected || !r.conns || !r.request) {
		fprintf(stderr, "emp-load: out of memory\n");
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < o.mix.n; i++)
		r.request_len[i] = (size_t)snprintf(r.request[i], sizeof(r.request[i]),
						    "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: emp-load\r\n\r\n",
						    o.mix.path[i], o.target);
	if (o.log) {
		r.log = fopen(o.log, "w");
		if (!r.log) {
			fprintf(stderr, "emp-load: --log %s: %s\n", o.log, strerror(errno));
			return EXIT_USAGE;
		}
		setvbuf(r.log, NULL, _IOFBF, 1 << 20);
		fputs("due_ns,sent_ns,done_ns,status\n", r.log);
	}
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: epoll_wait returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	r.ep = epoll_create1(EPOLL_CLOEXEC);
	r.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (r.ep < 0 || r.tfd < 0) {
		fprintf(stderr, "emp-load: epoll/timerfd: %s\n", strerror(errno));
		return EXIT_FAIL;
	}
	struct epoll_event tev = { .events = EPOLLIN, .data.ptr = NULL };
	epoll_ctl(r.ep, EPOLL_CTL_ADD, r.tfd, &tev);
	for (int i = 0; i < o.connections; i++)
		r.conns[i].fd = -1;

	r.t0 = mono_ns();
	r.t_end = r.t0 + o.duration_ns;
	r.t_stop = r.t_end + o.timeout_ns;
	for (int i = 0; i < o.connections; i++)
		r.conns[i].next_due = due_of(&r, (uint64_t)i);
	int interrupted = 0;
	struct epoll_event evs[256];
	for (;;) {
		int64_t now = mono_ns();
		int64_t next = step(&r, now);
		int issuing = now < r.t_end && (o.closed || due_of(&r, r.issued) < r.t_end);
		if (now >= r.t_stop || (!issuing && !r.q_len && !busy(&r)))
			break;
		struct itimerspec its = { .it_value = { .tv_sec = next / 1000000000, .tv_nsec = next % 1000000000 } };
		timerfd_settime(r.tfd, TFD_TIMER_ABSTIME, &its, NULL);
		int n = epoll_wait(r.ep, evs, 256, -1);
		if (stop_signal) {
			interrupted = stop_signal;
			break;
		}
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "emp-load: epoll_wait: %s\n", strerror(errno));
			return EXIT_FAIL;
		}
		now = mono_ns();
		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr) {
				conn_event(&r, evs[i].data.ptr, evs[i].events, now);
			} else {
				uint64_t ticks;
				if (read(r.tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
					fprintf(stderr, "emp-load: timerfd: %s\n", strerror(errno));
			}
		}
	}
	/* What is still on the way or waiting at the end was never answered. */
	int64_t now = mono_ns();
	for (int i = 0; i < o.connections; i++)
		if (r.conns[i].st == C_CONNECTING || r.conns[i].st == C_BUSY)
			fail(&r, &r.conns[i], ERR_TIMEOUT, now);
	for (; r.q_len; r.q_len--, r.q_head = (r.q_head + 1) % r.q_cap) {
		r.errors[ERR_UNSENT]++;
		log_row(&r, &r.queue[r.q_head], 0, 0, 0, ERR_UNSENT);
	}
	if (r.log && fclose(r.log)) {
		fprintf(stderr, "emp-load: --log %s: %s\n", o.log, strerror(errno));
		interrupted = interrupted ? interrupted : -1;
	}
	report(&r, interrupted > 0 ? interrupted : 0);
	int failed = interrupted != 0;
	for (int e = 0; e < ERR_COUNT; e++)
		failed |= r.errors[e] != 0;
	for (int i = 0; i < o.connections; i++)
		conn_close(&r, &r.conns[i]);
	close(r.tfd);
	close(r.ep);
	free(r.conns);
	free(r.request);
	free(r.queue);
	emp_hdr_free(r.corrected);
	emp_hdr_free(r.uncorrected);
	freeaddrinfo(r.addr);
	return failed ? EXIT_FAIL : EXIT_OK;
}
