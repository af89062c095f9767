/*
 * Unit tests for preload/sigsafe/unwmask.c: inside the window, the mask
 * calls libunwind makes change a view and reach the kernel only to block
 * what the kernel's mask lets through; the kernel's mask after the window
 * is the one before it. Each test runs in its own process (the handler's
 * sa_mask starts unknown) and sets the kernel's mask with raw system calls.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sigsafe/unwmask.h"

/* The kernel's mask of the calling thread, signals 1..64 as bits sig - 1. */
static uint64_t um_kernel(void)
{
	uint64_t bits = 0;

	cr_assert_eq(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &bits, sizeof(bits)), 0);
	return bits;
}

static void um_set_kernel(uint64_t bits)
{
	cr_assert_eq(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &bits, NULL, sizeof(bits)), 0);
}

static uint64_t um_bit(int sig)
{
	return 1ull << (sig - 1);
}

/* The signals 1..64 of set, as bits. */
static uint64_t um_bits(const sigset_t *set)
{
	uint64_t bits = 0;

	for (int sig = 1; sig <= 64; sig++)
		if (sigismember(set, sig) == 1)
			bits |= um_bit(sig);
	return bits;
}

static sigset_t um_set(uint64_t bits)
{
	sigset_t set;

	sigemptyset(&set);
	for (int sig = 1; sig <= 64; sig++)
		if (bits & um_bit(sig))
			sigaddset(&set, sig);
	return set;
}

#define UM_ALL (~0ull & ~(um_bit(SIGKILL) | um_bit(SIGSTOP)))

/*
 * libunwind's pattern in the handler (every signal blocked by sa_mask):
 * block all, then set the old mask back, many times. No system call, the
 * kernel's mask never changes, and old is the mask the handler runs with.
 */
Test(unwmask, handler_pattern_makes_no_system_call)
{
	sigset_t all, none, interrupted = um_set(um_bit(SIGUSR1)), old;

	memset(&all, 0xff, sizeof(all));
	sigfillset(&none); /* glibc's: its internal signals left out, as libunwind's */
	um_set_kernel(UM_ALL);
	pp_unwmask_handler_mask_sigsafe(&all);
	pp_unwmask_enter_sigsafe(&interrupted, SIGTRAP);
	cr_assert(pp_unwmask_active_sigsafe());
	for (int i = 0; i < 100; i++) {
		cr_assert_eq(pp_unwmask_change_sigsafe(SIG_SETMASK, &none, &old), 0);
		cr_assert_eq(um_bits(&old), UM_ALL, "old is the handler's mask");
		cr_assert_eq(pp_unwmask_change_sigsafe(SIG_SETMASK, &old, NULL), 0);
	}
	pp_unwmask_leave_sigsafe();
	cr_expect_not(pp_unwmask_active_sigsafe());
	cr_expect_eq(pp_unwmask_syscalls_sigsafe(), 0);
	cr_expect_eq(um_kernel(), UM_ALL);
}

/*
 * The view follows every how; unblocking leaves the kernel's mask as it
 * is (the handler's); the view given back is what was set before.
 */
Test(unwmask, view_follows_each_how)
{
	sigset_t all, set, old, empty = um_set(0);

	memset(&all, 0xff, sizeof(all));
	um_set_kernel(UM_ALL);
	pp_unwmask_handler_mask_sigsafe(&all);
	pp_unwmask_enter_sigsafe(&empty, SIGPROF);
	set = um_set(um_bit(SIGUSR1) | um_bit(SIGUSR2));
	cr_assert_eq(pp_unwmask_change_sigsafe(SIG_SETMASK, &set, NULL), 0);
	set = um_set(um_bit(SIGUSR1));
	cr_assert_eq(pp_unwmask_change_sigsafe(SIG_UNBLOCK, &set, &old), 0);
	cr_expect_eq(um_bits(&old), um_bit(SIGUSR1) | um_bit(SIGUSR2));
	set = um_set(um_bit(SIGHUP));
	cr_assert_eq(pp_unwmask_change_sigsafe(SIG_BLOCK, &set, &old), 0);
	cr_expect_eq(um_bits(&old), um_bit(SIGUSR2));
	cr_assert_eq(pp_unwmask_change_sigsafe(SIG_BLOCK, NULL, &old), 0);
	cr_expect_eq(um_bits(&old), um_bit(SIGUSR2) | um_bit(SIGHUP));
	cr_expect_eq(pp_unwmask_change_sigsafe(42, &set, &old), EINVAL);
	cr_expect_eq(um_kernel(), UM_ALL, "nothing unblocked inside the window");
	pp_unwmask_leave_sigsafe();
	cr_expect_eq(pp_unwmask_syscalls_sigsafe(), 0);
}

/*
 * A handler whose sa_mask lets signals through (not ours, but the code
 * must hold for it): blocking one of those reaches the kernel, and the
 * kernel's mask is put back when the window ends.
 */
Test(unwmask, block_beyond_the_kernel_is_real_and_undone)
{
	sigset_t none = um_set(0), interrupted = um_set(um_bit(SIGHUP)), set, old;
	uint64_t before = um_bit(SIGHUP) | um_bit(SIGTRAP);

	um_set_kernel(before);
	pp_unwmask_handler_mask_sigsafe(&none);
	pp_unwmask_enter_sigsafe(&interrupted, SIGTRAP);
	set = um_set(um_bit(SIGUSR1));
	cr_assert_eq(pp_unwmask_change_sigsafe(SIG_BLOCK, &set, &old), 0);
	cr_expect_eq(um_bits(&old), before);
	cr_expect_eq(um_kernel(), before | um_bit(SIGUSR1), "SIGUSR1 blocked for real");
	cr_assert_eq(pp_unwmask_change_sigsafe(SIG_SETMASK, &old, NULL), 0);
	cr_expect_eq(um_kernel(), before | um_bit(SIGUSR1), "kept blocked in the window");
	pp_unwmask_leave_sigsafe();
	cr_expect_eq(um_kernel(), before, "the mask from before the window");
	cr_expect_eq(pp_unwmask_syscalls_sigsafe(), 2);
}

/* With the handler's sa_mask unknown, the first call reads the kernel's mask, once. */
Test(unwmask, unknown_handler_mask_reads_the_kernel_once)
{
	sigset_t empty = um_set(0), set, old;
	uint64_t before = um_bit(SIGUSR2) | um_bit(SIGTRAP);

	um_set_kernel(before);
	pp_unwmask_enter_sigsafe(&empty, SIGTRAP);
	set = um_set(um_bit(SIGUSR2));
	for (int i = 0; i < 10; i++) {
		cr_assert_eq(pp_unwmask_change_sigsafe(SIG_BLOCK, &set, &old), 0);
		cr_assert_eq(um_bits(&old), before);
		cr_assert_eq(pp_unwmask_change_sigsafe(SIG_SETMASK, &old, NULL), 0);
	}
	pp_unwmask_leave_sigsafe();
	cr_expect_eq(pp_unwmask_syscalls_sigsafe(), 1);
	cr_expect_eq(um_kernel(), before);
}
