/*
 * smallalt alt|thread SECONDS: burns SECONDS of CPU in a recursion, on a
 * thread whose signals run on a small stack: "alt", the main thread with
 * an alternate signal stack of its own of 8 KiB (the sigaltstack(2)
 * example's); "thread", a thread of 16 KiB of stack that disables its
 * alternate signal stack (signals run on that small stack). Prints "done".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long smallalt_rec(int depth, unsigned long x)
{
	volatile char pad[256];

	pad[0] = (char)x;
	if (depth > 0)
		return smallalt_rec(depth - 1, x * 31 + 7) + (unsigned char)pad[0];
	for (int i = 0; i < 20000; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	return x;
}

static void *smallalt_burn(void *arg)
{
	double end = cpu_now() + seconds;
	unsigned long x = 1;
	stack_t off = { .ss_flags = SS_DISABLE };

	if (arg)
		sigaltstack(&off, NULL);
	while (cpu_now() < end)
		x += smallalt_rec(arg ? 10 : 40, x);
	return (void *)(x & 1);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	seconds = atof(argv[2]);
	if (strcmp(argv[1], "alt") == 0) {
		stack_t ss = { .ss_sp = malloc(8192), .ss_size = 8192 };

		if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0)
			return 3;
		smallalt_burn(NULL);
	} else {
		pthread_attr_t attr;
		pthread_t t;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 16 << 10);
		if (pthread_create(&t, &attr, smallalt_burn, (void *)1) != 0)
			return 4;
		pthread_join(t, NULL);
	}
	puts("done");
	return 0;
}
