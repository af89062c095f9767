/*
 * Unit tests for preload/sigsafe/fd.c: the profiler's descriptors go high
 * and close-on-exec, and are known as ours until the program reuses their
 * numbers; a tag goes with one until it is closed. Each test runs in its
 * own process, so the registry and the limits start afresh.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sigsafe/fd.h"

/* A new descriptor of /dev/null, low as the program's would be. */
static int fd_low(void)
{
	int fd = open("/dev/null", O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_lt(fd, PP_FD_MIN);
	return fd;
}

Test(fd, moves_high_close_on_exec_and_ours)
{
	int low = fd_low(), high = pp_fd_move_high_sigsafe(low);

	cr_expect_geq(high, PP_FD_MIN);
	cr_expect(fcntl(high, F_GETFD) & FD_CLOEXEC);
	cr_expect_eq(fcntl(low, F_GETFD), -1, "the low number is the program's again");
	cr_expect_eq(errno, EBADF);
	cr_expect(pp_fd_ours_sigsafe(high));
	cr_expect_not(pp_fd_ours_sigsafe(low));
	pp_fd_close_sigsafe(high);
	cr_expect_eq(fcntl(high, F_GETFD), -1, "closed");
	cr_expect_not(pp_fd_ours_sigsafe(high));
}

/* Without room above PP_FD_MIN (RLIMIT_NOFILE) the descriptor stays where it is, ours. */
Test(fd, stays_low_under_a_small_limit)
{
	struct rlimit rl = { .rlim_cur = 64, .rlim_max = 64 };
	int low, kept;

	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	low = fd_low();
	kept = pp_fd_move_high_sigsafe(low);
	cr_expect_eq(kept, low);
	cr_expect(pp_fd_ours_sigsafe(kept));
	cr_expect_geq(fcntl(kept, F_GETFD), 0, "still open");
}

/* A number the program freed with a raw close and reused names its file: not ours. */
Test(fd, reused_number_is_the_programs)
{
	int high = pp_fd_move_high_sigsafe(fd_low());
	int other;

	cr_assert_eq(close(high), 0);
	other = open("/proc/self/exe", O_RDONLY);
	cr_assert_geq(other, 0);
	cr_assert_eq(dup2(other, high), high);
	close(other);
	cr_expect_not(pp_fd_ours_sigsafe(high));
	cr_expect_eq(pp_fd_next_ours_sigsafe(0, PP_FD_REG_MAX - 1), -1);
	cr_expect_geq(fcntl(high, F_GETFD), 0, "the program's file is left open");
}

Test(fd, next_ours_in_a_range)
{
	int a = pp_fd_move_high_sigsafe(fd_low()), b = pp_fd_move_high_sigsafe(fd_low());

	cr_assert_lt(a, b);
	cr_expect_eq(pp_fd_next_ours_sigsafe(0, PP_FD_REG_MAX - 1), a);
	cr_expect_eq(pp_fd_next_ours_sigsafe((unsigned)a + 1, PP_FD_REG_MAX - 1), b);
	cr_expect_eq(pp_fd_next_ours_sigsafe(0, (unsigned)a - 1), -1);
	pp_fd_close_sigsafe(a);
	cr_expect_eq(pp_fd_next_ours_sigsafe(0, PP_FD_REG_MAX - 1), b);
	pp_fd_close_sigsafe(b);
	cr_expect_eq(pp_fd_next_ours_sigsafe(0, PP_FD_REG_MAX - 1), -1);
}

/* The signal mode's events: a tag and its data from the kernel's fd, until closed. */
Test(fd, tag_goes_with_the_descriptor_until_closed)
{
	int fd = pp_fd_move_high_sigsafe(fd_low()), ring;
	void *data = NULL;

	cr_expect_eq(pp_fd_tag_of_sigsafe(fd, &data), 0, "no tag yet");
	pp_fd_tag_sigsafe(fd, 3, &ring);
	cr_expect_eq(pp_fd_tag_of_sigsafe(fd, &data), 3);
	cr_expect_eq(data, &ring);
	cr_expect_eq(pp_fd_tag_of_sigsafe(fd, NULL), 3);
	pp_fd_close_sigsafe(fd);
	cr_expect_eq(pp_fd_tag_of_sigsafe(fd, &data), 0);
	pp_fd_tag_sigsafe(fd, 5, &ring); /* not registered: nothing */
	cr_expect_eq(pp_fd_tag_of_sigsafe(fd, &data), 0);
	cr_expect_eq(pp_fd_tag_of_sigsafe(PP_FD_REG_MAX + 1, &data), 0, "out of range");
}

/* Registering again (a number reused by ourselves) starts without the old tag. */
Test(fd, owning_again_drops_the_tag)
{
	int fd = pp_fd_move_high_sigsafe(fd_low()), ring;

	pp_fd_tag_sigsafe(fd, 2, &ring);
	pp_fd_own_sigsafe(fd);
	cr_expect_eq(pp_fd_tag_of_sigsafe(fd, NULL), 0);
	cr_expect(pp_fd_ours_sigsafe(fd));
}
