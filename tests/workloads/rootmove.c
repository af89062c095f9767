/*
 * rootmove: renames the profiler's output root (PPROF_OUTPUT) to
 * PPROF_OUTPUT.moved, as a program that chroots makes its path name
 * another directory, then forks a child that burns 50 ms of CPU and waits
 * for it. Prints "parent" and "child".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void rootmove_burn(double seconds)
{
	struct timespec ts;
	double end;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + seconds;
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
}

int main(void)
{
	const char *root = getenv("PPROF_OUTPUT");
	char moved[4096];
	pid_t pid;
	int status;

	if (root) {
		snprintf(moved, sizeof(moved), "%s.moved", root);
		if (rename(root, moved) != 0)
			return 3;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 4;
	if (pid == 0) {
		rootmove_burn(0.05);
		puts("child");
		return 0;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 5;
	puts("parent");
	return 0;
}
