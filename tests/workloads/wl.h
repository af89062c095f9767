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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RUSAGE_THREAD
#define RUSAGE_THREAD 1 /* Linux's value; glibc names it under _GNU_SOURCE only */
#endif

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

/* CPU time of the whole process (every thread's, every image's), in seconds. */
static inline double wl_process_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Where a WL_BURNER function leaves its result, that the compiler keeps the work. */
static volatile uint64_t wl_burner_sink;

/*
 * Defines static void name(double seconds): burns until the calling thread
 * has used seconds more of CPU. Each its own seed, so that the compiler
 * folds no two into one function (identical code), and noclone, so that
 * it keeps its name (no name.constprop.0).
 */
#define WL_BURNER(name, seed)                                                   \
	__attribute__((noinline, noclone, unused)) static void name(double seconds) \
	{                                                                       \
		double wl_end = wl_thread_cpu() + seconds;                       \
		uint64_t wl_x = seed;                                           \
		while (wl_thread_cpu() < wl_end)                                 \
			wl_x = wl_burn(WL_CHUNK / 8, wl_x);                      \
		wl_burner_sink = wl_x;                                          \
	}

/*
 * When PPROF_TRUTH names a file, appends "TID USER_SECONDS" to it, or with
 * system set "TID NAME USER_SECONDS SYSTEM_SECONDS": the CPU time the calling
 * thread has burnt (user time is what a user-only sampling event sees of it).
 * Call it as the thread ends.
 */
static inline void wl_truth_thread(const char *name, int system)
{
	const char *path = getenv("PPROF_TRUTH");
	struct rusage ru;
	double user_s, system_s;
	long tid = (long)syscall(SYS_gettid);
	FILE *f;

	if (!path || getrusage(RUSAGE_THREAD, &ru) != 0)
		return;
	user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	system_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	f = fopen(path, "a");
	if (!f) {
		perror(path);
		exit(1);
	}
	if (system)
		fprintf(f, "%ld %s %.6f %.6f\n", tid, name, user_s, system_s);
	else
		fprintf(f, "%ld %.6f\n", tid, user_s);
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static inline void wl_truth_thread_user(void)
{
	wl_truth_thread(NULL, 0);
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
