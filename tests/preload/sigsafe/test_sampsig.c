/*
 * Unit tests for preload/sigsafe/sampsig.c: the sampling signal's one
 * number, and the set that holds it alone. Each test runs in its own
 * process, so the number starts at its default.
 */
#include <criterion/criterion.h>
#include <signal.h>

#include "sigsafe/sampsig.h"

/* The signals *set holds, 1 to 64, as a bit mask (bit sig - 1). */
static unsigned long long ss_members(const sigset_t *set)
{
	unsigned long long bits = 0;

	for (int sig = 1; sig <= 64; sig++)
		if (sigismember(set, sig) == 1)
			bits |= 1ull << (sig - 1);
	return bits;
}

Test(sampsig, sigtrap_until_set)
{
	sigset_t set;

	cr_expect_eq(pp_sampsig_number_sigsafe(), SIGTRAP);
	pp_sampsig_mask_sigsafe(&set);
	cr_expect_eq(ss_members(&set), 1ull << (SIGTRAP - 1));
}

/* The signal mode's choice (SIGPROF, a real-time signal) is the one number and the mask. */
Test(sampsig, set_signal_is_the_number_and_the_mask)
{
	sigset_t set;

	sigfillset(&set);
	pp_sampsig_set_sigsafe(SIGPROF);
	cr_expect_eq(pp_sampsig_number_sigsafe(), SIGPROF);
	pp_sampsig_mask_sigsafe(&set);
	cr_expect_eq(ss_members(&set), 1ull << (SIGPROF - 1), "SIGPROF alone, nothing left over");
	pp_sampsig_set_sigsafe(SIGRTMIN + 3);
	pp_sampsig_mask_sigsafe(&set);
	cr_expect_eq(ss_members(&set), 1ull << (SIGRTMIN + 3 - 1));
}
