/*
 * widethreads: COUNT threads alive at once, each burning SECONDS of CPU in
 * burn_wide, then joined. For the descriptor-limit test: run under a low
 * RLIMIT_NOFILE, the profiler cannot give every thread its log (and events),
 * and the program must not notice.
 *
 *   widethreads [COUNT [SECONDS]]   (default 64 threads, 0.05 s each)
 *
 * stdout: "widethreads: COUNT threads" (the same in every run).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#include "wl.h"

#define WIDE_MAX 1024

static double wide_seconds = 0.05;
static pthread_barrier_t wide_barrier;
static volatile uint64_t wide_sink;

__attribute__((noinline)) void burn_wide(void);

__attribute__((noinline)) void burn_wide(void)
{
	double end = wl_thread_cpu() + wide_seconds;

	while (wl_thread_cpu() < end)
		wide_sink += wl_burn(WL_CHUNK / 10, 0x77696465);
}

static void *wide_main(void *arg)
{
	(void)arg;
	/* Everyone exists before anyone burns: all alive at once. */
	pthread_barrier_wait(&wide_barrier);
	burn_wide();
	return NULL;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 64;
	static pthread_t th[WIDE_MAX];

	wide_seconds = wl_seconds(argc > 2 ? argv[2] : NULL, wide_seconds);
	if (count < 1 || count > WIDE_MAX) {
		fprintf(stderr, "widethreads: 1 to %d threads\n", WIDE_MAX);
		return 2;
	}
	pthread_barrier_init(&wide_barrier, NULL, (unsigned)count + 1);
	for (long i = 0; i < count; i++)
		if (pthread_create(&th[i], NULL, wide_main, NULL) != 0) {
			fprintf(stderr, "widethreads: cannot create thread %ld\n", i);
			return 1;
		}
	pthread_barrier_wait(&wide_barrier);
	burn_wide();
	for (long i = 0; i < count; i++)
		pthread_join(th[i], NULL);
	printf("widethreads: %ld threads\n", count);
	return 0;
}
