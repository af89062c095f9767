/*
 * pausing: sampling paused and resumed at run time (include/pprof/control.h,
 * the toggle signal, the delay), with its own truth.
 *
 *   pausing api A B C        burn_ctl_a for A s of CPU; pprof_pause();
 *                            burn_ctl_b for B s, and a thread started
 *                            meanwhile burns burn_ctl_w for B s;
 *                            pprof_resume(); burn_ctl_c for C s
 *   pausing signal SIG A B C the same, with kill(getpid(), SIG) (a signal
 *                            to the process, as from outside) for the pause
 *                            and again for the resume; no thread
 *   pausing delay MS C       burn_ctl_a until MS / 2 ms of wall time since
 *                            main began, sleep until 3 * MS / 2 ms, then
 *                            burn_ctl_c for C s of CPU
 *   pausing status           prints what pprof_is_profiling() says before,
 *                            during and after a pause: "status 1 0 1"
 *                            profiled, "status 0 0 0" without the profiler
 *   pausing wins SIG         sets its own handler for SIG, raises it and
 *                            prints "handled SIG"
 *
 * Each mode prints "done" last. With PPROF_TRUTH set, appends "FUNCTION
 * SECONDS" lines there: the CPU time spent inside each burn function.
 */
#define _GNU_SOURCE
#include <pprof/control.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl.h"

static volatile uint64_t pausing_sink;
static volatile sig_atomic_t pausing_handled;

__attribute__((noinline)) uint64_t burn_ctl_a(uint64_t iters);
__attribute__((noinline)) uint64_t burn_ctl_b(uint64_t iters);
__attribute__((noinline)) uint64_t burn_ctl_c(uint64_t iters);
__attribute__((noinline)) uint64_t burn_ctl_w(uint64_t iters);

__attribute__((noinline)) uint64_t burn_ctl_a(uint64_t iters) { return wl_burn(iters, 0xa); }
__attribute__((noinline)) uint64_t burn_ctl_b(uint64_t iters) { return wl_burn(iters, 0xb); }
__attribute__((noinline)) uint64_t burn_ctl_c(uint64_t iters) { return wl_burn(iters, 0xc); }
__attribute__((noinline)) uint64_t burn_ctl_w(uint64_t iters) { return wl_burn(iters, 0xd); }

/* Burns with fn until seconds of the thread's CPU are spent in it; returns that. */
static double pausing_burn(uint64_t (*fn)(uint64_t), double seconds)
{
	double spent = 0;

	while (spent < seconds) {
		double t0 = wl_thread_cpu();

		pausing_sink += fn(WL_CHUNK);
		spent += wl_thread_cpu() - t0;
	}
	return spent;
}

static void pausing_truth(const char *func, double seconds)
{
	const char *path = getenv("PPROF_TRUTH");
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f || fprintf(f, "%s %.6f\n", func, seconds) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static double pausing_wall_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) * 1e3 +
	       (double)(now.tv_nsec - since->tv_nsec) / 1e6;
}

static void *pausing_worker(void *arg)
{
	pausing_truth("burn_ctl_w", pausing_burn(burn_ctl_w, *(double *)arg));
	return NULL;
}

/* The toggle: pprof_pause/resume (sig 0), or sig to the whole process. */
static void pausing_toggle(int sig, int pause)
{
	if (!sig && pause)
		pprof_pause();
	else if (!sig)
		pprof_resume();
	else
		kill(getpid(), sig);
}

static void pausing_abc(int sig, char **argv)
{
	double a = wl_seconds(argv[0], 0.3), b = wl_seconds(argv[1], 0.3);
	double c = wl_seconds(argv[2], 0.3);
	pthread_t th;

	pausing_truth("burn_ctl_a", pausing_burn(burn_ctl_a, a));
	pausing_toggle(sig, 1);
	if (!sig && pthread_create(&th, NULL, pausing_worker, &b) != 0) {
		perror("pthread_create");
		exit(1);
	}
	pausing_truth("burn_ctl_b", pausing_burn(burn_ctl_b, b));
	if (!sig)
		pthread_join(th, NULL);
	pausing_toggle(sig, 0);
	pausing_truth("burn_ctl_c", pausing_burn(burn_ctl_c, c));
}

static void pausing_delay(const char *ms_text, const char *c_text)
{
	double ms = wl_seconds(ms_text, 1.0), c = wl_seconds(c_text, 0.3), spent = 0;
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (pausing_wall_ms(&start) < ms / 2) {
		double t0 = wl_thread_cpu();

		pausing_sink += burn_ctl_a(WL_CHUNK / 4);
		spent += wl_thread_cpu() - t0;
	}
	pausing_truth("burn_ctl_a", spent);
	while (pausing_wall_ms(&start) < ms * 3 / 2) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	pausing_truth("burn_ctl_c", pausing_burn(burn_ctl_c, c));
}

static void pausing_on_signal(int sig)
{
	pausing_handled = sig;
}

static int pausing_signum(const char *text)
{
	int sig = atoi(text);

	if (sig <= 0 || sig >= NSIG) {
		fprintf(stderr, "pausing: bad signal %s\n", text);
		exit(2);
	}
	return sig;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "api") == 0 && argc == 5) {
		pausing_abc(0, argv + 2);
	} else if (strcmp(mode, "signal") == 0 && argc == 6) {
		pausing_abc(pausing_signum(argv[2]), argv + 3);
	} else if (strcmp(mode, "delay") == 0 && argc == 4) {
		pausing_delay(argv[2], argv[3]);
	} else if (strcmp(mode, "status") == 0) {
		int before = pprof_is_profiling(), during, after;

		pprof_pause();
		during = pprof_is_profiling();
		pprof_resume();
		after = pprof_is_profiling();
		printf("status %d %d %d\n", before, during, after);
	} else if (strcmp(mode, "wins") == 0 && argc == 3) {
		struct sigaction sa = { .sa_handler = pausing_on_signal };
		int sig = pausing_signum(argv[2]);

		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, NULL) != 0 || raise(sig) != 0) {
			perror("sigaction");
			return 1;
		}
		printf("handled %d\n", (int)pausing_handled);
	} else {
		fprintf(stderr, "usage: pausing api A B C | signal SIG A B C | delay MS C | "
			"status | wins SIG\n");
		return 2;
	}
	printf("done\n");
	return 0;
}
