/* procio: descriptor work in a table of the profiler's own; see procio.h. */
#include "procio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hooks.h"
#include "sigsafe/fd.h"
#include "sigsafe/threads.h"

/* The thread's stack: reads and one dlopen. */
#define PP_PROCIO_STACK (128 * 1024)
/* Descriptors closed one by one where close_range is missing (before 5.9), at most. */
#define PP_PROCIO_CLOSE_MAX 65536

static struct {
	pthread_mutex_t mutex;  /* the request's fields, and one client at a time */
	pthread_mutex_t client;
	pthread_cond_t wake;
	pthread_t thread;
	int running;            /* made, and not told to stop */
	int ready;              /* its table is its own: 1, or a positive errno */
	int tid;
	int stop;
	void (*fn)(void *);     /* the request; NULL when none */
	void *arg;
	unsigned long long done; /* requests served */
} pp_procio = { .mutex = PTHREAD_MUTEX_INITIALIZER, .client = PTHREAD_MUTEX_INITIALIZER,
		.wake = PTHREAD_COND_INITIALIZER };

/* Closes every descriptor of the calling thread's (private) table. */
static void pp_procio_close_all(void)
{
	struct rlimit rl;
	unsigned long max;

	if (syscall(SYS_close_range, 0u, ~0u, 0u) != 0) {
		max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < PP_PROCIO_CLOSE_MAX ?
		      (unsigned long)rl.rlim_cur : PP_PROCIO_CLOSE_MAX;
		for (unsigned long fd = 0; fd < max; fd++)
			close((int)fd);
	}
	/* 0 to 2 hold /dev/null: a stray write to stdout or stderr here goes nowhere. */
	for (int i = 0; i < 3; i++)
		if (open("/dev/null", O_RDWR) < 0)
			break;
}

static void *pp_procio_main(void *arg)
{
	int ready = 1;

	(void)arg;
	pthread_setname_np(pthread_self(), "pprof-wall-io");
	/*
	 * A table of its own, a copy of the program's: the copies are closed
	 * at once, so that none keeps a file of the program's open (a pipe's
	 * end the program closed, say). Record locks are the table's: closing
	 * them releases none of the program's.
	 */
	if (unshare(CLONE_FILES) != 0) {
		ready = errno ? errno : EPERM;
	} else {
		pp_fd_table_private_sigsafe();
		pp_procio_close_all();
	}
	pthread_mutex_lock(&pp_procio.mutex);
	pp_procio.tid = pp_threads_gettid_sigsafe();
	pp_procio.ready = ready;
	pthread_cond_broadcast(&pp_procio.wake);
	while (ready == 1 && !pp_procio.stop) {
		if (!pp_procio.fn) {
			pthread_cond_wait(&pp_procio.wake, &pp_procio.mutex);
			continue;
		}
		pthread_mutex_unlock(&pp_procio.mutex);
		pp_procio.fn(pp_procio.arg);
		pthread_mutex_lock(&pp_procio.mutex);
		pp_procio.fn = NULL;
		pp_procio.done++;
		pthread_cond_broadcast(&pp_procio.wake);
	}
	pthread_mutex_unlock(&pp_procio.mutex);
	return NULL;
}

int pp_procio_start(void)
{
	pthread_attr_t attr;
	int err;

	if (pp_procio.running)
		return 0;
	pp_procio.ready = 0;
	pp_procio.stop = 0;
	pp_procio.fn = NULL;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PP_PROCIO_STACK);
	err = pp_hooks_create_helper(&pp_procio.thread, &attr, pp_procio_main, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		return err;
	pthread_mutex_lock(&pp_procio.mutex);
	while (!pp_procio.ready)
		pthread_cond_wait(&pp_procio.wake, &pp_procio.mutex);
	err = pp_procio.ready == 1 ? 0 : pp_procio.ready;
	pp_procio.running = !err;
	pthread_mutex_unlock(&pp_procio.mutex);
	if (err) {
		pthread_join(pp_procio.thread, NULL);
		pp_procio.tid = 0;
	}
	return err;
}

void pp_procio_stop(void)
{
	if (!pp_procio.running)
		return;
	pthread_mutex_lock(&pp_procio.client);
	pthread_mutex_lock(&pp_procio.mutex);
	pp_procio.stop = 1;
	pp_procio.running = 0;
	pthread_cond_broadcast(&pp_procio.wake);
	pthread_mutex_unlock(&pp_procio.mutex);
	pthread_join(pp_procio.thread, NULL);
	pp_procio.tid = 0;
	pthread_mutex_unlock(&pp_procio.client);
}

int pp_procio_tid(void)
{
	return pp_procio.running ? pp_procio.tid : 0;
}

unsigned long long pp_procio_cpu_ns(void)
{
	/* Its thread CPU clock, by tid (the kernel's posix-cpu-timers encoding). */
	int tid = pp_procio_tid();
	clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 6u);
	struct timespec ts;

	if (!tid || clock_gettime(clk, &ts) != 0)
		return 0;
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int pp_procio_call(void (*fn)(void *), void *arg)
{
	unsigned long long ticket;
	int ret = 0;

	if (!pp_procio.running)
		return -ENOTCONN;
	pthread_mutex_lock(&pp_procio.client);
	pthread_mutex_lock(&pp_procio.mutex);
	if (!pp_procio.running) {
		ret = -ENOTCONN;
		goto out;
	}
	pp_procio.fn = fn;
	pp_procio.arg = arg;
	ticket = pp_procio.done;
	pthread_cond_broadcast(&pp_procio.wake);
	while (pp_procio.done == ticket)
		pthread_cond_wait(&pp_procio.wake, &pp_procio.mutex);
out:
	pthread_mutex_unlock(&pp_procio.mutex);
	pthread_mutex_unlock(&pp_procio.client);
	return ret;
}

/* A read's request: pp_procio_read's arguments and result. */
struct pp_procio_rd {
	const char *path;
	char *buf;
	size_t size;
	ssize_t ret;
};

static void pp_procio_read_here(void *arg)
{
	struct pp_procio_rd *r = arg;
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		r->ret = -errno;
		return;
	}
	r->ret = read(fd, r->buf, r->size - 1);
	if (r->ret < 0)
		r->ret = -errno;
	close(fd);
}

ssize_t pp_procio_read(const char *path, char *buf, size_t size)
{
	struct pp_procio_rd r = { .path = path, .buf = buf, .size = size, .ret = -EINVAL };
	int err;

	if (!size)
		return -EINVAL;
	err = pp_procio_call(pp_procio_read_here, &r);
	if (err)
		return err;
	buf[r.ret > 0 ? r.ret : 0] = '\0';
	return r.ret;
}

void pp_procio_fork_child(void)
{
	pthread_mutex_init(&pp_procio.mutex, NULL);
	pthread_mutex_init(&pp_procio.client, NULL);
	pthread_cond_init(&pp_procio.wake, NULL);
	pp_procio.running = 0;
	pp_procio.ready = 0;
	pp_procio.tid = 0;
	pp_procio.fn = NULL;
}
