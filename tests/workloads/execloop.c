/*
 * execloop: starts COUNT children, round robin over seven ways a program
 * starts another (four of them fork and exec in the child, where a
 * profiler's sampling signal still pending at exec would kill the new
 * program):
 *
 *   fork + execv("/bin/true")
 *   fork + execlp("true")
 *   fork + execle("/bin/true") with an empty environment
 *   vfork + execv("/bin/true")
 *   posix_spawnp("true")
 *   system("/bin/true")
 *   fork, block every signal, burn 3 ms of CPU (burn_blocked), then execv
 *   unblocker (next to this program: static, so never profiled, and it
 *   unblocks every signal), as a spawn helper that execs with its signals
 *   blocked does
 *
 * Prints one line per way, "WAY: N of N exited 0" when all did (the same in
 * every run), and exits 0; or, when any child did not exit 0, says how the
 * first few ended on stderr and exits 1.
 *
 *   execloop [COUNT]   (default 126)
 *
 *   execloop failed [SECONDS]
 *     A second thread, then the main thread, each calls an exec function on
 *     a program that does not exist (execv, then execvp), prints the errno
 *     it failed with, and burns SECONDS of CPU (default 0.3) in
 *     burn_after_exec: a profiler that stopped sampling for the exec must
 *     sample again. Exits 0, or 1 if an exec did not fail with ENOENT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

#define EXECLOOP_WAYS 7
#define EXECLOOP_TRUE "/bin/true"
#define EXECLOOP_BURN_S 0.003
#define EXECLOOP_MISSING "/nonexistent-execloop/prog"

extern char **environ;

static const char *const execloop_names[EXECLOOP_WAYS] = {
	"fork+execv", "fork+execlp", "fork+execle", "vfork+execv",
	"posix_spawnp", "system", "fork+blocked+execv",
};

static volatile uint64_t execloop_sink;
static char execloop_unblocker[4096];

__attribute__((noinline)) uint64_t burn_blocked(uint64_t iters);

__attribute__((noinline)) uint64_t burn_blocked(uint64_t iters)
{
	return wl_burn(iters, execloop_sink);
}

/* In a fork child: signals blocked, some CPU, then exec unblocker. */
static void execloop_blocked(void)
{
	char *argv[] = { "unblocker", NULL };
	double until;
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	until = wl_thread_cpu() + EXECLOOP_BURN_S;
	while (wl_thread_cpu() < until)
		execloop_sink += burn_blocked(WL_CHUNK / 16);
	execv(execloop_unblocker, argv);
	_exit(127);
}

__attribute__((noinline)) uint64_t burn_after_exec(uint64_t iters);

__attribute__((noinline)) uint64_t burn_after_exec(uint64_t iters)
{
	return wl_burn(iters, execloop_sink);
}

static double execloop_seconds;

/*
 * A failed exec (execvp when arg is not NULL, else execv), then CPU.
 * Returns non-NULL when the exec did not fail with ENOENT.
 */
static void *execloop_fail(void *arg)
{
	char *argv[] = { "prog", NULL };
	const char *name = arg ? "execvp" : "execv";
	int rc = arg ? execvp(EXECLOOP_MISSING, argv) : execv(EXECLOOP_MISSING, argv);
	int err = errno;
	double until;

	printf("%s failed: %s\n", name, rc == -1 ? strerrorname_np(err) : "no");
	fflush(stdout);
	until = wl_thread_cpu() + execloop_seconds;
	while (wl_thread_cpu() < until)
		execloop_sink += burn_after_exec(WL_CHUNK);
	return (void *)(intptr_t)(rc != -1 || err != ENOENT);
}

static int execloop_failed(const char *seconds)
{
	pthread_t other;
	void *bad = (void *)1;

	execloop_seconds = wl_seconds(seconds, 0.3);
	if (pthread_create(&other, NULL, execloop_fail, NULL) != 0 ||
	    pthread_join(other, &bad) != 0 || bad)
		return 1;
	return execloop_fail("p") ? 1 : 0;
}

/* Starts one child the way way says; returns its wait status, or -1. */
static int execloop_start(int way)
{
	char *argv[] = { "true", NULL };
	char *empty[] = { NULL };
	pid_t pid = -1;
	int status;

	switch (way) {
	case 0:
	case 1:
	case 2:
	case 6:
		pid = fork();
		if (pid == 0) {
			if (way == 6)
				execloop_blocked();
			else if (way == 0)
				execv(EXECLOOP_TRUE, argv);
			else if (way == 1)
				execlp("true", "true", (char *)NULL);
			else
				execle(EXECLOOP_TRUE, "true", (char *)NULL, empty);
			_exit(127);
		}
		break;
	case 3:
		pid = vfork();
		if (pid == 0) {
			execv(EXECLOOP_TRUE, argv);
			_exit(127);
		}
		break;
	case 4:
		if (posix_spawnp(&pid, "true", NULL, NULL, argv, environ) != 0)
			return -1;
		break;
	default:
		return system(EXECLOOP_TRUE);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static void execloop_say(int way, int status)
{
	if (status == -1)
		fprintf(stderr, "execloop: %s: could not start or wait\n",
			execloop_names[way]);
	else if (WIFSIGNALED(status))
		fprintf(stderr, "execloop: %s: child killed by signal %d\n",
			execloop_names[way], WTERMSIG(status));
	else
		fprintf(stderr, "execloop: %s: child exited %d\n",
			execloop_names[way], WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
	long count;
	ssize_t len = readlink("/proc/self/exe", execloop_unblocker,
			       sizeof(execloop_unblocker) - sizeof("unblocker"));
	char *slash;

	if (argc > 1 && strcmp(argv[1], "failed") == 0)
		return execloop_failed(argc > 2 ? argv[2] : NULL);
	count = argc > 1 ? strtol(argv[1], NULL, 10) : 126;
	long started[EXECLOOP_WAYS] = { 0 }, ok[EXECLOOP_WAYS] = { 0 }, bad = 0;

	if (count < 1 || count > 100000) {
		fprintf(stderr, "execloop: bad count\n");
		return 2;
	}
	if (len <= 0 || !(slash = memrchr(execloop_unblocker, '/', (size_t)len))) {
		fprintf(stderr, "execloop: cannot find where it is\n");
		return 1;
	}
	strcpy(slash + 1, "unblocker");
	fflush(stdout);
	for (long i = 0; i < count; i++) {
		int way = (int)(i % EXECLOOP_WAYS);
		int status = execloop_start(way);

		started[way]++;
		if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok[way]++;
		else if (bad++ < 5)
			execloop_say(way, status);
	}
	for (int way = 0; way < EXECLOOP_WAYS; way++)
		printf("%s: %ld of %ld exited 0\n", execloop_names[way], ok[way],
		       started[way]);
	return bad ? 1 : 0;
}
