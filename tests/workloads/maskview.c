/*
 * maskview: a program that sets its signal masks every way libc offers and
 * prints every mask it reads back, and uses signal SIG itself (the
 * profiler's sampling signal, in the tests): it blocks it, raises it, waits
 * for it and checks when its handler runs. Its output is the same on every
 * run, with or without a profiler, unless something changed what the
 * program sees. Between the checks it burns CPU with SIG blocked in its
 * masks, in functions named after how it was blocked:
 *
 *   burn_masked_pthread   pthread_sigmask(SIG_BLOCK, every signal)
 *   burn_masked_procmask  sigprocmask(SIG_SETMASK, every signal)
 *   burn_masked_sigblock  sigblock(every signal)
 *   burn_masked_sighold   sighold(SIG)
 *   burn_born_creator     a thread its creator started with every signal blocked
 *   burn_born_attr        a thread started by pthread_attr_setsigmask_np
 *   burn_own_blocked      SIG blocked, none of the program's own pending
 *
 *   maskview SIG [SECONDS]   SIG: trap, prof, or a number; SECONDS of CPU
 *                            for each burn (default 0.15)
 *   maskview --child SIG     (exec'd by itself) prints its mask at start
 *   maskview --int3          blocks SIGTRAP, with a handler, and runs int3:
 *                            the kernel forces the trap through the mask
 *                            with the default action (killed by SIGTRAP)
 *
 * Exits 0 when every check matched what the kernel promises, else 1 (the
 * failing checks say "FAIL").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>

#include "wl.h"

/* The old BSD and System V calls are the point here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int mv_sig;
static double mv_seconds = 0.15;
static int mv_bad;
static volatile sig_atomic_t mv_calls, mv_last_code, mv_usr1;
static volatile uint64_t mv_sink;

void burn_masked_pthread(void);
void burn_masked_procmask(void);
void burn_masked_sigblock(void);
void burn_masked_sighold(void);
void burn_born_creator(void);
void burn_born_attr(void);
void burn_own_blocked(void);

#define MV_BURN(name)                                                        \
	__attribute__((noinline)) void name(void)                            \
	{                                                                    \
		double until = wl_thread_cpu() + mv_seconds;                 \
		while (wl_thread_cpu() < until)                              \
			mv_sink += wl_burn(WL_CHUNK / 10, mv_sink);          \
	}

MV_BURN(burn_masked_pthread)
MV_BURN(burn_masked_procmask)
MV_BURN(burn_masked_sigblock)
MV_BURN(burn_masked_sighold)
MV_BURN(burn_born_creator)
MV_BURN(burn_born_attr)
MV_BURN(burn_own_blocked)

/* A mask as 64 characters, signal 1 first: 'b' blocked, '.' not. */
static void mv_format(const sigset_t *set, char *out)
{
	for (int s = 1; s <= 64; s++)
		out[s - 1] = sigismember(set, s) == 1 ? 'b' : '.';
	out[64] = '\0';
}

static void mv_print(const char *what, const sigset_t *set)
{
	char buf[65];

	mv_format(set, buf);
	printf("%-28s %s\n", what, buf);
}

/* The calling thread's mask as the program reads it. */
static void mv_current(const char *what)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	mv_print(what, &cur);
}

static void mv_check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	mv_bad |= !ok;
}

static void mv_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == mv_sig) {
		mv_calls++;
		mv_last_code = si->si_code;
	} else if (sig == SIGUSR1) {
		mv_usr1++;
	}
}

static sigset_t mv_one(int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	return s;
}

static int mv_pending(void)
{
	sigset_t p;

	sigpending(&p);
	return sigismember(&p, mv_sig) == 1;
}

/* Every way to set a mask, each mask read back printed. */
static void mv_readback(void)
{
	sigset_t full, old, two = mv_one(mv_sig), none;
	int bsd;

	sigfillset(&full);
	sigemptyset(&none);
	sigaddset(&two, SIGUSR1);
	mv_current("start");
	pthread_sigmask(SIG_BLOCK, &two, &old);
	mv_print("pthread_sigmask old", &old);
	mv_current("after block SIG+USR1");
	sigprocmask(SIG_SETMASK, &full, &old);
	mv_print("sigprocmask old", &old);
	mv_current("after setmask full");
	burn_masked_procmask();
	pthread_sigmask(SIG_UNBLOCK, &two, &old);
	mv_print("unblock old", &old);
	mv_current("after unblock SIG+USR1");
	sigprocmask(SIG_SETMASK, &none, NULL);
	pthread_sigmask(SIG_BLOCK, &full, NULL);
	burn_masked_pthread();
	pthread_sigmask(SIG_SETMASK, &none, &old);
	mv_print("setmask none old", &old);
	bsd = sigblock(~0);
	printf("%-28s %#x\n", "sigblock old", (unsigned)bsd);
	burn_masked_sigblock();
	printf("%-28s %#x\n", "siggetmask", (unsigned)siggetmask());
	printf("%-28s %#x\n", "sigsetmask old", (unsigned)sigsetmask(0));
	sighold(mv_sig);
	mv_current("after sighold");
	burn_masked_sighold();
	sigrelse(mv_sig);
	mv_current("after sigrelse");
	printf("%-28s %s\n", "sigset HOLD returns",
	       sigset(mv_sig, SIG_HOLD) == SIG_HOLD ? "SIG_HOLD" : "disposition");
	printf("%-28s %s\n", "sigset HOLD again returns",
	       sigset(mv_sig, SIG_HOLD) == SIG_HOLD ? "SIG_HOLD" : "disposition");
	mv_current("after sigset HOLD");
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static void *mv_born(void *arg)
{
	mv_current(arg);
	if (strcmp(arg, "born of creator") == 0)
		burn_born_creator();
	else
		burn_born_attr();
	return NULL;
}

/* Threads born with every signal blocked: by their creator's mask, by their attribute. */
static void mv_threads(void)
{
	sigset_t full, old;
	pthread_attr_t attr;
	pthread_t t;

	sigfillset(&full);
	pthread_sigmask(SIG_BLOCK, &full, &old);
	if (pthread_create(&t, NULL, mv_born, "born of creator") == 0)
		pthread_join(t, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setsigmask_np(&attr, &full);
	if (pthread_create(&t, &attr, mv_born, "born of attribute") == 0)
		pthread_join(t, NULL);
	pthread_attr_destroy(&attr);
}

/* SIG, the program's own: never delivered while blocked, delivered once unblocked. */
static void mv_own_signal(void)
{
	sigset_t one = mv_one(mv_sig), none;
	int calls;

	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &one, NULL);
	burn_own_blocked();
	raise(mv_sig);
	mv_check(mv_calls == 0, "raised while blocked: not delivered");
	mv_check(mv_pending(), "raised while blocked: pending");
	mv_current("blocked, one pending");
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	mv_check(mv_calls == 1 && mv_last_code == SI_TKILL, "delivered once unblocked");

	sigprocmask(SIG_BLOCK, &one, NULL);
	kill(getpid(), mv_sig);
	mv_check(mv_calls == 1, "sent to the process while blocked: not delivered");
	sigprocmask(SIG_SETMASK, &none, NULL);
	mv_check(mv_calls == 2 && mv_last_code == SI_USER, "delivered once the mask is set empty");

	/* The same held signal, through waits whose masks block it or not. */
	sigprocmask(SIG_BLOCK, &one, NULL);
	raise(mv_sig);
	calls = mv_calls;
	errno = 0;
	mv_check(ppoll(NULL, 0, &(struct timespec){ 0, 20000000 }, &one) == 0 &&
		 mv_calls == calls, "ppoll with it blocked: times out, not delivered");
	mv_check(pselect(0, NULL, NULL, NULL, &(struct timespec){ 0, 20000000 }, &one) == 0 &&
		 mv_calls == calls, "pselect with it blocked: times out, not delivered");
	{
		int ep = epoll_create1(EPOLL_CLOEXEC);
		struct epoll_event ev;

		mv_check(epoll_pwait(ep, &ev, 1, 20, &one) == 0 && mv_calls == calls,
			 "epoll_pwait with it blocked: times out, not delivered");
		mv_check(epoll_pwait(ep, &ev, 1, 2000, &none) == -1 && errno == EINTR &&
			 mv_calls == calls + 1, "epoll_pwait with it unblocked: delivered");
		close(ep);
	}
	mv_current("after the waits");
	mv_check(!mv_pending(), "nothing pending after the waits");

	sigprocmask(SIG_BLOCK, &one, NULL);
	raise(mv_sig);
	calls = mv_calls;
	mv_check(ppoll(NULL, 0, &(struct timespec){ 2, 0 }, &none) == -1 && errno == EINTR &&
		 mv_calls == calls + 1, "ppoll with it unblocked: delivered");
	raise(mv_sig);
	mv_check(pselect(0, NULL, NULL, NULL, &(struct timespec){ 2, 0 }, &none) == -1 &&
		 errno == EINTR && mv_calls == calls + 2, "pselect with it unblocked: delivered");

	/* sigsuspend: SIG and USR1 pending; a mask that lets USR1 in only. */
	{
		sigset_t two = one, but_usr1;

		sigaddset(&two, SIGUSR1);
		sigfillset(&but_usr1);
		sigdelset(&but_usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &two, NULL);
		raise(mv_sig);
		raise(SIGUSR1);
		calls = mv_calls;
		sigsuspend(&but_usr1);
		mv_check(mv_usr1 == 1 && mv_calls == calls,
			 "sigsuspend letting USR1 in: USR1 delivered, SIG not");
		sigsuspend(&none);
		mv_check(mv_calls == calls + 1, "sigsuspend letting SIG in: delivered");
		mv_current("after sigsuspend");
		sigprocmask(SIG_UNBLOCK, &two, NULL);
	}

	/* The sigwait family takes it off the queue, handler untouched. */
	{
		siginfo_t si;
		int got = 0;

		sigprocmask(SIG_BLOCK, &one, NULL);
		calls = mv_calls;
		raise(mv_sig);
		got = sigwaitinfo(&one, &si);
		printf("sigwaitinfo: signal %s, si_code %d, si_pid %s\n",
		       got == mv_sig ? "SIG" : "other", si.si_code,
		       si.si_pid == getpid() ? "self" : "other");
		mv_check(got == mv_sig && mv_calls == calls, "sigwaitinfo takes it");
		mv_check(!mv_pending(), "nothing pending after sigwaitinfo");
		raise(mv_sig);
		mv_check(sigwait(&one, &got) == 0 && got == mv_sig, "sigwait takes it");
		mv_check(sigtimedwait(&one, &si, &(struct timespec){ 0, 20000000 }) == -1 &&
			 errno == EAGAIN, "sigtimedwait with none pending: EAGAIN");
		burn_own_blocked();
		mv_check(mv_calls == calls, "handler untouched by the waits");
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		mv_check(mv_calls == calls, "nothing left to deliver");
	}
}

/* Children: exec'd (its mask at start) and forked, with SIG blocked. */
static void mv_children(const char *self, const char *sigarg)
{
	sigset_t one = mv_one(mv_sig);
	int status;
	pid_t pid;

	fflush(stdout);
	sigprocmask(SIG_BLOCK, &one, NULL);
	pid = fork();
	if (pid == 0) {
		mv_current("fork child");
		fflush(stdout);
		execl("/proc/self/exe", self, "--child", sigarg, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	mv_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "children exit 0");
	sigprocmask(SIG_UNBLOCK, &one, NULL);
}

static int mv_parse(const char *arg)
{
	if (strcmp(arg, "trap") == 0)
		return SIGTRAP;
	if (strcmp(arg, "prof") == 0)
		return SIGPROF;
	return atoi(arg);
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	if (argc > 1 && strcmp(argv[1], "--int3") == 0) {
		sigset_t one = mv_one(SIGTRAP);

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = mv_handler;
		sa.sa_flags = SA_SIGINFO;
		mv_sig = SIGTRAP;
		sigaction(SIGTRAP, &sa, NULL);
		sigprocmask(SIG_BLOCK, &one, NULL);
		__asm__ volatile("int3");
		printf("maskview: survived a blocked int3\n");
		return 1;
	}
	if (argc > 2 && strcmp(argv[1], "--child") == 0) {
		mv_sig = mv_parse(argv[2]);
		mv_current("exec child at start");
		return 0;
	}
	if (argc < 2 || (mv_sig = mv_parse(argv[1])) < 1 || mv_sig > 64) {
		fprintf(stderr, "usage: maskview trap|prof|SIGNUM [SECONDS]\n");
		return 2;
	}
	mv_seconds = wl_seconds(argc > 2 ? argv[2] : NULL, 0.15);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = mv_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(mv_sig, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	mv_readback();
	mv_threads();
	mv_own_signal();
	mv_children(argv[0], argv[1]);
	printf("maskview: %s\n", mv_bad ? "something changed" : "all as the kernel promises");
	return mv_bad;
}
