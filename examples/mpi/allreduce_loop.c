/*
 * allreduce_loop: a solver's reduction loop.
 *
 * Usage: allreduce_loop [ITERS [COUNT]]   (defaults 50, 1000)
 *
 * Known communication, per rank: ITERS times MPI_Allreduce of COUNT
 * doubles (8 * COUNT bytes) on MPI_COMM_WORLD, then one MPI_Allreduce of
 * one int with MPI_IN_PLACE (4 bytes).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 50;
	int count = argc > 2 ? atoi(argv[2]) : 1000;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *x = malloc(sizeof *x * (size_t)count), *y = malloc(sizeof *y * (size_t)count);
	for (int i = 0; i < count; i++)
		x[i] = rank + i;
	for (int it = 0; it < iters; it++) {
		for (int i = 0; i < count; i++) /* some computation */
			x[i] = 0.5 * x[i] + 1.0;
		MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	int n = 1;
	MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("allreduce_loop: %d ranks, %d allreduces of %d doubles, y[0] = %g\n", n, iters, count, count > 0 ? y[0] : 0.0);
	free(x);
	free(y);
	MPI_Finalize();
	return 0;
}
