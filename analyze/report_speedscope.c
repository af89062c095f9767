/*
 * report_speedscope: speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json).
 *
 * One "sampled" profile per selected thread that has samples, named
 * "EXE (PID) THREAD (TID)", its samples in time order, each a stack of
 * indexes into shared.frames, root first. Weights: the period in
 * nanoseconds (unit "nanoseconds") for an event that counts nanoseconds at
 * a fixed period, else 1 (unit "none"), times the overflows the sample
 * stands for (pa_sample.count: more for a late sample). Samples in a row
 * with the same stack of frames are written as one, weighing them all:
 * every view of speedscope (time order, left heavy, sandwich) shows the
 * same, and a thread that stays in one place for a second is one sample,
 * not a thousand. A frame is a function
 * (as speedscope's own importers make them), one per inline level
 * (pa_symbols_lookup_src), so that stacks count as top --inlines: its name,
 * its source file as "file" and the line where it starts as "line" when the
 * debug info gives them, else the display name (as in top) and the
 * module's path as "file".
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "before.h"
#include "eventinfo.h"
#include "grow.h"
#include "ident.h"
#include "json.h"
#include "intern.h"
#include "samples.h"

/*
 * The walk's state. A thread's profile is written as its samples come,
 * each a stack whose text ("1,2,3") is made once per process; frames are
 * shared by every profile and written last (JSON does not order an
 * object's keys).
 */
/* Samples in a row that stand for the same overflows (mostly 1). */
struct pa_speedscope_run {
	uint64_t count;
	uint32_t n;
};

struct pa_speedscope {
	FILE *out;
	const struct pa_filter *filter;
	struct pa_intern *frames;   /* "name\0file\0line\0": file the source or module */
	const struct pa_thread *thread; /* whose profile is open */
	size_t nsamples;            /* in it */
	struct pa_speedscope_run *counts; /* its written samples' counts, run by run */
	bool pending;               /* a sample is not written yet: */
	char *pending_text;         /* its stack's text */
	size_t pending_cap;
	uint64_t pending_count;     /* the overflows it stands for */
	struct pa_ident_run id;     /* where the run's processes ran (their tags) */
	size_t nruns, runs_cap;
	uint64_t weight;            /* per sample */
	size_t nprofiles;
	size_t proc_index;          /* whose stacks texts holds */
	char **texts;               /* per distinct stack of the process: its ids */
	size_t ntexts, texts_cap;
	uint32_t *ids;              /* the stack being made, root first */
	size_t nids, cap;
};

static const char *pa_speedscope_thread_name(const struct pa_process *proc,
					     const struct pa_thread *th)
{
	return th->name[0] ? th->name : pa_process_exe_base(proc);
}

/* Start the profile of item's thread, whose samples stand for n overflows. */
static void pa_speedscope_open(struct pa_speedscope *ss, const struct pa_samples_item *item,
			       uint64_t n)
{
	FILE *out = ss->out;
	char name[512], tag[96];

	if (item->thread == item->proc->before_thread)
		snprintf(name, sizeof(name), "%s (%" PRIu32 ") %s", pa_process_exe_base(item->proc),
			 item->proc->pid, PA_BEFORE_NAME);
	else
		snprintf(name, sizeof(name), "%s (%" PRIu32 ") %s (%" PRIu32 ")",
			 pa_process_exe_base(item->proc), item->proc->pid,
			 pa_speedscope_thread_name(item->proc, item->thread), item->thread->tid);
	fprintf(out, "%s\n{\"type\":\"sampled\",\"name\":", ss->nprofiles++ ? "," : "");
	/* "RUN: EXE (PID) THREAD (TID)": the name alone may be another run's */
	fputc('"', out);
	if (item->proc->run_dir) {
		pa_json_put_chars(out, item->proc->run_dir, strlen(item->proc->run_dir), 0);
		fputs(": ", out);
	}
	/* "rank3@node2: EXE (PID) ...": the pid alone may be another host's */
	if (pa_ident_tag(&ss->id, item->proc, tag, sizeof(tag))[0]) {
		pa_json_put_chars(out, tag, strlen(tag), 0);
		fputs(": ", out);
	}
	pa_json_put_chars(out, name, strlen(name), 0);
	fputc('"', out);
	fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
		ss->weight == 1 ? "none" : "nanoseconds", ss->weight * n);
	ss->thread = item->thread;
	ss->nsamples = 0;
	ss->nruns = 0;
}

/* Note the next sample's count, run by run; -ENOMEM. */
static int pa_speedscope_count(struct pa_speedscope *ss, uint64_t count)
{
	if (ss->nruns && ss->counts[ss->nruns - 1].count == count &&
	    ss->counts[ss->nruns - 1].n < UINT32_MAX) {
		ss->counts[ss->nruns - 1].n++;
		return 0;
	}
	if (pa_grow((void **)&ss->counts, &ss->runs_cap, ss->nruns, sizeof(*ss->counts)) < 0)
		return -ENOMEM;
	ss->counts[ss->nruns++] = (struct pa_speedscope_run){ count, 1 };
	return 0;
}

/* Write the pending sample, if any; -ENOMEM. */
static int pa_speedscope_flush(struct pa_speedscope *ss)
{
	if (!ss->pending)
		return 0;
	if (pa_speedscope_count(ss, ss->pending_count) < 0)
		return -ENOMEM;
	fputs(ss->nsamples++ ? ",[" : "[", ss->out);
	fputs(ss->pending_text, ss->out);
	fputc(']', ss->out);
	ss->pending = false;
	return 0;
}

/* End the open profile, if any: its last sample, its weights. */
static int pa_speedscope_close(struct pa_speedscope *ss)
{
	if (!ss->thread)
		return 0;
	if (pa_speedscope_flush(ss) < 0)
		return -ENOMEM;
	fputs("],\n\"weights\":[", ss->out);
	for (size_t r = 0, i = 0; r < ss->nruns; r++)
		for (uint32_t k = 0; k < ss->counts[r].n; k++)
			fprintf(ss->out, i++ ? ",%" PRIu64 : "%" PRIu64,
				ss->weight * ss->counts[r].count);
	fputs("]}", ss->out);
	ss->thread = NULL;
	return 0;
}

/* Room for n more frame ids in the stack being made. */
static int pa_speedscope_reserve(struct pa_speedscope *ss, size_t n)
{
	if (ss->nids + n > ss->cap) {
		size_t ncap = (ss->cap ? ss->cap * 2 : 256) + n;
		uint32_t *v = realloc(ss->ids, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ss->ids = v;
		ss->cap = ncap;
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

static void pa_speedscope_drop(struct pa_speedscope *ss)
{
	for (size_t i = 0; i < ss->ntexts; i++)
		free(ss->texts[i]);
	ss->ntexts = 0;
}

/* The ids of item's stack as text, "1,2,3", made from its frames (malloc'd); NULL: ENOMEM. */
static char *pa_speedscope_make(struct pa_speedscope *ss, const struct pa_samples_item *item)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	ss->nids = 0;
	for (size_t k = item->nframes; k-- > 0;)
		if (pa_speedscope_levels(ss, item, k) < 0)
			return NULL;
	mem = open_memstream(&text, &len);
	if (!mem)
		return NULL;
	for (size_t k = 0; k < ss->nids; k++)
		fprintf(mem, k ? ",%" PRIu32 : "%" PRIu32, ss->ids[k]);
	if (fclose(mem) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* The text of item's stack: kept per process for a stack seen before. */
static const char *pa_speedscope_stack(struct pa_speedscope *ss,
				       const struct pa_samples_item *item, char **own)
{
	char *text;

	*own = NULL;
	if (item->proc_index != ss->proc_index) {
		pa_speedscope_drop(ss);
		ss->proc_index = item->proc_index;
	}
	if (!item->stack_new && item->stack < ss->ntexts)
		return ss->texts[item->stack];
	text = pa_speedscope_make(ss, item);
	if (!text)
		return NULL;
	if (item->stack == PA_SAMPLES_NO_STACK ||
	    pa_grow((void **)&ss->texts, &ss->texts_cap, ss->ntexts, sizeof(*ss->texts)) < 0) {
		*own = text; /* kept for this sample only */
		return item->stack == PA_SAMPLES_NO_STACK ? text : NULL;
	}
	ss->texts[ss->ntexts++] = text;
	return text;
}

/* Make text the pending sample's, standing for count overflows; -ENOMEM. */
static int pa_speedscope_hold(struct pa_speedscope *ss, const char *text, uint64_t count)
{
	size_t len = strlen(text) + 1;

	if (len > ss->pending_cap) {
		char *v = realloc(ss->pending_text, len);

		if (!v)
			return -ENOMEM;
		ss->pending_text = v;
		ss->pending_cap = len;
	}
	memcpy(ss->pending_text, text, len);
	ss->pending = true;
	ss->pending_count = count;
	return 0;
}

static int pa_speedscope_add(void *ctx, const struct pa_samples_item *item)
{
	struct pa_speedscope *ss = ctx;
	const char *text;
	char *own;
	int ret = 0;

	if (item->thread != ss->thread) {
		if (pa_speedscope_close(ss) < 0)
			return -ENOMEM;
		pa_speedscope_open(ss, item, pa_samples_total(ss->filter, item->proc, item->thread));
	}
	text = pa_speedscope_stack(ss, item, &own);
	if (!text) {
		free(own);
		return -ENOMEM;
	}
	/* The same frames as the sample before: one sample weighing both. */
	if (ss->pending && strcmp(ss->pending_text, text) == 0 &&
	    ss->pending_count <= UINT64_MAX - item->sample->count)
		ss->pending_count += item->sample->count;
	else if (pa_speedscope_flush(ss) < 0 ||
		 pa_speedscope_hold(ss, text, item->sample->count) < 0)
		ret = -ENOMEM;
	free(own);
	if (ret)
		return ret;
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
	struct pa_speedscope ss = { .out = out, .filter = f, .weight = pa_speedscope_weight(run, f) };
	const char *base = strrchr(run->dir, '/');
	int ret;

	pa_ident_scan(run, &ss.id);
	ss.frames = pa_intern_new();
	if (!ss.frames)
		return pa_error_set(err, -ENOMEM, run->dir, false, 0, "out of memory");
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"pprof-analyze\",\"activeProfileIndex\":0,\"name\":", out);
	pa_json_put_string(out, base && base[1] ? base + 1 : run->dir, 0);
	fputs(",\n\"profiles\":[", out);
	ret = pa_samples_walk_opts(run, f, &(struct pa_samples_opts){ .frames_of_new = true },
				   pa_speedscope_add, &ss, ctx->warn, err);
	if (ret == 0)
		ret = pa_speedscope_close(&ss);
	if (ret == 0)
		pa_speedscope_frames(&ss);
	if (ret == -ENOMEM)
		pa_error_set(err, ret, run->dir, false, 0, "out of memory");
	pa_intern_free(ss.frames);
	free(ss.ids);
	free(ss.counts);
	free(ss.pending_text);
	pa_speedscope_drop(&ss);
	free(ss.texts);
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
