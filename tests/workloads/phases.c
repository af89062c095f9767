/*
 * phases: one thread that burns CPU in two phases, for the time window
 * filters (--from, --to) and diff.
 *
 *   phases A_SECONDS B_SECONDS
 *
 * main -> burn_phase_a for A_SECONDS of CPU, then main -> burn_phase_b for
 * B_SECONDS. stdout says when each phase started and when the second one
 * ended, on CLOCK_MONOTONIC (the clock of the profiler's timestamps), so a
 * test can place a window by the workload's own clock:
 *
 *   a NS
 *   b NS
 *   end NS
 *
 * With PPROF_TRUTH set, the truth is written there as lines "FUNCTION
 * SECONDS": the thread CPU time spent inside each burn function.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wl.h"

static volatile uint64_t phases_sink;

__attribute__((noinline)) uint64_t burn_phase_a(uint64_t iters);
__attribute__((noinline)) uint64_t burn_phase_b(uint64_t iters);

__attribute__((noinline)) uint64_t burn_phase_a(uint64_t iters)
{
	return wl_burn(iters, 0x6161);
}

__attribute__((noinline)) uint64_t burn_phase_b(uint64_t iters)
{
	return wl_burn(iters, 0x6262);
}

static uint64_t phases_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Burn with fn until seconds of CPU are spent in it; returns that CPU time. */
static double phases_run(uint64_t (*fn)(uint64_t), double seconds)
{
	double spent = 0;

	while (spent < seconds) {
		double t0 = wl_thread_cpu();

		phases_sink += fn(WL_CHUNK);
		spent += wl_thread_cpu() - t0;
	}
	return spent;
}

int main(int argc, char **argv)
{
	double a, b, spent_a, spent_b;
	const char *truth = getenv("PPROF_TRUTH");

	if (argc != 3) {
		fprintf(stderr, "usage: phases A_SECONDS B_SECONDS\n");
		return 2;
	}
	a = wl_seconds(argv[1], 0);
	b = wl_seconds(argv[2], 0);
	printf("a %" PRIu64 "\n", phases_now_ns());
	spent_a = phases_run(burn_phase_a, a);
	printf("b %" PRIu64 "\n", phases_now_ns());
	spent_b = phases_run(burn_phase_b, b);
	printf("end %" PRIu64 "\n", phases_now_ns());
	if (truth) {
		FILE *f = fopen(truth, "w");

		if (!f)
			return 1;
		fprintf(f, "burn_phase_a %.6f\nburn_phase_b %.6f\n", spent_a, spent_b);
		fclose(f);
	}
	return 0;
}
