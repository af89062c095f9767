/*
 * clockloop: spends its CPU time reading the clock, which runs in the vDSO
 * (code the kernel maps into every process, with no file on disk). The
 * coarse clock: the vDSO serves it whatever the machine's clock source.
 *
 *   clockloop [SECONDS]   CPU seconds to spend (default 0.3)
 */
#include "wl.h"

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	double until = wl_thread_cpu() + seconds;
	struct timespec ts;
	unsigned long reads = 0;

	while (wl_thread_cpu() < until) {
		for (int i = 0; i < 1000; i++)
			clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
		reads++;
	}
	printf("done\n");
	return reads ? 0 : 1;
}
