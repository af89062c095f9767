/*
 * Integration: the output root is opened safely (README, "Who may own the
 * output directory"). A symbolic link another user planted at the root or on
 * the way to it is not followed, an existing root another user owns or can
 * write into is refused, and the default ./pprof-data in a sticky
 * world-writable directory (as /tmp) gets the same checks: each refusal is
 * one `libpprof:` line, nothing is written there, and the program's output
 * and exit status are those of a run without the profiler. A fork child and
 * an exec'd program check the root again. The user's own links are
 * followed.
 *
 * The other user is uid 65534 (nobody): planting its files takes chown, so
 * these tests need root (CI runs as root) and skip, saying so, without it.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"
#include "tst_log.h"

#define IT_ROOT_OTHER 65534
#define IT_ROOT_ENV_MAX (TST_PATH_MAX + 32)

static struct tst_it it_root;

/* What the profiled program does: output on both streams and a status. */
static const char *const it_root_argv[] = {
	"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL
};

static void it_root_init(void)
{
	tst_init(&it_root);
}

static void it_root_fini(void)
{
	tst_release(&it_root);
}

TestSuite(it_outroot, .init = it_root_init, .fini = it_root_fini, .timeout = 60);

static void it_root_need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: it makes files owned by another user (uid %d) "
			     "with chown", IT_ROOT_OTHER);
}

/* snprintf that must not truncate. */
__attribute__((format(printf, 3, 4)))
static void it_root_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	cr_assert(n >= 0 && (size_t)n < size, "too long: %s", fmt);
}

/* tmp/rel into path (TST_PATH_MAX bytes). */
static void it_root_path(char *path, const char *rel)
{
	it_root_fmt(path, TST_PATH_MAX, "%s/%s", it_root.tmp, rel);
}

/* Makes directory path, owned by uid, with mode. */
static void it_root_mkdir(const char *path, uid_t uid, mode_t mode)
{
	cr_assert_eq(mkdir(path, 0700), 0, "mkdir %s: %s", path, strerror(errno));
	cr_assert_eq(chown(path, uid, uid), 0, "chown %s: %s", path, strerror(errno));
	cr_assert_eq(chmod(path, mode), 0, "chmod %s: %s", path, strerror(errno));
}

/* Makes path a symbolic link to target, owned by uid. */
static void it_root_symlink(const char *target, const char *path, uid_t uid)
{
	cr_assert_eq(symlink(target, path), 0, "symlink %s: %s", path, strerror(errno));
	cr_assert_eq(lchown(path, uid, uid), 0, "lchown %s: %s", path, strerror(errno));
}

/*
 * Entries of directory path besides . and .. (-1: it cannot be read); with
 * processes_only, its processes only: their logs (<exe>@<host>.<pid>.log,
 * not their threads' <...>.thread-<tid>.log nor <...>.wall.log beside them),
 * and directories, beside the run's shared files (the vDSO's image...).
 */
static int it_root_count(const char *path, bool processes_only)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		bool log = e->d_type == DT_REG && len > 4 && !strcmp(e->d_name + len - 4, ".log") &&
			   !strstr(e->d_name, ".thread-") &&
			   !(len > 9 && !strcmp(e->d_name + len - 9, ".wall.log"));

		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		     (!processes_only || e->d_type == DT_DIR || log);
	}
	closedir(d);
	return n;
}

static int it_root_entries(const char *path)
{
	return it_root_count(path, false);
}

/* The processes in root: their directories, or their logs alone. */
static int it_root_dirs(const char *root)
{
	return it_root_count(root, true);
}

/* "NAME=value" into env (IT_ROOT_ENV_MAX bytes). */
static void it_root_env(char *env, const char *name, const char *value)
{
	it_root_fmt(env, IT_ROOT_ENV_MAX, "%s=%s", name, value);
}

/* text without its lines that start with "libpprof: " (malloc'd). */
static char *it_root_without_ours(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	cr_assert(out);
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");

		len += p[len] == '\n';
		if (strncmp(p, "libpprof: ", 10) != 0) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return out;
}

/*
 * Runs the script under the preload with PPROF_OUTPUT=output, and expects
 * it refused: one `libpprof:` line naming output and saying reason, and
 * otherwise the output and status of plain (the script unprofiled).
 */
static void it_root_expect_refused(const char *tag, const char *output,
				   const char *reason, const struct tst_result *plain)
{
	char env_out[IT_ROOT_ENV_MAX], head[IT_ROOT_ENV_MAX];
	const char *env[] = { it_root.env_preload, env_out, NULL };
	struct tst_result r;
	const char *line;
	char *rest;

	it_root_env(env_out, "PPROF_OUTPUT", output);
	tst_run(&it_root, tag, it_root_argv, env, &r);
	it_root_fmt(head, sizeof(head), "libpprof: refusing output directory %s: ", output);
	line = tst_find_line(r.err, head);
	cr_expect_not_null(line, "%s: no line \"%s...\"; stderr: %s", tag, head, r.err);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 1, "%s: stderr: %s", tag, r.err);
	if (line)
		cr_expect(strstr(line, reason) && strstr(line, reason) < strchr(line, '\n'),
			  "%s: the line does not say \"%s\": %s", tag, reason, line);
	cr_expect_eq(r.status, plain->status, "%s: status 0x%x, unprofiled 0x%x", tag,
		     r.status, plain->status);
	cr_expect_str_eq(r.out, plain->out, "%s: stdout differs", tag);
	rest = it_root_without_ours(r.err);
	cr_expect_str_eq(rest, plain->err, "%s: stderr differs: %s", tag, r.err);
	free(rest);
	tst_result_release(&r);
}

/* Expects a run profiled into root: no `libpprof:` line, one process directory. */
static void it_root_expect_profiled(const char *tag, const struct tst_result *r,
				    const char *root, uid_t uid)
{
	struct stat st;

	cr_expect_eq(tst_count_lines(r->err, "libpprof: "), 0, "%s: stderr: %s", tag,
		     r->err);
	cr_assert_eq(stat(root, &st), 0, "%s: no %s: %s", tag, root, strerror(errno));
	cr_expect_eq(st.st_uid, uid, "%s: %s is owned by uid %u", tag, root,
		     (unsigned)st.st_uid);
	/* A setgid directory above passes its bit on (and its group, without rights). */
	cr_expect_eq(st.st_mode & 0777, 0700, "%s: %s has mode %04o", tag, root,
		     (unsigned)(st.st_mode & 07777));
	cr_expect_eq(it_root_dirs(root), 1, "%s: %s should hold the process's directory",
		     tag, root);
}

/* A link another user planted where the root should be (as /tmp/pprof-data). */
Test(it_outroot, planted_link_at_the_root_is_not_followed)
{
	char pub[TST_PATH_MAX], target[TST_PATH_MAX], out[TST_PATH_MAX + 16];
	char reason[TST_PATH_MAX * 2];
	struct tst_result plain;

	it_root_need_root();
	it_root_path(pub, "pub");
	it_root_path(target, "target");
	it_root_mkdir(pub, 0, 01777);     /* a /tmp */
	it_root_mkdir(target, 0, 0700);   /* an /etc/cron.d */
	it_root_fmt(out, sizeof(out), "%s/pprof-data", pub);
	it_root_symlink(target, out, IT_ROOT_OTHER);
	tst_run(&it_root, "plain", it_root_argv, NULL, &plain);
	it_root_fmt(reason, sizeof(reason), "the symbolic link %s is owned by uid %d, "
		 "not by you (uid 0) or root", out, IT_ROOT_OTHER);
	it_root_expect_refused("link", out, reason, &plain);
	cr_expect_eq(it_root_entries(target), 0, "something was written through the link");
	tst_result_release(&plain);
}

/* A link another user planted in a directory on the way to the root. */
Test(it_outroot, planted_link_on_the_way_is_not_followed)
{
	char pub[TST_PATH_MAX], target[TST_PATH_MAX], link[TST_PATH_MAX + 16];
	char out[TST_PATH_MAX + 32], reason[TST_PATH_MAX * 2];
	struct tst_result plain;

	it_root_need_root();
	it_root_path(pub, "pub");
	it_root_path(target, "target");
	it_root_mkdir(pub, 0, 01777);
	it_root_mkdir(target, 0, 0700);
	it_root_fmt(link, sizeof(link), "%s/proj", pub);
	it_root_fmt(out, sizeof(out), "%s/profiles", link);
	it_root_symlink(target, link, IT_ROOT_OTHER);
	tst_run(&it_root, "plain", it_root_argv, NULL, &plain);
	it_root_fmt(reason, sizeof(reason), "the symbolic link %s is owned by uid %d", link,
		 IT_ROOT_OTHER);
	it_root_expect_refused("link", out, reason, &plain);
	cr_expect_eq(it_root_entries(target), 0, "something was made through the link");
	tst_result_release(&plain);
}

/*
 * The user's own link, on the way and at the root, is followed. (Not a
 * regression test: the profiler always followed links; it checks that the
 * rule does not refuse what is legitimate.)
 */
Test(it_outroot, own_links_are_followed)
{
	char target[TST_PATH_MAX], mine[TST_PATH_MAX], made[TST_PATH_MAX + 16];
	char out[TST_PATH_MAX + 16], env_out[IT_ROOT_ENV_MAX], at[TST_PATH_MAX];
	const char *env[] = { it_root.env_preload, env_out, NULL };
	struct tst_result plain, r;

	it_root_path(target, "target");
	it_root_path(mine, "mine");
	it_root_path(at, "at");
	cr_assert_eq(mkdir(target, 0700), 0);
	cr_assert_eq(symlink(target, mine), 0);
	tst_run(&it_root, "plain", it_root_argv, NULL, &plain);
	/* On the way: made through the link. */
	it_root_fmt(out, sizeof(out), "%s/out", mine);
	it_root_env(env_out, "PPROF_OUTPUT", out);
	tst_run(&it_root, "via", it_root_argv, env, &r);
	cr_expect_eq(r.status, plain.status);
	cr_expect_str_eq(r.out, plain.out);
	it_root_fmt(made, sizeof(made), "%s/out", target);
	it_root_expect_profiled("via", &r, made, geteuid());
	tst_result_release(&r);
	/* At the root: a relative link to a root of one's own. */
	cr_assert_eq(symlink("target/out", at), 0);
	it_root_env(env_out, "PPROF_OUTPUT", at);
	tst_run(&it_root, "at", it_root_argv, env, &r);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 0, "stderr: %s", r.err);
	cr_expect_eq(it_root_dirs(made), 2, "a second process directory in %s", made);
	tst_result_release(&r);
	tst_result_release(&plain);
}

/* Makes directory path, owned by uid and group gid, with mode. */
static void it_root_mkdir_group(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	it_root_mkdir(path, uid, mode);
	cr_assert_eq(chown(path, uid, gid), 0, "chown %s: %s", path, strerror(errno));
	cr_assert_eq(chmod(path, mode), 0, "chmod %s: %s", path, strerror(errno));
}

struct it_root_case {
	int other;       /* owned by IT_ROOT_OTHER, else by us */
	int other_group; /* group IT_ROOT_OTHER, else ours */
	unsigned mode;
};

ParameterizedTestParameters(it_outroot, root_others_can_change_is_refused)
{
	static struct it_root_case cases[] = {
		{ 1, 1, 0755 }, { 1, 1, 0777 }, { 1, 1, 01777 }, { 1, 0, 0700 },
		{ 0, 0, 0777 }, { 0, 0, 0757 }, { 0, 1, 0770 },
	};

	return cr_make_param_array(struct it_root_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

/*
 * An existing root owned by another user (whatever its mode), or one of
 * ours writable by every user or by a group not ours, without the sticky
 * bit.
 */
ParameterizedTest(struct it_root_case *c, it_outroot, root_others_can_change_is_refused)
{
	char root[TST_PATH_MAX], reason[128];
	struct tst_result plain;

	it_root_need_root();
	it_root_path(root, "root");
	it_root_mkdir_group(root, c->other ? IT_ROOT_OTHER : 0,
			    c->other_group ? IT_ROOT_OTHER : 0, c->mode);
	if (c->other)
		it_root_fmt(reason, sizeof(reason), "it is owned by uid %d, not by you "
			    "(uid 0)", IT_ROOT_OTHER);
	else if (c->mode & 02)
		it_root_fmt(reason, sizeof(reason), "it is writable by every user "
			    "(mode %04o) and not sticky", c->mode);
	else
		it_root_fmt(reason, sizeof(reason), "it is writable by group %d, not "
			    "yours (gid 0), and not sticky (mode %04o)", IT_ROOT_OTHER,
			    c->mode);
	tst_run(&it_root, "plain", it_root_argv, NULL, &plain);
	it_root_expect_refused("root", root, reason, &plain);
	cr_expect_eq(it_root_entries(root), 0, "something was written into %s (mode %04o)",
		     root, c->mode);
	tst_result_release(&plain);
}

/*
 * A root of ours that others cannot change is used: group-writable for our
 * own group (user private groups, umask 002), or sticky. (A control: the
 * profiler always wrote there.)
 */
Test(it_outroot, own_root_others_cannot_change_is_used)
{
	static const struct { int other_group; unsigned mode; } cases[] = {
		{ 0, 0775 }, { 1, 01770 }, { 0, 01777 },
	};
	char root[TST_PATH_MAX], env_out[IT_ROOT_ENV_MAX];
	const char *env[] = { it_root.env_preload, env_out, NULL };
	struct tst_result r;

	it_root_need_root();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rel[32];

		it_root_fmt(rel, sizeof(rel), "root%zu", i);
		it_root_path(root, rel);
		it_root_mkdir_group(root, 0, cases[i].other_group ? IT_ROOT_OTHER : 0,
				    cases[i].mode);
		it_root_env(env_out, "PPROF_OUTPUT", root);
		tst_run(&it_root, rel, it_root_argv, env, &r);
		cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 0, "mode %04o: %s",
			     cases[i].mode, r.err);
		cr_expect_eq(it_root_dirs(root), 1, "mode %04o: no process directory "
			     "in %s", cases[i].mode, root);
		tst_result_release(&r);
	}
}

/*
 * A missing root is made 0700 and ours even where another user can change
 * the directory above it (theirs, or one their group can write): what they
 * then put in its place is not ours, and the next process refuses it.
 */
Test(it_outroot, root_made_where_others_can_change_it_stays_ours)
{
	static const struct { const char *rel; int other, other_group; unsigned mode; }
	cases[] = {
		{ "theirs", 1, 1, 0755 },
		{ "shared", 0, 1, 02770 },
	};
	char dir[TST_PATH_MAX], out[TST_PATH_MAX + 16], env_out[IT_ROOT_ENV_MAX],
		reason[128];
	const char *env[] = { it_root.env_preload, env_out, NULL };
	struct tst_result plain, r;

	it_root_need_root();
	tst_run(&it_root, "plain", it_root_argv, NULL, &plain);
	it_root_fmt(reason, sizeof(reason), "it is owned by uid %d, not by you (uid 0)",
		    IT_ROOT_OTHER);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		it_root_path(dir, cases[i].rel);
		it_root_mkdir_group(dir, cases[i].other ? IT_ROOT_OTHER : 0,
				    cases[i].other_group ? IT_ROOT_OTHER : 0, cases[i].mode);
		it_root_fmt(out, sizeof(out), "%s/out", dir);
		it_root_env(env_out, "PPROF_OUTPUT", out);
		tst_run(&it_root, cases[i].rel, it_root_argv, env, &r);
		it_root_expect_profiled(cases[i].rel, &r, out, 0);
		tst_result_release(&r);
		/* The other user swaps it for a directory of theirs. */
		it_root_fmt(env_out, sizeof(env_out), "%s/mine", dir);
		cr_assert_eq(rename(out, env_out), 0, "rename: %s", strerror(errno));
		it_root_mkdir(out, IT_ROOT_OTHER, 0700);
		it_root_expect_refused(cases[i].rel, out, reason, &plain);
		cr_expect_eq(it_root_entries(out), 0, "something was written into %s", out);
	}
	tst_result_release(&plain);
}

/*
 * The script started in dir with the default output (./pprof-data): env(1)
 * changes directory and sets LD_PRELOAD, so that nothing runs profiled
 * elsewhere.
 */
static void it_root_run_in(const char *tag, const char *dir, struct tst_result *r)
{
	const char *argv[] = { "/usr/bin/env", "-C", dir, it_root.env_preload,
			       it_root_argv[0], it_root_argv[1], it_root_argv[2], NULL };

	tst_run(&it_root, tag, argv, NULL, r);
}

/*
 * ./pprof-data in a sticky world-writable directory (as /tmp): made when
 * absent; refused when another user made it first, or put a link there.
 */
Test(it_outroot, default_root_in_a_sticky_directory)
{
	char pub[TST_PATH_MAX], root[TST_PATH_MAX + 16], target[TST_PATH_MAX];
	char head[TST_PATH_MAX + 64];
	struct tst_result plain, r;

	it_root_need_root();
	it_root_path(pub, "pub");
	it_root_path(target, "target");
	it_root_mkdir(pub, 0, 01777);
	it_root_mkdir(target, 0, 0700);
	it_root_fmt(root, sizeof(root), "%s/pprof-data", pub);
	tst_run(&it_root, "plain", it_root_argv, NULL, &plain);

	it_root_run_in("absent", pub, &r);
	cr_expect_eq(r.status, plain.status);
	cr_expect_str_eq(r.out, plain.out);
	it_root_expect_profiled("absent", &r, root, 0);
	tst_result_release(&r);
	tst_log_rmdir(strdup(root));

	it_root_fmt(head, sizeof(head), "libpprof: refusing output directory %s: it is owned "
		 "by uid %d", root, IT_ROOT_OTHER);
	it_root_mkdir(root, IT_ROOT_OTHER, 0777);
	it_root_run_in("theirs", pub, &r);
	cr_expect_eq(r.status, plain.status);
	cr_expect_str_eq(r.out, plain.out);
	cr_expect_not_null(tst_find_line(r.err, head), "no line \"%s\"; stderr: %s",
			   head, r.err);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 1, "stderr: %s", r.err);
	cr_expect_eq(it_root_entries(root), 0, "something was written into their %s", root);
	tst_result_release(&r);
	cr_assert_eq(rmdir(root), 0);

	it_root_fmt(head, sizeof(head), "libpprof: refusing output directory %s: the "
		 "symbolic link %s is owned by uid %d", root, root, IT_ROOT_OTHER);
	it_root_symlink(target, root, IT_ROOT_OTHER);
	it_root_run_in("link", pub, &r);
	cr_expect_eq(r.status, plain.status);
	cr_expect_str_eq(r.out, plain.out);
	cr_expect_not_null(tst_find_line(r.err, head), "no line \"%s\"; stderr: %s",
			   head, r.err);
	cr_expect_eq(it_root_entries(target), 0, "something was written through the link");
	tst_result_release(&r);
	tst_result_release(&plain);
}

/*
 * The root is swapped for another user's link while a profiled shell runs
 * (by the test, while the shell waits on a FIFO): the shell's fork child,
 * whose root's path no longer names its parent's root, keeps writing into
 * the parent's (moved, still the profiler's: nothing follows the link);
 * the program it then execs opens the root again from its path, refuses
 * it, and says so once. Nothing is written through the link.
 */
Test(it_outroot, fork_and_exec_children_check_the_root_again)
{
	char target[TST_PATH_MAX], fifo[TST_PATH_MAX], old[TST_PATH_MAX + 8];
	char cmd[TST_PATH_MAX * 2], head[TST_PATH_MAX * 2 + 64];
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	const char *env[] = { it_root.env_preload, it_root.env_output, NULL };
	struct tst_result r;
	FILE *go;
	pid_t pid;

	it_root_need_root();
	it_root_path(target, "target");
	it_root_path(fifo, "go");
	it_root_mkdir(target, 0, 0700);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	it_root_fmt(old, sizeof(old), "%s.old", it_root.data);
	/* read and the redirection are the shell's own: no process meanwhile. */
	it_root_fmt(cmd, sizeof(cmd), "echo before; read x < '%s'; (echo child); "
		 "exec /bin/echo after", fifo);
	pid = tst_spawn(&it_root, "swap", argv, env);
	/* Opens once the shell, its root made, reads. */
	go = fopen(fifo, "w");
	cr_assert_not_null(go, "%s: %s", fifo, strerror(errno));
	cr_assert_eq(rename(it_root.data, old), 0, "%s: %s", it_root.data, strerror(errno));
	it_root_symlink(target, it_root.data, IT_ROOT_OTHER);
	fputs("go\n", go);
	fclose(go);
	tst_wait(&it_root, "swap", pid, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s",
		  r.status, r.err);
	cr_expect_str_eq(r.out, "before\nchild\nafter\n");
	it_root_fmt(head, sizeof(head), "libpprof: refusing output directory %s: the "
		 "symbolic link %s is owned by uid %d", it_root.data, it_root.data,
		 IT_ROOT_OTHER);
	/* echo (an exec'd program); the subshell (a fork child) kept its parent's root. */
	cr_expect_eq(tst_count_lines(r.err, head), 1, "stderr: %s", r.err);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 1, "stderr: %s", r.err);
	cr_expect_eq(it_root_entries(target), 0, "something was written through the link");
	cr_expect_eq(it_root_dirs(old), 2, "the shell's and its subshell's logs are not in %s",
		     old);
	tst_result_release(&r);
}

/* With strict = yes a refused root stops the program, as README says. */
Test(it_outroot, refused_root_with_strict_stops_the_program)
{
	char root[TST_PATH_MAX], env_out[IT_ROOT_ENV_MAX];
	char env_cfg[TST_CONFIG_ENV_MAX], head[TST_PATH_MAX + 64];
	const char *env[] = { it_root.env_preload, env_out, env_cfg, NULL };
	struct tst_result r;

	it_root_need_root();
	it_root_path(root, "root");
	it_root_mkdir(root, IT_ROOT_OTHER, 0755);
	it_root_env(env_out, "PPROF_OUTPUT", root);
	tst_config_env(&it_root, "strict.ini", "[profile]\nstrict = yes\n", env_cfg);
	tst_run(&it_root, "strict", it_root_argv, env, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1, "status 0x%x: %s",
		  r.status, r.err);
	cr_expect_str_eq(r.out, "", "the program ran");
	it_root_fmt(head, sizeof(head), "libpprof: refusing output directory %s: ", root);
	cr_expect_not_null(tst_find_line(r.err, head), "stderr: %s", r.err);
	cr_expect(strstr(r.err, "strict = yes"), "stderr: %s", r.err);
	/* It stops: no line says it runs unprofiled. */
	cr_expect_null(strstr(r.err, "runs unprofiled"), "stderr: %s", r.err);
	cr_expect_eq(it_root_entries(root), 0);
	tst_result_release(&r);
}

/*
 * An unprivileged user (uid 65534, by setpriv) is refused a world-writable
 * directory root made (it could not write into it before either, had it
 * not been world-writable), and makes its own root, owned by it, 0700.
 */
Test(it_outroot, unprivileged_user_is_refused_a_directory_it_does_not_own)
{
	char pub[TST_PATH_MAX], shared[TST_PATH_MAX + 16], own[TST_PATH_MAX + 16];
	char env_out[IT_ROOT_ENV_MAX], head[TST_PATH_MAX + 64], lib[TST_PATH_MAX];
	char uid[32];
	const char *argv[] = { "/usr/bin/setpriv", uid, "--regid=65534", "--clear-groups",
			       "/usr/bin/env", it_root.env_preload, env_out, it_root_argv[0],
			       it_root_argv[1], it_root_argv[2], NULL };
	const char *check[] = { "/usr/bin/setpriv", uid, "--regid=65534", "--clear-groups",
				"/usr/bin/test", "-r", lib, NULL };
	struct tst_result plain, r;

	it_root_need_root();
	it_root_fmt(uid, sizeof(uid), "--reuid=%d", IT_ROOT_OTHER);
	tst_build_path(lib, "libpprof.so");
	tst_run(&it_root, "check", check, NULL, &r);
	if (r.status != 0)
		cr_skip_test("uid %d cannot read %s (a directory on the way is not "
			     "searchable by others)", IT_ROOT_OTHER, lib);
	tst_result_release(&r);
	cr_assert_eq(chmod(it_root.tmp, 0755), 0);
	it_root_path(pub, "pub");
	it_root_mkdir(pub, 0, 01777);
	it_root_fmt(shared, sizeof(shared), "%s/shared", pub);
	it_root_fmt(own, sizeof(own), "%s/own", pub);
	it_root_mkdir(shared, 0, 0777);
	tst_run(&it_root, "plain", it_root_argv, NULL, &plain);

	it_root_env(env_out, "PPROF_OUTPUT", shared);
	tst_run(&it_root, "shared", argv, NULL, &r);
	cr_expect_eq(r.status, plain.status, "status 0x%x: %s", r.status, r.err);
	cr_expect_str_eq(r.out, plain.out);
	it_root_fmt(head, sizeof(head), "libpprof: refusing output directory %s: it is owned "
		 "by uid 0, not by you (uid %d)", shared, IT_ROOT_OTHER);
	cr_expect_not_null(tst_find_line(r.err, head), "no line \"%s\"; stderr: %s",
			   head, r.err);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 1, "stderr: %s", r.err);
	cr_expect_eq(it_root_entries(shared), 0, "something was written into %s", shared);
	tst_result_release(&r);

	it_root_env(env_out, "PPROF_OUTPUT", own);
	tst_run(&it_root, "own", argv, NULL, &r);
	cr_expect_eq(r.status, plain.status, "status 0x%x: %s", r.status, r.err);
	cr_expect_str_eq(r.out, plain.out);
	it_root_expect_profiled("own", &r, own, IT_ROOT_OTHER);
	tst_result_release(&r);
	tst_result_release(&plain);
}
