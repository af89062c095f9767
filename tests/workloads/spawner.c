/*
 * spawner: starts children every way a program can, each of which burns CPU
 * in burn_child and exits with a known status:
 *
 *   fork + chdir("/") + execve with an empty environment   exit 7
 *   vfork + execv                                           exit 7
 *   posix_spawn with an empty environment                   exit 7
 *   system("spawner exit")      (the child calls _exit(9))  exit 9
 *   system("spawner abort")     (the child calls abort())   SIGABRT
 *
 * and prints each child's status. Output does not depend on the profiler.
 *
 *   spawner [SECONDS]   CPU seconds each child burns (default 0.2)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

static volatile uint64_t spawner_sink;

__attribute__((noinline)) void burn_child(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		spawner_sink += wl_burn(WL_CHUNK / 4, spawner_sink);
}

static void spawner_report(const char *how, int status)
{
	if (WIFEXITED(status))
		printf("%s: exit %d\n", how, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s: signal %d\n", how, WTERMSIG(status));
}

int main(int argc, char **argv)
{
	const char *secs = argc > 2 ? argv[2] : argc > 1 ? argv[1] : "0.2";
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *child_argv[] = { self, "child", (char *)secs, NULL };
	char *empty_env[] = { NULL };
	char cmd[8400];
	pid_t pid;
	int status;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		burn_child(wl_seconds(secs, 0.2));
		return 7;
	}
	if (argc > 1 && strcmp(argv[1], "exit") == 0) {
		burn_child(wl_seconds(secs, 0.2));
		_exit(9);
	}
	if (argc > 1 && strcmp(argv[1], "abort") == 0) {
		signal(SIGABRT, SIG_DFL);
		burn_child(wl_seconds(secs, 0.2));
		abort();
	}
	if (len <= 0)
		return 1;
	self[len] = '\0';
	fflush(stdout);

	pid = fork();
	if (pid == 0) {
		if (chdir("/") != 0)
			_exit(126);
		execve(self, child_argv, empty_env);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	spawner_report("fork+execve", status);

	pid = vfork();
	if (pid == 0) {
		execv(self, child_argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	spawner_report("vfork+execv", status);

	if (posix_spawn(&pid, self, NULL, NULL, child_argv, empty_env) == 0) {
		waitpid(pid, &status, 0);
		spawner_report("posix_spawn", status);
	}
	fflush(stdout);

	snprintf(cmd, sizeof(cmd), "'%s' exit %s", self, secs);
	status = system(cmd);
	spawner_report("system+_exit", status);
	snprintf(cmd, sizeof(cmd), "'%s' abort %s 2>/dev/null", self, secs);
	status = system(cmd);
	/* The shell reports a child killed by SIGABRT as exit 128+6. */
	spawner_report("system+abort", status);
	return 0;
}
