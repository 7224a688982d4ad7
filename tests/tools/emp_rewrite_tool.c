/* SPDX-License-Identifier: MIT */
/* emp_rewrite_tool - run the rewriter offline, selecting every method (test helper).
 *
 * usage: emp_rewrite_tool [-b FIRST_ID] [-g] [-m MAPFILE] [-q] IN OUT
 *   IN, OUT: a class file and the file to write, or two directories (every *.class below IN is
 *   rewritten to the same relative path below OUT; classes with nothing instrumented are copied).
 *   -b: first probe id (default 0; ids are handed out in order, one per selected method).
 *   -g: the guarded shape (rewriter.h, struct emp_probes) calling emp/Guard instead of emp/Probe.
 *   -m: write one line per id: "<id> <class>.<method><descriptor>" (class in binary form).
 *   -q: no statistics on stdout.
 * Exit status: 0 when every class was parsed (skipped methods are fine), 1 on class failures,
 * 2 on usage or I/O errors.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rewriter.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int32_t next_id;
static FILE *map;
static struct emp_rewrite_stats stats;
static const char *in_root, *out_root;
static int failures, io_errors;
static const struct emp_probes *probes; /* NULL: the default shape */

static int32_t select_all(void *ctx, const char *klass, const char *method, const char *desc, uint16_t acc)
{
	(void)ctx;
	(void)acc;
	int32_t id = next_id++;
	if (map) {
		fprintf(map, "%d ", id);
		for (const char *p = klass; *p; p++)
			fputc(*p == '/' ? '.' : *p, map);
		fprintf(map, ".%s%s\n", method, desc);
	}
	return id;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *b = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(b, cap);
			if (!nb) {
				free(b);
				fclose(f);
				return NULL;
			}
			b = nb;
		}
		size_t r = fread(b + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	*len = n;
	return b;
}

static int mkdirs(const char *path)
{
	char *p = strdup(path);
	if (!p)
		return -1;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0777) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	return 0;
}

static int one(const char *in, const char *out)
{
	size_t len;
	uint8_t *b = slurp(in, &len);
	if (!b) {
		fprintf(stderr, "emp_rewrite_tool: cannot read %s\n", in);
		io_errors++;
		return 0;
	}
	uint8_t *o = NULL;
	size_t olen = 0;
	int r = emp_rewrite_class(b, len, select_all, NULL, probes, &o, &olen, &stats);
	if (r < 0) {
		fprintf(stderr, "emp_rewrite_tool: %s: %s\n", in, emp_rewrite_reason_str(r));
		failures++;
	}
	FILE *f = NULL;
	if (mkdirs(out) == 0)
		f = fopen(out, "wb");
	if (!f || fwrite(o ? o : b, 1, o ? olen : len, f) != (o ? olen : len)) {
		fprintf(stderr, "emp_rewrite_tool: cannot write %s\n", out);
		io_errors++;
	}
	if (f)
		fclose(f);
	free(o);
	free(b);
	return 0;
}

static int walk(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t n = strlen(path);
	if (type != FTW_F || n < 6 || strcmp(path + n - 6, ".class") != 0)
		return 0;
	char *out;
	if (asprintf(&out, "%s%s", out_root, path + strlen(in_root)) < 0)
		return -1;
	one(path, out);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	int opt, quiet = 0;
	static const struct emp_probes guarded = { .klass = "emp/Guard", .guarded = 1 };
	while ((opt = getopt(argc, argv, "b:gm:q")) != -1) {
		switch (opt) {
		case 'g':
			probes = &guarded;
			break;
		case 'b':
			next_id = (int32_t)strtol(optarg, NULL, 0);
			break;
		case 'm':
			map = fopen(optarg, "w");
			if (!map) {
				perror(optarg);
				return 2;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-b FIRST_ID] [-g] [-m MAPFILE] [-q] IN OUT\n", argv[0]);
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: %s [-b FIRST_ID] [-g] [-m MAPFILE] [-q] IN OUT\n", argv[0]);
		return 2;
	}
	in_root = argv[optind];
	out_root = argv[optind + 1];
	struct stat st;
	if (stat(in_root, &st)) {
		perror(in_root);
		return 2;
	}
	if (S_ISDIR(st.st_mode)) {
		if (nftw(in_root, walk, 32, FTW_PHYS)) {
			perror("nftw");
			return 2;
		}
	} else {
		one(in_root, out_root);
	}
	if (map)
		fclose(map);
	if (!quiet) {
		printf("classes seen %llu rewritten %llu, methods instrumented %llu\n",
		       (unsigned long long)stats.classes_seen, (unsigned long long)stats.classes_rewritten,
		       (unsigned long long)stats.methods_instrumented);
		for (int k = 1; k < EMP_REWRITE_NREASONS; k++) {
			if (stats.methods_skipped[k])
				printf("  methods skipped: %-60s %llu\n", emp_rewrite_reason_str(k),
				       (unsigned long long)stats.methods_skipped[k]);
			if (stats.classes_failed[k])
				printf("  classes failed:  %-60s %llu\n", emp_rewrite_reason_str(k),
				       (unsigned long long)stats.classes_failed[k]);
		}
	}
	return io_errors ? 2 : failures ? 1 : 0;
}
