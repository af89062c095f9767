/*
 * wl: helpers shared by the test workloads (header only: every workload is
 * one .c file built on its own). The burn kernel is always inlined, so each
 * burn_* function that uses it has its own code and its own symbol.
 */
#ifndef WL_H
#define WL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Iterations per burn call: about a millisecond of CPU. */
#define WL_CHUNK 600000u

/* A sequential xorshift chain: no closed form, nothing to vectorise. */
static inline __attribute__((always_inline)) uint64_t wl_burn(uint64_t iters,
							      uint64_t seed)
{
	uint64_t x = seed | 1;

	for (uint64_t i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		x += i;
	}
	/*
	 * An opaque asm makes the caller's burn_* impure to gcc: otherwise it
	 * may hoist a call with constant arguments out of the caller's loop.
	 */
	__asm__ volatile("" : "+r"(x));
	return x;
}

/* CPU time of the calling thread, in seconds. */
static inline double wl_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A number of seconds from argv, or def when absent; exits 2 when malformed. */
static inline double wl_seconds(const char *text, double def)
{
	char *end;
	double v;

	if (!text)
		return def;
	v = strtod(text, &end);
	if (end == text || *end || v < 0 || v > 3600) {
		fprintf(stderr, "workload: bad number of seconds: %s\n", text);
		exit(2);
	}
	return v;
}

#endif /* WL_H */
