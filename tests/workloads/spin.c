/*
 * spin: burns CPU until killed, for the SIGKILL test.
 *
 *   spin [SECONDS]
 *
 * The main thread and one more thread both run spin_loop -> burn_spin for
 * ever. Once the main thread has used SECONDS of CPU (default 0.5) it prints
 * "ready PID" on stdout and flushes, so a test knows that samples exist.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "wl.h"

static volatile uint64_t spin_sink;

__attribute__((noinline)) uint64_t burn_spin(uint64_t iters);
__attribute__((noinline)) void spin_loop(double ready_after);
void *spin_thread(void *arg);

__attribute__((noinline)) uint64_t burn_spin(uint64_t iters)
{
	return wl_burn(iters, 0x7370696e);
}

/* Burns for ever; says "ready" once ready_after seconds of CPU are used (if > 0). */
__attribute__((noinline)) void spin_loop(double ready_after)
{
	double start = wl_thread_cpu();

	for (;;) {
		spin_sink += burn_spin(WL_CHUNK);
		if (ready_after > 0 && wl_thread_cpu() - start >= ready_after) {
			printf("ready %d\n", (int)getpid());
			fflush(stdout);
			ready_after = 0;
		}
	}
}

void *spin_thread(void *arg)
{
	(void)arg;
	spin_loop(0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (pthread_create(&t, NULL, spin_thread, NULL)) {
		fprintf(stderr, "spin: cannot create a thread\n");
		return 1;
	}
	spin_loop(wl_seconds(argc > 1 ? argv[1] : NULL, 0.5));
	return 0;
}
