/*
 * bornblocked: worker threads born with every signal blocked, as libraries
 * make their quiet workers (liblzma's, under xz -T): the main thread blocks
 * every signal around pthread_create, so each worker inherits that mask and
 * keeps it for its whole life, burning SECONDS of CPU in burn_born_blocked.
 *
 *   bornblocked [SECONDS [THREADS]]   default 0.3 s, 2 threads (at most 64)
 *
 * stdout: "bornblocked: THREADS threads" (the same in every run).
 */
#include <pthread.h>
#include <signal.h>

#include "wl.h"

#define BORN_MAX 64

static double born_seconds = 0.3;
static volatile uint64_t born_sink;

__attribute__((noinline)) void burn_born_blocked(void);
void *born_thread(void *arg);

__attribute__((noinline)) void burn_born_blocked(void)
{
	double end = wl_thread_cpu() + born_seconds;

	while (wl_thread_cpu() < end)
		born_sink += wl_burn(WL_CHUNK / 10, born_sink);
}

void *born_thread(void *arg)
{
	(void)arg;
	burn_born_blocked();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[BORN_MAX];
	sigset_t all, old;
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 2;

	born_seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	if (n < 1 || n > BORN_MAX) {
		fprintf(stderr, "bornblocked: 1 to %d threads\n", BORN_MAX);
		return 2;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, born_thread, NULL) != 0) {
			fprintf(stderr, "bornblocked: pthread_create failed\n");
			return 1;
		}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("bornblocked: %ld threads\n", n);
	return 0;
}
