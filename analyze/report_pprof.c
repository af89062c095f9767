/*
 * report_pprof: the profile as pprof reads it: a gzip'd profile.proto
 * (github.com/google/pprof/proto/profile.proto), encoded by protobuf-c.
 *
 * Contents: one mapping per module file (path, build-id and the range and
 * file offset it was loaded from), shared by every selected process that
 * mapped it; its addresses are the file's own (ELF virtual addresses, as
 * addr2line takes them: runtime address - bias), the same in every
 * process whatever the load address. One location per distinct (mapping,
 * address, caller or leaf), or (process, address, caller or leaf) for an
 * address in no module, each with one line per
 * source frame (pa_symbols_lookup_src), innermost first as profile.proto
 * wants: every inline level, then the function that holds the address,
 * each with its line (for an inline level, where its code is; for the next
 * one out, the call site). Functions have their source file and start line
 * (DW_AT_decl_line) where the debug info gives them; an address without
 * source frames has one line naming it as top does ("module+0xOFFSET" or
 * "[unknown]" when unresolved), line 0. Mappings say they have functions,
 * file names, line numbers and inline frames, so pprof does not symbolise
 * again. One sample per distinct (thread, stack) with labels pid, tid
 * (numbers) and thread (its name). Sample types:
 * samples/count, then cpu/nanoseconds (samples x period) for an event that
 * counts nanoseconds at a fixed period, wall/nanoseconds for the wall-clock
 * event (wall.h) (a frequency of one is a fixed period,
 * pa_event_sample_period), or EVENT/count (samples x period) for another
 * fixed-period event; another frequency event has EVENT/count only, its
 * samples weighed by their periods (pa_event_weighted).
 * string_table[0] is "", every id is non-zero.
 */
#include "grow.h"
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "before.h"
#include "eventinfo.h"
#include "ident.h"
#include "intern.h"
#include "profile.pb-c.h"
#include "samples.h"
#include "textsafe.h"

/* A growable array of numbers: the data that goes with an interned key. */
struct pa_pprof_vec {
	uint64_t *v;
	size_t n, cap;
};

/*
 * What the walk collects. Tables are interned keys of uint64_t words; a
 * key's index + 1 is its id in the profile (string indexes are used as is).
 */
struct pa_pprof {
	struct pa_intern *strings;   /* NUL-terminated strings; "" first */
	struct pa_intern *modules;   /* {process index, module address} */
	struct pa_pprof_vec mod_map; /* per module: its mapping id */
	/* {file name string, build-id string, start, end, file offset}: file addresses */
	struct pa_intern *mappings;
	struct pa_intern *functions; /* {name string, file string, start line} */
	struct pa_intern *frames;    /* {process index, ip, is_caller, module address} */
	struct pa_pprof_vec frame_loc; /* per frame: its location id */
	/* {mapping id, file address, is_caller}, or {0, process index, ip, is_caller} */
	struct pa_intern *locations;
	struct pa_pprof_vec loc_data; /* per location: mapping id, address, first line, lines */
	struct pa_pprof_vec lines;    /* per line: function id, line; innermost first */
	struct pa_intern *samples;   /* {thread address, location ids...} */
	struct pa_pprof_vec counts;  /* per sample: samples */
	struct pa_pprof_vec procs;   /* per sample: its process's index */
	const struct pa_run *run;
	uint64_t key[PPF_MAX_FRAMES + 1];
	uint64_t first_ns, last_ns;  /* monotonic: first process start, last sample */
};

static int pa_pprof_vec_push(struct pa_pprof_vec *v, uint64_t x)
{
	if (pa_grow((void **)&v->v, &v->cap, v->n, sizeof(*v->v)) < 0)
		return -ENOMEM;
	v->v[v->n++] = x;
	return 0;
}

/* The id of string s, made valid UTF-8 as proto3 strings must be (as the JSON reports do). */
static int64_t pa_pprof_str(struct pa_pprof *pp, const char *s)
{
	char *own;
	const char *v = pa_text_utf8(s ? s : "", &own);
	int64_t i = v ? pa_intern_str(pp->strings, v) : -ENOMEM;

	free(own);
	return i;
}

/*
 * The mapping of module m of process p: its file's, as every process that
 * maps it sees it. A vDSO without a build-id has no file of its own to be
 * told by: its image's (named by its content, at the run's root), or, in
 * an older run, its process's own copy.
 */
static int64_t pa_pprof_new_mapping(struct pa_pprof *pp, size_t p, const struct pa_module *m)
{
	const char *name = pa_symbols_module_name(pp->run->processes[p], m);
	bool vdso = m->build_id_len == 0 && strcmp(name, PA_SYMBOLS_VDSO_NAME) == 0;
	char hex[2 * PPF_BUILD_ID_MAX + 1] = "";
	uint64_t key[6];
	int64_t i, image = 0;

	for (uint32_t b = 0; b < m->build_id_len && b < PPF_BUILD_ID_MAX; b++)
		snprintf(hex + 2 * b, 3, "%02x", m->build_id[b]);
	i = pa_pprof_str(pp, name);
	key[1] = (uint64_t)pa_pprof_str(pp, hex);
	if (vdso && m->vdso_image)
		image = pa_pprof_str(pp, m->vdso_image);
	if (i < 0 || (int64_t)key[1] < 0 || image < 0)
		return -ENOMEM;
	key[0] = (uint64_t)i;
	key[2] = m->start - m->bias;
	key[3] = m->end - m->bias;
	key[4] = m->pgoff;
	/* String ids are small: a process's own copy is told apart from every image. */
	key[5] = vdso && !m->vdso_image ? UINT64_MAX - p : (uint64_t)image;
	i = pa_intern_add(pp->mappings, key, sizeof(key));
	return i < 0 ? i : i + 1;
}

/* The mapping id of module m of process p (0 for none). */
static int64_t pa_pprof_mapping(struct pa_pprof *pp, size_t p, const struct pa_module *m)
{
	uint64_t key[2] = { p, (uint64_t)(uintptr_t)m };
	size_t before = pa_intern_count(pp->modules);
	int64_t i, map;

	if (!m)
		return 0;
	i = pa_intern_add(pp->modules, key, sizeof(key));
	if (i < 0 || (size_t)i < before)
		return i < 0 ? i : (int64_t)pp->mod_map.v[i];
	map = pa_pprof_new_mapping(pp, p, m);
	if (map < 0 || pa_pprof_vec_push(&pp->mod_map, (uint64_t)map) < 0)
		return -ENOMEM;
	return map;
}

/*
 * Makes the executable of the selected process with the most samples the
 * first mapping, which Go pprof names in its header ("File: ..."): an MPI
 * job's program, not its launcher nor the first library a sample was in.
 * The executable is the module at proc->exe's path (or without a path).
 */
static int pa_pprof_main_mapping(struct pa_pprof *pp, const struct pa_filter *f)
{
	const struct pa_process *best = NULL;
	size_t best_p = 0;
	uint64_t most = 0;

	for (size_t p = 0; p < pp->run->nprocesses; p++) {
		const struct pa_process *proc = pp->run->processes[p];
		uint64_t n = 0;

		if (!pa_filter_selects(f, proc))
			continue;
		for (size_t i = 0; i < proc->nthreads; i++)
			if (pa_filter_selects_thread(f, proc->threads[i]))
				n += pa_filter_count_samples(f, proc, proc->threads[i]);
		if (!best || n > most) {
			best = proc;
			best_p = p;
			most = n;
		}
	}
	for (size_t k = 0; best && k < best->nmodules; k++) {
		const struct pa_module *m = &best->modules[k];

		if (!m->path[0] || (best->exe && strcmp(m->path, best->exe) == 0))
			return pa_pprof_mapping(pp, best_p, m) < 0 ? -ENOMEM : 0;
	}
	return 0;
}

/* The function id of name in file (NULL: none) starting at start_line (0: unknown). */
static int64_t pa_pprof_function(struct pa_pprof *pp, const char *name, const char *file,
				 unsigned start_line)
{
	int64_t n = pa_pprof_str(pp, name), f = pa_pprof_str(pp, file);
	uint64_t key[3];
	int64_t i;

	if (n < 0 || f < 0)
		return -ENOMEM;
	key[0] = (uint64_t)n;
	key[1] = (uint64_t)f;
	key[2] = start_line;
	i = pa_intern_add(pp->functions, key, sizeof(key));
	return i < 0 ? i : i + 1;
}

/* Append one line of a location: function id and line. */
static int pa_pprof_line(struct pa_pprof *pp, int64_t func, unsigned line)
{
	if (func < 0 || pa_pprof_vec_push(&pp->lines, (uint64_t)func) < 0 ||
	    pa_pprof_vec_push(&pp->lines, line) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * The lines of frame k of item, innermost first as profile.proto wants:
 * one per inline level, then the function that holds the address. A frame
 * without source frames gets one line naming it as top does, line 0.
 */
static int pa_pprof_lines(struct pa_pprof *pp, const struct pa_samples_item *item, size_t k)
{
	const struct pa_frame *fr = &item->frames[k];
	const struct pa_srcframe *src = NULL;
	size_t nsrc = 0;
	int ret = 0;

	if (item->sym && pa_symbols_lookup_src(item->sym, fr->ip, item->is_caller[k],
					       item->sample->time_ns, &src, &nsrc) < 0)
		return -ENOMEM;
	if (nsrc == 0)
		return pa_pprof_line(pp, pa_pprof_function(pp, fr->name, NULL, 0), 0);
	for (size_t i = 0; i < nsrc && ret == 0; i++)
		ret = pa_pprof_line(pp, pa_pprof_function(pp, src[i].function, src[i].file,
							  src[i].start_line), src[i].line);
	return ret;
}

/*
 * The location id of frame k of item (in module m, NULL for none), added
 * with its lines and functions: shared by the processes that mapped the
 * same file, whose source frames are the same at the same file address.
 */
static int64_t pa_pprof_new_location(struct pa_pprof *pp, const struct pa_samples_item *item,
				     size_t k, const struct pa_module *m)
{
	const struct pa_frame *fr = &item->frames[k];
	int64_t map = pa_pprof_mapping(pp, item->proc_index, m);
	uint64_t key[4] = { 0, item->proc_index, fr->ip, item->is_caller[k] };
	size_t len = sizeof(key), before = pa_intern_count(pp->locations);
	size_t first = pp->lines.n / 2;
	int64_t i;

	if (map < 0)
		return map;
	if (map) {
		key[0] = (uint64_t)map;
		key[1] = fr->ip - m->bias;
		key[2] = item->is_caller[k];
		len = 3 * sizeof(key[0]);
	}
	i = pa_intern_add(pp->locations, key, len);
	if (i < 0 || (size_t)i < before)
		return i < 0 ? i : i + 1;
	if (pa_pprof_lines(pp, item, k) < 0 ||
	    pa_pprof_vec_push(&pp->loc_data, (uint64_t)map) < 0 ||
	    pa_pprof_vec_push(&pp->loc_data, map ? key[1] : fr->ip) < 0 ||
	    pa_pprof_vec_push(&pp->loc_data, first) < 0 ||
	    pa_pprof_vec_push(&pp->loc_data, pp->lines.n / 2 - first) < 0)
		return -ENOMEM;
	return i + 1;
}

/* The location id of frame k of item: per process and address, then shared. */
static int64_t pa_pprof_location(struct pa_pprof *pp, const struct pa_samples_item *item,
				 size_t k)
{
	const struct pa_frame *fr = &item->frames[k];
	const struct pa_module *m = pa_samples_module(item->proc, fr, item->sample->time_ns);
	uint64_t key[4] = { item->proc_index, fr->ip, item->is_caller[k],
			    (uint64_t)(uintptr_t)m };
	size_t before = pa_intern_count(pp->frames);
	int64_t i = pa_intern_add(pp->frames, key, sizeof(key)), loc;

	if (i < 0 || (size_t)i < before)
		return i < 0 ? i : (int64_t)pp->frame_loc.v[i];
	loc = pa_pprof_new_location(pp, item, k, m);
	if (loc < 0 || pa_pprof_vec_push(&pp->frame_loc, (uint64_t)loc) < 0)
		return -ENOMEM;
	return loc;
}

static int pa_pprof_add(void *ctx, const struct pa_samples_item *item)
{
	struct pa_pprof *pp = ctx;
	size_t before = pa_intern_count(pp->samples);
	int64_t i;

	pp->key[0] = (uint64_t)(uintptr_t)item->thread;
	for (size_t k = 0; k < item->nframes; k++) {
		int64_t loc = pa_pprof_location(pp, item, k);

		if (loc < 0)
			return (int)loc;
		pp->key[k + 1] = (uint64_t)loc;
	}
	i = pa_intern_add(pp->samples, pp->key, (item->nframes + 1) * sizeof(pp->key[0]));
	if (i < 0)
		return (int)i;
	if ((size_t)i == before && (pa_pprof_vec_push(&pp->counts, 0) < 0 ||
				    pa_pprof_vec_push(&pp->procs, item->proc_index) < 0))
		return -ENOMEM;
	pp->counts.v[i] += item->sample->count;
	if (item->sample->time_ns > pp->last_ns)
		pp->last_ns = item->sample->time_ns;
	if (!pp->first_ns || item->proc->start_ns < pp->first_ns)
		pp->first_ns = item->proc->start_ns;
	return 0;
}

/* The sample types, the period type and the period; see the top of this file. */
struct pa_pprof_types {
	int64_t type[2], unit[2];
	size_t n;
	int64_t period;
};

static int pa_pprof_types(struct pa_pprof *pp, const struct pa_filter *f,
			  struct pa_pprof_types *t)
{
	bool differs = false;
	const struct pa_event *e = pa_events_shown(pp->run, f, &differs);
	bool fixed = e && !differs && pa_event_sample_period(e);

	t->n = 1;
	/* A weighted event's counts are events (pa_event_weighted). */
	t->type[0] = pa_pprof_str(pp, e && !differs && pa_event_weighted(e) ? e->name :
				  "samples");
	t->unit[0] = pa_pprof_str(pp, "count");
	t->period = 1;
	if (fixed) {
		bool ns = e->flags & (PPF_EVENT_TIME_NS | PPF_EVENT_WALL);

		t->type[1] = pa_pprof_str(pp, e->flags & PPF_EVENT_WALL ? "wall" :
					  ns ? "cpu" : e->name);
		t->unit[1] = pa_pprof_str(pp, ns ? "nanoseconds" : "count");
		t->period = (int64_t)pa_event_sample_period(e);
		t->n = 2;
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->type[i] < 0 || t->unit[i] < 0)
			return -ENOMEM;
	return 0;
}

/*
 * The profile message, its parts in a few arrays. Everything it points to
 * is owned by struct pa_pprof_msg and freed by pa_pprof_msg_release.
 */
struct pa_pprof_msg {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType vt[3], *vtp[2];
	Perftools__Profiles__Mapping *map, **mapp;
	Perftools__Profiles__Function *fn, **fnp;
	Perftools__Profiles__Location *loc, **locp;
	Perftools__Profiles__Line *line, **linep;
	Perftools__Profiles__Sample *smp, **smpp;
	Perftools__Profiles__Label *lab, **labp;
	uint64_t *locids;
	int64_t *values;
	char **strings;
};

static void pa_pprof_msg_release(struct pa_pprof_msg *m)
{
	free(m->map);
	free(m->mapp);
	free(m->fn);
	free(m->fnp);
	free(m->loc);
	free(m->locp);
	free(m->line);
	free(m->linep);
	free(m->smp);
	free(m->smpp);
	free(m->lab);
	free(m->labp);
	free(m->locids);
	free(m->values);
	free(m->strings);
}

static int pa_pprof_msg_mappings(struct pa_pprof *pp, struct pa_pprof_msg *m)
{
	size_t n = pa_intern_count(pp->mappings);

	m->map = calloc(n + 1, sizeof(*m->map));
	m->mapp = calloc(n + 1, sizeof(*m->mapp));
	if (!m->map || !m->mapp)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *key = pa_intern_key(pp->mappings, i, NULL);
		Perftools__Profiles__Mapping *x = &m->map[i];

		perftools__profiles__mapping__init(x);
		x->id = i + 1;
		x->filename = (int64_t)key[0];
		x->build_id = (int64_t)key[1];
		x->memory_start = key[2];
		x->memory_limit = key[3];
		x->file_offset = key[4];
		/*
		 * Every location has its function, and its file, lines and
		 * inline frames where the debug info has them: pprof must
		 * not symbolise again.
		 */
		x->has_functions = 1;
		x->has_filenames = 1;
		x->has_line_numbers = 1;
		x->has_inline_frames = 1;
		m->mapp[i] = x;
	}
	m->prof.n_mapping = n;
	m->prof.mapping = m->mapp;
	return 0;
}

static int pa_pprof_msg_functions(struct pa_pprof *pp, struct pa_pprof_msg *m)
{
	size_t n = pa_intern_count(pp->functions);

	m->fn = calloc(n + 1, sizeof(*m->fn));
	m->fnp = calloc(n + 1, sizeof(*m->fnp));
	if (!m->fn || !m->fnp)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *key = pa_intern_key(pp->functions, i, NULL);

		perftools__profiles__function__init(&m->fn[i]);
		m->fn[i].id = i + 1;
		m->fn[i].name = (int64_t)key[0];
		m->fn[i].system_name = (int64_t)key[0];
		m->fn[i].filename = (int64_t)key[1];
		m->fn[i].start_line = (int64_t)key[2];
		m->fnp[i] = &m->fn[i];
	}
	m->prof.n_function = n;
	m->prof.function = m->fnp;
	return 0;
}

static int pa_pprof_msg_locations(struct pa_pprof *pp, struct pa_pprof_msg *m)
{
	size_t n = pa_intern_count(pp->locations), nlines = pp->lines.n / 2;

	m->loc = calloc(n + 1, sizeof(*m->loc));
	m->locp = calloc(n + 1, sizeof(*m->locp));
	m->line = calloc(nlines + 1, sizeof(*m->line));
	m->linep = calloc(nlines + 1, sizeof(*m->linep));
	if (!m->loc || !m->locp || !m->line || !m->linep)
		return -ENOMEM;
	for (size_t j = 0; j < nlines; j++) {
		perftools__profiles__line__init(&m->line[j]);
		m->line[j].function_id = pp->lines.v[2 * j];
		m->line[j].line = (int64_t)pp->lines.v[2 * j + 1];
		m->linep[j] = &m->line[j];
	}
	for (size_t i = 0; i < n; i++) {
		const uint64_t *data = &pp->loc_data.v[4 * i];

		perftools__profiles__location__init(&m->loc[i]);
		m->loc[i].id = i + 1;
		m->loc[i].mapping_id = data[0];
		m->loc[i].address = data[1];
		m->loc[i].n_line = data[3];
		m->loc[i].line = &m->linep[data[2]];
		m->locp[i] = &m->loc[i];
	}
	m->prof.n_location = n;
	m->prof.location = m->locp;
	return 0;
}

/*
 * The labels of a sample: pid, tid, thread; then run when several were
 * given (struct pa_process.run_dir), host when the run has several hosts
 * or ranks (ident.h), rank when its process has one.
 */
enum pa_pprof_label { PA_PPROF_PID, PA_PPROF_TID, PA_PPROF_THREAD, PA_PPROF_RUN,
		      PA_PPROF_HOST, PA_PPROF_RANK, PA_PPROF_LABELS };

/* Sample i: its locations, values and labels (key strings in lk). */
static int pa_pprof_msg_sample(struct pa_pprof *pp, struct pa_pprof_msg *m, size_t i,
			       const struct pa_pprof_types *t, const int64_t *lk)
{
	size_t len;
	const uint64_t *key = pa_intern_key(pp->samples, i, &len);
	const struct pa_thread *th = (const struct pa_thread *)(uintptr_t)key[0];
	const struct pa_process *proc = pp->run->processes[pp->procs.v[i]];
	Perftools__Profiles__Sample *x = &m->smp[i];
	Perftools__Profiles__Label *lab = &m->lab[PA_PPROF_LABELS * i];
	size_t nloc = len / sizeof(*key) - 1, nlab = 0;
	bool has[PA_PPROF_LABELS] = { true, true, true, proc->run_dir != NULL,
				      lk[PA_PPROF_HOST] != 0 && proc->id.host,
				      proc->id.rank >= 0 };
	int64_t str[PA_PPROF_LABELS] = { 0 }, num[PA_PPROF_LABELS] = { 0 };

	perftools__profiles__sample__init(x);
	x->location_id = (uint64_t *)key + 1;
	x->n_location_id = nloc;
	x->value = &m->values[2 * i];
	x->n_value = t->n;
	x->value[0] = (int64_t)pp->counts.v[i];
	x->value[1] = (int64_t)pp->counts.v[i] * t->period;
	num[PA_PPROF_PID] = th->pid;
	num[PA_PPROF_TID] = th->tid;
	num[PA_PPROF_RANK] = proc->id.rank;
	str[PA_PPROF_THREAD] = pa_pprof_str(pp, th == proc->before_thread ? PA_BEFORE_NAME :
					    th->name);
	str[PA_PPROF_RUN] = has[PA_PPROF_RUN] ? pa_pprof_str(pp, proc->run_dir) : 0;
	str[PA_PPROF_HOST] = has[PA_PPROF_HOST] ? pa_pprof_str(pp, proc->id.host) : 0;
	for (size_t k = 0; k < PA_PPROF_LABELS; k++) {
		if (str[k] < 0)
			return -ENOMEM;
		if (!has[k])
			continue;
		perftools__profiles__label__init(&lab[nlab]);
		lab[nlab].key = lk[k];
		lab[nlab].str = str[k];
		lab[nlab].num = num[k];
		m->labp[PA_PPROF_LABELS * i + nlab] = &lab[nlab];
		nlab++;
	}
	x->label = &m->labp[PA_PPROF_LABELS * i];
	x->n_label = nlab;
	m->smpp[i] = x;
	return 0;
}

static int pa_pprof_msg_samples(struct pa_pprof *pp, struct pa_pprof_msg *m,
				const struct pa_pprof_types *t)
{
	size_t n = pa_intern_count(pp->samples);
	bool runs = pp->run->nprocesses && pp->run->processes[0]->run_dir;
	struct pa_ident_run id;
	int64_t lk[PA_PPROF_LABELS];

	pa_ident_scan(pp->run, &id);
	lk[PA_PPROF_PID] = pa_pprof_str(pp, "pid");
	lk[PA_PPROF_TID] = pa_pprof_str(pp, "tid");
	lk[PA_PPROF_THREAD] = pa_pprof_str(pp, "thread");
	lk[PA_PPROF_RUN] = runs ? pa_pprof_str(pp, "run") : 0;
	lk[PA_PPROF_HOST] = pa_ident_shown(&id) ? pa_pprof_str(pp, "host") : 0;
	lk[PA_PPROF_RANK] = id.any_rank ? pa_pprof_str(pp, "rank") : 0;
	m->smp = calloc(n + 1, sizeof(*m->smp));
	m->smpp = calloc(n + 1, sizeof(*m->smpp));
	m->values = calloc(2 * n + 1, sizeof(*m->values));
	m->lab = calloc(PA_PPROF_LABELS * n + 1, sizeof(*m->lab));
	m->labp = calloc(PA_PPROF_LABELS * n + 1, sizeof(*m->labp));
	if (!m->smp || !m->smpp || !m->values || !m->lab || !m->labp)
		return -ENOMEM;
	for (size_t k = 0; k < PA_PPROF_LABELS; k++)
		if (lk[k] < 0)
			return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (pa_pprof_msg_sample(pp, m, i, t, lk) < 0)
			return -ENOMEM;
	m->prof.n_sample = n;
	m->prof.sample = m->smpp;
	return 0;
}

/* The header fields: types, period, time. The string table comes last. */
static int pa_pprof_msg_header(struct pa_pprof *pp, struct pa_pprof_msg *m,
			       const struct pa_pprof_types *t)
{
	uint64_t realtime = 0;

	for (size_t i = 0; i < t->n; i++) {
		perftools__profiles__value_type__init(&m->vt[i]);
		m->vt[i].type = t->type[i];
		m->vt[i].unit = t->unit[i];
		m->vtp[i] = &m->vt[i];
	}
	m->prof.sample_type = m->vtp;
	m->prof.n_sample_type = t->n;
	/* The period is counted in the last sample type's unit. */
	perftools__profiles__value_type__init(&m->vt[2]);
	m->vt[2] = m->vt[t->n - 1];
	m->prof.period_type = &m->vt[2];
	m->prof.period = t->period;
	for (size_t i = 0; i < pp->run->nprocesses; i++) {
		const struct pa_process *p = pp->run->processes[i];

		if (p->start_ns == pp->first_ns && p->start_realtime_ns)
			realtime = p->start_realtime_ns;
	}
	m->prof.time_nanos = (int64_t)realtime;
	if (pp->last_ns > pp->first_ns)
		m->prof.duration_nanos = (int64_t)(pp->last_ns - pp->first_ns);
	return 0;
}

static int pa_pprof_msg_strings(struct pa_pprof *pp, struct pa_pprof_msg *m)
{
	size_t n = pa_intern_count(pp->strings);

	m->strings = calloc(n + 1, sizeof(*m->strings));
	if (!m->strings)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		m->strings[i] = (char *)pa_intern_key(pp->strings, i, NULL);
	m->prof.n_string_table = n;
	m->prof.string_table = m->strings;
	return 0;
}

/* gzip len bytes of buf onto out. */
static int pa_pprof_gzip(FILE *out, const uint8_t *buf, size_t len)
{
	unsigned char chunk[65536];
	z_stream z;
	int zr;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR)
			break;
		fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out);
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	if (zr != Z_STREAM_END)
		return -ENOMEM;
	return ferror(out) ? -EIO : 0;
}

/* Build the message from what the walk collected, pack and gzip it. */
static int pa_pprof_write(FILE *out, struct pa_pprof *pp, const struct pa_filter *f)
{
	struct pa_pprof_msg m;
	struct pa_pprof_types t;
	uint8_t *buf = NULL;
	size_t len;
	int ret;

	memset(&m, 0, sizeof(m));
	perftools__profiles__profile__init(&m.prof);
	ret = pa_pprof_types(pp, f, &t);
	if (ret == 0)
		ret = pa_pprof_msg_mappings(pp, &m);
	if (ret == 0)
		ret = pa_pprof_msg_functions(pp, &m);
	if (ret == 0)
		ret = pa_pprof_msg_locations(pp, &m);
	if (ret == 0)
		ret = pa_pprof_msg_samples(pp, &m, &t);
	if (ret == 0)
		ret = pa_pprof_msg_header(pp, &m, &t);
	if (ret == 0)
		ret = pa_pprof_msg_strings(pp, &m);
	if (ret == 0) {
		len = perftools__profiles__profile__get_packed_size(&m.prof);
		buf = malloc(len ? len : 1);
		if (!buf)
			ret = -ENOMEM;
	}
	if (ret == 0) {
		perftools__profiles__profile__pack(&m.prof, buf);
		ret = pa_pprof_gzip(out, buf, len);
	}
	free(buf);
	pa_pprof_msg_release(&m);
	return ret;
}

static void pa_pprof_release(struct pa_pprof *pp)
{
	pa_intern_free(pp->strings);
	pa_intern_free(pp->modules);
	pa_intern_free(pp->mappings);
	pa_intern_free(pp->functions);
	pa_intern_free(pp->frames);
	pa_intern_free(pp->locations);
	pa_intern_free(pp->samples);
	free(pp->mod_map.v);
	free(pp->frame_loc.v);
	free(pp->loc_data.v);
	free(pp->lines.v);
	free(pp->counts.v);
	free(pp->procs.v);
}

/*
 * Write the samples of ctx->run that ctx->filter selects as a gzip'd
 * profile.proto. Symboliser warnings go to ctx->warn (may be NULL).
 * Returns 0, -EIO on a write error, or another negative errno with
 * ctx->err filled.
 */
static int pa_report_pprof_write(const struct pa_report_ctx *ctx)
{
	const struct pa_run *run = ctx->run;
	const struct pa_filter *f = ctx->filter;
	struct pa_error *err = ctx->err;
	struct pa_pprof *pp = calloc(1, sizeof(*pp));
	int ret = -ENOMEM;

	if (!pp)
		return pa_error_set(err, -ENOMEM, run->dir, false, 0, "out of memory");
	pp->run = run;
	pp->strings = pa_intern_new();
	pp->modules = pa_intern_new();
	pp->mappings = pa_intern_new();
	pp->functions = pa_intern_new();
	pp->frames = pa_intern_new();
	pp->locations = pa_intern_new();
	pp->samples = pa_intern_new();
	/* string_table[0] must be "" */
	if (pp->strings && pp->modules && pp->mappings && pp->functions && pp->frames &&
	    pp->locations && pp->samples &&
	    pa_pprof_str(pp, "") == 0)
		ret = pa_pprof_main_mapping(pp, f);
	if (ret == 0)
		ret = pa_samples_walk(run, f, pa_pprof_add, pp, ctx->warn, err);
	if (ret == 0)
		ret = pa_pprof_write(ctx->out, pp, f);
	if (ret == -ENOMEM)
		pa_error_set(err, ret, run->dir, false, 0, "out of memory");
	pa_pprof_release(pp);
	free(pp);
	return ret;
}

/*
 * Gzip'd bytes: to -o's file, or to a standard output that is not a
 * terminal (a pipe, a redirection), which they would garble.
 */
static const char *pa_report_pprof_check(const struct pa_report_opts *o)
{
	if (!o->output && isatty(STDOUT_FILENO))
		return "pprof writes a gzip'd file: give -o FILE.pb.gz (or send the standard "
		       "output to a file or a pipe)";
	return NULL;
}

const struct pa_report pa_report_pprof = {
	.name = "pprof",
	.usage = "DIR -o FILE.pb.gz [OPTIONS]",
	.help = "gzip'd profile.proto for Go pprof: mappings, symbolised\n"
		"locations and functions, sample types samples/count and\n"
		"cpu/nanoseconds (time events) or wall/nanoseconds (--event\n"
		"wall), labels pid, tid and thread\n"
		"(and run, the DIR, with several DIRs).\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_SAMPLES,
	.notes_apart = true,
	.check = pa_report_pprof_check,
	.write = pa_report_pprof_write,
};
