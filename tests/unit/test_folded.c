/* SPDX-License-Identifier: MIT */
/* test_folded.c - folded paths: exact lines, escaping, the outermost frames only, names cached per symbol. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cct.h"
#include "folded.h"
#include "symtab.h"

static struct emp_symtab *st;
static struct emp_cct *cct;
static struct emp_folded_names *names;

static void setup(void)
{
	st = emp_symtab_new();
	cct = emp_cct_new();
}

static void teardown(void)
{
	emp_folded_names_free(names);
	names = NULL;
	emp_cct_free(cct);
	emp_symtab_free(st);
}

/* The node for the path of @n symbols @gids under the root. */
static struct emp_cct_node *path(const uint32_t *gids, size_t n)
{
	struct emp_cct_node *node = emp_cct_root(cct);
	for (size_t i = 0; i < n; i++)
		node = emp_cct_child(cct, node, gids[i]);
	return node;
}

static void expect_line(const struct emp_cct_node *n, uint32_t max, const char *want)
{
	size_t len = 12345;
	const char *got = emp_folded_path(names, n, max, &len);
	cr_expect_str_eq(got, want);
	cr_expect_eq(len, strlen(want));
}

Test(folded, java_names_with_and_without_descriptors, .init = setup, .fini = teardown)
{
	uint32_t g[] = { emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "app.Main", "main", "([Ljava/lang/String;)V"),
			 emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "app.Svc", "get", "(Ljava/lang/String;I)J") };
	struct emp_cct_node *leaf = path(g, 2);
	names = emp_folded_names_new(st, 0);
	expect_line(leaf, 64, "app.Main.main;app.Svc.get");
	expect_line(leaf->parent, 64, "app.Main.main");
	emp_folded_names_free(names);
	names = emp_folded_names_new(st, 1); /* ';' inside a descriptor becomes ':' */
	expect_line(leaf, 64, "app.Main.main([Ljava/lang/String:)V;app.Svc.get(Ljava/lang/String:I)J");
}

Test(folded, control_characters_and_empty_names, .init = setup, .fini = teardown)
{
	uint32_t g[] = { emp_symtab_intern(st, EMP_FRAME_PSEUDO, 0, "", "a;b\tc\nd\x7f" "e", NULL),
			 emp_symtab_intern(st, EMP_FRAME_PSEUDO, 0, "", "", NULL),
			 emp_symtab_intern(st, EMP_FRAME_PSEUDO, 0, "", "caf\xc3\xa9 x", NULL) };
	names = emp_folded_names_new(st, 0);
	/* control characters become '?', an empty name "[empty]"; bytes of UTF-8 and spaces stay */
	expect_line(path(g, 3), 64, "a:b?c?d?e;[empty];caf\xc3\xa9 x");
}

Test(folded, deep_paths_keep_the_outermost_frames, .init = setup, .fini = teardown)
{
	uint32_t g[3];
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "m%d", i);
		g[i] = emp_symtab_intern(st, EMP_FRAME_PSEUDO, 0, "", name, NULL);
	}
	uint32_t gids[300]; /* 300 frames: m0;m1;m2;m0;... */
	for (int i = 0; i < 300; i++)
		gids[i] = g[i % 3];
	struct emp_cct_node *deep = path(gids, 300);
	names = emp_folded_names_new(st, 0);
	expect_line(deep, 4, "m0;m1;m2;m0");
	expect_line(deep, 1, "m0");
	expect_line(deep, 0, "");
	size_t len;
	const char *line = emp_folded_path(names, deep, UINT32_MAX, &len);
	cr_expect_eq(len, 300 * 3 - 1); /* every frame: "mK" and 299 separators */
	cr_expect_eq(strncmp(line + len - 5, "m1;m2", 5), 0);
	expect_line(emp_cct_root(cct), 64, ""); /* the root has no frame */
}
