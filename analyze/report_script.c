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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "before.h"
#include "eventinfo.h"
#include "grow.h"
#include "ident.h"
#include "samples.h"
#include "textsafe.h"

/*
 * The walk's state: each distinct stack's lines, made once per process,
 * and the text on its way out, written in large pieces (a sample is a few
 * KiB, the stream's buffer a page: one write(2) per sample took a third of
 * the time).
 */
struct pa_script_text {
	char *text;
	size_t len;
};

struct pa_script {
	FILE *out;
	size_t proc_index;  /* whose stacks texts holds */
	struct pa_script_text *texts; /* per distinct stack: its frame lines */
	size_t ntexts, cap;
	char *buf;          /* PA_SCRIPT_BUF bytes */
	size_t len;
	struct pa_ident_run id; /* where the run's processes ran (their tags) */
};

#define PA_SCRIPT_BUF (1u << 20)

static void pa_script_flush(struct pa_script *sc)
{
	if (sc->len)
		fwrite(sc->buf, 1, sc->len, sc->out);
	sc->len = 0;
}

static void pa_script_put(struct pa_script *sc, const char *s, size_t n)
{
	if (sc->len + n > PA_SCRIPT_BUF)
		pa_script_flush(sc);
	if (n > PA_SCRIPT_BUF) {
		fwrite(s, 1, n, sc->out);
		return;
	}
	memcpy(sc->buf + sc->len, s, n);
	sc->len += n;
}

static void pa_script_frame(FILE *out, const struct pa_frame *fr)
{
	fprintf(out, "\t%16" PRIx64 " ", fr->module ? fr->offset : fr->ip);
	if (fr->function) {
		pa_text_put(out, fr->function, false);
		fprintf(out, "+0x%" PRIx64, fr->func_offset);
	} else {
		fputs("[unknown]", out);
	}
	fputs(" (", out);
	pa_text_put(out, fr->module ? fr->module : "[unknown]", false);
	fputs(")\n", out);
}

static void pa_script_drop(struct pa_script *sc)
{
	for (size_t i = 0; i < sc->ntexts; i++)
		free(sc->texts[i].text);
	sc->ntexts = 0;
}

/* Keep text (malloc'd, len bytes) as the lines of the process's next stack; -ENOMEM. */
static int pa_script_keep(struct pa_script *sc, char *text, size_t len)
{
	if (pa_grow((void **)&sc->texts, &sc->cap, sc->ntexts, sizeof(*sc->texts)) < 0)
		return -ENOMEM;
	sc->texts[sc->ntexts++] = (struct pa_script_text){ text, len };
	return 0;
}

/* Put item's frame lines: made now for a new stack, kept for the next samples of it. */
static int pa_script_frames(struct pa_script *sc, const struct pa_samples_item *item)
{
	FILE *mem;
	char *text = NULL;
	size_t len = 0;

	if (item->proc_index != sc->proc_index) {
		pa_script_drop(sc);
		sc->proc_index = item->proc_index;
	}
	if (!item->stack_new && item->stack < sc->ntexts) {
		pa_script_put(sc, sc->texts[item->stack].text, sc->texts[item->stack].len);
		return 0;
	}
	mem = open_memstream(&text, &len);
	if (!mem)
		return -ENOMEM;
	for (size_t k = 0; k < item->nframes; k++)
		pa_script_frame(mem, &item->frames[k]);
	if (fclose(mem) != 0 || !text)
		return -ENOMEM;
	pa_script_put(sc, text, len);
	if (item->stack == PA_SAMPLES_NO_STACK || pa_script_keep(sc, text, len) < 0)
		free(text); /* not kept: made again next time */
	return 0;
}

static int pa_script_sample(void *ctx, const struct pa_samples_item *item)
{
	struct pa_script *sc = ctx;
	const struct pa_event *e = item->event;
	uint64_t t = item->sample->time_ns;
	uint64_t period = (e && pa_event_sample_period(e) ? pa_event_sample_period(e) : 1) *
			  item->sample->count;
	const char *dir = item->proc->run_dir ? item->proc->run_dir : "";
	char tag[96];
	const char *comm = item->thread->name[0] ? item->thread->name :
						   pa_process_exe_base(item->proc);
	const char *ev = e ? e->name : "unknown";
	uint32_t tid = item->thread->tid;
	char head[1024], *big = NULL;
	int n;

	/* An estimate of the time before profiling (before.h) is no sample taken. */
	if (item->sample->flags & PA_SAMPLE_ESTIMATED)
		return 0;
	/*
	 * Readers tell threads apart by COMM and TID: with several runs, which
	 * can share tids, COMM starts with the run's directory ("DIR:COMM");
	 * with several hosts, which can too, or ranks, with its tag
	 * ("rank3@node2:COMM").
	 */
	pa_ident_tag(&sc->id, item->proc, tag, sizeof(tag));
#define PA_SCRIPT_HEAD "%s%s%s%s%s %" PRIu32 " %" PRIu64 ".%06" PRIu64 ": %10" PRIu64 " %s: \n"
#define PA_SCRIPT_ARGS dir, *dir ? ":" : "", tag, *tag ? ":" : "", comm, tid, \
	t / 1000000000u, t % 1000000000u / 1000u, period, ev
	n = snprintf(head, sizeof(head), PA_SCRIPT_HEAD, PA_SCRIPT_ARGS);
	if (n < 0 || ((size_t)n >= sizeof(head) &&
		      asprintf(&big, PA_SCRIPT_HEAD, PA_SCRIPT_ARGS) < 0))
		return -ENOMEM;
#undef PA_SCRIPT_HEAD
#undef PA_SCRIPT_ARGS
	/* A name with a newline would make a line of frames, or a header. */
	pa_text_clean(big ? big : head, (size_t)n - 1, false);
	pa_script_put(sc, big ? big : head, (size_t)n);
	free(big);
	if (pa_script_frames(sc, item) < 0)
		return -ENOMEM;
	pa_script_put(sc, "\n", 1);
	return ferror(sc->out) ? -EIO : 0;
}

/*
 * Write the samples of ctx->run that ctx->filter selects. Symboliser
 * warnings go to ctx->warn (may be NULL). Returns 0, -EIO on a write
 * error, or another negative errno with ctx->err filled.
 */
static int pa_report_script_write(const struct pa_report_ctx *ctx)
{
	struct pa_script sc = { .out = ctx->out, .buf = malloc(PA_SCRIPT_BUF) };
	int ret;

	pa_ident_scan(ctx->run, &sc.id);
	ret = !sc.buf ? -ENOMEM : pa_samples_walk_opts(ctx->run, ctx->filter,
				       &(struct pa_samples_opts){ .frames_of_new = true },
				       pa_script_sample, &sc, ctx->warn, ctx->err);

	if (ret == -ENOMEM)
		pa_error_set(ctx->err, ret, ctx->run->dir, false, 0, "out of memory");
	pa_script_flush(&sc);
	pa_script_drop(&sc);
	free(sc.texts);
	free(sc.buf);
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
