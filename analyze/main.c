/*
 * pprof-analyze: the command line. The only place that prints errors and
 * picks exit codes: 0 ok, 1 bad input, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coverage.h"
#include "eventinfo.h"
#include "ident.h"
#include "openguard.h"
#include "profile.h"
#include "reader.h"
#include "runs.h"
#include "report.h"
#include "symbols.h"

#define PA_PROG "pprof-analyze"

enum pa_exit { PA_EXIT_OK = 0, PA_EXIT_INPUT = 1, PA_EXIT_USAGE = 2 };

/* --help's text around what the reports say of themselves (pa_main_help). */
static const char pa_main_help_head[] =
"NAME\n"
"    pprof-analyze - report on the logs written by libpprof.so\n"
"\n"
"SYNOPSIS\n";

static const char pa_main_help_dirs[] =
"    pprof-analyze -h | --help\n"
"\n"
"    DIR is a run's output directory (./pprof-data by default when\n"
"    profiling), holding each process's log, <exe>@<host>.<pid>.log, and\n"
"    its threads' logs beside it (older runs: one <exe>@<host>.<pid>/ or\n"
"    <exe>.<pid>/ directory per process), or one process's log (that\n"
"    process alone), or one such process directory.\n"
"    Options may come before or after DIR.\n"
"    Every command but diff takes several DIRs (DIR...): their processes\n"
"    are read as one profile (a pid two runs share is listed twice).\n"
"\n"
"COMMANDS\n";

static const char pa_main_help_options[] =
"\n"
"    top, threads and processes start with a line naming the event and its\n"
"    period, e.g. '# event cpu-clock: period 1 ms of CPU (user), 3,312\n"
"    samples'. Notes follow it, '# coverage below 90%: ...' when threads\n"
"    with over 0.1 s of CPU time are sampled less (named, with what their\n"
"    logs say of why), '# short threads covered below 90%: ...' when a\n"
"    process's threads of 0.1 s or less each add up to more and are\n"
"    sampled less, '# CPU time in no thread's log: ...' when a process\n"
"    used CPU time in threads whose logs hold none (never sampled), and\n"
"    '# kernel time not sampled ...' when threads spent over 0.1 s and a\n"
"    tenth or more of their CPU time in the kernel, which the event does\n"
"    not count. Reports without that line print the notes on stderr\n"
"    ('pprof-analyze: note: ...'); JSON documents hold them in \"notes\".\n"
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
"    --host NAME    Only processes that ran on host NAME (its name or its\n"
"                   short name, up to the first '.'); a warning when none\n"
"                   did.\n"
"    --rank R       Only processes of MPI rank R (as the launcher's\n"
"                   environment said); a warning when none has it.\n"
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
"    --limit N      top, diff: print at most N functions (default, or 0: all).\n"
"    --lines        top: aggregate by source line.\n"
"    --inlines      top: inlined functions count as functions.\n"
"    --no-demangle  Keep C++ names mangled.\n"
"    --binary-path DIR[:DIR...]\n"
"                   Where else to look for an executable or library whose\n"
"                   file is gone from the path the run recorded (or was\n"
"                   rebuilt): in each DIR, DIR/BUILDID/NAME, DIR/BUILDID,\n"
"                   DIR/PATH, DIR/NAME, a file with the recorded build-id\n"
"                   only. Default: $PPROF_BINARY_PATH.\n"
"    --min-percent P\n"
"                   tree, flamegraph: leave out call paths with less than P\n"
"                   percent of the samples (default 0.5 for tree, 0 for\n"
"                   flamegraph).\n"
"    --per-thread   folded: process and thread as the two root frames (run\n"
"                   directory first with several DIRs).\n";

static const char pa_main_help_tail[] =
"    -o, --output FILE\n"
"                   Write the report to FILE (replaced only once the report\n"
"                   is complete) instead of standard output.\n"
"    -h, --help     Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0  success (warnings about truncated or unfinished logs, or about\n"
"       files skipped as not regular files, may be printed)\n"
"    1  bad input: unreadable or malformed logs, no process's log,\n"
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
"    pprof-analyze counters pprof-data --pid 4242\n"
"    pprof-analyze ranks pprof-data\n";

struct pa_main_opts {
	const struct pa_report *report; /* the command's (its variant for the options) */
	char **dirs;        /* the DIR arguments (diff: BASE, NEW), in argv */
	size_t ndirs;
	struct pa_run *base;          /* diff: BASE's run (NEW's is main's run) */
	struct pa_filter base_filter; /* diff: the filter, its event chosen in BASE */
	const char *event; /* --event NAME, NULL for the report's default */
	struct pa_filter filter;
	struct pa_report_opts ropts; /* what the report's writer reads */
	bool limit_given, min_percent_given; /* --limit, --min-percent */
	bool lines;       /* --lines */
	bool inlines;     /* --inlines */
	bool no_demangle; /* --no-demangle */
	const char *binary_path; /* --binary-path, else $PPROF_BINARY_PATH */
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

/*
 * The reports, in the order of --help's SYNOPSIS, which is also the order
 * of the list of reports with --format json. Two older orders are kept as
 * ranks so that --help and the messages stay as they were (lowest first,
 * ties in the table's order; a new report takes the next of each):
 * explained, a report's rank under COMMANDS, and listed, its rank in the
 * list of commands a usage error gives.
 */
static const struct pa_main_report {
	const struct pa_report *report;
	unsigned explained;
	unsigned listed;
} pa_main_reports[] = {
	{ &pa_report_top, 0, 0 },
	{ &pa_report_tree, 1, 9 },
	{ &pa_report_callers, 2, 10 },
	{ &pa_report_callees, 3, 11 },
	{ &pa_report_annotate, 5, 12 },
	{ &pa_report_flamegraph, 4, 13 },
	{ &pa_report_folded, 6, 1 },
	{ &pa_report_pprof, 7, 6 },
	{ &pa_report_speedscope, 8, 7 },
	{ &pa_report_script, 9, 8 },
	{ &pa_report_threads, 10, 2 },
	{ &pa_report_processes, 11, 3 },
	{ &pa_report_events, 12, 4 },
	{ &pa_report_counters, 13, 5 },
	{ &pa_report_diff, 14, 14 },
	{ &pa_report_ranks, 15, 15 },
};

#define PA_MAIN_NREPORTS (sizeof(pa_main_reports) / sizeof(pa_main_reports[0]))

/* The report named name, or NULL when there is none. */
static const struct pa_report *pa_main_find(const char *name)
{
	for (size_t i = 0; i < PA_MAIN_NREPORTS; i++)
		if (strcmp(name, pa_main_reports[i].report->name) == 0)
			return pa_main_reports[i].report;
	return NULL;
}

/* The orders in which the reports are named. */
enum pa_main_order { PA_MAIN_BY_TABLE, PA_MAIN_BY_EXPLAINED, PA_MAIN_BY_LISTED };

static unsigned pa_main_rank(size_t i, enum pa_main_order by)
{
	switch (by) {
	case PA_MAIN_BY_EXPLAINED: return pa_main_reports[i].explained;
	case PA_MAIN_BY_LISTED: return pa_main_reports[i].listed;
	default: return (unsigned)i;
	}
}

/* order[]: the table's indexes sorted by their rank in by (ties keep the table's order). */
static void pa_main_sort(size_t order[PA_MAIN_NREPORTS], enum pa_main_order by)
{
	for (size_t i = 0; i < PA_MAIN_NREPORTS; i++) {
		size_t k = i;

		for (; k > 0 && pa_main_rank(order[k - 1], by) > pa_main_rank(i, by); k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
}

/*
 * The names of the reports (json: only of those with --format json) in
 * order by, joined by ", ", or by last before the last one when not NULL
 * (" or ": "a, b or c"). Into buf (size bytes, cut short when it does not
 * fit); returns buf.
 */
static char *pa_main_names(char *buf, size_t size, enum pa_main_order by, bool json,
			   const char *last)
{
	const char *names[PA_MAIN_NREPORTS];
	size_t order[PA_MAIN_NREPORTS], n = 0, len = 0;

	pa_main_sort(order, by);
	for (size_t i = 0; i < PA_MAIN_NREPORTS; i++)
		if (!json || pa_main_reports[order[i]].report->write_json)
			names[n++] = pa_main_reports[order[i]].report->name;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 < n || !last ? ", " : last;
		int w = snprintf(buf + len, size - len, "%s%s", sep, names[i]);

		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
	return buf;
}

/* Each line of text (split at '\n'), the first after first spaces, the others after indent. */
static void pa_main_help_lines(const char *text, int first, int indent)
{
	for (int pad = first; *text; pad = indent) {
		size_t n = strcspn(text, "\n");

		printf("%*s%.*s\n", pad, "", (int)n, text);
		text += n + (text[n] == '\n');
	}
}

/* text in lines of at most width columns after indent spaces, words kept whole. */
static void pa_main_help_wrap(const char *text, int indent, int width)
{
	size_t room = (size_t)(width - indent);

	while (*text) {
		size_t n = strcspn(text, " ");

		while (text[n] == ' ') {
			size_t next = n + 1 + strcspn(text + n + 1, " ");

			if (next > room)
				break;
			n = next;
		}
		printf("%*s%.*s\n", indent, "", (int)n, text);
		text += n;
		text += strspn(text, " ");
	}
}

/*
 * --help's layout: the column where a report's paragraph under COMMANDS
 * starts, the column where an option's starts, and the widest line.
 */
#define PA_MAIN_HELP_COLUMN 13
#define PA_MAIN_HELP_OPTION_COLUMN 19
#define PA_MAIN_HELP_WIDTH 75

/* r's paragraph under COMMANDS: its name (and arguments), then its help. */
static void pa_main_help_command(const struct pa_report *r)
{
	const char *sep = r->help_args ? " " : "", *args = r->help_args ? r->help_args : "";
	int len = printf("    %s%s%s", r->name, sep, args);

	if (len < PA_MAIN_HELP_COLUMN) {
		pa_main_help_lines(r->help, PA_MAIN_HELP_COLUMN - len, PA_MAIN_HELP_COLUMN);
	} else {
		putchar('\n');
		pa_main_help_lines(r->help, PA_MAIN_HELP_COLUMN, PA_MAIN_HELP_COLUMN);
	}
}

/* --help: what the table's reports say of themselves, in the text around it. */
static void pa_main_help(void)
{
	char names[512], text[1024];
	size_t order[PA_MAIN_NREPORTS];

	fputs(pa_main_help_head, stdout);
	for (size_t i = 0; i < PA_MAIN_NREPORTS; i++) {
		const struct pa_report *r = pa_main_reports[i].report;
		int len = printf("    " PA_PROG " %s ", r->name);

		pa_main_help_lines(r->usage, 0, len);
	}
	fputs(pa_main_help_dirs, stdout);
	pa_main_sort(order, PA_MAIN_BY_EXPLAINED);
	for (size_t i = 0; i < PA_MAIN_NREPORTS; i++)
		pa_main_help_command(pa_main_reports[order[i]].report);
	fputs(pa_main_help_options, stdout);
	snprintf(text, sizeof(text), "%s: 'json' writes one JSON object (report name, event, "
		 "counts, rows) instead of text (default 'text').",
		 pa_main_names(names, sizeof(names), PA_MAIN_BY_TABLE, true, NULL));
	fputs("    --format text|json\n", stdout);
	pa_main_help_wrap(text, PA_MAIN_HELP_OPTION_COLUMN, PA_MAIN_HELP_WIDTH);
	fputs(pa_main_help_tail, stdout);
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
	if (!o->filter.window.on) {
		o->filter.window.on = true;
		o->filter.window.from_ns = 0;
		o->filter.window.to_ns = UINT64_MAX;
	}
	*(from ? &o->filter.window.from_ns : &o->filter.window.to_ns) = (uint64_t)(v * 1e9 + 0.5);
	return true;
}

/* Whether path a is b or inside it (both resolved; NULL: not resolved). */
static bool pa_main_within(const char *a, const char *b)
{
	size_t n = b ? strlen(b) : 0;

	return a && b && strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/' ||
						    (n == 1 && b[0] == '/'));
}

/*
 * The DIRs, each run's files once: one given twice (by two names, or a
 * process's log given beside the run that holds it) would count its
 * processes twice. The later is left out, said.
 */
static void pa_main_once(struct pa_main_opts *o)
{
	char **real = calloc(o->ndirs ? o->ndirs : 1, sizeof(*real));
	size_t n = 0;

	if (!real)
		return;
	for (size_t i = 0; i < o->ndirs; i++) {
		char *r = realpath(o->dirs[i], NULL);
		size_t k;

		for (k = 0; k < n && !pa_main_within(r, real[k]); k++)
			;
		if (k < n) {
			fprintf(stderr, PA_PROG ": warning: %s: read already (it is, or is inside, "
				"%s, given before it): left out\n", o->dirs[i], o->dirs[k]);
			free(r);
			continue;
		}
		/* One given before inside this one: this one holds it. */
		for (k = 0; k < n; k++)
			if (pa_main_within(real[k], r)) {
				fprintf(stderr, PA_PROG ": warning: %s: inside %s, given after it: "
					"read with it\n", o->dirs[k], o->dirs[i]);
				free(real[k]);
				/* The others keep their order (the command line's). */
				memmove(&real[k], &real[k + 1], (n - k - 1) * sizeof(*real));
				memmove(&o->dirs[k], &o->dirs[k + 1], (n - k - 1) * sizeof(*o->dirs));
				n--;
				k--;
			}
		real[n] = r;
		o->dirs[n++] = o->dirs[i];
	}
	for (size_t i = 0; i < n; i++)
		free(real[i]);
	free(real);
	o->ndirs = n;
}

/*
 * The command, its FUNC and its DIRs (argv[optind..argc), the options
 * already parsed), then what the report asks of them.
 */
static int pa_main_parse_command(int argc, char **argv, struct pa_main_opts *o)
{
	const struct pa_report *r;
	const char *why;
	char names[512];

	if (optind >= argc) {
		pa_main_usage_error("missing command (%s)",
				    pa_main_names(names, sizeof(names), PA_MAIN_BY_LISTED, false,
						  " or "));
		return PA_EXIT_USAGE;
	}
	r = pa_main_find(argv[optind]);
	if (!r) {
		pa_main_usage_error("unknown command '%s' (expected %s)", argv[optind],
				    pa_main_names(names, sizeof(names), PA_MAIN_BY_LISTED, false,
						  " or "));
		return PA_EXIT_USAGE;
	}
	optind++;
	/*
	 * An option of other reports' (their SYNOPSIS names it) would be
	 * ignored here: said, so that no one takes top's output for
	 * --per-thread's.
	 */
	{
		static const char *const own[] = { "--limit", "--min-percent", "--per-thread" };
		const bool given[] = { o->limit_given, o->min_percent_given, o->ropts.per_thread };

		for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
			if (given[i] && !strstr(r->usage, own[i])) {
				pa_main_usage_error("%s does not apply to %s", own[i], r->name);
				return PA_EXIT_USAGE;
			}
	}
	if (r->variant)
		r = r->variant(&o->ropts);
	o->report = r;
	if (r->takes_func) {
		if (optind >= argc) {
			pa_main_usage_error("missing FUNC after '%s'", r->name);
			return PA_EXIT_USAGE;
		}
		o->ropts.func = argv[optind++];
	}
	if (optind >= argc) {
		pa_main_usage_error("missing DIR after '%s'", r->name);
		return PA_EXIT_USAGE;
	}
	o->dirs = &argv[optind];
	o->ndirs = (size_t)(argc - optind);
	for (size_t i = 0; i < o->ndirs; i++)
		if (!o->dirs[i][0]) {
			pa_main_usage_error("bad DIR '': expected a run's directory or log");
			return PA_EXIT_USAGE;
		}
	if (r->needs == PA_REPORT_NEEDS_TWO_RUNS && o->ndirs != 2) {
		pa_main_usage_error("%s needs two directories, BASE and NEW", r->name);
		return PA_EXIT_USAGE;
	}
	if (r->needs != PA_REPORT_NEEDS_TWO_RUNS)
		pa_main_once(o);
	if (o->filter.window.on && o->filter.window.from_ns >= o->filter.window.to_ns) {
		pa_main_usage_error("empty time window: --from must be before --to");
		return PA_EXIT_USAGE;
	}
	if (o->ropts.json && !r->write_json) {
		pa_main_usage_error("'%s' has no --format json (only %s have)", r->name,
				    pa_main_names(names, sizeof(names), PA_MAIN_BY_TABLE, true,
						  " and "));
		return PA_EXIT_USAGE;
	}
	why = r->check ? r->check(&o->ropts) : NULL;
	if (why) {
		pa_main_usage_error("%s", why);
		return PA_EXIT_USAGE;
	}
	return PA_EXIT_OK;
}

static int pa_main_parse(int argc, char **argv, struct pa_main_opts *o)
{
	enum { OPT_PID = 256, OPT_TID, OPT_EVENT, OPT_LIMIT, OPT_EXE, OPT_PER_THREAD, OPT_MIN_PERCENT,
	       OPT_LINES, OPT_INLINES, OPT_NO_DEMANGLE, OPT_FROM, OPT_TO, OPT_THREAD,
	       OPT_FORMAT, OPT_BINARY_PATH, OPT_HOST, OPT_RANK };
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
		{ "binary-path", required_argument, NULL, OPT_BINARY_PATH },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "thread", required_argument, NULL, OPT_THREAD },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "rank", required_argument, NULL, OPT_RANK },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->filter = PA_FILTER_ALL;
	o->ropts = PA_REPORT_OPTS_DEFAULT;
	o->binary_path = getenv("PPROF_BINARY_PATH");
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
			o->ropts.limit = (size_t)v;
			o->limit_given = true;
			break;
		case OPT_EXE:
			o->filter.exe = optarg;
			break;
		case OPT_PER_THREAD:
			o->ropts.per_thread = true;
			break;
		case OPT_MIN_PERCENT:
			if (!pa_main_percent(optarg, &o->ropts.min_percent)) {
				pa_main_usage_error("bad --min-percent '%s': expected a number "
						    "from 0 to 100", optarg);
				return PA_EXIT_USAGE;
			}
			o->min_percent_given = true;
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
		case OPT_BINARY_PATH:
			o->binary_path = optarg;
			break;
		case OPT_FROM:
		case OPT_TO:
			if (!pa_main_window(o, c == OPT_FROM, optarg))
				return PA_EXIT_USAGE;
			break;
		case OPT_THREAD:
			o->filter.thread = optarg;
			break;
		case OPT_HOST:
			if (!optarg[0]) {
				pa_main_usage_error("bad --host '': expected a host name");
				return PA_EXIT_USAGE;
			}
			o->filter.host = optarg;
			break;
		case OPT_RANK:
			if (!pa_main_number(optarg, 0, INT32_MAX, &v)) {
				pa_main_usage_error("bad --rank '%s': expected an MPI rank (a "
						    "number from 0)", optarg);
				return PA_EXIT_USAGE;
			}
			o->filter.by_rank = true;
			o->filter.rank = (int32_t)v;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0) {
				pa_main_usage_error("bad --format '%s': expected text or json",
						    optarg);
				return PA_EXIT_USAGE;
			}
			o->ropts.json = strcmp(optarg, "json") == 0;
			break;
		case 'o':
			if (!optarg[0]) {
				pa_main_usage_error("bad -o '': expected a file name");
				return PA_EXIT_USAGE;
			}
			o->ropts.output = optarg;
			break;
		case 'h':
			pa_main_help();
			exit(PA_EXIT_OK);
		case ':':
			pa_main_usage_error("option '%s' needs a value", argv[optind - 1]);
			return PA_EXIT_USAGE;
		default:
			pa_main_usage_error("unknown option '%s'", argv[optind - 1]);
			return PA_EXIT_USAGE;
		}
	}
	return pa_main_parse_command(argc, argv, o);
}

/* What a frame of the profile is: --lines, --inlines. */
static enum pa_profile_by pa_main_by(const struct pa_main_opts *o)
{
	if (o->lines)
		return o->inlines ? PA_PROFILE_BY_LINE_INLINE : PA_PROFILE_BY_LINE;
	return o->inlines ? PA_PROFILE_BY_INLINE : PA_PROFILE_BY_FUNCTION;
}

/* The profile of run's samples that f selects, with its warnings said. */
static int pa_main_profile(const struct pa_main_opts *o, struct pa_run *run,
			   const struct pa_filter *f, struct pa_profile **prof,
			   struct pa_error *err)
{
	size_t nwarn = run->warnings.n;
	int ret = pa_profile_build_by(run, f, pa_main_by(o), prof, &run->warnings, err);

	pa_main_print_warnings(&run->warnings, nwarn);
	return ret;
}

/* Write the chosen report to out, after building the profiles it needs. */
static int pa_main_report(FILE *out, const struct pa_main_opts *o, struct pa_run *run,
			  struct pa_error *err)
{
	const struct pa_report *r = o->report;
	bool two = r->needs == PA_REPORT_NEEDS_TWO_RUNS;
	struct pa_profile *base = NULL, *prof = NULL;
	int ret = 0;

	if (two)
		ret = pa_main_profile(o, o->base, &o->base_filter, &base, err);
	if (ret == 0 && (two || r->needs == PA_REPORT_NEEDS_PROFILE))
		ret = pa_main_profile(o, run, &o->filter, &prof, err);
	if (ret == 0) {
		struct pa_report_ctx ctx = {
			.out = out, .opts = &o->ropts, .filter = &o->filter, .run = run,
			.prof = prof, .base_run = o->base, .base_prof = base,
			.warn = &run->warnings, .err = err,
		};
		size_t nwarn = run->warnings.n;

		ret = (o->ropts.json ? r->write_json : r->write)(&ctx);
		pa_main_print_warnings(&run->warnings, nwarn);
		if (ret == 0 && r->notes_apart && !o->ropts.json)
			pa_coverage_notes(stderr, PA_PROG ": note: ", run, &o->filter);
	}
	if (o->ropts.json && (ret == -ENOMEM || ret == -EINVAL) && !err->reason[0])
		pa_error_set(err, ret, "", false, 0, "JSON output: %s", strerror(-ret));
	pa_profile_free(prof);
	pa_profile_free(base);
	return ret;
}

/*
 * --exe NAME that no process runs, --host or --rank that no process has:
 * an empty report, and a warning saying why.
 */
static void pa_main_check_exe(const struct pa_main_opts *o, const struct pa_run *run)
{
	bool exe = !o->filter.exe, host = !o->filter.host, rank = !o->filter.by_rank;

	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];

		exe |= pa_process_runs(p, o->filter.exe ? o->filter.exe : "");
		host |= pa_ident_on_host(p, o->filter.host ? o->filter.host : "");
		rank |= p->id.rank == o->filter.rank;
	}
	if (!exe)
		fprintf(stderr, PA_PROG ": warning: no process runs %s\n", o->filter.exe);
	if (!host)
		fprintf(stderr, PA_PROG ": warning: no process ran on host %s (processes of "
			"logs that do not name their host never match)\n", o->filter.host);
	if (!rank)
		fprintf(stderr, PA_PROG ": warning: no process has MPI rank %" PRId32 "\n",
			o->filter.rank);
}

/*
 * Report into o->ropts.output: a regular file (or a new one) through a
 * temporary file beside it, renamed over it once complete, so that a
 * failed report leaves the old one whole; the temporary file is a new one
 * (FILE.XXXXXX, O_EXCL: no link another user put there is followed), with
 * the mode a new file gets. Anything else that is there (/dev/null, a
 * FIFO, a terminal, a symbolic link) is written to as it is, as a shell's
 * redirection would: renaming over it would replace it with a file.
 */
static int pa_main_report_to_file(const struct pa_main_opts *o, struct pa_run *run,
				  struct pa_error *err)
{
	const char *path = o->ropts.output;
	bool direct;
	struct stat st;
	char *tmp = NULL;
	FILE *out = NULL;
	mode_t mask;
	int ret, fd = -1;

	direct = lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
	if (direct) {
		out = fopen(path, "w");
		if (!out)
			return pa_error_set(err, -errno, path, false, 0, "cannot write: %s",
					    strerror(errno));
	} else {
		if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
			return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
		/* Said of path: the temporary file beside it is ours, not the user's. */
		fd = mkostemp(tmp, O_CLOEXEC);
		if (fd < 0) {
			ret = pa_error_set(err, -errno, path, false, 0, "cannot create: %s",
					   strerror(errno));
			free(tmp);
			return ret;
		}
		mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask) < 0 || !(out = fdopen(fd, "w"))) {
			ret = pa_error_set(err, -errno, path, false, 0, "cannot create: %s",
					   strerror(errno));
			close(fd);
			unlink(tmp);
			free(tmp);
			return ret;
		}
	}
	ret = pa_main_report(out, o, run, err);
	if (fclose(out) != 0 && ret == 0)
		ret = -EIO;
	if (ret == -EIO)
		pa_error_set(err, ret, path, false, 0, "write failed");
	if (ret == 0 && !direct && rename(tmp, path) < 0)
		ret = pa_error_set(err, -errno, path, false, 0, "cannot write (putting the new "
				   "file in its place: %s)", strerror(errno));
	if (ret < 0 && !direct)
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
	const struct pa_report *r = o->report;
	/*
	 * Every report reads a thread's identical samples as one with a
	 * count, so that memory follows distinct stacks; those that show
	 * samples one by one, in time order (speedscope, script), read them
	 * again from the logs as they walk them (pa_load_opts.stream). The
	 * time window is applied while reading: what it leaves out is never
	 * kept.
	 */
	struct pa_load_opts lo = {
		.collapse = !r->in_time_order,
		.stream = r->in_time_order,
		.window = f->window,
	};
	struct pa_main_progress progress;
	bool shown = pa_main_progress_start(&progress);
	int ret = pa_runs_merge((const char *const *)dirs, n, &lo, run, err);

	if (shown)
		pa_main_progress_stop(&progress);
	if (ret == 0)
		ret = pa_ident_warn_missing_ranks(*run, &(*run)->warnings);
	if (ret < 0) {
		if (*run)
			pa_error_set(err, ret, (*run)->dir, false, 0, "out of memory");
		pa_run_free(*run);
		*run = NULL;
		return ret;
	}
	pa_main_print_warnings(&(*run)->warnings, 0);
	pa_main_check_exe(o, *run);
	ret = pa_events_choose(*run, f, o->event, r->use, err);
	if (ret < 0) {
		pa_run_free(*run);
		*run = NULL;
	}
	return ret;
}

/* Load the DIRs: merged into *run; for diff BASE into o->base, NEW into *run. */
static int pa_main_load(struct pa_main_opts *o, struct pa_run **run, struct pa_error *err)
{
	size_t diff = o->report->needs == PA_REPORT_NEEDS_TWO_RUNS;
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
	pa_symbols_set_defaults(&(struct pa_symbols_opts){ .no_demangle = o.no_demangle,
							    .binary_path = o.binary_path });
	if (pa_main_load(&o, &run, &err) < 0) {
		pa_main_print_error(&err);
		return PA_EXIT_INPUT;
	}
	if (o.ropts.output) {
		ret = pa_main_report_to_file(&o, run, &err);
	} else {
		ret = pa_main_report(stdout, &o, run, &err);
		if (fflush(stdout) != 0 && ret == 0)
			ret = pa_error_set(&err, -EIO, "<stdout>", false, 0, "write failed");
		else if (ret == -EIO)
			pa_error_set(&err, ret, "<stdout>", false, 0, "write failed");
	}
	pa_main_print_refused();
	pa_symbols_files_release();
	pa_run_free(run);
	pa_run_free(o.base);
	if (ret < 0) {
		pa_main_print_error(&err);
		return PA_EXIT_INPUT;
	}
	return PA_EXIT_OK;
}
