/*
 * report_script: samples in the text layout of `perf script`, which
 * speedscope, the Firefox Profiler and the FlameGraph scripts
 * (stackcollapse-perf.pl) read:
 *
 *   COMM TID SECONDS.MICROS: PERIOD EVENT:
 *   \t    ADDRESS FUNCTION+0xOFF (MODULE)
 *   ...one line per frame, innermost first
 *   (a blank line)
 *
 * COMM is the thread's name (the executable's basename when it has none),
 * SECONDS the sample's CLOCK_MONOTONIC time, PERIOD the event count the
 * sample stands for, as perf prints it: the event's fixed period (1 for a
 * frequency event) times the overflows it stands for (pa_sample.count:
 * more than 1 for a late sample whose signal merged several), EVENT its
 * name. ADDRESS is the ELF
 * address in MODULE (as perf prints it; the run-time address when no
 * module holds it); an unresolved frame prints "[unknown]" as its function,
 * an address outside every module "[unknown]" as its module too. Samples
 * come thread by thread, each thread's in time order.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>

#include "before.h"
#include "eventinfo.h"
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
	uint64_t period = e && pa_event_sample_period(e) ? pa_event_sample_period(e) : 1;

	/* An estimate of the time before profiling (before.h) is no sample taken. */
	if (item->sample->flags & PA_SAMPLE_ESTIMATED)
		return 0;
	/*
	 * Readers tell threads apart by COMM and TID: with several runs, which
	 * can share tids, COMM starts with the run's directory ("DIR:COMM").
	 */
	if (item->proc->run_dir)
		fprintf(out, "%s:", item->proc->run_dir);
	fprintf(out, "%s %" PRIu32 " %" PRIu64 ".%06" PRIu64 ": %10" PRIu64 " %s: \n",
		item->thread->name[0] ? item->thread->name : pa_process_exe_base(item->proc),
		item->thread->tid, t / 1000000000u, t % 1000000000u / 1000u,
		period * item->sample->count,
		e ? e->name : "unknown");
	for (size_t k = 0; k < item->nframes; k++)
		pa_script_frame(out, &item->frames[k]);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

/*
 * Write the samples of ctx->run that ctx->filter selects. Symboliser
 * warnings go to ctx->warn (may be NULL). Returns 0, -EIO on a write
 * error, or another negative errno with ctx->err filled.
 */
static int pa_report_script_write(const struct pa_report_ctx *ctx)
{
	int ret = pa_samples_walk(ctx->run, ctx->filter, pa_script_sample, ctx->out, ctx->warn,
				  ctx->err);

	return ret == 0 && ferror(ctx->out) ? -EIO : ret;
}

const struct pa_report pa_report_script = {
	.name = "script",
	.usage = "DIR [OPTIONS]",
	.help = "The text layout of 'perf script': 'COMM TID TIME: PERIOD\n"
		"EVENT:', one frame per line, a blank line after each sample;\n"
		"for stackcollapse-perf.pl, speedscope, Firefox Profiler; with\n"
		"several DIRs, COMM is 'DIR:COMM'.\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_SAMPLES,
	.notes_apart = true,
	.in_time_order = true,
	.write = pa_report_script_write,
};
