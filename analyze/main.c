/*
 * pprof-analyze: the command line. The only place that prints errors and
 * picks exit codes: 0 ok, 1 bad input, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventinfo.h"
#include "openguard.h"
#include "profile.h"
#include "reader.h"
#include "runs.h"
#include "report_callers.h"
#include "report_annotate.h"
#include "report_counters.h"
#include "report_diff.h"
#include "report_events.h"
#include "report_flamegraph.h"
#include "report_folded.h"
#include "report_pprof.h"
#include "report_processes.h"
#include "report_script.h"
#include "report_speedscope.h"
#include "report_threads.h"
#include "report_top.h"
#include "symbols.h"
#include "report_tree.h"

#define PA_PROG "pprof-analyze"

enum pa_exit { PA_EXIT_OK = 0, PA_EXIT_INPUT = 1, PA_EXIT_USAGE = 2 };

static const char pa_main_usage[] =
"NAME\n"
"    pprof-analyze - report on the logs written by libpprof.so\n"
"\n"
"SYNOPSIS\n"
"    pprof-analyze top DIR [--limit N] [--lines] [--inlines] [OPTIONS]\n"
"    pprof-analyze tree DIR [--min-percent P] [OPTIONS]\n"
"    pprof-analyze callers FUNC DIR [OPTIONS]\n"
"    pprof-analyze callees FUNC DIR [OPTIONS]\n"
"    pprof-analyze annotate FUNC DIR [OPTIONS]\n"
"    pprof-analyze flamegraph DIR -o FILE.svg|FILE.html [--min-percent P]\n"
"                             [OPTIONS]\n"
"    pprof-analyze folded DIR [--per-thread] [OPTIONS]\n"
"    pprof-analyze pprof DIR -o FILE.pb.gz [OPTIONS]\n"
"    pprof-analyze speedscope DIR [-o FILE.json] [OPTIONS]\n"
"    pprof-analyze script DIR [OPTIONS]\n"
"    pprof-analyze threads DIR [OPTIONS]\n"
"    pprof-analyze processes DIR [OPTIONS]\n"
"    pprof-analyze events DIR [OPTIONS]\n"
"    pprof-analyze counters DIR [OPTIONS]\n"
"    pprof-analyze diff BASE NEW [--limit N] [OPTIONS]\n"
"    pprof-analyze -h | --help\n"
"\n"
"    DIR is a run's output directory (./pprof-data by default when\n"
"    profiling), holding one <exe>.<pid>/ directory per process, or one\n"
"    such process directory. Options may come before or after DIR.\n"
"    Every command but diff takes several DIRs (DIR...): their processes\n"
"    are read as one profile (a pid two runs share is listed twice).\n"
"\n"
"COMMANDS\n"
"    top      Flat profile: per function, self samples, self %, total\n"
"             (inclusive) samples, total %, estimated CPU time (samples x\n"
"             period, for events that count nanoseconds at a fixed period;\n"
"             '-' otherwise), name and module. Sorted by self samples.\n"
"             --lines: per source line instead, 'FILE:LINE FUNCTION' (the\n"
"             innermost inlined function's line); --inlines: each inline\n"
"             level is a function of its own.\n"
"    tree     Top-down call tree: one line per call path from the\n"
"             outermost frames, indented two spaces per level, with total\n"
"             (inclusive) samples, total %, self samples, self %; children\n"
"             sorted by total. Paths under --min-percent (default 0.5)\n"
"             of the samples are left out with what they call.\n"
"    callers FUNC\n"
"             The functions that call FUNC directly, with samples and\n"
"             their share of FUNC's total samples; [root] when FUNC is the\n"
"             outermost frame. A sample counts once per caller, so the\n"
"             shares of a recursive FUNC may add up to more than 100%.\n"
"             A FUNC no stack has is an error (exit 1) naming the closest.\n"
"    callees FUNC\n"
"             The functions FUNC calls directly, likewise, and [self]:\n"
"             the samples in which FUNC is the innermost frame.\n"
"    flamegraph\n"
"             Interactive flame graph, self-contained: SVG with its script\n"
"             (-o FILE.svg) or an HTML page (-o FILE.html). Click a frame\n"
"             to zoom, Escape to zoom out, search with a regular\n"
"             expression; tooltips give samples and percentages; one\n"
"             colour per module. --min-percent (default 0) leaves out\n"
"             paths under that share.\n"
"    annotate The source of function FUNC (as top names it; inlined\n"
"             functions too) with, per line, the samples in it (self) and\n"
"             with it on the stack (total), 3 lines of context around the\n"
"             counted ones; a source file that cannot be read is said so\n"
"             and its counted lines are listed without text.\n"
"    folded   Folded stacks, one line per distinct stack, root first,\n"
"             frames joined by ';', then a space and the sample count;\n"
"             input for flamegraph.pl or speedscope. No header line.\n"
"             --per-thread: two root frames per stack, 'EXE (PID)' and\n"
"             'THREAD (TID)'; with several DIRs, the DIR before them.\n"
"    pprof    gzip'd profile.proto for Go pprof: mappings, symbolised\n"
"             locations and functions, sample types samples/count and\n"
"             cpu/nanoseconds (time events), labels pid, tid and thread\n"
"             (and run, the DIR, with several DIRs).\n"
"    speedscope\n"
"             speedscope's JSON: one sampled profile per thread, samples in\n"
"             time order, weighted by the period; with several DIRs, each\n"
"             profile's name starts with its DIR.\n"
"    script   The text layout of 'perf script': 'COMM TID TIME: PERIOD\n"
"             EVENT:', one frame per line, a blank line after each sample;\n"
"             for stackcollapse-perf.pl, speedscope, Firefox Profiler; with\n"
"             several DIRs, COMM is 'DIR:COMM'.\n"
"    threads  One row per thread: pid, tid, name, samples, lost samples,\n"
"             late samples, how its log ended ('yes', 'full' when it\n"
"             stopped early because the disk was full, 'exec' when its\n"
"             process's image was replaced, 'no' when killed or still\n"
"             running), CPU time, executable.\n"
"    processes\n"
"             One row per process: pid, ppid, start (seconds after the\n"
"             run's first process), wall-clock duration, samples, threads,\n"
"             executable and how it ended: 'exit N', 'signal SIGNAME',\n"
"             'exec PATH' (its image was replaced; the new image is the\n"
"             next row with the same pid), 'killed?' (no END record: killed\n"
"             or still running), 'unknown (log full)' (no END record after\n"
"             its log stopped early, the disk full) or 'unknown'; 'off, '\n"
"             comes first when profiling was off in it. A child is listed\n"
"             under its parent, its executable indented by two spaces per\n"
"             level.\n"
"    events   The sampling mode (in force and requested) and where the\n"
"             configuration came from, then one row per event: name, event\n"
"             as written, kind (sample or count), perf encoding, period,\n"
"             scope (user, kernel), precise_ip, samples, lost samples, the\n"
"             processes that have it, status ('ok' or 'unavailable: WHY').\n"
"    counters Totals of the counting events per process and per thread,\n"
"             scaled when the kernel multiplexed the counter (value x time\n"
"             enabled / time running, shown as 'scaled, counted N% of the\n"
"             time'), with instructions per cycle and the cache and branch\n"
"             miss rates where both counts exist. '-': not known (the note\n"
"             in parentheses says why). Without counting events it says so\n"
"             in one line and exits 0.\n"
"    diff BASE NEW\n"
"             The functions whose share of the samples changed most from\n"
"             run BASE to run NEW: self % in BASE and NEW and its change,\n"
"             total % in BASE and NEW and its change (percentage points,\n"
"             NEW - BASE), function (module); sorted by the larger of the\n"
"             two changes. Functions match by name and module basename.\n"
"             The filters apply to both runs; --limit N: N functions.\n"
"\n"
"    top, threads and processes start with a line naming the event and its\n"
"    period, e.g. '# event cpu-clock: period 1 ms of CPU (user), 3,312\n"
"    samples'.\n"
"\n"
"    Caller frames in libpprof.so itself (the profiler's thread\n"
"    trampoline) are left out of stacks; a sample taken inside it keeps\n"
"    that leaf frame.\n"
"\n"
"    A frame that no symbol covers shows as MODULE+0xOFFSET (OFFSET is the\n"
"    ELF address, what addr2line -e MODULE takes); an address outside every\n"
"    module shows as [unknown].\n"
"\n"
"OPTIONS\n"
"    --pid PID      Only samples of process PID.\n"
"    --tid TID      Only samples of thread TID.\n"
"    --exe NAME     Only processes whose executable's basename (or full\n"
"                   path) is NAME; a warning when no process runs it.\n"
"    --thread NAME  Only threads named NAME (as threads shows it; '-' for\n"
"                   a thread without a name).\n"
"    --from S, --to S\n"
"                   Only samples taken from S seconds (default 0) to S\n"
"                   seconds (default: the end) after their process started.\n"
"                   Counts the logs total (lost samples, counters, CPU\n"
"                   time) are not cut to the window.\n"
"    --event NAME   The event to report: an event's name (its section in the\n"
"                   configuration) or the event as written ('cycles:u').\n"
"                   Default: the first sampling event that could be opened\n"
"                   (top, folded, threads, processes), every event (events,\n"
"                   counters). An unknown NAME, a counting event for a\n"
"                   sampling report (or the reverse), or an event that could\n"
"                   not be opened is an error (exit 1).\n"
"    --limit N      top, diff: print at most N functions (default: all).\n"
"    --lines        top: aggregate by source line.\n"
"    --inlines      top: inlined functions count as functions.\n"
"    --no-demangle  Keep C++ names mangled.\n"
"    --min-percent P\n"
"                   tree, flamegraph: leave out call paths with less than P\n"
"                   percent of the samples (default 0.5 for tree, 0 for\n"
"                   flamegraph).\n"
"    --per-thread   folded: process and thread as the two root frames (run\n"
"                   directory first with several DIRs).\n"
"    --format text|json\n"
"                   top, tree, callers, callees, annotate, threads,\n"
"                   processes, events, counters, diff: 'json' writes one\n"
"                   JSON object (report name, event, counts, rows) instead\n"
"                   of text (default 'text').\n"
"    -o, --output FILE\n"
"                   Write the report to FILE (replaced only once the report\n"
"                   is complete) instead of standard output.\n"
"    -h, --help     Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0  success (warnings about truncated or unfinished logs, or about\n"
"       files skipped as not regular files, may be printed)\n"
"    1  bad input: unreadable or malformed logs, no process directory,\n"
"       output not writable (the message names the file and byte offset),\n"
"       or an --event the logs do not have\n"
"    2  usage error: unknown command or option, missing DIR, bad number\n"
"\n"
"EXAMPLES\n"
"    LD_PRELOAD=build/libpprof.so ./app && pprof-analyze top pprof-data\n"
"    pprof-analyze top pprof-data --limit 20 --tid 4242\n"
"    pprof-analyze folded pprof-data | flamegraph.pl > flame.svg\n"
"    pprof-analyze threads pprof-data -o threads.txt\n"
"    pprof-analyze processes pprof-data\n"
"    pprof-analyze top pprof-data --exe worker\n"
"    pprof-analyze top pprof-data --from 2.5 --to 4 --thread worker\n"
"    pprof-analyze top run1 run2\n"
"    pprof-analyze diff before after --limit 20\n"
"    pprof-analyze top pprof-data --event page-faults\n"
"    pprof-analyze events pprof-data\n"
"    pprof-analyze counters pprof-data --pid 4242\n";

struct pa_main_opts {
	const char *command;
	char *const *dirs;  /* the DIR arguments (diff: BASE, NEW), in argv */
	size_t ndirs;
	struct pa_run *base;          /* diff: BASE's run (NEW's is main's run) */
	struct pa_filter base_filter; /* diff: the filter, its event chosen in BASE */
	const char *output;
	const char *event; /* --event NAME, NULL for the report's default */
	struct pa_filter filter;
	size_t limit;
	const char *func;   /* callers, callees: FUNC */
	double min_percent; /* tree, flamegraph: --min-percent, < 0 for the default */
	bool per_thread; /* folded --per-thread */
	bool lines;       /* --lines */
	bool inlines;     /* --inlines */
	bool no_demangle; /* --no-demangle */
	bool json;        /* --format json */
};

static void pa_main_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void pa_main_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PA_PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PA_PROG " --help' for more information.\n");
}

/* "pprof-analyze: [warning: ]PATH: offset N: REASON", leaving out what is unknown. */
static void pa_main_print(const char *kind, const char *path, bool has_offset,
			  uint64_t offset, const char *reason)
{
	fprintf(stderr, PA_PROG ": %s", kind);
	if (path[0])
		fprintf(stderr, "%s: ", path);
	if (has_offset)
		fprintf(stderr, "offset %" PRIu64 ": ", offset);
	fprintf(stderr, "%s\n", reason);
}

static void pa_main_print_error(const struct pa_error *err)
{
	pa_main_print("", err->path, err->has_offset, err->offset, err->reason);
}

static void pa_main_print_warnings(const struct pa_warnings *warn, size_t from)
{
	for (size_t i = from; i < warn->n; i++)
		pa_main_print("warning: ", warn->v[i].path, warn->v[i].has_offset,
			      warn->v[i].offset, warn->v[i].reason);
}

/* What libdw was kept from opening (analyze/openguard.h): after the report, as warnings. */
static void pa_main_print_refused(void)
{
	struct pa_warnings refused = { 0 };

	pa_openguard_take(&refused);
	pa_main_print_warnings(&refused, 0);
	pa_warnings_release(&refused);
}

/* Parse a whole decimal number in [min, max]; false if text is not one. */
static bool pa_main_number(const char *text, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

#define PA_MAIN_COMMANDS "top, folded, threads, processes, events, counters, pprof, " \
	"speedscope, script, tree, callers, callees, annotate, flamegraph or diff"

/*
 * A command: the kind of event it shows, whether it shows samples one by
 * one, and whether it writes JSON.
 */
struct pa_main_command {
	const char *name;
	enum pa_events_use use;
	bool in_time_order; /* every sample, in time order: not collapsed (pa_load_opts) */
	bool json;          /* --format json (PA_MAIN_JSON_COMMANDS) */
};

/* The command named command, or NULL when there is none. */
static const struct pa_main_command *pa_main_command(const char *command)
{
	static const struct pa_main_command commands[] = {
		{ "top", PA_EVENTS_SAMPLES, false, true },
		{ "folded", PA_EVENTS_SAMPLES, false, false },
		{ "threads", PA_EVENTS_SAMPLES, false, true },
		{ "processes", PA_EVENTS_SAMPLES, false, true },
		{ "events", PA_EVENTS_ANY, false, true },
		{ "counters", PA_EVENTS_COUNTS, false, true },
		{ "pprof", PA_EVENTS_SAMPLES, false, false },
		{ "speedscope", PA_EVENTS_SAMPLES, true, false },
		{ "script", PA_EVENTS_SAMPLES, true, false },
		{ "tree", PA_EVENTS_SAMPLES, false, true },
		{ "callers", PA_EVENTS_SAMPLES, false, true },
		{ "callees", PA_EVENTS_SAMPLES, false, true },
		{ "annotate", PA_EVENTS_SAMPLES, false, true },
		{ "flamegraph", PA_EVENTS_SAMPLES, false, false },
		{ "diff", PA_EVENTS_SAMPLES, false, true },
	};

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(command, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

/* Parse a percentage in [0, 100]; false if text is not one. */
static bool pa_main_percent(const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !(v >= 0 && v <= 100))
		return false;
	*out = v;
	return true;
}

/* --from or --to SECONDS (from each process's start) into o's filter. */
static bool pa_main_window(struct pa_main_opts *o, bool from, const char *text)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !(v >= 0 && v < 1e9)) {
		pa_main_usage_error("bad %s '%s': expected seconds (a number >= 0)",
				    from ? "--from" : "--to", text);
		return false;
	}
	if (!o->filter.window.on)
		o->filter.window = (struct pa_window){ .on = true, .to_ns = UINT64_MAX };
	*(from ? &o->filter.window.from_ns : &o->filter.window.to_ns) = (uint64_t)(v * 1e9 + 0.5);
	return true;
}

/* flamegraph writes a file whose suffix says the kind: -o is needed. */
static int pa_main_check_flamegraph(const struct pa_main_opts *o)
{
	enum pa_flamegraph_kind kind;

	if (strcmp(o->command, "flamegraph") != 0)
		return PA_EXIT_OK;
	if (!o->output || !pa_report_flamegraph_kind(o->output, &kind)) {
		pa_main_usage_error("flamegraph needs -o FILE.svg or -o FILE.html");
		return PA_EXIT_USAGE;
	}
	return PA_EXIT_OK;
}

#define PA_MAIN_JSON_COMMANDS "top, tree, callers, callees, annotate, threads, processes, " \
	"events, counters and diff"

/* --format json: only the reports that have it (PA_MAIN_JSON_COMMANDS). */
static int pa_main_check_format(const struct pa_main_opts *o)
{
	if (!o->json || pa_main_command(o->command)->json)
		return PA_EXIT_OK;
	pa_main_usage_error("'%s' has no --format json (only " PA_MAIN_JSON_COMMANDS " have)",
			    o->command);
	return PA_EXIT_USAGE;
}

static int pa_main_parse(int argc, char **argv, struct pa_main_opts *o)
{
	enum { OPT_PID = 256, OPT_TID, OPT_EVENT, OPT_LIMIT, OPT_EXE, OPT_PER_THREAD, OPT_MIN_PERCENT,
	       OPT_LINES, OPT_INLINES, OPT_NO_DEMANGLE, OPT_FROM, OPT_TO, OPT_THREAD,
	       OPT_FORMAT };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "min-percent", required_argument, NULL, OPT_MIN_PERCENT },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "inlines", no_argument, NULL, OPT_INLINES },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "thread", required_argument, NULL, OPT_THREAD },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->filter = PA_FILTER_ALL;
	o->min_percent = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		int64_t v;

		switch (c) {
		case OPT_PID:
		case OPT_TID:
			if (!pa_main_number(optarg, 1, UINT32_MAX, &v)) {
				pa_main_usage_error("bad %s '%s': expected a positive number",
						    c == OPT_PID ? "--pid" : "--tid", optarg);
				return PA_EXIT_USAGE;
			}
			*(c == OPT_PID ? &o->filter.pid : &o->filter.tid) = (uint32_t)v;
			break;
		case OPT_EVENT:
			o->event = optarg;
			break;
		case OPT_LIMIT:
			if (!pa_main_number(optarg, 0, INT64_MAX, &v)) {
				pa_main_usage_error("bad --limit '%s': expected a number", optarg);
				return PA_EXIT_USAGE;
			}
			o->limit = (size_t)v;
			break;
		case OPT_EXE:
			o->filter.exe = optarg;
			break;
		case OPT_PER_THREAD:
			o->per_thread = true;
			break;
		case OPT_MIN_PERCENT:
			if (!pa_main_percent(optarg, &o->min_percent)) {
				pa_main_usage_error("bad --min-percent '%s': expected a number "
						    "from 0 to 100", optarg);
				return PA_EXIT_USAGE;
			}
			break;
		case OPT_LINES:
			o->lines = true;
			break;
		case OPT_INLINES:
			o->inlines = true;
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = true;
			break;
		case OPT_FROM:
		case OPT_TO:
			if (!pa_main_window(o, c == OPT_FROM, optarg))
				return PA_EXIT_USAGE;
			break;
		case OPT_THREAD:
			o->filter.thread = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0) {
				pa_main_usage_error("bad --format '%s': expected text or json",
						    optarg);
				return PA_EXIT_USAGE;
			}
			o->json = strcmp(optarg, "json") == 0;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'h':
			fputs(pa_main_usage, stdout);
			exit(PA_EXIT_OK);
		case ':':
			pa_main_usage_error("option '%s' needs a value", argv[optind - 1]);
			return PA_EXIT_USAGE;
		default:
			pa_main_usage_error("unknown option '%s'", argv[optind - 1]);
			return PA_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		pa_main_usage_error("missing command (%s)", PA_MAIN_COMMANDS);
		return PA_EXIT_USAGE;
	}
	o->command = argv[optind++];
	if (!pa_main_command(o->command)) {
		pa_main_usage_error("unknown command '%s' (expected %s)", o->command,
				    PA_MAIN_COMMANDS);
		return PA_EXIT_USAGE;
	}
	if (strcmp(o->command, "callers") == 0 || strcmp(o->command, "callees") == 0 ||
	    strcmp(o->command, "annotate") == 0) {
		if (optind >= argc) {
			pa_main_usage_error("missing FUNC after '%s'", o->command);
			return PA_EXIT_USAGE;
		}
		o->func = argv[optind++];
	}
	if (optind >= argc) {
		pa_main_usage_error("missing DIR after '%s'", o->command);
		return PA_EXIT_USAGE;
	}
	o->dirs = &argv[optind];
	o->ndirs = (size_t)(argc - optind);
	if (strcmp(o->command, "diff") == 0 && o->ndirs != 2) {
		pa_main_usage_error("diff needs two directories, BASE and NEW");
		return PA_EXIT_USAGE;
	}
	if (o->filter.window.on && o->filter.window.from_ns >= o->filter.window.to_ns) {
		pa_main_usage_error("empty time window: --from must be before --to");
		return PA_EXIT_USAGE;
	}
	if (pa_main_check_format(o) != PA_EXIT_OK)
		return PA_EXIT_USAGE;
	return pa_main_check_flamegraph(o);
}

/* The reports that walk the samples one by one (samples.h). */
static int pa_main_report_samples(FILE *out, const struct pa_main_opts *o,
				  struct pa_run *run, struct pa_error *err)
{
	int (*report)(FILE *, const struct pa_run *, const struct pa_filter *,
		      struct pa_warnings *, struct pa_error *) = pa_report_folded_threads;
	size_t nwarn = run->warnings.n;
	int ret;

	if (strcmp(o->command, "pprof") == 0)
		report = pa_report_pprof;
	else if (strcmp(o->command, "speedscope") == 0)
		report = pa_report_speedscope;
	else if (strcmp(o->command, "script") == 0)
		report = pa_report_script;
	ret = report(out, run, &o->filter, &run->warnings, err);
	pa_main_print_warnings(&run->warnings, nwarn);
	return ret;
}

/* tree, callers, callees and flamegraph: the reports built on the call tree. */
static int pa_main_report_calltree(FILE *out, const struct pa_main_opts *o,
				   const struct pa_run *run, const struct pa_profile *prof,
				   struct pa_error *err)
{
	enum pa_flamegraph_kind kind = PA_FLAMEGRAPH_SVG;

	if (strcmp(o->command, "tree") == 0)
		return pa_report_tree(out, run, prof, o->min_percent >= 0 ? o->min_percent :
				      PA_REPORT_TREE_MIN_PERCENT);
	if (strcmp(o->command, "flamegraph") == 0) {
		pa_report_flamegraph_kind(o->output, &kind);
		return pa_report_flamegraph(out, run, prof, kind,
					    o->min_percent >= 0 ? o->min_percent : 0);
	}
	return pa_report_callers(out, run, prof, o->func,
				 strcmp(o->command, "callees") == 0, err);
}

/* What a frame of the profile is: --lines, --inlines. */
static enum pa_profile_by pa_main_by(const struct pa_main_opts *o)
{
	if (o->lines)
		return o->inlines ? PA_PROFILE_BY_LINE_INLINE : PA_PROFILE_BY_LINE;
	return o->inlines ? PA_PROFILE_BY_INLINE : PA_PROFILE_BY_FUNCTION;
}

/* diff: BASE's profile (o->base) against NEW's (run), with the same filter. */
static int pa_main_report_diff(FILE *out, const struct pa_main_opts *o, struct pa_run *run,
			       struct pa_error *err)
{
	struct pa_profile *base = NULL, *cur = NULL;
	size_t nwarn = o->base->warnings.n, ncur = run->warnings.n;
	int ret;

	ret = pa_profile_build_by(o->base, &o->base_filter, pa_main_by(o), &base,
				  &o->base->warnings, err);
	pa_main_print_warnings(&o->base->warnings, nwarn);
	if (ret == 0) {
		ret = pa_profile_build_by(run, &o->filter, pa_main_by(o), &cur, &run->warnings, err);
		pa_main_print_warnings(&run->warnings, ncur);
	}
	if (ret == 0) {
		ret = (o->json ? pa_report_diff_json : pa_report_diff)(out, o->base, base, run, cur,
									o->limit);
		if (ret == -ENOMEM)
			pa_error_set(err, ret, run->dir, false, 0, "out of memory");
		else if (ret == -EINVAL) /* a JSON writer misused */
			pa_error_set(err, ret, run->dir, false, 0, "JSON output: %s", strerror(-ret));
	}
	pa_profile_free(base);
	pa_profile_free(cur);
	return ret;
}

/* Write the chosen report to out as JSON (pa_main_check_format said it has it). */
static int pa_main_report_json(FILE *out, const struct pa_main_opts *o, struct pa_run *run,
			       struct pa_error *err)
{
	struct pa_profile *prof = NULL;
	size_t nwarn = run->warnings.n;
	int ret;

	if (strcmp(o->command, "threads") == 0)
		ret = pa_report_threads_json(out, run, &o->filter);
	else if (strcmp(o->command, "processes") == 0)
		ret = pa_report_processes_json(out, run, &o->filter);
	else if (strcmp(o->command, "events") == 0)
		ret = pa_report_events_json(out, run, &o->filter);
	else if (strcmp(o->command, "counters") == 0)
		ret = pa_report_counters_json(out, run, &o->filter);
	else if (strcmp(o->command, "annotate") == 0)
		ret = pa_report_annotate_json(out, run, &o->filter, o->func, &run->warnings, err);
	else
		ret = pa_profile_build_by(run, &o->filter, pa_main_by(o), &prof, &run->warnings,
					  err);
	pa_main_print_warnings(&run->warnings, nwarn);
	if (ret < 0 || !prof)
		goto out;
	if (strcmp(o->command, "top") == 0)
		ret = pa_report_top_json(out, run, prof, o->limit);
	else if (strcmp(o->command, "tree") == 0)
		ret = pa_report_tree_json(out, run, prof, o->min_percent >= 0 ?
					  o->min_percent : PA_REPORT_TREE_MIN_PERCENT);
	else
		ret = pa_report_callers_json(out, run, prof, o->func,
					     strcmp(o->command, "callees") == 0, err);
	pa_profile_free(prof);
out:
	if ((ret == -ENOMEM || ret == -EINVAL) && !err->reason[0])
		pa_error_set(err, ret, "", false, 0, "JSON output: %s", strerror(-ret));
	return ret;
}

/* Write the chosen report to out. */
static int pa_main_report(FILE *out, const struct pa_main_opts *o, struct pa_run *run,
			  struct pa_error *err)
{
	struct pa_profile *prof = NULL;
	size_t nwarn = run->warnings.n;
	int ret;

	if (strcmp(o->command, "diff") == 0)
		return pa_main_report_diff(out, o, run, err);
	if (o->json)
		return pa_main_report_json(out, o, run, err);
	if (strcmp(o->command, "threads") == 0)
		return pa_report_threads(out, run, &o->filter);
	if (strcmp(o->command, "processes") == 0)
		return pa_report_processes(out, run, &o->filter);
	if (strcmp(o->command, "events") == 0)
		return pa_report_events(out, run, &o->filter);
	if (strcmp(o->command, "counters") == 0)
		return pa_report_counters(out, run, &o->filter);
	if (strcmp(o->command, "pprof") == 0 || strcmp(o->command, "speedscope") == 0 ||
	    strcmp(o->command, "script") == 0 ||
	    (strcmp(o->command, "folded") == 0 && o->per_thread))
		return pa_main_report_samples(out, o, run, err);
	if (strcmp(o->command, "annotate") == 0) {
		ret = pa_report_annotate(out, run, &o->filter, o->func, &run->warnings, err);
		pa_main_print_warnings(&run->warnings, nwarn);
		return ret;
	}
	ret = pa_profile_build_by(run, &o->filter, pa_main_by(o), &prof, &run->warnings, err);
	pa_main_print_warnings(&run->warnings, nwarn);
	if (ret < 0)
		return ret;
	if (strcmp(o->command, "top") == 0)
		ret = pa_report_top(out, run, prof, o->limit);
	else if (strcmp(o->command, "folded") == 0)
		ret = pa_report_folded(out, prof);
	else
		ret = pa_main_report_calltree(out, o, run, prof, err);
	pa_profile_free(prof);
	return ret;
}

/* --exe NAME that no process runs: an empty report, and a warning saying why. */
static void pa_main_check_exe(const struct pa_main_opts *o, const struct pa_run *run)
{
	if (!o->filter.exe)
		return;
	for (size_t i = 0; i < run->nprocesses; i++)
		if (pa_process_runs(run->processes[i], o->filter.exe))
			return;
	fprintf(stderr, PA_PROG ": warning: no process runs %s\n", o->filter.exe);
}

/* Report into o->output through a temporary file, renamed once complete. */
static int pa_main_report_to_file(const struct pa_main_opts *o, struct pa_run *run,
				  struct pa_error *err)
{
	char *tmp = NULL;
	FILE *out;
	int ret;

	if (asprintf(&tmp, "%s.tmp", o->output) < 0)
		return pa_error_set(err, -ENOMEM, o->output, false, 0, "out of memory");
	out = fopen(tmp, "w");
	if (!out) {
		ret = pa_error_set(err, -errno, tmp, false, 0, "cannot create: %s", strerror(errno));
		free(tmp);
		return ret;
	}
	ret = pa_main_report(out, o, run, err);
	if (fclose(out) != 0 && ret == 0)
		ret = -EIO;
	if (ret == -EIO)
		pa_error_set(err, ret, tmp, false, 0, "write failed");
	if (ret == 0 && rename(tmp, o->output) < 0)
		ret = pa_error_set(err, -errno, o->output, false, 0, "cannot rename %s: %s",
				   tmp, strerror(errno));
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* A progress line on a terminal while logs load, once that takes over a second. */
struct pa_main_progress {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	bool shown;
};

static void *pa_main_progress_run(void *arg)
{
	struct pa_main_progress *p = arg;
	struct timespec start, until;

	clock_gettime(CLOCK_REALTIME, &start);
	pthread_mutex_lock(&p->lock);
	for (int tick = 1; !p->done; tick++) {
		until = start;
		until.tv_sec += tick / 10;
		until.tv_nsec += (long)(tick % 10) * 100000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&p->cond, &p->lock, &until) == 0 || p->done)
			break;
		if (tick >= 10) {
			fprintf(stderr, "\r" PA_PROG ": reading logs: %zu thread logs read",
				pa_reader_logs_read());
			p->shown = true;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Starts the progress line when stderr is a terminal; returns whether it runs. */
static bool pa_main_progress_start(struct pa_main_progress *p)
{
	*p = (struct pa_main_progress){ .lock = PTHREAD_MUTEX_INITIALIZER,
					 .cond = PTHREAD_COND_INITIALIZER };
	return isatty(STDERR_FILENO) &&
	       pthread_create(&p->thread, NULL, pa_main_progress_run, p) == 0;
}

static void pa_main_progress_stop(struct pa_main_progress *p)
{
	pthread_mutex_lock(&p->lock);
	p->done = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	if (p->shown)
		fprintf(stderr, "\r\033[K");
}

/* Load dirs[0..n) as one run into *run, say its warnings, choose f's event. */
static int pa_main_load_run(const struct pa_main_opts *o, char *const *dirs, size_t n,
			    struct pa_filter *f, struct pa_run **run, struct pa_error *err)
{
	const struct pa_main_command *cmd = pa_main_command(o->command);
	/*
	 * Only speedscope and script show samples one by one, in time order;
	 * every other report reads a thread's identical samples as one with a
	 * count, so that memory follows distinct stacks. The time window is
	 * applied while reading: what it leaves out is never kept.
	 */
	struct pa_load_opts lo = {
		.collapse = !cmd->in_time_order, .window = f->window,
	};
	struct pa_main_progress progress;
	bool shown = pa_main_progress_start(&progress);
	int ret = pa_runs_merge((const char *const *)dirs, n, &lo, run, err);

	if (shown)
		pa_main_progress_stop(&progress);
	if (ret < 0)
		return ret;
	pa_main_print_warnings(&(*run)->warnings, 0);
	pa_main_check_exe(o, *run);
	ret = pa_events_choose(*run, f, o->event, cmd->use, err);
	if (ret < 0) {
		pa_run_free(*run);
		*run = NULL;
	}
	return ret;
}

/* Load the DIRs: merged into *run; for diff BASE into o->base, NEW into *run. */
static int pa_main_load(struct pa_main_opts *o, struct pa_run **run, struct pa_error *err)
{
	size_t diff = strcmp(o->command, "diff") == 0;
	int ret;

	if (diff) {
		o->base_filter = o->filter;
		ret = pa_main_load_run(o, o->dirs, 1, &o->base_filter, &o->base, err);
		if (ret < 0)
			return ret;
	}
	ret = pa_main_load_run(o, o->dirs + diff, o->ndirs - diff, &o->filter, run, err);
	if (ret < 0) {
		pa_run_free(o->base);
		o->base = NULL;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct pa_error err = { 0 };
	struct pa_main_opts o;
	struct pa_run *run;
	int ret;

	ret = pa_main_parse(argc, argv, &o);
	if (ret != PA_EXIT_OK)
		return ret;
	pa_symbols_set_defaults(&(struct pa_symbols_opts){ .no_demangle = o.no_demangle });
	if (pa_main_load(&o, &run, &err) < 0) {
		pa_main_print_error(&err);
		return PA_EXIT_INPUT;
	}
	if (o.output) {
		ret = pa_main_report_to_file(&o, run, &err);
	} else {
		ret = pa_main_report(stdout, &o, run, &err);
		if (fflush(stdout) != 0 && ret == 0)
			ret = pa_error_set(&err, -EIO, "<stdout>", false, 0, "write failed");
		else if (ret == -EIO)
			pa_error_set(&err, ret, "<stdout>", false, 0, "write failed");
	}
	pa_main_print_refused();
	pa_run_free(run);
	pa_run_free(o.base);
	if (ret < 0) {
		pa_main_print_error(&err);
		return PA_EXIT_INPUT;
	}
	return PA_EXIT_OK;
}
