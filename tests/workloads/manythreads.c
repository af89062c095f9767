/*
 * manythreads: creates COUNT short-lived threads one after another (each
 * burns a little CPU in burn_short and returns, or ends by pthread_exit or
 * by cancellation, in turn), joins each, and prints how many file
 * descriptors and how much resident memory the process had after the first
 * thread and at the end (on stderr, unless --no-usage is given: the numbers
 * differ with and without the profiler).
 *
 *   manythreads [COUNT] [--no-usage]   (COUNT default 1000)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

static volatile uint64_t many_sink;

__attribute__((noinline)) void burn_short(void)
{
	many_sink += wl_burn(WL_CHUNK, many_sink);
}

static void *many_main(void *arg)
{
	long how = (long)arg;

	burn_short();
	if (how == 1)
		pthread_exit(NULL);
	if (how == 2) {
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
		for (;;)
			pthread_testcancel();
	}
	return NULL;
}

static int many_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static long many_rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = atol(line + 6);
	if (f)
		fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 1000;
	int usage = !(argc > 2 && strcmp(argv[2], "--no-usage") == 0);
	int fds_first = 0;
	long rss_first = 0;

	for (long i = 0; i < count; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, many_main, (void *)(i % 3)) != 0)
			return 1;
		if (i % 3 == 2)
			pthread_cancel(t);
		pthread_join(t, NULL);
		if (i == 0) {
			fds_first = many_fds();
			rss_first = many_rss_kib();
		}
	}
	/* To stderr: the numbers differ with and without the profiler. */
	if (usage)
		fprintf(stderr, "fds %d %d rss %ld %ld\n", fds_first, many_fds(),
			rss_first, many_rss_kib());
	printf("manythreads: %ld threads\n", count);
	return 0;
}
