/*
 * briefthreads: COUNT threads, one after another, each burning US
 * microseconds of its own CPU time in burn_brief and returning; main joins
 * each. Every thread runs less than a default sampling period (1 ms).
 *
 *   briefthreads [COUNT [US]]   (400 threads of 500 us by default)
 */
#include <pthread.h>

#include "wl.h"

static volatile uint64_t briefthreads_sink;
static double briefthreads_seconds;

__attribute__((noinline)) static void *burn_brief(void *arg)
{
	double until = wl_thread_cpu() + briefthreads_seconds;

	(void)arg;
	while (wl_thread_cpu() < until)
		briefthreads_sink += wl_burn(WL_CHUNK / 100, 5);
	return NULL;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 400;

	briefthreads_seconds = (argc > 2 ? atof(argv[2]) : 500) * 1e-6;
	if (count < 1 || count > 100000 || briefthreads_seconds <= 0 || briefthreads_seconds > 1) {
		fprintf(stderr, "usage: briefthreads [COUNT [US]]\n");
		return 2;
	}
	for (long i = 0; i < count; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, burn_brief, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	printf("briefthreads: %ld threads\n", count);
	return 0;
}
