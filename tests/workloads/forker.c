/*
 * forker: a parent that forks a child; both burn CPU, each in its own
 * function (burn_parent, burn_child), for SECONDS of CPU each (default 0.3).
 *
 *   forker [SECONDS] [--no-pids]
 *
 * Prints "parent PID child PID" once the child has exited with status 0
 * (with --no-pids, "parent and child done": the same in every run); exits 1
 * if it did not.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

static volatile uint64_t forker_sink;

__attribute__((noinline)) uint64_t burn_parent(uint64_t iters);
__attribute__((noinline)) uint64_t burn_child(uint64_t iters);

__attribute__((noinline)) uint64_t burn_parent(uint64_t iters)
{
	return wl_burn(iters, 0x706172);
}

__attribute__((noinline)) uint64_t burn_child(uint64_t iters)
{
	return wl_burn(iters, 0x6368696c64);
}

static void forker_burn(uint64_t (*burn)(uint64_t), double seconds)
{
	double start = wl_thread_cpu();

	while (wl_thread_cpu() - start < seconds)
		forker_sink += burn(WL_CHUNK);
}

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	int no_pids = argc > 2 && strcmp(argv[2], "--no-pids") == 0;
	int status;
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("forker: fork");
		return 1;
	}
	if (child == 0) {
		forker_burn(burn_child, seconds);
		return 0;
	}
	forker_burn(burn_parent, seconds);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "forker: the child failed\n");
		return 1;
	}
	if (no_pids)
		printf("parent and child done\n");
	else
		printf("parent %d child %d\n", (int)getpid(), (int)child);
	return 0;
}
