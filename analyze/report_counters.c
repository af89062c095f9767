/* report_counters: totals of counting events, per process and per thread. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "counters.h"
#include "eventinfo.h"
#include "ident.h"
#include "jsondoc.h"

#define PA_REPORT_COUNTERS_LABEL_MAX (2 * PPF_NAME_MAX + 4)

/* Where a line's count comes from, and how the line is laid out. */
struct pa_report_counters_scope {
	const struct pa_process *proc;
	const struct pa_filter *f;
	const struct pa_thread *thread; /* NULL: the process's selected threads */
	int width; /* of the event column */
};

/* Threads with a count shown as "-", by reason, for the notes. */
struct pa_report_counters_tally {
	size_t no_counter;
	size_t not_counted;
	size_t missing;
	size_t late;
};

/* Whether e of proc is a counting event the report shows. */
static bool pa_report_counters_shows(const struct pa_filter *f, const struct pa_process *proc,
				     const struct pa_event *e)
{
	int64_t idx = pa_filter_event(f, proc);

	return !pa_event_samples(e) && pa_event_opened(e) &&
	       (idx == -1 || (idx >= 0 && e->index == (uint64_t)idx));
}

/* "name", or "name (spec)" when the spec says more. */
static char *pa_report_counters_label(const struct pa_event *e, char *buf, size_t size)
{
	if (strcmp(e->name, e->spec))
		snprintf(buf, size, "%s (%s)", e->name, e->spec);
	else
		snprintf(buf, size, "%s", e->name);
	return buf;
}

static void pa_report_counters_count(const struct pa_report_counters_scope *s, uint32_t index,
				     struct pa_count *c)
{
	struct pa_count one;

	if (s->thread) {
		pa_count_thread(s->thread, index, c);
		return;
	}
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < s->proc->nthreads; i++) {
		if (!pa_filter_selects_thread(s->f, s->proc->threads[i]))
			continue;
		pa_count_thread(s->proc->threads[i], index, &one);
		pa_count_add(c, &one);
	}
}

static uint64_t pa_report_counters_round(double v)
{
	return v >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)(v + 0.5);
}

/*
 * Numerator and denominator of a ratio over s's threads that know both
 * counts (a process's other threads would skew it); false if none does.
 */
static bool pa_report_counters_pair(const struct pa_report_counters_scope *s,
				    uint32_t num, uint32_t den, double *n, double *d)
{
	struct pa_count cn, cd;
	bool any = false;

	*n = *d = 0;
	for (size_t i = 0; i < s->proc->nthreads; i++) {
		const struct pa_thread *t = s->proc->threads[i];

		if ((s->thread && t != s->thread) || !pa_filter_selects_thread(s->f, t))
			continue;
		pa_count_thread(t, num, &cn);
		pa_count_thread(t, den, &cd);
		if (!pa_count_known(&cn) || !pa_count_known(&cd))
			continue;
		*n += cn.estimate;
		*d += cd.estimate;
		any = true;
	}
	return any && *d > 0;
}

/* "# 1.50 instructions per cycle" when e heads a ratio both counts of which are known. */
static void pa_report_counters_ratio(const struct pa_report_counters_scope *s,
				     const struct pa_event *e, char *buf, size_t size)
{
	struct pa_ratio r;
	double n, d;

	buf[0] = '\0';
	if (!pa_counters_ratio(s->proc, e, &r) ||
	    !pa_report_counters_pair(s, e->index, r.den->index, &n, &d))
		return;
	if (r.percent)
		snprintf(buf, size, "# %.2f%% %s", 100.0 * n / d, r.what);
	else
		snprintf(buf, size, "# %.2f %s", n / d, r.what);
}

/* Why a count is not known, for the note in parentheses. */
static const char *pa_report_counters_why(const struct pa_process *proc,
					  const struct pa_count *c)
{
	if (c->missing)
		return proc->replaced ? "no totals: exec replaced the process image" :
		       "no totals: the log ends before the thread did";
	if (c->no_counter)
		return "no counter";
	if (c->not_counted)
		return "not counted: the counter never ran";
	return "no threads";
}

/* The note of pa_report_counters_note before what it says of late counters. */
static void pa_report_counters_note_main(const struct pa_report_counters_scope *s,
					 const struct pa_count *c, char *buf, size_t size)
{
	size_t total = c->counted + c->no_counter + c->not_counted + c->missing;
	bool partial = pa_count_known(c) && c->counted < total;
	double pct = 100.0 * pa_count_share(c);

	if (!pa_count_known(c))
		snprintf(buf, size, "(%s)", pa_report_counters_why(s->proc, c));
	else if (pa_count_scaled(c) && partial)
		snprintf(buf, size, "(scaled, counted %.1f%% of the time; %zu of %zu threads)",
			 pct, c->counted, total);
	else if (pa_count_scaled(c))
		snprintf(buf, size, "(scaled, counted %.1f%% of the time)", pct);
	else if (partial)
		snprintf(buf, size, "(%zu of %zu threads)", c->counted, total);
	else
		buf[0] = '\0';
}

/*
 * "(scaled, counted 62.5% of the time; 2 of 3 threads)", or what applies of
 * it, then "; from its first sample" (a thread's) or "; 1 thread from its
 * first sample" when counters were opened late.
 */
static void pa_report_counters_note(const struct pa_report_counters_scope *s,
				    const struct pa_count *c, char *buf, size_t size)
{
	size_t len;

	pa_report_counters_note_main(s, c, buf, size);
	len = strlen(buf);
	if (!c->late || len + 2 >= size)
		return;
	if (len)
		buf[len - 1] = '\0'; /* the ')' */
	if (s->thread)
		snprintf(buf + strlen(buf), size - strlen(buf), "%sfrom its first sample)",
			 len ? "; " : "(");
	else
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%zu thread%s from %s first sample)",
			 len ? "; " : "(", c->late, c->late == 1 ? "" : "s",
			 c->late == 1 ? "its" : "their");
}

static void pa_report_counters_line(FILE *out, const struct pa_report_counters_scope *s,
				    const struct pa_event *e)
{
	char value[32] = "-", label[PA_REPORT_COUNTERS_LABEL_MAX], ratio[96], note[128];
	struct pa_count c;

	pa_report_counters_count(s, e->index, &c);
	if (pa_count_known(&c))
		pa_events_format_count(pa_report_counters_round(c.estimate), value, sizeof(value));
	pa_report_counters_label(e, label, sizeof(label));
	pa_report_counters_ratio(s, e, ratio, sizeof(ratio));
	if (!ratio[0] && pa_count_known(&c) && (e->flags & PPF_EVENT_TIME_NS))
		snprintf(ratio, sizeof(ratio), "# %.3f ms", c.estimate / 1e6);
	pa_report_counters_note(s, &c, note, sizeof(note));
	fprintf(out, "%18s  %-*s", value,
		ratio[0] || note[0] ? s->width : 0, label);
	if (ratio[0])
		fprintf(out, "  %s", ratio);
	if (note[0])
		fprintf(out, "  %s", note);
	fputc('\n', out);
}

/* The lines of every event shown, for s's thread or process. */
static void pa_report_counters_lines(FILE *out, const struct pa_report_counters_scope *s)
{
	for (size_t i = 0; i < s->proc->nevents; i++)
		if (pa_report_counters_shows(s->f, s->proc, &s->proc->events[i]))
			pa_report_counters_line(out, s, &s->proc->events[i]);
}

static size_t pa_report_counters_nthreads(const struct pa_process *proc,
					  const struct pa_filter *f)
{
	size_t n = 0;

	for (size_t i = 0; i < proc->nthreads; i++)
		n += pa_filter_selects_thread(f, proc->threads[i]);
	return n;
}

/* One process: its total, then each selected thread. */
static void pa_report_counters_block(FILE *out, const struct pa_process *proc,
				     const struct pa_filter *f, int width,
				     const struct pa_ident_run *id)
{
	struct pa_report_counters_scope s = { .proc = proc, .f = f, .width = width };
	size_t n = pa_report_counters_nthreads(proc, f);
	char tag[96];

	/* "pid 6 (app, rank2@node2)": the pid alone may be another host's. */
	pa_ident_tag(id, proc, tag, sizeof(tag));
	fprintf(out, "pid %" PRIu32 " (%s%s%s), %zu thread%s:\n", proc->pid,
		pa_process_exe_base(proc), tag[0] ? ", " : "", tag, n, n == 1 ? "" : "s");
	pa_report_counters_lines(out, &s);
	for (size_t i = 0; i < proc->nthreads; i++) {
		const struct pa_thread *t = proc->threads[i];

		if (!pa_filter_selects_thread(f, t))
			continue;
		fprintf(out, "  tid %" PRIu32 " (%s):\n", t->tid, t->name[0] ? t->name : "-");
		s.thread = t;
		pa_report_counters_lines(out, &s);
	}
}

/* Whether proc has a counting event the report shows. */
static bool pa_report_counters_has(const struct pa_process *proc, const struct pa_filter *f)
{
	for (size_t i = 0; i < proc->nevents; i++)
		if (pa_report_counters_shows(f, proc, &proc->events[i]))
			return true;
	return false;
}

/* Count thread t in tally once per reason some shown count of it is unknown. */
static void pa_report_counters_tally_thread(const struct pa_process *proc,
					    const struct pa_filter *f,
					    const struct pa_thread *t,
					    struct pa_report_counters_tally *tally)
{
	struct pa_count sum = { 0 }, one;

	for (size_t i = 0; i < proc->nevents; i++) {
		if (!pa_report_counters_shows(f, proc, &proc->events[i]))
			continue;
		pa_count_thread(t, proc->events[i].index, &one);
		pa_count_add(&sum, &one);
	}
	tally->no_counter += sum.no_counter > 0;
	tally->not_counted += sum.not_counted > 0;
	tally->missing += sum.missing > 0;
	tally->late += sum.late > 0;
}

/* What the header counts: distinct event names, processes and threads shown. */
struct pa_report_counters_totals {
	size_t nevents;
	size_t nprocesses;
	size_t nthreads;
	int width;
	struct pa_report_counters_tally tally;
};

/* Whether an earlier shown event of the processes before p (or of p before i) has e's name. */
static bool pa_report_counters_seen(const struct pa_run *run, const struct pa_filter *f,
				    size_t p, size_t i, const struct pa_event *e)
{
	for (size_t q = 0; q <= p; q++) {
		const struct pa_process *proc = run->processes[q];
		size_t end = q == p ? i : proc->nevents;

		for (size_t j = 0; pa_filter_selects(f, proc) && j < end; j++)
			if (pa_report_counters_shows(f, proc, &proc->events[j]) &&
			    strcmp(proc->events[j].name, e->name) == 0)
				return true;
	}
	return false;
}

static void pa_report_counters_sum(const struct pa_run *run, const struct pa_filter *f,
				   struct pa_report_counters_totals *tot)
{
	char label[PA_REPORT_COUNTERS_LABEL_MAX];

	memset(tot, 0, sizeof(*tot));
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		if (!pa_filter_selects(f, proc) || !pa_report_counters_has(proc, f))
			continue;
		tot->nprocesses++;
		for (size_t i = 0; i < proc->nevents; i++) {
			const struct pa_event *e = &proc->events[i];
			int w;

			if (!pa_report_counters_shows(f, proc, e))
				continue;
			tot->nevents += !pa_report_counters_seen(run, f, p, i, e);
			w = (int)strlen(pa_report_counters_label(e, label, sizeof(label)));
			tot->width = w > tot->width ? w : tot->width;
		}
		for (size_t i = 0; i < proc->nthreads; i++) {
			if (!pa_filter_selects_thread(f, proc->threads[i]))
				continue;
			tot->nthreads++;
			pa_report_counters_tally_thread(proc, f, proc->threads[i], &tot->tally);
		}
	}
}

/*
 * One comment line per counting event (by name) that could not be opened;
 * out NULL: only count them.
 */
static size_t pa_report_counters_unavailable(FILE *out, const struct pa_run *run,
					     const struct pa_filter *f)
{
	const struct pa_event *seen[64];
	char label[PA_REPORT_COUNTERS_LABEL_MAX], status[96];
	size_t n = 0;

	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];
		int64_t idx = pa_filter_event(f, proc);

		for (size_t i = 0; pa_filter_selects(f, proc) && i < proc->nevents; i++) {
			const struct pa_event *e = &proc->events[i];
			bool dup = false;

			if (pa_event_samples(e) || pa_event_opened(e) ||
			    (idx != -1 && (idx < 0 || e->index != (uint64_t)idx)))
				continue;
			for (size_t k = 0; k < n && !dup; k++)
				dup = strcmp(seen[k]->name, e->name) == 0;
			if (dup || n == 64)
				continue;
			seen[n++] = e;
			if (out)
				fprintf(out, "# %s: %s\n",
					pa_report_counters_label(e, label, sizeof(label)),
					pa_event_format_status(e, status, sizeof(status)));
		}
	}
	return n;
}

static void pa_report_counters_notes(FILE *out, const struct pa_report_counters_tally *t)
{
	if (t->no_counter)
		fprintf(out, "# note: %zu thread%s had no counter for some event (shown as \"-\"): "
			"it could not be opened in that thread, or the thread was found only "
			"at its first sample\n", t->no_counter, t->no_counter == 1 ? "" : "s");
	if (t->late)
		fprintf(out, "# note: %zu thread%s counted from %s first sample on: the profiler "
			"did not see %s start (older than its constructor, or made by raw clone()), "
			"so %s counters were opened then; what came before is not counted\n",
			t->late, t->late == 1 ? " was" : "s were", t->late == 1 ? "its" : "their",
			t->late == 1 ? "it" : "them", t->late == 1 ? "its" : "their");
	if (t->not_counted)
		fprintf(out, "# note: %zu thread%s had a counter that never ran (shown as \"-\"): "
			"the PMU was busy with other events\n", t->not_counted,
			t->not_counted == 1 ? "" : "s");
	if (t->missing)
		fprintf(out, "# note: %zu thread%s left no totals (shown as \"-\"): the log ends "
			"before the thread did (killed, still running, or exec)\n", t->missing,
			t->missing == 1 ? "" : "s");
}

/*
 * Write the totals of the opened counting events that filter selects (its
 * pid, exe and tid; its event: one event, or all of them) in the style of
 * perf stat:
 *
 *   # counters: 2 events, 1 process, 3 threads (multiplexed counters scaled: ...)
 *   pid 4242 (app), 3 threads:
 *        3,000,000,000  instructions  # 1.50 instructions per cycle
 *        2,000,000,000  cycles        (scaled, counted 62.5% of the time)
 *     tid 4242 (main):
 *        1,000,000,000  instructions  # 1.00 instructions per cycle
 *   ...
 *
 * A process's line is the sum of its selected threads' (see counters.h);
 * "-" stands for a count that is not known (no counter in that thread, a
 * counter that never ran, no totals because the log ends first), with the
 * reason in parentheses and the threads counted in a note at the end.
 * Counting events that could not be opened are listed in comment lines.
 * With no counting event to show, a single comment line says so.
 * Returns 0, or -EIO on a write error.
 */
static int pa_report_counters_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_filter *filter = ctx->filter;
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;
	struct pa_report_counters_totals tot;
	struct pa_ident_run id;

	pa_report_counters_sum(run, &f, &tot);
	if (!tot.nevents) {
		fprintf(out, "%s\n", pa_report_counters_unavailable(NULL, run, &f) ?
			"# no counting event could be opened in the selected processes:" :
			"# no counting events in the selected processes (configure them with "
			"[count NAME] sections)");
		pa_report_counters_unavailable(out, run, &f);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "# counters: %zu event%s, %zu process%s, %zu thread%s (a multiplexed "
		"counter is scaled: value x time enabled / time running)\n", tot.nevents,
		tot.nevents == 1 ? "" : "s", tot.nprocesses, tot.nprocesses == 1 ? "" : "es",
		tot.nthreads, tot.nthreads == 1 ? "" : "s");
	pa_report_counters_unavailable(out, run, &f);
	pa_ident_scan(run, &id);
	for (size_t p = 0; p < run->nprocesses; p++)
		if (pa_filter_selects(&f, run->processes[p]) &&
		    pa_report_counters_has(run->processes[p], &f))
			pa_report_counters_block(out, run->processes[p], &f, tot.width, &id);
	pa_report_counters_notes(out, &tot.tally);
	return ferror(out) ? -EIO : 0;
}

/* ---- --format json ---------------------------------------------------------- */

/* One row: event e's count for s's thread, or s's process when s->thread is NULL. */
static void pa_report_counters_json_row(struct pa_json *j, const struct pa_report_counters_scope *s,
					const struct pa_event *e)
{
	struct pa_count c;
	struct pa_ratio r;
	double n, d;
	bool known;

	pa_report_counters_count(s, e->index, &c);
	known = pa_count_known(&c);
	pa_json_object_begin(j);
	pa_json_key_uint(j, "pid", s->proc->pid);
	pa_json_key(j, "tid");
	if (s->thread)
		pa_json_uint(j, s->thread->tid);
	else
		pa_json_null(j);
	pa_json_key_string(j, "name", s->thread ? (s->thread->name[0] ? s->thread->name : NULL) :
			   pa_process_exe_base(s->proc));
	pa_json_key_string(j, "event", e->name);
	pa_json_key_string(j, "spec", e->spec);
	pa_json_key(j, "value");
	if (known)
		pa_json_uint(j, pa_report_counters_round(c.estimate));
	else
		pa_json_null(j);
	pa_json_key_uint(j, "raw", c.raw);
	pa_json_key_uint(j, "time_enabled", c.enabled);
	pa_json_key_uint(j, "time_running", c.running);
	pa_json_key_bool(j, "scaled", pa_count_scaled(&c));
	pa_json_key_double(j, "counted_share", pa_count_share(&c));
	pa_json_key_uint(j, "threads_counted", c.counted);
	pa_json_key_uint(j, "threads_counted_late", c.late);
	pa_json_key_string(j, "unknown_because", known ? NULL : pa_report_counters_why(s->proc, &c));
	if (pa_counters_ratio(s->proc, e, &r) &&
	    pa_report_counters_pair(s, e->index, r.den->index, &n, &d)) {
		pa_json_key_double(j, "ratio", r.percent ? 100.0 * n / d : n / d);
		pa_json_key_string(j, "ratio_of", r.what);
		pa_json_key_bool(j, "ratio_percent", r.percent);
	} else {
		pa_json_key_null(j, "ratio");
		pa_json_key_null(j, "ratio_of");
		pa_json_key_null(j, "ratio_percent");
	}
	pa_ident_json(j, s->proc);
	pa_json_object_end(j);
}

/* The rows of every event shown, for s's thread or process. */
static void pa_report_counters_json_rows(struct pa_json *j, const struct pa_report_counters_scope *s)
{
	for (size_t i = 0; i < s->proc->nevents; i++)
		if (pa_report_counters_shows(s->f, s->proc, &s->proc->events[i]))
			pa_report_counters_json_row(j, s, &s->proc->events[i]);
}

/*
 * The same as JSON (--format json): the common opening (jsondoc.h;
 * "header" is null), then "rows": for each selected process, one row per
 * counting event shown with "tid": null (the process total), then the same
 * rows for each selected thread. A row: pid, tid, name (executable or
 * thread name), event, spec, value (the scaled estimate, rounded; null when
 * not known), raw, time_enabled, time_running, scaled, counted_share,
 * threads_counted, threads_counted_late (of them, counted from their
 * first sample on), unknown_because (null when known), ratio, ratio_of,
 * ratio_percent (null when the event heads no ratio). Returns 0, -ENOMEM or
 * -EIO.
 */
static int pa_report_counters_write_json(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_filter *filter = ctx->filter;
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;
	struct pa_jsondoc_counts c = { .no_header = true };
	struct pa_json *j;
	int ret;

	for (size_t p = 0; p < run->nprocesses; p++)
		if (pa_filter_selects(&f, run->processes[p]) &&
		    pa_report_counters_has(run->processes[p], &f)) {
			c.nprocesses++;
			c.nthreads += pa_report_counters_nthreads(run->processes[p], &f);
		}
	ret = pa_jsondoc_begin(out, "counters", run, &f, &c, &j);
	if (ret < 0)
		return ret;
	pa_json_key_array(j, "rows");
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];
		struct pa_report_counters_scope s = { .proc = proc, .f = &f };

		if (!pa_filter_selects(&f, proc) || !pa_report_counters_has(proc, &f))
			continue;
		pa_report_counters_json_rows(j, &s);
		for (size_t i = 0; i < proc->nthreads; i++) {
			if (!pa_filter_selects_thread(&f, proc->threads[i]))
				continue;
			s.thread = proc->threads[i];
			pa_report_counters_json_rows(j, &s);
		}
	}
	pa_json_array_end(j);
	return pa_jsondoc_end(j);
}

const struct pa_report pa_report_counters = {
	.name = "counters",
	.usage = "DIR [OPTIONS]",
	.help = "Totals of the counting events per process and per thread,\n"
		"scaled when the kernel multiplexed the counter (value x time\n"
		"enabled / time running, shown as 'scaled, counted N% of the\n"
		"time'), with instructions per cycle and the cache and branch\n"
		"miss rates where both counts exist. '-': not known (the note\n"
		"in parentheses says why). 'from its first sample': a thread\n"
		"the profiler did not see start (older than its constructor,\n"
		"or raw clone()) counted from then on. Without counting events\n"
		"it says so in one line and exits 0.\n",
	.use = PA_EVENTS_COUNTS,
	.needs = PA_REPORT_NEEDS_RUN,
	.notes_apart = true,
	.write = pa_report_counters_write,
	.write_json = pa_report_counters_write_json,
};
