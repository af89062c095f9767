/*
 * report: what a report is. Each report_<name>.c defines one description
 * (struct pa_report), declared below; main.c keeps the one table of them.
 * It parses the command line into struct pa_report_opts, loads the run(s)
 * as the description asks, builds what it needs, and calls one of its
 * writers with a struct pa_report_ctx.
 *
 * A new report is one file, report_<name>.c defining its description, its
 * declaration here and its row in main.c's table.
 */
#ifndef PA_REPORT_H
#define PA_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "eventinfo.h"
#include "profile.h"
#include "reader.h"

/* What a report reads, which main.c gets ready before a writer runs. */
enum pa_report_needs {
	PA_REPORT_NEEDS_RUN,      /* the run only: processes, threads, events, counts */
	PA_REPORT_NEEDS_SAMPLES,  /* the run, whose samples the writer walks itself */
	PA_REPORT_NEEDS_PROFILE,  /* ctx->prof: the profile of the samples ctx->filter selects */
	PA_REPORT_NEEDS_TWO_RUNS, /* two DIRs, BASE and NEW, and a profile of each (diff) */
};

/* The command line's choices a writer reads. */
struct pa_report_opts {
	const char *func;   /* FUNC (takes_func), else NULL */
	const char *output; /* -o FILE, or NULL for standard output */
	size_t limit;       /* --limit N: at most N rows, 0 for all */
	double min_percent; /* --min-percent P, < 0 for the report's default */
	bool per_thread;    /* --per-thread */
	bool json;          /* --format json */
};

/* The options when the command line gives none. */
#define PA_REPORT_OPTS_DEFAULT ((struct pa_report_opts){ .min_percent = -1 })

/*
 * What a writer gets: everything points to the caller's, valid during the
 * call. A writer returns 0 or a negative errno (-EIO when out has an
 * error), filling err when it knows more than the code.
 */
struct pa_report_ctx {
	FILE *out;
	const struct pa_report_opts *opts;  /* never NULL */
	const struct pa_filter *filter;     /* the processes, threads, event and time shown */
	const struct pa_run *run;           /* the run (diff: NEW) */
	const struct pa_profile *prof;      /* NEEDS_PROFILE, NEEDS_TWO_RUNS: run's, else NULL */
	const struct pa_run *base_run;      /* NEEDS_TWO_RUNS: BASE, else NULL */
	const struct pa_profile *base_prof; /* NEEDS_TWO_RUNS: BASE's profile, else NULL */
	struct pa_warnings *warn;           /* what reading samples warns about, or NULL */
	struct pa_error *err;
};

/* A report: one command of pprof-analyze. */
struct pa_report {
	const char *name;      /* the command */
	/*
	 * Its SYNOPSIS after the command, e.g. "DIR [--limit N] [OPTIONS]"; a
	 * '\n' starts a line that --help aligns under the first.
	 */
	const char *usage;
	/*
	 * Its paragraph under COMMANDS, lines split by '\n' as they read,
	 * headed by the command and help_args (e.g. "FUNC") when not NULL.
	 */
	const char *help;
	const char *help_args;
	enum pa_events_use use;    /* which events it shows (--event, events.h) */
	enum pa_report_needs needs;
	bool in_time_order;        /* every sample in time order, not collapsed (pa_load_opts) */
	/*
	 * Its text has no header lines to carry the notes on coverage
	 * (coverage.h; pa_events_header writes them under the '# event'
	 * line): main.c says them on stderr. JSON documents hold them.
	 */
	bool notes_apart;
	bool takes_func;           /* a FUNC argument before the DIRs */
	/*
	 * Returns what is wrong with o for this report, a usage error (static
	 * text), or NULL when nothing is (flamegraph: -o FILE.svg or .html).
	 * NULL: nothing to check.
	 */
	const char *(*check)(const struct pa_report_opts *o);
	/*
	 * Returns the report that runs for o: this one, or another of the same
	 * name (folded --per-thread walks the samples instead of a profile).
	 * NULL: this one always.
	 */
	const struct pa_report *(*variant)(const struct pa_report_opts *o);
	/* The report in its own format: text, or the file format it is for. */
	int (*write)(const struct pa_report_ctx *ctx);
	int (*write_json)(const struct pa_report_ctx *ctx); /* --format json; NULL: none */
};

extern const struct pa_report pa_report_top;
extern const struct pa_report pa_report_tree;
extern const struct pa_report pa_report_callers;
extern const struct pa_report pa_report_callees;
extern const struct pa_report pa_report_annotate;
extern const struct pa_report pa_report_flamegraph;
extern const struct pa_report pa_report_folded;
extern const struct pa_report pa_report_pprof;
extern const struct pa_report pa_report_speedscope;
extern const struct pa_report pa_report_script;
extern const struct pa_report pa_report_threads;
extern const struct pa_report pa_report_processes;
extern const struct pa_report pa_report_events;
extern const struct pa_report pa_report_counters;
extern const struct pa_report pa_report_diff;
extern const struct pa_report pa_report_ranks;

#endif /* PA_REPORT_H */
