/* report_script: the perf script text layout; see report_script.h. */
#include "report_script.h"

#include <errno.h>
#include <inttypes.h>

#include "samples.h"

static void pa_script_frame(FILE *out, const struct pa_frame *fr)
{
	fprintf(out, "\t%16" PRIx64 " ", fr->module ? fr->offset : fr->ip);
	if (fr->function)
		fprintf(out, "%s+0x%" PRIx64, fr->function, fr->func_offset);
	else
		fputs("[unknown]", out);
	fprintf(out, " (%s)\n", fr->module ? fr->module : "[unknown]");
}

static int pa_script_sample(void *ctx, const struct pa_samples_item *item)
{
	FILE *out = ctx;
	const struct pa_event *e = item->event;
	uint64_t t = item->sample->time_ns;
	uint64_t period = e && !(e->flags & PPF_EVENT_FREQ) && e->period ? e->period : 1;

	/*
	 * Readers tell threads apart by COMM and TID: with several runs, which
	 * can share tids, COMM starts with the run's directory ("DIR:COMM").
	 */
	if (item->proc->run_dir)
		fprintf(out, "%s:", item->proc->run_dir);
	fprintf(out, "%s %" PRIu32 " %" PRIu64 ".%06" PRIu64 ": %10" PRIu64 " %s: \n",
		item->thread->name[0] ? item->thread->name : pa_process_exe_base(item->proc),
		item->thread->tid, t / 1000000000u, t % 1000000000u / 1000u, period,
		e ? e->name : "unknown");
	for (size_t k = 0; k < item->nframes; k++)
		pa_script_frame(out, &item->frames[k]);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

int pa_report_script(FILE *out, const struct pa_run *run, const struct pa_filter *f,
		     struct pa_warnings *warn, struct pa_error *err)
{
	int ret = pa_samples_walk(run, f, pa_script_sample, out, warn, err);

	return ret == 0 && ferror(out) ? -EIO : ret;
}
