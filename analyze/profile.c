/* profile: per-function and per-stack sample counts; see profile.h. */
#include "before.h"
#include "grow.h"
#include "intern.h"
#include "profile.h"
#include "textsafe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"
#include "samples.h"
#include "symbols.h"

/* A distinct stack while counting: function ids, root first. */
struct pa_profile_stack {
	const uint32_t *ids; /* its key in stack_keys */
	size_t n;
	uint64_t count;
};

/* A distinct raw stack (addresses as recorded) of the current process. */
struct pa_profile_raw {
	size_t stack;     /* its index in st */
	uint32_t self;    /* its leaf function */
	uint32_t *funcs;  /* its functions, each once */
	size_t nfuncs;
};

/* The memo's key: the symbolizer's pointers for a function. */
struct pa_profile_memo_key {
	const char *name;
	const char *module;
	uint64_t start;
};

/* Counting state; the public struct comes first so a pointer converts. */
struct pa_profile_impl {
	struct pa_profile pub;
	/*
	 * functions: func_keys holds "name\0module\0" ("name\0" without a
	 * module), its index the function's id in pub.funcs, whose strings
	 * point into it (it lives as long as the profile)
	 */
	struct pa_intern *func_keys;
	size_t funcs_cap;
	char *key;          /* a function's key being looked up */
	size_t key_cap;
	uint64_t *seen;     /* per function: serial of the last sample that counted it */
	size_t seen_cap;
	/* stacks: stack_keys holds their ids, its index the stack's in st */
	struct pa_intern *stack_keys;
	struct pa_profile_stack *st;
	size_t nst, st_cap;
	uint32_t ids[PPF_MAX_FRAMES + 1]; /* and PA_TRUNCATED_IP's */
	/*
	 * (name pointer, module pointer) -> function id. The symbolizer hands
	 * out the same pointers for the same function for as long as it lives,
	 * so most frames skip hashing and comparing strings (which took 60-75%
	 * of `top` on 100,000 deep samples).
	 */
	struct pa_intern *memo_keys; /* struct pa_profile_memo_key; index into memo */
	uint32_t *memo;
	size_t memo_cap;
	const char *hide_base; /* the last module_base pa_profile_hides saw */
	bool hide;
	/* the functions of the sample being added, each once */
	uint32_t distinct[PPF_MAX_FRAMES + 1];
	size_t ndistinct;
	uint64_t weight; /* samples the one being added stands for (pa_sample.count) */
	/*
	 * Within one process whose modules were never unloaded, the same
	 * addresses always mean the same frames: each distinct raw stack is
	 * symbolised and counted once, later samples of it only add counts.
	 * raw_keys holds their addresses (and PA_TRUNCATED_IP after those of
	 * a truncated one), its index theirs in raw.
	 */
	uint64_t rawkey[PPF_MAX_FRAMES + 1];
	struct pa_intern *raw_keys;
	struct pa_profile_raw *raw;
	size_t raw_cap;
};

/*
 * The key of function (name, module, start) into p->key; its length, 0
 * when out of memory. start (its address in module's file, 0: none) tells
 * two functions of one name in one module apart (static functions of two
 * source files): they are two functions, as perf counts them.
 */
static size_t pa_profile_func_key(struct pa_profile_impl *p, const char *name, const char *module,
				  uint64_t start)
{
	size_t nl = strlen(name) + 1, ml = module ? strlen(module) + 1 : 0;

	if (pa_grow((void **)&p->key, &p->key_cap, nl + ml + sizeof(start) - 1, 1) < 0)
		return 0;
	memcpy(p->key, name, nl);
	if (module)
		memcpy(p->key + nl, module, ml);
	if (!start)
		return nl + ml;
	memcpy(p->key + nl + ml, &start, sizeof(start));
	return nl + ml + sizeof(start);
}

/* The id of the function (name, module, start), added on first sight; -ENOMEM. */
static int64_t pa_profile_func_id(struct pa_profile_impl *p, const char *name, const char *module,
				  uint64_t start)
{
	size_t len = pa_profile_func_key(p, name, module, start);
	size_t n = p->pub.nfuncs;
	const char *key;
	int64_t id;

	if (!len || pa_grow((void **)&p->pub.funcs, &p->funcs_cap, n, sizeof(*p->pub.funcs)) < 0 ||
	    pa_grow((void **)&p->seen, &p->seen_cap, n, sizeof(*p->seen)) < 0)
		return -ENOMEM;
	id = pa_intern_add(p->func_keys, p->key, len);
	if (id < 0 || (size_t)id < n)
		return id;
	key = pa_intern_key(p->func_keys, n, NULL);
	p->pub.funcs[n] = (struct pa_func){
		.name = key, .module = module ? key + strlen(key) + 1 : NULL,
	};
	p->seen[n] = 0;
	return p->pub.nfuncs++;
}

/* Count one sample of stack ids[0..n) (root first); *at gets its index in p->st. */
static int pa_profile_add_stack(struct pa_profile_impl *p, const uint32_t *ids, size_t n,
				size_t *at)
{
	int64_t i;

	if (pa_grow((void **)&p->st, &p->st_cap, p->nst, sizeof(*p->st)) < 0)
		return -ENOMEM;
	i = pa_intern_add(p->stack_keys, ids, n * sizeof(*ids));
	if (i < 0)
		return -ENOMEM;
	if ((size_t)i == p->nst)
		p->st[p->nst++] = (struct pa_profile_stack){
			.ids = pa_intern_key(p->stack_keys, (size_t)i, NULL), .n = n,
		};
	p->st[i].count += p->weight;
	*at = (size_t)i;
	return 0;
}

/*
 * Whether a caller frame is the profiler's own and left out of the stack.
 * The answer for the last module seen is kept: frames of one sample mostly
 * share modules, and the symbolizer hands out one pointer per module.
 */
static bool pa_profile_hides(struct pa_profile_impl *p, const struct pa_frame *fr)
{
	if (!fr->module_base)
		return false;
	if (fr->module_base != p->hide_base) {
		p->hide_base = fr->module_base;
		p->hide = strcmp(fr->module_base, PA_PROFILE_SELF_MODULE) == 0;
	}
	return p->hide;
}

/* Reverse ids[0..n) in place. */
static void pa_profile_reverse(uint32_t *ids, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = ids[i];

		ids[i] = ids[n - 1 - i];
		ids[n - 1 - i] = t;
	}
}

/* pa_profile_func_id for pointers the symbolizer keeps: memoised by address. */
static int64_t pa_profile_func_id_stable(struct pa_profile_impl *p, const char *name,
					 const char *module, uint64_t start)
{
	struct pa_profile_memo_key key = { .name = name, .module = module, .start = start };
	int64_t i = pa_intern_find(p->memo_keys, &key, sizeof(key));
	int64_t id;

	if (i >= 0)
		return p->memo[i];
	id = pa_profile_func_id(p, name, module, start);
	if (id < 0)
		return id;
	i = (int64_t)pa_intern_count(p->memo_keys);
	if (pa_grow((void **)&p->memo, &p->memo_cap, (size_t)i, sizeof(*p->memo)) < 0 ||
	    pa_intern_add(p->memo_keys, &key, sizeof(key)) < 0)
		return -ENOMEM;
	p->memo[i] = (uint32_t)id;
	return id;
}

/* Append the function (name, module, start) to the sample's ids; -ENOMEM. */
static int pa_profile_count_frame(struct pa_profile_impl *p, const char *name,
				  const char *module, uint64_t start, bool stable,
				  uint64_t serial, size_t *n)
{
	int64_t id;

	if (*n == sizeof(p->ids) / sizeof(p->ids[0]))
		return 0; /* inline levels beyond the room: the outermost are dropped */
	id = stable ? pa_profile_func_id_stable(p, name, module, start) :
		      pa_profile_func_id(p, name, module, start);
	if (id < 0)
		return -ENOMEM;
	p->ids[(*n)++] = (uint32_t)id;
	if (p->seen[id] != serial) {
		p->seen[id] = serial;
		p->pub.funcs[id].total += p->weight;
		p->distinct[p->ndistinct++] = (uint32_t)id;
	}
	return 0;
}

/* Append frame i of s at ip (looked up as fr) as source frames, as p->pub.by says. */
static int pa_profile_count_src(struct pa_profile_impl *p, struct pa_symbols *sym,
				const struct pa_sample *s, size_t i, uint64_t ip,
				const struct pa_frame *fr, size_t *n)
{
	bool lines = p->pub.by == PA_PROFILE_BY_LINE || p->pub.by == PA_PROFILE_BY_LINE_INLINE;
	size_t levels = p->pub.by == PA_PROFILE_BY_LINE ? 1 : SIZE_MAX;
	uint64_t serial = p->pub.samples + 1;
	const struct pa_srcframe *src;
	size_t nsrc;
	char key[1024];

	if (pa_symbols_lookup_src(sym, ip, i > 0, s->time_ns, &src, &nsrc) < 0)
		return -ENOMEM;
	if (nsrc == 0)
		return pa_profile_count_frame(p, fr->name, fr->module, fr->func_start, false,
					      serial, n);
	for (size_t k = 0; k < nsrc && k < levels; k++) {
		const char *name = src[k].function;
		const char *base = src[k].file ? strrchr(src[k].file, '/') : NULL;
		int ret;

		if (lines && src[k].file) {
			snprintf(key, sizeof(key), "%s:%u %s", base ? base + 1 : src[k].file,
				 src[k].line, src[k].function);
			name = key;
		}
		/* The function itself (the last level) by its start; inline levels by name. */
		ret = pa_profile_count_frame(p, name, fr->module,
					     k + 1 == nsrc ? fr->func_start : 0, false, serial, n);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int pa_profile_add_sample(struct pa_profile_impl *p, struct pa_symbols *sym,
				 const struct pa_sample *s, size_t *stack)
{
	uint64_t serial = p->pub.samples + 1;
	size_t n = 0, nframes = s->nframes + !!(s->flags & PPF_SAMPLE_TRUNCATED);

	p->ndistinct = 0;
	p->weight = s->count;
	/* ids innermost first, then reversed: stacks are stored root first */
	for (size_t i = 0; i < nframes; i++) {
		uint64_t ip = i < s->nframes ? s->ips[i] : PA_TRUNCATED_IP;
		struct pa_frame fr;
		int ret;

		if (pa_symbols_lookup_at(sym, ip, i > 0, s->time_ns, &fr) < 0)
			return -ENOMEM;
		if (i > 0 && pa_profile_hides(p, &fr))
			continue;
		if (p->pub.by == PA_PROFILE_BY_FUNCTION)
			ret = pa_profile_count_frame(p, fr.name, fr.module, fr.func_start, true,
						     serial, &n);
		else
			ret = pa_profile_count_src(p, sym, s, i, ip, &fr, &n);
		if (ret < 0)
			return ret;
	}
	pa_profile_reverse(p->ids, n);
	p->pub.funcs[p->ids[n - 1]].self += p->weight;
	p->pub.samples += p->weight;
	return pa_profile_add_stack(p, p->ids, n, stack);
}

static void pa_profile_raw_drop(struct pa_profile_impl *p)
{
	for (size_t i = 0; p->raw_keys && i < pa_intern_count(p->raw_keys); i++)
		free(p->raw[i].funcs);
	free(p->raw);
	p->raw = NULL;
	p->raw_cap = 0;
	pa_intern_free(p->raw_keys);
	p->raw_keys = NULL;
}

/* Counts sample s through the raw stack table: symbolised once per stack. */
static int pa_profile_add_cached(struct pa_profile_impl *p, struct pa_symbols *sym,
				 const struct pa_sample *s)
{
	size_t len = s->nframes * sizeof(*s->ips);
	struct pa_profile_raw r = { 0 };
	const void *key = s->ips;
	int64_t i;
	int ret;

	if (!p->raw_keys && !(p->raw_keys = pa_intern_new()))
		return -ENOMEM;
	/* A truncated stack is not the same stack as one of its addresses that is whole. */
	if ((s->flags & PPF_SAMPLE_TRUNCATED) && s->nframes <= PPF_MAX_FRAMES) {
		memcpy(p->rawkey, s->ips, len);
		p->rawkey[s->nframes] = PA_TRUNCATED_IP;
		len += sizeof(*s->ips);
		key = p->rawkey;
	}
	i = pa_intern_find(p->raw_keys, key, len);
	if (i >= 0) {
		const struct pa_profile_raw *o = &p->raw[i];

		p->st[o->stack].count += s->count;
		p->pub.funcs[o->self].self += s->count;
		for (size_t k = 0; k < o->nfuncs; k++)
			p->pub.funcs[o->funcs[k]].total += s->count;
		p->pub.samples += s->count;
		return 0;
	}
	ret = pa_profile_add_sample(p, sym, s, &r.stack);
	if (ret < 0)
		return ret;
	i = (int64_t)pa_intern_count(p->raw_keys);
	r.funcs = malloc((p->ndistinct ? p->ndistinct : 1) * sizeof(*r.funcs));
	if (!r.funcs || pa_grow((void **)&p->raw, &p->raw_cap, (size_t)i, sizeof(*p->raw)) < 0 ||
	    pa_intern_add(p->raw_keys, key, len) < 0) {
		free(r.funcs);
		return -ENOMEM;
	}
	memcpy(r.funcs, p->distinct, p->ndistinct * sizeof(*r.funcs));
	r.nfuncs = p->ndistinct;
	r.self = p->st[r.stack].ids[p->st[r.stack].n - 1];
	p->raw[i] = r;
	return 0;
}

/* Whether sample s is of event index idx (pa_filter_event's answer). */
static bool pa_profile_wants(int64_t idx, const struct pa_sample *s)
{
	return idx == -1 || (idx >= 0 && s->event == (uint64_t)idx);
}

/* Sampling events of proc, whatever their status. */
static size_t pa_profile_sampling_events(const struct pa_process *proc)
{
	size_t n = 0;

	for (size_t i = 0; i < proc->nevents; i++)
		n += !(proc->events[i].flags & PPF_EVENT_COUNT);
	return n;
}

/* proc's time before profiling (before.h), as its estimated samples. */
static int pa_profile_add_before(struct pa_profile_impl *p, const struct pa_process *proc,
				 int64_t idx, struct pa_symbols **sym, struct pa_warnings *warn,
				 struct pa_error *err)
{
	struct pa_sample est[PA_BEFORE_MAX];
	size_t n = pa_before_samples(proc, &p->pub.filter, idx, est), stack;
	int ret = 0;

	if (n && !*sym && (ret = pa_symbols_new(proc, sym, warn, err)) < 0)
		return ret;
	for (size_t i = 0; i < n && ret == 0; i++) {
		ret = pa_profile_add_sample(p, *sym, &est[i], &stack);
		p->pub.estimated += est[i].count;
	}
	if (ret < 0)
		pa_error_set(err, ret, proc->dir, false, 0, "out of memory");
	return ret;
}

static int pa_profile_add_process(struct pa_profile_impl *p, const struct pa_process *proc,
				  struct pa_warnings *warn, struct pa_error *err)
{
	const struct pa_filter *f = &p->pub.filter;
	int64_t idx = pa_filter_event(f, proc);
	bool cached = pa_samples_time_free(proc);
	struct pa_symbols *sym = NULL;
	size_t stack;
	uint64_t lost = 0;
	size_t nthreads = 0;
	int ret = 0;

	for (size_t t = 0; t < proc->nthreads && ret == 0; t++) {
		const struct pa_thread *th = proc->threads[t];

		if (!pa_filter_selects_thread(f, th))
			continue;
		nthreads++;
		lost += pa_filter_count_lost(f, proc, th);
		for (size_t i = 0; i < th->nsamples && ret == 0; i++) {
			if (!pa_profile_wants(idx, &th->samples[i]) ||
			    !pa_filter_selects_time(f, proc, &th->samples[i]))
				continue;
			if (!sym) {
				ret = pa_symbols_new(proc, &sym, warn, err);
				if (ret < 0)
					return ret;
			}
			ret = cached ? pa_profile_add_cached(p, sym, &th->samples[i]) :
				       pa_profile_add_sample(p, sym, &th->samples[i], &stack);
			if (ret < 0)
				pa_error_set(err, ret, proc->dir, false, 0, "out of memory");
		}
	}
	if (ret == 0)
		ret = pa_profile_add_before(p, proc, idx, &sym, warn, err);
	/* The raw stacks' addresses mean nothing in the next process. */
	pa_profile_raw_drop(p);
	pa_symbols_free(sym);
	/*
	 * The process counts drops of threads that left no log, too, for all
	 * its events together: usable when it has one sampling event.
	 */
	if (!pa_filter_by_thread(f) && proc->ended && proc->lost > lost && idx != PA_FILTER_NO_EVENT &&
	    (idx == -1 || pa_profile_sampling_events(proc) == 1))
		lost = proc->lost;
	p->pub.lost += lost;
	p->pub.nthreads += nthreads;
	if (pa_filter_counts_process(f, nthreads))
		p->pub.nprocesses++;
	return ret;
}

static int pa_profile_cmp_func(const void *a, const void *b)
{
	const struct pa_func *x = a, *y = b;
	int c;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

/* A stack and its folded text, for sorting. */
struct pa_profile_sorted {
	char *folded;
	struct pa_stack stack;
};

static int pa_profile_cmp_sorted(const void *a, const void *b)
{
	const struct pa_profile_sorted *x = a, *y = b;

	return strcmp(x->folded, y->folded);
}

/* Turn the counting tables into pub.stacks, sorted, with names. */
static int pa_profile_finish_stacks(struct pa_profile_impl *p)
{
	struct pa_profile_sorted *v = calloc(p->nst ? p->nst : 1, sizeof(*v));
	int ret = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->nst && ret == 0; i++) {
		struct pa_stack *s = &v[i].stack;

		s->frames = malloc(p->st[i].n * sizeof(*s->frames));
		if (!s->frames) {
			ret = -ENOMEM;
			break;
		}
		s->nframes = p->st[i].n;
		s->count = p->st[i].count;
		for (size_t k = 0; k < s->nframes; k++)
			s->frames[k] = p->pub.funcs[p->st[i].ids[k]].name;
		v[i].folded = pa_stack_fold(s);
		if (!v[i].folded)
			ret = -ENOMEM;
	}
	if (ret == 0)
		qsort(v, p->nst, sizeof(*v), pa_profile_cmp_sorted);
	p->pub.stacks = calloc(p->nst ? p->nst : 1, sizeof(*p->pub.stacks));
	if (!p->pub.stacks)
		ret = -ENOMEM;
	for (size_t i = 0; i < p->nst; i++) {
		free(v[i].folded);
		if (ret == 0)
			p->pub.stacks[p->pub.nstacks++] = v[i].stack;
		else
			free(v[i].stack.frames);
	}
	free(v);
	return ret;
}

/* Free the counting state, keeping pub. */
static void pa_profile_drop_tables(struct pa_profile_impl *p)
{
	free(p->st);
	p->st = NULL;
	p->nst = 0;
	pa_intern_free(p->stack_keys);
	p->stack_keys = NULL;
	pa_intern_free(p->memo_keys);
	p->memo_keys = NULL;
	free(p->memo);
	p->memo = NULL;
	free(p->seen);
	p->seen = NULL;
	free(p->key);
	p->key = NULL;
	pa_profile_raw_drop(p);
}

int pa_profile_build_by(const struct pa_run *run, const struct pa_filter *filter,
			enum pa_profile_by by, struct pa_profile **out,
			struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_profile_impl *p = calloc(1, sizeof(*p));
	int ret = 0;

	*out = NULL;
	if (!p)
		return pa_error_set(err, -ENOMEM, run->dir, false, 0, "out of memory");
	p->pub.filter = filter ? *filter : PA_FILTER_ALL;
	p->pub.by = by;
	p->func_keys = pa_intern_new();
	p->stack_keys = pa_intern_new();
	p->memo_keys = pa_intern_new();
	if (!p->func_keys || !p->stack_keys || !p->memo_keys)
		ret = pa_error_set(err, -ENOMEM, run->dir, false, 0, "out of memory");
	for (size_t i = 0; i < run->nprocesses && ret == 0; i++) {
		const struct pa_process *proc = run->processes[i];

		if (!pa_filter_selects(&p->pub.filter, proc))
			continue;
		ret = pa_profile_add_process(p, proc, warn, err);
	}
	if (ret == 0) {
		ret = pa_profile_finish_stacks(p);
		if (ret < 0)
			pa_error_set(err, ret, run->dir, false, 0, "out of memory");
	}
	pa_profile_drop_tables(p);
	if (ret < 0) {
		pa_profile_free(&p->pub);
		return ret;
	}
	if (p->pub.nfuncs)
		qsort(p->pub.funcs, p->pub.nfuncs, sizeof(*p->pub.funcs), pa_profile_cmp_func);
	*out = &p->pub;
	return 0;
}

void pa_profile_free(struct pa_profile *prof)
{
	struct pa_profile_impl *p = (struct pa_profile_impl *)prof;

	if (!prof)
		return;
	pa_profile_drop_tables(p);
	pa_intern_free(p->func_keys); /* the functions' names */
	free(prof->funcs);
	for (size_t i = 0; i < prof->nstacks; i++)
		free(prof->stacks[i].frames);
	free(prof->stacks);
	free(p);
}

bool pa_filter_selects(const struct pa_filter *f, const struct pa_process *proc)
{
	return (!f->pid || proc->pid == f->pid) && (!f->exe || pa_process_runs(proc, f->exe)) &&
	       (!f->host || pa_ident_on_host(proc, f->host)) &&
	       (!f->by_rank || proc->id.rank == f->rank);
}

static bool pa_filter_selects_tid(const struct pa_filter *f, uint32_t tid, const char *name)
{
	return (!f->tid || tid == f->tid) &&
	       (!f->thread || strcmp(name[0] ? name : "-", f->thread) == 0);
}

bool pa_filter_selects_thread(const struct pa_filter *f, const struct pa_thread *t)
{
	return pa_filter_selects_tid(f, t->tid, t->name);
}

bool pa_filter_selects_unsampled(const struct pa_filter *f, const struct pa_unsampled *u)
{
	return pa_filter_selects_tid(f, u->tid, u->name);
}

size_t pa_filter_count_unsampled(const struct pa_filter *f, const struct pa_process *proc)
{
	size_t n = 0;

	for (size_t i = 0; i < proc->nunsampled; i++)
		n += pa_filter_selects_unsampled(f, &proc->unsampled[i]);
	return n;
}

bool pa_filter_by_thread(const struct pa_filter *f)
{
	return f->tid || f->thread;
}

bool pa_filter_counts_process(const struct pa_filter *f, size_t nthreads)
{
	return nthreads || !pa_filter_by_thread(f);
}

bool pa_filter_selects_time(const struct pa_filter *f, const struct pa_process *proc,
			    const struct pa_sample *s)
{
	return pa_window_holds(&f->window, proc->start_ns, s->time_ns);
}

int64_t pa_filter_event(const struct pa_filter *f, const struct pa_process *proc)
{
	const struct pa_event *e;

	if (!f->event_name)
		return f->event >= -1 ? f->event : PA_FILTER_NO_EVENT;
	e = pa_process_find_event_named(proc, f->event_name);
	return e ? (int64_t)e->index : PA_FILTER_NO_EVENT;
}

const struct pa_event *pa_filter_find_event(const struct pa_filter *f,
					    const struct pa_process *proc)
{
	int64_t idx = pa_filter_event(f, proc);

	return idx >= 0 ? pa_process_find_event(proc, (uint32_t)idx) : NULL;
}

uint64_t pa_filter_count_samples(const struct pa_filter *f, const struct pa_process *proc,
				 const struct pa_thread *t)
{
	int64_t idx = pa_filter_event(f, proc);
	uint64_t n = 0;

	for (size_t i = 0; i < t->nsamples; i++)
		if (pa_profile_wants(idx, &t->samples[i]) &&
		    pa_filter_selects_time(f, proc, &t->samples[i]))
			n += t->samples[i].count;
	return n;
}

/* Overflows of the event f selects that t did not record: lost, or throttled. */
static uint64_t pa_filter_count_untaken(const struct pa_filter *f,
					const struct pa_process *proc,
					const struct pa_thread *t, bool throttled)
{
	int64_t idx = pa_filter_event(f, proc);
	const struct pa_thread_event *te;

	if (idx == PA_FILTER_NO_EVENT)
		return 0;
	te = idx >= 0 ? pa_thread_find_event(t, (uint32_t)idx) : NULL;
	if (te)
		return throttled ? te->throttled : te->lost;
	/* An older log: THREAD_END counts every event's drops together. */
	if (idx != -1 && t->nevents != 0)
		return 0;
	return throttled ? t->throttled : t->lost;
}

uint64_t pa_filter_count_lost(const struct pa_filter *f, const struct pa_process *proc,
			      const struct pa_thread *t)
{
	return pa_filter_count_untaken(f, proc, t, false);
}

uint64_t pa_filter_count_throttled(const struct pa_filter *f, const struct pa_process *proc,
				   const struct pa_thread *t)
{
	return pa_filter_count_untaken(f, proc, t, true);
}

const struct pa_func *pa_profile_find(const struct pa_profile *prof, const char *name)
{
	for (size_t i = 0; i < prof->nfuncs; i++)
		if (strcmp(prof->funcs[i].name, name) == 0)
			return &prof->funcs[i];
	return NULL;
}

uint64_t pa_profile_call_count(const struct pa_profile *prof, const char *caller,
			       const char *callee)
{
	uint64_t n = 0;

	for (size_t i = 0; i < prof->nstacks; i++) {
		const struct pa_stack *s = &prof->stacks[i];

		for (size_t k = 0; k + 1 < s->nframes; k++)
			if (strcmp(s->frames[k], caller) == 0 &&
			    strcmp(s->frames[k + 1], callee) == 0) {
				n += s->count;
				break;
			}
	}
	return n;
}

char *pa_stack_fold(const struct pa_stack *stack)
{
	size_t len = 1, at = 0;
	char *s;

	for (size_t i = 0; i < stack->nframes; i++)
		len += strlen(stack->frames[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	for (size_t i = 0; i < stack->nframes; i++) {
		size_t n = strlen(stack->frames[i]);

		if (i)
			s[at++] = ';';
		memcpy(s + at, stack->frames[i], n);
		/* A frame named with a ';' or a newline would split the stack. */
		pa_text_clean(s + at, n, true);
		at += n;
	}
	s[at] = '\0';
	return s;
}

double pa_profile_pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

bool pa_profile_names_module(const char *name, const char *base)
{
	size_t n = strlen(base);

	return strncmp(name, base, n) == 0 && strncmp(name + n, "+0x", 3) == 0;
}
