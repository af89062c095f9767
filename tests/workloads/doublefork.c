/*
 * doublefork: the daemon's double fork. The parent forks a middle process,
 * which forks the worker and exits at once (so the worker is given to
 * init, most often before it gets far); the worker burns SECONDS of CPU in
 * burn_worker. The parent waits for the worker's end (the pipe it holds
 * closes) and prints "parent P middle M worker W".
 *
 *   doublefork [SECONDS]   (default 0.2)
 */
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

static volatile uint64_t doublefork_sink;

__attribute__((noinline)) static void burn_worker(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		doublefork_sink += wl_burn(WL_CHUNK, 11);
}

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.2);
	int fds[2];
	pid_t middle, worker = 0;
	char c;

	if (pipe(fds) != 0 || (middle = fork()) < 0)
		return 1;
	if (middle == 0) {
		pid_t w = fork();

		if (w == 0) {
			burn_worker(seconds);
			_exit(0);
		}
		/* The worker's pid to the parent, then gone. */
		(void)!write(fds[1], &w, sizeof(w));
		_exit(w > 0 ? 0 : 1);
	}
	close(fds[1]);
	waitpid(middle, NULL, 0);
	if (read(fds[0], &worker, sizeof(worker)) != (ssize_t)sizeof(worker))
		return 1;
	/* EOF once the worker, the last holder of the write end, is gone. */
	while (read(fds[0], &c, 1) > 0)
		;
	printf("parent %d middle %d worker %d\n", (int)getpid(), (int)middle, (int)worker);
	return 0;
}
