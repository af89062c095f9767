/*
 * apptrap: a program with its own SIGTRAP handling. It installs a handler,
 * raises SIGTRAP a known number of times while burning CPU, and checks what
 * it sees: its handler ran exactly that often (profiling samples never reach
 * it), sigaction() gives back its own action, and signal(SIGTRAP, SIG_IGN)
 * ignores later SIGTRAPs. Prints what it found; exits 1 on any surprise.
 *
 *   apptrap [SECONDS]        CPU seconds to burn in all (default 0.5)
 *   apptrap --raise-default  burn a little, then raise SIGTRAP with its
 *                            default action (the process dies of it)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "wl.h"

#define APPTRAP_RAISES 5

static volatile sig_atomic_t apptrap_calls;
static volatile uint64_t apptrap_sink;

static void apptrap_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGTRAP && si->si_code == SI_TKILL)
		apptrap_calls++;
}

__attribute__((noinline)) void apptrap_burn(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		apptrap_sink += wl_burn(WL_CHUNK / 4, apptrap_sink);
}

int main(int argc, char **argv)
{
	struct sigaction sa, old;
	sighandler_t prev;
	double seconds;
	int ok = 1;

	if (argc > 1 && strcmp(argv[1], "--raise-default") == 0) {
		apptrap_burn(0.1);
		printf("raising SIGTRAP\n");
		fflush(stdout);
		raise(SIGTRAP);
		printf("still alive\n");
		return 0;
	}
	seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.5);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = apptrap_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL) != 0)
		return 1;
	for (int i = 0; i < APPTRAP_RAISES; i++) {
		apptrap_burn(seconds / APPTRAP_RAISES);
		raise(SIGTRAP);
	}
	printf("handler calls: %d of %d\n", (int)apptrap_calls, APPTRAP_RAISES);
	ok &= apptrap_calls == APPTRAP_RAISES;

	memset(&old, 0, sizeof(old));
	sigaction(SIGTRAP, NULL, &old);
	printf("sigaction returns the app's handler: %s\n",
	       old.sa_sigaction == apptrap_handler ? "yes" : "no");
	ok &= old.sa_sigaction == apptrap_handler;

	prev = signal(SIGTRAP, SIG_IGN);
	printf("signal returns the app's handler: %s\n",
	       (void *)prev == (void *)apptrap_handler ? "yes" : "no");
	ok &= (void *)prev == (void *)apptrap_handler;
	raise(SIGTRAP);
	apptrap_burn(seconds / APPTRAP_RAISES);
	printf("ignored SIGTRAP: handler calls still %d\n", (int)apptrap_calls);
	ok &= apptrap_calls == APPTRAP_RAISES;
	return ok ? 0 : 1;
}
