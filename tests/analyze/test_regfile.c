/*
 * Unit tests for analyze/regfile.c: a regular file opens (non-blocking,
 * close-on-exec); a FIFO, directory, socket, device or (with O_NOFOLLOW)
 * symbolic link is refused by name without blocking; a missing file says
 * why.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "regfile.h"
#include "tst_log.h"

TestSuite(regfile, .init = tst_log_dir_setup, .fini = tst_log_dir_teardown, .timeout = 10);

/* tst_log_dir/name into path (4096 bytes). */
static void rf_path(char *path, const char *name)
{
	snprintf(path, 4096, "%s/%s", tst_log_dir, name);
}

/* Writes text to the regular file path. */
static void rf_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

Test(regfile, opens_a_regular_file_nonblocking_and_cloexec)
{
	char path[4096], buf[16] = "";
	struct pa_error err = { 0 };
	struct stat st;
	int fd;

	rf_path(path, "log");
	rf_write(path, "hello");
	fd = pa_regfile_open(path, O_NOFOLLOW, &st, &err);
	cr_assert_geq(fd, 0, "%s", err.reason);
	cr_expect(S_ISREG(st.st_mode));
	cr_expect_eq(st.st_size, 5);
	cr_expect(fcntl(fd, F_GETFL) & O_NONBLOCK);
	cr_expect(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	cr_expect_eq(read(fd, buf, sizeof(buf) - 1), 5);
	cr_expect_str_eq(buf, "hello");
	cr_expect_str_eq(err.reason, "", "nothing to say about a regular file");
	close(fd);
}

/* Without O_NOFOLLOW a link to a regular file opens that file (a module's path). */
Test(regfile, follows_a_link_unless_told_not_to)
{
	char path[4096], link[4096];
	struct pa_error err = { 0 };
	int fd;

	rf_path(path, "target");
	rf_path(link, "link");
	rf_write(path, "");
	cr_assert_eq(symlink(path, link), 0);
	fd = pa_regfile_open(link, 0, NULL, NULL);
	cr_expect_geq(fd, 0);
	close(fd);
	cr_expect_eq(pa_regfile_open(link, O_NOFOLLOW, NULL, &err), PA_REGFILE_NOT_REGULAR);
	cr_expect_str_eq(err.reason, "is a symbolic link, not a regular file");
}

Test(regfile, missing_file_cannot_be_opened)
{
	char path[4096];
	struct pa_error err = { 0 };

	rf_path(path, "absent");
	cr_expect_eq(pa_regfile_open(path, 0, NULL, &err), -ENOENT);
	cr_expect_str_eq(err.path, path);
	cr_expect_str_eq(err.reason, "cannot open: No such file or directory");
	cr_expect_not(err.has_offset);
}

/* What no writer makes: kind for tst_log_odd_file, its file type, what err says. */
struct rf_case {
	char kind[16];
	mode_t type;
	char reason[48];
};

static struct rf_case rf_cases[] = {
	{ "fifo", S_IFIFO, "is a FIFO, not a regular file" },
	{ "directory", S_IFDIR, "is a directory, not a regular file" },
	{ "socket", S_IFSOCK, "is a socket, not a regular file" },
	{ "symlink", S_IFLNK, "is a symbolic link, not a regular file" },
	{ "device", S_IFCHR, "is a character device, not a regular file" },
};

ParameterizedTestParameters(regfile, refuses_what_is_not_a_regular_file)
{
	return cr_make_param_array(struct rf_case, rf_cases, sizeof(rf_cases) / sizeof(rf_cases[0]));
}

/* A FIFO without a writer would block open() for good: the suite's timeout says so. */
ParameterizedTest(struct rf_case *c, regfile, refuses_what_is_not_a_regular_file)
{
	char path[4096];
	struct pa_error err = { 0 };
	struct stat st;

	rf_path(path, c->kind);
	if (!tst_log_odd_file(path, c->kind))
		cr_skip_test("cannot make a %s here (mknod needs CAP_MKNOD)", c->kind);
	cr_expect_eq(pa_regfile_open(path, O_NOFOLLOW, &st, &err), PA_REGFILE_NOT_REGULAR,
		     "%s", c->kind);
	cr_expect_eq(st.st_mode & S_IFMT, c->type, "%s: mode 0%o", c->kind, st.st_mode);
	cr_expect_str_eq(err.path, path);
	cr_expect_str_eq(err.reason, c->reason);
	/* without err and st too */
	cr_expect_eq(pa_regfile_open(path, O_NOFOLLOW, NULL, NULL), PA_REGFILE_NOT_REGULAR);
}

Test(regfile, names_every_kind_of_file)
{
	cr_expect_str_eq(pa_regfile_kind(S_IFREG | 0644), "a regular file");
	cr_expect_str_eq(pa_regfile_kind(S_IFBLK | 0600), "a block device");
	cr_expect_str_eq(pa_regfile_kind(S_IFCHR), "a character device");
	cr_expect_str_eq(pa_regfile_kind(0), "of an unknown kind");
}
