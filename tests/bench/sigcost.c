/*
 * sigcost: where the time of one sample goes. One thread does a fixed amount
 * of work 30 frames deep, sampled by a cpu-clock event every PERIOD ns of
 * its CPU time (default 100 us, to make the per-sample cost stand out), in
 * each of these setups, in turn, ROUNDS times (default 5):
 *
 *   none      no event: the baseline
 *   overflow  the event overflows, no signal: the timer interrupt and perf
 *   signal    sigtrap to an empty handler: plus the signal's delivery
 *   unwind    sigtrap to a handler that calls unw_backtrace(): plus the stack
 *   fasync    the signal mode's way instead of sigtrap: O_ASYNC, F_SETSIG to a
 *             real-time signal, F_SETOWN_EX to the thread, a two-page ring
 *             buffer (consumed in the handler), to an empty handler
 *   chain     fasync, with the kernel recording the user call chain
 *             (PERF_SAMPLE_CALLCHAIN, frame pointers) into the ring buffer
 *             instead of the handler unwinding
 *   norb      fasync without a ring buffer: what the buffer's records cost
 *   ignored   fasync to a real-time signal the process ignores: the
 *             kernel's way from the overflow to the signal (the irq_work
 *             that runs on the interrupt's way out, kill_fasync) without
 *             the signal's delivery; its samples are the overflows
 *   wakeup    no signal: the ring buffer's records with a wakeup per
 *             overflow (the irq_work alone), the buffer emptied by a
 *             second thread that spins meanwhile (its CPU is not counted:
 *             every setup counts the working thread's CPU only)
 *
 * and prints, per setup, the median extra CPU time per sample over "none".
 * What libpprof adds on top (finding the thread, the log record) is the
 * preload's total cost (overhead.sh) minus the "unwind" line.
 *
 *   sigcost [PERIOD_NS [ROUNDS]]
 *   sigcost --work      only the work, once, and print its CPU ms (run it
 *                       with and without the preload to get the whole cost)
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define SIGCOST_DEPTH 30
#define SIGCOST_ITERS 400000000ull
#define SIGCOST_MAX_ROUNDS 21

enum sigcost_setup { SC_NONE, SC_OVERFLOW, SC_SIGNAL, SC_UNWIND, SC_FASYNC,
		     SC_CHAIN, SC_NORB, SC_IGNORED, SC_WAKEUP, SC_N };
static const char *const sigcost_names[SC_N] = { "none", "overflow", "signal", "unwind",
						 "fasync", "chain", "norb", "ignored",
						 "wakeup" };

/* The signal of the fasync setups, and the one "ignored" routes to (SIG_IGN). */
#define SIGCOST_SIG (SIGRTMIN + 1)
#define SIGCOST_IGNORED (SIGRTMIN + 2)

static volatile uint64_t sigcost_sink;
static volatile uint64_t sigcost_signals;
static int sigcost_unwind;
static struct perf_event_mmap_page *sigcost_rb;
static volatile int sigcost_spinning;

/* SC_WAKEUP's second thread: empties the ring buffer until told to stop. */
static void *sigcost_spin(void *arg)
{
	(void)arg;
	while (sigcost_spinning)
		__atomic_store_n(&sigcost_rb->data_tail,
				 __atomic_load_n(&sigcost_rb->data_head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	return NULL;
}

__attribute__((noinline)) uint64_t sigcost_burn(uint64_t iters, uint64_t x);
__attribute__((noinline)) uint64_t sigcost_deep(int depth, uint64_t iters);

__attribute__((noinline)) uint64_t sigcost_burn(uint64_t iters, uint64_t x)
{
	for (uint64_t i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) uint64_t sigcost_deep(int depth, uint64_t iters)
{
	uint64_t r = depth ? sigcost_deep(depth - 1, iters) : sigcost_burn(iters, 88172645463325252ull);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

static void sigcost_handler(int sig, siginfo_t *si, void *uc)
{
	void *frames[64];

	(void)sig;
	(void)si;
	(void)uc;
	if (sigcost_unwind)
		sigcost_sink += (uint64_t)unw_backtrace(frames, 64);
	if (sigcost_rb)
		__atomic_store_n(&sigcost_rb->data_tail,
				 __atomic_load_n(&sigcost_rb->data_head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	sigcost_signals++;
}

static double sigcost_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static int sigcost_open(enum sigcost_setup s, uint64_t period)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = period;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	if (s == SC_SIGNAL || s == SC_UNWIND) {
		attr.sigtrap = 1;
		attr.remove_on_exec = 1;
	}
	if (s >= SC_FASYNC) {
		attr.wakeup_events = 1;
		attr.sample_type = PERF_SAMPLE_IP;
	}
	if (s == SC_CHAIN) {
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_kernel = 1;
		attr.sample_max_stack = 127;
	}
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * The signal mode's routing of fd's overflows to this thread, with a ring
 * buffer unless s is SC_NORB (the "ignored" one has one nobody reads: it
 * fills, and its records stop).
 */
static int sigcost_route(int fd, enum sigcost_setup s)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = (pid_t)syscall(SYS_gettid) };

	if (s != SC_NORB) {
		void *rb = mmap(NULL, 2 * (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
				MAP_SHARED, fd, 0);

		if (rb == MAP_FAILED)
			return -1;
		sigcost_rb = rb;
	}
	if (s == SC_WAKEUP)
		return 0;
	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 ||
	    fcntl(fd, F_SETSIG, s == SC_IGNORED ? SIGCOST_IGNORED : SIGCOST_SIG) != 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) != 0)
		return -1;
	return 0;
}

/* One run of a setup: extra-free CPU seconds and the samples it took. */
static int sigcost_run(enum sigcost_setup s, uint64_t period, double *cpu, uint64_t *samples)
{
	int fd = -1;
	uint64_t count = 0;
	pthread_t spinner;
	double t0;

	if (s != SC_NONE) {
		fd = sigcost_open(s, period);
		if (fd < 0 || (s >= SC_FASYNC && sigcost_route(fd, s) != 0)) {
			perror("sigcost: perf_event_open");
			return -1;
		}
	}
	sigcost_unwind = s == SC_UNWIND;
	sigcost_signals = 0;
	sigcost_spinning = s == SC_WAKEUP;
	if (s == SC_WAKEUP && pthread_create(&spinner, NULL, sigcost_spin, NULL) != 0) {
		perror("sigcost: pthread_create");
		return -1;
	}
	t0 = sigcost_cpu();
	if (fd >= 0)
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	sigcost_sink += sigcost_deep(SIGCOST_DEPTH, SIGCOST_ITERS);
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, &count, sizeof(count)) != sizeof(count))
			count = 0;
		close(fd);
	}
	if (s == SC_WAKEUP) {
		sigcost_spinning = 0;
		pthread_join(spinner, NULL);
	}
	if (sigcost_rb) {
		munmap(sigcost_rb, 2 * (size_t)sysconf(_SC_PAGESIZE));
		sigcost_rb = NULL;
	}
	*cpu = sigcost_cpu() - t0;
	*samples = s >= SC_SIGNAL && s < SC_IGNORED ? sigcost_signals : count / period;
	return 0;
}

static int sigcost_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double sigcost_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), sigcost_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	uint64_t period = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double cpu[SC_N][SIGCOST_MAX_ROUNDS], per[SC_N][SIGCOST_MAX_ROUNDS];
	uint64_t samples[SC_N][SIGCOST_MAX_ROUNDS];
	struct sigaction sa;
	void *warm[8];

	if (argc > 1 && strcmp(argv[1], "--work") == 0) {
		double t0 = sigcost_cpu();

		sigcost_sink += sigcost_deep(SIGCOST_DEPTH, SIGCOST_ITERS);
		printf("%.1f\n", (sigcost_cpu() - t0) * 1e3);
		return 0;
	}
	if (period < 10000 || rounds < 1 || rounds > SIGCOST_MAX_ROUNDS) {
		fprintf(stderr, "usage: sigcost [PERIOD_NS >= 10000 [ROUNDS 1..%d]]\n",
			SIGCOST_MAX_ROUNDS);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigcost_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGTRAP, &sa, NULL);
	sigaction(SIGCOST_SIG, &sa, NULL);
	signal(SIGCOST_IGNORED, SIG_IGN);
	unw_set_cache_size(unw_local_addr_space, 32768, 0);
	sigcost_sink += (uint64_t)unw_backtrace(warm, 8);
	/* Rounds interleave the setups, so that drift in the machine's speed hits all. */
	for (int r = 0; r < rounds; r++)
		for (int s = 0; s < SC_N; s++)
			if (sigcost_run((enum sigcost_setup)s, period, &cpu[s][r], &samples[s][r]))
				return 1;
	printf("sigcost: cpu-clock every %llu ns, %d rounds, work %d frames deep\n",
	       (unsigned long long)period, rounds, SIGCOST_DEPTH);
	printf("%-9s %12s %10s %18s\n", "setup", "cpu (ms)", "samples", "extra ns/sample");
	for (int s = 0; s < SC_N; s++) {
		double c[SIGCOST_MAX_ROUNDS], sm[SIGCOST_MAX_ROUNDS];

		for (int r = 0; r < rounds; r++) {
			c[r] = cpu[s][r];
			sm[r] = (double)samples[s][r];
			/* Against the same round's baseline. */
			per[s][r] = s == SC_NONE || !samples[s][r] ? 0 :
				    (cpu[s][r] - cpu[SC_NONE][r]) * 1e9 / (double)samples[s][r];
		}
		printf("%-9s %12.1f %10.0f %18.0f\n", sigcost_names[s],
		       sigcost_median(c, rounds) * 1e3, sigcost_median(sm, rounds),
		       sigcost_median(per[s], rounds));
	}
	return sigcost_sink == 42 ? 3 : 0;
}
