/* Who and where this process is; see identity.h. */
#include "identity.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pprof/format.h"

#define PP_IDENTITY_JOB_MAX 128

/* The environment variables read, in the order of enum pp_identity_var. */
enum pp_identity_var {
	PP_ID_OMPI_RANK, PP_ID_OMPI_SIZE, PP_ID_OMPI_JOB,
	PP_ID_PMI_RANK, PP_ID_PMI_SIZE,
	PP_ID_PMIX_RANK, PP_ID_PMIX_NAMESPACE,
	PP_ID_SLURM_PROCID, PP_ID_SLURM_STEP_TASKS, PP_ID_SLURM_NTASKS,
	PP_ID_SLURM_JOB, PP_ID_SLURM_STEP,
	PP_ID_NVARS
};

static const char *const pp_identity_names[PP_ID_NVARS] = {
	[PP_ID_OMPI_RANK] = "OMPI_COMM_WORLD_RANK",
	[PP_ID_OMPI_SIZE] = "OMPI_COMM_WORLD_SIZE",
	[PP_ID_OMPI_JOB] = "OMPI_MCA_ess_base_jobid",
	[PP_ID_PMI_RANK] = "PMI_RANK",
	[PP_ID_PMI_SIZE] = "PMI_SIZE",
	[PP_ID_PMIX_RANK] = "PMIX_RANK",
	[PP_ID_PMIX_NAMESPACE] = "PMIX_NAMESPACE",
	[PP_ID_SLURM_PROCID] = "SLURM_PROCID",
	[PP_ID_SLURM_STEP_TASKS] = "SLURM_STEP_NUM_TASKS",
	[PP_ID_SLURM_NTASKS] = "SLURM_NTASKS",
	[PP_ID_SLURM_JOB] = "SLURM_JOB_ID",
	[PP_ID_SLURM_STEP] = "SLURM_STEP_ID",
};

/*
 * A launcher: the variables of its rank and world size (-1: none), and
 * those naming its job, the first set wins. Tried in this order: Open MPI
 * sets PMIx's variables too, and a rank under srun may run mpirun's.
 */
static const struct pp_identity_launcher {
	uint32_t source;
	int rank, size;
	int job[2];
} pp_identity_launchers[] = {
	{ PPF_RANK_OMPI, PP_ID_OMPI_RANK, PP_ID_OMPI_SIZE,
	  { PP_ID_PMIX_NAMESPACE, PP_ID_OMPI_JOB } },
	{ PPF_RANK_PMI, PP_ID_PMI_RANK, PP_ID_PMI_SIZE, { PP_ID_SLURM_JOB, -1 } },
	{ PPF_RANK_PMIX, PP_ID_PMIX_RANK, -1, { PP_ID_PMIX_NAMESPACE, -1 } },
	{ PPF_RANK_SLURM, PP_ID_SLURM_PROCID, PP_ID_SLURM_STEP_TASKS, { PP_ID_SLURM_JOB, -1 } },
};

static struct {
	int gathered;
	struct pp_records_identity id;
	struct utsname uts;
	char job[PP_IDENTITY_JOB_MAX];
} pp_identity;

/* Each wanted variable's value (NULL when unset), in one pass over environ. */
static void pp_identity_scan(const char *vals[PP_ID_NVARS])
{
	extern char **environ;

	memset(vals, 0, PP_ID_NVARS * sizeof(vals[0]));
	for (char **e = environ; e && *e; e++) {
		/* Every name read starts with one of these: skip the rest cheaply. */
		if ((*e)[0] != 'O' && (*e)[0] != 'P' && (*e)[0] != 'S')
			continue;
		for (int i = 0; i < PP_ID_NVARS; i++) {
			size_t n = strlen(pp_identity_names[i]);

			/* The first of a name set twice, as getenv (the launcher's library) reads it. */
			if (strncmp(*e, pp_identity_names[i], n) == 0 && (*e)[n] == '=') {
				if (!vals[i])
					vals[i] = *e + n + 1;
				break;
			}
		}
	}
}

/* A whole decimal number in [min, INT32_MAX], else -1. */
static int32_t pp_identity_number(const char *s, long min)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end || v < min || v > INT32_MAX ? -1 : (int32_t)v;
}

/* The rank, world size and job from the first launcher whose rank variable is set. */
static void pp_identity_rank(const char *vals[PP_ID_NVARS])
{
	struct pp_records_identity *id = &pp_identity.id;
	const char *job = NULL;

	id->rank = id->world_size = -1;
	id->rank_source = PPF_RANK_NONE;
	for (size_t i = 0; i < sizeof(pp_identity_launchers) / sizeof(pp_identity_launchers[0]);
	     i++) {
		const struct pp_identity_launcher *l = &pp_identity_launchers[i];
		int32_t rank = pp_identity_number(vals[l->rank], 0);

		/* srun's tasks, not a batch script's shell (no step id). */
		if (rank < 0 || (l->source == PPF_RANK_SLURM && !vals[PP_ID_SLURM_STEP]))
			continue;
		id->rank = rank;
		id->rank_source = l->source;
		if (l->size >= 0)
			id->world_size = pp_identity_number(vals[l->size], 1);
		if (l->source == PPF_RANK_SLURM && id->world_size < 0)
			id->world_size = pp_identity_number(vals[PP_ID_SLURM_NTASKS], 1);
		for (int k = 0; k < 2 && !job; k++)
			if (l->job[k] >= 0)
				job = vals[l->job[k]];
		break;
	}
	/* A program run in a Slurm job without a rank still belongs to the job. */
	if (!job)
		job = vals[PP_ID_SLURM_JOB];
	snprintf(pp_identity.job, sizeof(pp_identity.job), "%s", job ? job : "");
	id->job = pp_identity.job;
}

/* The boot id (a UUID's 32 hex digits, dashes skipped) into id; zero when unreadable. */
static void pp_identity_boot(uint8_t id[16])
{
	char buf[64];
	int fd = open(PPF_BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	ppf_boot_id_parse(buf, n > 0 ? (size_t)n : 0, id);
}

const struct pp_records_identity *pp_identity_get(void)
{
	const char *vals[PP_ID_NVARS];

	if (pp_identity.gathered)
		return &pp_identity.id;
	if (uname(&pp_identity.uts) != 0)
		pp_identity.uts.nodename[0] = '\0';
	pp_identity.id.host = pp_identity.uts.nodename;
	pp_identity_boot(pp_identity.id.boot_id);
	pp_identity_scan(vals);
	pp_identity_rank(vals);
	pp_identity.gathered = 1;
	return &pp_identity.id;
}

void pp_identity_dir_host(char *buf, size_t size)
{
	const char *host = pp_identity_get()->host;
	size_t n = 0;

	for (; host[n] && host[n] != '.' && n + 1 < size; n++) {
		char c = host[n];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '-' || c == '_';

		buf[n] = ok ? c : '_';
	}
	if (size)
		buf[n] = '\0';
}
