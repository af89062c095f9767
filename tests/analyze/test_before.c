/*
 * Tests of analyze/before.c: the samples the time before profiling stands
 * for, by the event's scope and period, at a period and at a frequency.
 */
#include <criterion/criterion.h>

#include "before.h"

#define BF_MS 1000000ull

/* A process whose time before profiling is 30 ms of user and 10 ms of kernel time. */
static struct pa_process bf_proc(void)
{
	struct pa_process p = { 0 };

	p.before = (struct pa_cpu_mark){ .known = true, .user_ns = 30 * BF_MS,
					 .system_ns = 10 * BF_MS };
	return p;
}

Test(before, period_divides_the_time_the_event_counts)
{
	struct pa_process p = bf_proc();
	struct pa_event user = { .period = BF_MS,
				 .flags = PPF_EVENT_TIME_NS | PPF_EVENT_EXCLUDE_KERNEL };
	struct pa_event both = { .period = 2 * BF_MS, .flags = PPF_EVENT_TIME_NS };

	cr_expect_eq(pa_before_event_samples(&p, &user), 30);
	cr_expect_eq(pa_before_event_samples(&p, &both), 20);
}

/* At a frequency a time event's sample stands for 1 s / frequency. */
Test(before, frequency_of_a_time_event_is_its_period)
{
	struct pa_process p = bf_proc();
	struct pa_event freq = { .period = 500, /* Hz: 2 ms a sample */
				 .flags = PPF_EVENT_TIME_NS | PPF_EVENT_FREQ |
					  PPF_EVENT_EXCLUDE_KERNEL };

	cr_expect_eq(pa_before_event_samples(&p, &freq), 15);
}

/* Events that do not count time, counting events, events not opened, unknown time: none. */
Test(before, other_events_get_none)
{
	struct pa_process p = bf_proc(), unknown = { 0 };
	struct pa_event faults = { .period = 1 };
	struct pa_event counted = { .period = BF_MS, .flags = PPF_EVENT_TIME_NS | PPF_EVENT_COUNT };
	struct pa_event missing = { .period = BF_MS,
				    .flags = PPF_EVENT_TIME_NS | PPF_EVENT_UNAVAILABLE };
	struct pa_event user = { .period = BF_MS, .flags = PPF_EVENT_TIME_NS };

	cr_expect_eq(pa_before_event_samples(&p, &faults), 0);
	cr_expect_eq(pa_before_event_samples(&p, &counted), 0);
	cr_expect_eq(pa_before_event_samples(&p, &missing), 0);
	cr_expect_eq(pa_before_event_samples(&unknown, &user), 0);
}
