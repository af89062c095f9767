/*
 * Stacks written once (the default, `stacks = once`) and whole (`stacks =
 * whole`): the logs hold what the configuration asks for; one run written
 * both ways reads the same in every report; and a run written before
 * stacks were written once (tests/golden/oldlogs) still reads as it did.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pprof/format.h"
#include "reader.h"
#include "tst_it.h"
#include "tst_log.h"
#include "tst_restack.h"

static struct tst_it it_st;

static void it_st_init(void)
{
	tst_init(&it_st);
}

static void it_st_fini(void)
{
	tst_release(&it_st);
}

TestSuite(it_stacks, .init = it_st_init, .fini = it_st_fini, .timeout = 300);

/* Bytes and records of each type in a run's thread logs, up to their end. */
struct it_st_bytes {
	uint64_t bytes[64]; /* by record type (types above 63 in [0]) */
	uint64_t count[64];
};

static void it_st_count_log(const char *path, struct it_st_bytes *b)
{
	size_t len, off = sizeof(struct ppf_file_header);
	char *data = tst_slurp(path, &len);

	while (off + sizeof(struct ppf_record) <= len) {
		struct ppf_record r;

		memcpy(&r, data + off, sizeof(r));
		if (r.size == 0)
			break;
		b->bytes[r.type < 64 ? r.type : 0] += r.size;
		b->count[r.type < 64 ? r.type : 0]++;
		off += r.size;
	}
	free(data);
}

static void it_st_count(const char *run, struct it_st_bytes *b)
{
	char cmd[TST_PATH_MAX + 64], line[TST_PATH_MAX];
	FILE *p;

	memset(b, 0, sizeof(*b));
	snprintf(cmd, sizeof(cmd), "find '%s' -name '*thread-*.log'", run);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		it_st_count_log(line, b);
	}
	pclose(p);
}

/* Bytes of b's stack records and sample blocks: what samples cost when stacks are written once. */
static unsigned long long it_st_stack_bytes(const struct it_st_bytes *b)
{
	return b->bytes[PPF_REC_STACK] + b->bytes[PPF_REC_STACK_SAMPLE] +
	       b->bytes[PPF_REC_SAMPLE_BLOCK];
}

/* Runs demo profiled into dir (tmp/NAME) with the configuration text (NULL: the default). */
static void it_st_demo(const char *name, const char *config, char *dir)
{
	const char *argv[] = { "workloads/demo", "0.3", NULL };
	char env[TST_CONFIG_ENV_MAX], output[TST_PATH_MAX + 16];
	const char *envv[] = { it_st.env_preload, output, config ? env : NULL, NULL };
	struct tst_result r;

	snprintf(dir, TST_PATH_MAX, "%s/%s", it_st.tmp, name);
	snprintf(output, sizeof(output), "PPROF_OUTPUT=%s", dir);
	if (config)
		tst_config_env(&it_st, "stacks.ini", config, env);
	tst_run(&it_st, name, argv, envv, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "demo: %#x: %s", r.status,
		  r.err);
	cr_expect_str_eq(r.err, "");
	tst_result_release(&r);
}

/* Samples of a run, as its threads' logs hold them. */
static size_t it_st_samples(const char *dir)
{
	struct pa_error err = { 0 };
	struct pa_run *run;
	size_t n = 0;

	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	for (size_t i = 0; i < run->nprocesses; i++)
		for (size_t k = 0; k < run->processes[i]->nthreads; k++)
			n += run->processes[i]->threads[k]->nsamples;
	pa_run_free(run);
	return n;
}

Test(it_stacks, each_stack_once_by_default_whole_when_asked)
{
	char once[TST_PATH_MAX], whole[TST_PATH_MAX];
	struct it_st_bytes b;
	size_t n;

	it_st_demo("once", NULL, once);
	it_st_count(once, &b);
	n = it_st_samples(once);
	cr_assert_gt(n, 50, "%zu samples", n);
	/* Whole only after a weight (a late sample, under load: the reader weighs the next record). */
	cr_expect_eq(b.count[PPF_REC_SAMPLE], b.count[PPF_REC_SAMPLE_WEIGHT],
		     "%llu whole samples in the default, %llu weighted",
		     (unsigned long long)b.count[PPF_REC_SAMPLE],
		     (unsigned long long)b.count[PPF_REC_SAMPLE_WEIGHT]);
	/* A new stack comes with its first sample. */
	cr_expect_gt(b.count[PPF_REC_STACK_SAMPLE], 0);
	cr_expect_gt(b.count[PPF_REC_SAMPLE_BLOCK], 0);
	/* demo has a handful of stacks a thread: the samples cost 8 bytes and a block header. */
	cr_expect_lt((double)it_st_stack_bytes(&b) / (double)n, 16.0,
		     "%llu bytes of stacks and blocks for %zu samples",
		     (unsigned long long)it_st_stack_bytes(&b), n);

	it_st_demo("whole", "[profile]\nstacks = whole\n", whole);
	it_st_count(whole, &b);
	n = it_st_samples(whole);
	cr_assert_gt(n, 50, "%zu samples", n);
	cr_expect_eq(b.count[PPF_REC_SAMPLE], n);
	cr_expect_eq(b.count[PPF_REC_STACK] + b.count[PPF_REC_STACK_SAMPLE] +
		     b.count[PPF_REC_SAMPLE_BLOCK], 0);
}

/* A report to compare: its arguments before the run directory, and its -o file's name. */
struct it_st_report {
	const char *args[6];
	const char *out; /* NULL: stdout */
};

#define IT_ST_REPORT(...) { .args = { __VA_ARGS__ }, .out = NULL }

static const struct it_st_report it_st_reports[] = {
	IT_ST_REPORT("top"), IT_ST_REPORT("top", "--lines"), IT_ST_REPORT("top", "--inlines"),
	IT_ST_REPORT("top", "--from", "0.05", "--to", "0.2"),
	IT_ST_REPORT("top", "--format", "json"), IT_ST_REPORT("tree"),
	IT_ST_REPORT("tree", "--format", "json"), IT_ST_REPORT("threads"),
	IT_ST_REPORT("threads", "--format", "json"), IT_ST_REPORT("processes"),
	IT_ST_REPORT("events"), IT_ST_REPORT("folded"), IT_ST_REPORT("folded", "--per-thread"),
	IT_ST_REPORT("script"), IT_ST_REPORT("speedscope"), IT_ST_REPORT("callers", "burn_alpha"),
	IT_ST_REPORT("callees", "main"), IT_ST_REPORT("annotate", "burn_alpha"),
	{ .args = { "flamegraph", "-o" }, .out = "fg.html" },
	{ .args = { "pprof", "-o" }, .out = "profile.pb.gz" },
};

/* The analyzer's environment in it_st_report ("NAME=VALUE", NULL-terminated; NULL: none). */
static const char *const *it_st_env;

/* Runs report rep on dir; returns its stdout (or -o file), stderr appended, dir's path made "RUN". */
static char *it_st_report(const struct it_st_report *rep, const char *dir, const char *tag)
{
	const char *argv[12] = { "pprof-analyze" };
	char out[TST_PATH_MAX], *text;
	struct tst_result r;
	size_t n = 1, len;

	for (size_t i = 0; rep->args[i]; i++)
		argv[n++] = rep->args[i];
	if (rep->out) {
		snprintf(out, sizeof(out), "%s/%s.%s", it_st.tmp, tag, rep->out);
		argv[n++] = out;
	}
	argv[n++] = dir;
	tst_run(&it_st, tag, argv, it_st_env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s %s: %s", rep->args[0],
		  tag, r.err);
	text = rep->out ? tst_slurp(out, &len) : strdup(r.out);
	text = realloc(text, strlen(text) + r.err_len + 1);
	strcat(text, r.err);
	tst_result_release(&r);
	return tst_log_replace(text, dir, "RUN");
}

/* Every report on run a and run b: byte for byte the same. */
static void it_st_same_reports(const char *a, const char *b)
{
	for (size_t i = 0; i < sizeof(it_st_reports) / sizeof(it_st_reports[0]); i++) {
		const struct it_st_report *rep = &it_st_reports[i];
		char *ta = it_st_report(rep, a, "a"), *tb = it_st_report(rep, b, "b");
		/* b's process logs are a's copied: the vDSO copy they name is a's. */
		size_t at = 0;

		tst_log_replace(tb, a, "RUN");

		while (ta[at] && ta[at] == tb[at])
			at++;
		cr_expect(strcmp(ta, tb) == 0, "%s %s: the two runs' reports differ at byte %zu: "
			  "'%.80s' and '%.80s'", rep->args[0], rep->args[1] ? rep->args[1] : "",
			  at, ta + (at > 40 ? at - 40 : 0), tb + (at > 40 ? at - 40 : 0));
		free(ta);
		free(tb);
	}
}

/*
 * One run, its samples written whole by the profiler, then each written
 * again through the stack table the handler uses: every report reads the
 * same from both, and the second is several times smaller.
 */
Test(it_stacks, one_run_written_both_ways_reads_the_same_in_every_report)
{
	char whole[TST_PATH_MAX], once[TST_PATH_MAX];
	struct it_st_bytes bw, bo;
	size_t n;

	it_st_demo("whole", "[profile]\nstacks = whole\n", whole);
	/* The same name as whole's (speedscope names a profile by it). */
	snprintf(once, sizeof(once), "%s/again", it_st.tmp);
	cr_assert_eq(mkdir(once, 0700), 0);
	strcat(once, "/whole");
	n = tst_restack_run(whole, once);
	cr_assert_gt(n, 50, "%zu samples", n);
	cr_assert_eq(it_st_samples(once), n);
	it_st_count(whole, &bw);
	it_st_count(once, &bo);
	/* Whole only after a weight: tst_restack copies those as the handler wrote them. */
	cr_expect(bo.count[PPF_REC_SAMPLE] == bo.count[PPF_REC_SAMPLE_WEIGHT] &&
		  bo.count[PPF_REC_SAMPLE_BLOCK] > 0, "%llu whole samples, %llu weighted, %llu blocks",
		  (unsigned long long)bo.count[PPF_REC_SAMPLE],
		  (unsigned long long)bo.count[PPF_REC_SAMPLE_WEIGHT],
		  (unsigned long long)bo.count[PPF_REC_SAMPLE_BLOCK]);
	cr_expect_lt(3 * it_st_stack_bytes(&bo), bw.bytes[PPF_REC_SAMPLE]);
	it_st_same_reports(whole, once);
}

/*
 * A run written before stacks were written once (demo 0.1 under the
 * profiler of then, its logs cut after their last record; the binaries it
 * ran, gone from where it ran them, are in tests/golden/oldlogs-bin and
 * found there through PPROF_BINARY_PATH): the reports that need no symbols
 * read as the analyzer of then printed them, its functions are named, and
 * every report reads the same when its samples are written again with
 * each stack once.
 */
Test(it_stacks, run_of_the_old_format_reads_as_before)
{
	char fixture[TST_PATH_MAX], once[TST_PATH_MAX], bin[TST_PATH_MAX + 32];
	static const char *const golden[] = { "threads", "processes", "events" };
	const char *env[] = { bin, NULL };
	const struct it_st_report top = IT_ST_REPORT("top");
	char *text;

	snprintf(fixture, sizeof(fixture), "%s/tests/golden/oldlogs", PP_TEST_SOURCE_DIR);
	snprintf(bin, sizeof(bin), "PPROF_BINARY_PATH=%s/tests/golden/oldlogs-bin",
		 PP_TEST_SOURCE_DIR);
	it_st_env = env;
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		const struct it_st_report rep = IT_ST_REPORT(golden[i]);
		char name[64];

		text = it_st_report(&rep, fixture, "old");
		snprintf(name, sizeof(name), "oldlogs_%s.txt", golden[i]);
		tst_log_golden(text, name);
		free(text);
	}
	text = it_st_report(&top, fixture, "old");
	cr_expect(strstr(text, " burn_alpha (demo)\n") && strstr(text, " burn_beta (demo)\n") &&
		  strstr(text, " burn_gamma (libburn.so)\n"), "%s", text);
	cr_expect(!strstr(text, "oldlogs-bin/demo:") && !strstr(text, "oldlogs-bin/libburn.so:"),
		  "%s", text);
	free(text);
	snprintf(once, sizeof(once), "%s/oldlogs", it_st.tmp);
	cr_assert_eq(tst_restack_run(fixture, once), 216);
	it_st_same_reports(fixture, once);
	it_st_env = NULL;
}

/*
 * Waits until the output root holds something (the process's log, made by
 * the constructor) or child pid is gone.
 */
static void it_st_wait_for_log(pid_t pid)
{
	for (;;) {
		DIR *d = opendir(it_st.data);
		struct dirent *e;
		bool any = false;

		while (d && (e = readdir(d)))
			any = any || e->d_name[0] != '.';
		if (d)
			closedir(d);
		siginfo_t info = { .si_pid = 0 };

		/* Ended (left for tst_wait to reap), or the log is there. */
		if (any || waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
		    info.si_pid)
			return;
		usleep(2000);
	}
}

/*
 * deepstack killed with SIGKILL at random moments, many times: whatever
 * the handler was writing (a stack record, a block's entry, a new block),
 * each run loads without an error and without a record cut short (a killed
 * log ends at its last whole record: only "not finalised" is said), and
 * its samples hold the workload's deep stacks.
 */
Test(it_stacks, killed_at_random_moments_reads_to_the_last_whole_sample)
{
	const char *argv[] = { "workloads/deepstack", "1", NULL };
	const char *env[] = { it_st.env_preload, it_st.env_output, NULL };
	const unsigned rounds = 12;
	struct timespec seed;
	uint64_t total = 0, deep = 0;

	clock_gettime(CLOCK_MONOTONIC, &seed);
	srand((unsigned)seed.tv_nsec);
	for (unsigned k = 0; k < rounds; k++) {
		pid_t pid = tst_spawn(&it_st, "deep", argv, env);
		struct tst_result r;
		struct pa_run *run;

		/* From when its log exists (a loaded machine may take longer to get there). */
		it_st_wait_for_log(pid);
		usleep((useconds_t)(rand() % 350000));
		kill(pid, SIGKILL);
		tst_wait(&it_st, "deep", pid, &r);
		tst_result_release(&r);
		run = tst_load(&it_st);
		for (size_t i = 0; i < run->warnings.n; i++)
			cr_expect(!strstr(run->warnings.v[i].reason, "truncated"),
				  "round %u: %s: %s", k, run->warnings.v[i].path,
				  run->warnings.v[i].reason);
		for (size_t i = 0; i < run->nprocesses; i++)
			for (size_t j = 0; j < run->processes[i]->nthreads; j++) {
				const struct pa_thread *t = run->processes[i]->threads[j];

				for (size_t s = 0; s < t->nsamples; s++) {
					cr_assert(t->samples[s].nframes >= 1 && t->samples[s].ips,
						  "round %u: thread %u: sample %zu", k, t->tid,
						  s);
					deep += t->samples[s].nframes >= 30;
				}
				total += t->nsamples;
			}
		pa_run_free(run);
		tst_log_rmdir(strdup(it_st.data));
	}
	cr_expect_gt(total, rounds * 20, "%llu samples in %u runs", (unsigned long long)total,
		     rounds);
	/* deepstack burns 30 frames deep or more. */
	cr_expect_gt(deep, total / 2, "%llu of %llu samples 30 frames deep",
		     (unsigned long long)deep, (unsigned long long)total);
}

/*
 * Stacks deeper than max_frames keep their innermost frames and are marked
 * truncated: every report puts a `[truncated]` frame where their callers
 * would be, so that the totals of the frames it keeps are not taken for a
 * whole program's (deepstack's main held a third of its samples, no note).
 */
Test(it_stacks, stacks_cut_at_max_frames_say_so_in_every_report)
{
	const char *argv[] = { "workloads/deepstack", "0.3", "1", NULL };
	const char *folded[] = { "folded", NULL };
	const char *script[] = { "script", NULL };
	char env[TST_CONFIG_ENV_MAX], output[TST_PATH_MAX + 16], dir[TST_PATH_MAX];
	const char *envv[] = { it_st.env_preload, output, env, NULL };
	struct pa_error err = { 0 };
	struct tst_result r;
	struct pa_profile *p;
	struct pa_run *run;
	const struct pa_func *cut, *burn;
	uint64_t truncated = 0;
	char *out;

	snprintf(dir, sizeof(dir), "%s/cut", it_st.tmp);
	snprintf(output, sizeof(output), "PPROF_OUTPUT=%s", dir);
	tst_config_env(&it_st, "cut.ini", "[profile]\nmax_frames = 8\n", env);
	tst_run(&it_st, "deepstack", argv, envv, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%#x: %s", r.status, r.err);
	tst_result_release(&r);
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	for (size_t k = 0; k < run->processes[0]->nthreads; k++) {
		const struct pa_thread *t = run->processes[0]->threads[k];

		for (size_t s = 0; s < t->nsamples; s++)
			truncated += (t->samples[s].flags & PPF_SAMPLE_TRUNCATED) ?
					     t->samples[s].count : 0;
	}
	cr_assert_gt(truncated, 0, "no sample was cut at 8 frames");
	p = tst_profile(run, 0, 0);
	cut = pa_profile_find(p, "[truncated]");
	burn = pa_profile_find(p, "deep_burn");
	cr_assert_not_null(cut, "no [truncated] frame");
	cr_assert_not_null(burn);
	cr_expect_eq(cut->total, truncated, "[truncated] in %llu samples, %llu truncated",
		     (unsigned long long)cut->total, (unsigned long long)truncated);
	cr_expect_eq(cut->self, 0);
	/* Every stack that reaches deep_burn is 30 deep: cut, its root the mark. */
	cr_expect_gt(tst_stack_count(p, "deep_burn"), 0);
	for (size_t i = 0; i < p->nstacks; i++)
		if (!strcmp(p->stacks[i].frames[p->stacks[i].nframes - 1], "deep_burn"))
			cr_expect_str_eq(p->stacks[i].frames[0], "[truncated]");
	pa_profile_free(p);
	pa_run_free(run);
	/* The sample-by-sample formats too. */
	out = tst_analyze(&it_st, "folded", folded, dir);
	cr_expect(strstr(out, "\n[truncated];") || !strncmp(out, "[truncated];", 12), "%s", out);
	free(out);
	out = tst_analyze(&it_st, "script", script, dir);
	cr_expect(strstr(out, "[truncated]"), "%.2000s", out);
	free(out);
}
