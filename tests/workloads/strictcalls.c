/*
 * strictcalls: blocking calls that treat any disturbance as fatal, for the
 * wall-clock event, which must not disturb a blocked thread.
 *
 *   strictcalls [ROUNDS [MS]]
 *
 * One thread per call, each ROUNDS times for about MS ms: nanosleep,
 * clock_nanosleep (relative and absolute), poll, select, epoll_wait, read
 * on a pipe (a feeder writes a byte every MS ms), a mutex another thread
 * holds for MS ms (futex), pthread_cond_timedwait, sem_timedwait,
 * sigtimedwait (a blocked signal nobody sends), recv on a socket with
 * SO_RCVTIMEO, semtimedop on a System V semaphore nobody posts, msgrcv of a
 * message the feeder sends every MS ms, and one write of 1 MiB into
 * a pipe a slow reader empties. Every signal a program can catch is counted
 * but those the profiler samples on (SIGTRAP, real-time signals), faults
 * and the one sigtimedwait waits for.
 * An EINTR, a short count, a wait that ends before its time or any signal
 * caught: a line on stderr and exit status 3. stdout: "strictcalls: ok".
 */
#define _GNU_SOURCE /* semtimedop */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define S_BIG (1u << 20)

static int s_rounds = 20, s_ms = 5;
static volatile sig_atomic_t s_signals;
static pthread_mutex_t s_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t s_cmutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t s_cond = PTHREAD_COND_INITIALIZER;
static int s_feed[2], s_big[2], s_sock[2], s_msq = -1, s_sem = -1;

struct s_msg {
	long type;
	char c;
};

static uint64_t s_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void s_fail(const char *call, const char *what)
{
	fprintf(stderr, "strictcalls: %s: %s\n", call, what);
	exit(3);
}

/* The call returned rc (0 is success unless said otherwise), err its errno. */
static void s_check(const char *call, int bad, int err)
{
	if (bad)
		s_fail(call, err == EINTR ? "EINTR" : strerror(err));
}

/* A wait of want ns that began at t0 (on clk) must not end early. */
static void s_not_early(const char *call, clockid_t clk, uint64_t t0, uint64_t want)
{
	if (s_now(clk) - t0 < want)
		s_fail(call, "woke up before its time");
}

static struct timespec s_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ull),
				  .tv_nsec = (long)(ns % 1000000000ull) };
}

static void s_sleeps(void)
{
	uint64_t ns = (uint64_t)s_ms * 1000000ull, t0;
	struct timespec ts = s_ts(ns), abs;

	t0 = s_now(CLOCK_MONOTONIC);
	s_check("nanosleep", nanosleep(&ts, NULL) != 0, errno);
	s_not_early("nanosleep", CLOCK_MONOTONIC, t0, ns);
	t0 = s_now(CLOCK_MONOTONIC);
	s_check("clock_nanosleep", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL), EINTR);
	s_not_early("clock_nanosleep", CLOCK_MONOTONIC, t0, ns);
	t0 = s_now(CLOCK_MONOTONIC);
	abs = s_ts(t0 + ns);
	s_check("clock_nanosleep(TIMER_ABSTIME)",
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL), EINTR);
	s_not_early("clock_nanosleep(TIMER_ABSTIME)", CLOCK_MONOTONIC, t0, ns);
}

static void s_polls(int ep)
{
	uint64_t t0 = s_now(CLOCK_MONOTONIC), ns = (uint64_t)s_ms * 1000000ull;
	struct epoll_event ev;
	struct timeval tv = { .tv_sec = 0, .tv_usec = s_ms * 1000 };
	int rc = poll(NULL, 0, s_ms);

	s_check("poll", rc != 0, errno);
	s_not_early("poll", CLOCK_MONOTONIC, t0, ns);
	t0 = s_now(CLOCK_MONOTONIC);
	rc = select(0, NULL, NULL, NULL, &tv);
	s_check("select", rc != 0, errno);
	s_not_early("select", CLOCK_MONOTONIC, t0, ns);
	t0 = s_now(CLOCK_MONOTONIC);
	rc = epoll_wait(ep, &ev, 1, s_ms);
	s_check("epoll_wait", rc != 0, errno);
	s_not_early("epoll_wait", CLOCK_MONOTONIC, t0, ns);
}

static void s_timed(sem_t *sem, const sigset_t *set)
{
	uint64_t ns = (uint64_t)s_ms * 1000000ull, t0 = s_now(CLOCK_REALTIME);
	struct timespec abs = s_ts(t0 + ns), rel = s_ts(ns);
	int rc;

	pthread_mutex_lock(&s_cmutex);
	rc = pthread_cond_timedwait(&s_cond, &s_cmutex, &abs);
	pthread_mutex_unlock(&s_cmutex);
	s_check("pthread_cond_timedwait", rc != ETIMEDOUT, rc);
	s_not_early("pthread_cond_timedwait", CLOCK_REALTIME, t0, ns);
	t0 = s_now(CLOCK_REALTIME);
	abs = s_ts(t0 + ns);
	rc = sem_timedwait(sem, &abs);
	s_check("sem_timedwait", rc != -1 || errno != ETIMEDOUT, errno);
	s_not_early("sem_timedwait", CLOCK_REALTIME, t0, ns);
	t0 = s_now(CLOCK_MONOTONIC);
	rc = sigtimedwait(set, NULL, &rel);
	s_check("sigtimedwait", rc != -1 || errno != EAGAIN, rc == -1 ? errno : EIO);
	s_not_early("sigtimedwait", CLOCK_MONOTONIC, t0, ns);
}

/* recv with SO_RCVTIMEO, semtimedop, msgrcv. */
static void s_sysv(void)
{
	uint64_t ns = (uint64_t)s_ms * 1000000ull, t0 = s_now(CLOCK_MONOTONIC);
	struct timespec rel = s_ts(ns);
	struct sembuf op = { .sem_num = 0, .sem_op = -1 };
	struct s_msg m;
	char c;
	ssize_t n = recv(s_sock[0], &c, 1, 0);

	s_check("recv with SO_RCVTIMEO", n != -1 || (errno != EAGAIN && errno != EWOULDBLOCK),
		n < 0 ? errno : EIO);
	/* SO_RCVTIMEO counts in jiffies, and may end up to one early */
	s_not_early("recv with SO_RCVTIMEO", CLOCK_MONOTONIC, t0, ns / 2);
	t0 = s_now(CLOCK_MONOTONIC);
	s_check("semtimedop", semtimedop(s_sem, &op, 1, &rel) != -1 || errno != EAGAIN, errno);
	s_not_early("semtimedop", CLOCK_MONOTONIC, t0, ns);
	n = msgrcv(s_msq, &m, sizeof(m.c), 0, 0);
	s_check("msgrcv", n != (ssize_t)sizeof(m.c), n < 0 ? errno : EIO);
}

static void s_sysv_remove(void)
{
	if (s_msq >= 0)
		msgctl(s_msq, IPC_RMID, NULL);
	if (s_sem >= 0)
		semctl(s_sem, 0, IPC_RMID);
}

/* Waits in several calls; a thread of its own per group. */
static void *s_waiter(void *arg)
{
	int which = (int)(intptr_t)arg, ep = epoll_create1(EPOLL_CLOEXEC);
	sigset_t set;
	sem_t sem;
	char c;

	sem_init(&sem, 0, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < s_rounds; i++) {
		switch (which) {
		case 0: s_sleeps(); break;
		case 1: s_polls(ep); break;
		case 2: s_timed(&sem, &set); break;
		case 3: {
			ssize_t n = read(s_feed[0], &c, 1);

			s_check("read", n != 1, n < 0 ? errno : EIO);
			break;
		}
		case 4: {
			int rc = pthread_mutex_lock(&s_mutex);

			s_check("pthread_mutex_lock", rc != 0, rc);
			pthread_mutex_unlock(&s_mutex);
			break;
		}
		case 5: s_sysv(); break;
		}
	}
	close(ep);
	return NULL;
}

/* Writes a byte every s_ms ms, and holds the mutex for s_ms ms in between. */
static void *s_feeder(void *arg)
{
	struct timespec ts = s_ts((uint64_t)s_ms * 1000000ull);

	(void)arg;
	for (int i = 0; i < s_rounds; i++) {
		pthread_mutex_lock(&s_mutex);
		s_check("nanosleep", nanosleep(&ts, NULL) != 0, errno);
		pthread_mutex_unlock(&s_mutex);
		s_check("write", write(s_feed[1], "x", 1) != 1, errno);
		s_check("msgsnd", msgsnd(s_msq, &(struct s_msg){ .type = 1, .c = 'x' },
					 sizeof(char), 0) != 0, errno);
		s_check("nanosleep", nanosleep(&ts, NULL) != 0, errno);
	}
	return NULL;
}

/* One write of 1 MiB into a pipe of 64 KiB: it blocks until the reader took it all. */
static void *s_big_writer(void *arg)
{
	char *buf = calloc(1, S_BIG);
	ssize_t n;

	(void)arg;
	if (!buf)
		s_fail("calloc", "out of memory");
	n = write(s_big[1], buf, S_BIG);
	if (n != (ssize_t)S_BIG)
		s_fail("write of 1 MiB", n < 0 ? (errno == EINTR ? "EINTR" : strerror(errno)) :
			"short count");
	free(buf);
	close(s_big[1]);
	return NULL;
}

static void s_big_reader(void)
{
	static char buf[16384];
	struct timespec ts = s_ts(1000000ull);
	size_t total = 0;
	ssize_t n;

	while ((n = read(s_big[0], buf, sizeof(buf))) > 0) {
		total += (size_t)n;
		nanosleep(&ts, NULL);
	}
	if (n < 0 || total != S_BIG)
		s_fail("read of 1 MiB", n < 0 ? strerror(errno) : "short total");
}

static void s_count(int sig)
{
	(void)sig;
	s_signals++;
}

int main(int argc, char **argv)
{
	pthread_t th[8];
	struct timeval tv;
	struct sigaction sa = { .sa_handler = s_count };

	if (argc > 1)
		s_rounds = atoi(argv[1]);
	if (argc > 2)
		s_ms = atoi(argv[2]);
	if (s_rounds < 1 || s_ms < 1 || pipe(s_feed) || pipe(s_big) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, s_sock))
		return 2;
	tv = (struct timeval){ .tv_sec = 0, .tv_usec = s_ms * 1000 };
	s_msq = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	s_sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	atexit(s_sysv_remove);
	if (s_msq < 0 || s_sem < 0 ||
	    setsockopt(s_sock[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return 2;
	/* Every signal a program can catch, but the profiler's own sampling ones. */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGTRAP && sig != SIGCHLD &&
		    sig != SIGUSR2 && sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE &&
		    sig != SIGILL && sig != SIGABRT && (sig < SIGRTMIN || sig > SIGRTMAX))
			sigaction(sig, &sa, NULL);
	for (int i = 0; i < 6; i++)
		pthread_create(&th[i], NULL, s_waiter, (void *)(intptr_t)i);
	pthread_create(&th[6], NULL, s_feeder, NULL);
	pthread_create(&th[7], NULL, s_big_writer, NULL);
	s_big_reader();
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	if (s_signals) {
		fprintf(stderr, "strictcalls: %d signals caught\n", (int)s_signals);
		return 3;
	}
	printf("strictcalls: ok\n");
	return 0;
}
