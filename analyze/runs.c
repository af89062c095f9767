/* runs: several run directories as one; see runs.h. */
#include "runs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Move from's processes and warnings to the end of into's; from keeps none. */
static int pa_runs_move(struct pa_run *into, struct pa_run *from)
{
	size_t np = into->nprocesses + from->nprocesses;
	size_t nw = into->warnings.n + from->warnings.n;
	struct pa_process **pv = realloc(into->processes, (np ? np : 1) * sizeof(*pv));
	struct pa_warning *wv;

	if (!pv)
		return -ENOMEM;
	into->processes = pv;
	wv = realloc(into->warnings.v, (nw ? nw : 1) * sizeof(*wv));
	if (!wv)
		return -ENOMEM;
	into->warnings.v = wv;
	into->warnings.cap = nw ? nw : 1;
	memcpy(pv + into->nprocesses, from->processes, from->nprocesses * sizeof(*pv));
	into->nprocesses = np;
	from->nprocesses = 0;
	memcpy(wv + into->warnings.n, from->warnings.v, from->warnings.n * sizeof(*wv));
	into->warnings.n = nw;
	from->warnings.n = 0;
	return 0;
}

/* Append ", dir" to run->dir. */
static int pa_runs_name(struct pa_run *run, const char *dir)
{
	size_t len = strlen(run->dir);
	char *s = realloc(run->dir, len + 2 + strlen(dir) + 1);

	if (!s)
		return -ENOMEM;
	strcpy(s + len, ", ");
	strcpy(s + len + 2, dir);
	run->dir = s;
	return 0;
}

/* By pid; the same pid in load order (the index, kept in the pointer order). */
static int pa_runs_cmp(const void *a, const void *b)
{
	const struct pa_process *const *x = a, *const *y = b;

	if ((*x)->pid != (*y)->pid)
		return (*x)->pid < (*y)->pid ? -1 : 1;
	return 0;
}

/* Stable sort by pid: insertion sort, since each run is sorted already. */
static void pa_runs_sort(struct pa_run *run)
{
	for (size_t i = 1; i < run->nprocesses; i++) {
		struct pa_process *p = run->processes[i];
		size_t j = i;

		for (; j > 0 && pa_runs_cmp(&run->processes[j - 1], &p) > 0; j--)
			run->processes[j] = run->processes[j - 1];
		run->processes[j] = p;
	}
}

/* Tell from's processes they come from dir. */
static int pa_runs_mark(struct pa_run *from, const char *dir)
{
	for (size_t i = 0; i < from->nprocesses; i++) {
		from->processes[i]->run_dir = strdup(dir);
		if (!from->processes[i]->run_dir)
			return -ENOMEM;
	}
	return 0;
}

int pa_runs_merge(const char *const *dirs, size_t n, const struct pa_load_opts *opts,
		  struct pa_run **out, struct pa_error *err)
{
	struct pa_run *run = NULL, *next;
	int ret;

	*out = NULL;
	ret = pa_run_load_opts(dirs[0], opts, &run, err);
	if (ret == 0 && n > 1 && pa_runs_mark(run, dirs[0]) < 0)
		ret = pa_error_set(err, -ENOMEM, dirs[0], false, 0, "out of memory");
	for (size_t i = 1; i < n && ret == 0; i++) {
		ret = pa_run_load_opts(dirs[i], opts, &next, err);
		if (ret < 0)
			break;
		ret = pa_runs_mark(next, dirs[i]);
		if (ret == 0)
			ret = pa_runs_move(run, next);
		if (ret == 0)
			ret = pa_runs_name(run, dirs[i]);
		if (ret < 0)
			pa_error_set(err, ret, dirs[i], false, 0, "out of memory");
		pa_run_free(next);
	}
	if (ret < 0) {
		pa_run_free(run);
		return ret;
	}
	pa_runs_sort(run);
	*out = run;
	return 0;
}
