/*
 * tightthreads: a program that runs close to its limits. It makes COUNT
 * threads, all alive at once, each with a stack of STACK_KIB (0: the
 * default) that opens FILES descriptors of its own (/dev/null) and keeps
 * them; once every thread is made (or could not be) and holds its files,
 * each burns SECONDS of CPU in burn_tight, closes its files and ends. main
 * burns as long.
 *
 *   tightthreads COUNT [FILES [STACK_KIB [SECONDS]]]   (0, 0, 0 by default)
 *
 * stdout: "tightthreads: made M of COUNT threads, opened F of T files".
 * Exit status 0 when every thread was made and every file opened, else 1
 * (the first failure is said on stderr); 2 for bad arguments. Under
 * RLIMIT_AS or RLIMIT_NOFILE the tests find the smallest limit at which it
 * succeeds unprofiled, and check that it succeeds profiled too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

#define TIGHT_MAX 4096
#define TIGHT_FILES_MAX 64

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;           /* every thread main made has opened its files */
	long arrived;     /* threads that opened their files (or failed to) */
	long opened;      /* files opened by all threads */
	int open_error;   /* errno of the first open that failed */
	long files;
	double seconds;
} tight = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0 };

static volatile uint64_t tight_sink;

__attribute__((noinline)) void burn_tight(void);

__attribute__((noinline)) void burn_tight(void)
{
	double end = wl_thread_cpu() + tight.seconds;

	while (wl_thread_cpu() < end)
		tight_sink += wl_burn(WL_CHUNK / 10, 0x7469676874);
}

static void *tight_main(void *arg)
{
	int fds[TIGHT_FILES_MAX];
	long n = 0;

	(void)arg;
	for (; n < tight.files; n++) {
		fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fds[n] < 0)
			break;
	}
	pthread_mutex_lock(&tight.lock);
	tight.opened += n;
	if (n < tight.files && !tight.open_error)
		tight.open_error = errno;
	tight.arrived++;
	pthread_cond_broadcast(&tight.cond);
	while (!tight.go)
		pthread_cond_wait(&tight.cond, &tight.lock);
	pthread_mutex_unlock(&tight.lock);
	burn_tight();
	while (n > 0)
		close(fds[--n]);
	return NULL;
}

static long tight_arg(const char *text, long max)
{
	char *end;
	long v = strtol(text, &end, 10);

	if (end == text || *end || v < 0 || v > max) {
		fprintf(stderr, "tightthreads: %s: expected 0 to %ld\n", text, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static pthread_t th[TIGHT_MAX];
	long count, made = 0, stack_kib;
	pthread_attr_t attr;
	int err = 0;

	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: tightthreads COUNT [FILES [STACK_KIB [SECONDS]]]\n");
		return 2;
	}
	count = tight_arg(argv[1], TIGHT_MAX);
	tight.files = argc > 2 ? tight_arg(argv[2], TIGHT_FILES_MAX) : 0;
	stack_kib = argc > 3 ? tight_arg(argv[3], 1 << 20) : 0;
	tight.seconds = wl_seconds(argc > 4 ? argv[4] : NULL, 0);
	pthread_attr_init(&attr);
	if (stack_kib && pthread_attr_setstacksize(&attr, (size_t)stack_kib << 10) != 0) {
		fprintf(stderr, "tightthreads: bad stack size %ld KiB\n", stack_kib);
		return 2;
	}
	while (made < count && (err = pthread_create(&th[made], &attr, tight_main, NULL)) == 0)
		made++;
	if (made < count)
		fprintf(stderr, "tightthreads: cannot make thread %ld: %s\n", made + 1,
			strerror(err));
	pthread_mutex_lock(&tight.lock);
	while (tight.arrived < made)
		pthread_cond_wait(&tight.cond, &tight.lock);
	tight.go = 1;
	pthread_cond_broadcast(&tight.cond);
	pthread_mutex_unlock(&tight.lock);
	burn_tight();
	for (long i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	if (tight.open_error)
		fprintf(stderr, "tightthreads: cannot open /dev/null: %s\n",
			strerror(tight.open_error));
	printf("tightthreads: made %ld of %ld threads, opened %ld of %ld files\n", made,
	       count, tight.opened, count * tight.files);
	return made == count && tight.opened == count * tight.files ? 0 : 1;
}
