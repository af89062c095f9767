/*
 * Unit tests for preload/strdist.c: edit distances and when one is close
 * enough for "did you mean ...?".
 */
#include <criterion/criterion.h>
#include <string.h>

#include "strdist.h"

Test(strdist, counts_insertions_deletions_and_substitutions)
{
	cr_expect_eq(pp_strdist("kitten", "sitting"), 3);
	cr_expect_eq(pp_strdist("", "abc"), 3);
	cr_expect_eq(pp_strdist("abc", ""), 3);
	cr_expect_eq(pp_strdist("", ""), 0);
	cr_expect_eq(pp_strdist("period", "period"), 0);
	cr_expect_eq(pp_strdist("perod", "period"), 1);
	cr_expect_eq(pp_strdist("periods", "period"), 1);
	/* a swap is two edits */
	cr_expect_eq(pp_strdist("cylces", "cycles"), 2);
	cr_expect_eq(pp_strdist("cycles", "cylces"), 2);
}

Test(strdist, ignores_case)
{
	cr_expect_eq(pp_strdist("CPU-Clock", "cpu-clock"), 0);
	cr_expect_eq(pp_strdist("Frequncy", "frequency"), 1);
}

/* Up to 63 bytes are measured; longer strings are far from everything. */
Test(strdist, long_strings_are_far)
{
	char a[65], b[65];

	memset(a, 'a', 63);
	a[63] = '\0';
	memcpy(b, a, sizeof(a));
	b[0] = 'b';
	cr_expect_eq(pp_strdist(a, b), 1);
	a[63] = 'a';
	a[64] = '\0';
	cr_expect_eq(pp_strdist(a, a), ~0u);
	cr_expect_eq(pp_strdist("a", a), ~0u);
	cr_expect_not(pp_strdist_close("a", pp_strdist(a, "a")));
}

/* 1 edit for words under 6 bytes, 2 under 12, 3 beyond; never 0 (the word itself). */
Test(strdist, closeness_grows_with_the_word)
{
	cr_expect(pp_strdist_close("mode", 1));
	cr_expect_not(pp_strdist_close("mode", 2));
	cr_expect(pp_strdist_close("period", 2));
	cr_expect_not(pp_strdist_close("period", 3));
	cr_expect(pp_strdist_close("max_frames_x", 3));
	cr_expect_not(pp_strdist_close("max_frames_x", 4));
	cr_expect_not(pp_strdist_close("mode", 0));
}

Test(strdist, closest_candidate_or_none)
{
	static const char *const keys[] = { "period", "frequency", "precise", "mode" };

	cr_expect_str_eq(pp_strdist_closest("perid", keys, 4), "period");
	cr_expect_str_eq(pp_strdist_closest("FREQUENCE", keys, 4), "frequency");
	cr_expect_str_eq(pp_strdist_closest("mod", keys, 4), "mode");
	cr_expect_null(pp_strdist_closest("xyzzy", keys, 4));
	cr_expect_null(pp_strdist_closest("period", keys, 0));
}

/* Of two at the same distance, the first listed is suggested. */
Test(strdist, tie_goes_to_the_first_candidate)
{
	static const char *const kinds[] = { "sample", "simple" };

	cr_expect_str_eq(pp_strdist_closest("sumple", kinds, 2), "sample");
}
