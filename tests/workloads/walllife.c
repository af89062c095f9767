/*
 * walllife: waits in known functions around the wall event's run-time
 * turns (issue 16): pauses, the delay, a failed exec, a thread older than
 * the profiler. Every wait is nanosleep, resumed after an interruption.
 *
 *   walllife api MS         wait_running for MS ms, pprof_pause(),
 *                           wait_paused for MS ms, pprof_resume(),
 *                           wait_running again for MS ms; meanwhile a thread
 *                           started before, in wait_across for 3 * MS ms,
 *                           waits across the pause
 *   walllife signal SIG MS  the same, with kill(getpid(), SIG) for the pause
 *                           and again for the resume (the toggle signal;
 *                           the other thread blocks SIG)
 *   walllife delay MS       wait_paused until MS / 2 ms since main began,
 *                           nanosleep until 3 * MS / 2 ms, then
 *                           wait_running for MS ms
 *   walllife exec MS        wait_running for MS ms, execve() of a file that
 *                           does not exist (it must fail: ENOENT), then
 *                           wait_after for MS ms
 *   walllife early MS       the thread libearly.so's constructor started
 *                           before the profiler's waits (in early_main)
 *                           while main is in wait_running for MS ms
 *
 * stdout: "walllife: done"; a failed call: a line on stderr, exit 3. With
 * PPROF_TRUTH set, appends "NAME SECONDS" lines there: wait_across's wait,
 * "paused_outer" (from before the pause call to after the resume call) and
 * "paused_inner" (wait_paused's own wait, inside the pause).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pprof/control.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void early_go(double seconds);
void early_join(void);

__attribute__((noinline)) void wait_running(double ms);
__attribute__((noinline)) void wait_paused(double ms);
__attribute__((noinline)) void wait_across(double ms);
__attribute__((noinline)) void wait_after(double ms);

static double walllife_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void walllife_fail(const char *what)
{
	fprintf(stderr, "walllife: %s: %s\n", what, strerror(errno));
	exit(3);
}

/* Sleeps ms milliseconds of wall time, whatever interrupts it. */
static void walllife_sleep(double ms)
{
	struct timespec ts = { (time_t)(ms / 1e3), (long)((ms / 1e3 - (double)(time_t)(ms / 1e3)) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		if (errno != EINTR)
			walllife_fail("nanosleep");
}

__attribute__((noinline)) void wait_running(double ms) { walllife_sleep(ms); __asm__ volatile(""); }
__attribute__((noinline)) void wait_paused(double ms) { walllife_sleep(ms); __asm__ volatile(""); }
__attribute__((noinline)) void wait_across(double ms) { walllife_sleep(ms); __asm__ volatile(""); }
__attribute__((noinline)) void wait_after(double ms) { walllife_sleep(ms); __asm__ volatile(""); }

static void walllife_truth(const char *name, double seconds)
{
	const char *path = getenv("PPROF_TRUTH");
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f || fprintf(f, "%s %.6f\n", name, seconds) < 0 || fclose(f) != 0)
		walllife_fail(path);
}

struct walllife_across {
	double ms;
	int sig;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	int waiting;
};

static void *walllife_across_main(void *arg)
{
	struct walllife_across *a = arg;
	double t0;

	if (a->sig) {
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, a->sig);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	}
	pthread_mutex_lock(&a->mutex);
	a->waiting = 1;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->mutex);
	t0 = walllife_now();
	wait_across(a->ms);
	walllife_truth("wait_across", walllife_now() - t0);
	return NULL;
}

/* The toggle: pprof_pause/resume (sig 0), or sig to the whole process. */
static void walllife_toggle(int sig, int pause)
{
	if (!sig && pause)
		pprof_pause();
	else if (!sig)
		pprof_resume();
	else if (kill(getpid(), sig) != 0)
		walllife_fail("kill");
}

static void walllife_pause(int sig, double ms)
{
	struct walllife_across a = { .ms = 3 * ms, .sig = sig,
				     .mutex = PTHREAD_MUTEX_INITIALIZER,
				     .cond = PTHREAD_COND_INITIALIZER };
	double outer, inner;
	pthread_t th;

	if (pthread_create(&th, NULL, walllife_across_main, &a) != 0)
		walllife_fail("pthread_create");
	pthread_mutex_lock(&a.mutex);
	while (!a.waiting)
		pthread_cond_wait(&a.cond, &a.mutex);
	pthread_mutex_unlock(&a.mutex);
	wait_running(ms);
	outer = walllife_now();
	walllife_toggle(sig, 1);
	inner = walllife_now();
	wait_paused(ms);
	inner = walllife_now() - inner;
	walllife_toggle(sig, 0);
	outer = walllife_now() - outer;
	wait_running(ms);
	pthread_join(th, NULL);
	walllife_truth("paused_outer", outer);
	walllife_truth("paused_inner", inner);
}

static void walllife_delay(double ms)
{
	double start = walllife_now();

	wait_paused(ms / 2);
	walllife_sleep(ms * 3 / 2 - (walllife_now() - start) * 1e3);
	wait_running(ms);
}

static void walllife_exec(double ms, char **argv)
{
	char *const args[] = { argv[0], NULL };

	wait_running(ms);
	execv("/nonexistent/walllife-no-such-program", args);
	if (errno != ENOENT)
		walllife_fail("execv did not fail with ENOENT");
	wait_after(ms);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double ms = argc > 2 ? atof(argv[argc - 1]) : 0;

	if (ms <= 0 || (strcmp(mode, "signal") == 0 && argc != 4)) {
		fprintf(stderr, "usage: walllife api|delay|exec|early MS | walllife signal SIG MS\n");
		return 2;
	}
	if (strcmp(mode, "api") == 0)
		walllife_pause(0, ms);
	else if (strcmp(mode, "signal") == 0)
		walllife_pause(atoi(argv[2]), ms);
	else if (strcmp(mode, "delay") == 0)
		walllife_delay(ms);
	else if (strcmp(mode, "exec") == 0)
		walllife_exec(ms, argv);
	else if (strcmp(mode, "early") == 0) {
		wait_running(ms);
		early_go(0);
		early_join();
	} else {
		fprintf(stderr, "walllife: unknown mode %s\n", mode);
		return 2;
	}
	printf("walllife: done\n");
	return 0;
}
