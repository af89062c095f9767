/* eventinfo: events as the reports show them, and which one they show; see eventinfo.h. */
#include "eventinfo.h"
#include "wall.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <string.h>

#include "before.h"
#include "coverage.h"

#define PA_EVENTS_LIST_MAX 160 /* bytes of event names in an error message */

bool pa_event_samples(const struct pa_event *e)
{
	return !(e->flags & PPF_EVENT_COUNT);
}

bool pa_event_opened(const struct pa_event *e)
{
	return !(e->flags & PPF_EVENT_UNAVAILABLE);
}

const char *pa_event_kind(const struct pa_event *e)
{
	return pa_event_samples(e) ? "sample" : "count";
}

/* ns as a duration in the largest unit it fills: "1 ms", "250 us", "1.5 s". */
static char *pa_events_duration(uint64_t ns, char *buf, size_t size)
{
	static const struct { double ns; const char *unit; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" },
	};
	size_t i = 0;

	while (i + 1 < sizeof(units) / sizeof(units[0]) && (double)ns < units[i].ns)
		i++;
	snprintf(buf, size, "%.6g %s", (double)ns / units[i].ns, units[i].unit);
	return buf;
}

char *pa_event_format_period(const struct pa_event *e, char *buf, size_t size)
{
	char d[48];

	if (!pa_event_samples(e))
		snprintf(buf, size, "-");
	else if (e->flags & PPF_EVENT_FREQ)
		snprintf(buf, size, "%" PRIu64 " Hz", e->period);
	else if (e->flags & PPF_EVENT_TIME_NS)
		snprintf(buf, size, "%s of CPU", pa_events_duration(e->period, d, sizeof(d)));
	else if (e->flags & PPF_EVENT_WALL)
		snprintf(buf, size, "%s of wall time", pa_events_duration(e->period, d, sizeof(d)));
	else
		snprintf(buf, size, "%" PRIu64 " event%s", e->period, e->period == 1 ? "" : "s");
	return buf;
}

uint64_t pa_event_sample_period(const struct pa_event *e)
{
	if (!pa_event_samples(e) || !e->period)
		return 0;
	if (!(e->flags & PPF_EVENT_FREQ))
		return e->period;
	return e->flags & PPF_EVENT_TIME_NS ? 1000000000u / e->period : 0;
}

bool pa_event_weighted(const struct pa_event *e)
{
	return pa_event_samples(e) && (e->flags & PPF_EVENT_FREQ) &&
	       !(e->flags & PPF_EVENT_TIME_NS);
}

const char *pa_event_scope(const struct pa_event *e)
{
	bool user = !(e->flags & PPF_EVENT_EXCLUDE_USER);
	bool kernel = !(e->flags & PPF_EVENT_EXCLUDE_KERNEL);

	if (e->flags & PPF_EVENT_WALL)
		return "on and off the CPU";
	return user && kernel ? "user+kernel" : user ? "user" : kernel ? "kernel" : "none";
}

char *pa_event_format_encoding(const struct pa_event *e, char *buf, size_t size)
{
	static const char *const types[] = {
		[PERF_TYPE_HARDWARE] = "hardware", [PERF_TYPE_SOFTWARE] = "software",
		[PERF_TYPE_TRACEPOINT] = "tracepoint", [PERF_TYPE_HW_CACHE] = "hw-cache",
		[PERF_TYPE_RAW] = "raw", [PERF_TYPE_BREAKPOINT] = "breakpoint",
	};
	char type[16];
	int n;

	if (e->flags & PPF_EVENT_WALL) {
		snprintf(buf, size, "wall (switch records, wall.log)");
		return buf;
	}
	if (e->type < sizeof(types) / sizeof(types[0]))
		snprintf(type, sizeof(type), "%s", types[e->type]);
	else
		snprintf(type, sizeof(type), "%" PRIu32, e->type);
	n = snprintf(buf, size, "%s:0x%" PRIx64, type, e->config);
	if (e->config1 && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, ",config1=0x%" PRIx64, e->config1);
	if (e->config2 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ",config2=0x%" PRIx64, e->config2);
	return buf;
}

char *pa_event_format_status(const struct pa_event *e, char *buf, size_t size)
{
	if (pa_event_opened(e))
		snprintf(buf, size, "ok");
	else if (e->flags & PPF_EVENT_MODE_REFUSED)
		snprintf(buf, size, "unavailable: not sampled in the signal mode "
			 "(its signal would interrupt system calls)");
	else if (e->error)
		snprintf(buf, size, "unavailable: %s", strerror((int)e->error));
	else
		snprintf(buf, size, "unavailable");
	return buf;
}

char *pa_events_format_count(uint64_t n, char *buf, size_t size)
{
	char digits[24], out[32];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n);
	size_t o = 0;

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	snprintf(buf, size, "%s", out);
	return buf;
}

/* ---- choosing the event ------------------------------------------------ */

/* Whether e is of the kind use wants. */
static bool pa_events_fits(const struct pa_event *e, enum pa_events_use use)
{
	return use == PA_EVENTS_ANY || pa_event_samples(e) == (use == PA_EVENTS_SAMPLES);
}

/* Whether list (n entries) already names e. */
static bool pa_events_listed(const struct pa_event *const *list, size_t n,
			     const struct pa_event *e)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i]->name, e->name) == 0)
			return true;
	return false;
}

/*
 * "a, b (b:u), c" (or "none"): the events of kind use in the processes f
 * selects (only those opened, unless use is PA_EVENTS_ANY), each name once,
 * cut with ", ..." when too long.
 */
static void pa_events_list(const struct pa_run *run, const struct pa_filter *f,
			   enum pa_events_use use, char *buf, size_t size)
{
	const struct pa_event *seen[64];
	size_t nseen = 0, len = 0;

	snprintf(buf, size, "none");
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		for (size_t i = 0; pa_filter_selects(f, proc) && i < proc->nevents; i++) {
			const struct pa_event *e = &proc->events[i];
			int n;

			if (!pa_events_fits(e, use) ||
			    (!pa_event_opened(e) && use != PA_EVENTS_ANY) ||
			    pa_events_listed(seen, nseen, e) || nseen == 64)
				continue;
			seen[nseen++] = e;
			n = strcmp(e->name, e->spec) ?
				snprintf(buf + len, size - len, "%s%s (%s)", len ? ", " : "",
					 e->name, e->spec) :
				snprintf(buf + len, size - len, "%s%s", len ? ", " : "", e->name);
			if (n < 0 || (size_t)n >= size - len) {
				snprintf(buf + len, size - len, ", ...");
				return;
			}
			len += (size_t)n;
		}
	}
}

/* The first opened sampling event of the processes f selects, NULL if none. */
static const struct pa_event *pa_events_default(const struct pa_run *run,
						const struct pa_filter *f)
{
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		for (size_t i = 0; pa_filter_selects(f, proc) && i < proc->nevents; i++)
			if (pa_event_samples(&proc->events[i]) && pa_event_opened(&proc->events[i]))
				return &proc->events[i];
	}
	return NULL;
}

/* What the processes f selects have under one name. */
struct pa_events_found {
	size_t nprocesses;            /* processes f selects */
	const struct pa_event *fits;  /* an opened event of the kind wanted */
	const struct pa_event *other; /* an event of the other kind */
	const struct pa_event *closed; /* one of the kind wanted that could not be opened */
};

static void pa_events_find(const struct pa_run *run, const struct pa_filter *f,
			   const char *name, enum pa_events_use use,
			   struct pa_events_found *found)
{
	memset(found, 0, sizeof(*found));
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];
		const struct pa_event *e;

		if (!pa_filter_selects(f, proc))
			continue;
		found->nprocesses++;
		e = pa_process_find_event_named(proc, name);
		if (!e)
			continue;
		if (!pa_events_fits(e, use))
			found->other = found->other ? found->other : e;
		else if (!pa_event_opened(e) && use != PA_EVENTS_ANY)
			found->closed = found->closed ? found->closed : e;
		else
			found->fits = found->fits ? found->fits : e;
	}
}

/* The error for a name that selects nothing a report of kind use can show. */
static int pa_events_refuse(const struct pa_run *run, const struct pa_filter *f,
			    const char *name, enum pa_events_use use,
			    const struct pa_events_found *found, struct pa_error *err)
{
	const char *kind = use == PA_EVENTS_COUNTS ? "counting" : "sampling";
	char list[PA_EVENTS_LIST_MAX], status[96];

	pa_events_list(run, f, use, list, sizeof(list));
	if (found->other && use == PA_EVENTS_SAMPLES)
		return pa_error_set(err, -EINVAL, NULL, false, 0,
				    "%s is a counting event: see `pprof-analyze counters` "
				    "(sampling events: %s)", name, list);
	if (found->other)
		return pa_error_set(err, -EINVAL, NULL, false, 0,
				    "%s is a sampling event: see `pprof-analyze top` "
				    "(counting events: %s)", name, list);
	if (found->closed)
		return pa_error_set(err, -EINVAL, NULL, false, 0,
				    "event %s could not be opened (%s): nothing was recorded "
				    "(%s events: %s)", name,
				    pa_event_format_status(found->closed, status, sizeof(status)),
				    kind, list);
	if (use == PA_EVENTS_ANY)
		kind = "recorded";
	return pa_error_set(err, -ENOENT, NULL, false, 0, "no event named %s (%s events: %s)",
			    name, kind, list);
}

int pa_events_choose(const struct pa_run *run, struct pa_filter *f, const char *name,
		     enum pa_events_use use, struct pa_error *err)
{
	struct pa_events_found found;
	const struct pa_event *e;

	f->event_name = NULL;
	f->event = -1;
	if (!name && use != PA_EVENTS_SAMPLES)
		return 0;
	if (!name) {
		e = pa_events_default(run, f);
		if (e)
			f->event_name = e->name;
		else
			f->event = PA_FILTER_NO_EVENT;
		return 0;
	}
	pa_events_find(run, f, name, use, &found);
	if (found.nprocesses && !found.fits)
		return pa_events_refuse(run, f, name, use, &found, err);
	f->event_name = name;
	return 0;
}

/* ---- the header line ---------------------------------------------------- */

bool pa_event_same_settings(const struct pa_event *a, const struct pa_event *b)
{
	uint32_t flags = ~(uint32_t)(PPF_EVENT_UNAVAILABLE | PPF_EVENT_MODE_REFUSED);

	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2 && a->period == b->period &&
	       (a->flags & flags) == (b->flags & flags) && a->precise_ip == b->precise_ip;
}

const struct pa_event *pa_events_shown(const struct pa_run *run,
					      const struct pa_filter *f, bool *differs)
{
	const struct pa_event *first = NULL;

	*differs = false;
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_event *e;

		if (!pa_filter_selects(f, run->processes[p]))
			continue;
		e = pa_filter_find_event(f, run->processes[p]);
		if (e && !first)
			first = e;
		else if (e && !pa_event_same_settings(first, e))
			*differs = true;
	}
	return first;
}

/* Whether f selects a process. */
static bool pa_events_any_process(const struct pa_run *run, const struct pa_filter *f)
{
	for (size_t p = 0; p < run->nprocesses; p++)
		if (pa_filter_selects(f, run->processes[p]))
			return true;
	return false;
}

/* Whether a process f selects has an opened counting event. */
static bool pa_events_counting_only(const struct pa_run *run, const struct pa_filter *f)
{
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		for (size_t i = 0; pa_filter_selects(f, proc) && i < proc->nevents; i++)
			if (!pa_event_samples(&proc->events[i]) && pa_event_opened(&proc->events[i]))
				return true;
	}
	return false;
}

/*
 * The overflows of samples in processes f selects whose event the process
 * does not list (its event.<key> file could not be read: said when read).
 */
static uint64_t pa_events_unknown_samples(const struct pa_run *run, const struct pa_filter *f)
{
	uint64_t n = 0;

	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		for (size_t t = 0; pa_filter_selects(f, proc) && t < proc->nthreads; t++) {
			const struct pa_thread *th = proc->threads[t];

			for (size_t i = 0; i < th->nsamples; i++)
				if (!pa_process_find_event(proc, th->samples[i].event))
					n += th->samples[i].count;
		}
	}
	return n;
}

/* "# event NAME (SPEC): period P (SCOPE)", or what stands for it. */
static void pa_events_header_event(FILE *out, const struct pa_run *run,
				   const struct pa_filter *f)
{
	const struct pa_event *e;
	char period[64];
	bool differs;

	if (!f->event_name && f->event == -1) {
		fprintf(out, "# all events");
		return;
	}
	if (!f->event_name && f->event == PA_FILTER_NO_EVENT) {
		uint64_t unknown = pa_events_unknown_samples(run, f);

		if (unknown) {
			fprintf(out, "# no sampling event is known: %" PRIu64 " samples of events "
				"the logs do not describe (their files could not be read: see the "
				"warnings) are not counted", unknown);
			return;
		}
		fprintf(out, "# %s", !pa_events_any_process(run, f) ? "no process selected" :
			pa_events_counting_only(run, f) ? "no sampling event (counting events "
			"only: see `pprof-analyze counters`)" : "no sampling event was opened");
		return;
	}
	e = pa_events_shown(run, f, &differs);
	if (!e) {
		fprintf(out, "# event %s (not recorded)",
			f->event_name ? f->event_name : "?");
		return;
	}
	fprintf(out, "# event %s", e->name);
	if (strcmp(e->name, e->spec))
		fprintf(out, " (%s)", e->spec);
	if (differs)
		fprintf(out, ": settings differ between processes (see `pprof-analyze events`)");
	else
		fprintf(out, ": %s %s (%s)", e->flags & PPF_EVENT_FREQ ? "frequency" : "period",
			pa_event_format_period(e, period, sizeof(period)), pa_event_scope(e));
}

/* The filters that change what the samples mean: a time window, a thread name. */
static void pa_events_header_filters(FILE *out, const struct pa_filter *f)
{
	const struct pa_window *w = &f->window;

	if (w->on && w->to_ns != UINT64_MAX)
		fprintf(out, ", from %.3f s to %.3f s after each process's start",
			(double)w->from_ns / 1e9, (double)w->to_ns / 1e9);
	else if (w->on)
		fprintf(out, ", from %.3f s after each process's start",
			(double)w->from_ns / 1e9);
	if (f->thread)
		fprintf(out, ", threads named %s", f->thread);
}

void pa_events_header(FILE *out, const struct pa_run *run, const struct pa_filter *f,
		      uint64_t samples, bool with_counts, size_t nprocesses,
		      size_t nthreads, uint64_t lost)
{
	uint64_t est = with_counts ? pa_before_run_samples(run, f) : 0;
	bool differs;
	const struct pa_event *e = f->event_name || (f->event != -1 &&
				   f->event != PA_FILTER_NO_EVENT) ?
				   pa_events_shown(run, f, &differs) : NULL;
	char n[32];

	pa_events_header_event(out, run, f);
	if (e && !differs && pa_event_weighted(e))
		fprintf(out, ", %s events in its samples (each weighed by its period)",
			pa_events_format_count(samples, n, sizeof(n)));
	else
		fprintf(out, ", %s sample%s", pa_events_format_count(samples, n, sizeof(n)),
			samples == 1 ? "" : "s");
	if (est)
		fprintf(out, " (%s estimated for the time before profiling)",
			pa_events_format_count(est, n, sizeof(n)));
	if (with_counts)
		fprintf(out, ", %zu process%s, %zu thread%s", nprocesses,
			nprocesses == 1 ? "" : "es", nthreads, nthreads == 1 ? "" : "s");
	if (lost)
		fprintf(out, ", %s lost", pa_events_format_count(lost, n, sizeof(n)));
	pa_events_header_filters(out, f);
	fputc('\n', out);
	pa_coverage_notes(out, "# ", run, f);
	if (e && (e->flags & PPF_EVENT_WALL))
		pa_wall_notes(out, "# ", run, f);
}
