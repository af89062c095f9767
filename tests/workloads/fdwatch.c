/*
 * fdwatch: a program that watches its own descriptors while its threads
 * wait, over and over (the wall event's helper looks at each wait).
 *
 *   fdwatch SCANS NAPPERS
 *
 * NAPPERS threads sleep 2 ms at a time (each has napped 3 times before the
 * watch begins) until the main thread has scanned its descriptors SCANS
 * times: each scan asks fcntl(F_GETFD) of every
 * number from 0 to 63 and, every 16th scan, opens /dev/null (the lowest
 * free number) and closes it. Numbers open at the start are the program's;
 * any other number seen open, and any open() that does not return the
 * lowest number free at the start, is a descriptor the program did not
 * make. stdout: "fdwatch: SCANS scans, OPENS opens, N naps, foreign K"
 * with K the scans that saw one, and the first such number with what it
 * named; exit status 0
 * when K is 0, 1 when not, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define FDWATCH_MAX 64

static volatile int fdwatch_done;
static unsigned long fdwatch_naps[64];

static void *fdwatch_napper(void *arg)
{
	unsigned long *naps = arg;
	struct timespec ts = { 0, 2000000 };

	while (!__atomic_load_n(&fdwatch_done, __ATOMIC_RELAXED)) {
		nanosleep(&ts, NULL);
		__atomic_add_fetch(naps, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long scans = argc > 1 ? atol(argv[1]) : 0, nappers = argc > 2 ? atol(argv[2]) : 0;
	unsigned long foreign = 0, opens = 0, naps = 0;
	int start[FDWATCH_MAX], lowest = -1, first = -1;
	char what[256] = "";
	pthread_t th[64];

	if (argc != 3 || scans <= 0 || nappers <= 0 || nappers > 64) {
		fprintf(stderr, "usage: fdwatch SCANS NAPPERS (1-64)\n");
		return 2;
	}
	for (long i = 0; i < nappers; i++)
		if (pthread_create(&th[i], NULL, fdwatch_napper, &fdwatch_naps[i]) != 0)
			return 2;
	/* The nappers under way (a profiler's per-thread setup done) before the watch. */
	for (long i = 0; i < nappers; i++)
		while (__atomic_load_n(&fdwatch_naps[i], __ATOMIC_RELAXED) < 3)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	for (int fd = 0; fd < FDWATCH_MAX; fd++) {
		start[fd] = fcntl(fd, F_GETFD) >= 0;
		if (!start[fd] && lowest < 0)
			lowest = fd;
	}
	for (long s = 0; s < scans; s++) {
		int seen = -1;

		for (int fd = 0; fd < FDWATCH_MAX && seen < 0; fd++)
			if (!start[fd] && fcntl(fd, F_GETFD) >= 0)
				seen = fd;
		if (seen < 0 && s % 16 == 0) {
			int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

			opens++;
			if (fd != lowest)
				seen = fd;
			if (fd >= 0)
				close(fd);
		}
		if (seen >= 0 && !foreign++) {
			char link[64];
			ssize_t n;

			first = seen;
			/* What it named, while it is there (readlink opens nothing). */
			snprintf(link, sizeof(link), "/proc/self/fd/%d", seen);
			n = readlink(link, what, sizeof(what) - 1);
			what[n > 0 ? n : 0] = '\0';
		}
	}
	__atomic_store_n(&fdwatch_done, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < nappers; i++) {
		pthread_join(th[i], NULL);
		naps += fdwatch_naps[i];
	}
	printf("fdwatch: %ld scans, %lu opens, %lu naps, foreign %lu", scans, opens, naps,
	       foreign);
	if (foreign)
		printf(" (first %d: %s; lowest free at the start %d)", first, what[0] ? what : "gone",
		       lowest);
	printf("\n");
	return foreign ? 1 : 0;
}
