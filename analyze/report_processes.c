/* report_processes: one line per process of a run, laid out as a tree. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "before.h"
#include "coverage.h"
#include "eventinfo.h"
#include "ident.h"
#include "jsondoc.h"

#define PA_REPORT_PROCESSES_NONE SIZE_MAX
#define PA_REPORT_PROCESSES_MAX_INDENT 16 /* levels; deeper ones line up */

/* The selected processes (v, in run order) and their tree, by index into v. */
struct pa_report_processes_tree {
	const struct pa_process **v;
	size_t n;
	size_t *parent;      /* NONE for a root */
	size_t *first_child; /* children linked by next, in descending index order */
	size_t *next;
	size_t *order;       /* v indexes in display order */
	size_t *depth;       /* per display row */
	size_t nrows;
};

/* Whether f selects a thread of proc. */
static bool pa_report_processes_has_thread(const struct pa_process *proc,
					   const struct pa_filter *f)
{
	for (size_t i = 0; i < proc->nthreads; i++)
		if (pa_filter_selects_thread(f, proc->threads[i]))
			return true;
	return pa_filter_count_unsampled(f, proc) > 0;
}

/*
 * The parent of v[k]: pid = its ppid on the same host and boot (another
 * host's pids are another pid space), started last but not after it.
 */
static size_t pa_report_processes_parent(const struct pa_report_processes_tree *t, size_t k)
{
	size_t best = PA_REPORT_PROCESSES_NONE;

	for (size_t j = 0; j < t->n; j++) {
		if (j == k || t->v[j]->pid != t->v[k]->ppid ||
		    t->v[j]->start_ns > t->v[k]->start_ns ||
		    !pa_process_same_pid_space(t->v[j], t->v[k]))
			continue;
		if (best == PA_REPORT_PROCESSES_NONE || t->v[j]->start_ns > t->v[best]->start_ns)
			best = j;
	}
	return best;
}

/*
 * Depth-first from every root, then from whatever a ppid cycle (hostile or
 * clashing logs) left unvisited, so that every process gets one row.
 */
static int pa_report_processes_order(struct pa_report_processes_tree *t)
{
	size_t *stack = malloc(2 * t->n * sizeof(*stack) + 1);
	size_t *sdepth = malloc(2 * t->n * sizeof(*sdepth) + 1);
	bool *seen = calloc(t->n + 1, sizeof(*seen));
	int ret = stack && sdepth && seen ? 0 : -ENOMEM;

	for (int pass = 0; pass < 2 && ret == 0; pass++) {
		for (size_t r = 0; r < t->n; r++) {
			size_t top = 0;

			if (seen[r] || (pass == 0 && t->parent[r] != PA_REPORT_PROCESSES_NONE))
				continue;
			stack[top] = r;
			sdepth[top++] = 0;
			while (top) {
				size_t k = stack[--top], d = sdepth[top];

				if (seen[k])
					continue;
				seen[k] = true;
				t->order[t->nrows] = k;
				t->depth[t->nrows++] = d;
				for (size_t c = t->first_child[k]; c != PA_REPORT_PROCESSES_NONE;
				     c = t->next[c]) {
					stack[top] = c;
					sdepth[top++] = d + 1;
				}
			}
		}
	}
	free(stack);
	free(sdepth);
	free(seen);
	return ret;
}

static void pa_report_processes_tree_release(struct pa_report_processes_tree *t)
{
	free(t->v);
	free(t->parent);
	free(t->first_child);
	free(t->next);
	free(t->order);
	free(t->depth);
}

static int pa_report_processes_tree_init(struct pa_report_processes_tree *t,
					 const struct pa_run *run, const struct pa_filter *f)
{
	size_t cap = run->nprocesses + 1;

	memset(t, 0, sizeof(*t));
	t->v = malloc(cap * sizeof(*t->v));
	t->parent = malloc(cap * sizeof(*t->parent));
	t->first_child = malloc(cap * sizeof(*t->first_child));
	t->next = malloc(cap * sizeof(*t->next));
	t->order = malloc(cap * sizeof(*t->order));
	t->depth = malloc(cap * sizeof(*t->depth));
	if (!t->v || !t->parent || !t->first_child || !t->next || !t->order || !t->depth)
		return -ENOMEM;
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *proc = run->processes[i];

		if (pa_filter_selects(f, proc) &&
		    (!pa_filter_by_thread(f) || pa_report_processes_has_thread(proc, f)))
			t->v[t->n++] = proc;
	}
	for (size_t k = 0; k < t->n; k++) {
		t->parent[k] = pa_report_processes_parent(t, k);
		t->first_child[k] = t->next[k] = PA_REPORT_PROCESSES_NONE;
	}
	for (size_t k = 0; k < t->n; k++) {
		size_t p = t->parent[k];

		if (p != PA_REPORT_PROCESSES_NONE) {
			t->next[k] = t->first_child[p];
			t->first_child[p] = k;
		}
	}
	return pa_report_processes_order(t);
}

/*
 * Whether the exec that replaced proc started a statically linked program:
 * its record (which names the program found, where exec was given a name
 * to search PATH for) comes just before the exec's, after any earlier one.
 */
static bool pa_report_processes_exec_static(const struct pa_process *proc)
{
	uint64_t at = proc->execs[proc->nexecs - 1].time_ns;
	uint64_t after = proc->nexecs > 1 ? proc->execs[proc->nexecs - 2].time_ns : 0;

	for (size_t i = 0; i < proc->nunprofiled; i++)
		if (proc->unprofiled[i].pid == proc->pid && proc->unprofiled[i].time_ns <= at &&
		    proc->unprofiled[i].time_ns >= after)
			return true;
	return false;
}

/*
 * How proc ended, as the ENDED column says it (see pa_report_processes_write),
 * then how many of the threads f selects ran unsampled, if any.
 */
static void pa_report_processes_how(const struct pa_process *proc, const struct pa_filter *f,
				    char *buf, size_t size)
{
	const char *off = proc->mode == PPF_MODE_OFF ? "off, " : "";
	size_t unsampled = pa_filter_count_unsampled(f, proc), len;
	const char *sig;

	if (proc->replaced && pa_report_processes_exec_static(proc))
		snprintf(buf, size, "%sexec %s (statically linked: not profiled)", off,
			 proc->execs[proc->nexecs - 1].path);
	else if (proc->replaced)
		snprintf(buf, size, "%sexec %s", off, proc->execs[proc->nexecs - 1].path);
	else if (!proc->ended && proc->full.full)
		snprintf(buf, size, "%sunknown (log full)", off);
	else if (!proc->ended)
		snprintf(buf, size, "%sexit_group or killed?", off);
	else if (proc->exit_how == PPF_EXIT_NORMAL)
		snprintf(buf, size, "%sexit %" PRId32, off, proc->exit_status);
	else if (proc->exit_how == PPF_EXIT_SIGNAL && (sig = sigabbrev_np(proc->exit_status)))
		snprintf(buf, size, "%ssignal SIG%s", off, sig);
	else if (proc->exit_how == PPF_EXIT_SIGNAL)
		snprintf(buf, size, "%ssignal %" PRId32, off, proc->exit_status);
	else
		snprintf(buf, size, "%sunknown", off);
	len = strlen(buf);
	if (unsampled && len < size)
		snprintf(buf + len, size - len, ", %zu thread%s unsampled", unsampled,
			 unsampled == 1 ? "" : "s");
}

/*
 * proc's CPU time before profiling (before.h) in seconds; "-" if unknown,
 * or when f selects threads (it is no thread's).
 */
static void pa_report_processes_before(const struct pa_process *proc,
				       const struct pa_filter *f, char *buf, size_t size)
{
	if (proc->before.known && !pa_filter_by_thread(f))
		snprintf(buf, size, "%.3f",
			 (double)(proc->before.user_ns + proc->before.system_ns) / 1e9);
	else
		snprintf(buf, size, "-");
}

/* Seconds from start_ns to the end of proc (END, or its exec), "-" if unknown. */
static void pa_report_processes_duration(const struct pa_process *proc, char *buf, size_t size)
{
	uint64_t end = proc->ended ? proc->end_ns :
		       proc->replaced ? proc->execs[proc->nexecs - 1].time_ns : 0;

	if (end >= proc->start_ns && (proc->ended || proc->replaced))
		snprintf(buf, size, "%.3f", (double)(end - proc->start_ns) / 1e9);
	else
		snprintf(buf, size, "-");
}

static uint64_t pa_report_processes_samples(const struct pa_process *proc,
					    const struct pa_filter *f, size_t *nthreads)
{
	uint64_t n = 0;

	*nthreads = pa_filter_count_unsampled(f, proc);
	for (size_t i = 0; i < proc->nthreads; i++) {
		if (!pa_filter_selects_thread(f, proc->threads[i]))
			continue;
		(*nthreads)++;
		n += pa_filter_count_samples(f, proc, proc->threads[i]);
	}
	return n;
}

/* Samples of every row, for the header. */
static uint64_t pa_report_processes_total(const struct pa_report_processes_tree *t,
					  const struct pa_filter *f)
{
	uint64_t n = 0;
	size_t nthreads;

	for (size_t k = 0; k < t->n; k++)
		n += pa_report_processes_samples(t->v[k], f, &nthreads);
	return n;
}

static size_t pa_report_processes_indent(size_t depth)
{
	return 2 * (depth < PA_REPORT_PROCESSES_MAX_INDENT ? depth : PA_REPORT_PROCESSES_MAX_INDENT);
}

/* Where the rows' processes ran, and the HOST and RANK columns' width (0: not shown). */
struct pa_report_processes_where {
	struct pa_ident_run id;
	int host_width;
	uint64_t t0;      /* the run's first start, on pa_ident_start's clock */
};

static void pa_report_processes_where(const struct pa_run *run,
				      struct pa_report_processes_where *w)
{
	pa_ident_scan(run, &w->id);
	w->host_width = 0;
	w->t0 = UINT64_MAX;
	/* Times from the run's first process, whatever the filter. */
	for (size_t i = 0; i < run->nprocesses; i++) {
		uint64_t s = pa_ident_start(&w->id, run->processes[i]);

		if ((s || !w->id.several_hosts) && s < w->t0)
			w->t0 = s;
	}
	w->host_width = pa_ident_host_width(&w->id, run);
}

/* proc's start in seconds after w's first, 0 when unknown or before it. */
static double pa_report_processes_start(const struct pa_report_processes_where *w,
					const struct pa_process *proc)
{
	uint64_t s = pa_ident_start(&w->id, proc);

	return s >= w->t0 && w->t0 != UINT64_MAX ? (double)(s - w->t0) / 1e9 : 0.0;
}

static void pa_report_processes_row(FILE *out, const struct pa_process *proc, size_t depth,
				    int exe_width, const struct pa_report_processes_where *w,
				    const struct pa_filter *f)
{
	const char *exe = pa_process_exe_base(proc);
	char how[PA_ERROR_PATH_MAX + 64], dur[32], before[32], cpu[PA_COVERAGE_TEXT_MAX];
	char paused[96];
	int indent = (int)pa_report_processes_indent(depth);
	size_t nthreads;
	uint64_t samples = pa_report_processes_samples(proc, f, &nthreads);
	struct pa_coverage c;

	pa_report_processes_how(proc, f, how, sizeof(how));
	pa_report_processes_duration(proc, dur, sizeof(dur));
	pa_report_processes_before(proc, f, before, sizeof(before));
	pa_coverage_process(f, proc, &c);
	pa_coverage_paused(&proc->paused, false, paused, sizeof(paused));
	fprintf(out, "%8" PRIu32 " %8" PRIu32, proc->pid, proc->ppid);
	pa_ident_columns(out, w->host_width, proc);
	fprintf(out, " %9.3f %9s %9" PRIu64 " %7zu %s %9s  %*s%-*s  %s"
		"%s%s%s\n", pa_report_processes_start(w, proc), dur,
		samples, nthreads, pa_coverage_format(&c, cpu, sizeof(cpu)), before, indent, "",
		exe_width - indent, exe[0] ? exe : "?", how, paused[0] ? "  (" : "", paused,
		paused[0] ? ")" : "");
}

/*
 * A header line naming the event and its period (pa_events_header), then
 * one row per process that filter selects (its pid and exe; with a tid, only
 * the process holding that thread, counting that thread alone; the event
 * index selects which samples are counted): pid, ppid, start (seconds after
 * the run's first process started), wall-clock duration, samples in the
 * logs, threads, its CPU time, user and system time and the share the
 * samples cover (coverage.h), the executable's basename, and how the
 * process ended:
 *   "exit N"          exit status N
 *   "signal SIGNAME"  killed by that signal (SIGABRT for abort())
 *   "exec PATH"       its image was replaced by exec; the new image is the
 *                     next row with the same pid
 *   "exit_group or killed?"  no END record: a raw exit_group, killed, or
 *                     still running
 *   "unknown (log full)"  no END record, after process.log stopped early
 *                     (it could not grow): how the process ended is unknown
 *   "unknown"         an END record that does not say how
 * prefixed by "off, " when profiling was off in the process ("off, exit 0");
 * then, in parentheses, how long sampling was paused (pa_coverage_paused:
 * the wall time, how many times, the configuration's delay).
 *
 * Rows come in tree order: a process is listed under its parent (the
 * selected process with pid = its ppid that started last before it), its
 * exe indented by two spaces per level; siblings and roots are sorted by pid
 * then start time. Returns 0, -ENOMEM, or -EIO on a write error.
 */
static int pa_report_processes_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_filter *filter = ctx->filter;
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;
	struct pa_report_processes_tree t;
	struct pa_report_processes_where wh;
	size_t width = strlen("EXE");
	int ret = pa_report_processes_tree_init(&t, run, &f);

	if (ret < 0) {
		pa_report_processes_tree_release(&t);
		return ret;
	}
	pa_report_processes_where(run, &wh);
	for (size_t r = 0; r < t.nrows; r++) {
		size_t w = pa_report_processes_indent(t.depth[r]) +
			   strlen(pa_process_exe_base(t.v[t.order[r]]));

		if (w > width)
			width = w;
	}
	pa_events_header(out, run, &f, pa_report_processes_total(&t, &f), false, 0, 0, 0);
	fprintf(out, "%8s %8s", "PID", "PPID");
	pa_ident_columns(out, wh.host_width, NULL);
	fprintf(out, " %9s %9s %9s %7s %s %9s  %-*s  %s\n", "START(s)",
		"WALL(s)", "SAMPLES", "THREADS", PA_COVERAGE_HEAD, "BEFORE(s)", (int)width, "EXE",
		"ENDED");
	for (size_t r = 0; r < t.nrows; r++)
		pa_report_processes_row(out, t.v[t.order[r]], t.depth[r], (int)width, &wh, &f);
	pa_report_processes_tree_release(&t);
	return ferror(out) ? -EIO : 0;
}

/* How proc ended, as members "how", "exit_status", "signal", "exec_path". */
static void pa_report_processes_json_how(struct pa_json *j, const struct pa_process *proc)
{
	bool exited = !proc->replaced && proc->ended && proc->exit_how == PPF_EXIT_NORMAL;
	bool signalled = !proc->replaced && proc->ended && proc->exit_how == PPF_EXIT_SIGNAL;
	const char *sig = signalled ? sigabbrev_np(proc->exit_status) : NULL;
	char name[32];

	pa_json_key_string(j, "how", proc->replaced ? "exec" :
			   !proc->ended && proc->full.full ? "unknown" : !proc->ended ? "killed" :
			   exited ? "exit" : signalled ? "signal" : "unknown");
	pa_json_key(j, "exit_status");
	if (exited)
		pa_json_int(j, proc->exit_status);
	else
		pa_json_null(j);
	pa_json_key(j, "signal");
	if (sig) {
		snprintf(name, sizeof(name), "SIG%s", sig);
		pa_json_string(j, name);
	} else if (signalled) {
		pa_json_int(j, proc->exit_status);
	} else {
		pa_json_null(j);
	}
	pa_json_key_string(j, "exec_path", proc->replaced ?
			   proc->execs[proc->nexecs - 1].path : NULL);
}

/*
 * Members "before_s", "before_user_s", "before_system_s" (its CPU time
 * before profiling, before.h; null when unknown or when f selects
 * threads), "before_samples" (the samples of the event shown that time
 * stands for, estimated, as the other reports count them: 0 when it is no
 * CPU-time event or f selects threads) and "unprofiled" (the statically linked programs it
 * started: {"pid", "path"}).
 */
static void pa_report_processes_json_before(struct pa_json *j, const struct pa_process *proc,
					    const struct pa_filter *f)
{
	const struct pa_event *ev = pa_filter_find_event(f, proc);
	const uint64_t ns[3] = { proc->before.user_ns + proc->before.system_ns,
				 proc->before.user_ns, proc->before.system_ns };
	static const char *const keys[3] = { "before_s", "before_user_s", "before_system_s" };

	for (size_t i = 0; i < 3; i++) {
		pa_json_key(j, keys[i]);
		if (proc->before.known && !pa_filter_by_thread(f))
			pa_json_double(j, (double)ns[i] / 1e9);
		else
			pa_json_null(j);
	}
	pa_json_key_uint(j, "before_samples", ev && !pa_filter_by_thread(f) ?
			 pa_before_event_samples(proc, ev) : 0);
	pa_json_key_array(j, "unprofiled");
	for (size_t i = 0; i < proc->nunprofiled; i++) {
		pa_json_object_begin(j);
		pa_json_key_uint(j, "pid", proc->unprofiled[i].pid);
		pa_json_key_string(j, "path", proc->unprofiled[i].path);
		pa_json_object_end(j);
	}
	pa_json_array_end(j);
}

static void pa_report_processes_json_row(struct pa_json *j, const struct pa_process *proc,
					 size_t depth, int64_t parent,
					 const struct pa_report_processes_where *w,
					 const struct pa_filter *f)
{
	uint64_t end = proc->ended ? proc->end_ns :
		       proc->replaced ? proc->execs[proc->nexecs - 1].time_ns : 0;
	const char *exe = pa_process_exe_base(proc);
	char how[PA_ERROR_PATH_MAX + 64];
	size_t nthreads;
	uint64_t samples = pa_report_processes_samples(proc, f, &nthreads);
	struct pa_coverage c;

	pa_report_processes_how(proc, f, how, sizeof(how));
	pa_coverage_process(f, proc, &c);
	pa_json_object_begin(j);
	pa_json_key_uint(j, "pid", proc->pid);
	pa_json_key_uint(j, "ppid", proc->ppid);
	pa_json_key_uint(j, "depth", depth);
	pa_json_key(j, "parent");
	if (depth && parent >= 0)
		pa_json_int(j, parent);
	else
		pa_json_null(j);
	pa_json_key_double(j, "start_s", pa_report_processes_start(w, proc));
	pa_json_key(j, "wall_s");
	if (end >= proc->start_ns && (proc->ended || proc->replaced))
		pa_json_double(j, (double)(end - proc->start_ns) / 1e9);
	else
		pa_json_null(j);
	pa_json_key_uint(j, "samples", samples);
	pa_json_key_uint(j, "threads", nthreads);
	pa_json_key_uint(j, "unsampled_threads", pa_filter_count_unsampled(f, proc));
	pa_json_key_string(j, "exe", exe[0] ? exe : NULL);
	pa_json_key_string(j, "ended", how);
	pa_report_processes_json_how(j, proc);
	pa_json_key_bool(j, "profiling_off", proc->mode == PPF_MODE_OFF);
	pa_json_key(j, "cpu_s");
	if (c.cpu_ns)
		pa_json_double(j, (double)c.cpu_ns / 1e9);
	else
		pa_json_null(j);
	pa_coverage_json(j, &c);
	pa_report_processes_json_before(j, proc, f);
	pa_json_key(j, "paused_s");
	if (proc->paused.pauses)
		pa_json_double(j, (double)proc->paused.paused_ns / 1e9);
	else
		pa_json_null(j);
	pa_json_key_uint(j, "pauses", proc->paused.pauses);
	pa_ident_json(j, proc);
	pa_json_object_end(j);
}

/* The rows of t; row_of maps an index of t.v to its row. */
static void pa_report_processes_json_rows(struct pa_json *j,
					  const struct pa_report_processes_tree *t,
					  size_t *row_of, const struct pa_report_processes_where *w,
					  const struct pa_filter *f)
{
	for (size_t r = 0; r < t->nrows; r++)
		row_of[t->order[r]] = r;
	for (size_t r = 0; r < t->nrows; r++) {
		size_t k = t->order[r], p = t->parent[k];

		pa_report_processes_json_row(j, t->v[k], t->depth[r],
					     p == PA_REPORT_PROCESSES_NONE ? -1 :
					     (int64_t)row_of[p], w, f);
	}
}

/*
 * The same as a JSON document (jsondoc.h; "processes" counts the rows,
 * "threads" sums theirs, "lost" is null) with one row per process, in the
 * same order: {"pid", "ppid", "depth" (0 for a root), "parent" (the index
 * in rows of its parent's row, null for a root), "start_s", "wall_s" (null
 * when unknown), "samples", "threads", "exe" (null when unknown), "ended"
 * (the ENDED text), "how" ("exit", "signal", "exec", "killed" or
 * "unknown", which a process.log without END that stopped early says too),
 * "exit_status", "signal" ("SIGABRT", or the number when it
 * has no name), "exec_path" (null when they do not apply),
 * "profiling_off", "cpu_s", "user_s", "system_s" (null when unknown),
 * "coverage" (coverage.h; null where it has no meaning), the before
 * members, "paused_s" (the wall time sampling was paused, null when it
 * never was) and "pauses"}. Returns 0, -ENOMEM, or -EIO on a write error.
 */
static int pa_report_processes_write_json(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_filter *filter = ctx->filter;
	struct pa_filter f = filter ? *filter : PA_FILTER_ALL;
	struct pa_jsondoc_counts c = { 0 };
	struct pa_report_processes_tree t;
	struct pa_report_processes_where w;
	struct pa_json *j = NULL;
	size_t *row_of = NULL;
	int ret = pa_report_processes_tree_init(&t, run, &f);

	if (ret == 0 && !(row_of = calloc(t.n + 1, sizeof(*row_of))))
		ret = -ENOMEM;
	pa_report_processes_where(run, &w);
	for (size_t k = 0; ret == 0 && k < t.n; k++) {
		size_t nthreads;

		c.samples += pa_report_processes_samples(t.v[k], &f, &nthreads);
		c.nthreads += nthreads;
	}
	c.nprocesses = t.nrows;
	if (ret == 0)
		ret = pa_jsondoc_begin(out, "processes", run, &f, &c, &j);
	if (ret == 0) {
		pa_json_key_array(j, "rows");
		pa_report_processes_json_rows(j, &t, row_of, &w, &f);
		pa_json_array_end(j);
		ret = pa_jsondoc_end(j);
	}
	free(row_of);
	pa_report_processes_tree_release(&t);
	return ret;
}

const struct pa_report pa_report_processes = {
	.name = "processes",
	.usage = "DIR [OPTIONS]",
	.help = "One row per process: pid, ppid, start (seconds after the\n"
		"run's first process), wall-clock duration, samples, threads,\n"
		"CPU, user and system time, the share of it the samples cover\n"
		"(COVER), the CPU time before profiling (BEFORE(s): the loader,\n"
		"constructors, the profiler's start; top and the others count\n"
		"it as '[before profiling]', estimated), executable and how\n"
		"it ended: 'exit N', 'signal\n"
		"SIGNAME', 'exec PATH' (its image was replaced; the new image\n"
		"is the next row with the same pid; '(statically linked: not\n"
		"profiled)' when it writes none), 'exit_group or killed?'\n"
		"(no END record: a raw exit_group, killed, or still running),\n"
		"'unknown (log full)' (no END record after its log stopped\n"
		"early, the disk full) or 'unknown'; 'off, ' comes first when\n"
		"profiling was off in it. A child is listed under its parent,\n"
		"its executable indented by two spaces per level.\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_RUN,
	.write = pa_report_processes_write,
	.write_json = pa_report_processes_write_json,
};
