/* Where a run's processes ran; see ident.h. */
#include "ident.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pa_ident_scan(const struct pa_run *run, struct pa_ident_run *out)
{
	*out = (struct pa_ident_run){ 0 };
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];

		out->any_rank |= p->id.rank >= 0;
		out->several_hosts |= !pa_process_same_pid_space(p, run->processes[0]);
	}
}

bool pa_ident_shown(const struct pa_ident_run *r)
{
	return r->several_hosts || r->any_rank;
}

const char *pa_ident_host(const struct pa_process *proc)
{
	return proc->id.host && proc->id.host[0] ? proc->id.host : "-";
}

bool pa_ident_on_host(const struct pa_process *proc, const char *name)
{
	const char *h = proc->id.host;
	size_t n;

	if (!h || !h[0])
		return false;
	n = strcspn(h, ".");
	return strcmp(h, name) == 0 || (strlen(name) == n && strncmp(h, name, n) == 0);
}

char *pa_ident_tag(const struct pa_ident_run *r, const struct pa_process *proc, char *buf,
		   size_t size)
{
	const char *h = proc->id.host && proc->id.host[0] ? proc->id.host : NULL;
	int hn = h ? (int)strcspn(h, ".") : 0;

	if (!pa_ident_shown(r))
		snprintf(buf, size, "%s", "");
	else if (proc->id.rank >= 0 && r->several_hosts && h)
		snprintf(buf, size, "rank%d@%.*s", proc->id.rank, hn, h);
	else if (proc->id.rank >= 0)
		snprintf(buf, size, "rank%d", proc->id.rank);
	else if (r->several_hosts && h)
		snprintf(buf, size, "%.*s", hn, h);
	else
		snprintf(buf, size, "%s", "");
	return buf;
}

uint64_t pa_ident_realtime(const struct pa_process *proc, uint64_t mono_ns)
{
	if (proc->id.known && proc->id.anchor_real_ns)
		return proc->id.anchor_real_ns + mono_ns - proc->id.anchor_mono_ns;
	if (proc->start_realtime_ns)
		return proc->start_realtime_ns + mono_ns - proc->start_ns;
	return 0;
}

uint64_t pa_ident_start(const struct pa_ident_run *r, const struct pa_process *proc)
{
	return r->several_hosts ? pa_ident_realtime(proc, proc->start_ns) : proc->start_ns;
}

int pa_ident_host_width(const struct pa_ident_run *r, const struct pa_run *run)
{
	int width = (int)strlen("HOST");

	if (!pa_ident_shown(r))
		return 0;
	for (size_t i = 0; i < run->nprocesses; i++)
		if ((int)strlen(pa_ident_host(run->processes[i])) > width)
			width = (int)strlen(pa_ident_host(run->processes[i]));
	return width;
}

void pa_ident_columns(FILE *out, int width, const struct pa_process *proc)
{
	char rank[16];

	if (!width)
		return;
	if (!proc)
		snprintf(rank, sizeof(rank), "RANK");
	else if (proc->id.rank >= 0)
		snprintf(rank, sizeof(rank), "%" PRId32, proc->id.rank);
	else
		snprintf(rank, sizeof(rank), "-");
	fprintf(out, " %-*s %6s", width, proc ? pa_ident_host(proc) : "HOST", rank);
}

void pa_ident_json(struct pa_json *j, const struct pa_process *proc)
{
	pa_json_key_string(j, "host", proc->id.host && proc->id.host[0] ? proc->id.host : NULL);
	pa_json_key(j, "rank");
	if (proc->id.rank >= 0)
		pa_json_int(j, proc->id.rank);
	else
		pa_json_null(j);
	pa_json_key(j, "world_size");
	if (proc->id.world_size > 0)
		pa_json_int(j, proc->id.world_size);
	else
		pa_json_null(j);
	pa_json_key_string(j, "job", proc->id.job && proc->id.job[0] ? proc->id.job : NULL);
}

/* A ranked process, for pa_ident_warn_missing_ranks. */
struct pa_ident_ranked {
	const char *job;
	int32_t rank;
	int32_t world_size;
};

static int pa_ident_cmp_ranked(const void *a, const void *b)
{
	const struct pa_ident_ranked *x = a, *y = b;
	int c = strcmp(x->job, y->job);

	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

/* The warning of the job of v[first, end) (sorted by rank), if ranks are missing. */
static int pa_ident_warn_job(const struct pa_run *run, const struct pa_ident_ranked *v,
			     size_t first, size_t end, struct pa_warnings *warn)
{
	int32_t world = -1;
	size_t found = 0;

	for (size_t i = first; i < end; i++)
		if (v[i].world_size > world)
			world = v[i].world_size;
	for (size_t i = first; i < end; i++)
		found += v[i].rank < world && (i == first || v[i].rank != v[i - 1].rank);
	if (world <= 0 || found >= (size_t)world)
		return 0;
	return pa_warnings_add(warn, run->dir, false, 0, "%zu of %" PRId32 " MPI ranks of job "
			       "%s have no profile (was LD_PRELOAD passed to every rank: "
			       "mpirun -x LD_PRELOAD, srun --export=ALL,LD_PRELOAD=...? "
			       "`pprof-analyze ranks` names them)", (size_t)world - found, world,
			       v[first].job[0] ? v[first].job : "(none)");
}

int pa_ident_warn_missing_ranks(const struct pa_run *run, struct pa_warnings *warn)
{
	struct pa_ident_ranked *v = malloc((run->nprocesses + 1) * sizeof(*v));
	size_t n = 0;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];

		if (p->id.rank >= 0)
			v[n++] = (struct pa_ident_ranked){ .job = p->id.job ? p->id.job : "",
							    .rank = p->id.rank,
							    .world_size = p->id.world_size };
	}
	qsort(v, n, sizeof(*v), pa_ident_cmp_ranked);
	for (size_t first = 0, end; first < n && ret == 0; first = end) {
		for (end = first; end < n && strcmp(v[end].job, v[first].job) == 0; end++)
			;
		ret = pa_ident_warn_job(run, v, first, end, warn);
	}
	free(v);
	return ret;
}
