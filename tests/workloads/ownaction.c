/*
 * ownaction HOW SIGNAL: a program with its own handler for SIGNAL ("trap":
 * SIGTRAP, "rtmax": SIGRTMAX, the sampling signals of the two modes) that
 * relies on what the kernel does when it runs a handler, and prints what it
 * saw; the same with and without the profiler. CPU is burnt around each
 * step, so that samples come meanwhile. HOW:
 *
 *   resethand  SA_RESETHAND: the handler runs once, then the action reads
 *              back as SIG_DFL (then SIG_IGN is set and the signal raised:
 *              ignored)
 *   nested     inside the handler, a SIGUSR1 it raises is handled and a
 *              fault it makes is caught by its SIGSEGV handler (siglongjmp)
 *   longjmp    the handler leaves by longjmp: SIGNAL stays blocked and
 *              SIGALRM does not (a raised SIGALRM is handled); then burns
 *              AFTER seconds (default 0.05) with SIGNAL blocked so
 *
 *     ownaction HOW SIGNAL [AFTER]
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "wl.h"

static volatile sig_atomic_t own_calls, own_usr1, own_segv, own_alrm;
static sigjmp_buf own_segv_jump;
static jmp_buf own_out;
static volatile uint64_t own_sink;
static int own_how;
/* An address that faults, hidden from the compiler. */
static int *volatile own_bad;

__attribute__((noinline)) static void own_burn(double seconds)
{
	double end = wl_thread_cpu() + seconds;
	uint64_t x = 7;

	while (wl_thread_cpu() < end)
		x = wl_burn(WL_CHUNK / 8, x);
	own_sink = x;
}

static void own_on_segv(int sig)
{
	(void)sig;
	own_segv++;
	siglongjmp(own_segv_jump, 1);
}

static void own_on_usr1(int sig)
{
	(void)sig;
	own_usr1++;
}

static void own_on_alrm(int sig)
{
	(void)sig;
	own_alrm++;
}

static void own_handler(int sig)
{
	(void)sig;
	own_calls++;
	if (own_how == 1) {
		raise(SIGUSR1);
		if (sigsetjmp(own_segv_jump, 1) == 0)
			*own_bad = 1;
	} else if (own_how == 2) {
		longjmp(own_out, 1);
	}
}

static void own_set(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	if (fn == own_handler && (flags & SA_RESETHAND))
		sigaddset(&sa.sa_mask, SIGUSR1);
	sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv)
{
	int sig = argc > 2 && strcmp(argv[2], "rtmax") == 0 ? SIGRTMAX : SIGTRAP;
	struct sigaction now;
	sigset_t mask;

	if (argc < 3)
		return 2;
	own_how = strcmp(argv[1], "nested") == 0 ? 1 : strcmp(argv[1], "longjmp") == 0 ? 2 : 0;
	own_set(SIGUSR1, own_on_usr1, 0);
	own_set(SIGSEGV, own_on_segv, SA_NODEFER);
	own_set(SIGALRM, own_on_alrm, 0);
	own_set(sig, own_handler, own_how == 0 ? SA_RESETHAND | SA_RESTART : 0);
	own_burn(0.05);
	if (own_how == 2 && setjmp(own_out) != 0) {
		sigprocmask(SIG_BLOCK, NULL, &mask);
		own_burn(argc > 3 ? atof(argv[3]) : 0.05);
		raise(SIGALRM);
		printf("after longjmp: %s blocked %d, SIGALRM blocked %d, handled %d\n", argv[2],
		       sigismember(&mask, sig), sigismember(&mask, SIGALRM), (int)own_alrm);
		return 0;
	}
	raise(sig);
	own_burn(0.05);
	printf("handler ran %d, SIGUSR1 inside %d, SIGSEGV inside %d\n", (int)own_calls,
	       (int)own_usr1, (int)own_segv);
	if (own_how == 0) {
		sigaction(sig, NULL, &now);
		/* The kernel resets the handler alone: its flags and mask stay. */
		printf("action after: %s, SA_RESTART %d, SIGUSR1 in its mask %d\n",
		       now.sa_handler == SIG_DFL ? "SIG_DFL" : "handler",
		       !!(now.sa_flags & SA_RESTART), sigismember(&now.sa_mask, SIGUSR1));
		if (now.sa_handler == SIG_DFL)
			own_set(sig, SIG_IGN, 0);
		raise(sig);
		own_burn(0.05);
		printf("handler ran %d\n", (int)own_calls);
	}
	return 0;
}
