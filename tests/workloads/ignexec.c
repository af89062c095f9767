/*
 * ignexec [spawn]: ignores SIGTRAP and SIGRTMAX (the sampling signals of
 * the two modes), then runs a shell that sends itself both and says it is
 * alive: an ignored signal stays ignored across exec (and posix_spawn, which
 * execs), so the shell must print "child alive" and exit 0.
 */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	char cmd[128];
	char *sh[] = { "sh", "-c", cmd, NULL };
	pid_t pid;
	int status;

	snprintf(cmd, sizeof(cmd), "kill -%d $$; kill -%d $$; echo child alive", SIGTRAP,
		 SIGRTMAX);
	signal(SIGTRAP, SIG_IGN);
	signal(SIGRTMAX, SIG_IGN);
	if (argc < 2 || strcmp(argv[1], "spawn") != 0) {
		execv("/bin/sh", sh);
		return 127;
	}
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, sh, environ) != 0)
		return 127;
	if (waitpid(pid, &status, 0) != pid)
		return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
