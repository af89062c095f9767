/*
 * Unit tests for preload/outdir.c, the output root's rule (README, "Where
 * the logs go"), in a temporary directory: missing directories are made
 * 0700, your own links followed; a root or a link someone else owns or can
 * write into is refused with the component at fault named. Tests that
 * need another owner chown to nobody, which takes root: elsewhere they
 * skip, saying so.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outdir.h"
#include "tst_it.h"
#include "tst_log.h"

TestSuite(outdir, .init = tst_log_dir_setup, .fini = tst_log_dir_teardown, .timeout = 10);

/* tst_log_dir/rel into path (TST_PATH_MAX bytes). */
static void od_path(char *path, const char *rel)
{
	snprintf(path, TST_PATH_MAX, "%s/%s", tst_log_dir, rel);
}

/* tst_log_dir/rel, made with mode (chmod'ed: no umask). */
static void od_mkdir(const char *rel, mode_t mode)
{
	char path[TST_PATH_MAX];

	od_path(path, rel);
	cr_assert_eq(mkdir(path, 0700), 0, "mkdir %s: %s", path, strerror(errno));
	cr_assert_eq(chmod(path, mode), 0);
}

/* Opens tst_log_dir/rel as the output root, expecting success; returns its descriptor. */
static int od_open(const char *rel)
{
	char path[TST_PATH_MAX], why[PP_OUTDIR_WHY_MAX];
	int fd;

	od_path(path, rel);
	fd = pp_outdir_open(path, why);
	cr_assert_geq(fd, 0, "%s: %s (%s)", path, strerror(-fd), why);
	cr_expect_str_eq(why, "");
	return fd;
}

/*
 * Opens tst_log_dir/rel expecting a refusal whose reason, TST_DIR standing
 * for tst_log_dir, is fmt formatted.
 */
__attribute__((format(printf, 2, 3)))
static void od_expect_refusal(const char *rel, const char *fmt, ...)
{
	char path[TST_PATH_MAX], why[PP_OUTDIR_WHY_MAX], want[PP_OUTDIR_WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	od_path(path, rel);
	cr_assert_eq(pp_outdir_open(path, why), -EPERM, "%s: %s", path, why);
	cr_expect_str_eq(tst_log_replace(why, tst_log_dir, "TST_DIR"), want);
}

/* tst_log_dir/rel, a symbolic link to tst_log_dir/target. */
static void od_link(const char *rel, const char *target)
{
	char from[TST_PATH_MAX], to[TST_PATH_MAX];

	od_path(from, rel);
	od_path(to, target);
	cr_assert_eq(symlink(to, from), 0, "symlink %s: %s", from, strerror(errno));
}

/* Gives tst_log_dir/rel (a link itself, not where it leads) to user and group nobody. */
static void od_give(const char *rel)
{
	char path[TST_PATH_MAX];

	if (geteuid() != 0)
		cr_skip_test("making a file another user owns takes root (chown)");
	od_path(path, rel);
	cr_assert_eq(lchown(path, TST_NOBODY, TST_NOBODY), 0, "%s: %s", path, strerror(errno));
}

Test(outdir, makes_missing_directories_yours_and_private)
{
	char path[TST_PATH_MAX];
	struct stat st, made;
	int fd = od_open("a/b/c");

	cr_expect(fcntl(fd, F_GETFL) & O_PATH);
	cr_expect(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	cr_assert_eq(fstat(fd, &st), 0);
	od_path(path, "a/b/c");
	cr_assert_eq(stat(path, &made), 0);
	cr_expect(st.st_ino == made.st_ino && st.st_dev == made.st_dev, "not the root asked for");
	cr_expect_eq(made.st_mode & 07777, 0700);
	cr_expect_eq(made.st_uid, geteuid());
	od_path(path, "a");
	cr_assert_eq(stat(path, &made), 0);
	cr_expect_eq(made.st_mode & 07777, 0700);
	close(fd);
	close(od_open("a/./b//c/"));
}

Test(outdir, relative_path_is_invalid)
{
	char why[PP_OUTDIR_WHY_MAX];

	cr_expect_eq(pp_outdir_open("pprof-data", why), -EINVAL);
}

/* Your own ~/scratch -> /scratch/me works, relative or absolute. */
Test(outdir, follows_your_own_links)
{
	char path[TST_PATH_MAX], link[TST_PATH_MAX];
	struct stat st, want;
	int fd;

	od_mkdir("real", 0700);
	od_link("abs", "real");
	od_path(link, "rel");
	cr_assert_eq(symlink("real", link), 0);
	od_path(path, "real");
	cr_assert_eq(stat(path, &want), 0);
	fd = od_open("abs");
	cr_assert_eq(fstat(fd, &st), 0);
	cr_expect_eq(st.st_ino, want.st_ino);
	close(fd);
	fd = od_open("rel/out");
	cr_assert_eq(fstat(fd, &st), 0);
	od_path(path, "real/out");
	cr_assert_eq(stat(path, &want), 0);
	cr_expect_eq(st.st_ino, want.st_ino, "made through the link");
	close(fd);
}

/* A link in a directory everyone can write into (not sticky) is someone's trap. */
Test(outdir, refuses_a_link_where_others_can_write)
{
	char path[TST_PATH_MAX];

	od_mkdir("real", 0700);
	od_mkdir("pub", 0777);
	od_link("pub/l", "real");
	od_expect_refusal("pub/l/out", "TST_DIR/pub (holding the symbolic link l) is writable "
			  "by every user (mode 0777) and not sticky");
	od_path(path, "pub");
	cr_assert_eq(chmod(path, 01777), 0);
	close(od_open("pub/l/out")); /* sticky, as /tmp is */
}

Test(outdir, refuses_a_root_others_can_write)
{
	od_mkdir("shared", 0777);
	od_expect_refusal("shared", "it is writable by every user (mode 0777) and not sticky");
	od_mkdir("sticky", 01777);
	close(od_open("sticky"));
}

/* Group write counts when the group is not yours (user private groups are). */
Test(outdir, refuses_a_root_another_group_can_write)
{
	char path[TST_PATH_MAX];

	od_mkdir("proj", 02770);
	close(od_open("proj"));
	od_give("proj");
	od_path(path, "proj");
	cr_assert_eq(chown(path, geteuid(), (gid_t)-1), 0, "back to you, the group stays");
	cr_assert_eq(chmod(path, 02770), 0); /* chown may drop setgid */
	od_expect_refusal("proj", "it is writable by group %u, not yours (gid %u), and not "
			  "sticky (mode 2770)", TST_NOBODY, (unsigned)getegid());
}

Test(outdir, refuses_a_root_another_user_owns)
{
	od_mkdir("theirs", 0755);
	od_give("theirs");
	od_expect_refusal("theirs", "it is owned by uid %u, not by you (uid %u)", TST_NOBODY,
			  (unsigned)geteuid());
}

Test(outdir, refuses_a_link_another_user_owns)
{
	od_mkdir("real", 0700);
	od_link("l", "real");
	od_give("l");
	od_expect_refusal("l/out", "the symbolic link TST_DIR/l is owned by uid %u, not by you "
			  "(uid %u) or root", TST_NOBODY, (unsigned)geteuid());
}

/* Your link to a root someone else owns: the root is refused, where it leads named. */
Test(outdir, refuses_where_your_link_leads)
{
	od_mkdir("theirs", 0755);
	od_give("theirs");
	od_link("mine", "theirs");
	od_expect_refusal("mine", "TST_DIR/theirs, where it leads, is owned by uid %u, not by "
			  "you (uid %u)", TST_NOBODY, (unsigned)geteuid());
}

/* Makes the process log under rootfd as the preload does (O_EXCL), mode 0600. */
static int od_create_log(int rootfd, const char *file)
{
	int fd = openat(rootfd, file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * EXE.PID (its log EXE.PID.log; no host given), then EXE.PID.1 when a process of the same
 * pid (an earlier run, an earlier image) took the log's name or made the
 * directory.
 */
Test(outdir, process_gets_a_fresh_name)
{
	int root = od_open("root");
	char name[64];
	struct stat st;

	cr_assert_eq(pp_outdir_make_process(root, "app", "", 42, name, sizeof(name),
					    od_create_log), 0);
	cr_expect_str_eq(name, "app.42");
	cr_assert_eq(fstatat(root, "app.42.log", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_expect(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600);
	cr_expect_neq(fstatat(root, "app.42", &st, AT_SYMLINK_NOFOLLOW), 0,
		      "the directory is made at the first thread log, not now");
	cr_assert_eq(pp_outdir_make_process(root, "app", "", 42, name, sizeof(name),
					    od_create_log), 0);
	cr_expect_str_eq(name, "app.42.1");
	/* A directory of that name (the process log moved into it) takes the name too. */
	cr_assert_eq(mkdirat(root, "app.42.2", 0700), 0);
	cr_assert_eq(pp_outdir_make_process(root, "app", "", 42, name, sizeof(name),
					    od_create_log), 0);
	cr_expect_str_eq(name, "app.42.3");
	cr_expect_eq(pp_outdir_make_process(root, "app", "", 42, name, 8, od_create_log),
		     -ENAMETOOLONG);
	close(root);
}

/*
 * Two hosts writing into one shared root with the same pid: each gets a
 * name of its own (EXE@HOST.PID), not EXE.PID and, by the timing, EXE.PID.1.
 */
Test(outdir, process_dir_names_the_host)
{
	int root = od_open("root");
	char name[64];

	cr_assert_eq(pp_outdir_make_process(root, "app", "node1", 6, name, sizeof(name),
					    od_create_log), 0);
	cr_expect_str_eq(name, "app@node1.6");
	cr_assert_eq(pp_outdir_make_process(root, "app", "node2", 6, name, sizeof(name),
					    od_create_log), 0);
	cr_expect_str_eq(name, "app@node2.6");
	cr_assert_eq(pp_outdir_make_process(root, "app", "node2", 6, name, sizeof(name),
					    od_create_log), 0);
	cr_expect_str_eq(name, "app@node2.6.1");
	cr_expect_eq(pp_outdir_process_name(name, 11, "app", "node2", 6, 0), -ENAMETOOLONG);
	close(root);
}
