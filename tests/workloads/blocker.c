/*
 * blocker: a thread that blocks every signal while it burns CPU in
 * burn_blocked, then unblocks them and burns in burn_unblocked; the main
 * thread waits. Its output does not depend on the profiler.
 *
 *   blocker [SECONDS]   CPU seconds of each burn (default 0.3)
 */
#include <pthread.h>
#include <signal.h>

#include "wl.h"

void burn_blocked(double seconds);
void burn_unblocked(double seconds);

static volatile uint64_t blocker_sink;

__attribute__((noinline)) void burn_blocked(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		blocker_sink += wl_burn(WL_CHUNK / 4, blocker_sink);
}

__attribute__((noinline)) void burn_unblocked(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		blocker_sink += wl_burn(WL_CHUNK / 4, blocker_sink);
}

static void *blocker_main(void *arg)
{
	double seconds = *(double *)arg;
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	burn_blocked(seconds);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	burn_unblocked(seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	pthread_t t;

	if (pthread_create(&t, NULL, blocker_main, &seconds) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("blocker: done\n");
	return 0;
}
