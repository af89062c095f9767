/*
 * runs: several run directories read as one profile.
 *
 * Every directory is loaded with pa_run_load_opts; their processes and warnings
 * are moved into one struct pa_run, processes sorted by pid (a pid that
 * two runs share stays twice, in directory order: each keeps its own
 * struct pa_process, its dir telling them apart, and its run_dir naming
 * the directory given that held it). Reports then treat the merged run
 * like any other, so that `top run1 run2` counts the samples of both;
 * those that name processes and threads (folded --per-thread, speedscope,
 * pprof's labels) name the run too, when it is set.
 */
#ifndef PA_RUNS_H
#define PA_RUNS_H

#include <stddef.h>

#include "reader.h"

/*
 * Load dirs[0..n) (n >= 1), each as pa_run_load_opts does, and merge them
 * into one run (pa_run_load reads one directory alone). Its dir is the
 * directories joined by ", " (dirs[0] alone when n is 1). Returns 0 and
 * *out, to be freed with pa_run_free; or the first failing directory's
 * negative errno with err filled and *out NULL. opts (may be NULL): how
 * thread logs are read.
 */
int pa_runs_merge(const char *const *dirs, size_t n, const struct pa_load_opts *opts,
		  struct pa_run **out, struct pa_error *err);

#endif /* PA_RUNS_H */
