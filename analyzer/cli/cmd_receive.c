/* SPDX-License-Identifier: MIT */
/* cmd_receive.c - emp-analyze receive: accept one connection from an agent started with writer=tcp:HOST:PORT,
 * store the stream (the very bytes of a dump file) into FILE, then read FILE back and say whether the dump is
 * complete.  The agent connects and never listens; this is the listening end. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze receive --listen PORT -o FILE [--bind ADDR] [--port-file F] [--timeout SECONDS]\n"
	"\n"
	"Waits for one agent started with writer=tcp:HOST:PORT, stores what it streams into FILE (an ordinary\n"
	"dump), then reads FILE back and prints its status: complete, or truncated (the connection ended before\n"
	"the dump's END chunk; exit status 3 unless --allow-truncated) or corrupt (exit status 1).\n"
	"  --listen PORT     TCP port to listen on (0: any free port; see --port-file)\n"
	"  --bind ADDR       IPv4 address to listen on (default 0.0.0.0: every interface)\n"
	"  --port-file F     write the port number to F once listening (for scripts)\n"
	"  --timeout S       give up when no agent connected within S seconds (default: wait forever)\n"
	"  -o FILE           where to store the dump\n";

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The command line. */
struct args {
	const char *out, *bind_addr, *port_file;
	long port, timeout;      /* timeout -1: wait forever */
	struct sockaddr_in sa;   /* --bind and --listen */
};

static void parse_args(struct emp_cli *cli, int argc, char **argv, struct args *a)
{
	enum { OPT_LISTEN = EMP_OPT_FIRST_FREE, OPT_BIND, OPT_PORT_FILE, OPT_TIMEOUT };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS,
					      { "listen", required_argument, NULL, OPT_LISTEN },
					      { "bind", required_argument, NULL, OPT_BIND },
					      { "port-file", required_argument, NULL, OPT_PORT_FILE },
					      { "timeout", required_argument, NULL, OPT_TIMEOUT },
					      { 0, 0, 0, 0 } };
	*a = (struct args){ .bind_addr = "0.0.0.0", .port = -1, .timeout = -1 };
	int opt;
	char *end;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (emp_cli_common(cli, opt, optarg))
			continue;
		switch (opt) {
		case 'o':
			a->out = optarg;
			break;
		case OPT_LISTEN:
			a->port = strtol(optarg, &end, 10);
			if (*end || end == optarg || a->port < 0 || a->port > 65535)
				emp_cli_usage_error(cli, "--listen %s: expected a port number 0..65535", optarg);
			break;
		case OPT_BIND:
			a->bind_addr = optarg;
			break;
		case OPT_PORT_FILE:
			a->port_file = optarg;
			break;
		case OPT_TIMEOUT:
			a->timeout = strtol(optarg, &end, 10);
			if (*end || end == optarg || a->timeout < 1 || a->timeout > 86400)
				emp_cli_usage_error(cli, "--timeout %s: expected seconds, 1..86400", optarg);
			break;
		default:
			break;
		}
	}
	if (a->port < 0)
		emp_cli_usage_error(cli, "--listen PORT is required");
	if (!a->out)
		emp_cli_usage_error(cli, "-o FILE is required");
	if (optind != argc)
		emp_cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	a->sa = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)a->port) };
	if (inet_pton(AF_INET, a->bind_addr, &a->sa.sin_addr) != 1)
		emp_cli_usage_error(cli, "--bind %s: expected an IPv4 address", a->bind_addr);
}

/* Listen, write --port-file, wait for the agent (at most --timeout).  Return: the connected socket, or -1 after
 * printing one line. */
static int accept_agent(struct args *a)
{
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	socklen_t sl = sizeof(a->sa);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&a->sa, sizeof(a->sa)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&a->sa, &sl)) {
		emp_errorf("cannot listen on %s:%ld: %s", a->bind_addr, a->port, strerror(errno));
		if (ls >= 0)
			close(ls);
		return -1;
	}
	if (a->port_file) {
		FILE *pf = fopen(a->port_file, "w");
		if (!pf || fprintf(pf, "%u\n", ntohs(a->sa.sin_port)) < 0 || fclose(pf)) {
			emp_errorf("%s: cannot write: %s", a->port_file, strerror(errno));
			close(ls);
			return -1;
		}
	}
	fprintf(stderr, "emp-analyze receive: listening on %s:%u\n", a->bind_addr, ntohs(a->sa.sin_port));
	struct pollfd pfd = { .fd = ls, .events = POLLIN };
	int pr;
	while ((pr = poll(&pfd, 1, a->timeout > 0 ? (int)a->timeout * 1000 : -1)) < 0 && errno == EINTR)
		;
	if (pr == 0) {
		emp_errorf("no agent connected within %ld s", a->timeout);
		close(ls);
		return -1;
	}
	int cs = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
	close(ls);
	if (cs < 0)
		emp_errorf("accept: %s", strerror(errno));
	return cs;
}

/* Copy the stream of @cs into the file @out until the agent closes it (a receive error keeps what came); closes
 * @cs.  Return: 0 with the byte count in *total, or -1 after printing one line (the file cannot be written). */
static int store_stream(int cs, const char *out, uint64_t *total)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		emp_errorf("%s: cannot create: %s", out, strerror(errno));
		close(cs);
		return -1;
	}
	static char buf[1 << 16];
	*total = 0;
	for (;;) {
		ssize_t n = read(cs, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			emp_errorf("receiving: %s (keeping the %" PRIu64 " bytes received)", strerror(errno), *total);
			break;
		}
		if (n == 0)
			break;
		if (write_all(fd, buf, (size_t)n)) {
			emp_errorf("%s: write error: %s", out, strerror(errno));
			close(fd);
			close(cs);
			return -1;
		}
		*total += (uint64_t)n;
	}
	close(cs);
	if (close(fd)) {
		emp_errorf("%s: write error: %s", out, strerror(errno));
		return -1;
	}
	return 0;
}

int emp_cmd_receive(int argc, char **argv)
{
	struct emp_cli cli = { .command = "receive", .usage = usage };
	struct args a;
	parse_args(&cli, argc, argv, &a);
	int cs = accept_agent(&a);
	uint64_t total;
	if (cs < 0 || store_stream(cs, a.out, &total))
		return EMP_EXIT_ERROR;
	struct emp_dump_reader *r = emp_input_open(&cli.in, a.out);
	if (!r)
		return cli.in.exit_code;
	emp_dump_reader_drain(r);
	emp_input_done(&cli.in, r);
	const char *status = emp_dump_reader_status(r) == EMP_DUMP_COMPLETE ? "complete"
			     : emp_dump_reader_status(r) == EMP_DUMP_TRUNCATED ? "truncated" : "corrupt";
	static const char *const cols[] = { "file", "bytes", "status" };
	struct emp_table *t = emp_table_new("received", "Received dump", 3, cols);
	emp_table_row(t);
	emp_table_str(t, a.out);
	emp_table_int(t, (int64_t)total);
	emp_table_str(t, status);
	struct emp_report *rep = emp_report_new(cli.format);
	emp_report_add(rep, t);
	emp_report_print(rep, stdout);
	emp_report_free(rep);
	emp_dump_reader_close(r);
	return cli.in.exit_code;
}
