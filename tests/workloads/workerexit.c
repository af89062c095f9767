/*
 * workerexit: a worker thread ends the process with exit(6) while the main
 * thread waits for it in pthread_join and another thread spins, as a
 * JVM's System.exit or a Node worker's process.exit does: the other
 * threads are ended by exit_group, not by themselves.
 *
 *   workerexit [SECONDS]   CPU seconds the worker burns first (default 0.3)
 */
#include <pthread.h>

#include "wl.h"

static volatile uint64_t workerexit_sink;
static double workerexit_seconds;

static void *workerexit_spin(void *arg)
{
	(void)arg;
	for (;;)
		workerexit_sink += wl_burn(WL_CHUNK, 7);
	return NULL;
}

static void *workerexit_worker(void *arg)
{
	double until = wl_thread_cpu() + workerexit_seconds;

	(void)arg;
	while (wl_thread_cpu() < until)
		workerexit_sink += wl_burn(WL_CHUNK, 3);
	exit(6);
}

int main(int argc, char **argv)
{
	pthread_t spin, worker;

	workerexit_seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	if (pthread_create(&spin, NULL, workerexit_spin, NULL) != 0 ||
	    pthread_create(&worker, NULL, workerexit_worker, NULL) != 0)
		return 1;
	pthread_join(worker, NULL);
	return 0;
}
