/*
 * threadexec SECONDS: a program of two threads that execs itself. A thread
 * spins in threadexec_spin while main burns SECONDS of CPU in
 * threadexec_burn, then main execs this program again as
 * "threadexec --after SECONDS", which burns SECONDS in threadexec_after and
 * exits 0. Prints "threadexec: done" from the new image. With PPROF_TRUTH
 * set, the first image writes there, just before its exec, the CPU time
 * each thread and the process have used: "main S", "spinner S", "process S".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

static pthread_t threadexec_spinner;

WL_BURNER(threadexec_burn, 3)
WL_BURNER(threadexec_after, 5)
WL_BURNER(threadexec_spin, 7)

static void *threadexec_thread(void *arg)
{
	(void)arg;
	for (;;)
		threadexec_spin(0.01);
	return NULL;
}

int main(int argc, char **argv)
{
	char *again[] = { argv[0], "--after", argc > 1 ? argv[1] : "0.3", NULL };
	pthread_t t;

	if (argc > 2 && strcmp(argv[1], "--after") == 0) {
		threadexec_after(atof(argv[2]));
		puts("threadexec: done");
		return 0;
	}
	if (pthread_create(&t, NULL, threadexec_thread, NULL) != 0)
		return 2;
	threadexec_spinner = t;
	threadexec_burn(argc > 1 ? atof(argv[1]) : 0.3);
	if (getenv("PPROF_TRUTH")) {
		FILE *f = fopen(getenv("PPROF_TRUTH"), "w");
		clockid_t id;
		struct timespec ts = { 0, 0 };

		if (!f || pthread_getcpuclockid(threadexec_spinner, &id) != 0)
			return 4;
		clock_gettime(id, &ts);
		fprintf(f, "main %.6f\nspinner %.6f\nprocess %.6f\n", wl_thread_cpu(),
			(double)ts.tv_sec + (double)ts.tv_nsec * 1e-9, wl_process_cpu());
		fclose(f);
	}
	execv("/proc/self/exe", again);
	return 3;
}
