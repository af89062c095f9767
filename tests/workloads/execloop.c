/*
 * execloop: starts /bin/true COUNT times, round robin over six ways a
 * program starts another (three of them fork and exec in the child, where a
 * profiler's sampling signal still pending at exec would kill the new
 * program):
 *
 *   fork + execv("/bin/true")
 *   fork + execlp("true")
 *   fork + execle("/bin/true") with an empty environment
 *   vfork + execv("/bin/true")
 *   posix_spawnp("true")
 *   system("/bin/true")
 *
 * Prints one line per way, "WAY: N of N exited 0" when all did (the same in
 * every run), and exits 0; or, when any child did not exit 0, says how the
 * first few ended on stderr and exits 1.
 *
 *   execloop [COUNT]   (default 120)
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXECLOOP_WAYS 6
#define EXECLOOP_TRUE "/bin/true"

extern char **environ;

static const char *const execloop_names[EXECLOOP_WAYS] = {
	"fork+execv", "fork+execlp", "fork+execle", "vfork+execv",
	"posix_spawnp", "system",
};

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
		pid = fork();
		if (pid == 0) {
			if (way == 0)
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
	long count = argc > 1 ? strtol(argv[1], NULL, 10) : 120;
	long started[EXECLOOP_WAYS] = { 0 }, ok[EXECLOOP_WAYS] = { 0 }, bad = 0;

	if (count < 1 || count > 100000) {
		fprintf(stderr, "execloop: bad count\n");
		return 2;
	}
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
