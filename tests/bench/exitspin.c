/*
 * exitspin N: starts N threads that spin (never block) until the process
 * ends, lets them run 0.2 s, and returns from main: what a process's end
 * costs when many of its threads still want the CPU (tests/bench/exit.sh).
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long exitspin_sink;

static void *exitspin_spin(void *arg)
{
	(void)arg;
	for (;;)
		for (volatile int i = 0; i < 1000; i++)
			exitspin_sink += (unsigned long)i;
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec wait = { 0, 200 * 1000 * 1000 };
	int n = argc > 1 ? atoi(argv[1]) : 100;

	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, exitspin_spin, NULL) != 0)
			return 1;
		pthread_detach(t);
	}
	nanosleep(&wait, NULL);
	return 0;
}
