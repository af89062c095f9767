/* report_threads: the thread table; see report_threads.h. */
#include "report_threads.h"

#include <errno.h>
#include <inttypes.h>

#include "events.h"

/*
 * Samples of the selected event that arrived late: taken while the thread
 * blocked SIGTRAP, when the kernel merges every overflow into one signal.
 */
static uint64_t pa_report_threads_late(int64_t idx, const struct pa_thread *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->nsamples; i++)
		if ((t->samples[i].flags & PPF_SAMPLE_LATE) &&
		    (idx == -1 || (idx >= 0 && t->samples[i].event == (uint64_t)idx)))
			n++;
	return n;
}

/* How the thread's log ends: "yes" (END), "exec" (its process exec'd), "no". */
static const char *pa_report_threads_ended(const struct pa_process *proc,
					   const struct pa_thread *t)
{
	return t->ended ? "yes" : proc->replaced ? "exec" : "no";
}

static void pa_report_threads_row(FILE *out, const struct pa_process *proc,
				  const struct pa_thread *t, const struct pa_filter *f)
{
	char cpu[32] = "-";

	if (t->ended && t->cpu_ns)
		snprintf(cpu, sizeof(cpu), "%.3f", (double)t->cpu_ns / 1e9);
	fprintf(out, "%8" PRIu32 " %8" PRIu32 "  %-16s %9" PRIu64 " %7" PRIu64
		" %6" PRIu64 " %5s %10s  %s\n", t->pid, t->tid, t->name[0] ? t->name : "-",
		pa_filter_count_samples(f, proc, t), pa_filter_count_lost(f, proc, t),
		pa_report_threads_late(pa_filter_event(f, proc), t),
		pa_report_threads_ended(proc, t), cpu, pa_process_exe_base(proc));
}

/* Samples of the selected threads, for the header. */
static uint64_t pa_report_threads_total(const struct pa_run *run, const struct pa_filter *f)
{
	uint64_t n = 0;

	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		for (size_t i = 0; pa_filter_selects(f, proc) && i < proc->nthreads; i++)
			if (pa_filter_selects_thread(f, proc->threads[i]))
				n += pa_filter_count_samples(f, proc, proc->threads[i]);
	}
	return n;
}

int pa_report_threads(FILE *out, const struct pa_run *run, const struct pa_filter *filter)
{
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;

	pa_events_header(out, run, &f, pa_report_threads_total(run, &f), false, 0, 0, 0);
	fprintf(out, "%8s %8s  %-16s %9s %7s %6s %5s %10s  %s\n", "PID", "TID", "NAME",
		"SAMPLES", "LOST", "LATE", "ENDED", "CPU(s)", "EXE");
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		if (!pa_filter_selects(&f, proc))
			continue;
		for (size_t i = 0; i < proc->nthreads; i++)
			if (pa_filter_selects_thread(&f, proc->threads[i]))
				pa_report_threads_row(out, proc, proc->threads[i], &f);
	}
	return ferror(out) ? -EIO : 0;
}
