/*
 * ident: where a run's processes ran (struct pa_identity: host, boot, MPI
 * rank), for the reports that must keep processes of several hosts apart
 * (their pids may clash) and show ranks.
 */
#ifndef PA_IDENT_H
#define PA_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "reader.h"

/* What a run's processes say of where they ran. */
struct pa_ident_run {
	bool several_hosts; /* processes of more than one host and boot */
	bool any_rank;      /* some process has an MPI rank */
};

/* The processes of run, scanned once (O(processes)). */
void pa_ident_scan(const struct pa_run *run, struct pa_ident_run *out);

/* Whether reports show HOST and RANK (several hosts, or any rank). */
bool pa_ident_shown(const struct pa_ident_run *r);

/* proc's host as recorded, or "-" when its log does not say. */
const char *pa_ident_host(const struct pa_process *proc);

/*
 * Whether proc ran on host name: its recorded host name, or that name up to
 * its first '.' (the short name), equals name.
 */
bool pa_ident_on_host(const struct pa_process *proc, const char *name);

/*
 * A short tag telling proc apart from processes of the same pid elsewhere,
 * for names that carry pids (folded frames, speedscope profiles, script's
 * COMM): "rankR@HOST" (several hosts, a rank), "rankR" (one host), "HOST"
 * (several hosts, no rank); "" when r shows no identity (pa_ident_shown)
 * or proc has none to give. HOST is the short host name. Into buf (size
 * bytes); returns buf.
 */
char *pa_ident_tag(const struct pa_ident_run *r, const struct pa_process *proc, char *buf,
		   size_t size);

/*
 * mono_ns, a CLOCK_MONOTONIC time of proc, as CLOCK_REALTIME ns through
 * proc's anchor (PPF_REC_IDENTITY), or through its start's realtime
 * (PPF_REC_PROCESS) in older logs; 0 when neither is known.
 */
uint64_t pa_ident_realtime(const struct pa_process *proc, uint64_t mono_ns);

/*
 * proc's start on a clock every process of run shares: its monotonic start
 * when all ran on one host (r->several_hosts false), else its realtime
 * (pa_ident_realtime).
 */
uint64_t pa_ident_start(const struct pa_ident_run *r, const struct pa_process *proc);

/*
 * The width of the HOST column of a report on run (the longest recorded
 * host, at least "HOST"), or 0 when r shows no identity (pa_ident_shown).
 */
int pa_ident_host_width(const struct pa_ident_run *r, const struct pa_run *run);

/*
 * The HOST and RANK columns of proc, each after a space (the headings when
 * proc is NULL; "-" where its log says nothing), when width (from
 * pa_ident_host_width) is not 0; nothing otherwise.
 */
void pa_ident_columns(FILE *out, int width, const struct pa_process *proc);

/*
 * JSON members "host" (as recorded; null when its log does not say),
 * "rank", "world_size" and "job" (null when none).
 */
void pa_ident_json(struct pa_json *j, const struct pa_process *proc);

/*
 * Adds to warn, once per job of run whose ranks recorded a world size
 * larger than the distinct ranks found, "N of M MPI ranks of job J have
 * no profile ...": ranks that LD_PRELOAD did not reach, which every report
 * would otherwise leave out silently. Returns 0 or -ENOMEM.
 */
int pa_ident_warn_missing_ranks(const struct pa_run *run, struct pa_warnings *warn);

#endif /* PA_IDENT_H */
