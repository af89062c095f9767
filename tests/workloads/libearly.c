/*
 * libearly: a library whose constructor starts a thread, so that the thread
 * exists before libpprof.so's constructor runs. The thread waits until
 * early_go() is called, then burns CPU in burn_early for the given time.
 */
#include <pthread.h>

#include "wl.h"

void early_go(double seconds);
void early_join(void);
void burn_early(double seconds);

static pthread_mutex_t early_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t early_cond = PTHREAD_COND_INITIALIZER;
static double early_seconds = -1;
static pthread_t early_thread;
static volatile uint64_t early_sink;

__attribute__((noinline)) void burn_early(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		early_sink += wl_burn(WL_CHUNK / 4, early_sink);
}

static void *early_main(void *arg)
{
	double seconds;

	(void)arg;
	pthread_mutex_lock(&early_mutex);
	while (early_seconds < 0)
		pthread_cond_wait(&early_cond, &early_mutex);
	seconds = early_seconds;
	pthread_mutex_unlock(&early_mutex);
	burn_early(seconds);
	return NULL;
}

void early_go(double seconds)
{
	pthread_mutex_lock(&early_mutex);
	early_seconds = seconds;
	pthread_cond_signal(&early_cond);
	pthread_mutex_unlock(&early_mutex);
}

void early_join(void)
{
	pthread_join(early_thread, NULL);
}

__attribute__((constructor)) static void early_start(void)
{
	pthread_create(&early_thread, NULL, early_main, NULL);
}
