/*
 * Integration: the handler's unwind in a program whose stacks rarely
 * repeat (libunwind misses its cache at nearly every sample) makes no
 * signal-mask system calls of libunwind's (sigsafe/unwmask.h), and the
 * stacks are still whole, from the leaf up to main.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_unw;

static void it_unw_init(void)
{
	tst_init(&it_unw);
}

static void it_unw_fini(void)
{
	tst_release(&it_unw);
}

TestSuite(it_unwind, .init = it_unw_init, .fini = it_unw_fini, .timeout = 120);

/*
 * wideleaf counts its own thread's rt_sigprocmask calls (the handler's,
 * under the preload). libunwind 1.6.2 makes about ten for each cache miss
 * (its locks and its dl_iterate_phdr, each inside a block-everything
 * pair); in the handler they are answered without the kernel, so a run
 * of a few hundred samples that miss makes fewer than one call per ten
 * samples. Every sample of wide_leaf keeps its callers.
 */
Test(it_unwind, cache_misses_make_no_mask_system_calls)
{
	const char *argv[] = { "workloads/wideleaf", "0.4", NULL };
	struct tst_result plain, prof;
	const char *line, *sum;
	unsigned long long calls;
	struct pa_profile *p;
	uint64_t leaf, whole;
	struct pa_run *run;

	tst_skip_under_asan("the count is of the thread's system calls, and AddressSanitizer "
			    "makes mask calls of its own");
	tst_run(&it_unw, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_unw, "prof", argv, NULL, &prof);
	cr_assert(WIFEXITED(prof.status) && WEXITSTATUS(prof.status) == 0, "%s%s", prof.out,
		  prof.err);
	sum = tst_find_line(plain.out, "checksum ");
	cr_assert(sum && tst_find_line(prof.out, sum), "output changed: %s against %s", prof.out,
		  plain.out);
	line = tst_find_line(prof.out, "rt_sigprocmask ");
	cr_assert(line, "%s", prof.out);
	if (strncmp(line, "rt_sigprocmask ?", 16) == 0)
		cr_skip_test("wideleaf cannot count its system calls here: %.*s",
			     (int)strcspn(line + 17, "\n"), line + 17);
	cr_assert_eq(sscanf(line, "rt_sigprocmask %llu", &calls), 1, "%s", line);

	run = tst_load(&it_unw);
	p = tst_profile(run, 0, 0);
	leaf = tst_self(p, "wide_leaf");
	whole = tst_stack_count(p, "main;wide_run;wide_leaf");
	cr_assert_geq(leaf, 100, "too few samples to tell: %llu", (unsigned long long)leaf);
	cr_expect_leq(calls * 10, leaf, "%llu rt_sigprocmask calls for %llu samples", calls,
		      (unsigned long long)leaf);
	cr_expect_geq(whole * 10, leaf * 9, "%llu of %llu samples of wide_leaf reach main",
		      (unsigned long long)whole, (unsigned long long)leaf);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}
