/*
 * unblocker: a statically linked program (LD_PRELOAD has no effect on it,
 * as on a setuid or a Go program): unblocks every signal, as a program
 * that sets up its own mask does, and exits 0. A signal left pending by the
 * program that exec'd it is delivered then, at its default action: a
 * profiler's sampling signal kills it.
 */
#include <signal.h>
#include <stddef.h>

int main(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	return 0;
}
