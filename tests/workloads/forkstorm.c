/*
 * forkstorm: COUNT children forked one after another, each burning MS
 * milliseconds of its own CPU time in burn_forked and ending with _exit;
 * the parent waits for each and burns nothing of its own. A build, a
 * test driver or a shell script: many short processes that never exec.
 * Prints the children's user time as the kernel counts it.
 *
 *   forkstorm [COUNT [MS]]   (100 children of 5 ms by default)
 */
#include <sys/wait.h>

#include "wl.h"

WL_BURNER(burn_forked, 0x666f726b)

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 100;
	double ms = argc > 2 ? atof(argv[2]) : 5;
	struct rusage ru;

	if (count < 1 || count > 100000 || ms <= 0 || ms > 10000) {
		fprintf(stderr, "usage: forkstorm [COUNT [MS]]\n");
		return 2;
	}
	fflush(stdout);
	for (long i = 0; i < count; i++) {
		int status;
		pid_t child = fork();

		if (child < 0) {
			perror("forkstorm: fork");
			return 1;
		}
		if (child == 0) {
			burn_forked(ms / 1000);
			_exit(0);
		}
		if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "forkstorm: child %ld failed\n", i);
			return 1;
		}
	}
	getrusage(RUSAGE_CHILDREN, &ru);
	printf("forkstorm: %ld children user %.6f\n", count,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6);
	return 0;
}
