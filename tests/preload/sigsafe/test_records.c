/*
 * The record writers (preload/sigsafe/records.c) against the analyzer's
 * reader: every record type the profiler writes, written through the
 * profiler's own log file, reads back with the values that went in.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "events.h"
#include "tst_log.h"
#include "pprof/format.h"
#include "reader.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"

static char *records_dir;
static int records_dirfd = -1;

static void records_setup(void)
{
	records_dir = tst_log_tmpdir();
	records_dirfd = open(records_dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(records_dirfd, 0);
}

static void records_teardown(void)
{
	close(records_dirfd);
	tst_log_rmdir(records_dir);
	records_dir = NULL;
}

TestSuite(records, .init = records_setup, .fini = records_teardown, .timeout = 30);

/* A log file named name in the suite's directory, of kind (enum ppf_file_kind). */
static void records_create(struct pp_logfile *log, const char *name, unsigned kind)
{
	pp_logfile_init_sigsafe(log);
	cr_assert_eq(pp_logfile_create_sigsafe(log, records_dirfd, name, kind), 0, "%s", name);
}

static const uint8_t records_build_id[20] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

/* Writes one of each process.log record; returns the parsed configuration. */
static void records_write_process(struct pp_config *cfg)
{
	static const char cmdline[] = "app\0--flag\0two words";
	static const char text[] = "[profile]\nmax_frames = 64\nfollow_exec = no\n"
				   "[sample cpu-clock]\nperiod = 2ms\n[count page-faults]\n";
	struct pp_records_module m = {
		.id = 1, .bias = 0x7f0000000000ull, .start = 0x7f0000001000ull,
		.end = 0x7f0000005000ull, .pgoff = 0x1000, .load_ns = 5,
		.build_id = records_build_id, .build_id_len = sizeof(records_build_id),
		.path = "/usr/lib/libx.so.1",
	};
	struct pp_records_counts totals = { .samples = 10, .lost = 2, .throttled = 3 };
	struct pp_config_errors errs;
	struct pp_logfile log;

	cr_assert_eq(pp_config_parse(cfg, "/etc/pprof.ini", text, &errs), 0, "%s",
		     errs.n ? errs.e[0].msg : "");
	records_create(&log, PPF_PROCESS_LOG, PPF_FILE_PROCESS);
	cr_assert_eq(pp_records_process_sigsafe(&log, (int)getppid(),
						PPF_MODE_SIGNAL, 40, "/usr/bin/app",
						cmdline, sizeof(cmdline)), 0);
	cr_assert_eq(pp_records_config_sigsafe(&log, cfg), 0);
	cr_assert_eq(pp_records_event_sigsafe(&log, 0, &cfg->events[0], 0, 0), 0);
	cr_assert_eq(pp_records_event_sigsafe(&log, 1, &cfg->events[1], EOPNOTSUPP, 1), 0);
	cr_assert_eq(pp_records_module_sigsafe(&log, &m), 0);
	/* One without a build-id: its file as mapped follows (PPF_REC_MODULE_FILE). */
	m.id = 2;
	m.build_id = NULL;
	m.build_id_len = 0;
	m.path = "/opt/bin/nobid";
	m.has_file = 1;
	m.file_size = 18912;
	m.file_mtime_ns = 1796300000123456789ull;
	m.file_dev = 2049;
	m.file_ino = 77;
	cr_assert_eq(pp_records_module_sigsafe(&log, &m), 0);
	cr_assert_eq(pp_records_process_cpu_sigsafe(&log, PPF_CPU_CONSTRUCTOR,
						    &(struct pp_records_cpu){ .user_ns = 11,
									      .system_ns = 12 },
						    &(struct pp_records_cpu){ .user_ns = 1 }), 0);
	cr_assert_eq(pp_records_process_cpu_sigsafe(&log, PPF_CPU_SAMPLING,
						    &(struct pp_records_cpu){ .user_ns = 21,
									      .system_ns = 22 },
						    &(struct pp_records_cpu){ .user_ns = 13,
									      .system_ns = 14 }), 0);
	cr_assert_eq(pp_records_process_cpu_sigsafe(&log, PPF_CPU_EXEC,
						    &(struct pp_records_cpu){ .user_ns = 31,
									      .system_ns = 32 },
						    &(struct pp_records_cpu){ .user_ns = 2 }), 0);
	cr_assert_eq(pp_records_unprofiled_sigsafe(&log, 77, PPF_UNPROFILED_STATIC, "/bin/static"),
		     0);
	cr_assert_eq(pp_records_exec_sigsafe(&log, "/bin/next"), 0);
	cr_assert_eq(pp_records_thread_unsampled_sigsafe(&log, 4242, PPF_UNSAMPLED_LOG,
							 EMFILE), 0);
	cr_assert_eq(pp_records_module_unload_sigsafe(&log, 1, 9), 0);
	pp_logfile_closing_sigsafe(&log);
	cr_assert_eq(pp_records_process_end_sigsafe(&log, &totals, &(struct pp_records_cpu){
						    .cpu_ns = 30, .user_ns = 20, .system_ns = 10 },
						    PPF_EXIT_NORMAL, 7), 0);
	pp_logfile_close_sigsafe(&log);
}

Test(records, process_log_reads_back_what_was_written)
{
	struct pa_warnings warn = { 0 };
	struct pa_process *p = NULL;
	struct pp_config cfg;
	struct pa_error err;
	char path[PATH_MAX];

	records_write_process(&cfg);
	snprintf(path, sizeof(path), "%s/%s", records_dir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, &warn, &err), 0, "%s", err.reason);
	cr_expect_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_expect(p->pid == (uint32_t)getpid() && p->ppid == (uint32_t)getppid());
	cr_expect_str_eq(p->exe, "/usr/bin/app");
	cr_assert_eq(p->argc, 3);
	cr_expect(strcmp(p->argv[0], "app") == 0 && strcmp(p->argv[1], "--flag") == 0 &&
		  strcmp(p->argv[2], "two words") == 0);
	cr_expect(p->mode == PPF_MODE_SIGNAL && p->signal == 40);
	cr_expect(p->start_ns > 0 && p->start_realtime_ns > p->start_ns);
	cr_assert(p->config.known);
	cr_expect_str_eq(p->config.source, "/etc/pprof.ini");
	cr_expect_str_eq(p->config.text, cfg.text);
	cr_expect_eq(p->config.max_frames, 64);
	cr_expect_eq(p->config.flags, PPF_CONFIG_FROM_FILE);
	cr_assert_eq(p->nevents, 2);
	cr_expect(strcmp(p->events[0].name, "cpu-clock") == 0 &&
		  p->events[0].period == 2000000 && p->events[0].error == 0 &&
		  p->events[0].type == cfg.events[0].type &&
		  p->events[0].config == cfg.events[0].config,
		  "event 0: %s, period %llu", p->events[0].name,
		  (unsigned long long)p->events[0].period);
	cr_expect_eq(p->events[0].flags & (PPF_EVENT_TIME_NS | PPF_EVENT_COUNT |
					   PPF_EVENT_UNAVAILABLE | PPF_EVENT_FREQ),
		     PPF_EVENT_TIME_NS, "event 0: flags %#x", p->events[0].flags);
	cr_expect_eq(!!(p->events[0].flags & PPF_EVENT_EXCLUDE_KERNEL),
		     !!cfg.events[0].exclude_kernel, "event 0: flags %#x", p->events[0].flags);
	cr_expect(strcmp(p->events[1].spec, "page-faults") == 0 &&
		  p->events[1].error == EOPNOTSUPP &&
		  (p->events[1].flags & (PPF_EVENT_COUNT | PPF_EVENT_UNAVAILABLE |
					 PPF_EVENT_MODE_REFUSED)) ==
		  (PPF_EVENT_COUNT | PPF_EVENT_UNAVAILABLE | PPF_EVENT_MODE_REFUSED),
		  "event 1: %s, error %u, flags %#x", p->events[1].spec, p->events[1].error,
		  p->events[1].flags);
	cr_assert_eq(p->nmodules, 2);
	cr_expect_str_eq(p->modules[0].path, "/usr/lib/libx.so.1");
	cr_expect(p->modules[0].bias == 0x7f0000000000ull &&
		  p->modules[0].start == 0x7f0000001000ull &&
		  p->modules[0].end == 0x7f0000005000ull && p->modules[0].pgoff == 0x1000 &&
		  p->modules[0].load_ns == 5 && p->modules[0].unload_ns == 9);
	cr_expect(p->modules[0].build_id_len == sizeof(records_build_id) &&
		  memcmp(p->modules[0].build_id, records_build_id,
			 sizeof(records_build_id)) == 0);
	cr_expect_not(p->modules[0].has_file);
	cr_expect_str_eq(p->modules[1].path, "/opt/bin/nobid");
	cr_expect(p->modules[1].build_id_len == 0 && p->modules[1].has_file &&
		  p->modules[1].file_size == 18912 &&
		  p->modules[1].file_mtime_ns == 1796300000123456789ull);
	cr_assert_eq(p->nexecs, 1);
	cr_expect_str_eq(p->execs[0].path, "/bin/next");
	cr_expect(!p->replaced, "records follow the exec: it failed");
	cr_expect(p->cpu_entry.known && p->cpu_entry.user_ns == 11 && p->cpu_entry.system_ns == 12);
	cr_expect(p->cpu_sampling.known && p->cpu_sampling.user_ns == 21 &&
		  p->cpu_sampling.system_ns == 22 && p->cpu_sampling.thread_user_ns == 13 &&
		  p->cpu_sampling.thread_system_ns == 14 &&
		  p->cpu_sampling.tid == (uint32_t)syscall(SYS_gettid));
	cr_expect(p->cpu_exec.known && p->cpu_exec.user_ns == 31 && p->cpu_exec.system_ns == 32);
	cr_assert_eq(p->nunprofiled, 1);
	cr_expect(p->unprofiled[0].pid == 77 && p->unprofiled[0].why == PPF_UNPROFILED_STATIC &&
		  strcmp(p->unprofiled[0].path, "/bin/static") == 0 && p->unprofiled[0].time_ns > 0);
	cr_assert_eq(p->nunsampled, 1);
	cr_expect(p->unsampled[0].tid == 4242 && p->unsampled[0].what == PPF_UNSAMPLED_LOG &&
		  p->unsampled[0].error == EMFILE);
	cr_expect(p->ended && p->samples_taken == 10 && p->lost == 2 && p->throttled == 3 &&
		  p->exit_how == PPF_EXIT_NORMAL && p->exit_status == 7 && p->user_ns == 20 &&
		  p->system_ns == 10);
	pa_process_free(p);
	pa_warnings_release(&warn);
	pp_config_release(&cfg);
}

/* An exec path longer than PATH_MAX is recorded cut to PATH_MAX - 1 bytes. */
Test(records, exec_path_is_cut_to_path_max)
{
	struct pa_warnings warn = { 0 };
	struct pa_process *p = NULL;
	struct pp_logfile log;
	struct pa_error err;
	char *long_path = malloc(2 * PATH_MAX);
	char path[PATH_MAX];

	cr_assert_not_null(long_path);
	memset(long_path, 'a', 2 * PATH_MAX - 1);
	long_path[0] = '/';
	long_path[2 * PATH_MAX - 1] = '\0';
	records_create(&log, PPF_PROCESS_LOG, PPF_FILE_PROCESS);
	cr_assert_eq(pp_records_process_sigsafe(&log, (int)getppid(),
						PPF_MODE_SIGTRAP, SIGTRAP, "/bin/app",
						NULL, 0), 0);
	cr_assert_eq(pp_records_exec_sigsafe(&log, long_path), 0);
	pp_logfile_close_sigsafe(&log);
	snprintf(path, sizeof(path), "%s/%s", records_dir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, &warn, &err), 0, "%s", err.reason);
	cr_assert_eq(p->nexecs, 1);
	cr_expect_eq(strlen(p->execs[0].path), PATH_MAX - 1);
	cr_expect_eq(strncmp(p->execs[0].path, long_path, PATH_MAX - 1), 0);
	cr_expect(p->replaced, "the exec is the last record: the image was replaced");
	pa_process_free(p);
	pa_warnings_release(&warn);
	free(long_path);
}

Test(records, thread_log_reads_back_what_was_written)
{
	struct pp_records_counts counts = { .samples = 2, .lost = 1, .throttled = 4 };
	struct pp_counter_value cv = { .value = 500, .time_enabled = 10, .time_running = 5 };
	struct pa_warnings warn = { 0 };
	struct pa_thread *t = NULL;
	struct pp_logfile log;
	struct pa_error err;
	char path[PATH_MAX];

	records_create(&log, "thread-77.log", PPF_FILE_THREAD);
	cr_assert_eq(pp_records_thread_sigsafe(&log, 1234, 77, pp_records_now_sigsafe(), NULL), 0);
	cr_assert_eq(pp_records_sample_sigsafe(&log, (const uint64_t[]){ 0x401000, 0x402000,
								     0x403000 },
					       3, 100, 0, PPF_SAMPLE_TRUNCATED), 0);
	cr_assert_eq(pp_records_sample_sigsafe(&log, (const uint64_t[]){ 0x404000 }, 1, 150, 1,
					       PPF_SAMPLE_LEAF_ONLY), 0);
	pp_logfile_closing_sigsafe(&log);
	cr_assert_eq(pp_records_thread_name_sigsafe(&log, 200, "renamed"), 0);
	cr_assert_eq(pp_records_thread_samples_sigsafe(&log, 0, &counts, 0), 0);
	cr_assert_eq(pp_records_thread_samples_sigsafe(&log, 1, &counts, 1), 0);
	cr_assert_eq(pp_records_thread_counter_sigsafe(&log, 2, &cv, 0), 0);
	cr_assert_eq(pp_records_thread_counter_sigsafe(&log, 3, NULL, 0), 0);
	cr_assert_eq(pp_records_thread_counter_sigsafe(&log, 4, &cv, 1), 0);
	cr_assert_eq(pp_records_thread_end_sigsafe(&log, 300, &counts, &(struct pp_records_cpu){
						   .cpu_ns = 99, .user_ns = 60, .system_ns = 38 }),
		     0);
	pp_logfile_close_sigsafe(&log);

	snprintf(path, sizeof(path), "%s/thread-77.log", records_dir);
	cr_assert_eq(pa_thread_log_load(path, &t, &warn, &err), 0, "%s", err.reason);
	cr_expect_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_expect(t->pid == 1234 && t->tid == 77 && t->start_ns > 0);
	cr_expect_str_eq(t->name, "renamed");
	cr_assert_eq(t->nsamples, 2);
	cr_expect(t->samples[0].time_ns == 100 && t->samples[0].event == 0 &&
		  t->samples[0].flags == PPF_SAMPLE_TRUNCATED && t->samples[0].nframes == 3 &&
		  t->samples[0].ips[0] == 0x401000 && t->samples[0].ips[2] == 0x403000);
	cr_expect(t->samples[1].time_ns == 150 && t->samples[1].event == 1 &&
		  t->samples[1].flags == PPF_SAMPLE_LEAF_ONLY && t->samples[1].nframes == 1 &&
		  t->samples[1].ips[0] == 0x404000);
	cr_assert_eq(t->nevents, 5);
	cr_expect(t->events[0].flags == 0 && t->events[0].samples == 2 &&
		  t->events[0].lost == 1 && t->events[0].throttled == 4);
	cr_expect_eq(t->events[1].flags, PPF_THREAD_EVENT_NO_COUNTER);
	cr_expect(t->events[2].flags == PPF_THREAD_EVENT_COUNTED && t->events[2].value == 500 &&
		  t->events[2].time_enabled == 10 && t->events[2].time_running == 5);
	cr_expect_eq(t->events[3].flags, PPF_THREAD_EVENT_NO_COUNTER);
	cr_expect(t->events[4].flags == (PPF_THREAD_EVENT_COUNTED | PPF_THREAD_EVENT_LATE_COUNTER) &&
		  t->events[4].value == 500);
	cr_expect(t->ended && t->end_ns == 300 && t->samples_taken == 2 && t->lost == 1 &&
		  t->throttled == 4 && t->cpu_ns == 99 && t->user_ns == 60 && t->system_ns == 38);
	pa_thread_free(t);
	pa_warnings_release(&warn);
}

/*
 * A log without END (a raw exit_group, a kill) still has the thread's CPU
 * time and totals from its last PPF_REC_THREAD_PROGRESS; END's come first
 * when there is one.
 */
Test(records, thread_progress_stands_in_for_a_missing_end)
{
	struct pp_records_counts counts = { .samples = 5, .lost = 1, .throttled = 2 };
	struct pa_warnings warn = { 0 };
	struct pa_thread *t = NULL;
	struct pp_logfile log;
	struct pa_error err;
	char path[PATH_MAX];

	records_create(&log, "thread-79.log", PPF_FILE_THREAD);
	cr_assert_eq(pp_records_thread_sigsafe(&log, 1234, 79, pp_records_now_sigsafe(), NULL), 0);
	prctl(PR_SET_NAME, "rec-renamed", 0, 0, 0); /* after it started: no END to say so */
	cr_assert_eq(pp_records_thread_progress_sigsafe(&log, 100, &counts,
			&(struct pp_records_cpu){ .user_ns = 7000, .system_ns = 3000 },
			&(struct pp_records_cpu){ .user_ns = 20000, .system_ns = 5000 }), 0);
	counts.samples = 9;
	cr_assert_eq(pp_records_thread_progress_sigsafe(&log, 200, &counts,
			&(struct pp_records_cpu){ .user_ns = 9000, .system_ns = 4000 }, NULL), 0);
	pp_logfile_forget_sigsafe(&log); /* as if the process ended by exit_group */
	snprintf(path, sizeof(path), "%s/thread-79.log", records_dir);
	cr_assert_eq(pa_thread_log_load(path, &t, &warn, &err), 0, "%s", err.reason);
	cr_expect(!t->ended && t->progress && t->progress_ns == 200);
	cr_expect(t->user_ns == 9000 && t->system_ns == 4000 && t->cpu_ns == 13000,
		  "user %llu system %llu cpu %llu", (unsigned long long)t->user_ns,
		  (unsigned long long)t->system_ns, (unsigned long long)t->cpu_ns);
	cr_expect(t->lost == 1 && t->throttled == 2);
	cr_expect_str_eq(t->name, "rec-renamed");
	/* The process's CPU time, from the one record that carried it. */
	cr_expect(t->proc_ns == 100 && t->proc_user_ns == 20000 && t->proc_system_ns == 5000);
	pa_thread_free(t);
	pa_warnings_release(&warn);
}

/* The thread's name in PPF_REC_THREAD is the calling thread's. */
Test(records, thread_record_names_the_calling_thread)
{
	struct pa_warnings warn = { 0 };
	struct pa_thread *t = NULL;
	struct pp_logfile log;
	struct pa_error err;
	char path[PATH_MAX];

	prctl(PR_SET_NAME, "rec-named", 0, 0, 0);
	records_create(&log, "thread-78.log", PPF_FILE_THREAD);
	cr_assert_eq(pp_records_thread_sigsafe(&log, 1234, 78, pp_records_now_sigsafe(), NULL), 0);
	pp_logfile_close_sigsafe(&log);
	snprintf(path, sizeof(path), "%s/thread-78.log", records_dir);
	cr_assert_eq(pa_thread_log_load(path, &t, &warn, &err), 0, "%s", err.reason);
	cr_expect_str_eq(t->name, "rec-named");
	cr_expect(!t->ended);
	pa_thread_free(t);
	pa_warnings_release(&warn);
}

/*
 * PPF_REC_STACK (whole, and sharing outer frames with one before it) and
 * PPF_REC_SAMPLE_BLOCK: the block is the log's open
 * record, grown entry by entry; another record closes it (its size cut to
 * what it holds) and the next sample opens a new one.
 */
Test(records, stack_and_sample_block_read_back_what_was_written)
{
	static const uint64_t a[2] = { 0x401000, 0x402000 }, b[2] = { 0x403000, 0x402000 };
	struct pp_records_counts counts = { .samples = 4 };
	struct pa_warnings warn = { 0 };
	struct pa_thread *t = NULL;
	struct pp_logfile log;
	struct pa_error err;
	char path[PATH_MAX];

	records_create(&log, "thread-78.log", PPF_FILE_THREAD);
	cr_assert_eq(pp_records_thread_sigsafe(&log, 1234, 78, pp_records_now_sigsafe(), NULL), 0);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, a, 2, 0, 0), 0);
	cr_assert_eq(pp_records_block_entry_sigsafe(&log, 0, 1000, 0, 0), 0);
	cr_assert_eq(pp_records_block_entry_sigsafe(&log, 0, 1500, 0, 0), 0);
	/* b's outer frame is a's: its record holds its inner one only. */
	cr_assert_eq(pp_records_stack_sigsafe(&log, 1, b, 2, 0, 1), 0);
	cr_assert_eq(pp_records_block_entry_sigsafe(&log, 1, 2000, 1, PPF_SAMPLE_LATE), 0);
	cr_assert_eq(pp_records_block_entry_sigsafe(&log, 0, 2500, 1, PPF_SAMPLE_LATE), 0);
	pp_logfile_closing_sigsafe(&log);
	cr_assert_eq(pp_records_thread_end_sigsafe(&log, 3000, &counts,
						   &(struct pp_records_cpu){ 0 }), 0);
	pp_logfile_close_sigsafe(&log);

	snprintf(path, sizeof(path), "%s/thread-78.log", records_dir);
	cr_assert_eq(pa_thread_log_load(path, &t, &warn, &err), 0, "%s", err.reason);
	cr_expect_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_assert_eq(t->nsamples, 4);
	cr_expect(t->samples[0].time_ns == 1000 && t->samples[0].nframes == 2 &&
		  t->samples[0].ips[1] == 0x402000 && t->samples[0].flags == 0);
	cr_expect(t->samples[1].time_ns == 1500 && t->samples[1].ips == t->samples[0].ips);
	cr_expect(t->samples[2].time_ns == 2000 && t->samples[2].event == 1 &&
		  t->samples[2].flags == PPF_SAMPLE_LATE && t->samples[2].nframes == 2 &&
		  t->samples[2].ips[0] == 0x403000 && t->samples[2].ips[1] == 0x402000);
	cr_expect(t->samples[3].time_ns == 2500 && t->samples[3].nframes == 2);
	cr_expect(t->ended && t->samples_taken == 4);
	pa_thread_free(t);
	pa_warnings_release(&warn);
}
