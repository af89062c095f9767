/*
 * idlers: many threads that sleep, and one that burns, for the wall-clock
 * event's cost and its threads without a ring.
 *
 *   idlers COUNT SECONDS [NAP_MS]
 *
 * COUNT threads each sleep in do_idle (nanosleep of NAP_MS ms, default
 * 100, again and again) for SECONDS of wall time, all at once (they wait
 * for each other before and after), while the main thread burns CPU in
 * do_busy for as long. stdout: "idlers: done"; a failed call: a line on
 * stderr and exit status 3. When PPROF_TRUTH names a file it gets
 * "do_idle SECONDS", the wall time all threads spent in do_idle, summed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl.h"

static double i_seconds = 1;
static int i_nap_ms = 100;
static pthread_barrier_t i_start, i_end;
static pthread_mutex_t i_mutex = PTHREAD_MUTEX_INITIALIZER;
static double i_idle;

static double i_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static __attribute__((noinline)) void do_idle(double until)
{
	struct timespec ts = { .tv_sec = i_nap_ms / 1000,
			       .tv_nsec = (long)(i_nap_ms % 1000) * 1000000L };

	while (i_now() < until)
		if (nanosleep(&ts, NULL) != 0) {
			fprintf(stderr, "idlers: nanosleep: %s\n", strerror(errno));
			exit(3);
		}
}

static __attribute__((noinline)) void do_busy(double until)
{
	while (i_now() < until)
		wl_burn(WL_CHUNK / 8, 3);
}

static void *i_thread(void *arg)
{
	double *until = arg;

	double t0, idle;

	pthread_barrier_wait(&i_start);
	t0 = i_now();
	do_idle(*until);
	/* Before the lock: its wait (a convoy of 150 threads on a busy machine) is not do_idle's. */
	idle = i_now() - t0;
	pthread_mutex_lock(&i_mutex);
	i_idle += idle;
	pthread_mutex_unlock(&i_mutex);
	pthread_barrier_wait(&i_end);
	return NULL;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 16;
	pthread_t *th;
	pthread_attr_t attr;
	double until = 0;

	if (argc > 2)
		i_seconds = atof(argv[2]);
	if (argc > 3)
		i_nap_ms = atoi(argv[3]);
	th = calloc((size_t)(count > 0 ? count : 1), sizeof(*th));
	if (count < 1 || i_nap_ms < 1 || !th)
		return 2;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_barrier_init(&i_start, NULL, (unsigned)count + 1);
	pthread_barrier_init(&i_end, NULL, (unsigned)count + 1);
	for (int i = 0; i < count; i++)
		if (pthread_create(&th[i], &attr, i_thread, &until) != 0) {
			fprintf(stderr, "idlers: pthread_create: failed at %d\n", i);
			return 3;
		}
	until = i_now() + i_seconds;
	pthread_barrier_wait(&i_start);
	do_busy(until);
	pthread_barrier_wait(&i_end);
	for (int i = 0; i < count; i++)
		pthread_join(th[i], NULL);
	if (getenv("PPROF_TRUTH")) {
		FILE *f = fopen(getenv("PPROF_TRUTH"), "w");

		if (f) {
			fprintf(f, "do_idle %.9f\n", i_idle);
			fclose(f);
		}
	}
	printf("idlers: done\n");
	return 0;
}
