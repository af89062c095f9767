/*
 * report_speedscope: speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json).
 *
 * One "sampled" profile per selected thread that has samples, named
 * "EXE (PID) THREAD (TID)", its samples in time order, each a stack of
 * indexes into shared.frames, root first. Weights: the period in
 * nanoseconds (unit "nanoseconds") for an event that counts nanoseconds at
 * a fixed period, else 1 (unit "none"), times the overflows the sample
 * stands for (pa_sample.count: more for a late sample). A frame is a function
 * (as speedscope's own importers make them), one per inline level
 * (pa_symbols_lookup_src), so that stacks count as top --inlines: its name,
 * its source file as "file" and the line where it starts as "line" when the
 * debug info gives them, else the display name (as in top) and the
 * module's path as "file".
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "before.h"
#include "eventinfo.h"
#include "json.h"
#include "intern.h"
#include "samples.h"

/*
 * The walk's state. A thread's samples are kept until the walk moves on
 * to another thread, then written as one profile; frames are shared by
 * every profile and written last (JSON does not order an object's keys).
 */
struct pa_speedscope {
	FILE *out;
	struct pa_intern *frames;   /* "name\0file\0line\0": file the source or module */
	const struct pa_thread *thread; /* whose samples ids holds */
	const struct pa_process *proc;
	uint64_t total;             /* the thread's counts, summed */
	uint32_t *ids;              /* frame indexes of every sample, root first */
	size_t nids, cap;
	size_t *ends;               /* per sample: the end of its frames in ids */
	uint32_t *counts;           /* per sample: the overflows it stands for */
	size_t nsamples, ends_cap;
	uint64_t weight;            /* per sample */
	size_t nprofiles;
};

static const char *pa_speedscope_thread_name(const struct pa_process *proc,
					     const struct pa_thread *th)
{
	return th->name[0] ? th->name : pa_process_exe_base(proc);
}

/* Write the collected thread as one profile and forget its samples. */
static void pa_speedscope_flush(struct pa_speedscope *ss)
{
	FILE *out = ss->out;
	char name[512];
	size_t at = 0;

	if (!ss->nsamples)
		return;
	if (ss->thread == ss->proc->before_thread)
		snprintf(name, sizeof(name), "%s (%" PRIu32 ") %s", pa_process_exe_base(ss->proc),
			 ss->proc->pid, PA_BEFORE_NAME);
	else
		snprintf(name, sizeof(name), "%s (%" PRIu32 ") %s (%" PRIu32 ")",
			 pa_process_exe_base(ss->proc), ss->proc->pid,
			 pa_speedscope_thread_name(ss->proc, ss->thread), ss->thread->tid);
	fprintf(out, "%s\n{\"type\":\"sampled\",\"name\":", ss->nprofiles++ ? "," : "");
	/* "RUN: EXE (PID) THREAD (TID)": the name alone may be another run's */
	fputc('"', out);
	if (ss->proc->run_dir) {
		pa_json_put_chars(out, ss->proc->run_dir, strlen(ss->proc->run_dir), 0);
		fputs(": ", out);
	}
	pa_json_put_chars(out, name, strlen(name), 0);
	fputc('"', out);
	fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
		ss->weight == 1 ? "none" : "nanoseconds", ss->weight * ss->total);
	for (size_t i = 0; i < ss->nsamples; i++) {
		fputs(i ? ",[" : "[", out);
		for (size_t k = at; k < ss->ends[i]; k++)
			fprintf(out, k > at ? ",%" PRIu32 : "%" PRIu32, ss->ids[k]);
		fputc(']', out);
		at = ss->ends[i];
	}
	fputs("],\n\"weights\":[", out);
	for (size_t i = 0; i < ss->nsamples; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, ss->weight * ss->counts[i]);
	fputs("]}", out);
	ss->nids = 0;
	ss->nsamples = 0;
	ss->total = 0;
}

/* Room for n more frame ids and one more sample. */
static int pa_speedscope_reserve(struct pa_speedscope *ss, size_t n)
{
	if (ss->nids + n > ss->cap) {
		size_t ncap = (ss->cap ? ss->cap * 2 : 4096) + n;
		uint32_t *v = realloc(ss->ids, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ss->ids = v;
		ss->cap = ncap;
	}
	if (ss->nsamples == ss->ends_cap) {
		size_t ncap = ss->ends_cap ? ss->ends_cap * 2 : 1024;
		size_t *v = realloc(ss->ends, ncap * sizeof(*v));
		uint32_t *c;

		if (!v)
			return -ENOMEM;
		ss->ends = v;
		c = realloc(ss->counts, ncap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		ss->counts = c;
		ss->ends_cap = ncap;
	}
	return 0;
}

/*
 * The index of the frame named name in file (NULL: none) at line (0:
 * unknown). A frame is a function, as in speedscope's own importers: its
 * line is where the function starts, not where the sample was.
 */
static int64_t pa_speedscope_frame(struct pa_speedscope *ss, const char *name,
				   const char *file, unsigned line)
{
	char num[16];
	size_t nl = strlen(name) + 1, fl = strlen(file ? file : "") + 1, ll;
	char buf[1024], *key;
	int64_t id;

	ll = (size_t)snprintf(num, sizeof(num), "%u", line) + 1;
	key = nl + fl + ll <= sizeof(buf) ? buf : malloc(nl + fl + ll);
	if (!key)
		return -ENOMEM;
	memcpy(key, name, nl);
	memcpy(key + nl, file ? file : "", fl);
	memcpy(key + nl + fl, num, ll);
	id = pa_intern_add(ss->frames, key, nl + fl + ll);
	if (key != buf)
		free(key);
	return id;
}

/*
 * Append frame k of item, outermost level first: one frame per inline
 * level, then the function (its source file, else its module); a frame
 * without source frames as top names it, with its module.
 */
static int pa_speedscope_levels(struct pa_speedscope *ss, const struct pa_samples_item *item,
				size_t k)
{
	const struct pa_frame *fr = &item->frames[k];
	const struct pa_srcframe *src = NULL;
	size_t nsrc = 0;
	int64_t id;

	if (item->sym && pa_symbols_lookup_src(item->sym, fr->ip, item->is_caller[k],
					       item->sample->time_ns, &src, &nsrc) < 0)
		return -ENOMEM;
	if (pa_speedscope_reserve(ss, nsrc ? nsrc : 1) < 0)
		return -ENOMEM;
	if (nsrc == 0) {
		id = pa_speedscope_frame(ss, fr->name, fr->module, 0);
		if (id < 0)
			return (int)id;
		ss->ids[ss->nids++] = (uint32_t)id;
		return 0;
	}
	for (size_t i = nsrc; i-- > 0;) {
		id = pa_speedscope_frame(ss, src[i].function,
					 src[i].file ? src[i].file : fr->module,
					 src[i].file ? src[i].start_line : 0);
		if (id < 0)
			return (int)id;
		ss->ids[ss->nids++] = (uint32_t)id;
	}
	return 0;
}

static int pa_speedscope_add(void *ctx, const struct pa_samples_item *item)
{
	struct pa_speedscope *ss = ctx;

	if (item->thread != ss->thread) {
		pa_speedscope_flush(ss);
		ss->thread = item->thread;
		ss->proc = item->proc;
	}
	for (size_t k = item->nframes; k-- > 0;) {
		int ret = pa_speedscope_levels(ss, item, k);

		if (ret < 0)
			return ret;
	}
	if (pa_speedscope_reserve(ss, 0) < 0)
		return -ENOMEM;
	ss->counts[ss->nsamples] = item->sample->count;
	ss->total += item->sample->count;
	ss->ends[ss->nsamples++] = ss->nids;
	return ferror(ss->out) ? -EIO : 0;
}

static void pa_speedscope_frames(struct pa_speedscope *ss)
{
	size_t n = pa_intern_count(ss->frames);

	fputs("],\n\"shared\":{\"frames\":[", ss->out);
	for (size_t i = 0; i < n; i++) {
		const char *name = pa_intern_key(ss->frames, i, NULL);
		const char *file = name + strlen(name) + 1;
		const char *line = file + strlen(file) + 1;

		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", ss->out);
		pa_json_put_string(ss->out, name, 0);
		if (*file) {
			fputs(",\"file\":", ss->out);
			pa_json_put_string(ss->out, file, 0);
		}
		if (strcmp(line, "0") != 0)
			fprintf(ss->out, ",\"line\":%s", line);
		fputc('}', ss->out);
	}
	fputs("]}}\n", ss->out);
}

/* The weight of one sample: see the top of this file. */
static uint64_t pa_speedscope_weight(const struct pa_run *run, const struct pa_filter *f)
{
	bool differs = false;
	const struct pa_event *e = pa_events_shown(run, f, &differs);

	if (e && !differs && (e->flags & PPF_EVENT_TIME_NS) && pa_event_sample_period(e) > 1)
		return pa_event_sample_period(e);
	return 1;
}

/*
 * Write the samples of ctx->run that ctx->filter selects. Symboliser
 * warnings go to ctx->warn (may be NULL). Returns 0, -EIO on a write
 * error, or another negative errno with ctx->err filled.
 */
static int pa_report_speedscope_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_filter *f = ctx->filter;
	struct pa_error *err = ctx->err;
	struct pa_speedscope ss = { .out = out, .weight = pa_speedscope_weight(run, f) };
	const char *base = strrchr(run->dir, '/');
	int ret;

	ss.frames = pa_intern_new();
	if (!ss.frames)
		return pa_error_set(err, -ENOMEM, run->dir, false, 0, "out of memory");
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"pprof-analyze\",\"activeProfileIndex\":0,\"name\":", out);
	pa_json_put_string(out, base && base[1] ? base + 1 : run->dir, 0);
	fputs(",\n\"profiles\":[", out);
	ret = pa_samples_walk(run, f, pa_speedscope_add, &ss, ctx->warn, err);
	if (ret == 0) {
		pa_speedscope_flush(&ss);
		pa_speedscope_frames(&ss);
	}
	if (ret == -ENOMEM)
		pa_error_set(err, ret, run->dir, false, 0, "out of memory");
	pa_intern_free(ss.frames);
	free(ss.ids);
	free(ss.ends);
	free(ss.counts);
	if (ret == 0 && ferror(out))
		ret = -EIO;
	return ret;
}

const struct pa_report pa_report_speedscope = {
	.name = "speedscope",
	.usage = "DIR [-o FILE.json] [OPTIONS]",
	.help = "speedscope's JSON: one sampled profile per thread, samples in\n"
		"time order, weighted by the period; with several DIRs, each\n"
		"profile's name starts with its DIR.\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_SAMPLES,
	.notes_apart = true,
	.in_time_order = true,
	.write = pa_report_speedscope_write,
};
