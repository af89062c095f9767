/*
 * sleeper: a program that treats EINTR as fatal, as many do that install no
 * signal handler of their own. Two threads (main and one more) each run
 * ROUNDS rounds of: a little CPU (burn_sleeper, about 0.3 ms), then ten
 * calls that sleep about 1 ms and that the kernel never restarts after a
 * signal handler ran (SA_RESTART or not): nanosleep, clock_nanosleep,
 * usleep, poll, ppoll, select, pselect, epoll_wait, sem_timedwait and
 * sigtimedwait (on a blocked signal nobody sends).
 *
 * Prints "sleeper: 2 threads x ROUNDS rounds of 10 sleeping calls, none
 * failed" and exits 0. The first call that fails (EINTR, or anything else)
 * is named on stderr and the program exits 1 at once.
 *
 *   sleeper [ROUNDS]   (default 30)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

#include "wl.h"

#define SLEEPER_NS 1000000L

static volatile uint64_t sleeper_sink;
static long sleeper_rounds = 30;

__attribute__((noinline)) uint64_t burn_sleeper(uint64_t iters);

__attribute__((noinline)) uint64_t burn_sleeper(uint64_t iters)
{
	return wl_burn(iters, sleeper_sink);
}

static void sleeper_fail(const char *who, const char *call, long round, int err)
{
	fprintf(stderr, "sleeper: %s: %s failed in round %ld: %s\n", who, call,
		round, strerror(err));
	exit(1);
}

static struct timespec sleeper_deadline(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += SLEEPER_NS;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Returns name from sleeper_round, errno in *err, unless ok. */
#define SLEEPER_TRY(ok, name)                                                \
	do {                                                                 \
		if (!(ok)) {                                                 \
			*err = errno;                                        \
			return name;                                         \
		}                                                            \
	} while (0)

/*
 * One call of each kind. Returns the name of the first that failed, with
 * its errno in *err, or NULL.
 */
static const char *sleeper_round(int ep, sem_t *sem, const sigset_t *waitset, int *err)
{
	struct timespec ts = { 0, SLEEPER_NS }, abs;
	struct timeval tv = { 0, SLEEPER_NS / 1000 };
	struct epoll_event ev;
	siginfo_t si;

	SLEEPER_TRY(nanosleep(&ts, NULL) == 0, "nanosleep");
	/* It returns the error instead of setting errno. */
	errno = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	SLEEPER_TRY(errno == 0, "clock_nanosleep");
	SLEEPER_TRY(usleep(SLEEPER_NS / 1000) == 0, "usleep");
	SLEEPER_TRY(poll(NULL, 0, 1) == 0, "poll");
	SLEEPER_TRY(ppoll(NULL, 0, &ts, NULL) == 0, "ppoll");
	SLEEPER_TRY(select(0, NULL, NULL, NULL, &tv) == 0, "select");
	SLEEPER_TRY(pselect(0, NULL, NULL, NULL, &ts, NULL) == 0, "pselect");
	SLEEPER_TRY(epoll_wait(ep, &ev, 1, 1) == 0, "epoll_wait");
	abs = sleeper_deadline();
	SLEEPER_TRY(sem_timedwait(sem, &abs) != 0 && errno == ETIMEDOUT, "sem_timedwait");
	SLEEPER_TRY(sigtimedwait(waitset, &si, &ts) < 0 && errno == EAGAIN, "sigtimedwait");
	return NULL;
}

static void *sleeper_run(void *arg)
{
	const char *who = arg, *call;
	int ep = epoll_create1(EPOLL_CLOEXEC), err = 0;
	sigset_t waitset;
	sem_t sem;

	if (ep < 0 || sem_init(&sem, 0, 0) != 0)
		sleeper_fail(who, "setup", 0, errno);
	/* Blocked in this thread only: a signal nobody sends, to wait on. */
	sigemptyset(&waitset);
	sigaddset(&waitset, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &waitset, NULL);
	for (long r = 0; r < sleeper_rounds; r++) {
		sleeper_sink += burn_sleeper(WL_CHUNK / 3);
		call = sleeper_round(ep, &sem, &waitset, &err);
		if (call)
			sleeper_fail(who, call, r, err);
	}
	close(ep);
	sem_destroy(&sem);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t other;

	if (argc > 1) {
		char *end;

		sleeper_rounds = strtol(argv[1], &end, 10);
		if (*end || sleeper_rounds < 1 || sleeper_rounds > 100000) {
			fprintf(stderr, "sleeper: bad number of rounds: %s\n", argv[1]);
			return 2;
		}
	}
	if (pthread_create(&other, NULL, sleeper_run, "thread 2") != 0) {
		fprintf(stderr, "sleeper: cannot create a thread\n");
		return 1;
	}
	sleeper_run("main");
	pthread_join(other, NULL);
	printf("sleeper: 2 threads x %ld rounds of 10 sleeping calls, none failed\n",
	       sleeper_rounds);
	return 0;
}
