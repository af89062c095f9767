/* samples: a symbolised walk over selected samples; see samples.h. */
#include "samples.h"

#include "before.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"

/* Per-walk state: one symbolised sample at a time. */
struct pa_samples_buf {
	struct pa_frame frames[PPF_MAX_FRAMES + 1]; /* and PA_TRUNCATED_IP's */
	bool is_caller[PPF_MAX_FRAMES + 1];
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
	size_t n = 0, nframes = s->nframes < PPF_MAX_FRAMES ? s->nframes : PPF_MAX_FRAMES;

	/* A truncated stack's callers are not known: PA_TRUNCATED_IP's frame says so. */
	nframes += !!(s->flags & PPF_SAMPLE_TRUNCATED);
	for (size_t i = 0; i < nframes; i++) {
		uint64_t ip = i < s->nframes && i < PPF_MAX_FRAMES ? s->ips[i] : PA_TRUNCATED_IP;

		if (pa_symbols_lookup_at(sym, ip, i > 0, s->time_ns, &b->frames[n]) < 0)
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

/* Whether a walk with f and event index idx gives sample s of proc. */
static bool pa_samples_gives(const struct pa_filter *f, int64_t idx,
			     const struct pa_process *proc, const struct pa_sample *s)
{
	return pa_samples_wants(idx, s) && s->nframes != 0 && pa_filter_selects_time(f, proc, s);
}

uint64_t pa_samples_total(const struct pa_filter *f, const struct pa_process *proc,
			  const struct pa_thread *t)
{
	int64_t idx = pa_filter_event(f, proc);
	uint64_t n = 0;

	if (idx == PA_FILTER_NO_EVENT)
		return 0;
	if (t == proc->before_thread) {
		struct pa_sample est[PA_BEFORE_MAX];
		size_t k = pa_before_samples(proc, f, idx, est);

		for (size_t i = 0; i < k; i++)
			n += est[i].count;
		return n;
	}
	if (!pa_filter_selects_thread(f, t))
		return 0;
	for (size_t i = 0; i < t->nsamples; i++)
		if (pa_samples_gives(f, idx, proc, &t->samples[i]))
			n += t->samples[i].count;
	return n;
}

bool pa_samples_time_free(const struct pa_process *proc)
{
	for (size_t i = 0; i < proc->nmodules; i++)
		if (proc->modules[i].unload_ns != UINT64_MAX)
			return false;
	return true;
}

/* One walk's state. */
struct pa_samples_walker {
	const struct pa_filter *f;
	bool frames_of_new;
	int (*fn)(void *, const struct pa_samples_item *);
	void *ctx;
	struct pa_samples_buf *b;
	struct pa_intern *stacks; /* the process's distinct stacks' addresses; NULL: none kept */
};

/* Which distinct stack s is (item->stack, item->stack_new); -ENOMEM. */
static int pa_samples_stack(struct pa_samples_walker *w, const struct pa_sample *s,
			    struct pa_samples_item *item)
{
	size_t n;
	int64_t i;

	item->stack = PA_SAMPLES_NO_STACK;
	item->stack_new = true;
	if (!w->stacks)
		return 0;
	n = pa_intern_count(w->stacks);
	i = pa_intern_add(w->stacks, s->ips, s->nframes * sizeof(*s->ips));
	if (i < 0)
		return (int)i;
	item->stack = (size_t)i;
	item->stack_new = (size_t)i == n;
	return 0;
}

/* A sample of a thread's walk: to the walk's fn when the filter selects it. */
struct pa_samples_one {
	struct pa_samples_walker *w;
	struct pa_samples_item *item;
	int64_t idx;
};

static int pa_samples_one(void *ctx, const struct pa_sample *s)
{
	struct pa_samples_one *one = ctx;
	struct pa_samples_walker *w = one->w;
	struct pa_samples_item *item = one->item;
	int n = 0;

	if (!pa_samples_gives(w->f, one->idx, item->proc, s))
		return 0;
	if (pa_samples_stack(w, s, item) < 0)
		return -ENOMEM;
	if (item->stack_new || !w->frames_of_new) {
		n = pa_samples_symbolise(item->sym, s, w->b);
		if (n < 0)
			return n;
	}
	item->sample = s;
	item->event = pa_process_find_event(item->proc, s->event);
	item->frames = n ? w->b->frames : NULL;
	item->nframes = (size_t)n;
	return w->fn(w->ctx, item);
}

/*
 * The thread's samples in time order: read again from its log one by one
 * when it was read to be (pa_thread_each_sample), else as loaded.
 */
static int pa_samples_thread(struct pa_samples_walker *w, struct pa_samples_item *item,
			     int64_t idx, struct pa_error *err)
{
	const struct pa_thread *th = item->thread;
	struct pa_samples_one one = { .w = w, .item = item, .idx = idx };
	int ret = 0;

	if (th->stream)
		return pa_thread_each_sample(th, pa_samples_one, &one, err);
	for (size_t i = 0; i < th->nsamples && ret == 0; i++)
		ret = pa_samples_one(&one, &th->samples[i]);
	return ret;
}

/*
 * The process's estimated samples for its time before profiling
 * (before.h), last, each its own stack (PA_SAMPLES_NO_STACK).
 */
static int pa_samples_before(struct pa_samples_walker *w, struct pa_samples_item *item,
			     struct pa_symbols **sym, int64_t idx, struct pa_warnings *warn,
			     struct pa_error *err)
{
	struct pa_sample est[PA_BEFORE_MAX];
	size_t n = pa_before_samples(item->proc, w->f, idx, est);
	int ret = 0;

	if (n && !*sym && (ret = pa_symbols_new(item->proc, sym, warn, err)) < 0)
		return ret;
	item->thread = item->proc->before_thread;
	item->sym = *sym;
	item->stack = PA_SAMPLES_NO_STACK;
	item->stack_new = true;
	for (size_t i = 0; i < n && ret == 0; i++) {
		int k = pa_samples_symbolise(*sym, &est[i], w->b);

		if (k < 0)
			return k;
		item->sample = &est[i];
		item->event = pa_process_find_event(item->proc, est[i].event);
		item->frames = k ? w->b->frames : NULL;
		item->nframes = (size_t)k;
		ret = w->fn(w->ctx, item);
	}
	return ret;
}

static int pa_samples_process(struct pa_samples_walker *w, const struct pa_run *run, size_t p,
			      struct pa_warnings *warn, struct pa_error *err)
{
	const struct pa_process *proc = run->processes[p];
	struct pa_samples_item item = { .proc = proc, .proc_index = p,
					.is_caller = w->b->is_caller };
	int64_t idx = pa_filter_event(w->f, proc);
	struct pa_symbols *sym = NULL;
	int ret = 0;

	if (idx == PA_FILTER_NO_EVENT)
		return 0;
	if (pa_samples_time_free(proc) && !(w->stacks = pa_intern_new()))
		return pa_error_set(err, -ENOMEM, proc->dir, false, 0, "out of memory");
	for (size_t t = 0; t < proc->nthreads && ret == 0; t++) {
		item.thread = proc->threads[t];
		if (!pa_filter_selects_thread(w->f, item.thread) || !item.thread->nsamples)
			continue;
		if (!sym && (ret = pa_symbols_new(proc, &sym, warn, err)) < 0)
			break;
		item.sym = sym;
		ret = pa_samples_thread(w, &item, idx, err);
	}
	if (ret == 0)
		ret = pa_samples_before(w, &item, &sym, idx, warn, err);
	if (ret == -ENOMEM)
		pa_error_set(err, ret, proc->dir, false, 0, "out of memory");
	pa_symbols_free(sym);
	pa_intern_free(w->stacks);
	w->stacks = NULL;
	return ret;
}

int pa_samples_walk_opts(const struct pa_run *run, const struct pa_filter *f,
			 const struct pa_samples_opts *o,
			 int (*fn)(void *ctx, const struct pa_samples_item *item), void *ctx,
			 struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_samples_walker w = { .f = f, .fn = fn, .ctx = ctx,
				       .frames_of_new = o && o->frames_of_new };
	int ret = 0;

	w.b = malloc(sizeof(*w.b));
	if (!w.b)
		return pa_error_set(err, -ENOMEM, run->dir, false, 0, "out of memory");
	for (size_t p = 0; p < run->nprocesses && ret == 0; p++)
		if (pa_filter_selects(f, run->processes[p]))
			ret = pa_samples_process(&w, run, p, warn, err);
	free(w.b);
	return ret;
}

int pa_samples_walk(const struct pa_run *run, const struct pa_filter *f,
		    int (*fn)(void *ctx, const struct pa_samples_item *item), void *ctx,
		    struct pa_warnings *warn, struct pa_error *err)
{
	return pa_samples_walk_opts(run, f, NULL, fn, ctx, warn, err);
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
