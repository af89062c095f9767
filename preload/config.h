/*
 * config: what to sample, from an INI file (inih) or the embedded default
 * (config/default.ini, built into the library), then the environment. The
 * keys are documented in README.md. Runs in the constructor only.
 */
#ifndef PP_CONFIG_H
#define PP_CONFIG_H

#include <stdint.h>

#include "pprof/format.h"

#define PP_CONFIG_MAX_EVENTS 16
#define PP_CONFIG_MAX_ERRORS 16
#define PP_CONFIG_MAX_TEXT (64 * 1024)
#define PP_CONFIG_MSG_MAX 512
#define PP_CONFIG_EMBEDDED "(embedded default)"

struct pp_config_event {
	char name[PPF_NAME_MAX]; /* the section's name */
	char spec[PPF_NAME_MAX]; /* the event as written */
	int count_only;          /* [count NAME]: no samples */
	uint32_t type;           /* perf_event_attr fields */
	uint64_t config;
	uint64_t config1;
	uint64_t config2;
	uint64_t period;         /* sample_period, or Hz when freq; 0 counting */
	int freq;
	int exclude_kernel;
	int exclude_user;
	unsigned precise_ip;
	int time_ns;             /* the counter counts nanoseconds */
	int kernel_only;         /* counted in the kernel only (context-switches) */
	int line;                /* the section's line, for messages */
};

/* Where the wall event's switch records go ([sample wall] rings). */
enum pp_wall_rings {
	PP_WALL_RINGS_AUTO = 0, /* not given: per thread */
	PP_WALL_RINGS_CPU,
	PP_WALL_RINGS_THREAD,
};

struct pp_config {
	char output[4096];  /* output root, absolute after pp_config_resolve */
	char source[4096];  /* the INI file's absolute path, or PP_CONFIG_EMBEDDED */
	int from_file;
	uint32_t mode_request; /* enum ppf_mode_request */
	int signal;         /* the signal mode's signal; 0: chosen at start */
	unsigned max_frames;
	int follow_exec;
	int strict;
	int unavailable_off;
	int whole_stacks;   /* stacks = whole: every sample with its whole stack */
	uint64_t delay_ns;  /* sampling starts this long after the run started */
	int toggle_signal;  /* a signal that pauses and resumes sampling; 0: none */
	uint64_t wall_ns;   /* [sample wall]'s period in ns of wall time; 0: off */
	int wall_rings;     /* [sample wall] rings: enum pp_wall_rings */
	unsigned nevents;   /* sampling and counting, in file order */
	struct pp_config_event events[PP_CONFIG_MAX_EVENTS];
	char *text;         /* the configuration text, owned (malloc'd); NULL for
			       the built-in default (pp_config_default_text) */
};

/* Problems found in a configuration, in line order. */
struct pp_config_errors {
	unsigned n;
	unsigned more;      /* errors beyond the ones kept */
	int said_off;       /* the message says that profiling is off (a problem
			       of the environment's, not of a file's) */
	struct {
		int line;
		char msg[PP_CONFIG_MSG_MAX]; /* "FILE:LINE: what is wrong" */
	} e[PP_CONFIG_MAX_ERRORS];
};

/*
 * Parses text (NUL-terminated; source names it in messages) into cfg,
 * which it initialises; copies text into cfg->text. Returns 0, or -EINVAL
 * with every problem in errs (cfg then holds what could be read; release
 * it), or -ENOMEM.
 */
int pp_config_parse(struct pp_config *cfg, const char *source,
		    const char *text, struct pp_config_errors *errs);

/*
 * The embedded default, as pp_config_parse gives it, into cfg (release it):
 * in the library, parsed once at build time and copied (a process running
 * the default parses no text), without its text (cfg->text NULL: it is
 * never written out, and copying its 11 KiB cost two page faults at every
 * process start). Returns 0 (or, parsing at run time, -ENOMEM).
 */
int pp_config_default(struct pp_config *cfg, struct pp_config_errors *errs);

/*
 * Loads the configuration a process runs with: the file PPROF_CONFIG names
 * (made absolute and exported so exec'd children read the same file), or
 * the embedded default; then PPROF_OUTPUT and PPROF_FOLLOW_EXEC override
 * output and follow_exec, and output is made absolute. Returns 0 or a
 * negative errno with the problems in errs.
 */
int pp_config_load(struct pp_config *cfg, struct pp_config_errors *errs);

/* The embedded default's text (config/default.ini), NUL-terminated. */
const char *pp_config_default_text(void);

/* Frees cfg->text. */
void pp_config_release(struct pp_config *cfg);

/*
 * The signal a `signal` value names (SIGPROF, SIGUSR1, SIGUSR2, SIGRTMIN+N,
 * SIGRTMAX-N or the number of one of those): 0 for "auto", -1 otherwise.
 */
int pp_config_signal_number(const char *text);

/*
 * The signal a `toggle_signal` value names (SIGUSR2, USR2, SIGRTMIN+N, a
 * number, ...: any signal, checked against the profiler's own at start):
 * 0 for "none", -1 when it names none.
 */
int pp_config_any_signal(const char *text);

#endif
