/*
 * threadstart: what a thread that does nothing costs. Starts COUNT threads
 * one after another, each returning at once, and joins each before the
 * next: run it unprofiled and under the preload and compare the CPU time.
 *
 *   threadstart [COUNT]   (default 1000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *threadstart_main(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < count; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, threadstart_main, NULL) != 0 ||
		    pthread_join(t, NULL) != 0) {
			fprintf(stderr, "threadstart: thread %ld could not be made\n", i);
			return 1;
		}
	}
	return 0;
}
