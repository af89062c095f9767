/* samples: a symbolised walk over selected samples; see samples.h. */
#include "samples.h"

#include "before.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Per-walk state: one symbolised sample at a time. */
struct pa_samples_buf {
	struct pa_frame frames[PPF_MAX_FRAMES];
	bool is_caller[PPF_MAX_FRAMES];
};

/* Whether a caller frame is the profiler's own and left out (profile.h). */
static bool pa_samples_hides(const struct pa_frame *fr)
{
	return fr->module_base && strcmp(fr->module_base, PA_PROFILE_SELF_MODULE) == 0;
}

/* Symbolise s into b; returns the frames kept, or -ENOMEM. */
static int pa_samples_symbolise(struct pa_symbols *sym, const struct pa_sample *s,
				struct pa_samples_buf *b)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nframes && i < PPF_MAX_FRAMES; i++) {
		if (pa_symbols_lookup_at(sym, s->ips[i], i > 0, s->time_ns, &b->frames[n]) < 0)
			return -ENOMEM;
		if (i > 0 && pa_samples_hides(&b->frames[n]))
			continue;
		b->is_caller[n++] = i > 0;
	}
	return (int)n;
}

static bool pa_samples_wants(int64_t idx, const struct pa_sample *s)
{
	return idx == -1 || (idx >= 0 && s->event == (uint64_t)idx);
}

static int pa_samples_thread(struct pa_samples_item *item, struct pa_symbols *sym,
			     const struct pa_filter *f, int64_t idx, struct pa_samples_buf *b,
			     int (*fn)(void *, const struct pa_samples_item *), void *ctx)
{
	const struct pa_thread *th = item->thread;

	for (size_t i = 0; i < th->nsamples; i++) {
		const struct pa_sample *s = &th->samples[i];
		int n, ret;

		if (!pa_samples_wants(idx, s) || s->nframes == 0 ||
		    !pa_filter_selects_time(f, item->proc, s))
			continue;
		n = pa_samples_symbolise(sym, s, b);
		if (n < 0)
			return n;
		item->sample = s;
		item->event = pa_process_find_event(item->proc, s->event);
		item->nframes = (size_t)n;
		ret = fn(ctx, item);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The process's estimated samples for its time before profiling (before.h), last. */
static int pa_samples_before(struct pa_samples_item *item, struct pa_symbols **sym,
			     const struct pa_filter *f, int64_t idx, struct pa_samples_buf *b,
			     int (*fn)(void *, const struct pa_samples_item *), void *ctx,
			     struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_sample est[PA_BEFORE_MAX];
	size_t n = pa_before_samples(item->proc, f, idx, est);
	int ret = 0;

	if (n && !*sym && (ret = pa_symbols_new(item->proc, sym, warn, err)) < 0)
		return ret;
	item->thread = item->proc->before_thread;
	item->sym = *sym;
	for (size_t i = 0; i < n && ret == 0; i++) {
		int k = pa_samples_symbolise(*sym, &est[i], b);

		if (k < 0)
			return k;
		item->sample = &est[i];
		item->event = pa_process_find_event(item->proc, est[i].event);
		item->nframes = (size_t)k;
		ret = fn(ctx, item);
	}
	return ret;
}

static int pa_samples_process(const struct pa_run *run, size_t p, const struct pa_filter *f,
			      struct pa_samples_buf *b,
			      int (*fn)(void *, const struct pa_samples_item *), void *ctx,
			      struct pa_warnings *warn, struct pa_error *err)
{
	const struct pa_process *proc = run->processes[p];
	struct pa_samples_item item = { .proc = proc, .proc_index = p,
					.frames = b->frames, .is_caller = b->is_caller };
	int64_t idx = pa_filter_event(f, proc);
	struct pa_symbols *sym = NULL;
	int ret = 0;

	if (idx == PA_FILTER_NO_EVENT)
		return 0;
	for (size_t t = 0; t < proc->nthreads && ret == 0; t++) {
		item.thread = proc->threads[t];
		if (!pa_filter_selects_thread(f, item.thread) || !item.thread->nsamples)
			continue;
		if (!sym && (ret = pa_symbols_new(proc, &sym, warn, err)) < 0)
			return ret;
		item.sym = sym;
		ret = pa_samples_thread(&item, sym, f, idx, b, fn, ctx);
	}
	if (ret == 0)
		ret = pa_samples_before(&item, &sym, f, idx, b, fn, ctx, warn, err);
	pa_symbols_free(sym);
	if (ret == -ENOMEM)
		pa_error_set(err, ret, proc->dir, false, 0, "out of memory");
	return ret;
}

int pa_samples_walk(const struct pa_run *run, const struct pa_filter *f,
		    int (*fn)(void *ctx, const struct pa_samples_item *item), void *ctx,
		    struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_samples_buf *b = malloc(sizeof(*b));
	int ret = 0;

	if (!b)
		return pa_error_set(err, -ENOMEM, run->dir, false, 0, "out of memory");
	for (size_t p = 0; p < run->nprocesses && ret == 0; p++)
		if (pa_filter_selects(f, run->processes[p]))
			ret = pa_samples_process(run, p, f, b, fn, ctx, warn, err);
	free(b);
	return ret;
}

const struct pa_module *pa_samples_module(const struct pa_process *proc,
					  const struct pa_frame *fr, uint64_t time_ns)
{
	const struct pa_module *first = NULL;

	if (!fr->module)
		return NULL;
	for (size_t i = 0; i < proc->nmodules; i++) {
		const struct pa_module *m = &proc->modules[i];

		if (fr->ip < m->start || fr->ip >= m->end)
			continue;
		if (m->load_ns <= time_ns && time_ns < m->unload_ns)
			return m;
		if (!first)
			first = m;
	}
	return first;
}
