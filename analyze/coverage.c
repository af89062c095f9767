/* coverage: what the samples cover of the CPU time; see coverage.h. */
#include "coverage.h"

#include <inttypes.h>
#include <string.h>

#include "eventinfo.h"
#include "ident.h"
#include "wall.h"

/* How many poorly covered threads the note names; the others are counted. */
#define PA_COVERAGE_NAMED 3
/* Kernel time not sampled is noted from this share of the CPU time up. */
#define PA_COVERAGE_KERNEL_SHARE 0.1
/*
 * The kernel's clock tick at its coarsest in common builds (HZ = 250): it
 * splits a thread's CPU time between user and system by the ticks that
 * find it in each (pa_coverage_short).
 */
#define PA_COVERAGE_TICK_NS 4000000.0

/* Whether e counts CPU time at a fixed period (its samples stand for time). */
static bool pa_coverage_timed(const struct pa_event *e)
{
	return (e->flags & PPF_EVENT_TIME_NS) && pa_event_sample_period(e);
}

/* Whether e counts user time only: the kernel's is not sampled. */
static bool pa_coverage_user_only(const struct pa_event *e)
{
	return (e->flags & PPF_EVENT_EXCLUDE_KERNEL) && !(e->flags & PPF_EVENT_EXCLUDE_USER);
}

/*
 * The part of c's CPU time that e counts (its scope), less what was used
 * before sampling started; 0 when not known.
 */
static uint64_t pa_coverage_counted(const struct pa_event *e, const struct pa_coverage *c)
{
	bool user = !(e->flags & PPF_EVENT_EXCLUDE_USER);
	bool kernel = !(e->flags & PPF_EVENT_EXCLUDE_KERNEL);
	uint64_t all, before = (user ? c->before_user_ns : 0) + (kernel ? c->before_system_ns : 0);
	uint64_t whole = c->split ? c->user_ns + c->system_ns : c->cpu_ns;

	if (user && kernel)
		all = whole;
	else if (!c->split)
		all = 0;
	else
		all = user ? c->user_ns : kernel ? c->system_ns : 0;
	/* Paused: its part of the scope, as the scope's part of the whole. */
	if (c->paused_cpu_ns && whole)
		before += all == whole ? c->paused_cpu_ns :
			  (uint64_t)((double)c->paused_cpu_ns * (double)all / (double)whole);
	return all > before ? all - before : 0;
}

/* Whether e counts one part of the CPU time (user or system): its share hangs on the split. */
static bool pa_coverage_split_scope(const struct pa_event *e)
{
	return !(e->flags & PPF_EVENT_EXCLUDE_USER) != !(e->flags & PPF_EVENT_EXCLUDE_KERNEL);
}

/* c's share of the time e counts, from c's samples (known or not) and CPU times. */
static void pa_coverage_share(const struct pa_event *e, bool samples_known,
			      struct pa_coverage *c)
{
	c->counted_ns = e && samples_known && pa_coverage_timed(e) ?
			pa_coverage_counted(e, c) : 0;
	c->has_share = c->counted_ns > 0;
	/* What is left of a thread paused all along is rounding: no share. */
	if (c->has_share && c->paused_cpu_ns && c->counted_ns < pa_event_sample_period(e))
		c->has_share = false;
	c->share = c->has_share ?
		   (double)c->samples * (double)pa_event_sample_period(e) / (double)c->counted_ns : 0.0;
	/* The part counted, as the kernel split it: its error is that of a few ticks. */
	c->rough = c->has_share && pa_coverage_split_scope(e) &&
		   (!c->split ? c->cpu_ns :
		    e->flags & PPF_EVENT_EXCLUDE_KERNEL ? c->user_ns : c->system_ns) <
			   PA_COVERAGE_ROUGH_NS;
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

/*
 * pa_coverage_thread, and into *every (unless NULL) every sample of the
 * event in its log, those after its last progress record too (for a
 * process whose own CPU time is set against them).
 */
static void pa_coverage_thread_all(const struct pa_filter *f, const struct pa_process *proc,
				   const struct pa_thread *t, struct pa_coverage *out,
				   uint64_t *every)
{
	const struct pa_event *e = pa_filter_find_event(f, proc);

	*out = (struct pa_coverage){ .cpu_ns = t->cpu_ns, .user_ns = t->user_ns,
				     .system_ns = t->system_ns,
				     .paused_cpu_ns = t->paused.cpu_ns };
	out->split = t->user_ns || t->system_ns;
	/* The main thread ran the loader and the constructors before sampling. */
	if (proc->cpu_sampling.known && proc->cpu_sampling.tid == t->tid) {
		out->before_user_ns = proc->cpu_sampling.thread_user_ns;
		out->before_system_ns = proc->cpu_sampling.thread_system_ns;
	}
	if (e)
		out->samples_known = pa_coverage_samples(f, proc, t, e->index, &out->samples);
	if (every)
		*every = out->samples;
	/*
	 * Without END (a process killed, a raw exit_group), or with an END
	 * that had no clock to read (a thread no hook saw end), its CPU times
	 * are its last progress record's: the samples after it would be set
	 * against time that does not count them (a `yes` killed by SIGPIPE
	 * read 684% covered). Those before it, then (the reader counted them
	 * in every sample, not a window's).
	 */
	if (e && out->samples_known && !f->window.on &&
	    (!t->ended || t->cpu_at_progress) && t->progress && t->progress_samples &&
	    e->index < PA_PROGRESS_EVENTS)
		out->samples = t->progress_samples[e->index];
	pa_coverage_share(e, out->samples_known, out);
}

void pa_coverage_thread(const struct pa_filter *f, const struct pa_process *proc,
			const struct pa_thread *t, struct pa_coverage *out)
{
	pa_coverage_thread_all(f, proc, t, out, NULL);
}

/*
 * The process's own CPU time (getrusage's, which runs on across exec) used
 * before sampling started in this image, into out's before fields.
 */
static void pa_coverage_process_before(const struct pa_process *proc, struct pa_coverage *out)
{
	out->before_user_ns = proc->cpu_sampling.known ? proc->cpu_sampling.user_ns : 0;
	out->before_system_ns = proc->cpu_sampling.known ? proc->cpu_sampling.system_ns : 0;
}

/*
 * The wall event's helper thread's CPU time (wall.log) out of the process's:
 * the profiler's own, in no thread's log; taken from user and system time
 * in their proportion.
 */
static void pa_coverage_less_helper(const struct pa_process *proc, struct pa_coverage *out)
{
	uint64_t h = proc->wall ? proc->wall->helper_cpu_ns : 0, hs;

	if (!h || !out->cpu_ns)
		return;
	if (h > out->cpu_ns)
		h = out->cpu_ns;
	hs = (uint64_t)((double)h * (double)out->system_ns / (double)out->cpu_ns);
	if (hs > out->system_ns)
		hs = out->system_ns;
	if (h - hs > out->user_ns)
		hs = h - out->user_ns;
	out->system_ns -= hs;
	out->user_ns -= h - hs;
	out->cpu_ns = out->user_ns + out->system_ns;
}

void pa_coverage_process(const struct pa_filter *f, const struct pa_process *proc,
			 struct pa_coverage *out)
{
	const struct pa_event *e = pa_filter_find_event(f, proc);
	bool own = !pa_filter_by_thread(f) && proc->ended && (proc->user_ns || proc->system_ns);
	/* Every sample, for the process's own CPU time, which runs past its threads' records. */
	uint64_t all = 0;

	*out = (struct pa_coverage){ .split = true, .samples_known = e != NULL };
	for (size_t i = 0; i < proc->nthreads; i++) {
		const struct pa_thread *t = proc->threads[i];
		struct pa_coverage c;
		uint64_t every;

		if (!pa_filter_selects_thread(f, t))
			continue;
		pa_coverage_thread_all(f, proc, t, &c, &every);
		all += every;
		out->samples_known = out->samples_known && c.samples_known;
		out->samples += c.samples;
		out->cpu_ns += c.cpu_ns;
		out->user_ns += c.user_ns;
		out->system_ns += c.system_ns;
		out->before_user_ns += c.before_user_ns;
		out->before_system_ns += c.before_system_ns;
		out->paused_cpu_ns += c.paused_cpu_ns;
		/* A thread whose time is not known at all adds nothing either way. */
		out->split = out->split && (c.split || !c.cpu_ns);
	}
	if (own) {
		/* The END's figures, split: whatever its threads' logs lack. */
		out->samples = all;
		out->user_ns = proc->user_ns;
		out->system_ns = proc->system_ns;
		out->cpu_ns = proc->user_ns + proc->system_ns;
		out->split = true;
		pa_coverage_less_helper(proc, out);
		pa_coverage_process_before(proc, out);
	} else if (!pa_filter_by_thread(f) && proc->replaced && proc->cpu_exec.known &&
		   proc->cpu_exec.user_ns + proc->cpu_exec.system_ns >= out->cpu_ns) {
		/* Replaced by exec: its CPU time at the exec, the last word. */
		out->samples = all;
		out->user_ns = proc->cpu_exec.user_ns;
		out->system_ns = proc->cpu_exec.system_ns;
		out->cpu_ns = out->user_ns + out->system_ns;
		out->split = true;
		pa_coverage_less_helper(proc, out);
		pa_coverage_process_before(proc, out);
	} else if (!pa_filter_by_thread(f) && !proc->ended &&
		   proc->last_user_ns + proc->last_system_ns > out->cpu_ns) {
		/* Without END: threads that were never sampled have no figure of their own. */
		out->samples = all;
		out->user_ns = proc->last_user_ns;
		out->system_ns = proc->last_system_ns;
		out->cpu_ns = proc->last_user_ns + proc->last_system_ns;
		out->split = true;
		pa_coverage_less_helper(proc, out);
		pa_coverage_process_before(proc, out);
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
	if (c->has_share && !c->rough)
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
	if (c->has_share && !c->rough)
		pa_json_double(j, c->share);
	else
		pa_json_null(j);
}

/* ---- the notes ------------------------------------------------------------ */

/* A thread a note may name. */
struct pa_coverage_named {
	const struct pa_process *proc;
	const struct pa_thread *t;
	struct pa_coverage c;
	uint64_t weight_ns; /* what ranks it: the time its note is about */
	size_t nthreads;    /* a process's short threads note: how many */
};

/* The threads a note is about: how many, and the few that weigh most. */
struct pa_coverage_list {
	size_t n;
	struct pa_coverage_named worst[PA_COVERAGE_NAMED]; /* heaviest first */
};

/* What the notes say, gathered over the threads a report covers. */
struct pa_coverage_tally {
	const struct pa_filter *f;
	struct pa_ident_run id;      /* where the run's processes ran (their tags) */
	size_t nbusy;                /* threads with more CPU time than
					PA_COVERAGE_NOTE_CPU_NS */
	struct pa_coverage_list poor; /* of those, covered below
					 PA_COVERAGE_NOTE_BELOW, by the time
					 their samples miss */
	struct pa_coverage_list kernel; /* of those, with more than
					   PA_COVERAGE_NOTE_CPU_NS and a tenth or
					   more of it in the kernel, which their
					   event does not count, by that time */
	const struct pa_event *user_only; /* the first such event */
	struct pa_coverage_list unlogged; /* processes (t NULL) whose CPU time is
					     more than their threads' logs hold,
					     by PA_COVERAGE_NOTE_CPU_NS and a tenth
					     of it or more, by how much */
	struct pa_coverage_list brief; /* processes (t NULL) whose threads of
					  PA_COVERAGE_NOTE_CPU_NS or less each
					  add up to more, covered below
					  PA_COVERAGE_NOTE_BELOW, by the time
					  their samples miss */
	/* The process being tallied: its threads of that little CPU time. */
	struct pa_coverage brief_c;
	size_t brief_threads;
};

/*
 * Whether c's samples of event e fall short of the time it counts by more
 * than PA_COVERAGE_NOTE_BELOW and by more than chance explains. For a
 * thread that goes in and out of the kernel, both sides are estimates: a
 * time event samples only the periods that end in user space (binomial:
 * variance n p (1 - p) for n periods of CPU time, p of them user time),
 * and the kernel's user time is itself counted in clock ticks (as much
 * again per period in a tick). A shortfall within three standard
 * deviations of that is not noted: a pipe writer with half its time in
 * write() came out 76% to 109% covered over runs of 0.5 s each.
 */
static bool pa_coverage_short(const struct pa_event *e, const struct pa_coverage *c)
{
	double period = (double)pa_event_sample_period(e), n, p, expect, gap;

	if (c->share >= PA_COVERAGE_NOTE_BELOW)
		return false;
	n = (double)c->cpu_ns / period;
	p = c->cpu_ns > c->counted_ns ? (double)c->counted_ns / (double)c->cpu_ns : 1.0;
	expect = (double)c->counted_ns / period;
	gap = expect - (double)c->samples;
	return gap > 0 && gap * gap > 9.0 * n * p * (1.0 - p) * (1.0 + PA_COVERAGE_TICK_NS / period);
}

/* Counts p in list, and keeps it among the heaviest few. */
static void pa_coverage_rank(struct pa_coverage_list *list, const struct pa_coverage_named *p)
{
	size_t n = list->n < PA_COVERAGE_NAMED ? list->n : PA_COVERAGE_NAMED, at = n;

	list->n++;
	while (at > 0 && list->worst[at - 1].weight_ns < p->weight_ns)
		at--;
	if (at >= PA_COVERAGE_NAMED)
		return;
	if (n == PA_COVERAGE_NAMED)
		n--;
	memmove(&list->worst[at + 1], &list->worst[at], (n - at) * sizeof(*p));
	list->worst[at] = *p;
}

/*
 * Tallies thread t of proc; returns the CPU time its log holds (0 when
 * unknown): its CPU time, and when that is its last progress record's
 * (its coverage counting the samples before it), what the samples after
 * it stand for.
 */
static uint64_t pa_coverage_tally_thread(struct pa_coverage_tally *tally,
					 const struct pa_process *proc, const struct pa_thread *t)
{
	const struct pa_event *e = pa_filter_find_event(tally->f, proc);
	struct pa_coverage_named p = { .proc = proc, .t = t };
	uint64_t logged, every;

	pa_coverage_thread_all(tally->f, proc, t, &p.c, &every);
	logged = p.c.cpu_ns;
	if (e && pa_coverage_timed(e) && every > p.c.samples)
		logged += (every - p.c.samples) * pa_event_sample_period(e);
	if (e && p.c.cpu_ns <= PA_COVERAGE_NOTE_CPU_NS && p.c.has_share) {
		/* Too short for a note of its own: counted with its process's others. */
		tally->brief_c.samples += p.c.samples;
		tally->brief_c.cpu_ns += p.c.cpu_ns;
		tally->brief_c.counted_ns += p.c.counted_ns;
		tally->brief_threads++;
	}
	if (!e || p.c.cpu_ns <= PA_COVERAGE_NOTE_CPU_NS)
		return logged;
	if (p.c.split && pa_coverage_user_only(e) && pa_coverage_timed(e) &&
	    p.c.system_ns > PA_COVERAGE_NOTE_CPU_NS &&
	    (double)p.c.system_ns >= PA_COVERAGE_KERNEL_SHARE *
				     (double)(p.c.user_ns + p.c.system_ns)) {
		tally->user_only = tally->user_only ? tally->user_only : e;
		p.weight_ns = p.c.system_ns;
		pa_coverage_rank(&tally->kernel, &p);
	}
	if (!p.c.has_share)
		return logged;
	tally->nbusy++;
	if (pa_coverage_short(e, &p.c)) {
		p.weight_ns = (uint64_t)((double)p.c.counted_ns * (1.0 - p.c.share));
		pa_coverage_rank(&tally->poor, &p);
	}
	return logged;
}

/*
 * Tallies process proc, whose threads' logs hold logged_ns of CPU time:
 * what it used besides, in threads that were never sampled (whose logs,
 * if they have one, hold no CPU time), that ran unsampled, or that ended
 * before the profiler started.
 */
static void pa_coverage_tally_process(struct pa_coverage_tally *tally,
				      const struct pa_process *proc, uint64_t logged_ns)
{
	const struct pa_event *e = pa_filter_find_event(tally->f, proc);
	struct pa_coverage_named p = { .proc = proc };
	struct pa_coverage *b = &tally->brief_c;

	/* Its short threads together, when they add up to a busy thread's time. */
	if (e && tally->brief_threads > 1 && b->counted_ns > PA_COVERAGE_NOTE_CPU_NS) {
		struct pa_coverage_named q = { .proc = proc, .c = *b };

		q.c.has_share = true;
		q.c.share = (double)b->samples * (double)pa_event_sample_period(e) /
			    (double)b->counted_ns;
		q.weight_ns = (uint64_t)((double)b->counted_ns * (1.0 - q.c.share));
		q.nthreads = tally->brief_threads;
		if (pa_coverage_short(e, &q.c))
			pa_coverage_rank(&tally->brief, &q);
	}
	*b = (struct pa_coverage){ 0 };
	tally->brief_threads = 0;
	if (pa_filter_by_thread(tally->f))
		return;
	pa_coverage_process(tally->f, proc, &p.c);
	/* The images before this one ran threads of their own, in their logs. */
	if (p.c.cpu_ns <= logged_ns + proc->carried_ns)
		return;
	p.weight_ns = p.c.cpu_ns - logged_ns - proc->carried_ns;
	if (p.weight_ns > PA_COVERAGE_NOTE_CPU_NS &&
	    (double)p.weight_ns >= PA_COVERAGE_KERNEL_SHARE * (double)p.c.cpu_ns)
		pa_coverage_rank(&tally->unlogged, &p);
}

/* ", " between the parts of a list, none before the first. */
static const char *pa_coverage_sep(bool *first)
{
	bool was = *first;

	*first = false;
	return was ? "" : ", ";
}

/*
 * Why the thread's sampling signal was blocked while it ran, from its
 * PPF_REC_THREAD_BLOCKED, into why (empty when nothing is to be said).
 */
void pa_coverage_blocked(const struct pa_thread *t, char *why, size_t size)
{
	why[0] = '\0';
	if (t->blocked_flags & PPF_BLOCKED_UNSEEN)
		snprintf(why, size, "signal blocked by a raw mask change");
	else if (t->holds)
		snprintf(why, size, "own signal held back %" PRIu32 "x: %.3f s unsampled",
			 t->holds, (double)t->held_cpu_ns / 1e9);
}

void pa_coverage_paused(const struct pa_paused *p, bool cpu, char *buf, size_t size)
{
	char delay[48] = "";

	buf[0] = '\0';
	if (!p->pauses)
		return;
	if (!cpu && (p->flags & PPF_PAUSED_DELAY))
		snprintf(delay, sizeof(delay), ", delay %.3f s", (double)p->delay_ns / 1e9);
	if (cpu)
		snprintf(buf, size, "paused %.3f s (%" PRIu32 "x), %.3f s of CPU",
			 (double)p->paused_ns / 1e9, p->pauses, (double)p->cpu_ns / 1e9);
	else
		snprintf(buf, size, "paused %.3f s (%" PRIu32 "x%s)", (double)p->paused_ns / 1e9,
			 p->pauses, delay);
}

/*
 * What p's log says of why it was covered so little: overflows throttled
 * or lost, samples that came late (the thread blocked the signal), a log
 * that filled, or nothing.
 */
static void pa_coverage_why(FILE *out, const struct pa_filter *f,
			    const struct pa_coverage_named *p)
{
	uint64_t throttled = pa_filter_count_throttled(f, p->proc, p->t);
	uint64_t lost = pa_filter_count_lost(f, p->proc, p->t), late = 0;
	int64_t idx = pa_filter_event(f, p->proc);
	bool first = true;
	char why[96];

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
	pa_coverage_blocked(p->t, why, sizeof(why));
	if (why[0])
		fprintf(out, "%s%s", pa_coverage_sep(&first), why);
	if (first)
		fputs("its log does not say why", out);
	fputc(')', out);
}

/*
 * "PID/TID NAME" of p; "TAG:PID/TID NAME" with processes of several hosts
 * or MPI ranks (ident.h), whose pids may clash.
 */
static void pa_coverage_name(FILE *out, const struct pa_coverage_tally *tally,
			     const struct pa_coverage_named *p)
{
	char tag[96];

	pa_ident_tag(&tally->id, p->proc, tag, sizeof(tag));
	fprintf(out, "%s%s%" PRIu32 "/%" PRIu32 " %s", tag, tag[0] ? ":" : "", p->t->pid,
		p->t->tid, p->t->name[0] ? p->t->name : "-");
}

/* How a note names one of its entries. */
typedef void pa_coverage_entry_fn(FILE *out, const struct pa_coverage_tally *tally,
				  const struct pa_coverage_named *p);

/*
 * The first few entries of list, named by entry, "; " between them, then
 * "; and N more (`pprof-analyze LISTER` lists them)" when there are more.
 */
static void pa_coverage_entries(FILE *out, const struct pa_coverage_tally *tally,
				const struct pa_coverage_list *list, pa_coverage_entry_fn *entry,
				const char *lister)
{
	for (size_t i = 0; i < list->n && i < PA_COVERAGE_NAMED; i++) {
		fputs(i ? "; " : "", out);
		entry(out, tally, &list->worst[i]);
	}
	if (list->n > PA_COVERAGE_NAMED)
		fprintf(out, "; and %zu more (`pprof-analyze %s` lists them)",
			list->n - PA_COVERAGE_NAMED, lister);
}

/* "PID/TID NAME 12.5% of its 0.400 s of user time sampled (WHY)" */
static void pa_coverage_entry_poor(FILE *out, const struct pa_coverage_tally *tally,
				   const struct pa_coverage_named *p)
{
	const struct pa_event *e = pa_filter_find_event(tally->f, p->proc);

	pa_coverage_name(out, tally, p);
	fprintf(out, " %.1f%% of its %.3f s of %s time sampled", p->c.share * 100,
		(double)p->c.counted_ns / 1e9,
		pa_coverage_user_only(e) ? "user" : pa_event_scope(e));
	pa_coverage_why(out, tally->f, p);
}

/* "coverage below 90%: ..." when a busy thread is covered so little. */
static size_t pa_coverage_note_poor(FILE *out, const char *prefix,
				    const struct pa_coverage_tally *tally)
{
	if (!tally->poor.n)
		return 0;
	fprintf(out, "%scoverage below %.0f%%: %zu of %zu thread%s with over %.1f s of CPU "
		"time: ", prefix, PA_COVERAGE_NOTE_BELOW * 100, tally->poor.n, tally->nbusy,
		tally->nbusy == 1 ? "" : "s", (double)PA_COVERAGE_NOTE_CPU_NS / 1e9);
	pa_coverage_entries(out, tally, &tally->poor, pa_coverage_entry_poor, "threads");
	fputc('\n', out);
	return 1;
}

/* "PID/TID NAME 0.300 s (30%)": its kernel time. */
static void pa_coverage_entry_kernel(FILE *out, const struct pa_coverage_tally *tally,
				     const struct pa_coverage_named *p)
{
	pa_coverage_name(out, tally, p);
	fprintf(out, " %.3f s (%.0f%%)", (double)p->c.system_ns / 1e9,
		100.0 * (double)p->c.system_ns / (double)(p->c.user_ns + p->c.system_ns));
}

/*
 * "kernel time not sampled: ..." when a thread spent more than
 * PA_COVERAGE_NOTE_CPU_NS and a tenth of its CPU time or more in the
 * kernel, which its event does not count.
 */
static size_t pa_coverage_note_kernel(FILE *out, const char *prefix,
				      const struct pa_coverage_tally *tally)
{
	const struct pa_coverage_list *list = &tally->kernel;

	if (!list->n)
		return 0;
	fprintf(out, "%skernel time not sampled (%s counts user time only): %zu thread%s "
		"spent over %.1f s and %.0f%% or more of %s CPU time in the kernel: ", prefix,
		tally->user_only->name, list->n, list->n == 1 ? "" : "s",
		(double)PA_COVERAGE_NOTE_CPU_NS / 1e9, PA_COVERAGE_KERNEL_SHARE * 100,
		list->n == 1 ? "its" : "their");
	pa_coverage_entries(out, tally, list, pa_coverage_entry_kernel, "threads");
	fprintf(out, "; to sample it, set exclude_kernel = no in the event's section of the "
		"configuration (the kernel allows it with perf_event_paranoid <= 1, or "
		"CAP_PERFMON)\n");
	return 1;
}

/* "PID EXE 0.200 s of 0.500 s": what its threads' logs do not hold. */
static void pa_coverage_entry_unlogged(FILE *out, const struct pa_coverage_tally *tally,
				       const struct pa_coverage_named *p)
{
	const char *exe = pa_process_exe_base(p->proc);
	char tag[96];

	pa_ident_tag(&tally->id, p->proc, tag, sizeof(tag));
	fprintf(out, "%s%s%" PRIu32 " %s %.3f s of %.3f s", tag, tag[0] ? ":" : "", p->proc->pid,
		exe[0] ? exe : "?",
		(double)p->weight_ns / 1e9, (double)p->c.cpu_ns / 1e9);
}

/*
 * "CPU time in no thread's log: ..." when a process used more CPU time than
 * its threads' logs hold (pa_coverage_tally_process).
 */
static size_t pa_coverage_note_unlogged(FILE *out, const char *prefix,
					const struct pa_coverage_tally *tally)
{
	const struct pa_coverage_list *list = &tally->unlogged;

	if (!list->n)
		return 0;
	fprintf(out, "%sCPU time in no thread's log: %zu process%s used over %.1f s and %.0f%% "
		"or more of %s CPU time in threads whose logs hold none (never sampled, run "
		"unsampled, or gone before the profiler started): ",
		prefix, list->n, list->n == 1 ? "" : "es", (double)PA_COVERAGE_NOTE_CPU_NS / 1e9,
		PA_COVERAGE_KERNEL_SHARE * 100, list->n == 1 ? "its" : "their");
	pa_coverage_entries(out, tally, list, pa_coverage_entry_unlogged, "processes");
	fputc('\n', out);
	return 1;
}

/* "PID EXE 2000 threads, 0.860 s of user time, 3.2% sampled": its short threads together. */
static void pa_coverage_entry_brief(FILE *out, const struct pa_coverage_tally *tally,
				    const struct pa_coverage_named *p)
{
	const struct pa_event *e = pa_filter_find_event(tally->f, p->proc);
	const char *exe = pa_process_exe_base(p->proc);
	char tag[96];

	pa_ident_tag(&tally->id, p->proc, tag, sizeof(tag));
	fprintf(out, "%s%s%" PRIu32 " %s %zu threads, %.3f s of %s time, %.1f%% sampled",
		tag, tag[0] ? ":" : "", p->proc->pid, exe[0] ? exe : "?", p->nthreads,
		(double)p->c.counted_ns / 1e9, pa_coverage_user_only(e) ? "user" : pa_event_scope(e),
		p->c.share * 100);
}

/*
 * "short threads covered below 90%: ..." when a process's threads of 0.1 s
 * or less each add up to more and their samples cover them so little: a
 * thread's event counts from the thread's own start, so one that runs
 * less than a period may take no sample at all.
 */
static size_t pa_coverage_note_brief(FILE *out, const char *prefix,
				     const struct pa_coverage_tally *tally)
{
	const struct pa_coverage_list *list = &tally->brief;

	if (!list->n)
		return 0;
	fprintf(out, "%sshort threads covered below %.0f%%: %zu process%s ran over %.1f s of "
		"CPU time in threads of %.1f s or less each, their samples cover it so little: ",
		prefix, PA_COVERAGE_NOTE_BELOW * 100, list->n, list->n == 1 ? "" : "es",
		(double)PA_COVERAGE_NOTE_CPU_NS / 1e9, (double)PA_COVERAGE_NOTE_CPU_NS / 1e9);
	pa_coverage_entries(out, tally, list, pa_coverage_entry_brief, "threads");
	fprintf(out, "; each thread's event counts from the thread's start, so one that runs "
		"less than a sampling period may take no sample: a shorter period (period in the "
		"configuration) samples more of them\n");
	return 1;
}

size_t pa_coverage_notes(FILE *out, const char *prefix, const struct pa_run *run,
			 const struct pa_filter *f)
{
	struct pa_filter g = *f;
	struct pa_coverage_tally tally = { .f = &g };

	pa_ident_scan(run, &tally.id);
	/* Every event (events, counters): the first sampling event's samples. */
	if (!g.event_name && g.event == -1 &&
	    pa_events_choose(run, &g, NULL, PA_EVENTS_SAMPLES, NULL) < 0)
		return 0;
	if (!g.event_name && g.event == PA_FILTER_NO_EVENT)
		return 0;
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];
		uint64_t logged = 0;

		if (!pa_filter_selects(&g, proc))
			continue;
		for (size_t i = 0; i < proc->nthreads; i++)
			if (pa_filter_selects_thread(&g, proc->threads[i]))
				logged += pa_coverage_tally_thread(&tally, proc, proc->threads[i]);
		pa_coverage_tally_process(&tally, proc, logged);
	}
	return pa_coverage_note_poor(out, prefix, &tally) +
	       pa_coverage_note_brief(out, prefix, &tally) +
	       pa_coverage_note_unlogged(out, prefix, &tally) +
	       pa_coverage_note_kernel(out, prefix, &tally);
}
