/* profile: per-function and per-stack sample counts; see profile.h. */
#include "grow.h"
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

/* A distinct stack while counting: function ids, root first. */
struct pa_profile_stack {
	uint32_t *ids;
	size_t n;
	uint64_t count;
	uint64_t hash;
};

/* Counting state; the public struct comes first so a pointer converts. */
struct pa_profile_impl {
	struct pa_profile pub;
	/* functions: pub.funcs holds them; fhash maps (name, module) to index + 1 */
	size_t funcs_cap;
	uint32_t *fhash;
	size_t fhash_cap;
	uint64_t *seen; /* per function: serial of the last sample that counted it */
	/* stacks */
	struct pa_profile_stack *st;
	size_t nst, st_cap;
	uint32_t *shash; /* index + 1 into st */
	size_t shash_cap;
	uint32_t ids[PPF_MAX_FRAMES];
	/*
	 * (name pointer, module pointer) -> function id. The symbolizer hands
	 * out the same pointers for the same function for as long as it lives,
	 * so most frames skip hashing and comparing strings (which took 60-75%
	 * of `top` on 100,000 deep samples).
	 */
	struct pa_profile_memo *memo;
	size_t memo_n, memo_cap;
	const char *hide_base; /* the last module_base pa_profile_hides saw */
	bool hide;
	/* the functions of the sample being added, each once */
	uint32_t distinct[PPF_MAX_FRAMES];
	size_t ndistinct;
	uint64_t weight; /* samples the one being added stands for (pa_sample.count) */
	/*
	 * Within one process whose modules were never unloaded, the same
	 * addresses always mean the same frames: each distinct raw stack is
	 * symbolised and counted once, later samples of it only add counts.
	 */
	struct pa_profile_raw *raw;
	size_t nraw, raw_cap;
};

/* A distinct raw stack (addresses as recorded) of the current process. */
struct pa_profile_raw {
	uint64_t hash;    /* 0: free slot */
	uint16_t nframes;
	uint64_t *ips;
	size_t stack;     /* its index in st */
	uint32_t self;    /* its leaf function */
	uint32_t *funcs;  /* its functions, each once */
	size_t nfuncs;
};

struct pa_profile_memo {
	const char *name; /* NULL: free */
	const char *module;
	uint32_t id;
};

static uint64_t pa_profile_hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;
}

static bool pa_profile_same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Rehash an index table of index + 1 entries to twice its size. */
static int pa_profile_rehash(uint32_t **table, size_t *cap, size_t n,
			     uint64_t (*hash_of)(struct pa_profile_impl *, uint32_t),
			     struct pa_profile_impl *p)
{
	size_t ncap = *cap ? *cap * 2 : 1024;
	uint32_t *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		size_t j = hash_of(p, i) & (ncap - 1);

		while (nt[j])
			j = (j + 1) & (ncap - 1);
		nt[j] = i + 1;
	}
	free(*table);
	*table = nt;
	*cap = ncap;
	return 0;
}

static uint64_t pa_profile_func_hash(struct pa_profile_impl *p, uint32_t i)
{
	const struct pa_func *f = &p->pub.funcs[i];

	return pa_profile_hash_str(pa_profile_hash_str(0xcbf29ce484222325ull, f->name), f->module);
}

/* The id of the function (name, module), added on first sight; -ENOMEM. */
static int64_t pa_profile_func_id(struct pa_profile_impl *p, const char *name, const char *module)
{
	uint64_t h = pa_profile_hash_str(pa_profile_hash_str(0xcbf29ce484222325ull, name), module);
	struct pa_func *f;
	size_t j;

	if ((p->pub.nfuncs + 1) * 2 > p->fhash_cap &&
	    pa_profile_rehash(&p->fhash, &p->fhash_cap, p->pub.nfuncs, pa_profile_func_hash, p) < 0)
		return -ENOMEM;
	for (j = h & (p->fhash_cap - 1); p->fhash[j]; j = (j + 1) & (p->fhash_cap - 1)) {
		f = &p->pub.funcs[p->fhash[j] - 1];
		if (strcmp(f->name, name) == 0 && pa_profile_same_str(f->module, module))
			return p->fhash[j] - 1;
	}
	if (p->pub.nfuncs == p->funcs_cap) {
		size_t ncap = p->funcs_cap ? p->funcs_cap * 2 : 256;
		struct pa_func *nf = realloc(p->pub.funcs, ncap * sizeof(*nf));
		uint64_t *ns = realloc(p->seen, ncap * sizeof(*ns));

		if (nf)
			p->pub.funcs = nf;
		if (ns)
			p->seen = ns;
		if (!nf || !ns)
			return -ENOMEM;
		p->funcs_cap = ncap;
	}
	f = &p->pub.funcs[p->pub.nfuncs];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->module = module ? strdup(module) : NULL;
	if (!f->name || (module && !f->module)) {
		free((char *)f->name);
		free((char *)f->module);
		return -ENOMEM;
	}
	p->seen[p->pub.nfuncs] = 0;
	p->fhash[j] = (uint32_t)++p->pub.nfuncs;
	return p->pub.nfuncs - 1;
}

static uint64_t pa_profile_ids_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ ids[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t pa_profile_stack_hash(struct pa_profile_impl *p, uint32_t i)
{
	return p->st[i].hash;
}

/* Count one sample of stack ids[0..n) (root first); *at gets its index in p->st. */
static int pa_profile_add_stack(struct pa_profile_impl *p, const uint32_t *ids, size_t n,
				size_t *at)
{
	uint64_t h = pa_profile_ids_hash(ids, n);
	struct pa_profile_stack *s;
	size_t j;

	if ((p->nst + 1) * 2 > p->shash_cap &&
	    pa_profile_rehash(&p->shash, &p->shash_cap, p->nst, pa_profile_stack_hash, p) < 0)
		return -ENOMEM;
	for (j = h & (p->shash_cap - 1); p->shash[j]; j = (j + 1) & (p->shash_cap - 1)) {
		s = &p->st[p->shash[j] - 1];
		if (s->hash == h && s->n == n && memcmp(s->ids, ids, n * sizeof(*ids)) == 0) {
			s->count += p->weight;
			*at = p->shash[j] - 1;
			return 0;
		}
	}
	if (pa_grow((void **)&p->st, &p->st_cap, p->nst,
		    sizeof(*p->st)) < 0)
		return -ENOMEM;
	s = &p->st[p->nst];
	s->ids = malloc(n * sizeof(*ids));
	if (!s->ids)
		return -ENOMEM;
	memcpy(s->ids, ids, n * sizeof(*ids));
	s->n = n;
	s->count = p->weight;
	s->hash = h;
	*at = p->nst;
	p->shash[j] = (uint32_t)++p->nst;
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

static size_t pa_profile_memo_slot(const struct pa_profile_memo *m, size_t cap,
				   const char *name, const char *module)
{
	uint64_t h = ((uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)(uintptr_t)module * 0xc2b2ae3d27d4eb4full);
	size_t j = (size_t)(h >> 17) & (cap - 1);

	while (m[j].name && (m[j].name != name || m[j].module != module))
		j = (j + 1) & (cap - 1);
	return j;
}

/* Doubles the memo table (kept at most half full); -ENOMEM. */
static int pa_profile_memo_grow(struct pa_profile_impl *p)
{
	size_t ncap = p->memo_cap ? p->memo_cap * 2 : 1024;
	struct pa_profile_memo *nm = calloc(ncap, sizeof(*nm));

	if (!nm)
		return -ENOMEM;
	for (size_t i = 0; i < p->memo_cap; i++)
		if (p->memo[i].name)
			nm[pa_profile_memo_slot(nm, ncap, p->memo[i].name,
						p->memo[i].module)] = p->memo[i];
	free(p->memo);
	p->memo = nm;
	p->memo_cap = ncap;
	return 0;
}

/* pa_profile_func_id for pointers the symbolizer keeps: memoised by address. */
static int64_t pa_profile_func_id_stable(struct pa_profile_impl *p, const char *name,
					 const char *module)
{
	struct pa_profile_memo *e;
	int64_t id;

	if ((p->memo_n + 1) * 2 > p->memo_cap && pa_profile_memo_grow(p) < 0)
		return -ENOMEM;
	e = &p->memo[pa_profile_memo_slot(p->memo, p->memo_cap, name, module)];
	if (e->name)
		return e->id;
	id = pa_profile_func_id(p, name, module);
	if (id < 0)
		return id;
	*e = (struct pa_profile_memo){ .name = name, .module = module, .id = (uint32_t)id };
	p->memo_n++;
	return id;
}

/* Append the function (name, module) to the sample's ids; -ENOMEM. */
static int pa_profile_count_frame(struct pa_profile_impl *p, const char *name,
				  const char *module, bool stable, uint64_t serial,
				  size_t *n)
{
	int64_t id;

	if (*n == sizeof(p->ids) / sizeof(p->ids[0]))
		return 0; /* inline levels beyond the room: the outermost are dropped */
	id = stable ? pa_profile_func_id_stable(p, name, module) :
		      pa_profile_func_id(p, name, module);
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

/* Append frame i of s (looked up as fr) as source frames, as p->pub.by says. */
static int pa_profile_count_src(struct pa_profile_impl *p, struct pa_symbols *sym,
				const struct pa_sample *s, size_t i,
				const struct pa_frame *fr, size_t *n)
{
	bool lines = p->pub.by == PA_PROFILE_BY_LINE || p->pub.by == PA_PROFILE_BY_LINE_INLINE;
	size_t levels = p->pub.by == PA_PROFILE_BY_LINE ? 1 : SIZE_MAX;
	uint64_t serial = p->pub.samples + 1;
	const struct pa_srcframe *src;
	size_t nsrc;
	char key[1024];

	if (pa_symbols_lookup_src(sym, s->ips[i], i > 0, s->time_ns, &src, &nsrc) < 0)
		return -ENOMEM;
	if (nsrc == 0)
		return pa_profile_count_frame(p, fr->name, fr->module, false, serial, n);
	for (size_t k = 0; k < nsrc && k < levels; k++) {
		const char *name = src[k].function;
		const char *base = src[k].file ? strrchr(src[k].file, '/') : NULL;
		int ret;

		if (lines && src[k].file) {
			snprintf(key, sizeof(key), "%s:%u %s", base ? base + 1 : src[k].file,
				 src[k].line, src[k].function);
			name = key;
		}
		ret = pa_profile_count_frame(p, name, fr->module, false, serial, n);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int pa_profile_add_sample(struct pa_profile_impl *p, struct pa_symbols *sym,
				 const struct pa_sample *s, size_t *stack)
{
	uint64_t serial = p->pub.samples + 1;
	size_t n = 0;

	p->ndistinct = 0;
	p->weight = s->count;
	/* ids innermost first, then reversed: stacks are stored root first */
	for (size_t i = 0; i < s->nframes; i++) {
		struct pa_frame fr;
		int ret;

		if (pa_symbols_lookup_at(sym, s->ips[i], i > 0, s->time_ns, &fr) < 0)
			return -ENOMEM;
		if (i > 0 && pa_profile_hides(p, &fr))
			continue;
		if (p->pub.by == PA_PROFILE_BY_FUNCTION)
			ret = pa_profile_count_frame(p, fr.name, fr.module, true, serial, &n);
		else
			ret = pa_profile_count_src(p, sym, s, i, &fr, &n);
		if (ret < 0)
			return ret;
	}
	pa_profile_reverse(p->ids, n);
	p->pub.funcs[p->ids[n - 1]].self += p->weight;
	p->pub.samples += p->weight;
	return pa_profile_add_stack(p, p->ids, n, stack);
}

static uint64_t pa_profile_raw_hash(const struct pa_sample *s)
{
	uint64_t h = 0xcbf29ce484222325ull ^ s->nframes;

	for (size_t i = 0; i < s->nframes; i++)
		h = (h ^ s->ips[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static size_t pa_profile_raw_slot(const struct pa_profile_raw *r, size_t cap,
				  uint64_t h, const struct pa_sample *s)
{
	size_t j = (size_t)h & (cap - 1);

	while (r[j].hash && (r[j].hash != h || r[j].nframes != s->nframes ||
			     memcmp(r[j].ips, s->ips, s->nframes * sizeof(*s->ips)) != 0))
		j = (j + 1) & (cap - 1);
	return j;
}

static void pa_profile_raw_drop(struct pa_profile_impl *p)
{
	for (size_t i = 0; i < p->raw_cap; i++) {
		free(p->raw[i].ips);
		free(p->raw[i].funcs);
	}
	free(p->raw);
	p->raw = NULL;
	p->nraw = p->raw_cap = 0;
}

/* Doubles the raw stack table (kept at most half full); -ENOMEM. */
static int pa_profile_raw_grow(struct pa_profile_impl *p)
{
	size_t ncap = p->raw_cap ? p->raw_cap * 2 : 1024;
	struct pa_profile_raw *nr = calloc(ncap, sizeof(*nr));

	if (!nr)
		return -ENOMEM;
	for (size_t i = 0; i < p->raw_cap; i++) {
		const struct pa_profile_raw *o = &p->raw[i];
		struct pa_sample key = { .nframes = o->nframes, .ips = o->ips };

		if (o->hash)
			nr[pa_profile_raw_slot(nr, ncap, o->hash, &key)] = *o;
	}
	free(p->raw);
	p->raw = nr;
	p->raw_cap = ncap;
	return 0;
}

/* Counts sample s through the raw stack table: symbolised once per stack. */
static int pa_profile_add_cached(struct pa_profile_impl *p, struct pa_symbols *sym,
				 const struct pa_sample *s)
{
	uint64_t h = pa_profile_raw_hash(s);
	struct pa_profile_raw *r;
	int ret;

	if ((p->nraw + 1) * 2 > p->raw_cap && pa_profile_raw_grow(p) < 0)
		return -ENOMEM;
	r = &p->raw[pa_profile_raw_slot(p->raw, p->raw_cap, h, s)];
	if (r->hash) {
		p->st[r->stack].count += s->count;
		p->pub.funcs[r->self].self += s->count;
		for (size_t i = 0; i < r->nfuncs; i++)
			p->pub.funcs[r->funcs[i]].total += s->count;
		p->pub.samples += s->count;
		return 0;
	}
	ret = pa_profile_add_sample(p, sym, s, &r->stack);
	if (ret < 0)
		return ret;
	r->ips = malloc(s->nframes * sizeof(*s->ips));
	r->funcs = malloc((p->ndistinct ? p->ndistinct : 1) * sizeof(*r->funcs));
	if (!r->ips || !r->funcs) {
		free(r->ips);
		free(r->funcs);
		*r = (struct pa_profile_raw){ 0 };
		return -ENOMEM;
	}
	memcpy(r->ips, s->ips, s->nframes * sizeof(*s->ips));
	memcpy(r->funcs, p->distinct, p->ndistinct * sizeof(*r->funcs));
	r->nfuncs = p->ndistinct;
	r->nframes = s->nframes;
	r->self = p->st[r->stack].ids[p->st[r->stack].n - 1];
	r->hash = h;
	p->nraw++;
	return 0;
}

/* Whether the frames of proc's addresses never depend on when they were taken. */
static bool pa_profile_time_free(const struct pa_process *proc)
{
	for (size_t i = 0; i < proc->nmodules; i++)
		if (proc->modules[i].unload_ns != UINT64_MAX)
			return false;
	return true;
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

static int pa_profile_add_process(struct pa_profile_impl *p, const struct pa_process *proc,
				  struct pa_warnings *warn, struct pa_error *err)
{
	const struct pa_filter *f = &p->pub.filter;
	int64_t idx = pa_filter_event(f, proc);
	bool cached = pa_profile_time_free(proc);
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
	for (size_t i = 0; i < p->nst; i++)
		free(p->st[i].ids);
	free(p->st);
	p->st = NULL;
	p->nst = 0;
	free(p->shash);
	p->shash = NULL;
	free(p->fhash);
	p->fhash = NULL;
	free(p->memo);
	p->memo = NULL;
	p->memo_n = p->memo_cap = 0;
	free(p->seen);
	p->seen = NULL;
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
	for (size_t i = 0; i < prof->nfuncs; i++) {
		free((char *)prof->funcs[i].name);
		free((char *)prof->funcs[i].module);
	}
	free(prof->funcs);
	for (size_t i = 0; i < prof->nstacks; i++)
		free(prof->stacks[i].frames);
	free(prof->stacks);
	free(p);
}

bool pa_filter_selects(const struct pa_filter *f, const struct pa_process *proc)
{
	return (!f->pid || proc->pid == f->pid) && (!f->exe || pa_process_runs(proc, f->exe));
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
