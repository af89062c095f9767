/*
 * waitedge: the wall-clock event's edge cases, each measuring its own
 * truth (tests/it/test_it_wall_edges.c). Built twice: waitedge with
 * -fomit-frame-pointer, waitedge-fp with -fno-omit-frame-pointer (the
 * callers of the blocking calls keep a frame pointer).
 *
 *   waitedge return|exit|term SECONDS
 *       a thread blocks in read() (wait_forever, called by park_outer and
 *       park_inner) on a pipe nobody writes; main sleeps SECONDS, writes
 *       the truth "wait_forever OFF_SECONDS" (wall minus CPU time of the
 *       thread since its read began) and "wait_forever.end_s S" (the
 *       monotonic clock then, in s), then returns from main, calls
 *       exit(0), or raises SIGTERM with its default action (the process
 *       dies of it)
 *   waitedge callers ROUNDS MS
 *       a thread reads a pipe in park_inner (called by park_outer), main
 *       writes to it every MS ms, ROUNDS times; truth "park_inner OFF"
 *   waitedge pingpong N
 *       two threads pass a byte through two pipes N times (ping_loop and
 *       pong_loop block in read() for each other: 2 N waits); truth
 *       "ping_loop OFF", "pong_loop OFF" (each loop's wall minus CPU
 *       time), their ".cpu" and ".calls", and "switches_per_s" (waits
 *       per second)
 *   waitedge pause N
 *       main calls pause() until N SIGUSR1 were handled, which a thread of
 *       its own sends to the process with kill() every 5 ms, each after the
 *       previous one was handled; stdout "waitedge: signals sent ==
 *       handled; pause() returned EINTR every time; enough pauses", exit
 *       status 7 (the program's own)
 *   waitedge forks N
 *       forks N children one after the other, each exits at once
 *
 * The truth goes to the file PPROF_TRUTH names, if any. stdout ends with
 * "waitedge: done" (but for term, which dies first). Errors: a line on
 * stderr, status 3.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

static int we_pipe[2], we_back[2];
static volatile double we_wait_wall0, we_wait_cpu0;
static volatile int we_waiting;
static clockid_t we_clock;
static long we_rounds;
static int we_ms;

static double we_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void we_fail(const char *what, int err)
{
	fprintf(stderr, "waitedge: %s: %s\n", what, strerror(err));
	exit(3);
}

static void we_nap_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		if (errno != EINTR)
			we_fail("nanosleep", errno);
}

static void we_truth(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void we_truth(const char *fmt, ...)
{
	const char *path = getenv("PPROF_TRUTH");
	FILE *f = path ? fopen(path, "a") : NULL;
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* ---- waits open at the end ---------------------------------------------------- */

static __attribute__((noinline)) void wait_forever(void)
{
	char c;

	we_wait_wall0 = we_now();
	we_wait_cpu0 = wl_thread_cpu();
	__atomic_store_n(&we_waiting, 1, __ATOMIC_RELEASE);
	/* Nobody writes: the read ends with the process. */
	if (read(we_pipe[0], &c, 1) >= 0)
		we_fail("read", EIO);
	we_fail("read", errno);
}

/* ---- callers with and without frame pointers ------------------------------------ */

static __attribute__((noinline)) double park_inner(int forever)
{
	double wall0 = we_now(), cpu0 = wl_thread_cpu();
	char c;
	ssize_t n;

	if (forever) {
		wait_forever();
		return 0;
	}
	n = read(we_pipe[0], &c, 1);
	if (n != 1)
		we_fail("read", n < 0 ? errno : EIO);
	/* Work after the call: no tail call, the caller's frame stays. */
	return we_now() - wall0 - (wl_thread_cpu() - cpu0);
}

static __attribute__((noinline)) double park_outer(int forever)
{
	volatile double pad[4] = { 1, 2, 3, 4 }; /* a frame of some size */
	double off = park_inner(forever);

	return off + pad[0] - pad[0];
}

static void *we_parker(void *arg)
{
	double off = 0;

	if (arg)
		park_outer(1);
	for (long i = 0; i < we_rounds; i++)
		off += park_outer(0);
	we_truth("park_inner %.9f\npark_inner.calls %ld\n", off, we_rounds);
	return NULL;
}

static int we_end(const char *how, double seconds)
{
	pthread_t th;
	struct timespec cpu;
	double end;

	if (pthread_create(&th, NULL, we_parker, (void *)1) != 0)
		return 2;
	while (!__atomic_load_n(&we_waiting, __ATOMIC_ACQUIRE))
		we_nap_ms(1);
	if (pthread_getcpuclockid(th, &we_clock) != 0)
		we_fail("pthread_getcpuclockid", errno);
	we_nap_ms((int)(seconds * 1e3));
	clock_gettime(we_clock, &cpu);
	end = we_now();
	we_truth("wait_forever %.9f\nwait_forever.end_s %.9f\n", end - we_wait_wall0 -
		 ((double)cpu.tv_sec + (double)cpu.tv_nsec * 1e-9 - we_wait_cpu0), end);
	printf("waitedge: done\n");
	fflush(stdout);
	if (strcmp(how, "term") == 0)
		raise(SIGTERM);
	if (strcmp(how, "exit") == 0)
		exit(0);
	return 0;
}

static int we_callers(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, we_parker, NULL) != 0)
		return 2;
	for (long i = 0; i < we_rounds; i++) {
		we_nap_ms(we_ms);
		if (write(we_pipe[1], "x", 1) != 1)
			we_fail("write", errno);
	}
	pthread_join(th, NULL);
	printf("waitedge: done\n");
	return 0;
}

/* ---- a high switch rate ------------------------------------------------------ */

static volatile double we_ping_off, we_pong_off, we_ping_cpu, we_pong_cpu;

/* Off the CPU in the loop: wall minus CPU time from t0/c0 to now; its CPU time into *cpu. */
static double we_off_since(double t0, double c0, volatile double *cpu)
{
	*cpu = wl_thread_cpu() - c0;
	return we_now() - t0 - *cpu;
}

static __attribute__((noinline)) void pong_loop(void)
{
	double t0 = we_now(), c0 = wl_thread_cpu();
	char c;

	for (long i = 0; i < we_rounds; i++)
		if (read(we_pipe[0], &c, 1) != 1 || write(we_back[1], "y", 1) != 1)
			we_fail("pong", errno);
	we_pong_off = we_off_since(t0, c0, &we_pong_cpu);
}

static __attribute__((noinline)) void ping_loop(void)
{
	double t0 = we_now(), c0 = wl_thread_cpu();
	char c;

	for (long i = 0; i < we_rounds; i++)
		if (write(we_pipe[1], "x", 1) != 1 || read(we_back[0], &c, 1) != 1)
			we_fail("ping", errno);
	we_ping_off = we_off_since(t0, c0, &we_ping_cpu);
}

static void *we_pong(void *arg)
{
	(void)arg;
	pong_loop();
	return NULL;
}

static int we_pingpong(void)
{
	pthread_t th;
	double t0 = we_now();

	if (pipe(we_back) != 0 || pthread_create(&th, NULL, we_pong, NULL) != 0)
		return 2;
	ping_loop();
	pthread_join(th, NULL);
	we_truth("ping_loop %.9f\nping_loop.cpu %.9f\nping_loop.calls %ld\n"
		 "pong_loop %.9f\npong_loop.cpu %.9f\npong_loop.calls %ld\nswitches_per_s %.0f\n",
		 we_ping_off, we_ping_cpu, we_rounds, we_pong_off, we_pong_cpu, we_rounds,
		 2.0 * (double)we_rounds / (we_now() - t0));
	printf("waitedge: done\n");
	return 0;
}

/* ---- pause() woken by the program's own signal ------------------------------------- */

static volatile sig_atomic_t we_signals;
static volatile int we_pause_done;
static long we_sent;

static void we_on_usr1(int sig)
{
	(void)sig;
	we_signals++;
}

/*
 * Sends SIGUSR1 to the process every 5 ms, each once the previous one was
 * handled (none is pending when the next goes), until main is done.
 */
static void *we_waker(void *arg)
{
	(void)arg;
	while (!we_pause_done) {
		we_nap_ms(5);
		if (we_pause_done)
			break;
		we_sent++;
		if (kill(getpid(), SIGUSR1) != 0)
			we_fail("kill", errno);
		while (we_signals != we_sent && !we_pause_done)
			we_nap_ms(1);
	}
	return NULL;
}

static __attribute__((noinline)) int we_pause(void)
{
	struct sigaction sa = { .sa_handler = we_on_usr1 };
	pthread_t th;
	sigset_t usr1;
	long pauses = 0, eintr = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return 2;
	/* Only main takes SIGUSR1: the waker blocks it (so would any thread the profiler made). */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (pthread_create(&th, NULL, we_waker, NULL) != 0)
		return 2;
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	while (we_signals < we_rounds) {
		int r = pause();

		pauses++;
		eintr += r == -1 && errno == EINTR;
	}
	we_pause_done = 1;
	pthread_join(th, NULL);
	printf("waitedge: signals sent %s handled; pause() returned EINTR %s; %s\n",
	       we_sent == we_signals ? "==" : "!=", eintr == pauses ? "every time" : "not always",
	       pauses >= we_rounds ? "enough pauses" : "too few pauses");
	printf("waitedge: done\n");
	return 7;
}

/* ---- forks while the profiler's helper runs ------------------------------------- */

static int we_forks(void)
{
	for (long i = 0; i < we_rounds; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			we_fail("fork", errno);
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			we_fail("waitpid", errno ? errno : EIO);
	}
	printf("waitedge: done\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (pipe(we_pipe) != 0)
		return 2;
	we_rounds = argc > 2 ? atol(argv[2]) : 0;
	we_ms = argc > 3 ? atoi(argv[3]) : 0;
	if (!strcmp(what, "return") || !strcmp(what, "exit") || !strcmp(what, "term"))
		return argc > 2 ? we_end(what, atof(argv[2])) : 2;
	if (!strcmp(what, "callers") && we_rounds > 0 && we_ms > 0)
		return we_callers();
	if (!strcmp(what, "pingpong") && we_rounds > 0)
		return we_pingpong();
	if (!strcmp(what, "pause") && we_rounds > 0)
		return we_pause();
	if (!strcmp(what, "forks") && we_rounds > 0)
		return we_forks();
	fprintf(stderr, "usage: waitedge return|exit|term SECONDS | callers ROUNDS MS | "
		"pingpong N | pause N | forks N\n");
	return 2;
}
