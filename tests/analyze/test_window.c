/*
 * Unit tests for analyze/window.c: the edges of --from/--to, measured
 * from the process's start.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "window.h"

/* A process started at 1 s (monotonic). */
#define WN_START 1000000000ull

Test(window, off_holds_every_sample)
{
	const struct pa_window w = { .on = false, .from_ns = 5, .to_ns = 6 };

	cr_expect(pa_window_holds(&w, WN_START, 0));
	cr_expect(pa_window_holds(&w, WN_START, WN_START + 100));
	cr_expect(pa_window_holds(&w, WN_START, UINT64_MAX));
}

/* --from 1ms --to 3ms: from 1 ms after the start (included) to 3 ms (excluded). */
Test(window, from_is_included_and_to_excluded)
{
	const struct pa_window w = { .on = true, .from_ns = 1000000, .to_ns = 3000000 };

	cr_expect_not(pa_window_holds(&w, WN_START, WN_START + 999999));
	cr_expect(pa_window_holds(&w, WN_START, WN_START + 1000000));
	cr_expect(pa_window_holds(&w, WN_START, WN_START + 2999999));
	cr_expect_not(pa_window_holds(&w, WN_START, WN_START + 3000000));
}

/* A sample stamped before its process started (clock skew) counts as taken at the start. */
Test(window, sample_before_the_start_is_at_the_start)
{
	const struct pa_window from0 = { .on = true, .from_ns = 0, .to_ns = 1000 };
	const struct pa_window from1 = { .on = true, .from_ns = 1, .to_ns = 1000 };

	cr_expect(pa_window_holds(&from0, WN_START, WN_START - 500));
	cr_expect(pa_window_holds(&from0, WN_START, 0));
	cr_expect_not(pa_window_holds(&from1, WN_START, WN_START - 500));
}

/* --from alone: to_ns UINT64_MAX has no end. */
Test(window, no_end_holds_the_last_sample)
{
	const struct pa_window w = { .on = true, .from_ns = 2000, .to_ns = UINT64_MAX };

	cr_expect_not(pa_window_holds(&w, WN_START, WN_START + 1999));
	cr_expect(pa_window_holds(&w, WN_START, UINT64_MAX - 1));
	cr_expect(pa_window_holds(&w, 0, UINT64_MAX - 1));
}

/* An empty window (--from equal to --to) holds nothing. */
Test(window, empty_window_holds_nothing)
{
	const struct pa_window w = { .on = true, .from_ns = 1000, .to_ns = 1000 };

	cr_expect_not(pa_window_holds(&w, WN_START, WN_START + 999));
	cr_expect_not(pa_window_holds(&w, WN_START, WN_START + 1000));
}
