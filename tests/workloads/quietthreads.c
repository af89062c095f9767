/*
 * quietthreads: threads that take no sample. A thread named "quiet-one"
 * (pthread_setname_np) blocks on a pipe, using no CPU, until the main
 * thread is done; then, by the first argument:
 *
 *   quietthreads idle         main does nothing either: joins it and exits 0
 *   quietthreads busy SECONDS main burns SECONDS of CPU (burn_quiet), then
 *                             joins it and exits 0
 *   quietthreads hang SECONDS main burns SECONDS, prints "ready", then
 *                             sleeps until it is killed (quiet-one still
 *                             blocked)
 *   quietthreads exec         main execs /bin/true while quiet-one is
 *                             still blocked
 *
 * Every mode but hang prints "quietthreads: done" first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

static volatile uint64_t quiet_sink;
static int quiet_pipe[2];
static int quiet_started; /* atomic: quiet-one runs */

__attribute__((noinline)) void burn_quiet(double seconds);

__attribute__((noinline)) void burn_quiet(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		quiet_sink += wl_burn(WL_CHUNK / 4, quiet_sink);
}

static void *quiet_one(void *arg)
{
	char c;

	(void)arg;
	__atomic_store_n(&quiet_started, 1, __ATOMIC_RELEASE);
	while (read(quiet_pipe[0], &c, 1) < 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "idle";
	pthread_t th;

	if (pipe(quiet_pipe) != 0 || pthread_create(&th, NULL, quiet_one, NULL) != 0) {
		perror("quietthreads: pipe or pthread_create");
		return 1;
	}
	pthread_setname_np(th, "quiet-one");
	/* It runs (its start is behind it) before main goes on: exec would end it unseen. */
	while (!__atomic_load_n(&quiet_started, __ATOMIC_ACQUIRE))
		usleep(1000);
	if (strcmp(mode, "busy") == 0 || strcmp(mode, "hang") == 0)
		burn_quiet(wl_seconds(argc > 2 ? argv[2] : NULL, 0.3));
	if (strcmp(mode, "hang") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	printf("quietthreads: done\n");
	fflush(stdout);
	if (strcmp(mode, "exec") == 0) {
		execl("/bin/true", "true", (char *)NULL);
		perror("quietthreads: exec /bin/true");
		return 1;
	}
	if (write(quiet_pipe[1], "x", 1) != 1 || pthread_join(th, NULL) != 0) {
		perror("quietthreads: write or pthread_join");
		return 1;
	}
	return 0;
}
