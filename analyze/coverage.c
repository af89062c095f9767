/* coverage: what the samples cover of the CPU time; see coverage.h. */
#include "coverage.h"

#include <inttypes.h>
#include <string.h>

#include "eventinfo.h"

/* How many poorly covered threads the note names; the others are counted. */
#define PA_COVERAGE_NAMED 3
/* Kernel time not sampled is noted from this share of the CPU time up. */
#define PA_COVERAGE_KERNEL_SHARE 0.1

/* Whether e counts CPU time at a fixed period (its samples stand for time). */
static bool pa_coverage_timed(const struct pa_event *e)
{
	return pa_event_samples(e) && (e->flags & PPF_EVENT_TIME_NS) &&
	       !(e->flags & PPF_EVENT_FREQ) && e->period;
}

/* Whether e counts user time only: the kernel's is not sampled. */
static bool pa_coverage_user_only(const struct pa_event *e)
{
	return (e->flags & PPF_EVENT_EXCLUDE_KERNEL) && !(e->flags & PPF_EVENT_EXCLUDE_USER);
}

/* The part of c's CPU time that e counts (its scope); 0 when not known. */
static uint64_t pa_coverage_counted(const struct pa_event *e, const struct pa_coverage *c)
{
	bool user = !(e->flags & PPF_EVENT_EXCLUDE_USER);
	bool kernel = !(e->flags & PPF_EVENT_EXCLUDE_KERNEL);

	if (user && kernel)
		return c->split ? c->user_ns + c->system_ns : c->cpu_ns;
	if (!c->split)
		return 0;
	return user ? c->user_ns : kernel ? c->system_ns : 0;
}

/* c's share of the time e counts, from c's samples (known or not) and CPU times. */
static void pa_coverage_share(const struct pa_event *e, bool samples_known,
			      struct pa_coverage *c)
{
	c->counted_ns = e && samples_known && pa_coverage_timed(e) ?
			pa_coverage_counted(e, c) : 0;
	c->has_share = c->counted_ns > 0;
	c->share = c->has_share ?
		   (double)c->samples * (double)e->period / (double)c->counted_ns : 0.0;
}

/*
 * t's samples of event index idx in its whole log, into *n: its writer's
 * count (PPF_REC_THREAD_EVENT), else the samples read. false when neither
 * is known (a time window kept the others from being read).
 */
static bool pa_coverage_samples(const struct pa_filter *f, const struct pa_process *proc,
				const struct pa_thread *t, uint32_t idx, uint64_t *n)
{
	const struct pa_thread_event *te = pa_thread_find_event(t, idx);
	struct pa_filter all = PA_FILTER_ALL;

	*n = 0;
	if (te) {
		*n = te->samples;
		return true;
	}
	if (f->window.on)
		return false;
	all.event = idx;
	*n = pa_filter_count_samples(&all, proc, t);
	return true;
}

void pa_coverage_thread(const struct pa_filter *f, const struct pa_process *proc,
			const struct pa_thread *t, struct pa_coverage *out)
{
	const struct pa_event *e = pa_filter_find_event(f, proc);

	*out = (struct pa_coverage){ .cpu_ns = t->cpu_ns, .user_ns = t->user_ns,
				     .system_ns = t->system_ns };
	out->split = t->user_ns || t->system_ns;
	if (e)
		out->samples_known = pa_coverage_samples(f, proc, t, e->index, &out->samples);
	pa_coverage_share(e, out->samples_known, out);
}

void pa_coverage_process(const struct pa_filter *f, const struct pa_process *proc,
			 struct pa_coverage *out)
{
	const struct pa_event *e = pa_filter_find_event(f, proc);
	bool own = !pa_filter_by_thread(f) && proc->ended && (proc->user_ns || proc->system_ns);

	*out = (struct pa_coverage){ .split = true, .samples_known = e != NULL };
	for (size_t i = 0; i < proc->nthreads; i++) {
		const struct pa_thread *t = proc->threads[i];
		struct pa_coverage c;

		if (!pa_filter_selects_thread(f, t))
			continue;
		pa_coverage_thread(f, proc, t, &c);
		out->samples_known = out->samples_known && c.samples_known;
		out->samples += c.samples;
		out->cpu_ns += c.cpu_ns;
		out->user_ns += c.user_ns;
		out->system_ns += c.system_ns;
		/* A thread whose time is not known at all adds nothing either way. */
		out->split = out->split && (c.split || !c.cpu_ns);
	}
	if (own) {
		out->user_ns = proc->user_ns;
		out->system_ns = proc->system_ns;
		out->cpu_ns = proc->user_ns + proc->system_ns;
	}
	out->split = out->split && out->cpu_ns;
	pa_coverage_share(e, out->samples_known, out);
}

/* Seconds in buf ("%.3f"), or "-" when not known. */
static const char *pa_coverage_seconds(bool known, uint64_t ns, char *buf, size_t size)
{
	if (known)
		snprintf(buf, size, "%.3f", (double)ns / 1e9);
	else
		snprintf(buf, size, "-");
	return buf;
}

char *pa_coverage_format(const struct pa_coverage *c, char *buf, size_t size)
{
	static const struct pa_coverage none;
	char cpu[24], user[24], sys[24], share[24] = "-";

	if (!c)
		c = &none;
	if (c->has_share)
		snprintf(share, sizeof(share), "%.1f%%", c->share * 100);
	snprintf(buf, size, "%10s %10s %10s %7s", pa_coverage_seconds(c->cpu_ns, c->cpu_ns, cpu,
								      sizeof(cpu)),
		 pa_coverage_seconds(c->split, c->user_ns, user, sizeof(user)),
		 pa_coverage_seconds(c->split, c->system_ns, sys, sizeof(sys)), share);
	return buf;
}

/* "key": seconds, or null when not known. */
static void pa_coverage_json_seconds(struct pa_json *j, const char *key, bool known,
				     uint64_t ns)
{
	pa_json_key(j, key);
	if (known)
		pa_json_double(j, (double)ns / 1e9);
	else
		pa_json_null(j);
}

void pa_coverage_json(struct pa_json *j, const struct pa_coverage *c)
{
	static const struct pa_coverage none;

	if (!c)
		c = &none;
	pa_coverage_json_seconds(j, "user_s", c->split, c->user_ns);
	pa_coverage_json_seconds(j, "system_s", c->split, c->system_ns);
	pa_json_key(j, "coverage");
	if (c->has_share)
		pa_json_double(j, c->share);
	else
		pa_json_null(j);
}

/* ---- the notes ------------------------------------------------------------ */

/* A thread the note may name. */
struct pa_coverage_poor {
	const struct pa_process *proc;
	const struct pa_thread *t;
	struct pa_coverage c;
	uint64_t missed_ns; /* the time it counts that its samples do not cover */
};

/* What the notes say, gathered over the threads a report covers. */
struct pa_coverage_tally {
	const struct pa_filter *f;
	size_t nbusy;      /* threads with more CPU time than PA_COVERAGE_NOTE_CPU_NS
			      whose coverage is known */
	size_t npoor;      /* of those, the ones covered below PA_COVERAGE_NOTE_BELOW */
	struct pa_coverage_poor worst[PA_COVERAGE_NAMED]; /* those with the most
							     time missed, most first */
	const struct pa_event *user_only; /* the first event seen that excludes the kernel */
	uint64_t kernel_ns; /* kernel time of the threads whose event excludes it */
	uint64_t cpu_ns;    /* their CPU time */
};

/* Keeps p among tally's worst when it missed more than one of them. */
static void pa_coverage_rank(struct pa_coverage_tally *tally, const struct pa_coverage_poor *p)
{
	size_t n = tally->npoor < PA_COVERAGE_NAMED ? tally->npoor : PA_COVERAGE_NAMED, at = n;

	while (at > 0 && tally->worst[at - 1].missed_ns < p->missed_ns)
		at--;
	if (at >= PA_COVERAGE_NAMED)
		return;
	if (n == PA_COVERAGE_NAMED)
		n--;
	memmove(&tally->worst[at + 1], &tally->worst[at], (n - at) * sizeof(*p));
	tally->worst[at] = *p;
}

static void pa_coverage_tally_thread(struct pa_coverage_tally *tally,
				     const struct pa_process *proc, const struct pa_thread *t)
{
	const struct pa_event *e = pa_filter_find_event(tally->f, proc);
	struct pa_coverage_poor p = { .proc = proc, .t = t };

	pa_coverage_thread(tally->f, proc, t, &p.c);
	if (e && p.c.split && pa_coverage_user_only(e) && pa_coverage_timed(e)) {
		tally->user_only = tally->user_only ? tally->user_only : e;
		tally->kernel_ns += p.c.system_ns;
		tally->cpu_ns += p.c.user_ns + p.c.system_ns;
	}
	if (!p.c.has_share || p.c.cpu_ns <= PA_COVERAGE_NOTE_CPU_NS)
		return;
	tally->nbusy++;
	if (p.c.share >= PA_COVERAGE_NOTE_BELOW)
		return;
	p.missed_ns = (uint64_t)((double)p.c.counted_ns * (1.0 - p.c.share));
	pa_coverage_rank(tally, &p);
	tally->npoor++;
}

/* ", " between the parts of a list, none before the first. */
static const char *pa_coverage_sep(bool *first)
{
	bool was = *first;

	*first = false;
	return was ? "" : ", ";
}

/*
 * What p's log says of why it was covered so little: overflows throttled
 * or lost, samples that came late (the thread blocked the signal), a log
 * that filled, or nothing.
 */
static void pa_coverage_why(FILE *out, const struct pa_filter *f,
			    const struct pa_coverage_poor *p)
{
	uint64_t throttled = pa_filter_count_throttled(f, p->proc, p->t);
	uint64_t lost = pa_filter_count_lost(f, p->proc, p->t), late = 0;
	int64_t idx = pa_filter_event(f, p->proc);
	bool first = true;

	for (size_t i = 0; i < p->t->nsamples; i++)
		if ((p->t->samples[i].flags & PPF_SAMPLE_LATE) && p->t->samples[i].event == idx)
			late += p->t->samples[i].count;
	fputs(" (", out);
	if (throttled)
		fprintf(out, "%s%" PRIu64 " throttled", pa_coverage_sep(&first), throttled);
	if (lost)
		fprintf(out, "%s%" PRIu64 " lost", pa_coverage_sep(&first), lost);
	if (late)
		fprintf(out, "%s%" PRIu64 " late: it blocked the signal", pa_coverage_sep(&first),
			late);
	if (p->t->full.full)
		fprintf(out, "%sits log filled", pa_coverage_sep(&first));
	if (first)
		fputs("its log does not say why", out);
	fputc(')', out);
}

/* "coverage below 90%: ..." when a busy thread is covered so little. */
static size_t pa_coverage_note_poor(FILE *out, const char *prefix,
				    const struct pa_coverage_tally *tally)
{
	const struct pa_event *e;

	if (!tally->npoor)
		return 0;
	fprintf(out, "%scoverage below %.0f%%: %zu of %zu thread%s with over %.1f s of CPU "
		"time: ", prefix, PA_COVERAGE_NOTE_BELOW * 100, tally->npoor, tally->nbusy,
		tally->nbusy == 1 ? "" : "s", (double)PA_COVERAGE_NOTE_CPU_NS / 1e9);
	for (size_t i = 0; i < tally->npoor && i < PA_COVERAGE_NAMED; i++) {
		const struct pa_coverage_poor *p = &tally->worst[i];

		e = pa_filter_find_event(tally->f, p->proc);
		fprintf(out, "%s%" PRIu32 "/%" PRIu32 " %s %.1f%% of %.3f s of %s time sampled",
			i ? "; " : "", p->t->pid, p->t->tid, p->t->name[0] ? p->t->name : "-",
			p->c.share * 100, (double)p->c.counted_ns / 1e9,
			pa_coverage_user_only(e) ? "user" : pa_event_scope(e));
		pa_coverage_why(out, tally->f, p);
	}
	if (tally->npoor > PA_COVERAGE_NAMED)
		fprintf(out, "; and %zu more (`pprof-analyze threads` lists them)",
			tally->npoor - PA_COVERAGE_NAMED);
	fputc('\n', out);
	return 1;
}

/* "kernel time not sampled: ..." when it is a tenth of the CPU time or more. */
static size_t pa_coverage_note_kernel(FILE *out, const char *prefix,
				      const struct pa_coverage_tally *tally)
{
	if (!tally->user_only || tally->kernel_ns <= PA_COVERAGE_NOTE_CPU_NS ||
	    (double)tally->kernel_ns < PA_COVERAGE_KERNEL_SHARE * (double)tally->cpu_ns)
		return 0;
	fprintf(out, "%skernel time not sampled: %.3f s of the %.3f s of CPU time (%.0f%%) "
		"ran in the kernel, which %s does not count; to sample it, set exclude_kernel "
		"= no in its section of the configuration (which the kernel allows with "
		"perf_event_paranoid <= 1, or CAP_PERFMON)\n", prefix,
		(double)tally->kernel_ns / 1e9, (double)tally->cpu_ns / 1e9,
		100.0 * (double)tally->kernel_ns / (double)tally->cpu_ns, tally->user_only->name);
	return 1;
}

size_t pa_coverage_notes(FILE *out, const char *prefix, const struct pa_run *run,
			 const struct pa_filter *f)
{
	struct pa_filter g = *f;
	struct pa_coverage_tally tally = { .f = &g };

	/* Every event (events, counters): the first sampling event's samples. */
	if (!g.event_name && g.event == -1 &&
	    pa_events_choose(run, &g, NULL, PA_EVENTS_SAMPLES, NULL) < 0)
		return 0;
	if (!g.event_name && g.event == PA_FILTER_NO_EVENT)
		return 0;
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		if (!pa_filter_selects(&g, proc))
			continue;
		for (size_t i = 0; i < proc->nthreads; i++)
			if (pa_filter_selects_thread(&g, proc->threads[i]))
				pa_coverage_tally_thread(&tally, proc, proc->threads[i]);
	}
	return pa_coverage_note_poor(out, prefix, &tally) +
	       pa_coverage_note_kernel(out, prefix, &tally);
}
