/*
 * sigevthreads: work done in SIGEV_THREAD notifications, whose threads
 * glibc makes itself: a timer_create timer that fires every 20 ms, its
 * callback burning MS milliseconds of its thread's CPU in burn_timer, COUNT
 * times; then a POSIX message queue whose mq_notify callback burns MS in
 * burn_queue, takes the message and registers again, COUNT times. Prints
 * the CPU time each callback kind measured, and how many signals the
 * first callback of each kind found blocked in its mask (glibc's choice:
 * every one for a timer's, none for mq_notify's).
 *
 *   sigevthreads [COUNT [MS]]   (20 callbacks of 5 ms each by default)
 */
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "wl.h"

WL_BURNER(burn_timer, 0x74696d65)
WL_BURNER(burn_queue, 0x71756575)

static double sigev_ms;
static int sigev_count;
static pthread_mutex_t sigev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sigev_cond = PTHREAD_COND_INITIALIZER;
static int sigev_timer_calls, sigev_queue_calls;
static double sigev_timer_cpu, sigev_queue_cpu;
static int sigev_timer_blocked = -1, sigev_queue_blocked = -1;
static mqd_t sigev_mq;
static struct sigevent sigev_mq_ev;

/* How many of the signals 1 to SIGRTMAX the calling thread's mask blocks. */
static int sigev_blocked(void)
{
	sigset_t set;
	int n = 0;

	pthread_sigmask(SIG_BLOCK, NULL, &set);
	for (int sig = 1; sig <= SIGRTMAX; sig++)
		n += sigismember(&set, sig) == 1;
	return n;
}

/* Counts one call that took cpu seconds into *calls and *sum. */
static void sigev_done(int *calls, double *sum, double cpu)
{
	pthread_mutex_lock(&sigev_lock);
	(*calls)++;
	*sum += cpu;
	pthread_cond_broadcast(&sigev_cond);
	pthread_mutex_unlock(&sigev_lock);
}

static void sigev_on_timer(union sigval v)
{
	double start = wl_thread_cpu();

	(void)v;
	if (__atomic_load_n(&sigev_timer_calls, __ATOMIC_RELAXED) >= sigev_count)
		return;
	if (__atomic_load_n(&sigev_timer_blocked, __ATOMIC_RELAXED) < 0)
		__atomic_store_n(&sigev_timer_blocked, sigev_blocked(), __ATOMIC_RELAXED);
	burn_timer(sigev_ms / 1000);
	sigev_done(&sigev_timer_calls, &sigev_timer_cpu, wl_thread_cpu() - start);
}

static void sigev_on_message(union sigval v)
{
	double start = wl_thread_cpu();
	char buf[64];

	(void)v;
	if (sigev_queue_blocked < 0)
		sigev_queue_blocked = sigev_blocked();
	burn_queue(sigev_ms / 1000);
	if (mq_notify(sigev_mq, &sigev_mq_ev) != 0)
		perror("sigevthreads: mq_notify");
	if (mq_receive(sigev_mq, buf, sizeof(buf), NULL) < 0)
		perror("sigevthreads: mq_receive");
	sigev_done(&sigev_queue_calls, &sigev_queue_cpu, wl_thread_cpu() - start);
}

/* Waits until *calls reaches n. */
static void sigev_wait(const int *calls, int n)
{
	pthread_mutex_lock(&sigev_lock);
	while (*calls < n)
		pthread_cond_wait(&sigev_cond, &sigev_lock);
	pthread_mutex_unlock(&sigev_lock);
}

int main(int argc, char **argv)
{
	struct sigevent ev;
	struct itimerspec every = { .it_interval = { .tv_nsec = 20000000 },
				    .it_value = { .tv_nsec = 20000000 } }, off;
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 8 };
	char name[64];
	timer_t timer;

	sigev_count = argc > 1 ? atoi(argv[1]) : 20;
	sigev_ms = argc > 2 ? atof(argv[2]) : 5;
	if (sigev_count < 1 || sigev_count > 10000 || sigev_ms <= 0 || sigev_ms > 1000) {
		fprintf(stderr, "usage: sigevthreads [COUNT [MS]]\n");
		return 2;
	}
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD;
	ev.sigev_notify_function = sigev_on_timer;
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0 ||
	    timer_settime(timer, 0, &every, NULL) != 0) {
		perror("sigevthreads: timer");
		return 1;
	}
	sigev_wait(&sigev_timer_calls, sigev_count);
	memset(&off, 0, sizeof(off));
	timer_settime(timer, 0, &off, NULL);
	timer_delete(timer);

	snprintf(name, sizeof(name), "/sigevthreads.%d", (int)getpid());
	sigev_mq = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
	if (sigev_mq == (mqd_t)-1) {
		perror("sigevthreads: mq_open");
		return 1;
	}
	mq_unlink(name);
	memset(&sigev_mq_ev, 0, sizeof(sigev_mq_ev));
	sigev_mq_ev.sigev_notify = SIGEV_THREAD;
	sigev_mq_ev.sigev_notify_function = sigev_on_message;
	if (mq_notify(sigev_mq, &sigev_mq_ev) != 0) {
		perror("sigevthreads: mq_notify");
		return 1;
	}
	for (int i = 0; i < sigev_count; i++) {
		if (mq_send(sigev_mq, "x", 1, 0) != 0) {
			perror("sigevthreads: mq_send");
			return 1;
		}
		sigev_wait(&sigev_queue_calls, i + 1);
	}
	printf("sigevthreads: timer %d calls %.6f s queue %d calls %.6f s\n", sigev_timer_calls,
	       sigev_timer_cpu, sigev_queue_calls, sigev_queue_cpu);
	printf("blocked: timer %d queue %d\n", sigev_timer_blocked, sigev_queue_blocked);
	return 0;
}
