/*
 * rankgen: writes the logs of an MPI run of many ranks with the profiler's
 * own writers (preload/sigsafe/records.h), for tests/bench/ranks.sh to time
 * the analyzer on: RANKS processes (one forked child each, so each has a
 * pid of its own) on hosts of 32 ranks ("node0", "node1", ...), each with
 * THREADS thread logs: the first takes SAMPLES samples in burn_gen and in
 * PMPI_Gen_wait (the slower the rank, the more in burn_gen), the others
 * SAMPLES / 10 in progress_gen. Every frame is a function of this program,
 * which the process logs map; outer_gen is their outermost frame.
 * With "wall", each rank also has a wall.log ([sample wall] at 1 ms) as
 * the preload's writers write it: the main thread waits 2 ms on a futex in
 * PMPI_Gen_wait once per wait sample and is preempted 1 ms once per burn
 * sample; every other thread polls in progress_gen for the run's length.
 *
 *   rankgen DIR RANKS THREADS SAMPLES [wall]
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "outdir.h"
#include "pprof/format.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"

#define RANKGEN_PER_HOST 32

__attribute__((noinline)) int burn_gen(int x);
__attribute__((noinline)) int PMPI_Gen_wait(int x);
__attribute__((noinline)) int progress_gen(int x);
__attribute__((noinline)) int outer_gen(int x);

__attribute__((noinline)) int outer_gen(int x)
{
	volatile int v = x;

	return v * 11 + 4;
}

__attribute__((noinline)) int burn_gen(int x)
{
	volatile int v = x;

	return v * 7 + 1;
}

__attribute__((noinline)) int PMPI_Gen_wait(int x)
{
	volatile int v = x;

	return v * 5 + 2;
}

__attribute__((noinline)) int progress_gen(int x)
{
	volatile int v = x;

	return v * 3 + 3;
}

/* This program as a module: its path, load bias and range. */
static struct pp_records_module rankgen_self;
static char rankgen_path[4096];

static int rankgen_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (info->dlpi_name[0])
		return 0;
	rankgen_self.bias = info->dlpi_addr;
	rankgen_self.start = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < rankgen_self.start) {
			rankgen_self.start = info->dlpi_addr + ph->p_vaddr;
			rankgen_self.pgoff = ph->p_offset;
		}
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > rankgen_self.end)
			rankgen_self.end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;
}

static uint64_t rankgen_in(int (*fn)(int))
{
	return (uint64_t)(uintptr_t)fn + 4;
}

/* One thread log: n samples of each of the stacks, as the sampler writes them. */
static int rankgen_thread(int dirfd, int tid, int main_thread, uint32_t nburn, uint32_t nwait,
			  uint32_t nprogress)
{
	const uint64_t main_ip = rankgen_in(outer_gen);
	const uint64_t stacks[3][2] = { { rankgen_in(burn_gen), main_ip },
					{ rankgen_in(PMPI_Gen_wait), main_ip },
					{ rankgen_in(progress_gen), main_ip } };
	const uint32_t counts[3] = { nburn, nwait, nprogress };
	struct pp_records_counts c = { .samples = (uint64_t)nburn + nwait + nprogress };
	struct pp_records_cpu cpu = { .cpu_ns = c.samples * 1000000, .user_ns = c.samples * 1000000 };
	struct pp_logfile log;
	char name[64];
	uint64_t t = 1000000;

	snprintf(name, sizeof(name), "thread-%d.log", tid);
	pp_logfile_init_sigsafe(&log);
	if (pp_logfile_create_sigsafe(&log, dirfd, name, PPF_FILE_THREAD) != 0)
		return -1;
	pp_records_thread_sigsafe(&log, (int)getpid(), tid, 0, main_thread ? "rankgen" : "progress");
	for (uint32_t s = 0; s < 3; s++)
		pp_records_stack_sigsafe(&log, s, stacks[s], 2, 0, 0);
	for (uint32_t s = 0; s < 3; s++)
		for (uint32_t i = 0; i < counts[s]; i++, t += 1000000)
			pp_records_block_entry_sigsafe(&log, s, t, 0, 0);
	pp_records_thread_samples_sigsafe(&log, 0, &c, 0);
	pp_records_thread_end_sigsafe(&log, t, &c, &cpu);
	pp_logfile_close_sigsafe(&log);
	return 0;
}

/* One off-CPU interval of tid into the wall log. */
static void rankgen_interval(struct pp_logfile *log, int tid, uint16_t state, uint64_t out_ns,
			     uint64_t len_ns, uint32_t stack)
{
	struct ppf_wall_interval iv = { .tid = (uint32_t)tid, .state = state, .out_ns = out_ns,
					.in_ns = out_ns + len_ns, .stack = stack, .nr = -1 };

	pp_records_wall_sigsafe(log, PPF_REC_WALL_INTERVAL, &iv, sizeof(iv));
}

/*
 * The rank's wall.log: its main thread (tid) waits (nwait x 2 ms, futex,
 * in PMPI_Gen_wait) and is preempted (nburn x 1 ms) after its samples; the
 * other threads poll in progress_gen all along.
 */
static int rankgen_wall(int dirfd, int tid, int threads, uint32_t nburn, uint32_t nwait,
			uint32_t samples)
{
	const uint64_t main_ip = rankgen_in(outer_gen);
	const uint64_t wait[3] = { rankgen_in(PMPI_Gen_wait) + 16, rankgen_in(PMPI_Gen_wait),
				   main_ip };
	const uint64_t poll[3] = { rankgen_in(progress_gen) + 16, rankgen_in(progress_gen),
				   main_ip };
	struct ppf_wall_start st = { .period_ns = 1000000, .tick_ns = 1000000, .start_ns = 1000000,
				     .ring_pages = 2 };
	uint64_t t = 1000000 + (uint64_t)samples * 1000000;
	struct pp_logfile log;

	pp_logfile_init_sigsafe(&log);
	if (pp_logfile_create_sigsafe(&log, dirfd, PPF_WALL_LOG, PPF_FILE_WALL) != 0)
		return -1;
	pp_records_wall_sigsafe(&log, PPF_REC_WALL_START, &st, sizeof(st));
	pp_records_stack_sigsafe(&log, 0, wait, 3, 0, 0);
	pp_records_stack_sigsafe(&log, 1, poll, 3, 0, 0);
	for (uint32_t i = 0; i < nwait; i++, t += 3000000)
		rankgen_interval(&log, tid, PPF_WALL_FUTEX, t, 2000000, 0);
	for (uint32_t i = 0; i < nburn; i++, t += 2000000)
		rankgen_interval(&log, tid, PPF_WALL_RUNNABLE, t, 1000000, PPF_WALL_NO_STACK);
	for (int k = 1; k < threads; k++)
		rankgen_interval(&log, tid + 100000 * k, PPF_WALL_POLL, 1000000, t - 1000000, 1);
	pp_logfile_closing_sigsafe(&log);
	pp_records_wall_sigsafe(&log, PPF_REC_WALL_END, &(struct ppf_wall_end){ .end_ns = t,
				.threads = (uint32_t)threads }, sizeof(struct ppf_wall_end));
	pp_logfile_close_sigsafe(&log);
	return 0;
}

/* Rank r's process directory and logs, written by a child of its own. */
static int rankgen_rank(int rootfd, int r, int ranks, int threads, uint32_t samples, bool wall)
{
	char host[32], job[] = "4242", dir[256];
	struct pp_records_identity id = { .host = host, .job = job, .rank = r,
					  .world_size = ranks, .rank_source = PPF_RANK_OMPI };
	struct pp_config cfg;
	struct pp_config_errors errs;
	struct pp_logfile log;
	int dirfd, ret = 0;
	/* Rank r burns (r % 8 + 1) parts of its samples, waits the rest. */
	uint32_t nburn = samples * (uint32_t)(r % 8 + 1) / 8;

	snprintf(host, sizeof(host), "node%d", r / RANKGEN_PER_HOST);
	memset(id.boot_id, r / RANKGEN_PER_HOST + 1, sizeof(id.boot_id));
	if (pp_config_default(&cfg, &errs) != 0)
		return -1;
	/* Each rank samples, so it has its directory, named as the preload names it. */
	if (pp_outdir_process_name(dir, sizeof(dir), "rankgen", host, (int)getpid(), 0) != 0 ||
	    mkdirat(rootfd, dir, 0700) != 0)
		return -1;
	dirfd = openat(rootfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	pp_logfile_init_sigsafe(&log);
	if (pp_logfile_create_sigsafe(&log, dirfd, PPF_PROCESS_LOG, PPF_FILE_PROCESS) != 0)
		return -1;
	pp_records_process_sigsafe(&log, (int)getppid(), PPF_MODE_SIGTRAP, 5, rankgen_path, "rankgen", 8);
	pp_records_identity_sigsafe(&log, &id);
	pp_records_config_sigsafe(&log, &cfg);
	pp_records_event_sigsafe(&log, 0, &cfg.events[0], 0, 0);
	pp_records_module_sigsafe(&log, &rankgen_self);
	for (int k = 0; k < threads && ret == 0; k++)
		ret = rankgen_thread(dirfd, (int)getpid() + (k ? 100000 * k : 0), k == 0,
				     k ? 0 : nburn, k ? 0 : samples - nburn, k ? samples / 10 : 0);
	if (ret == 0 && wall)
		ret = rankgen_wall(dirfd, (int)getpid(), threads, nburn, samples - nburn, samples);
	pp_logfile_closing_sigsafe(&log);
	pp_records_process_end_sigsafe(&log, &(struct pp_records_counts){ 0 },
				       &(struct pp_records_cpu){ 0 }, PPF_EXIT_NORMAL, 0);
	pp_logfile_close_sigsafe(&log);
	close(dirfd);
	return ret;
}

int main(int argc, char **argv)
{
	int ranks, threads, rootfd, failed = 0;
	bool wall = argc == 6 && strcmp(argv[5], "wall") == 0;
	long samples;
	ssize_t n;

	if ((argc != 5 && !wall) || (ranks = atoi(argv[2])) < 1 || (threads = atoi(argv[3])) < 1 ||
	    (samples = atol(argv[4])) < 1) {
		fprintf(stderr, "usage: rankgen DIR RANKS THREADS SAMPLES [wall]\n");
		return 2;
	}
	n = readlink("/proc/self/exe", rankgen_path, sizeof(rankgen_path) - 1);
	rankgen_path[n > 0 ? n : 0] = '\0';
	rankgen_self.path = rankgen_path;
	rankgen_self.id = 1;
	dl_iterate_phdr(rankgen_phdr, NULL);
	if (mkdir(argv[1], 0700) != 0 && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	rootfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int r = 0; r < ranks; r++) {
		int status;
		pid_t pid = fork();

		if (pid == 0)
			_exit(rankgen_rank(rootfd, r, ranks, threads, (uint32_t)samples, wall) ? 1 : 0);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			failed++;
	}
	if (failed)
		fprintf(stderr, "rankgen: %d ranks failed\n", failed);
	return failed ? 1 : 0;
}
