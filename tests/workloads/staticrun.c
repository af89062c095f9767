/*
 * staticrun: starts staticprog (next to this program, statically linked)
 * every way a program can, and prints each child's exit status:
 *
 *   posix_spawn by path, posix_spawnp by name (PATH set to this program's
 *   directory), fork + execv, vfork + execv, fork + execlp through PATH,
 *
 * then an execv of a path that does not exist, whose errno it prints. The
 * output does not depend on the profiler.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

extern char **environ;

static char staticrun_prog[4096];

static void staticrun_say(const char *how, pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		printf("%s: failed\n", how);
		return;
	}
	printf("%s: exit %d\n", how, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	fflush(stdout);
}

static pid_t staticrun_spawn(int search, const char *word)
{
	char *argv[] = { "staticprog", (char *)word, NULL };
	pid_t pid;
	int rc = search ? posix_spawnp(&pid, "staticprog", NULL, NULL, argv, environ) :
		 posix_spawn(&pid, staticrun_prog, NULL, NULL, argv, environ);

	return rc == 0 ? pid : -1;
}

static pid_t staticrun_fork(int how)
{
	char *argv[] = { "staticprog", how == 0 ? "fork" : "vfork", NULL };
	pid_t pid = how == 1 ? vfork() : fork();

	if (pid != 0)
		return pid;
	if (how == 2)
		execlp("staticprog", "staticprog", "execlp", (char *)NULL);
	else
		execv(staticrun_prog, argv);
	_exit(127);
}

int main(void)
{
	ssize_t len = readlink("/proc/self/exe", staticrun_prog,
			       sizeof(staticrun_prog) - sizeof("staticprog"));
	char *slash, *argv[] = { "nothing", NULL };

	fflush(stdout);
	if (len <= 0 || !(slash = memrchr(staticrun_prog, '/', (size_t)len)))
		return 2;
	*slash = '\0';
	setenv("PATH", staticrun_prog, 1);
	strcpy(slash, "/staticprog");
	staticrun_say("posix_spawn", staticrun_spawn(0, "spawn"));
	staticrun_say("posix_spawnp", staticrun_spawn(1, "spawnp"));
	staticrun_say("fork+execv", staticrun_fork(0));
	staticrun_say("vfork+execv", staticrun_fork(1));
	staticrun_say("fork+execlp", staticrun_fork(2));
	errno = 0;
	execv("/nonexistent/staticprog", argv);
	printf("execv of a missing program: %s\n", strerror(errno));
	return 0;
}
