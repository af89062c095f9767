/*
 * slowinit: a program with heavy work before main (libslowinit.so's
 * constructor, SLOWINIT_SECONDS of CPU), which prints its own truth of the
 * CPU time before profiling could start: for each image,
 *
 *   image N ctor_end_cpu C main_cpu M
 *
 * C the process's CPU time when that constructor ended (what came before
 * the profiler's constructor), M when main began (after it), then burns
 * MAIN seconds in burn_main. With "exec E" it then burns E seconds in
 * burn_before_exec, prints "image N exec_cpu X" (the process's CPU time
 * then: the kernel keeps counting it across exec) and execs itself as
 * image 2. Times are CLOCK_PROCESS_CPUTIME_ID seconds.
 *
 *   slowinit [MAIN [exec E]]     (default MAIN 0.1)
 */
#include <string.h>

#include "wl.h"

double slowinit_ctor_end_cpu(void);
void burn_main(double seconds);
void burn_before_exec(double seconds);

static volatile uint64_t slowinit_sink;

__attribute__((noinline)) void burn_main(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		slowinit_sink += wl_burn(WL_CHUNK / 4, slowinit_sink);
}

__attribute__((noinline)) void burn_before_exec(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		slowinit_sink += wl_burn(WL_CHUNK / 4, slowinit_sink);
}

int main(int argc, char **argv)
{
	double main_cpu = wl_process_cpu();
	int image = argc > 2 && strcmp(argv[argc - 1], "image2") == 0 ? 2 : 1;
	char *again[] = { argv[0], argc > 1 ? argv[1] : "0.1", "image2", NULL };

	printf("image %d ctor_end_cpu %.6f main_cpu %.6f\n", image, slowinit_ctor_end_cpu(),
	       main_cpu);
	burn_main(wl_seconds(argc > 1 ? argv[1] : NULL, 0.1));
	if (image == 1 && argc > 3 && strcmp(argv[2], "exec") == 0) {
		burn_before_exec(wl_seconds(argv[3], 0.1));
		printf("image 1 exec_cpu %.6f\n", wl_process_cpu());
		fflush(stdout);
		execv("/proc/self/exe", again);
		perror("execv");
		return 1;
	}
	return 0;
}
