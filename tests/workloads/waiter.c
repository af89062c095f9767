/*
 * waiter: threads that wait in known ways, each measuring its own truth,
 * for the wall-clock event's tests.
 *
 *   waiter [ROUNDS [MS]]
 *
 * Threads (each in functions of its own, never inlined):
 *   do_burn   burns ROUNDS * MS ms of CPU
 *   do_sleep  nanosleep(MS ms), ROUNDS times
 *   do_lock   takes a mutex hold_lock keeps for MS ms, ROUNDS times
 *   do_read   reads a byte from a pipe feed_pipe writes every MS ms
 *   do_poll   poll() on nothing for MS ms, ROUNDS times
 *   hold_lock and feed_pipe wait in nanosleep themselves; do_lock's and
 *   hold_lock's threads also sleep MS/2 ms between their calls (waits of
 *   another length, outside the function measured).
 * Every function measures, around each call of it, its wall time and its
 * thread's CPU time; off the CPU is the difference. When PPROF_TRUTH names
 * a file it gets, per function, "FUNCTION OFF_SECONDS", "FUNCTION.cpu
 * CPU_SECONDS" and "FUNCTION.calls N". stdout: "waiter: done"; any error of
 * a call: a line on stderr and exit status 3.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

enum { W_BURN, W_SLEEP, W_LOCK, W_READ, W_POLL, W_HOLD, W_FEED, W_N };
static const char *const w_names[W_N] = { "do_burn", "do_sleep", "do_lock", "do_read",
					  "do_poll", "hold_lock", "feed_pipe" };

static struct {
	double off, cpu;
	long calls;
} w_truth[W_N];

static int w_rounds = 30, w_ms = 10;
static pthread_mutex_t w_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t w_start;
static int w_pipe[2];

static double w_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void w_fail(const char *what, int err)
{
	fprintf(stderr, "waiter: %s: %s\n", what, strerror(err));
	exit(3);
}

/* Adds one call of function w that ran from wall0/cpu0 to now. */
static void w_account(int w, double wall0, double cpu0)
{
	double cpu = wl_thread_cpu() - cpu0;

	w_truth[w].off += w_now() - wall0 - cpu;
	w_truth[w].cpu += cpu;
	w_truth[w].calls++;
}

static void w_nap(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	if (nanosleep(&ts, NULL) != 0)
		w_fail("nanosleep", errno);
}

static __attribute__((noinline)) void do_burn(void)
{
	double wall0 = w_now(), cpu0 = wl_thread_cpu();

	while (wl_thread_cpu() - cpu0 < w_ms * 1e-3)
		wl_burn(WL_CHUNK / 8, 7);
	w_account(W_BURN, wall0, cpu0);
}

static __attribute__((noinline)) void do_sleep(void)
{
	double wall0 = w_now(), cpu0 = wl_thread_cpu();

	w_nap(w_ms);
	w_account(W_SLEEP, wall0, cpu0);
}

static __attribute__((noinline)) void do_lock(void)
{
	double wall0 = w_now(), cpu0 = wl_thread_cpu();
	int err = pthread_mutex_lock(&w_mutex);

	if (err)
		w_fail("pthread_mutex_lock", err);
	pthread_mutex_unlock(&w_mutex);
	w_account(W_LOCK, wall0, cpu0);
}

static __attribute__((noinline)) void hold_lock(void)
{
	double wall0 = w_now(), cpu0 = wl_thread_cpu();

	pthread_mutex_lock(&w_mutex);
	w_nap(w_ms);
	pthread_mutex_unlock(&w_mutex);
	w_account(W_HOLD, wall0, cpu0);
}

static __attribute__((noinline)) void do_read(void)
{
	double wall0 = w_now(), cpu0 = wl_thread_cpu();
	char c;
	ssize_t n = read(w_pipe[0], &c, 1);

	if (n != 1)
		w_fail("read", n < 0 ? errno : EIO);
	w_account(W_READ, wall0, cpu0);
}

static __attribute__((noinline)) void feed_pipe(void)
{
	double wall0 = w_now(), cpu0 = wl_thread_cpu();

	w_nap(w_ms);
	if (write(w_pipe[1], "x", 1) != 1)
		w_fail("write", errno);
	w_account(W_FEED, wall0, cpu0);
}

static __attribute__((noinline)) void do_poll(void)
{
	double wall0 = w_now(), cpu0 = wl_thread_cpu(), end = wall0 + w_ms * 1e-3;

	/* poll's timeout is in ms and may end a little early: the rest again. */
	while (w_now() < end) {
		int left = (int)((end - w_now()) * 1e3) + 1;

		if (poll(NULL, 0, left) < 0)
			w_fail("poll", errno);
	}
	w_account(W_POLL, wall0, cpu0);
}

static void *w_thread(void *arg)
{
	int w = (int)(intptr_t)arg;

	pthread_barrier_wait(&w_start);
	for (int i = 0; i < w_rounds; i++) {
		switch (w) {
		case W_BURN: do_burn(); break;
		case W_SLEEP: do_sleep(); break;
		case W_LOCK:
			/* Let hold_lock take the mutex first. */
			w_nap(w_ms / 2 + 1);
			do_lock();
			break;
		case W_READ: do_read(); break;
		case W_POLL: do_poll(); break;
		case W_HOLD: hold_lock(); w_nap(w_ms / 2 + 1); break;
		case W_FEED: feed_pipe(); break;
		}
	}
	return NULL;
}

static void w_write_truth(void)
{
	const char *path = getenv("PPROF_TRUTH");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f)
		return;
	for (int w = 0; w < W_N; w++)
		fprintf(f, "%s %.9f\n%s.cpu %.9f\n%s.calls %ld\n", w_names[w], w_truth[w].off,
			w_names[w], w_truth[w].cpu, w_names[w], w_truth[w].calls);
	fclose(f);
}

int main(int argc, char **argv)
{
	pthread_t th[W_N];

	if (argc > 1)
		w_rounds = atoi(argv[1]);
	if (argc > 2)
		w_ms = atoi(argv[2]);
	if (w_rounds < 1 || w_ms < 1 || pipe(w_pipe) != 0)
		return 2;
	pthread_barrier_init(&w_start, NULL, W_N);
	for (int w = 0; w < W_N; w++)
		if (pthread_create(&th[w], NULL, w_thread, (void *)(intptr_t)w) != 0)
			return 2;
	for (int w = 0; w < W_N; w++)
		pthread_join(th[w], NULL);
	w_write_truth();
	printf("waiter: done\n");
	return 0;
}
