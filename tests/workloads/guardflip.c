/*
 * guardflip: a thread flips a guard page in the program's own .bss
 * between PROT_NONE and read/write (as a coroutine library or a debugging
 * allocator does) as fast as it can, while main burns SECONDS of CPU in
 * guard_inner, called from guard_outer. Prints "guardflip: N flips".
 *
 *   guardflip [SECONDS]   (default 0.3)
 */
#include <pthread.h>
#include <sys/mman.h>

#include "wl.h"

static char guardflip_arena[4 * 65536] __attribute__((aligned(65536)));
static volatile int guardflip_done;
static volatile uint64_t guardflip_sink;

static void *guardflip_flipper(void *arg)
{
	char *page = guardflip_arena + 65536;
	long *flips = arg;

	while (!guardflip_done) {
		if (mprotect(page, 4096, PROT_NONE) != 0 ||
		    mprotect(page, 4096, PROT_READ | PROT_WRITE) != 0)
			exit(1);
		(*flips)++;
	}
	return NULL;
}

__attribute__((noinline)) static void guard_inner(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		guardflip_sink += wl_burn(WL_CHUNK, 13);
}

__attribute__((noinline)) static void guard_outer(double seconds)
{
	guard_inner(seconds);
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	long flips = 0;
	pthread_t t;

	if (pthread_create(&t, NULL, guardflip_flipper, &flips) != 0)
		return 1;
	guard_outer(seconds);
	guardflip_done = 1;
	pthread_join(t, NULL);
	printf("guardflip: %s\n", flips > 0 ? "flipped" : "no flips");
	return 0;
}
