/*
 * Tests of preload/identity.c: the rank, world size and job each launcher's
 * environment gives, the host and boot id, and the host as it goes into a
 * directory's name. Each test runs in a process of its own (Criterion), so
 * the identity gathered at the first call is that test's environment's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "identity.h"
#include "pprof/format.h"

/* No launcher variable of any kind, whatever the environment the tests got. */
static void identity_clean(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_MCA_ess_base_jobid",
		"PMI_RANK", "PMI_SIZE", "PMIX_RANK", "PMIX_NAMESPACE", "SLURM_PROCID",
		"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_JOB_ID", "SLURM_STEP_ID",
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

TestSuite(identity, .init = identity_clean, .timeout = 30);

Test(identity, no_launcher_no_rank)
{
	const struct pp_records_identity *id = pp_identity_get();
	struct utsname u;

	cr_assert_eq(uname(&u), 0);
	cr_expect_eq(id->rank, -1);
	cr_expect_eq(id->world_size, -1);
	cr_expect_eq(id->rank_source, PPF_RANK_NONE);
	cr_expect_str_eq(id->job, "");
	cr_expect_str_eq(id->host, u.nodename);
}

Test(identity, boot_id_is_the_kernels)
{
	const struct pp_records_identity *id = pp_identity_get();
	char text[64] = "", want[40] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	size_t k = 0;

	cr_assert(f && fgets(text, sizeof(text), f));
	fclose(f);
	for (size_t i = 0; i < 16; i++)
		k += (size_t)snprintf(want + k, sizeof(want) - k, "%02x", id->boot_id[i]);
	for (char *p = text, *q = text; ; p++) {
		if (*p != '-')
			*q++ = *p;
		if (!*p)
			break;
	}
	text[32] = '\0';
	cr_expect_str_eq(want, text);
}

Test(identity, open_mpi_rank_size_and_job)
{
	setenv("OMPI_COMM_WORLD_RANK", "3", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
	setenv("PMIX_RANK", "3", 1);
	setenv("PMIX_NAMESPACE", "404750337", 1);
	setenv("OMPI_MCA_ess_base_jobid", "111", 1);
	cr_expect_eq(pp_identity_get()->rank, 3);
	cr_expect_eq(pp_identity_get()->world_size, 4);
	cr_expect_eq(pp_identity_get()->rank_source, PPF_RANK_OMPI);
	cr_expect_str_eq(pp_identity_get()->job, "404750337");
}

Test(identity, pmi_and_pmix)
{
	setenv("PMIX_RANK", "5", 1);
	setenv("PMIX_NAMESPACE", "ns", 1);
	cr_expect_eq(pp_identity_get()->rank, 5);
	cr_expect_eq(pp_identity_get()->world_size, -1);
	cr_expect_eq(pp_identity_get()->rank_source, PPF_RANK_PMIX);
	cr_expect_str_eq(pp_identity_get()->job, "ns");
}

Test(identity, mpich_pmi)
{
	setenv("PMI_RANK", "7", 1);
	setenv("PMI_SIZE", "8", 1);
	cr_expect_eq(pp_identity_get()->rank, 7);
	cr_expect_eq(pp_identity_get()->world_size, 8);
	cr_expect_eq(pp_identity_get()->rank_source, PPF_RANK_PMI);
}

Test(identity, srun_task_but_not_batch_shell)
{
	setenv("SLURM_PROCID", "2", 1);
	setenv("SLURM_NTASKS", "16", 1);
	setenv("SLURM_JOB_ID", "9001", 1);
	/* No SLURM_STEP_ID: a batch script's shell, no rank; the job still. */
	cr_expect_eq(pp_identity_get()->rank, -1);
	cr_expect_str_eq(pp_identity_get()->job, "9001");
}

Test(identity, srun_task)
{
	setenv("SLURM_PROCID", "2", 1);
	setenv("SLURM_NTASKS", "16", 1);
	setenv("SLURM_STEP_NUM_TASKS", "4", 1);
	setenv("SLURM_STEP_ID", "0", 1);
	setenv("SLURM_JOB_ID", "9001", 1);
	cr_expect_eq(pp_identity_get()->rank, 2);
	cr_expect_eq(pp_identity_get()->world_size, 4);
	cr_expect_eq(pp_identity_get()->rank_source, PPF_RANK_SLURM);
	cr_expect_str_eq(pp_identity_get()->job, "9001");
}

Test(identity, values_that_are_no_number_are_no_rank)
{
	setenv("OMPI_COMM_WORLD_RANK", "-1", 1);
	setenv("PMI_RANK", "2x", 1);
	setenv("PMIX_RANK", "99999999999", 1);
	cr_expect_eq(pp_identity_get()->rank, -1);
	cr_expect_eq(pp_identity_get()->rank_source, PPF_RANK_NONE);
}

Test(identity, dir_host_is_short_and_safe)
{
	char buf[64];
	struct utsname u;
	size_t n;

	cr_assert_eq(uname(&u), 0);
	pp_identity_dir_host(buf, sizeof(buf));
	n = strcspn(u.nodename, ".");
	cr_expect_eq(strlen(buf), n < sizeof(buf) - 1 ? n : sizeof(buf) - 1);
	cr_expect_eq(strspn(buf, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"),
		     strlen(buf), "%s", buf);
	pp_identity_dir_host(buf, 3);
	cr_expect_leq(strlen(buf), 2);
}

/*
 * A name set twice in the environment (env, a shell, a launcher adding to
 * an inherited one): the first is the one getenv, and so the MPI library
 * and the program, read.
 */
Test(identity, a_name_set_twice_is_read_as_getenv_reads_it)
{
	extern char **environ;
	static char first[] = "OMPI_COMM_WORLD_RANK=1", again[] = "OMPI_COMM_WORLD_RANK=3";
	char **saved = environ;
	char *env[] = { first, again, NULL };

	environ = env;
	cr_expect_str_eq(getenv("OMPI_COMM_WORLD_RANK"), "1");
	cr_expect_eq(pp_identity_get()->rank, 1);
	environ = saved;
}
