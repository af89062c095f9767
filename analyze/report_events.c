/* report_events: the run's events and their settings, one row per event. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "eventinfo.h"
#include "ident.h"
#include "jsondoc.h"

#define PA_REPORT_EVENTS_PIDS 3 /* processes named in the PROCESSES column */

/* Events of the selected processes that share name, spec, settings and status. */
struct pa_report_events_row {
	const struct pa_event *e; /* as the first process has it */
	uint64_t samples;
	uint64_t lost;
	uint64_t throttled;
	size_t nprocesses;
	const struct pa_process *procs[PA_REPORT_EVENTS_PIDS];
};

/* A row's columns as text. */
struct pa_report_events_text {
	char encoding[128];
	char period[64];
	char samples[32];
	char lost[32];
	char throttled[32];
	char procs[PA_REPORT_EVENTS_PIDS * 112 + 16];
	char status[96];
};

/* The rows of a report and how many processes it covers. */
struct pa_report_events_table {
	struct pa_report_events_row *rows;
	size_t nrows;
	size_t nprocesses;
	struct pa_ident_run id; /* whether processes are named by host and rank */
};

static const char *pa_report_events_mode(uint32_t mode, char *buf, size_t size)
{
	static const char *const names[] = {
		[PPF_MODE_SIGTRAP] = "sigtrap", [PPF_MODE_SIGNAL] = "signal", [PPF_MODE_OFF] = "off",
	};

	if (mode < sizeof(names) / sizeof(names[0]) && names[mode])
		snprintf(buf, size, "%s", names[mode]);
	else
		snprintf(buf, size, "unknown (%" PRIu32 ")", mode);
	return buf;
}

static const char *pa_report_events_request(const struct pa_config *c, char *buf, size_t size)
{
	static const char *const names[] = {
		[PPF_MODE_REQUEST_AUTO] = "auto", [PPF_MODE_REQUEST_SIGTRAP] = "sigtrap",
		[PPF_MODE_REQUEST_SIGNAL] = "signal",
	};

	if (!c->known)
		snprintf(buf, size, "unknown");
	else if (c->mode_request < sizeof(names) / sizeof(names[0]))
		snprintf(buf, size, "%s", names[c->mode_request]);
	else
		snprintf(buf, size, "unknown (%" PRIu32 ")", c->mode_request);
	return buf;
}

/* " on SIGPROF", " on SIGRTMAX-2": the signal mode's signal, as the user would write it. */
static void pa_report_events_signal(uint32_t sig, char *buf, size_t size)
{
	int s = (int)sig;

	if (s == SIGRTMIN || s == SIGRTMAX)
		snprintf(buf, size, " on SIGRTM%s", s == SIGRTMIN ? "IN" : "AX");
	else if (s > SIGRTMIN && s < SIGRTMAX)
		snprintf(buf, size, s - SIGRTMIN <= SIGRTMAX - s ? " on SIGRTMIN+%d" :
			 " on SIGRTMAX-%d", s - SIGRTMIN <= SIGRTMAX - s ?
			 s - SIGRTMIN : SIGRTMAX - s);
	else if (sigabbrev_np(s))
		snprintf(buf, size, " on SIG%s", sigabbrev_np(s));
	else
		snprintf(buf, size, " on signal %d", s);
}

/* "mode M (requested R); configuration SOURCE: max_frames N, ...", without the "# ". */
static void pa_report_events_config(const struct pa_process *proc, char *buf, size_t size)
{
	const struct pa_config *c = &proc->config;
	char mode[32], req[32];
	char sig[48] = "";
	int n;

	if (proc->mode == PPF_MODE_SIGNAL && proc->signal)
		pa_report_events_signal(proc->signal, sig, sizeof(sig));
	n = snprintf(buf, size, "mode %s%s (requested %s); configuration ",
		     pa_report_events_mode(proc->mode, mode, sizeof(mode)), sig,
		     pa_report_events_request(c, req, sizeof(req)));

	if (n < 0 || (size_t)n >= size)
		return;
	if (!c->known)
		snprintf(buf + n, size - (size_t)n, "unknown (the log has no configuration record)");
	else
		snprintf(buf + n, size - (size_t)n, "%s: max_frames %" PRIu32 ", follow_exec %s, "
			 "unavailable %s, strict %s", c->source, c->max_frames,
			 c->flags & PPF_CONFIG_FOLLOW_EXEC ? "yes" : "no",
			 c->flags & PPF_CONFIG_UNAVAILABLE_OFF ? "off" : "skip",
			 c->flags & PPF_CONFIG_STRICT ? "yes" : "no");
}

/* The configuration lines: one when every selected process agrees, else one each. */
static void pa_report_events_configs(FILE *out, const struct pa_run *run,
				     const struct pa_filter *f, const struct pa_ident_run *id)
{
	char first[PA_ERROR_PATH_MAX + 256], line[PA_ERROR_PATH_MAX + 256], tag[96];
	bool agree = true, any = false;

	for (size_t p = 0; p < run->nprocesses; p++) {
		if (!pa_filter_selects(f, run->processes[p]))
			continue;
		pa_report_events_config(run->processes[p], any ? line : first,
					sizeof(line));
		agree = agree && (!any || strcmp(line, first) == 0);
		any = true;
	}
	if (agree && any) {
		fprintf(out, "# %s\n", first);
		return;
	}
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];

		if (!pa_filter_selects(f, proc))
			continue;
		pa_report_events_config(proc, line, sizeof(line));
		/* "pid 6 (app, rank2@node2)": the pid alone may be another host's. */
		pa_ident_tag(id, proc, tag, sizeof(tag));
		fprintf(out, "# pid %" PRIu32 " (%s%s%s): %s\n", proc->pid,
			pa_process_exe_base(proc), tag[0] ? ", " : "", tag, line);
	}
}

/* Whether a and b go in one row. */
static bool pa_report_events_alike(const struct pa_event *a, const struct pa_event *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->spec, b->spec) == 0 &&
	       pa_event_same_settings(a, b) && a->flags == b->flags && a->error == b->error;
}

/* Add event e of proc to its row, made when it is the first of its kind. */
static void pa_report_events_add(struct pa_report_events_table *t, const struct pa_filter *f,
				 const struct pa_process *proc, const struct pa_event *e)
{
	struct pa_filter g = *f;
	struct pa_report_events_row *r = NULL;

	for (size_t i = 0; i < t->nrows && !r; i++)
		if (pa_report_events_alike(t->rows[i].e, e))
			r = &t->rows[i];
	if (!r) {
		r = &t->rows[t->nrows++];
		memset(r, 0, sizeof(*r));
		r->e = e;
	}
	if (r->nprocesses < PA_REPORT_EVENTS_PIDS)
		r->procs[r->nprocesses] = proc;
	r->nprocesses++;
	g.event_name = NULL;
	g.event = e->index;
	for (size_t i = 0; i < proc->nthreads; i++) {
		if (!pa_filter_selects_thread(f, proc->threads[i]))
			continue;
		r->samples += pa_filter_count_samples(&g, proc, proc->threads[i]);
		r->lost += pa_filter_count_lost(&g, proc, proc->threads[i]);
		r->throttled += pa_filter_count_throttled(&g, proc, proc->threads[i]);
	}
}

static int pa_report_events_table_init(struct pa_report_events_table *t,
				       const struct pa_run *run, const struct pa_filter *f)
{
	size_t cap = 1;

	memset(t, 0, sizeof(*t));
	pa_ident_scan(run, &t->id);
	for (size_t p = 0; p < run->nprocesses; p++)
		cap += run->processes[p]->nevents;
	t->rows = malloc(cap * sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];
		int64_t idx = pa_filter_event(f, proc);

		if (!pa_filter_selects(f, proc))
			continue;
		t->nprocesses++;
		for (size_t i = 0; i < proc->nevents; i++)
			if (idx == -1 || (idx >= 0 && proc->events[i].index == (uint64_t)idx))
				pa_report_events_add(t, f, proc, &proc->events[i]);
	}
	return 0;
}

/*
 * "all", or "101,102,103,+2"; when the run spans hosts or has ranks, each
 * pid after its tag as the coverage notes write it: "rank0@node1:6,node1:5".
 */
static void pa_report_events_procs(const struct pa_report_events_row *r,
				   const struct pa_report_events_table *t, char *buf, size_t size)
{
	size_t len = 0;
	char tag[96];

	if (r->nprocesses == t->nprocesses) {
		snprintf(buf, size, "all");
		return;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < r->nprocesses && i < PA_REPORT_EVENTS_PIDS && len < size; i++) {
		pa_ident_tag(&t->id, r->procs[i], tag, sizeof(tag));
		len += (size_t)snprintf(buf + len, size - len, "%s%s%s%" PRIu32, i ? "," : "",
					tag, tag[0] ? ":" : "", r->procs[i]->pid);
	}
	if (r->nprocesses > PA_REPORT_EVENTS_PIDS && len < size)
		snprintf(buf + len, size - len, ",+%zu", r->nprocesses - PA_REPORT_EVENTS_PIDS);
}

static void pa_report_events_text(const struct pa_report_events_row *r,
				  const struct pa_report_events_table *t,
				  struct pa_report_events_text *x)
{
	pa_event_format_encoding(r->e, x->encoding, sizeof(x->encoding));
	pa_event_format_period(r->e, x->period, sizeof(x->period));
	pa_event_format_status(r->e, x->status, sizeof(x->status));
	pa_report_events_procs(r, t, x->procs, sizeof(x->procs));
	if (pa_event_samples(r->e)) {
		pa_events_format_count(r->samples, x->samples, sizeof(x->samples));
		pa_events_format_count(r->lost, x->lost, sizeof(x->lost));
		pa_events_format_count(r->throttled, x->throttled, sizeof(x->throttled));
	} else {
		snprintf(x->samples, sizeof(x->samples), "-");
		snprintf(x->lost, sizeof(x->lost), "-");
		snprintf(x->throttled, sizeof(x->throttled), "-");
	}
}

static int pa_report_events_max(int w, const char *s)
{
	int n = (int)strlen(s);

	return n > w ? n : w;
}

/* Column widths: name, event, encoding, period, samples, lost, processes, throttled. */
static void pa_report_events_widths(const struct pa_report_events_table *t, int w[8])
{
	struct pa_report_events_text x;

	w[0] = 4, w[1] = 5, w[2] = 8, w[3] = 6, w[4] = 7, w[5] = 4, w[6] = 9, w[7] = 9;
	for (size_t i = 0; i < t->nrows; i++) {
		pa_report_events_text(&t->rows[i], t, &x);
		w[0] = pa_report_events_max(w[0], t->rows[i].e->name);
		w[1] = pa_report_events_max(w[1], t->rows[i].e->spec);
		w[2] = pa_report_events_max(w[2], x.encoding);
		w[3] = pa_report_events_max(w[3], x.period);
		w[4] = pa_report_events_max(w[4], x.samples);
		w[5] = pa_report_events_max(w[5], x.lost);
		w[6] = pa_report_events_max(w[6], x.procs);
		w[7] = pa_report_events_max(w[7], x.throttled);
	}
}

static void pa_report_events_rows(FILE *out, const struct pa_report_events_table *t)
{
	struct pa_report_events_text x;
	int w[8];

	pa_report_events_widths(t, w);
	fprintf(out, "%-*s  %-*s  %-6s  %-*s  %-*s  %-11s  %7s  %*s  %*s  %*s  %-*s  %s\n",
		w[0], "NAME", w[1], "EVENT", "KIND", w[2], "ENCODING", w[3], "PERIOD", "SCOPE",
		"PRECISE", w[4], "SAMPLES", w[5], "LOST", w[7], "THROTTLED", w[6], "PROCESSES",
		"STATUS");
	for (size_t i = 0; i < t->nrows; i++) {
		const struct pa_event *e = t->rows[i].e;

		pa_report_events_text(&t->rows[i], t, &x);
		fprintf(out, "%-*s  %-*s  %-6s  %-*s  %-*s  %-11s  %7" PRIu32 "  %*s  %*s  "
			"%*s  %-*s  %s\n", w[0], e->name, w[1], e->spec, pa_event_kind(e), w[2],
			x.encoding, w[3], x.period, pa_event_scope(e), e->precise_ip, w[4],
			x.samples, w[5], x.lost, w[7], x.throttled, w[6], x.procs, x.status);
	}
}

/*
 * Write the sampling mode and configuration of the processes filter
 * selects (one "# mode ..." line when they agree, else one per process:
 * the mode in force, the mode the configuration asked for, where the
 * configuration came from, max_frames, follow_exec, unavailable, strict;
 * "unknown" for logs without a configuration record), then one row per
 * event: NAME, EVENT (the spec as written), KIND (sample or count), ENCODING
 * (pa_event_format_encoding), PERIOD (pa_event_format_period), SCOPE (user,
 * kernel, user+kernel), PRECISE (precise_ip), SAMPLES (sample records of the
 * event in the selected threads), LOST (samples the writer dropped,
 * pa_filter_count_lost), PROCESSES ("all", or the pids that have the
 * event so) and STATUS ("ok" or "unavailable: REASON"). Events of several
 * processes with the same name, spec and settings share a row. The event
 * of filter, when it names one, selects the rows. Returns 0, -ENOMEM, or
 * -EIO on a write error.
 */
static int pa_report_events_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_filter *filter = ctx->filter;
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;
	struct pa_report_events_table t;
	int ret = pa_report_events_table_init(&t, run, &f);

	if (ret == 0) {
		pa_report_events_configs(out, run, &f, &t.id);
		if (t.nrows)
			pa_report_events_rows(out, &t);
		else
			fprintf(out, "# no events recorded in the selected processes\n");
	}
	free(t.rows);
	if (ret < 0)
		return ret;
	return ferror(out) ? -EIO : 0;
}

/* The configuration members of a "configs" object; null when the log has none. */
static void pa_report_events_json_settings(struct pa_json *j, const struct pa_config *c)
{
	pa_json_key_string(j, "source", c->known ? c->source : NULL);
	pa_json_key(j, "max_frames");
	if (c->known)
		pa_json_uint(j, c->max_frames);
	else
		pa_json_null(j);
	pa_json_key(j, "follow_exec");
	if (c->known)
		pa_json_bool(j, c->flags & PPF_CONFIG_FOLLOW_EXEC);
	else
		pa_json_null(j);
	pa_json_key_string(j, "unavailable", !c->known ? NULL :
			   c->flags & PPF_CONFIG_UNAVAILABLE_OFF ? "off" : "skip");
	pa_json_key(j, "strict");
	if (c->known)
		pa_json_bool(j, c->flags & PPF_CONFIG_STRICT);
	else
		pa_json_null(j);
}

static void pa_report_events_json_config(struct pa_json *j, const struct pa_process *proc)
{
	char text[PA_ERROR_PATH_MAX + 256], mode[32], req[32], sig[48];

	pa_json_object_begin(j);
	pa_json_key_uint(j, "pid", proc->pid);
	pa_json_key_string(j, "exe", pa_process_exe_base(proc));
	pa_ident_json(j, proc);
	pa_json_key_string(j, "mode", pa_report_events_mode(proc->mode, mode, sizeof(mode)));
	pa_json_key(j, "signal");
	if (proc->mode == PPF_MODE_SIGNAL && proc->signal) {
		pa_report_events_signal(proc->signal, sig, sizeof(sig));
		pa_json_string(j, sig + strlen(" on "));
	} else {
		pa_json_null(j);
	}
	pa_json_key_string(j, "requested", proc->config.known ?
			   pa_report_events_request(&proc->config, req, sizeof(req)) : NULL);
	pa_report_events_json_settings(j, &proc->config);
	pa_report_events_config(proc, text, sizeof(text));
	pa_json_key_string(j, "text", text);
	pa_json_object_end(j);
}

/*
 * Every selected process whose event is in row r, keyed as the other
 * reports' rows key a process: {"pid", "host", "rank", "world_size",
 * "job"} (pa_ident_json), so that pids of several hosts stay apart.
 */
static void pa_report_events_json_pids(struct pa_json *j, const struct pa_run *run,
				       const struct pa_filter *f,
				       const struct pa_report_events_row *r)
{
	pa_json_array_begin(j);
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];
		int64_t idx = pa_filter_event(f, proc);

		if (!pa_filter_selects(f, proc))
			continue;
		for (size_t i = 0; i < proc->nevents; i++) {
			if ((idx != -1 && (idx < 0 || proc->events[i].index != (uint64_t)idx)) ||
			    !pa_report_events_alike(r->e, &proc->events[i]))
				continue;
			pa_json_object_begin(j);
			pa_json_key_uint(j, "pid", proc->pid);
			pa_ident_json(j, proc);
			pa_json_object_end(j);
		}
	}
	pa_json_array_end(j);
}

/* The period members: null for a counting event, as the text's '-'. */
static void pa_report_events_json_period(struct pa_json *j, const struct pa_event *e)
{
	bool sampling = pa_event_samples(e);
	char period[64];

	pa_json_key(j, "period");
	if (sampling)
		pa_json_uint(j, e->period);
	else
		pa_json_null(j);
	pa_json_key_string(j, "unit", !sampling ? NULL : e->flags & PPF_EVENT_FREQ ? "Hz" :
			   e->flags & PPF_EVENT_TIME_NS ? "ns" : "events");
	pa_json_key_string(j, "period_text", sampling ?
			   pa_event_format_period(e, period, sizeof(period)) : NULL);
}

static void pa_report_events_json_row(struct pa_json *j, const struct pa_run *run,
				      const struct pa_filter *f,
				      const struct pa_report_events_table *t,
				      const struct pa_report_events_row *r)
{
	const struct pa_event *e = r->e;
	struct pa_report_events_text x;

	pa_report_events_text(r, t, &x);
	pa_json_object_begin(j);
	pa_json_key_string(j, "name", e->name);
	pa_json_key_string(j, "event", e->spec);
	pa_json_key_string(j, "kind", pa_event_kind(e));
	pa_json_key_string(j, "encoding", x.encoding);
	pa_json_key_uint(j, "type", e->type);
	pa_json_key_uint(j, "config", e->config);
	pa_json_key_uint(j, "config1", e->config1);
	pa_json_key_uint(j, "config2", e->config2);
	pa_report_events_json_period(j, e);
	pa_json_key_string(j, "scope", pa_event_scope(e));
	pa_json_key_uint(j, "precise", e->precise_ip);
	if (pa_event_samples(e)) {
		pa_json_key_uint(j, "samples", r->samples);
		pa_json_key_uint(j, "lost", r->lost);
		pa_json_key_uint(j, "throttled", r->throttled);
	} else {
		pa_json_key_null(j, "samples");
		pa_json_key_null(j, "lost");
		pa_json_key_null(j, "throttled");
	}
	pa_json_key_uint(j, "processes", r->nprocesses);
	pa_json_key_bool(j, "all_processes", r->nprocesses == t->nprocesses);
	pa_json_key(j, "pids");
	pa_report_events_json_pids(j, run, f, r);
	pa_json_key_string(j, "status", x.status);
	pa_json_key_bool(j, "available", pa_event_opened(e));
	pa_json_key_string(j, "error", pa_event_opened(e) || !e->error ? NULL :
			   strerror((int)e->error));
	pa_json_object_end(j);
}

/* The opening's counts: the rows' samples, the selected processes and threads. */
static void pa_report_events_json_counts(const struct pa_run *run, const struct pa_filter *f,
					 const struct pa_report_events_table *t,
					 struct pa_jsondoc_counts *c)
{
	*c = (struct pa_jsondoc_counts){ .nprocesses = t->nprocesses, .no_header = true };
	for (size_t i = 0; i < t->nrows; i++)
		if (pa_event_samples(t->rows[i].e))
			c->samples += t->rows[i].samples;
	for (size_t p = 0; p < run->nprocesses; p++)
		for (size_t i = 0; pa_filter_selects(f, run->processes[p]) &&
		     i < run->processes[p]->nthreads; i++)
			c->nthreads += pa_filter_selects_thread(f, run->processes[p]->threads[i]);
}

/*
 * The same as a JSON document (jsondoc.h; "header" and "lost" are
 * null, "samples" sums the rows', "processes" and "threads" count the
 * selected ones) with "configs", one object per selected process: {"pid",
 * "exe", "host", "rank", "world_size", "job" (pa_ident_json), "mode", "signal" (the signal mode's, else null), "requested",
 * "source", "max_frames", "follow_exec", "unavailable", "strict" (null
 * when the log has no configuration record), "text" (the text report's
 * line)}; and one row per event row: {"name", "event", "kind",
 * "encoding", "type", "config", "config1", "config2", "period", "unit",
 * "period_text", "scope", "precise", "samples", "lost" (null for counting
 * events), "processes" (how many), "all_processes", "pids" (every one),
 * "status", "available", "error" (strerror, null when available)}.
 * Returns 0, -ENOMEM, or -EIO on a write error.
 */
static int pa_report_events_write_json(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_filter *filter = ctx->filter;
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;
	struct pa_report_events_table t;
	struct pa_jsondoc_counts c;
	struct pa_json *j = NULL;
	int ret = pa_report_events_table_init(&t, run, &f);

	if (ret == 0) {
		pa_report_events_json_counts(run, &f, &t, &c);
		ret = pa_jsondoc_begin(out, "events", run, &f, &c, &j);
	}
	if (ret == 0) {
		pa_json_key_array(j, "configs");
		for (size_t p = 0; p < run->nprocesses; p++)
			if (pa_filter_selects(&f, run->processes[p]))
				pa_report_events_json_config(j, run->processes[p]);
		pa_json_array_end(j);
		pa_json_key_array(j, "rows");
		for (size_t i = 0; i < t.nrows; i++)
			pa_report_events_json_row(j, run, &f, &t, &t.rows[i]);
		pa_json_array_end(j);
		ret = pa_jsondoc_end(j);
	}
	free(t.rows);
	return ret;
}

const struct pa_report pa_report_events = {
	.name = "events",
	.usage = "DIR [OPTIONS]",
	.help = "The sampling mode (in force and requested) and where the\n"
		"configuration came from, then one row per event: name, event\n"
		"as written, kind (sample or count), perf encoding, period,\n"
		"scope (user, kernel), precise_ip, samples, lost samples, the\n"
		"processes that have it, status ('ok' or 'unavailable: WHY').\n",
	.use = PA_EVENTS_ANY,
	.needs = PA_REPORT_NEEDS_RUN,
	.notes_apart = true,
	.write = pa_report_events_write,
	.write_json = pa_report_events_write_json,
};
