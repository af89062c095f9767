/*
 * Integration: a profiled program behaves as it does without the profiler.
 * Its errno values are unchanged across samples and across the calls the
 * profiler interposes (the errnos workload), and every workload whose
 * output no other test compares prints the same stdout and stderr and ends
 * with the same status with and without the preload. Compared elsewhere:
 * demo (it_demo), apptrap and blocker (it_signals), oddthreads (it_threads),
 * spawner and popener (it_exec). Not compared: spin runs until it is
 * killed, and seccomp_run exists to make the profiler print why it is off.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_out;

static void it_out_init(void)
{
	tst_init(&it_out);
}

static void it_out_fini(void)
{
	tst_release(&it_out);
}

TestSuite(it_output, .init = it_out_init, .fini = it_out_fini, .timeout = 120);

/*
 * Expects text (a profiled run's stdout or stderr, named what) to equal want
 * (the same without the profiler), and names the lines that differ.
 */
static void it_out_expect_same(const char *argv0, const char *what, const char *text,
			       const char *want)
{
	const char *a = text, *b = want;
	size_t shown = 0;

	cr_expect(strcmp(text, want) == 0, "%s: %s differs from a run without the profiler",
		  argv0, what);
	for (int line = 1; (*a || *b) && shown < 10; line++) {
		size_t alen = strcspn(a, "\n"), blen = strcspn(b, "\n");

		if (alen != blen || memcmp(a, b, alen) != 0) {
			cr_log_error("%s %s line %d: profiled \"%.*s\", without \"%.*s\"",
				     argv0, what, line, (int)alen, a, (int)blen, b);
			shown++;
		}
		a += alen + (a[alen] != '\0');
		b += blen + (b[blen] != '\0');
	}
}

/* Runs argv without and with the profiler; expects the same status, stdout, stderr. */
static void it_out_compare(const char *const *argv, struct tst_result *plain,
			   struct tst_result *prof)
{
	tst_run(&it_out, "plain", argv, NULL, plain);
	tst_run_profiled(&it_out, "prof", argv, NULL, prof);
	cr_expect_eq(prof->status, plain->status,
		     "%s: status 0x%x, without the profiler 0x%x; stderr: %s", argv[0],
		     prof->status, plain->status, prof->err);
	it_out_expect_same(argv[0], "stdout", prof->out, plain->out);
	it_out_expect_same(argv[0], "stderr", prof->err, plain->err);
}

/* The process of run whose argv[1] is arg1 and whose parent is not profiled. */
static const struct pa_process *it_out_top(const struct pa_run *run, const char *arg1)
{
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];

		if (p->argc > 1 && strcmp(p->argv[1], arg1) == 0 &&
		    !tst_log_find_process(run, p->ppid))
			return p;
	}
	cr_assert_fail("no profiled process with argument %s", arg1);
	return NULL;
}

/*
 * errno at the start of main and of a thread, after failing libc calls, and
 * after each call the profiler interposes (pthread_create, dlopen, dlclose,
 * sigaction, signal, fork, the exec family, posix_spawn, system): the same
 * values with and without the profiler, whose hooks did run.
 */
Test(it_output, errno_kept_by_interposed_calls)
{
	const char *argv[] = { "workloads/errnos", "calls", NULL };
	struct tst_result plain, prof;
	const struct pa_process *top;
	struct pa_run *run;
	size_t forked = 0;

	it_out_compare(argv, &plain, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.err);
	/*
	 * The workload did what it says (a bad build would print other
	 * values). libasan.so (make test-asan) leaves EEXIST in errno before main.
	 */
	cr_assert((tst_asan() || strstr(plain.out, "errno at main's start: ret 0 errno 0 (0)")) &&
		  strstr(plain.out, "open missing file: ret -1 errno 2 (ENOENT)") &&
		  strstr(plain.out, "execve missing: ret -1 errno 2 (ENOENT)") &&
		  strstr(plain.out, "fork child: errno 4242 (?)"), "%s", plain.out);

	run = tst_load(&it_out);
	top = it_out_top(run, "calls");
	cr_expect_eq(top->mode, (uint32_t)tst_mode(), "profiling was off");
	/* Nine exec calls failed: each was seen by the exec hooks. */
	cr_expect_geq(top->nexecs, 9, "%zu exec attempts recorded", top->nexecs);
	/* The fork child started profiling again (the atfork handler ran). */
	for (size_t i = 0; i < run->nprocesses; i++)
		forked += run->processes[i]->ppid == top->pid &&
			  run->processes[i]->argc > 1 &&
			  strcmp(run->processes[i]->argv[1], "calls") == 0;
	cr_expect_eq(forked, 1, "%zu fork children profiled", forked);
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/*
 * Three threads set errno, burn about 10 ms of CPU (about ten samples) and
 * read it back, 31 times each: every value survives. One thread has closed
 * the profiler's descriptors first (raw close calls), so that the signal
 * handler meets failing system calls (seen as lost samples): their errno
 * must not leak either. The logs are small (each stack once): after the
 * close they cannot grow, and most samples that land in the bursts are
 * lost, which is the point: the handler ran there, and failed.
 */
Test(it_output, errno_kept_across_samples)
{
	const char *argv[] = { "workloads/errnos", "burn", "0.3", NULL };
	struct tst_result plain, prof;
	const struct pa_process *p;
	struct pa_run *run;
	size_t burners = 0, closers = 0;

	it_out_compare(argv, &plain, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.err);
	cr_assert_eq(tst_count_lines(plain.out, ""), 3, "%s", plain.out);
	cr_assert(!strstr(plain.out, "changed"), "errno changed without the profiler: %s",
		  plain.out);

	/* The test means something only if samples landed in the bursts. */
	run = tst_load(&it_out);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pa_thread *t = p->threads[i];
		struct pa_profile *tp = tst_profile(run, p->pid, t->tid);
		uint64_t self = tst_self(tp, "burn_errno");

		if (tst_stack_count(tp, "errnos_deep;burn_errno") > 0) {
			closers++;
			cr_expect_geq(self + t->lost, 20, "closer %u: %llu samples, %llu lost",
				      t->tid, (unsigned long long)self,
				      (unsigned long long)t->lost);
			/*
			 * Its log filled up: samples were lost, or even
			 * the END record found no room.
			 */
			cr_expect(!t->ended || t->lost > 0, "closer %u: the handler "
				  "never failed a system call, so this run proves less",
				  t->tid);
		} else if (self > 0) {
			burners++;
			/*
			 * About 0.3 s of CPU at one sample per ms, taken, or lost
			 * once the log could not grow after the close (in the
			 * handler all the same).
			 */
			cr_expect_geq(self + t->lost, 100, "thread %u: %llu samples in "
				      "burn_errno, %llu lost", t->tid, (unsigned long long)self,
				      (unsigned long long)t->lost);
		}
		pa_profile_free(tp);
	}
	cr_expect_eq(burners, 2, "%zu threads sampled in burn_errno", burners);
	cr_expect_eq(closers, 1, "%zu closer threads sampled", closers);
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/*
 * One workload run: argv (argv[0] relative to the build directory, unused
 * entries empty) and how it ends without the profiler. Arrays, not pointers:
 * Criterion 2.4.1 crashes on parameters that point to string literals.
 */
struct it_out_case {
	char argv[6][32];
	int exit_code; /* or -1 when it dies of a signal */
	int signal;    /* the signal it dies of, or 0 */
};

ParameterizedTestParameters(it_output, same_as_unprofiled)
{
	static struct it_out_case cases[] = {
		{ { "workloads/clockloop", "0.1" }, 0, 0 },
		{ { "workloads/deepstack", "0.1" }, 0, 0 },
		{ { "workloads/dlreuse", "0.05", "3" }, 0, 0 },
		{ { "workloads/forker", "0.1", "--no-pids" }, 0, 0 },
		{ { "workloads/manythreads", "100", "--no-usage" }, 0, 0 },
		{ { "workloads/apptrap", "--raise-default" }, -1, SIGTRAP },
		/* It prints whose _Unwind_RaiseException its C++ library binds. */
		{ { "workloads/cthrow" }, 0, 0 },
		/* It prints which ini_parse its library binds. */
		{ { "workloads/vendini" }, 0, 0 },
	};

	return cr_make_param_array(struct it_out_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

/*
 * The workload prints the same stdout and stderr (no libpprof: line: the
 * profiler has nothing to say in a normal run) and ends the same way, and
 * the profiled run did take samples.
 */
ParameterizedTest(struct it_out_case *c, it_output, same_as_unprofiled)
{
	const char *argv[7] = { NULL };
	struct tst_result plain, prof;
	struct pa_profile *p;
	struct pa_run *run;

	for (size_t i = 0; i < 6 && c->argv[i][0]; i++)
		argv[i] = c->argv[i];
	it_out_compare(argv, &plain, &prof);
	if (c->signal)
		cr_assert(WIFSIGNALED(plain.status) && WTERMSIG(plain.status) == c->signal,
			  "%s without the profiler: status 0x%x", argv[0], plain.status);
	else
		cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == c->exit_code,
			  "%s without the profiler: status 0x%x: %s", argv[0], plain.status,
			  plain.err);
	cr_expect(plain.out_len > 0, "%s prints nothing to compare", argv[0]);
	cr_expect(!strstr(prof.err, "libpprof:"), "%s: %s", argv[0], prof.err);

	run = tst_load(&it_out);
	p = tst_profile(run, 0, 0);
	cr_expect_gt(p->samples, 0, "%s: no sample taken, so nothing was compared", argv[0]);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}
