/*
 * wallctx: what switch-record events cost a context switch, by how they are
 * opened (tests/bench/wall.sh). Two threads pass a byte through two pipes
 * N times (2 N waits); prints the process's CPU time per wait in us.
 *
 *   wallctx MODE N
 *     0  no perf event
 *     1  an inherited cpu-clock event (as the sigtrap mode's sampling
 *        event: every thread's event a clone of the first's)
 *     2  1, plus a dummy context_switch event with a ring in each thread
 *        (as the wall event does it with rings = thread)
 *     3  1, plus one inherited dummy context_switch event per CPU with a
 *        ring each, opened before the second thread starts (as the wall
 *        event does it with rings = cpu)
 *
 * A thread's perf context holding only inherited events stays a clone of
 * its siblings', and the kernel swaps two such contexts at a switch instead
 * of scheduling each event out and in (the cpu-clock's timer with them):
 * mode 2 breaks that, mode 3 does not. Mode 3's rings (513 pages) hold
 * every record of N up to 15,000 on 2 CPUs (24 bytes a switch): it prints
 * the bytes written to each, to show they were.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WC_MAX_CPUS 64
#define WC_CPU_PAGES 513

static struct perf_event_mmap_page *wc_rings[WC_MAX_CPUS];
static int wc_mode, wc_ab[2], wc_ba[2];
static long wc_n;

/* Opens an event of the calling thread (cpu -1: any) and maps pages of ring; exits on failure. */
static void wc_open(unsigned long long config, int inherit, int cpu, int pages)
{
	struct perf_event_attr a;
	void *m;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = inherit;
	if (config == PERF_COUNT_SW_CPU_CLOCK) {
		a.sample_period = 1000000;
	} else {
		a.context_switch = 1;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		a.sample_id_all = 1;
		a.watermark = 1;
		a.wakeup_watermark = (unsigned)(pages - 1) * 4096u;
	}
	fd = (int)syscall(SYS_perf_event_open, &a, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("wallctx: perf_event_open");
		exit(2);
	}
	if (!pages)
		return;
	m = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("wallctx: mmap");
		exit(2);
	}
	if (cpu >= 0 && cpu < WC_MAX_CPUS)
		wc_rings[cpu] = m;
}

static void *wc_other(void *arg)
{
	char c;

	(void)arg;
	if (wc_mode == 2)
		wc_open(PERF_COUNT_SW_DUMMY, 0, -1, 3);
	for (long i = 0; i < wc_n; i++)
		if (read(wc_ab[0], &c, 1) != 1 || write(wc_ba[1], &c, 1) != 1)
			exit(3);
	return NULL;
}

static double wc_cpu_us(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th;
	double cpu0;
	char c = 'x';

	if (argc != 3 || (wc_mode = atoi(argv[1])) < 0 || wc_mode > 3 ||
	    (wc_n = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: wallctx MODE(0-3) N\n");
		return 2;
	}
	if (wc_mode >= 1)
		wc_open(PERF_COUNT_SW_CPU_CLOCK, 1, -1, 0);
	for (int cpu = 0; wc_mode == 3 && cpu < ncpu && cpu < WC_MAX_CPUS; cpu++)
		wc_open(PERF_COUNT_SW_DUMMY, 1, cpu, WC_CPU_PAGES);
	if (pipe(wc_ab) || pipe(wc_ba))
		return 2;
	cpu0 = wc_cpu_us();
	if (pthread_create(&th, NULL, wc_other, NULL))
		return 2;
	if (wc_mode == 2)
		wc_open(PERF_COUNT_SW_DUMMY, 0, -1, 3);
	for (long i = 0; i < wc_n; i++)
		if (write(wc_ab[1], &c, 1) != 1 || read(wc_ba[0], &c, 1) != 1)
			return 3;
	pthread_join(th, NULL);
	printf("%.2f", (wc_cpu_us() - cpu0) / (2.0 * (double)wc_n));
	for (int cpu = 0; cpu < WC_MAX_CPUS; cpu++)
		if (wc_rings[cpu])
			printf(" cpu%d:%llu", cpu, (unsigned long long)wc_rings[cpu]->data_head);
	printf("\n");
	return 0;
}
