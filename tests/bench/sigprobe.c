/*
 * sigprobe: a preload that samples the way libpprof's sigtrap mode does,
 * minus libpprof: the kernel's share of a sample in any program. In every
 * process it loads into, its constructor opens a cpu-clock event on the
 * main thread (user time, a period of SIGPROBE_PERIOD ns, default 1 ms):
 *
 *   SIGPROBE=timer   the event overflows without a signal (the timer
 *                    interrupt and perf's own work)
 *   SIGPROBE=trap    plus a SIGTRAP (sigtrap, remove_on_exec) to a handler
 *                    that returns at once, installed as libpprof installs
 *                    its own (SA_ONSTACK on a 64 KiB alternate stack,
 *                    every signal blocked)
 *
 * At exit it appends "OVERFLOWS" to SIGPROBE_OUT (the event's count over
 * its period), so a bench can put the cost per overflow. Built on the spot
 * by tests/bench/unwind.sh.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sigprobe_fd = -1;
static uint64_t sigprobe_period = 1000000;

static void sigprobe_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
}

static void sigprobe_trap(void)
{
	struct sigaction sa;
	stack_t st = { .ss_size = 65536 };

	st.ss_sp = mmap(NULL, st.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (st.ss_sp != MAP_FAILED)
		sigaltstack(&st, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigprobe_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	memset(&sa.sa_mask, 0xff, sizeof(sa.sa_mask));
	sigaction(SIGTRAP, &sa, NULL);
}

__attribute__((constructor)) static void sigprobe_start(void)
{
	const char *mode = getenv("SIGPROBE"), *period = getenv("SIGPROBE_PERIOD");
	struct perf_event_attr a;

	if (!mode || (strcmp(mode, "timer") != 0 && strcmp(mode, "trap") != 0))
		return;
	if (period && atoll(period) > 0)
		sigprobe_period = (uint64_t)atoll(period);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = sigprobe_period;
	a.exclude_kernel = 1;
	if (strcmp(mode, "trap") == 0) {
		sigprobe_trap();
		a.sigtrap = 1;
		a.remove_on_exec = 1;
	}
	sigprobe_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

__attribute__((destructor)) static void sigprobe_end(void)
{
	const char *out = getenv("SIGPROBE_OUT");
	uint64_t count = 0;
	FILE *f;

	if (sigprobe_fd < 0 || !out || read(sigprobe_fd, &count, sizeof(count)) != sizeof(count))
		return;
	f = fopen(out, "a");
	if (!f)
		return;
	fprintf(f, "%llu\n", (unsigned long long)(count / sigprobe_period));
	fclose(f);
}
