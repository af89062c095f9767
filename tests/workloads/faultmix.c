/*
 * faultmix: two functions that touch fresh pages at very different rates,
 * for sampling page faults at a frequency (the kernel adjusts the period
 * as it goes, so samples stand for different numbers of faults):
 *   fault_slow  touches a page, then burns about SPIN_US of CPU, SLOW times;
 *   fault_fast  touches FAST pages in a row.
 * Both take their pages from one fresh anonymous mapping each, without
 * transparent huge pages, so that every page is one minor fault. ROUNDS
 * rounds alternate them, so that the rate of faults, and the period the
 * kernel picks, keeps changing. By the number of samples fault_slow takes
 * most (it runs longest); by the faults, each takes its own.
 *
 *   faultmix [ROUNDS [SLOW [FAST [SPIN_US]]]]   default 4 rounds of 500 and
 *                                               5000 pages, 100 us
 *
 * stdout: "faultmix: done". When PPROF_TRUTH names a file, it gets one line
 * per function: "NAME FAULTS", the minor faults the process had while the
 * function ran (getrusage), summed over the rounds.
 */
#define _GNU_SOURCE /* MADV_NOHUGEPAGE */
#include <sys/mman.h>

#include "wl.h"

static volatile uint64_t mix_sink;

__attribute__((noinline)) void fault_slow(char *p, size_t pages, size_t page, double spin_s);
__attribute__((noinline)) void fault_fast(char *p, size_t pages, size_t page);

static long mix_minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static double mix_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) void fault_slow(char *p, size_t pages, size_t page, double spin_s)
{
	for (size_t i = 0; i < pages; i++) {
		double until = mix_cpu() + spin_s;

		p[i * page] = 1;
		while (mix_cpu() < until)
			mix_sink += wl_burn(200, i);
	}
}

__attribute__((noinline)) void fault_fast(char *p, size_t pages, size_t page)
{
	for (size_t i = 0; i < pages; i++)
		p[i * page] = 1;
}

/* A fresh mapping of pages pages, each to fault in on its first touch. */
static char *mix_map(size_t pages, size_t page)
{
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("faultmix: mmap");
		exit(1);
	}
	madvise(p, pages * page, MADV_NOHUGEPAGE);
	return p;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 8;
	size_t nslow = argc > 2 ? (size_t)atol(argv[2]) : 500;
	size_t nfast = argc > 3 ? (size_t)atol(argv[3]) : 5000;
	double spin_s = (argc > 4 ? atof(argv[4]) : 100) * 1e-6;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	long slow = 0, fast = 0;
	const char *path = getenv("PPROF_TRUTH");

	if (rounds < 1 || nslow < 1 || nfast < 1) {
		fprintf(stderr, "usage: faultmix [ROUNDS [SLOW [FAST [SPIN_US]]]]\n");
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		char *a = mix_map(nslow, page), *b = mix_map(nfast, page);
		long f0 = mix_minflt(), f1, f2;

		fault_slow(a, nslow, page, spin_s);
		f1 = mix_minflt();
		fault_fast(b, nfast, page);
		f2 = mix_minflt();
		slow += f1 - f0;
		fast += f2 - f1;
		munmap(a, nslow * page);
		munmap(b, nfast * page);
	}
	if (path) {
		FILE *f = fopen(path, "w");

		if (!f || fprintf(f, "fault_slow %ld\nfault_fast %ld\n", slow, fast) < 0 ||
		    fclose(f) != 0) {
			perror(path);
			return 1;
		}
	}
	printf("faultmix: done\n");
	return 0;
}
