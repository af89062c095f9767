/*
 * profapp: a program that profiles itself the gperftools way, with
 * setitimer(ITIMER_PROF) and a SIGPROF handler, for the test where the
 * signal mode samples on SIGPROF too. It counts the SIGPROFs its own timer
 * sent (si_code SI_KERNEL) and any other SIGPROF, burns SECONDS of CPU, and
 * checks that sigaction() gives back its own handler. Prints "profapp: own
 * timer ticks ok, no foreign SIGPROF, own action back" when all is well,
 * else what went wrong, and exits 1.
 *
 *   profapp [SECONDS]   (default 0.4; the timer ticks every 10 ms of CPU)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "wl.h"

static volatile sig_atomic_t profapp_ticks, profapp_foreign;
static volatile uint64_t profapp_sink;

static void profapp_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_KERNEL)
		profapp_ticks++;
	else
		profapp_foreign++;
}

__attribute__((noinline)) void profapp_burn(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		profapp_sink += wl_burn(WL_CHUNK / 4, profapp_sink);
}

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.4);
	struct itimerval tv = { { 0, 10000 }, { 0, 10000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa, old;
	long want;
	int bad = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = profapp_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &tv, NULL);
	profapp_burn(seconds);
	setitimer(ITIMER_PROF, &off, NULL);
	sigaction(SIGPROF, NULL, &old);
	/* At least half the ticks the CPU time asks for: timers are coarse. */
	want = (long)(seconds * 100 / 2);
	if (profapp_ticks < want) {
		printf("profapp: only %d own timer ticks (want %ld)\n", (int)profapp_ticks, want);
		bad = 1;
	}
	if (profapp_foreign) {
		printf("profapp: %d SIGPROFs that its timer did not send\n", (int)profapp_foreign);
		bad = 1;
	}
	if (!(old.sa_flags & SA_SIGINFO) || old.sa_sigaction != profapp_handler) {
		printf("profapp: sigaction() did not give back its own handler\n");
		bad = 1;
	}
	if (!bad)
		printf("profapp: own timer ticks ok, no foreign SIGPROF, own action back\n");
	return bad;
}
