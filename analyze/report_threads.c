/* report_threads: one line per thread of a run. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>

#include "coverage.h"
#include "eventinfo.h"
#include "ident.h"
#include "jsondoc.h"

/*
 * Samples of the selected event that arrived late: taken while the thread
 * blocked SIGTRAP, when the kernel merges every overflow into one signal.
 */
static uint64_t pa_report_threads_late(const struct pa_filter *f, const struct pa_process *proc,
				       const struct pa_thread *t)
{
	int64_t idx = pa_filter_event(f, proc);
	uint64_t n = 0;

	for (size_t i = 0; i < t->nsamples; i++)
		if ((t->samples[i].flags & PPF_SAMPLE_LATE) &&
		    (idx == -1 || (idx >= 0 && t->samples[i].event == (uint64_t)idx)) &&
		    pa_filter_selects_time(f, proc, &t->samples[i]))
			n += t->samples[i].count;
	return n;
}

/*
 * How the thread's log ends: "yes" (END), "full" (END, after it stopped
 * early: the file could not grow), "exec" (its process exec'd), "no".
 */
static const char *pa_report_threads_ended(const struct pa_process *proc,
					   const struct pa_thread *t)
{
	if (t->ended)
		return t->full.full ? "full" : "yes";
	return proc->replaced ? "exec" : "no";
}

/* What a report does with each row: a thread with a log, or one that ran unsampled. */
struct pa_report_threads_ops {
	void (*thread)(const struct pa_process *proc, const struct pa_thread *t,
		       const struct pa_filter *f, void *arg);
	void (*unsampled)(const struct pa_process *proc, const struct pa_unsampled *u,
			  void *arg);
};

/*
 * Calls ops on every thread the filter selects, in the run's order: a
 * process's threads with logs, then those that ran unsampled.
 */
static void pa_report_threads_each(const struct pa_run *run, const struct pa_filter *f,
				   const struct pa_report_threads_ops *ops, void *arg)
{
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		if (!pa_filter_selects(f, proc))
			continue;
		for (size_t i = 0; i < proc->nthreads; i++)
			if (pa_filter_selects_thread(f, proc->threads[i]))
				ops->thread(proc, proc->threads[i], f, arg);
		for (size_t i = 0; i < proc->nunsampled; i++)
			if (pa_filter_selects_unsampled(f, &proc->unsampled[i]))
				ops->unsampled(proc, &proc->unsampled[i], arg);
	}
}

/* Where the text rows go, and the HOST column's width (0: no HOST and RANK). */
struct pa_report_threads_text {
	FILE *out;
	int host_width;
};

static void pa_report_threads_row(const struct pa_process *proc, const struct pa_thread *t,
				  const struct pa_filter *f, void *arg)
{
	const struct pa_report_threads_text *txt = arg;
	FILE *out = txt->out;
	struct pa_coverage c;
	char cpu[PA_COVERAGE_TEXT_MAX], why[96], paused[96];

	pa_coverage_thread(f, proc, t, &c);
	pa_coverage_blocked(t, why, sizeof(why));
	pa_coverage_paused(&t->paused, true, paused, sizeof(paused));
	fprintf(out, "%8" PRIu32 " %8" PRIu32, t->pid, t->tid);
	pa_ident_columns(out, txt->host_width, proc);
	fprintf(out, "  %-16s %9" PRIu64 " %7" PRIu64
		" %9" PRIu64 " %6" PRIu64 " %5s %s  %s%s%s%s%s%s\n",
		t->name[0] ? t->name : "-", pa_filter_count_samples(f, proc, t),
		pa_filter_count_lost(f, proc, t), pa_filter_count_throttled(f, proc, t),
		pa_report_threads_late(f, proc, t), pa_report_threads_ended(proc, t),
		pa_coverage_format(&c, cpu, sizeof(cpu)), pa_process_exe_base(proc),
		why[0] || paused[0] ? "  (" : "", why, why[0] && paused[0] ? "; " : "",
		paused, why[0] || paused[0] ? ")" : "");
}

/* "paused_s", "paused_cpu_s" and "pauses" of p (null, null, 0 when never paused). */
static void pa_report_threads_json_paused(struct pa_json *j, const struct pa_paused *p)
{
	pa_json_key(j, "paused_s");
	if (p && p->pauses)
		pa_json_double(j, (double)p->paused_ns / 1e9);
	else
		pa_json_null(j);
	pa_json_key(j, "paused_cpu_s");
	if (p && p->pauses)
		pa_json_double(j, (double)p->cpu_ns / 1e9);
	else
		pa_json_null(j);
	pa_json_key_uint(j, "pauses", p ? p->pauses : 0);
}

/* A thread that ran unsampled: no samples, and why at the end of its row. */
static void pa_report_threads_unsampled_row(const struct pa_process *proc,
					    const struct pa_unsampled *u, void *arg)
{
	const struct pa_report_threads_text *txt = arg;
	FILE *out = txt->out;
	char why[128], cpu[PA_COVERAGE_TEXT_MAX];

	pa_unsampled_reason(u, why, sizeof(why));
	fprintf(out, "%8" PRIu32 " %8" PRIu32, proc->pid, u->tid);
	pa_ident_columns(out, txt->host_width, proc);
	fprintf(out, "  %-16s %9d %7s %9s %6s %5s %s  %s  "
		"(unsampled: %s)\n", u->name[0] ? u->name : "-", 0, "-",
		"-", "-", "-", pa_coverage_format(NULL, cpu, sizeof(cpu)),
		pa_process_exe_base(proc), why);
}

/*
 * The counts of the selected threads: samples and lost for the header, and
 * rows and their processes for the JSON opening.
 */
struct pa_report_threads_counts {
	struct pa_jsondoc_counts c;
	const struct pa_process *last; /* the process of the last thread counted */
};

static void pa_report_threads_count(const struct pa_process *proc, const struct pa_thread *t,
				    const struct pa_filter *f, void *arg)
{
	struct pa_report_threads_counts *tc = arg;

	tc->c.nprocesses += tc->last != proc;
	tc->last = proc;
	tc->c.nthreads++;
	tc->c.samples += pa_filter_count_samples(f, proc, t);
	tc->c.lost += pa_filter_count_lost(f, proc, t);
}

static void pa_report_threads_count_unsampled(const struct pa_process *proc,
					      const struct pa_unsampled *u, void *arg)
{
	struct pa_report_threads_counts *tc = arg;

	(void)u;
	tc->c.nprocesses += tc->last != proc;
	tc->last = proc;
	tc->c.nthreads++;
}

static struct pa_jsondoc_counts pa_report_threads_counts(const struct pa_run *run,
							     const struct pa_filter *f)
{
	static const struct pa_report_threads_ops ops = {
		pa_report_threads_count, pa_report_threads_count_unsampled,
	};
	struct pa_report_threads_counts tc = { .c = { .has_lost = true } };

	pa_report_threads_each(run, f, &ops, &tc);
	return tc.c;
}

/*
 * A header line naming the event and its period (pa_events_header), then
 * one row per thread that filter selects (its pid and tid; the event
 * selects which samples are counted): pid, tid, name, samples in the log,
 * samples lost (of that event when the log says, else of all events), late
 * samples, how its log ended ("yes": END record; "full": END record, after
 * the log stopped early because it could not grow, a full disk, with the
 * samples after that counted as lost; "exec": its process's image was
 * replaced by exec, which ends threads without one; "no": a raw
 * exit_group, killed or still running), its CPU time, user and system
 * time when known and the share the samples cover (coverage.h), and the
 * executable; then, in parentheses, why the thread's sampling signal was
 * blocked while it ran, when its log says (pa_coverage_blocked), and how
 * long its sampling was paused, with the CPU time it used meanwhile
 * (pa_coverage_paused; not in its coverage). Returns 0, or -EIO on a
 * write error.
 */
static int pa_report_threads_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_filter *filter = ctx->filter;
	static const struct pa_report_threads_ops ops = {
		pa_report_threads_row, pa_report_threads_unsampled_row,
	};
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;
	struct pa_report_threads_text txt = { .out = out };
	struct pa_ident_run id;

	pa_ident_scan(run, &id);
	txt.host_width = pa_ident_host_width(&id, run);
	pa_events_header(out, run, &f, pa_report_threads_counts(run, &f).samples, false, 0, 0,
			 0);
	fprintf(out, "%8s %8s", "PID", "TID");
	pa_ident_columns(out, txt.host_width, NULL);
	fprintf(out, "  %-16s %9s %7s %9s %6s %5s %s  %s\n", "NAME",
		"SAMPLES", "LOST", "THROTTLED", "LATE", "ENDED", PA_COVERAGE_HEAD, "EXE");
	pa_report_threads_each(run, &f, &ops, &txt);
	return ferror(out) ? -EIO : 0;
}

static void pa_report_threads_json_row(const struct pa_process *proc,
				       const struct pa_thread *t, const struct pa_filter *f,
				       void *arg)
{
	struct pa_json *j = arg;
	char why[96];

	pa_json_object_begin(j);
	pa_json_key_uint(j, "pid", t->pid);
	pa_json_key_uint(j, "tid", t->tid);
	pa_json_key_string(j, "name", t->name[0] ? t->name : NULL);
	pa_json_key_uint(j, "samples", pa_filter_count_samples(f, proc, t));
	pa_json_key_uint(j, "lost", pa_filter_count_lost(f, proc, t));
	pa_json_key_uint(j, "throttled", pa_filter_count_throttled(f, proc, t));
	pa_json_key_uint(j, "late", pa_report_threads_late(f, proc, t));
	struct pa_coverage c;

	pa_coverage_thread(f, proc, t, &c);
	pa_json_key_string(j, "ended", pa_report_threads_ended(proc, t));
	pa_json_key(j, "cpu_s");
	if (c.cpu_ns)
		pa_json_double(j, (double)c.cpu_ns / 1e9);
	else
		pa_json_null(j);
	pa_json_key_string(j, "exe", pa_process_exe_base(proc));
	pa_json_key_string(j, "unsampled", NULL);
	pa_coverage_json(j, &c);
	pa_json_key(j, "cpu_at_end");
	if (c.cpu_ns)
		pa_json_bool(j, t->ended);
	else
		pa_json_null(j);
	pa_coverage_blocked(t, why, sizeof(why));
	pa_json_key_string(j, "blocked", why[0] ? why : NULL);
	pa_report_threads_json_paused(j, &t->paused);
	pa_ident_json(j, proc);
	pa_json_object_end(j);
}

static void pa_report_threads_json_unsampled(const struct pa_process *proc,
					     const struct pa_unsampled *u, void *arg)
{
	struct pa_json *j = arg;
	char why[128];

	pa_unsampled_reason(u, why, sizeof(why));
	pa_json_object_begin(j);
	pa_json_key_uint(j, "pid", proc->pid);
	pa_json_key_uint(j, "tid", u->tid);
	pa_json_key_string(j, "name", u->name[0] ? u->name : NULL);
	pa_json_key_uint(j, "samples", 0);
	pa_json_key_null(j, "lost");
	pa_json_key_null(j, "throttled");
	pa_json_key_null(j, "late");
	pa_json_key_null(j, "ended");
	pa_json_key_null(j, "cpu_s");
	pa_json_key_string(j, "exe", pa_process_exe_base(proc));
	pa_json_key_string(j, "unsampled", why);
	pa_coverage_json(j, NULL);
	pa_json_key_null(j, "cpu_at_end");
	pa_json_key_null(j, "blocked");
	pa_report_threads_json_paused(j, NULL);
	pa_ident_json(j, proc);
	pa_json_object_end(j);
}

/*
 * The same as a JSON document (jsondoc.h; "processes" and "threads"
 * count the rows' processes and the rows, "lost" sums the rows') with one
 * row per thread: {"pid", "tid", "name" (null where the text shows '-'),
 * "samples", "lost", "late", "ended" ("yes", "full", "exec", "no"), "cpu_s" (null
 * when unknown), "exe", "unsampled", "user_s", "system_s" (null when
 * unknown), "coverage" (null where it has no meaning), "cpu_at_end"
 * (whether the CPU times are the END record's, or the last a log without
 * END recorded; null when unknown), "blocked" (why the sampling signal was
 * blocked while it ran, as in the text's marker; null when it was not),
 * "paused_s" and "paused_cpu_s" (the wall time its sampling was paused and
 * the CPU time it used meanwhile; null when never paused), "pauses"}.
 * Returns 0, -ENOMEM, or -EIO on a write error.
 */
static int pa_report_threads_write_json(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_filter *filter = ctx->filter;
	static const struct pa_report_threads_ops ops = {
		pa_report_threads_json_row, pa_report_threads_json_unsampled,
	};
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;
	struct pa_jsondoc_counts c = pa_report_threads_counts(run, &f);
	struct pa_json *j;
	int ret;

	ret = pa_jsondoc_begin(out, "threads", run, &f, &c, &j);
	if (ret < 0)
		return ret;
	pa_json_key_array(j, "rows");
	pa_report_threads_each(run, &f, &ops, j);
	pa_json_array_end(j);
	return pa_jsondoc_end(j);
}

const struct pa_report pa_report_threads = {
	.name = "threads",
	.usage = "DIR [OPTIONS]",
	.help = "One row per thread: pid, tid, name, samples, lost samples,\n"
		"late samples, how its log ended ('yes', 'full' when it\n"
		"stopped early because the disk was full, 'exec' when its\n"
		"process's image was replaced, 'no' after a raw exit_group,\n"
		"killed or still running), CPU, user and system time, the\n"
		"share of it the samples cover (COVER), executable; in\n"
		"parentheses, how long its sampling was paused and the CPU\n"
		"time it used meanwhile (left out of COVER).\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_RUN,
	.write = pa_report_threads_write,
	.write_json = pa_report_threads_write_json,
};
