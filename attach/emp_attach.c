/* SPDX-License-Identifier: MIT */
/* emp_attach.c - `emp-attach PID [OPTIONS]`: start an emp recording in a running JVM; `emp-attach PID stop` finishes
 * it.  See the README's "Attach".
 *
 * The HotSpot attach protocol (src/hotspot/os/posix/attachListener_posix.cpp, jdk.attach's VirtualMachineImpl):
 *   1. if /tmp/.java_pid<pid> (the JVM's attach socket) does not exist: create .attach_pid<pid> in the JVM's working
 *      directory (else in /tmp), send SIGQUIT; the JVM's Signal Dispatcher sees the file and starts its Attach
 *      Listener, which opens the socket; wait for it, remove the file;
 *   2. connect, send the request "1\0load\0<library path>\0true\0<options>\0" (protocol 1: version, command, three
 *      arguments of at most 1024 bytes; "true": the path is absolute);
 *   3. read the answer to EOF: "<status>\n<output>"; for `load`, status 0 and "return code: <Agent_OnAttach's>".
 * Paths go through /proc/<pid>/root and the pid the JVM sees itself as (NSpid), so a JVM in a container works from
 * the host.  The caller must be the JVM's user (the listener checks the peer's uid and gid) or root.
 *
 * Every failure is one line on stderr and a non-zero exit: 1 nothing was done (no such process, not a JVM, the JVM
 * refused or did not answer, a recording runs already), 2 bad usage or options. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "dump.h"
#include "options.h"

#define ARG_MAX_BYTES 1024      /* HotSpot's limit on one argument of an attach request */
#define SOCKET_WAIT_MS 10000    /* for the JVM to start its Attach Listener */
#define ANSWER_TIMEOUT_S 120    /* for Agent_OnAttach: names every method of every loaded class */

static const char usage[] =
	"usage: emp-attach PID [AGENT-OPTIONS]   start an emp recording in the running JVM PID\n"
	"       emp-attach PID stop              finish that recording now (the dump is complete; the JVM goes on)\n"
	"       emp-attach --help                this text and the agent options\n"
	"Loads libemp.so (next to emp-attach) through the HotSpot attach protocol; the recording starts at once on the\n"
	"threads and classes that exist. AGENT-OPTIONS are the agent's own (below), e.g. mode=sample,duration=30s,\n"
	"out=/tmp/app.emp; a relative out= is relative to the JVM's working directory. mode=sample needs\n"
	"clock=cpu,threads=all (the defaults) in a running JVM; mode=trace retransforms the loaded classes that\n"
	"include= selects. A JVM records once: a second attach reports the running recording.\n"
	"Exit status: 0 done, 1 nothing done (no such process, not a JVM, refused, already recording), 2 bad usage.\n\n";

__attribute__((format(printf, 2, 3), noreturn))
static void die(int status, const char *fmt, ...)
{
	va_list ap;
	fputs("emp-attach: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* The value of "Key:" in /proc/<pid>/status (last field of the line), or "" when absent. */
static void proc_status(pid_t pid, const char *key, char *out, size_t len)
{
	char path[64], line[512];
	size_t kl = strlen(key);
	snprintf(out, len, "%s", "");
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl) || line[kl] != ':')
			continue;
		line[strcspn(line, "\n")] = 0;
		const char *last = strrchr(line, '\t');
		last = last ? last + 1 : line + kl + 1;
		while (*last == ' ')
			last++;
		snprintf(out, len, "%s", last);
		break;
	}
	fclose(f);
}

/* Whether /proc/<pid>/maps maps a file whose path ends in @suffix; its path into @found when not NULL. */
static int maps_has(pid_t pid, const char *suffix, char *found, size_t len)
{
	char path[64], line[4096];
	size_t sl = strlen(suffix);
	int has = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	while (!has && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");
		line[n] = 0;
		has = n >= sl && !strcmp(line + n - sl, suffix);
		if (has && found)
			snprintf(found, len, "%s", strchr(line, '/') ? strchr(line, '/') : line);
	}
	fclose(f);
	return has;
}

/* libemp.so beside this executable. */
static void agent_path(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		die(1, "cannot find my own executable: %s", strerror(errno));
	self[n] = 0;
	char *slash = strrchr(self, '/');
	*slash = 0;
	if ((size_t)snprintf(out, len, "%s/libemp.so", self) >= len || access(out, R_OK))
		die(1, "no libemp.so next to emp-attach (%s/libemp.so)", self);
}

/* out=: the dump's directory must exist as the JVM sees its file system (relative to its working directory);
 * checked here, where the message reaches the user, rather than by the agent in the JVM. */
static void check_out_dir(pid_t pid, const struct emp_options *o)
{
	char path[PATH_MAX], full[PATH_MAX + 64];
	struct stat st;
	if (o->writer != EMP_WRITER_FILE || emp_options_out_path(o->out, pid, (int64_t)time(NULL), path, sizeof(path)))
		return; /* a path too long is the agent's to report */
	char *slash = strrchr(path, '/');
	if (!slash)
		return; /* the working directory itself */
	*slash = 0;
	int absolute = path[0] == '/' || slash == path;
	snprintf(full, sizeof(full), "/proc/%d/%s/%s", (int)pid, absolute ? "root" : "cwd", path);
	if (stat(full, &st) || !S_ISDIR(st.st_mode))
		die(2, "out=%s: no directory %s in JVM %d's file system", o->out, slash == path ? "/" : path, (int)pid);
}

/* The dump JVM @pid writes: the file among its open ones that begins with the dump's magic (the writer keeps it
 * open).  Return: 0 with its path in @out, or -1 (writer=tcp or null, or no access). */
static int running_dump(pid_t pid, char *out, size_t len)
{
	char dir[64], fd_path[64 + sizeof(((struct dirent *)0)->d_name)];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int found = -1;
	struct dirent *e;
	while (found && (e = readdir(d))) {
		char magic[EMP_DUMP_MAGIC_LEN];
		snprintf(fd_path, sizeof(fd_path), "%s/%s", dir, e->d_name);
		int fd = e->d_name[0] == '.' ? -1 : open(fd_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
		    !memcmp(magic, EMP_DUMP_MAGIC, sizeof(magic))) {
			ssize_t n = readlink(fd_path, out, len - 1);
			if (n > 0) {
				out[n] = 0;
				found = 0;
			}
		}
		close(fd);
	}
	closedir(d);
	return found;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Make the JVM open its attach socket @sock (step 1 of the file comment). */
static void wake_listener(pid_t pid, const char *nspid, const char *sock)
{
	char file[PATH_MAX], sigign[32];
	snprintf(file, sizeof(file), "/proc/%d/cwd/.attach_pid%s", (int)pid, nspid);
	int fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0660);
	if (fd < 0) {
		snprintf(file, sizeof(file), "/proc/%d/root/tmp/.attach_pid%s", (int)pid, nspid);
		fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0660);
	}
	if (fd < 0)
		die(1, "cannot create %s to ask JVM %d to attach: %s", file, (int)pid, strerror(errno));
	close(fd);
	/* A JVM whose SIGQUIT is ignored (started in the background of a non-interactive shell) or not its own
	 * (-Xrs) never sees the request: say so instead of waiting in vain. */
	proc_status(pid, "SigIgn", sigign, sizeof(sigign));
	if (strtoull(sigign, NULL, 16) & (1ull << (SIGQUIT - 1))) {
		unlink(file);
		die(1, "JVM %d ignores SIGQUIT (started in the background of a non-interactive shell?), so it cannot be "
		       "attached to", (int)pid);
	}
	if (kill(pid, SIGQUIT)) {
		unlink(file);
		die(1, "cannot signal JVM %d: %s", (int)pid, strerror(errno));
	}
	struct stat st;
	long until = now_ms() + SOCKET_WAIT_MS;
	while (stat(sock, &st) && now_ms() < until)
		poll(NULL, 0, 20);
	unlink(file);
	if (stat(sock, &st))
		die(1, "JVM %d did not open its attach socket within %d s (started with -Xrs or "
		       "-XX:+DisableAttachMechanism?)", (int)pid, SOCKET_WAIT_MS / 1000);
}

/* Send `load` with @opts, return Agent_OnAttach's return code; any other answer ends the program. */
static int load(pid_t pid, const char *sock, const char *lib, const char *opts)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (strlen(sock) >= sizeof(addr.sun_path))
		die(1, "attach socket path too long: %s", sock);
	strcpy(addr.sun_path, sock);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		die(1, "cannot connect to JVM %d (%s): %s", (int)pid, sock, strerror(errno));
	struct timeval tv = { .tv_sec = ANSWER_TIMEOUT_S };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	char req[3 * ARG_MAX_BYTES + 32];
	size_t n = 0;
	const char *parts[] = { "1", "load", lib, "true", opts };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t l = strlen(parts[i]) + 1;
		memcpy(req + n, parts[i], l);
		n += l;
	}
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, req + off, n - off);
		if (w <= 0)
			die(1, "JVM %d closed the attach connection: %s", (int)pid, w ? strerror(errno) : "EOF");
		off += (size_t)w;
	}
	char ans[4096];
	size_t got = 0;
	ssize_t r;
	while (got < sizeof(ans) - 1 && (r = read(fd, ans + got, sizeof(ans) - 1 - got)) > 0)
		got += (size_t)r;
	if (r < 0 && got == 0)
		die(1, "no answer from JVM %d: %s", (int)pid, strerror(errno));
	close(fd);
	ans[got] = 0;
	/* "<status>\n<output>": 0 and "return code: N" when Agent_OnAttach ran */
	char *rc = strstr(ans, "return code: ");
	if (atoi(ans) == 0 && rc)
		return atoi(rc + strlen("return code: "));
	for (char *p = ans; *p; p++)
		if (*p == '\n')
			*p = ' ';
	die(1, "JVM %d refused to load %s: %s", (int)pid, lib, got ? ans : "(no answer)");
}

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		fputs(emp_options_help(), stdout);
		return 0;
	}
	if (argc < 2 || argc > 3)
		die(2, "usage: emp-attach PID [AGENT-OPTIONS] | emp-attach PID stop (see --help)");
	char *end;
	errno = 0;
	long lpid = strtol(argv[1], &end, 10);
	if (errno || *end || lpid <= 0 || lpid > INT_MAX)
		die(2, "'%s' is not a process id", argv[1]);
	pid_t pid = (pid_t)lpid;
	const char *opts = argc == 3 ? argv[2] : "";
	int stop = !strcmp(opts, EMP_ATTACH_STOP);
	struct emp_options o;
	char err[512];
	if (!stop) {
		/* the agent's own parser: a bad option is reported here, before the JVM is touched */
		int bad = emp_options_parse(opts, &o, err, sizeof(err));
		if (bad)
			die(2, "%s", err);
		if (o.help) {
			fputs(usage, stdout);
			fputs(emp_options_help(), stdout);
			return 0;
		}
		if (emp_options_check_attach(&o, err, sizeof(err)))
			die(2, "%s", err);
		if (strlen(opts) >= ARG_MAX_BYTES)
			die(2, "options longer than %d bytes cannot pass the attach protocol", ARG_MAX_BYTES - 1);
	}

	if (kill(pid, 0))
		die(1, errno == ESRCH ? "no process %d" : "cannot reach process %d: %s", (int)pid, strerror(errno));
	char comm[64], nspid[32], lib[PATH_MAX];
	proc_status(pid, "Name", comm, sizeof(comm));
	if (!maps_has(pid, "/libjvm.so", NULL, 0))
		die(1, "process %d (%s) is not a Java VM (no libjvm.so mapped)", (int)pid, comm);
	proc_status(pid, "NSpid", nspid, sizeof(nspid));
	if (!*nspid)
		snprintf(nspid, sizeof(nspid), "%d", (int)pid);
	agent_path(lib, sizeof(lib));
	/* Another libemp.so would be a second agent with its own state, unaware of the first: use that one's tools. */
	char loaded[PATH_MAX], real[PATH_MAX];
	if (maps_has(pid, "/libemp.so", loaded, sizeof(loaded))) {
		if (!realpath(lib, real) || strcmp(real, loaded))
			die(1, "JVM %d runs emp from %s; use the emp-attach next to it", (int)pid, loaded);
	} else if (stop) {
		die(1, "JVM %d has no emp recording to stop", (int)pid);
	}

	if (!stop)
		check_out_dir(pid, &o);

	char sock[PATH_MAX];
	snprintf(sock, sizeof(sock), "/proc/%d/root/tmp/.java_pid%s", (int)pid, nspid);
	struct stat st;
	if (stat(sock, &st))
		wake_listener(pid, nspid, sock);
	int rc = load(pid, sock, lib, opts);

	switch (rc) {
	case 0:
		if (stop) {
			printf("emp-attach: JVM %d: recording finished\n", (int)pid);
		} else {
			char cwd[PATH_MAX] = "", link[64], path[PATH_MAX] = "";
			snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
			ssize_t n = readlink(link, cwd, sizeof(cwd) - 1);
			cwd[n > 0 ? n : 0] = 0;
			if (o.writer == EMP_WRITER_FILE)
				emp_options_out_path(o.out, pid, (int64_t)time(NULL), path, sizeof(path));
			printf("emp-attach: JVM %d: recording, mode=%s, %s%s%s%s\n", (int)pid, emp_mode_name(o.mode),
			       o.writer == EMP_WRITER_FILE ? "dump " : "writer=",
			       o.writer == EMP_WRITER_FILE && path[0] != '/' ? cwd : "",
			       o.writer == EMP_WRITER_FILE && path[0] != '/' ? "/" : "",
			       o.writer == EMP_WRITER_FILE ? path : emp_writer_name(o.writer));
			emp_options_free(&o);
		}
		return 0;
	case EMP_ATTACH_RUNNING: {
		char dump[PATH_MAX], into[PATH_MAX + 8] = "";
		if (!running_dump(pid, dump, sizeof(dump)))
			snprintf(into, sizeof(into), " into %s", dump);
		die(1, "JVM %d is recording with emp already%s (nothing loaded again); `emp-attach %d stop` finishes it",
		    (int)pid, into, (int)pid);
	}
	case EMP_ATTACH_FINISHED:
		die(1, "JVM %d has finished its emp recording; emp records once per JVM", (int)pid);
	case EMP_ATTACH_NONE:
		die(1, "JVM %d has no emp recording to stop", (int)pid);
	case EMP_ATTACH_BROKEN:
		die(1, "an earlier attach to JVM %d failed half-way (its stderr says why); emp cannot record in this JVM",
		    (int)pid);
	default:
		die(1, "JVM %d refused the recording (Agent_OnAttach returned %d; the JVM's stderr says why)", (int)pid, rc);
	}
}
