/*
 * yielder: threads that wait for another in a sched_yield loop (as MPI
 * libraries wait when there are more ranks than cores, and as
 * spin-then-yield locks do), measuring their own truth, for the
 * wall-clock event's tests.
 *
 *   yielder [ROUNDS [MS]]
 *
 * release burns MS ms of CPU (burn_release), ROUNDS times, and after each
 * round lets the waiters go on; two threads wait for each round in
 * do_yield, which calls sched_yield until it is let go. When PPROF_TRUTH
 * names a file it gets "do_yield SECONDS" (the wall time both waiters
 * spent in do_yield, in all) and "do_yield.calls N" (sched_yield calls).
 * stdout: "yielder: done".
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wl.h"

#define Y_WAITERS 2

static int y_rounds = 20, y_ms = 20;
static int y_go;                 /* atomic: rounds released */
static volatile uint64_t y_sink;
static double y_wall[Y_WAITERS];
static long y_calls[Y_WAITERS];

static double y_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) void burn_release(void);

__attribute__((noinline)) void burn_release(void)
{
	double start = wl_thread_cpu();

	while (wl_thread_cpu() - start < y_ms * 1e-3)
		y_sink += wl_burn(WL_CHUNK / 16, y_sink);
}

/* Waits until round is released; returns the sched_yield calls it made. */
__attribute__((noinline)) long do_yield(int round);

__attribute__((noinline)) long do_yield(int round)
{
	long calls = 0;

	while (__atomic_load_n(&y_go, __ATOMIC_ACQUIRE) < round) {
		sched_yield();
		calls++;
	}
	return calls;
}

static void *y_waiter(void *arg)
{
	int w = (int)(long)arg;

	for (int i = 1; i <= y_rounds; i++) {
		double t = y_now();

		y_calls[w] += do_yield(i);
		y_wall[w] += y_now() - t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[Y_WAITERS];
	const char *path = getenv("PPROF_TRUTH");
	double wall = 0;
	long calls = 0;

	if (argc > 1)
		y_rounds = atoi(argv[1]);
	if (argc > 2)
		y_ms = atoi(argv[2]);
	for (long w = 0; w < Y_WAITERS; w++)
		if (pthread_create(&t[w], NULL, y_waiter, (void *)w) != 0)
			return 1;
	for (int i = 1; i <= y_rounds; i++) {
		burn_release();
		__atomic_store_n(&y_go, i, __ATOMIC_RELEASE);
	}
	for (int w = 0; w < Y_WAITERS; w++) {
		pthread_join(t[w], NULL);
		wall += y_wall[w];
		calls += y_calls[w];
	}
	if (path) {
		FILE *f = fopen(path, "w");

		if (!f || fprintf(f, "do_yield %.9f\ndo_yield.calls %ld\n", wall, calls) < 0 ||
		    fclose(f) != 0) {
			perror(path);
			return 1;
		}
	}
	printf("yielder: done\n");
	return 0;
}
