/*
 * Processes of several hosts whose pids clash, and MPI ranks
 * (analyze/ident.c, the reader's PPF_REC_IDENTITY, the --host and --rank
 * filters, and what the reports that name processes make of them), on the
 * hand-made "hosts" run (tst_run.h).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"
#include "tst_it.h"
#include "tst_run.h"

TestSuite(ident, .init = tst_hosts_setup, .fini = tst_hosts_teardown, .timeout = 30);

/* The filter of every process, on cpu-clock. */
static struct pa_filter ident_filter(void)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };

	cr_assert_eq(pa_events_choose(tst_hosts_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	return f;
}

/* The process of pid on host (its short name), or NULL. */
static const struct pa_process *ident_find(uint32_t pid, const char *host)
{
	for (size_t i = 0; i < tst_hosts_run->nprocesses; i++) {
		const struct pa_process *p = tst_hosts_run->processes[i];

		if (p->pid == pid && pa_ident_on_host(p, host))
			return p;
	}
	return NULL;
}

/* Whether the line that starts at line holds needle. */
static bool ident_line_has(const char *line, const char *needle)
{
	const char *at = line ? strstr(line, needle) : NULL;

	return at && at < strchrnul(line, '\n');
}

Test(ident, reader_reads_host_boot_rank_job_and_anchor)
{
	const struct pa_process *r0 = ident_find(6, "node1"), *r2 = ident_find(6, "node2");
	const struct pa_process *launcher = ident_find(5, "node1.cluster");

	cr_assert_eq(tst_hosts_run->nprocesses, 3);
	cr_assert(r0 && r2 && launcher);
	cr_expect(r0->id.known && strcmp(r0->id.host, "node1.cluster") == 0);
	cr_expect(r0->id.rank == 0 && r0->id.world_size == 4 && strcmp(r0->id.job, "77") == 0);
	cr_expect(r2->id.rank == 2 && r2->id.boot_id[0] == 0x22 && r2->id.boot_id[15] == 0x22);
	cr_expect(launcher->id.rank == -1 && launcher->id.world_size == -1 &&
		  launcher->id.job[0] == '\0');
	cr_expect_eq(r2->id.anchor_mono_ns, 1000000000ull);
	cr_expect(!pa_process_same_pid_space(r0, r2) && pa_process_same_pid_space(r0, launcher));
	/* On node2's clock, 1.003 s is 3 ms after the anchor's realtime. */
	cr_expect_eq(pa_ident_realtime(r2, r2->start_ns), 1000000000003000000ull);
}

Test(ident, tags_tell_clashing_pids_apart)
{
	struct pa_ident_run r;
	char a[64], b[64], c[64];

	pa_ident_scan(tst_hosts_run, &r);
	cr_expect(r.several_hosts && r.any_rank && pa_ident_shown(&r));
	cr_expect_str_eq(pa_ident_tag(&r, ident_find(6, "node1"), a, sizeof(a)), "rank0@node1");
	cr_expect_str_eq(pa_ident_tag(&r, ident_find(6, "node2"), b, sizeof(b)), "rank2@node2");
	cr_expect_str_eq(pa_ident_tag(&r, ident_find(5, "node1"), c, sizeof(c)), "node1");
}

Test(ident, processes_keeps_clashing_pids_apart_with_host_and_rank)
{
	struct pa_filter f = ident_filter();
	char *text = tst_run_report(&pa_report_processes, tst_hosts_run, &f, NULL, NULL);
	const char *r0 = tst_find_line(text, "       6        5 node1.cluster      0     0.001");
	const char *r2 = tst_find_line(text, "       6        5 node2.cluster      2     0.002");

	cr_assert(tst_find_line(text, "     PID     PPID HOST            RANK  START(s)"), "%s",
		  text);
	/* Starts on the wall clock: node2's pid 6 started 2 ms after node1's launcher. */
	cr_assert(r0 && r2, "%s", text);
	/* rank 0 under node1's launcher (indented); node2's pid 6 is a root. */
	cr_expect(ident_line_has(r0, "-    run-tests  exit 0"), "%s", text);
	cr_expect(ident_line_has(r2, "-  run-tests    exit 0"), "%s", text);
	free(text);
}

/* What r (its variant for opts) writes on the hosts run for f, malloc'd. */
static char *ident_report(const struct pa_report *r, const struct pa_report_opts *opts,
			  const struct pa_filter *f)
{
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (r->variant)
		r = r->variant(opts);
	cr_assert(out);
	cr_assert_eq(r->write(&(struct pa_report_ctx){ .out = out, .opts = opts, .filter = f,
						       .run = tst_hosts_run, .warn = &warn,
						       .err = &err }), 0, "%s: %s", r->name,
		     err.reason);
	cr_assert_eq(fclose(out), 0);
	pa_warnings_release(&warn);
	return text;
}

Test(ident, threads_show_host_and_rank)
{
	struct pa_filter f = ident_filter();
	char *text = tst_run_report(&pa_report_threads, tst_hosts_run, &f, NULL, NULL);

	cr_expect(tst_find_line(text, "     PID      TID HOST            RANK  NAME"), "%s", text);
	cr_expect(tst_find_line(text, "       6        6 node1.cluster      0  main "), "%s", text);
	cr_expect(tst_find_line(text, "       6        6 node2.cluster      2  main "), "%s", text);
	cr_expect(tst_find_line(text, "       5        5 node1.cluster      -  main "), "%s", text);
	/* The coverage note names rank 2's thread with its tag: pid 6 alone is two. */
	cr_expect(strstr(text, "# coverage below 90%: 1 of 1 thread with over 0.1 s of CPU time: "
			 "rank2@node2:6/6 main "), "%s", text);
	free(text);
}

/* The samples of the profile of the hosts run under f. */
static uint64_t ident_samples(struct pa_filter f)
{
	struct pa_profile *prof = tst_run_profile(tst_hosts_run, f);
	uint64_t n = prof->samples;

	pa_profile_free(prof);
	return n;
}

Test(ident, host_and_rank_filters_select_processes)
{
	struct pa_filter f = ident_filter();

	f.pid = 6;
	cr_expect_eq(ident_samples(f), 15, "--pid 6: both hosts' pid 6");
	f.host = "node2";
	cr_expect_eq(ident_samples(f), 9, "--pid 6 --host node2");
	f.pid = 0;
	f.host = "node1.cluster";
	cr_expect_eq(ident_samples(f), 7, "--host node1.cluster: the launcher and rank 0");
	f.host = "node1.clus";
	cr_expect_eq(ident_samples(f), 0, "a host name cut short is no host");
	f.host = NULL;
	f.by_rank = true;
	f.rank = 0;
	cr_expect_eq(ident_samples(f), 6, "--rank 0");
	f.rank = 1;
	cr_expect_eq(ident_samples(f), 0, "--rank 1: not profiled");
}

Test(ident, folded_speedscope_and_script_keep_clashing_pids_apart)
{
	struct pa_filter f = ident_filter();
	struct pa_report_opts opts = PA_REPORT_OPTS_DEFAULT;
	char *text;

	opts.per_thread = true;
	text = ident_report(&pa_report_folded, &opts, &f);
	cr_expect(strstr(text, "run-tests (6, rank0@node1);main (6);"), "%s", text);
	cr_expect(strstr(text, "run-tests (6, rank2@node2);main (6);"), "%s", text);
	cr_expect(strstr(text, "run-tests (5, node1);main (5);"), "%s", text);
	free(text);
	opts.per_thread = false;
	text = ident_report(&pa_report_speedscope, &opts, &f);
	cr_expect(strstr(text, "\"name\":\"rank0@node1: run-tests (6) main (6)\""), "%s", text);
	cr_expect(strstr(text, "\"name\":\"rank2@node2: run-tests (6) main (6)\""), "%s", text);
	free(text);
	text = ident_report(&pa_report_script, &opts, &f);
	cr_expect_eq(tst_count_lines(text, "rank0@node1:main 6 "), 6, "%s", text);
	cr_expect_eq(tst_count_lines(text, "rank2@node2:main 6 "), 9, "%s", text);
	free(text);
}

/* Every report warns once when ranks of the world size left no profile. */
Test(ident, missing_ranks_are_warned_about_once_per_job)
{
	struct pa_warnings warn = { 0 };

	cr_assert_eq(pa_ident_warn_missing_ranks(tst_hosts_run, &warn), 0);
	cr_assert_eq(warn.n, 1);
	cr_expect(strstr(warn.v[0].reason, "2 of 4 MPI ranks of job 77 have no profile (") ==
		  warn.v[0].reason, "%s", warn.v[0].reason);
	pa_warnings_release(&warn);
}

/*
 * events names the processes of a row by tag and pid: with rank 3 on node2
 * sampled at another period (a row of its own), the 1 ms row lists both
 * hosts' pid 6 apart.
 */
Test(ident, events_names_processes_by_host_and_rank)
{
	const struct tst_hosts_proc rank3 = { "node2.cluster", 0x22, 7, 5, 3, 1004000000,
					      1000000000, 1, 0, 0, 0, 2000000, NULL };
	struct pa_error err = { 0 };
	struct pa_filter f;
	char *text;

	tst_hosts_process(&rank3);
	pa_run_free(tst_hosts_run);
	cr_assert_eq(pa_run_load(tst_hosts_dir, &tst_hosts_run, &err), 0, "%s", err.reason);
	f = ident_filter();
	text = tst_run_report(&pa_report_events, tst_hosts_run, &f, NULL, NULL);
	/* The run's order of processes: node1's by pid, then node2's. */
	cr_expect(strstr(text, "  node1:5,rank0@node1:6,rank2@node2:6  "), "%s", text);
	cr_expect(strstr(text, "  rank3@node2:7  "), "%s", text);
	free(text);
	/* JSON keys each process as the other reports' rows do: pid, host, rank. */
	text = tst_run_report_json(&pa_report_events, tst_hosts_run, &f, NULL);
	cr_expect(strstr(text, "\"pids\": [{\"pid\": 5, \"host\": \"node1.cluster\", "
			 "\"rank\": null, \"world_size\": null, \"job\": null},{\"pid\": 6, "
			 "\"host\": \"node1.cluster\", \"rank\": 0, \"world_size\": 4, "
			 "\"job\": \"77\"},{\"pid\": 6, \"host\": \"node2.cluster\", \"rank\": 2, "
			 "\"world_size\": 4, \"job\": \"77\"}]"), "%s", text);
	cr_expect(strstr(text, "\"pids\": [{\"pid\": 7, \"host\": \"node2.cluster\", "
			 "\"rank\": 3, "), "%s", text);
	free(text);
}
