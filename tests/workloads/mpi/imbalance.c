/*
 * imbalance: an MPI program whose ranks do unequal work. In each of ROUNDS
 * rounds, rank r burns (r + 1) x UNIT seconds of CPU in burn_rank, then
 * waits for the others in MPI_Allreduce (the slowest rank sets the pace)
 * and MPI_Barrier.
 *
 *   mpirun -np N imbalance UNIT ROUNDS TRUTHDIR
 *
 * Each rank writes its own figures to TRUTHDIR/rank-R.truth:
 *   burn_rank SECONDS   its thread's CPU time in burn_rank
 *   mpi_wall SECONDS    the wall time it spent in MPI calls, MPI_Init and
 *                       MPI_Finalize included
 *   mpi_init_system SECONDS  its thread's time in the kernel in MPI_Init and
 *                       MPI_Finalize (opening and mapping files, sockets)
 *   pid PID
 * and prints "rank R of N done" on stdout; exits 1 if something failed.
 * The file is written after MPI_Finalize, so that its time is counted.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "../wl.h"

static volatile uint64_t imbalance_sink;

__attribute__((noinline)) uint64_t burn_rank(uint64_t iters);

__attribute__((noinline)) uint64_t burn_rank(uint64_t iters)
{
	return wl_burn(iters, 0x72616e6b);
}

/* The calling thread's time in the kernel, in seconds. */
static double imbalance_system(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Wall clock, in seconds. */
static double imbalance_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int rank, size;
	double unit, burn = 0, mpi, sum = 0, one, sys = imbalance_system(), t = imbalance_wall();
	long rounds;
	char path[4096];
	FILE *f;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	mpi = imbalance_wall() - t;
	sys = imbalance_system() - sys;
	if (argc != 4) {
		if (rank == 0)
			fprintf(stderr, "usage: imbalance UNIT ROUNDS TRUTHDIR\n");
		MPI_Finalize();
		return 2;
	}
	unit = wl_seconds(argv[1], 0.02);
	rounds = strtol(argv[2], NULL, 10);
	for (long i = 0; i < rounds; i++) {
		double start = wl_thread_cpu();

		while (wl_thread_cpu() - start < unit * (rank + 1))
			imbalance_sink += burn_rank(WL_CHUNK / 4);
		burn += wl_thread_cpu() - start;
		t = imbalance_wall();
		one = (double)rank;
		MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		mpi += imbalance_wall() - t;
	}
	printf("rank %d of %d done\n", rank, size);
	fflush(stdout);
	t = imbalance_wall();
	one = imbalance_system();
	MPI_Finalize();
	mpi += imbalance_wall() - t;
	sys += imbalance_system() - one;
	snprintf(path, sizeof(path), "%s/rank-%d.truth", argv[3], rank);
	f = fopen(path, "w");
	if (!f || fprintf(f, "burn_rank %.6f\nmpi_wall %.6f\nmpi_init_system %.6f\npid %d\n",
			  burn, mpi, sys, (int)getpid()) < 0 || fclose(f) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}
