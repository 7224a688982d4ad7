/* SPDX-License-Identifier: MIT */
/* sink.c - file, tcp and null sinks; see sink.h. */
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "options.h"

struct emp_sink {
	enum emp_writer_kind kind;
	int fd;
	char describe[4200];
};

int emp_sink_open(const struct emp_options *o, const char *path, struct emp_sink **out, char *err, size_t errlen)
{
	struct emp_sink *s = calloc(1, sizeof(*s));
	*out = NULL;
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->kind = o->writer;
	s->fd = -1;
	switch (o->writer) {
	case EMP_WRITER_FILE:
		s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (s->fd < 0) {
			snprintf(err, errlen, "out=%s: cannot create: %s", path, strerror(errno));
			free(s);
			return -1;
		}
		snprintf(s->describe, sizeof(s->describe), "%s", path);
		break;
	case EMP_WRITER_TCP: {
		struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL, *a;
		char port[8];
		snprintf(port, sizeof(port), "%u", o->tcp_port);
		int rc = getaddrinfo(o->tcp_host, port, &hints, &ai);
		if (rc) {
			snprintf(err, errlen, "writer=tcp:%s:%s: %s", o->tcp_host, port, gai_strerror(rc));
			free(s);
			return -1;
		}
		int last = 0;
		for (a = ai; a; a = a->ai_next) {
			s->fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
			if (s->fd < 0) {
				last = errno;
				continue;
			}
			if (!connect(s->fd, a->ai_addr, a->ai_addrlen))
				break;
			last = errno;
			close(s->fd);
			s->fd = -1;
		}
		freeaddrinfo(ai);
		if (s->fd < 0) {
			snprintf(err, errlen, "writer=tcp:%s:%s: cannot connect: %s", o->tcp_host, port, strerror(last));
			free(s);
			return -1;
		}
		int one = 1;
		setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		snprintf(s->describe, sizeof(s->describe), "tcp:%s:%s", o->tcp_host, port);
		break;
	}
	case EMP_WRITER_NULL:
		snprintf(s->describe, sizeof(s->describe), "null");
		break;
	}
	*out = s;
	return 0;
}

int emp_sink_write(void *sink, const void *buf, size_t len)
{
	struct emp_sink *s = sink;
	const char *p = buf;
	if (s->kind == EMP_WRITER_NULL)
		return 0;
	while (len) {
		/* MSG_NOSIGNAL: a closed connection must give EPIPE here, never SIGPIPE to the JVM. */
		ssize_t n = s->kind == EMP_WRITER_TCP ? send(s->fd, p, len, MSG_NOSIGNAL) : write(s->fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int emp_sink_discards(const struct emp_sink *s)
{
	return s->kind == EMP_WRITER_NULL;
}

const char *emp_sink_describe(const struct emp_sink *s)
{
	return s->describe;
}

void emp_sink_close(struct emp_sink *s)
{
	if (!s)
		return;
	if (s->fd >= 0) {
		if (s->kind == EMP_WRITER_FILE)
			fsync(s->fd);
		else if (s->kind == EMP_WRITER_TCP)
			shutdown(s->fd, SHUT_WR);
		close(s->fd);
	}
	free(s);
}
