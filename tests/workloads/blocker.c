/*
 * blocker: a thread that blocks every signal while it burns CPU in
 * burn_blocked, then unblocks them and burns in burn_unblocked; the main
 * thread waits. Its output does not depend on the profiler.
 *
 *   blocker [SECONDS [HOW]]   CPU seconds of each burn (default 0.3)
 *
 * HOW: "libc" (default) blocks with pthread_sigmask; "raw" with the raw
 * rt_sigprocmask system call, as programs with their own runtime do (no
 * libc wrapper sees it); "rawend" blocks with the raw call and never
 * unblocks: the thread ends with every signal blocked.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "wl.h"

enum blocker_how { BLOCKER_LIBC, BLOCKER_RAW, BLOCKER_RAWEND };

struct blocker_arg {
	double seconds;
	enum blocker_how how;
};

void burn_blocked(double seconds);
void burn_unblocked(double seconds);

static volatile uint64_t blocker_sink;

__attribute__((noinline)) void burn_blocked(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		blocker_sink += wl_burn(WL_CHUNK / 4, blocker_sink);
}

__attribute__((noinline)) void burn_unblocked(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		blocker_sink += wl_burn(WL_CHUNK / 4, blocker_sink);
}

/* The calling thread's mask: set (SIG_SETMASK) to set, the old one in old. */
static void blocker_setmask(enum blocker_how how, const sigset_t *set, sigset_t *old)
{
	if (how == BLOCKER_LIBC)
		pthread_sigmask(SIG_SETMASK, set, old);
	else
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, set, old, _NSIG / 8);
}

static void *blocker_main(void *arg)
{
	const struct blocker_arg *a = arg;
	sigset_t all, old;

	sigfillset(&all);
	blocker_setmask(a->how, &all, &old);
	burn_blocked(a->seconds);
	if (a->how != BLOCKER_RAWEND)
		blocker_setmask(a->how, &old, NULL);
	burn_unblocked(a->seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	struct blocker_arg a = { wl_seconds(argc > 1 ? argv[1] : NULL, 0.3), BLOCKER_LIBC };
	pthread_t t;

	if (argc > 2 && strcmp(argv[2], "raw") == 0) {
		a.how = BLOCKER_RAW;
	} else if (argc > 2 && strcmp(argv[2], "rawend") == 0) {
		a.how = BLOCKER_RAWEND;
	} else if (argc > 2 && strcmp(argv[2], "libc") != 0) {
		fprintf(stderr, "blocker: HOW is libc, raw or rawend\n");
		return 2;
	}
	if (pthread_create(&t, NULL, blocker_main, &a) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("blocker: done\n");
	return 0;
}
