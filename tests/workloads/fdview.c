/*
 * fdview: what a program sees of its own descriptors, after samples have
 * been taken in it (libunwind has run in the signal handler).
 *
 *   fdview [SECONDS]
 *
 * Burns SECONDS of CPU (default 0.2) in burn_fdview, in the main thread and
 * in a second thread, then prints the descriptor open("/dev/null") returns
 * (the lowest free number: 3 in a program started with 0-2 only), and
 * which numbers from 3 to 63 were open before that open. stdout is the same
 * with and without a profiler that keeps its descriptors out of the way.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "wl.h"

static volatile uint64_t fdview_sink;

__attribute__((noinline)) void burn_fdview(double seconds);

__attribute__((noinline)) void burn_fdview(double seconds)
{
	double end = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < end)
		fdview_sink += wl_burn(WL_CHUNK / 10, 0x66647669);
}

static void *fdview_thread(void *arg)
{
	burn_fdview(*(double *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.2;
	pthread_t th;
	int fd;

	if (pthread_create(&th, NULL, fdview_thread, &seconds) != 0)
		return 1;
	burn_fdview(seconds);
	pthread_join(th, NULL);
	printf("open below 64:");
	for (int i = 3; i < 64; i++)
		if (fcntl(i, F_GETFD) >= 0)
			printf(" %d", i);
	fd = open("/dev/null", O_RDONLY);
	printf("\nfirst open: %d\n", fd);
	return 0;
}
