/* SPDX-License-Identifier: MIT */
/* runner.c - emp-run's shared helpers; see runner.h. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

void emp_runner_bad(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emp_errorf("%s", msg);
	exit(EMP_RUNNER_EXIT_BAD);
}

int emp_runner_write_file(const char *path, const void *data, size_t len)
{
	char *tmp;
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		emp_die("out of memory");
	int rc = -1, fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		emp_errorf("%s: %s", tmp, strerror(errno));
		goto out;
	}
	rc = emp_runner_append(fd, tmp, data, len);
	if (close(fd) && rc == 0) {
		emp_errorf("%s: %s", tmp, strerror(errno));
		rc = -1;
	}
	/* rename() after fsync: a crash leaves either the old file or the whole new one, never a torn one. */
	if (rc == 0 && rename(tmp, path)) {
		emp_errorf("%s: %s", path, strerror(errno));
		rc = -1;
	}
out:
	free(tmp);
	return rc;
}

int emp_runner_append(int fd, const char *what, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			emp_errorf("%s: %s", what, n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	if (fsync(fd)) {
		emp_errorf("%s: fsync: %s", what, strerror(errno));
		return -1;
	}
	return 0;
}

int emp_runner_trim_torn(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : (emp_errorf("%s: %s", path, strerror(errno)), -1);
	off_t end = lseek(fd, 0, SEEK_END), keep = end;
	char c;
	while (keep > 0 && pread(fd, &c, 1, keep - 1) == 1 && c != '\n')
		keep--;
	int rc = 0;
	if (keep != end && (ftruncate(fd, keep) || fsync(fd))) {
		emp_errorf("%s: %s", path, strerror(errno));
		rc = -1;
	}
	close(fd);
	return rc;
}

char *emp_runner_abs_path(const char *p)
{
	if (p[0] == '/')
		return emp_xstrdup(p);
	char cwd[PATH_MAX], *r;
	if (!getcwd(cwd, sizeof(cwd)))
		emp_die("getcwd: %s", strerror(errno));
	if (!strcmp(p, "."))
		return emp_xstrdup(cwd);
	if (asprintf(&r, "%s/%s", cwd, p) < 0)
		emp_die("out of memory");
	return r;
}

int emp_runner_mkdirs(const char *path)
{
	char *p = emp_xstrdup(path);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST) {
			emp_errorf("%s: %s", p, strerror(errno));
			rc = -1;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

