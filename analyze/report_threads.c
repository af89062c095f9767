/* report_threads: the thread table; see report_threads.h. */
#include "report_threads.h"

#include <errno.h>
#include <inttypes.h>

/*
 * Samples of the selected event that arrived late: taken while the thread
 * blocked SIGTRAP, when the kernel merges every overflow into one signal.
 */
static uint64_t pa_report_threads_late(const struct pa_filter *f,
				       const struct pa_thread *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->nsamples; i++)
		if ((t->samples[i].flags & PPF_SAMPLE_LATE) &&
		    (f->event < 0 || t->samples[i].event == (uint32_t)f->event))
			n++;
	return n;
}

int pa_report_threads(FILE *out, const struct pa_run *run, const struct pa_filter *filter)
{
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;

	fprintf(out, "%8s %8s  %-16s %9s %7s %6s %5s %10s  %s\n", "PID", "TID", "NAME",
		"SAMPLES", "LOST", "LATE", "ENDED", "CPU(s)", "EXE");
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];
		const char *exe = pa_process_exe_base(proc);

		if (!pa_filter_selects(&f, proc))
			continue;
		for (size_t i = 0; i < proc->nthreads; i++) {
			const struct pa_thread *t = proc->threads[i];
			char cpu[32] = "-";

			if (f.tid && t->tid != f.tid)
				continue;
			if (t->ended && t->cpu_ns)
				snprintf(cpu, sizeof(cpu), "%.3f", (double)t->cpu_ns / 1e9);
			fprintf(out, "%8" PRIu32 " %8" PRIu32 "  %-16s %9" PRIu64 " %7" PRIu64
				" %6" PRIu64 " %5s %10s  %s\n", t->pid, t->tid,
				t->name[0] ? t->name : "-", pa_filter_count_samples(&f, t),
				t->lost, pa_report_threads_late(&f, t),
				t->ended ? "yes" : "no", cpu, exe);
		}
	}
	return ferror(out) ? -EIO : 0;
}
