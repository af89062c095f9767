/*
 * threads' process directory (preload/sigsafe/threads.h): made once, by
 * the first thread that asks; the others wait for it, however long its
 * maker is kept off the CPU (up to a bound), and a signal that comes in
 * while a thread makes it does not wait for that thread.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sigsafe/logfile.h"
#include "sigsafe/threads.h"

/* A process's output as the preload sets it up: <root>/<name>.log, the directory not made. */
struct td_root {
	char root[64];
	char path[128];
	struct pp_thread_dir dir;
};

static void td_setup(struct td_root *r)
{
	char log[160];
	int fd;

	strcpy(r->root, "/tmp/pa-threads-dir-XXXXXX");
	cr_assert(mkdtemp(r->root), "mkdtemp: %s", strerror(errno));
	snprintf(r->path, sizeof(r->path), "%s/app.1", r->root);
	snprintf(log, sizeof(log), "%s.log", r->path);
	fd = open(log, O_CREAT | O_EXCL | O_WRONLY, 0600);
	cr_assert_geq(fd, 0, "%s: %s", log, strerror(errno));
	close(fd);
	r->dir = (struct pp_thread_dir){ .fd = -1, .pid = (int)getpid(), .path = r->path,
					 .root = r->root, .name = "app.1" };
	r->dir.rootfd = open(r->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(r->dir.rootfd, 0);
	pp_logfile_same_file_sigsafe(r->dir.rootfd, &r->dir.root_dev, &r->dir.root_ino);
}

static double td_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The directory is there, with the process's log moved into it. */
static void td_expect_made(const struct td_root *r)
{
	char file[192];
	struct stat st;

	snprintf(file, sizeof(file), "%s/process.log", r->path);
	cr_expect_eq(stat(file, &st), 0, "%s: %s", file, strerror(errno));
	cr_expect_geq(r->dir.fd, 0, "no descriptor of the directory");
}

struct td_racer {
	struct td_root *r;
	pthread_barrier_t *go;
	int err;
};

static void *td_race(void *arg)
{
	struct td_racer *x = arg;

	pthread_barrier_wait(x->go);
	x->err = pp_threads_dir_sigsafe(&x->r->dir);
	return NULL;
}

/* Threads that ask at once: one makes it, every one gets it. */
Test(threads_dir, threads_asking_at_once_all_get_it)
{
	enum { N = 16 };
	struct td_root r;
	struct td_racer x[N];
	pthread_t th[N];
	pthread_barrier_t go;

	td_setup(&r);
	pthread_barrier_init(&go, NULL, N);
	for (int i = 0; i < N; i++) {
		x[i] = (struct td_racer){ .r = &r, .go = &go, .err = -1 };
		cr_assert_eq(pthread_create(&th[i], NULL, td_race, &x[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		cr_expect_eq(x[i].err, 0, "thread %d: %s", i, strerror(-x[i].err));
	}
	td_expect_made(&r);
}

struct td_maker {
	struct pp_thread_dir *dir;
	double hold_s;
	int tid;
};

/*
 * Stands for a maker kept off the CPU: holds the directory as being made
 * for hold_s, then makes it as the first asker would.
 */
static void *td_slow_maker(void *arg)
{
	struct td_maker *m = arg;
	struct timespec ts = { .tv_sec = (time_t)m->hold_s,
			       .tv_nsec = (long)((m->hold_s - (double)(time_t)m->hold_s) * 1e9) };

	nanosleep(&ts, NULL);
	__atomic_store_n(&m->dir->state, PP_THREADS_DIR_NONE, __ATOMIC_RELEASE);
	cr_assert_eq(pp_threads_dir_sigsafe(m->dir), 0);
	return NULL;
}

/*
 * A maker preempted long (here 0.3 s, a thousand times what its system
 * calls take): a thread that asks meanwhile waits, and gets the directory
 * (it used to give up after some yields, and a thread that ended then was
 * said to have run out of descriptors).
 */
Test(threads_dir, a_slow_maker_is_waited_for)
{
	struct td_root r;
	struct td_maker m;
	pthread_t th;
	double t0;
	int err;

	td_setup(&r);
	m = (struct td_maker){ .dir = &r.dir, .hold_s = 0.3 };
	r.dir.state = PP_THREADS_DIR_MAKING;
	r.dir.maker = -1;
	cr_assert_eq(pthread_create(&th, NULL, td_slow_maker, &m), 0);
	t0 = td_now();
	err = pp_threads_dir_sigsafe(&r.dir);
	cr_expect_eq(err, 0, "gave up after %.3f s: %s", td_now() - t0, strerror(-err));
	pthread_join(th, NULL);
	td_expect_made(&r);
}

/*
 * A signal handler that asks in the thread making it (it interrupted the
 * maker) does not wait for itself: it is told at once to come back later,
 * and the maker then finishes.
 */
Test(threads_dir, the_maker_itself_is_not_waited_for)
{
	struct td_root r;
	double t0;

	td_setup(&r);
	r.dir.state = PP_THREADS_DIR_MAKING;
	r.dir.maker = pp_threads_gettid_sigsafe();
	t0 = td_now();
	cr_expect_eq(pp_threads_dir_sigsafe(&r.dir), -EINPROGRESS);
	cr_expect_lt(td_now() - t0, 1.0, "waited %.3f s for itself", td_now() - t0);
	r.dir.state = PP_THREADS_DIR_NONE;
	cr_expect_eq(pp_threads_dir_sigsafe(&r.dir), 0);
	td_expect_made(&r);
}

/*
 * A maker that never finishes (stopped for good): the wait ends, and says
 * so, and nothing is made; the next asker (a sample) is not held as long.
 */
Test(threads_dir, a_maker_that_never_finishes_is_given_up, .timeout = 60)
{
	struct td_root r;
	char file[192];
	struct stat st;
	double t0, first;

	td_setup(&r);
	r.dir.state = PP_THREADS_DIR_MAKING;
	r.dir.maker = -1;
	t0 = td_now();
	cr_expect_eq(pp_threads_dir_sigsafe(&r.dir), -EINPROGRESS);
	first = td_now() - t0;
	snprintf(file, sizeof(file), "%s.log", r.path);
	cr_expect_eq(stat(file, &st), 0, "the process's log moved: %s", strerror(errno));
	t0 = td_now();
	cr_expect_eq(pp_threads_dir_sigsafe(&r.dir), -EINPROGRESS);
	cr_expect_lt(td_now() - t0, first / 2, "the second wait took %.3f s, the first %.3f s",
		     td_now() - t0, first);
}
