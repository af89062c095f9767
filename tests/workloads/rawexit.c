/*
 * rawexit: ends the way Go programs do, with a raw exit_group system call
 * that no exit handler, destructor or wrapper of libc sees. It forks once;
 * in each of the two processes two threads ("rawburn") burn CPU time
 * without end in burn_raw, and a third ("rawmasked") in burn_raw_masked,
 * with every signal blocked by a raw rt_sigprocmask (never sampled: its
 * log holds no CPU time); once each has burnt SECONDS of its own CPU time,
 * the main thread calls syscall(SYS_exit_group, 0) with the threads still
 * running.
 *
 *   rawexit [SECONDS]   default 0.3
 *
 * stdout: "rawexit: parent done" (the child prints nothing), exit status 0.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "wl.h"

static volatile uint64_t raw_sink;

__attribute__((noinline)) void burn_raw(void);
__attribute__((noinline)) void burn_raw_masked(void);

__attribute__((noinline)) void burn_raw(void)
{
	for (;;)
		raw_sink += wl_burn(WL_CHUNK / 10, raw_sink);
}

__attribute__((noinline)) void burn_raw_masked(void)
{
	uint64_t all = ~0ull;

	/* Behind libc's back: the kernel's mask, 8 bytes. */
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all));
	for (;;)
		raw_sink += wl_burn(WL_CHUNK / 10, raw_sink);
}

static void *raw_thread(void *arg)
{
	if (arg) {
		prctl(PR_SET_NAME, "rawmasked", 0, 0, 0);
		burn_raw_masked();
	}
	prctl(PR_SET_NAME, "rawburn", 0, 0, 0);
	burn_raw();
	return NULL;
}

/* CPU time of thread t, in seconds. */
static double raw_cpu_of(pthread_t t)
{
	struct timespec ts;
	clockid_t clk;

	if (pthread_getcpuclockid(t, &clk) != 0 || clock_gettime(clk, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Starts the burners, waits until each has burnt seconds, then exit_group. */
static void raw_run(double seconds)
{
	pthread_t t[3];
	struct timespec nap = { 0, 5000000 };

	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, raw_thread, i == 2 ? t : NULL) != 0) {
			fprintf(stderr, "rawexit: pthread_create failed\n");
			syscall(SYS_exit_group, 1);
		}
	while (raw_cpu_of(t[0]) < seconds || raw_cpu_of(t[1]) < seconds ||
	       raw_cpu_of(t[2]) < seconds)
		nanosleep(&nap, NULL);
	syscall(SYS_exit_group, 0);
}

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	pid_t child;
	int status;

	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("rawexit: fork");
		return 1;
	}
	if (child == 0)
		raw_run(seconds);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "rawexit: the child did not exit with 0 (status %#x)\n", status);
		return 1;
	}
	printf("rawexit: parent done\n");
	fflush(stdout);
	raw_run(seconds);
	return 1;
}
