/*
 * pprof-analyze: the command line. The only place that prints errors and
 * picks exit codes: 0 ok, 1 bad input, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "profile.h"
#include "reader.h"
#include "report_counters.h"
#include "report_events.h"
#include "report_folded.h"
#include "report_processes.h"
#include "report_threads.h"
#include "report_top.h"

#define PA_PROG "pprof-analyze"

enum pa_exit { PA_EXIT_OK = 0, PA_EXIT_INPUT = 1, PA_EXIT_USAGE = 2 };

static const char pa_main_usage[] =
"NAME\n"
"    pprof-analyze - report on the logs written by libpprof.so\n"
"\n"
"SYNOPSIS\n"
"    pprof-analyze top DIR [--limit N] [OPTIONS]\n"
"    pprof-analyze folded DIR [OPTIONS]\n"
"    pprof-analyze threads DIR [OPTIONS]\n"
"    pprof-analyze processes DIR [OPTIONS]\n"
"    pprof-analyze events DIR [OPTIONS]\n"
"    pprof-analyze counters DIR [OPTIONS]\n"
"    pprof-analyze -h | --help\n"
"\n"
"    DIR is a run's output directory (./pprof-data by default when\n"
"    profiling), holding one <exe>.<pid>/ directory per process, or one\n"
"    such process directory. Options may come before or after DIR.\n"
"\n"
"COMMANDS\n"
"    top      Flat profile: per function, self samples, self %, total\n"
"             (inclusive) samples, total %, estimated CPU time (samples x\n"
"             period, for events that count nanoseconds at a fixed period;\n"
"             '-' otherwise), name and module. Sorted by self samples.\n"
"    folded   Folded stacks, one line per distinct stack, root first,\n"
"             frames joined by ';', then a space and the sample count;\n"
"             input for flamegraph.pl or speedscope. No header line.\n"
"    threads  One row per thread: pid, tid, name, samples, lost samples,\n"
"             late samples, how its log ended ('yes', 'exec' when its\n"
"             process's image was replaced, 'no' when killed or still\n"
"             running), CPU time, executable.\n"
"    processes\n"
"             One row per process: pid, ppid, start (seconds after the\n"
"             run's first process), wall-clock duration, samples, threads,\n"
"             executable and how it ended: 'exit N', 'signal SIGNAME',\n"
"             'exec PATH' (its image was replaced; the new image is the\n"
"             next row with the same pid), 'killed?' (no END record: killed\n"
"             or still running) or 'unknown'; 'off, ' comes first when\n"
"             profiling was off in it. A child is listed under its parent,\n"
"             its executable indented by two spaces per level.\n"
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
"    --event NAME   The event to report: an event's name (its section in the\n"
"                   configuration) or the event as written ('cycles:u').\n"
"                   Default: the first sampling event that could be opened\n"
"                   (top, folded, threads, processes), every event (events,\n"
"                   counters). An unknown NAME, a counting event for a\n"
"                   sampling report (or the reverse), or an event that could\n"
"                   not be opened is an error (exit 1).\n"
"    --limit N      top: print at most N functions (default: all).\n"
"    -o, --output FILE\n"
"                   Write the report to FILE (replaced only once the report\n"
"                   is complete) instead of standard output.\n"
"    -h, --help     Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0  success (warnings about truncated or unfinished logs may be printed)\n"
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
"    pprof-analyze top pprof-data --event page-faults\n"
"    pprof-analyze events pprof-data\n"
"    pprof-analyze counters pprof-data --pid 4242\n";

struct pa_main_opts {
	const char *command;
	const char *dir;
	const char *output;
	const char *event; /* --event NAME, NULL for the report's default */
	struct pa_filter filter;
	size_t limit;
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

#define PA_MAIN_COMMANDS "top, folded, threads, processes, events or counters"

/* The kind of event command shows, or -1 when it is no command. */
static int pa_main_command(const char *command)
{
	static const struct { const char *name; enum pa_events_use use; } commands[] = {
		{ "top", PA_EVENTS_SAMPLES }, { "folded", PA_EVENTS_SAMPLES },
		{ "threads", PA_EVENTS_SAMPLES }, { "processes", PA_EVENTS_SAMPLES },
		{ "events", PA_EVENTS_ANY }, { "counters", PA_EVENTS_COUNTS },
	};

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(command, commands[i].name) == 0)
			return (int)commands[i].use;
	return -1;
}

static int pa_main_parse(int argc, char **argv, struct pa_main_opts *o)
{
	enum { OPT_PID = 256, OPT_TID, OPT_EVENT, OPT_LIMIT, OPT_EXE };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->filter = PA_FILTER_ALL;
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
	if (pa_main_command(o->command) < 0) {
		pa_main_usage_error("unknown command '%s' (expected %s)", o->command,
				    PA_MAIN_COMMANDS);
		return PA_EXIT_USAGE;
	}
	if (optind >= argc) {
		pa_main_usage_error("missing DIR after '%s'", o->command);
		return PA_EXIT_USAGE;
	}
	o->dir = argv[optind++];
	if (optind < argc) {
		pa_main_usage_error("unexpected argument '%s'", argv[optind]);
		return PA_EXIT_USAGE;
	}
	return PA_EXIT_OK;
}

/* Write the chosen report to out. */
static int pa_main_report(FILE *out, const struct pa_main_opts *o, struct pa_run *run,
			  struct pa_error *err)
{
	struct pa_profile *prof = NULL;
	size_t nwarn = run->warnings.n;
	int ret;

	if (strcmp(o->command, "threads") == 0)
		return pa_report_threads(out, run, &o->filter);
	if (strcmp(o->command, "processes") == 0)
		return pa_report_processes(out, run, &o->filter);
	if (strcmp(o->command, "events") == 0)
		return pa_report_events(out, run, &o->filter);
	if (strcmp(o->command, "counters") == 0)
		return pa_report_counters(out, run, &o->filter);
	ret = pa_profile_build(run, &o->filter, &prof, &run->warnings, err);
	pa_main_print_warnings(&run->warnings, nwarn);
	if (ret < 0)
		return ret;
	if (strcmp(o->command, "top") == 0)
		ret = pa_report_top(out, run, prof, o->limit);
	else
		ret = pa_report_folded(out, prof);
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

int main(int argc, char **argv)
{
	struct pa_error err = { 0 };
	struct pa_main_opts o;
	struct pa_run *run;
	int ret;

	ret = pa_main_parse(argc, argv, &o);
	if (ret != PA_EXIT_OK)
		return ret;
	if (pa_run_load(o.dir, &run, &err) < 0) {
		pa_main_print_error(&err);
		return PA_EXIT_INPUT;
	}
	pa_main_print_warnings(&run->warnings, 0);
	pa_main_check_exe(&o, run);
	if (pa_events_choose(run, &o.filter, o.event,
			     (enum pa_events_use)pa_main_command(o.command), &err) < 0) {
		pa_main_print_error(&err);
		pa_run_free(run);
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
	pa_run_free(run);
	if (ret < 0) {
		pa_main_print_error(&err);
		return PA_EXIT_INPUT;
	}
	return PA_EXIT_OK;
}
