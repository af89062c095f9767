/*
 * maskcost: what a pthread_sigmask call costs the program, the profiler's
 * wrapper included when it runs under the preload (masks.h): N calls in
 * pairs (block three signals, among them SIGTRAP and SIGPROF, then set the
 * old mask back), the median of ROUNDS rounds, in ns per call.
 *
 *   maskcost [N [ROUNDS]]   default 1,000,000 calls, 5 rounds
 *
 * stdout: "maskcost: N calls, X ns per call (median of ROUNDS rounds)".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MASKCOST_ROUNDS_MAX 99

static double maskcost_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int maskcost_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double ns[MASKCOST_ROUNDS_MAX];
	sigset_t set, old;

	if (n < 2 || rounds < 1 || rounds > MASKCOST_ROUNDS_MAX) {
		fprintf(stderr, "usage: maskcost [N >= 2 [ROUNDS 1..%d]]\n", MASKCOST_ROUNDS_MAX);
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	sigaddset(&set, SIGPROF);
	sigaddset(&set, SIGUSR1);
	for (int r = 0; r < rounds; r++) {
		double t0 = maskcost_now();

		for (long i = 0; i < n / 2; i++) {
			pthread_sigmask(SIG_BLOCK, &set, &old);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		}
		ns[r] = (maskcost_now() - t0) * 1e9 / (double)(n / 2 * 2);
	}
	qsort(ns, (size_t)rounds, sizeof(ns[0]), maskcost_cmp);
	printf("maskcost: %ld calls, %.1f ns per call (median of %d rounds)\n", n / 2 * 2,
	       ns[rounds / 2], rounds);
	return 0;
}
