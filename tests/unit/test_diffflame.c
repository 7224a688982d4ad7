/* SPDX-License-Identifier: MIT */
/* test_diffflame.c - the differential flame graph of `compare --flame` (analyzer/render/diffflame.h) on an
 * iteration set built here with per-VM values whose verdicts are decided by construction, and through the CLI on
 * timing files.  The expected colours are worked out by hand from the formula in diffflame.h. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "compare.h"
#include "diffflame.h"
#include "iterations.h"

/* The tree and each node's value in every base and new VM (plus the VM's jitter, the same in both versions):
 *   I 8000 -> 8000   unchanged (A's +500 and D's -1000 offset by I's own time)
 *   +- A 4000 -> 4500  slower, ratio 1.125, B below it changed
 *   |  +- B 2000 -> 2500  slower, ratio 1.25, root cause
 *   |  +- C 1000 -> 1000  unchanged; a long name, elided in its frame
 *   |  +- F   10 ->   10  under --min-pct 1 % of I: not tested
 *   +- D 3000 -> 2000  faster, ratio 2/3, E below it changed
 *      +- E 2000 -> 1000  faster, ratio 0.5, root cause */
enum { I, A, B, C, F, D, E, NNODES };
static const char *const names[NNODES] = { "iter", "a", "b", "cWithAVeryLongNameThatDoesNotFitItsFrame", "f", "d",
					   "e" };
static const int parent[NNODES] = { -1, I, A, A, A, I, D };
static const double base[NNODES] = { 8000, 4000, 2000, 1000, 10, 3000, 2000 };
static const double new_[NNODES] = { 8000, 4500, 2500, 1000, 10, 2000, 1000 };
static const double jitter[4] = { -15, -5, 5, 15 };

static struct emp_iter_set *build(void)
{
	static const struct emp_iter_opts io = { 0 };
	struct emp_iter_set *s = emp_iter_new(&io);
	struct emp_cct_node *node[NNODES];
	for (int i = 0; i < NNODES; i++) {
		uint32_t gid = emp_symtab_intern(s->st, EMP_FRAME_JAVA, 0, "t.W", names[i], "()V");
		node[i] = emp_cct_child(s->cct, parent[i] < 0 ? emp_cct_root(s->cct) : node[parent[i]], gid);
	}
	s->mode = EMP_ITER_MODE_TRACE;
	s->iter_gid = node[I]->gid;
	s->nvms = 8;
	s->vms = calloc(s->nvms, sizeof(*s->vms));
	uint32_t nn = emp_cct_size(s->cct);
	for (size_t v = 0; v < s->nvms; v++) {
		struct emp_iter_vm *vm = &s->vms[v];
		vm->path = strdup("constructed");
		vm->group = v >= 4;
		vm->iterations = 10;
		vm->nnodes = nn;
		vm->mean = calloc(nn, sizeof(double));
		vm->var = calloc(nn, sizeof(double));
		for (int i = 0; i < NNODES; i++)
			vm->mean[node[i]->id] = (vm->group ? new_ : base)[i] + jitter[v % 4];
	}
	return s;
}

static const struct emp_compare_opts opts = { .test = EMP_STATS_WELCH, .alpha = 0.01, .resamples = 200, .seed = 1,
					      .min_pct = 1, .vm_cost = 1 };

/* The whole <g>...</g> of the frame whose tooltip starts with @title (malloc'ed), NULL when there is none. */
static char *frame_of(const char *svg, const char *title)
{
	char key[128];
	snprintf(key, sizeof(key), "<title>%s (", title);
	const char *t = strstr(svg, key);
	if (!t)
		return NULL;
	const char *g = t;
	while (g > svg && strncmp(g, "<g ", 3))
		g--;
	const char *end = strstr(t, "</g>");
	return end ? strndup(g, (size_t)(end + 4 - g)) : NULL;
}

/* Frame @name: its fill, outlined or not, and the start of its tooltip after the name. */
static void expect_frame(const char *svg, const char *name, const char *fill, int outlined, const char *tip)
{
	char title[96];
	snprintf(title, sizeof(title), "t.W.%s", name);
	char *g = frame_of(svg, title);
	cr_assert(g, "no frame %s", title);
	char want[64];
	snprintf(want, sizeof(want), "fill=\"%s\"", fill);
	cr_expect(strstr(g, want), "%s: want %s in %s", name, want, g);
	cr_expect_eq(strstr(g, "stroke-width: 2") != NULL, outlined, "%s: outline %d expected in %s", name, outlined, g);
	char tipkey[256];
	snprintf(tipkey, sizeof(tipkey), "<title>%s (%s", title, tip);
	cr_expect(strstr(g, tipkey), "%s: want %s in %s", name, tipkey, g);
	free(g);
}

/* @path as a string (malloc'ed). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert(f, "%s", path);
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&buf, &cap, 0, f);
	cr_assert_gt(n, 0);
	fclose(f);
	return buf;
}

/* The SVG parses as XML (python3's xml.etree) and renders (rsvg-convert, when installed) to @w x @h pixels. */
static void expect_parses_and_renders(const char *svg, unsigned w, unsigned h)
{
	char cmd[512];
	if (system("command -v python3 >/dev/null") == 0) {
		snprintf(cmd, sizeof(cmd), "python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' %s",
			 svg);
		cr_expect_eq(system(cmd), 0, "%s does not parse", svg);
	} else {
		cr_log_warn("python3 absent: the XML check of %s is skipped", svg);
	}
	if (system("command -v rsvg-convert >/dev/null") != 0) {
		cr_log_warn("rsvg-convert (Debian: librsvg2-bin) absent: the rendering check of %s is skipped", svg);
		return;
	}
	char png[256];
	snprintf(png, sizeof(png), "%s.png", svg);
	snprintf(cmd, sizeof(cmd), "rsvg-convert -o %s %s", png, svg);
	cr_assert_eq(system(cmd), 0, "%s does not render", svg);
	unsigned char hdr[24];
	FILE *f = fopen(png, "rb");
	cr_assert(f);
	cr_assert_eq(fread(hdr, 1, sizeof(hdr), f), sizeof(hdr));
	fclose(f);
	unlink(png);
	/* PNG: 8-byte signature, IHDR length and type, then width and height big-endian */
	cr_expect_eq(memcmp(hdr + 12, "IHDR", 4), 0);
	unsigned pw = (unsigned)hdr[16] << 24 | (unsigned)hdr[17] << 16 | (unsigned)hdr[18] << 8 | hdr[19];
	unsigned ph = (unsigned)hdr[20] << 24 | (unsigned)hdr[21] << 16 | (unsigned)hdr[22] << 8 | hdr[23];
	cr_expect_eq(pw, w, "width %u", pw);
	cr_expect_eq(ph, h, "height %u", ph);
}

Test(diffflame, frames_coloured_by_verdict_causes_outlined)
{
	struct emp_iter_set *s = build();
	struct emp_compare c;
	emp_compare_run(s, &opts, &c);
	cr_assert_eq(c.nrows, 6); /* F is under --min-pct */
	cr_assert_eq(c.nchanged, 4);
	cr_assert_eq(c.ncause, 2);
	char path[] = "/tmp/emp-diffflame-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *out = fdopen(fd, "w");
	cr_assert_eq(emp_diffflame_write(out, s, &c, &opts, "ns"), 0);
	cr_assert_eq(fclose(out), 0);
	char *svg = slurp(path);

	/* t = 0.3 + 0.7 min(1, |log2 r|), c = round(215 (1 - t)):
	 *   r 1.25: t 0.52535, c 102;  r 1.125: t 0.41895, c 125;  r 2/3: t 0.70947, c 62;  r 0.5: t 1, c 0;
	 *   blue's green (c + 255) / 2: 158 and 127 */
	expect_frame(svg, "b", "rgb(255,102,102)", 1, "slower, root cause, ratio 1.250 [95% CI ");
	expect_frame(svg, "a", "rgb(255,125,125)", 0, "slower, ratio 1.125 [95% CI ");
	expect_frame(svg, "e", "rgb(0,127,255)", 1, "faster, root cause, ratio 0.500 [95% CI ");
	expect_frame(svg, "d", "rgb(62,158,255)", 0, "faster, ratio 0.667 [95% CI ");
	expect_frame(svg, "iter", "rgb(200,200,200)", 0, "unchanged, ratio 1.000 [95% CI 0.9");
	expect_frame(svg, names[C], "rgb(200,200,200)", 0, "unchanged, ratio 1.000");
	expect_frame(svg, "f", "rgb(235,235,235)", 0, "not tested: under --min-pct 1 % of the iteration)");
	cr_expect(strstr(svg, "p 1, base 8000 ns, new 8000 ns)</title>"), "I's p and means");
	/* C is 1/8 of the 1180 px: 147.5 px, (147.5 - 6) / 7.25: 19 characters, 17 of the name and ".." */
	cr_expect(strstr(svg, ">t.W.cWithAVeryLon..</text>"));
	/* every frame drawn once: 7 frames and the frames group */
	size_t ng = 0;
	for (const char *p = svg; (p = strstr(p, "<g")); p++)
		ng++;
	cr_expect_eq(ng, 8);
	cr_expect(strstr(svg, ">new vs base: 4 changed, 2 root causes (alpha 0.01)</text>"));
	/* I, at the root's full width; depth 3 deepest: 40 + 24 + 4 * 16 px high */
	cr_expect(strstr(svg, "data-x=\"0.000000000\" data-w=\"1.000000000\" data-d=\"1\"><title>t.W.iter ("));
	expect_parses_and_renders(path, 1200, 128);
	free(svg);
	unlink(path);
	emp_compare_free(&c);
	emp_iter_free(s);
}

/* Through the CLI on timing files (pure mode: one node, the iteration): 4 base VMs around 1000 ns, 4 new ones
 * around 2000; a file that cannot be written is an error. */
Test(diffflame, cli_flame_option)
{
	char dir[] = "/tmp/emp-diffflame-cli-XXXXXX";
	cr_assert(mkdtemp(dir));
	char path[256];
	for (unsigned g = 0; g < 2; g++) {
		snprintf(path, sizeof(path), "%s/%s", dir, g ? "new" : "base");
		cr_assert_eq(mkdir(path, 0700), 0);
		for (int vm = 0; vm < 4; vm++) {
			snprintf(path, sizeof(path), "%s/%s/vm%d.csv", dir, g ? "new" : "base", vm);
			FILE *f = fopen(path, "w");
			cr_assert(f);
			fprintf(f, "iteration,duration_ns\n0,%d\n1,%d\n", 997 + 10 * vm + 1000 * (int)g,
				1003 + 10 * vm + 1000 * (int)g);
			cr_assert_eq(fclose(f), 0);
		}
	}
	char b[256], n[256], fl[256];
	snprintf(b, sizeof(b), "--base=%s/base", dir);
	snprintf(n, sizeof(n), "--new=%s/new", dir);
	snprintf(fl, sizeof(fl), "--flame=%s/diff.svg", dir);
	cr_redirect_stdout();
	cr_redirect_stderr();
	char *argv[] = { "compare", b, n, "--test=welch", fl, NULL };
	optind = 0;
	cr_assert_eq(emp_cmd_compare(5, argv), 0);
	snprintf(path, sizeof(path), "%s/diff.svg", dir);
	char *svg = slurp(path);
	/* ratio 2015/1015 = 1.98522: t 0.99251, c round(1.61) = 2 */
	cr_expect(strstr(svg, "<title>iteration (slower, root cause, ratio 1.985 [95% CI "), "%s", svg);
	cr_expect(strstr(svg, "fill=\"rgb(255,2,2)\" rx=\"2\" style=\"stroke: rgb(0,0,0); stroke-width: 2\"/>"));
	expect_parses_and_renders(path, 1200, 96);
	free(svg);
	unlink(path);

	char bad[300];
	snprintf(bad, sizeof(bad), "--flame=%s/no/such/dir/diff.svg", dir);
	char *argv2[] = { "compare", b, n, "--test=welch", bad, NULL };
	optind = 0;
	cr_expect_eq(emp_cmd_compare(5, argv2), 1);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	cr_assert_eq(system(cmd), 0);
}
