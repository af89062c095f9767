/*
 * Unit tests for analyze/counters.c: one thread's count scaled for
 * multiplexing, sums over threads, and the ratios two counting events of
 * the "counters" run (tst_run.h) make.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "counters.h"
#include "tst_run.h"

TestSuite(counters, .init = tst_counters_setup, .fini = tst_counters_teardown, .timeout = 30);

/* A thread holding one THREAD_EVENT record for event 1. */
static struct pa_count cn_count(uint32_t flags, uint64_t value, uint64_t enabled,
				uint64_t running)
{
	struct pa_thread_event te = { .event = 1, .flags = flags, .value = value,
				      .time_enabled = enabled, .time_running = running };
	struct pa_thread t = { .events = &te, .nevents = 1 };
	struct pa_count c;

	pa_count_thread(&t, 1, &c);
	return c;
}

Test(counters, counts_one_thread)
{
	struct pa_count c = cn_count(PPF_THREAD_EVENT_COUNTED, 1000, 800, 500);
	struct pa_count sum = { 0 };

	cr_assert(pa_count_known(&c));
	cr_assert(pa_count_scaled(&c));
	cr_assert_float_eq(c.estimate, 1600.0, 1e-9);
	cr_assert_float_eq(pa_count_share(&c), 0.625, 1e-9);
	c = cn_count(PPF_THREAD_EVENT_COUNTED, UINT64_MAX / 2, UINT64_MAX, UINT64_MAX / 2);
	cr_assert(c.estimate > 1.8e19, "no overflow: %g", c.estimate);
	c = cn_count(PPF_THREAD_EVENT_COUNTED, 0, 0, 0); /* never ran at all: a known zero */
	cr_assert(pa_count_known(&c));
	cr_assert_not(pa_count_scaled(&c));
	cr_assert_float_eq(pa_count_share(&c), 1.0, 1e-9);
	c = cn_count(PPF_THREAD_EVENT_COUNTED, 5, 10, 0);
	cr_assert_not(pa_count_known(&c));
	cr_assert_eq(c.not_counted, 1);
	c = cn_count(PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0);
	cr_assert_eq(c.no_counter, 1);
	c = cn_count(0, 7, 7, 7); /* neither flag: not a count */
	cr_assert_eq(c.missing, 1);
	pa_count_add(&sum, &c);
	c = cn_count(PPF_THREAD_EVENT_COUNTED, 10, 10, 5);
	pa_count_add(&sum, &c);
	cr_assert_eq(sum.counted, 1);
	cr_assert_eq(sum.missing, 1);
	cr_assert_float_eq(sum.estimate, 20.0, 1e-9);
}

Test(counters, ratios_need_matching_hardware_events)
{
	const struct pa_process *calc = tst_log_find_process(tst_counters_run, 400);
	struct pa_event hybrid;
	struct pa_ratio r;

	cr_assert(pa_counters_ratio(calc, pa_process_find_event(calc, 1), &r));
	cr_assert_str_eq(r.den->name, "cyc");
	cr_assert_str_eq(r.what, "instructions per cycle");
	cr_assert_not(r.percent);
	cr_assert(pa_counters_ratio(calc, pa_process_find_event(calc, 6), &r));
	cr_assert_str_eq(r.den->name, "branches");
	cr_assert(r.percent);
	cr_assert_not(pa_counters_ratio(calc, pa_process_find_event(calc, 2), &r),
		      "cycles heads no ratio");
	cr_assert_not(pa_counters_ratio(calc, pa_process_find_event(calc, 0), &r),
		      "a sampling event heads no ratio");
	hybrid = *pa_process_find_event(calc, 1);
	hybrid.config |= 8ull << 32; /* instructions of another PMU: no cycles there */
	cr_assert_not(pa_counters_ratio(calc, &hybrid, &r));
}

/* The cache-miss rate is of the cache references counted at the same levels. */
Test(counters, cache_misses_are_a_share_of_references)
{
	const struct pa_process *calc = tst_log_find_process(tst_counters_run, 400);
	struct pa_ratio r;

	cr_assert(pa_counters_ratio(calc, pa_process_find_event(calc, 4), &r));
	cr_expect_str_eq(r.den->name, "cache-references");
	cr_expect_str_eq(r.what, "of cache references");
	cr_expect(r.percent);
}

/*
 * sh counts instructions and no cycles: no IPC. Instructions of the kernel
 * pair with the kernel's cycles. An event that was not opened heads none.
 */
Test(counters, ratio_needs_a_denominator_at_the_same_levels)
{
	const struct pa_process *sh = tst_log_find_process(tst_counters_run, 430);
	const struct pa_process *calc = tst_log_find_process(tst_counters_run, 400);
	struct pa_event kernel_instructions;
	struct pa_ratio r;

	cr_assert_not_null(sh);
	cr_expect_not(pa_counters_ratio(sh, pa_process_find_event(sh, 1), &r));
	kernel_instructions = *pa_process_find_event(calc, 1);
	kernel_instructions.flags = PPF_EVENT_COUNT | PPF_EVENT_EXCLUDE_USER;
	cr_assert(pa_counters_ratio(calc, &kernel_instructions, &r), "kcycles counts the kernel");
	cr_expect_str_eq(r.den->name, "kcycles");
	kernel_instructions.flags |= PPF_EVENT_UNAVAILABLE;
	cr_expect_not(pa_counters_ratio(calc, &kernel_instructions, &r),
		      "an event that was not opened heads no ratio");
}
