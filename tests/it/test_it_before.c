/*
 * Integration: the CPU time a process used before it was sampled (the
 * dynamic loader's relocations, the constructors of the libraries loaded
 * before the profiler's, the profiler's own start) is accounted for:
 * recorded in process.log, shown by `processes` (BEFORE(s), before_s) and,
 * for a CPU-time event, as an entry "[before profiling]" of estimated
 * samples in the reports. slowinit burns CPU in a library constructor and
 * prints the process's CPU time when that constructor ended and when main
 * began: the time before profiling lies between the two.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "before.h"
#include "tst_it.h"

static struct tst_it it_bef;

static void it_bef_init(void)
{
	tst_init(&it_bef);
}

static void it_bef_fini(void)
{
	tst_release(&it_bef);
}

TestSuite(it_before, .init = it_bef_init, .fini = it_bef_fini, .timeout = 120);

/* CPU seconds the constructor burns: a heavy start-up, well above the noise. */
#define IT_BEF_CTOR "0.3"
/* Clocks read a moment apart (a few system calls): allowed either way, in seconds. */
#define IT_BEF_SLACK 0.005

/* The image's truth: "image N ctor_end_cpu C main_cpu M" from its stdout. */
static void it_bef_truth(const char *out, int image, double *ctor_end, double *main_cpu)
{
	char prefix[32];
	const char *line;

	snprintf(prefix, sizeof(prefix), "image %d ctor_end_cpu ", image);
	line = tst_find_line(out, prefix);
	cr_assert_not_null(line, "no '%s' line in:\n%s", prefix, out);
	cr_assert_eq(sscanf(line + strlen(prefix), "%lf main_cpu %lf", ctor_end, main_cpu), 2,
		     "%s", line);
}

/* slowinit ARGV profiled, with SLOWINIT_SECONDS=ctor (NULL: unset); its status checked. */
static void it_bef_run(const char *tag, const char *const *argv, const char *ctor,
		       struct tst_result *r)
{
	char env_ctor[64];
	const char *env[] = { it_bef.env_preload, it_bef.env_output, ctor ? env_ctor : NULL,
			      NULL };

	snprintf(env_ctor, sizeof(env_ctor), "SLOWINIT_SECONDS=%s", ctor ? ctor : "");
	tst_run(&it_bef, tag, argv, env, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "status 0x%x: %s",
		  r->status, r->err);
}

static double it_bef_seconds(const struct pa_process *p)
{
	return (double)(p->before.user_ns + p->before.system_ns) / 1e9;
}

/* pprof-analyze ARGS... on the run; returns its stdout (malloc'd), exit 0 asserted. */
static char *it_bef_analyze(const char *report, const char *opt)
{
	char analyze[TST_PATH_MAX];
	const char *argv[] = { analyze, report, it_bef.data, opt, NULL };
	struct tst_result r;
	char *out;

	tst_build_path(analyze, "pprof-analyze");
	tst_run(&it_bef, report, argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", report, r.err);
	out = r.out;
	r.out = NULL;
	tst_result_release(&r);
	return out;
}

/*
 * A constructor that burns 0.3 s before the profiler's runs: the process's
 * time before profiling holds it (between the workload's two readings), and
 * every report of cpu-clock samples counts it as "[before profiling]", its
 * user time over the period, as one root frame under the process.
 */
Test(it_before, heavy_constructor_is_accounted)
{
	const char *argv[] = { "workloads/slowinit", "0.1", NULL };
	const struct pa_event *ev;
	const struct pa_process *p;
	struct pa_profile *prof;
	struct tst_result r;
	struct pa_run *run;
	double ctor_end, main_cpu, period;
	uint64_t est;
	char line[256], *text;

	it_bef_run("heavy", argv, IT_BEF_CTOR, &r);
	it_bef_truth(r.out, 1, &ctor_end, &main_cpu);
	cr_assert_geq(ctor_end, atof(IT_BEF_CTOR), "%s", r.out);
	run = tst_load(&it_bef);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_assert(p->before.known, "process.log holds no CPU time before profiling");
	cr_expect(it_bef_seconds(p) >= ctor_end - IT_BEF_SLACK &&
		  it_bef_seconds(p) <= main_cpu + IT_BEF_SLACK,
		  "before profiling %.6f s; the constructor ended at %.6f s of CPU, main began "
		  "at %.6f s", it_bef_seconds(p), ctor_end, main_cpu);
	ev = &p->events[0];
	period = tst_period_s(p);
	est = pa_before_event_samples(p, ev);
	/* cpu-clock counts user time: the estimate is that part over the period. */
	cr_expect_eq(est, (uint64_t)((double)p->before.user_ns / 1e9 / period + 0.5),
		     "estimate %" PRIu64 " for %.6f s of user time", est,
		     (double)p->before.user_ns / 1e9);
	cr_expect_geq((double)est * period, 0.5 * ctor_end, "estimate %" PRIu64, est);

	prof = tst_profile(run, 0, 0);
	cr_expect_eq(tst_self(prof, PA_BEFORE_NAME), est);
	cr_expect_eq(tst_stack_count(prof, PA_BEFORE_NAME), est, "not a root frame of its own");
	pa_profile_free(prof);

	text = it_bef_analyze("top", NULL);
	snprintf(line, sizeof(line), "(%" PRIu64 " estimated for the time before profiling)", est);
	cr_expect(strstr(text, line), "top's header does not say '%s':\n%s", line, text);
	free(text);
	text = it_bef_analyze("folded", "--per-thread");
	snprintf(line, sizeof(line), "slowinit (%" PRIu32 ");" PA_BEFORE_NAME " %" PRIu64 "\n",
		 p->pid, est);
	cr_expect(strstr(text, line), "no '%s' in folded --per-thread:\n%s", line, text);
	free(text);
	text = it_bef_analyze("processes", "--format=json");
	snprintf(line, sizeof(line), "\"before_samples\": %" PRIu64 ",", est);
	cr_expect(strstr(text, line) && strstr(text, "\"before_s\": 0."), "%s", text);
	free(text);
	pa_run_free(run);
	tst_result_release(&r);
}

/* A program with nothing heavy before main: a small time, and an honest one. */
Test(it_before, plain_start_is_small_and_honest)
{
	const char *argv[] = { "workloads/slowinit", "0.1", NULL };
	const struct pa_process *p;
	struct tst_result r;
	struct pa_run *run;
	double ctor_end, main_cpu;

	it_bef_run("plain", argv, NULL, &r);
	it_bef_truth(r.out, 1, &ctor_end, &main_cpu);
	run = tst_load(&it_bef);
	p = run->processes[0];
	cr_assert(p->before.known, "process.log holds no CPU time before profiling");
	cr_expect(it_bef_seconds(p) > 0 && it_bef_seconds(p) <= main_cpu + IT_BEF_SLACK,
		  "before profiling %.6f s; main began at %.6f s of CPU", it_bef_seconds(p),
		  main_cpu);
	pa_run_free(run);
	tst_result_release(&r);
}

/*
 * The kernel counts a process's CPU time on across exec: the new image's
 * time before profiling starts from the exec, not from the process's start
 * (slowinit burns 0.4 s before it execs itself).
 */
Test(it_before, exec_image_counts_from_its_exec)
{
	const char *argv[] = { "workloads/slowinit", "0.05", "exec", "0.4", NULL };
	const struct pa_process *img[2] = { NULL, NULL };
	double ctor_end, main_cpu, exec_cpu;
	struct tst_result r;
	struct pa_run *run;
	const char *line;

	it_bef_run("exec", argv, "0.2", &r);
	line = tst_find_line(r.out, "image 1 exec_cpu ");
	cr_assert(line && sscanf(line, "image 1 exec_cpu %lf", &exec_cpu) == 1, "%s", r.out);
	it_bef_truth(r.out, 2, &ctor_end, &main_cpu);
	run = tst_load(&it_bef);
	cr_assert_eq(run->nprocesses, 2);
	for (size_t i = 0; i < 2; i++)
		img[run->processes[i]->replaced ? 0 : 1] = run->processes[i];
	cr_assert(img[0] && img[1], "no image replaced by exec");
	cr_assert(img[1]->before.known, "the new image holds no CPU time before profiling");
	cr_expect(it_bef_seconds(img[1]) >= ctor_end - exec_cpu - IT_BEF_SLACK &&
		  it_bef_seconds(img[1]) <= main_cpu - exec_cpu + IT_BEF_SLACK,
		  "new image: before profiling %.6f s; from the exec (%.6f s of CPU) its "
		  "constructor ended after %.6f s and main began after %.6f s",
		  it_bef_seconds(img[1]), exec_cpu, ctor_end - exec_cpu, main_cpu - exec_cpu);
	pa_run_free(run);
	tst_result_release(&r);
}

/*
 * An event that does not count CPU time (page faults) has no estimate: no
 * "[before profiling]" among its samples, the time itself in `processes`.
 */
Test(it_before, other_events_show_it_in_processes_only)
{
	const char *argv[] = { "workloads/slowinit", "0.1", NULL };
	char env[TST_CONFIG_ENV_MAX], *text;
	struct pa_profile *prof;
	struct tst_result r;
	struct pa_run *run;

	tst_config_env(&it_bef, "faults.ini", "[sample page-faults]\nperiod = 1\n", env);
	tst_run_profiled(&it_bef, "faults", argv, env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	run = tst_load(&it_bef);
	cr_assert(run->processes[0]->before.known);
	prof = tst_profile(run, 0, 0);
	cr_expect_gt(prof->samples, 0);
	cr_expect_eq(tst_self(prof, PA_BEFORE_NAME), 0);
	cr_expect_eq(prof->estimated, 0);
	pa_profile_free(prof);
	text = it_bef_analyze("processes", NULL);
	cr_expect(strstr(text, "BEFORE(s)") && !strstr(text, "estimated"), "%s", text);
	free(text);
	pa_run_free(run);
	tst_result_release(&r);
}
