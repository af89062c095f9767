/*
 * pauseflood: a wait across thousands of pause switches (issue 16), with
 * its own truth.
 *
 *   pauseflood PAUSES MIN_US MAX_US  a thread blocks in read() of a pipe in
 *                                wait_flooded while main, PAUSES times,
 *                                calls pprof_pause(), spins MIN_US..MAX_US
 *                                us, pprof_resume(), spins as long again
 *                                (the spans from a fixed pseudo-random
 *                                sequence), then writes the pipe
 *
 * stdout: "pauseflood: done PAUSES". With PPROF_TRUTH set, appends "NAME
 * SECONDS" lines there: "wait_flooded" (the wait), "paused_outer" (its
 * time between a pause call's start and its resume call's end, summed) and
 * "paused_inner" (between a pause call's end and its resume call's start):
 * the wait's profiled time is between wait_flooded - paused_outer and
 * wait_flooded - paused_inner. A failed call: a line on stderr, exit 3.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pprof/control.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAUSEFLOOD_MAX 1000000

__attribute__((noinline)) void wait_flooded(void);

/* A pause: [call, end of the pause call) .. [start of the resume call, its end). */
struct pauseflood_pause {
	double call, paused, resume, resumed;
};

static struct pauseflood_pause pauseflood_pauses[PAUSEFLOOD_MAX];
static double pauseflood_from, pauseflood_to;
static int pauseflood_started, pauseflood_pipe[2];

static double pauseflood_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pauseflood_spin(double us)
{
	double until = pauseflood_now() + us / 1e6;

	while (pauseflood_now() < until)
		;
}

static void pauseflood_fail(const char *what)
{
	fprintf(stderr, "pauseflood: %s: %s\n", what, strerror(errno));
	exit(3);
}

__attribute__((noinline)) void wait_flooded(void)
{
	char c;
	ssize_t n;

	while ((n = read(pauseflood_pipe[0], &c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		pauseflood_fail("read");
	__asm__ volatile("");
}

static void *pauseflood_thread(void *arg)
{
	(void)arg;
	pauseflood_from = pauseflood_now();
	__atomic_store_n(&pauseflood_started, 1, __ATOMIC_RELEASE);
	wait_flooded();
	pauseflood_to = pauseflood_now();
	return NULL;
}

/* The overlap of [a, b) with the wait. */
static double pauseflood_overlap(double a, double b)
{
	if (a < pauseflood_from)
		a = pauseflood_from;
	if (b > pauseflood_to)
		b = pauseflood_to;
	return b > a ? b - a : 0;
}

int main(int argc, char **argv)
{
	double min_us, max_us, outer = 0, inner = 0;
	const char *path = getenv("PPROF_TRUTH");
	uint32_t rnd = 12345;
	unsigned n, pauses;
	pthread_t th;
	int err;

	if (argc != 4 || atoi(argv[1]) <= 0 || atoi(argv[1]) > PAUSEFLOOD_MAX) {
		fprintf(stderr, "usage: pauseflood PAUSES(1..%d) MIN_US MAX_US\n",
			PAUSEFLOOD_MAX);
		return 2;
	}
	pauses = (unsigned)atoi(argv[1]);
	min_us = atof(argv[2]);
	max_us = atof(argv[3]);
	if (pipe(pauseflood_pipe) != 0)
		pauseflood_fail("pipe");
	err = pthread_create(&th, NULL, pauseflood_thread, NULL);
	if (err) {
		errno = err;
		pauseflood_fail("pthread_create");
	}
	while (!__atomic_load_n(&pauseflood_started, __ATOMIC_ACQUIRE))
		;
	for (n = 0; n < pauses; n++) {
		struct pauseflood_pause *p = &pauseflood_pauses[n];
		double us;

		rnd = rnd * 1103515245u + 12345u;
		us = min_us + (max_us - min_us) * (double)(rnd >> 16 & 0x7fff) / 32767.0;
		p->call = pauseflood_now();
		pprof_pause();
		p->paused = pauseflood_now();
		pauseflood_spin(us);
		p->resume = pauseflood_now();
		pprof_resume();
		p->resumed = pauseflood_now();
		pauseflood_spin(us);
	}
	if (write(pauseflood_pipe[1], "x", 1) != 1)
		pauseflood_fail("write");
	pthread_join(th, NULL);
	for (unsigned i = 0; i < n; i++) {
		outer += pauseflood_overlap(pauseflood_pauses[i].call, pauseflood_pauses[i].resumed);
		inner += pauseflood_overlap(pauseflood_pauses[i].paused, pauseflood_pauses[i].resume);
	}
	if (path) {
		FILE *f = fopen(path, "a");

		if (!f)
			pauseflood_fail(path);
		fprintf(f, "wait_flooded %.6f\npaused_outer %.6f\npaused_inner %.6f\n",
			pauseflood_to - pauseflood_from, outer, inner);
		fclose(f);
	}
	printf("pauseflood: done %u\n", n);
	return 0;
}
