/*
 * Tests of analyze/profile.c on the "profile" run (tst_run.h): counts,
 * filters, callers, libpprof.so's frames; and that a run read with its
 * samples collapsed gives the same reports.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tst_run.h"

TestSuite(profile, .init = tst_prof_setup, .fini = tst_prof_teardown, .timeout = 30);

static struct pa_profile *pf_build(uint32_t pid, uint32_t tid, int64_t event)
{
	struct pa_filter f = { .pid = pid, .tid = tid, .event = event };

	return tst_prof_build_filter(&f);
}

static void pf_expect(const struct pa_profile *prof, const char *name, uint64_t self,
		      uint64_t total)
{
	const struct pa_func *f = pa_profile_find(prof, name);

	cr_assert(f, "%s missing from the profile", name);
	cr_assert_eq(f->self, self, "%s: self %llu, expected %llu", name,
		     (unsigned long long)f->self, (unsigned long long)self);
	cr_assert_eq(f->total, total, "%s: total %llu, expected %llu", name,
		     (unsigned long long)f->total, (unsigned long long)total);
}

Test(profile, counts_self_and_total_per_function)
{
	struct pa_profile *prof = pf_build(0, 0, 0);

	cr_assert_eq(prof->samples, 15);
	cr_assert_eq(prof->nprocesses, 2);
	cr_assert_eq(prof->nthreads, 3);
	cr_assert_eq(prof->lost, 3);
	pf_expect(prof, "pa_proftest_leaf", 7, 7);
	pf_expect(prof, "pa_proftest_mid", 6, 9);
	pf_expect(prof, "pa_proftest_main", 0, 15);
	cr_assert_str_eq(prof->funcs[0].name, "pa_proftest_leaf"); /* most self first */
	cr_assert_str_eq(prof->funcs[1].name, "pa_proftest_mid");
	cr_assert(strstr(prof->funcs[0].module, "run-tests"));
	pa_profile_free(prof);
}

Test(profile, counts_recursion_once_in_total)
{
	struct pa_profile *prof = pf_build(0, 0, 0);

	pf_expect(prof, "pa_proftest_rec", 2, 2);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_rec", "pa_proftest_rec"), 2);
	pa_profile_free(prof);
}

Test(profile, filters_by_pid_tid_and_event)
{
	struct pa_profile *prof = pf_build(20, 0, 0);

	cr_assert_eq(prof->samples, 5);
	cr_assert_eq(prof->nprocesses, 1);
	cr_assert_eq(prof->nthreads, 1);
	pf_expect(prof, "pa_proftest_mid", 5, 5);
	cr_assert_null(pa_profile_find(prof, "pa_proftest_leaf"));
	pa_profile_free(prof);

	prof = pf_build(0, 11, 0);
	cr_assert_eq(prof->samples, 4);
	cr_assert_eq(prof->nthreads, 1);
	pf_expect(prof, "pa_proftest_leaf", 4, 4);
	cr_assert_null(pa_profile_find(prof, "pa_proftest_mid"));
	pa_profile_free(prof);

	prof = pf_build(0, 11, -1); /* every event: the page-fault sample too */
	pf_expect(prof, "pa_proftest_leaf", 5, 5);
	pa_profile_free(prof);

	prof = pf_build(0, 0, 1);
	cr_assert_eq(prof->samples, 1);
	pa_profile_free(prof);

	prof = pf_build(99, 0, 0); /* no such process: empty, not an error */
	cr_assert_eq(prof->samples, 0);
	cr_assert_eq(prof->nfuncs, 0);
	cr_assert_eq(prof->nprocesses, 0);
	pa_profile_free(prof);
}

Test(profile, keeps_callers_in_stacks)
{
	struct pa_profile *prof = pf_build(0, 0, 0);

	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "pa_proftest_mid"), 9);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_mid", "pa_proftest_leaf"), 3);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "pa_proftest_leaf"), 4);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_leaf", "pa_proftest_mid"), 0);
	cr_assert_eq(prof->nstacks, 4);
	cr_assert_eq(prof->stacks[2].nframes, 3);
	cr_assert_str_eq(prof->stacks[2].frames[0], "pa_proftest_main"); /* root first */
	cr_assert_str_eq(prof->stacks[2].frames[2], "pa_proftest_leaf");
	pa_profile_free(prof);
}

/*
 * The same run read with identical samples collapsed (as pprof-analyze
 * reads it for these reports): the same text, byte for byte, from fewer
 * entries.
 */
Test(profile, collapsed_run_gives_the_same_reports)
{
	struct pa_load_opts lo = { .collapse = true };
	const struct pa_report *const reports[] = { &pa_report_top, &pa_report_folded,
						    &pa_report_threads };
	const char *const goldens[] = { "top.txt", "folded.txt", "threads.txt" };
	struct pa_error err = { 0 };
	const struct pa_process *p10;

	pa_run_free(tst_prof_run);
	cr_assert_eq(pa_run_load_opts(tst_prof_dir, &lo, &tst_prof_run, &err), 0, "%s", err.reason);
	p10 = tst_log_find_process(tst_prof_run, 10);
	cr_assert(p10 && p10->nthreads == 2);
	cr_expect_eq(p10->threads[0]->nsamples, 3, "6 samples of 3 stacks: %zu entries",
		     p10->threads[0]->nsamples);
	cr_expect_eq(p10->threads[1]->nsamples, 2, "one stack on 2 events: %zu entries",
		     p10->threads[1]->nsamples);
	for (size_t i = 0; i < 3; i++) {
		char *text = tst_prof_report(reports[i], 0);

		tst_log_golden(text, goldens[i]);
		free(text);
	}
}

Test(profile, names_frames_outside_modules_unknown)
{
	const uint64_t stack[] = { 0x10, tst_run_in(pa_proftest_main) };
	struct tst_log l;
	struct pa_error err = { 0 };
	struct pa_profile *prof;
	char *p30 = tst_log_subdir(tst_prof_dir, "app.30");

	tst_prof_process_log(p30, 30, 0, true);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 30, 30, 0, "main");
	tst_prof_samples(&l, 2, 0, 2, stack);
	tst_log_thread_end(&l, 9000, 2, 0, 0);
	tst_log_write(&l, p30, "thread-30.log");
	pa_run_free(tst_prof_run);
	cr_assert_eq(pa_run_load(tst_prof_dir, &tst_prof_run, &err), 0, "%s", err.reason);
	prof = pf_build(30, 0, 0);
	pf_expect(prof, "[unknown]", 2, 2);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "[unknown]"), 2);
	pa_profile_free(prof);
	free(p30);
}

Test(profile, filters_by_exe_basename_or_path)
{
	const uint64_t stack[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	char *p40 = tst_log_subdir(tst_prof_dir, "worker.40");
	struct pa_filter f = { .event = 0, .exe = "worker" };
	struct pa_profile *prof;

	tst_prof_process_log_exe(p40, 40, "/opt/bin/worker", 0, true);
	tst_prof_add_thread(p40, 40, 7, 2, stack);
	tst_prof_reload();
	prof = tst_prof_build_filter(&f);
	cr_assert_eq(prof->samples, 7);
	cr_assert_eq(prof->nprocesses, 1);
	pf_expect(prof, "pa_proftest_leaf", 7, 7);
	pa_profile_free(prof);

	f.exe = "/opt/bin/worker";
	prof = tst_prof_build_filter(&f);
	cr_assert_eq(prof->samples, 7);
	pa_profile_free(prof);

	f.exe = "run-tests"; /* pid 10 and 20 of the fixture */
	prof = tst_prof_build_filter(&f);
	cr_assert_eq(prof->samples, 15);
	cr_assert_eq(prof->nprocesses, 2);
	pa_profile_free(prof);

	f.exe = "work"; /* a prefix is not a match */
	prof = tst_prof_build_filter(&f);
	cr_assert_eq(prof->samples, 0);
	cr_assert_eq(prof->nprocesses, 0);
	pa_profile_free(prof);
	free(p40);
}

Test(profile, drops_libpprof_caller_frames_but_not_leaves)
{
	struct pa_profile *prof;
	const struct pa_func *mid;

	tst_prof_add_libpprof();
	prof = pf_build(50, 0, 0);
	cr_assert_eq(prof->samples, 5);
	cr_assert_eq(prof->nstacks, 2);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "pa_proftest_leaf"), 2);
	pf_expect(prof, "pa_proftest_leaf", 2, 2);
	pf_expect(prof, "pa_proftest_main", 0, 5);
	mid = pa_profile_find(prof, "pa_proftest_mid");
	cr_assert(mid, "a leaf in libpprof.so stays");
	cr_assert_eq(mid->self, 3);
	cr_assert_eq(mid->total, 3, "the caller frame in libpprof.so is counted");
	cr_assert(strstr(mid->module, "/libpprof.so"), "%s", mid->module);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "pa_proftest_mid"), 3);
	pa_profile_free(prof);
}

/*
 * Two functions of one name in one module (static helpers of two source
 * files) are two functions, as perf counts them: not one row with both
 * counts.
 */
Test(profile, two_static_functions_of_one_name_are_two_functions)
{
	const uint64_t a[] = { tst_run_in(tst_twin_a()), tst_run_in(pa_proftest_main) };
	const uint64_t b[] = { tst_run_in(tst_twin_b()), tst_run_in(pa_proftest_main) };
	char *pdir = tst_log_subdir(tst_prof_dir, "app.60");
	struct pa_filter f = { .pid = 60, .event = 0 };
	struct pa_profile *prof;
	uint64_t self[2] = { 0 };
	size_t n = 0;

	struct tst_log l;

	tst_prof_process_log(pdir, 60, 0, true);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 60, 60, 0, "main");
	tst_prof_samples(&l, 3, 0, 2, a);
	tst_prof_samples(&l, 1, 0, 2, b);
	tst_log_thread_end(&l, 9000, 4, 0, 0);
	tst_log_write(&l, pdir, "thread-60.log");
	tst_prof_reload();
	free(pdir);
	prof = tst_prof_build_filter(&f);
	for (size_t i = 0; i < prof->nfuncs; i++)
		if (!strcmp(prof->funcs[i].name, "tst_twin") && n < 2)
			self[n++] = prof->funcs[i].self;
	cr_expect_eq(n, 2, "%zu functions named tst_twin", n);
	cr_expect(self[0] == 3 && self[1] == 1, "self %llu and %llu, expected 3 and 1",
		  (unsigned long long)self[0], (unsigned long long)self[1]);
	pa_profile_free(prof);
}
