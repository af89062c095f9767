/*
 * Unit tests for preload/respath.c: the module scan's paths are the ones
 * realpath(3) gives, through linked directories, chains of links, relative
 * names and "..", with each directory resolved once.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "respath.h"

static char root[PATH_MAX];

static void mk(const char *rel, const char *kind, const char *target)
{
	char p[PATH_MAX + 64];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (strcmp(kind, "dir") == 0) {
		cr_assert_eq(mkdir(p, 0700), 0, "mkdir %s: %s", p, strerror(errno));
	} else if (strcmp(kind, "file") == 0) {
		f = fopen(p, "w");
		cr_assert(f, "%s: %s", p, strerror(errno));
		fclose(f);
	} else {
		cr_assert_eq(symlink(target, p), 0, "symlink %s: %s", p, strerror(errno));
	}
}

/* usr/lib/x.so.1.2, lib -> usr/lib, lib64 -> usr/lib, x.so.1 -> x.so.1.2, ... */
static void setup(void)
{
	char tmpl[] = "/tmp/pp-respath-XXXXXX";

	cr_assert(mkdtemp(tmpl));
	cr_assert(realpath(tmpl, root));
	mk("usr", "dir", NULL);
	mk("usr/lib", "dir", NULL);
	mk("usr/lib/sub", "dir", NULL);
	mk("usr/lib/x.so.1.2", "file", NULL);
	mk("usr/lib/sub/y.so", "file", NULL);
	mk("lib", "link", "usr/lib");
	mk("lib64", "link", "usr/lib");
	mk("usr/lib/x.so.1", "link", "x.so.1.2");
	mk("usr/lib/x.so", "link", "sub/../x.so.1");
	mk("usr/lib/abs.so", "link", "/nonexistent-pp-respath/z.so");
	mk("usr/lib/dangling.so", "link", "missing.so");
	mk("usr/lib/loop1", "link", "loop2");
	mk("usr/lib/loop2", "link", "loop1");
	mk("usr/lib/y.so", "link", "../lib/sub/y.so");
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(respath, .init = setup, .fini = teardown, .timeout = 30);

/* name relative to root, or absolute when it starts with '/'. */
static void expect_as_realpath(struct pp_respath *rp, const char *name)
{
	char full[PATH_MAX * 2], want[PATH_MAX], got[PATH_MAX];
	char *w;
	int want_err, r, got_err;

	if (name[0] == '/')
		snprintf(full, sizeof(full), "%s", name);
	else
		snprintf(full, sizeof(full), "%s/%s", root, name);
	w = realpath(full, want);
	want_err = errno;
	errno = 0;
	r = pp_respath_resolve(rp, full, got);
	got_err = errno;
	if (!w) {
		cr_expect_eq(r, -1, "%s: realpath fails (%s), resolved as %s",
			     full, strerror(want_err), r == 0 ? got : "?");
		cr_expect_eq(got_err, want_err, "%s: %s, realpath says %s", full,
			     strerror(got_err), strerror(want_err));
		return;
	}
	cr_expect_eq(r, 0, "%s: %s, realpath gives %s", full, strerror(got_err), want);
	if (r == 0)
		cr_expect_str_eq(got, want, "%s", full);
}

Test(respath, gives_what_realpath_gives)
{
	static const char *const names[] = {
		"usr/lib/x.so.1.2", "lib/x.so.1.2", "lib64/x.so.1",
		"lib/x.so", "lib/sub/../x.so", "lib/./x.so.1", "lib//x.so.1",
		"lib/y.so", "usr/lib/sub/y.so", "lib",
		"lib/missing.so", "lib/dangling.so", "lib/abs.so", "lib/loop1",
		"lib/x.so.1.2/z", "nodir/x.so", "lib/sub/", "lib/..",
	};
	struct pp_respath rp = { .n = 0 };

	/* Twice: the second round is answered from the resolved directories. */
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			expect_as_realpath(&rp, names[i]);
	expect_as_realpath(&rp, "/");
	expect_as_realpath(&rp, "/usr");
	pp_respath_release(&rp);
	cr_expect_eq(rp.n, 0);
}

Test(respath, relative_names_are_taken_from_the_current_directory)
{
	struct pp_respath rp = { .n = 0 };
	char got[PATH_MAX], want[PATH_MAX * 2];

	cr_assert_eq(chdir(root), 0);
	cr_assert_eq(pp_respath_resolve(&rp, "lib/x.so", got), 0, "%s", strerror(errno));
	snprintf(want, sizeof(want), "%s/usr/lib/x.so.1.2", root);
	cr_expect_str_eq(got, want);
	cr_assert_eq(chdir("usr/lib"), 0);
	cr_assert_eq(pp_respath_resolve(&rp, "x.so.1", got), 0, "%s", strerror(errno));
	cr_expect_str_eq(got, want);
	cr_expect_eq(pp_respath_resolve(&rp, "", got), -1);
	pp_respath_release(&rp);
}

/* More distinct directories than the resolver keeps: still right. */
Test(respath, many_directories)
{
	struct pp_respath rp = { .n = 0 };
	char name[64], target[16];

	for (int i = 0; i < 3 * PP_RESPATH_DIRS; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		mk(name, "dir", NULL);
		snprintf(name, sizeof(name), "d%d/f", i);
		mk(name, "file", NULL);
		snprintf(name, sizeof(name), "l%d", i);
		snprintf(target, sizeof(target), "d%d", i);
		mk(name, "link", target);
	}
	for (int i = 0; i < 3 * PP_RESPATH_DIRS; i++) {
		snprintf(name, sizeof(name), "l%d/f", i);
		expect_as_realpath(&rp, name);
		snprintf(name, sizeof(name), "d%d/../l%d/f", i, (i + 1) % 10);
		expect_as_realpath(&rp, name);
	}
	pp_respath_release(&rp);
}
