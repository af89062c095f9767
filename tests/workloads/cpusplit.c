/*
 * cpusplit: three threads that each burn SECONDS of their own CPU time,
 * split differently between user space and the kernel, measured by the
 * threads themselves:
 *   "userburn"  user space only (burn_user);
 *   "piper"     about half in the kernel: it writes 16 KiB into a pipe
 *               and reads it back, between burns (burn_piper);
 *   "masked"    user space only (burn_masked), with every signal blocked
 *               by a raw rt_sigprocmask system call, which no wrapper of
 *               libc sees: a profiler driven by signals cannot sample it.
 * Work is measured in the thread's own CPU time, not in iterations, so the
 * split does not depend on the machine's speed.
 *
 *   cpusplit [SECONDS [PIPER_SECONDS]]   default 0.3 s, and as much for piper
 *
 * stdout: "cpusplit: 3 threads" (the same in every run). When PPROF_TRUTH
 * names a file, each thread appends "TID NAME USER_S SYSTEM_S" to it as it
 * ends (getrusage(RUSAGE_THREAD)).
 */
#define _GNU_SOURCE /* pipe2 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>

#include "wl.h"

#define SPLIT_PIPE_CHUNK (16 * 1024)

static double split_seconds = 0.3;
static double split_piper_seconds = 0.3;
static volatile uint64_t split_sink;

__attribute__((noinline)) void burn_user(void);
__attribute__((noinline)) void burn_piper(void);
__attribute__((noinline)) void burn_masked(void);

__attribute__((noinline)) void burn_user(void)
{
	double end = wl_thread_cpu() + split_seconds;

	while (wl_thread_cpu() < end)
		split_sink += wl_burn(WL_CHUNK / 10, split_sink);
}

/* A pipe written and read back by the same thread: kernel time, no waiting. */
__attribute__((noinline)) void burn_piper(void)
{
	static char buf[SPLIT_PIPE_CHUNK];
	double end = wl_thread_cpu() + split_piper_seconds;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) != 0) {
		perror("cpusplit: pipe");
		exit(1);
	}
	while (wl_thread_cpu() < end) {
		split_sink += wl_burn(WL_CHUNK / 40, split_sink);
		memset(buf, (int)(split_sink & 0xff), sizeof(buf));
		for (int i = 0; i < 12; i++) {
			if (write(fds[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
			    read(fds[0], buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
				perror("cpusplit: pipe");
				exit(1);
			}
		}
	}
	close(fds[0]);
	close(fds[1]);
}

__attribute__((noinline)) void burn_masked(void)
{
	double end = wl_thread_cpu() + split_seconds;

	while (wl_thread_cpu() < end)
		split_sink += wl_burn(WL_CHUNK / 10, split_sink);
}

static void *split_thread(void *arg)
{
	const char *name = arg;

	prctl(PR_SET_NAME, name, 0, 0, 0);
	if (strcmp(name, "masked") == 0) {
		uint64_t all = ~0ull;

		/* Behind libc's back: the kernel's mask, 8 bytes. */
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all));
		burn_masked();
	} else if (strcmp(name, "piper") == 0) {
		burn_piper();
	} else {
		burn_user();
	}
	wl_truth_thread(name, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	static char *const names[] = { "userburn", "piper", "masked" };
	pthread_t t[3];

	split_seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	split_piper_seconds = wl_seconds(argc > 2 ? argv[2] : NULL, split_seconds);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, split_thread, names[i]) != 0) {
			fprintf(stderr, "cpusplit: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("cpusplit: 3 threads\n");
	return 0;
}
