/*
 * oddthreads: threads not made by the profiled pthread_create. One was
 * started by a library constructor before the profiler's (libearly.so,
 * burn_early); one is made by raw clone(CLONE_THREAD | CLONE_VM ...)
 * without CLONE_SETTLS, so it shares the main thread's TLS (burn_raw). Each
 * burns SECONDS of CPU; main burns in burn_main meanwhile.
 *
 *   oddthreads [SECONDS]   (default 0.3)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wl.h"

#define ODD_STACK (256 * 1024)

void early_go(double seconds);
void early_join(void);
void burn_raw(double seconds);
void burn_main(double seconds);

static volatile uint64_t odd_sink;
static volatile int odd_raw_done;
static double odd_seconds;

__attribute__((noinline)) void burn_raw(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		odd_sink += wl_burn(WL_CHUNK / 4, odd_sink);
}

__attribute__((noinline)) void burn_main(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		odd_sink += wl_burn(WL_CHUNK / 4, odd_sink);
}

/* Runs on the raw thread: no libc state of its own, so only plain code. */
static int odd_raw_main(void *arg)
{
	(void)arg;
	burn_raw(odd_seconds);
	__atomic_store_n(&odd_raw_done, 1, __ATOMIC_RELEASE);
	syscall(SYS_exit, 0);
	return 0;
}

int main(int argc, char **argv)
{
	char *stack;

	odd_seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	stack = mmap(NULL, ODD_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return 1;
	early_go(odd_seconds);
	if (clone(odd_raw_main, stack + ODD_STACK,
		  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		  CLONE_SYSVSEM, NULL) < 0)
		return 1;
	burn_main(odd_seconds);
	early_join();
	while (!__atomic_load_n(&odd_raw_done, __ATOMIC_ACQUIRE))
		sched_yield();
	printf("oddthreads: done\n");
	return 0;
}
