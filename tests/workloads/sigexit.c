/*
 * sigexit: threads that end inside a signal handler. Each of COUNT threads
 * burns SECONDS of CPU in burn_sigexit, then sends itself SIGUSR1, whose
 * handler (SA_ONSTACK: on the thread's alternate signal stack when it has
 * one, as the profiler gives every thread) calls pthread_exit. main joins
 * them all and prints "sigexit: COUNT threads ended in a handler"; a
 * failed call: a line on stderr and exit status 3.
 *
 *   sigexit [COUNT [SECONDS]]   (defaults 4, 0.05)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"

static double se_seconds = 0.05;
static volatile uint64_t se_sink;
static volatile int se_ended;

__attribute__((noinline)) void burn_sigexit(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		se_sink += wl_burn(WL_CHUNK / 8, se_sink);
}

static void se_handler(int sig)
{
	(void)sig;
	__atomic_add_fetch(&se_ended, 1, __ATOMIC_RELAXED);
	pthread_exit(NULL);
}

static void *se_thread(void *arg)
{
	(void)arg;
	burn_sigexit(se_seconds);
	pthread_kill(pthread_self(), SIGUSR1);
	fprintf(stderr, "sigexit: the thread outlived its handler\n");
	exit(3);
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 4;
	struct sigaction sa;
	pthread_t *th;

	if (argc > 2)
		se_seconds = atof(argv[2]);
	th = calloc((size_t)(count > 0 ? count : 1), sizeof(*th));
	if (count < 1 || !th)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = se_handler;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0) {
		perror("sigexit: sigaction");
		return 3;
	}
	for (int i = 0; i < count; i++)
		if (pthread_create(&th[i], NULL, se_thread, NULL) != 0) {
			fprintf(stderr, "sigexit: pthread_create failed at %d\n", i);
			return 3;
		}
	for (int i = 0; i < count; i++)
		pthread_join(th[i], NULL);
	printf("sigexit: %d threads ended in a handler\n", se_ended);
	return 0;
}
