/*
 * icoll: every nonblocking collective the tracer wraps, once each on
 * MPI_COMM_WORLD, each completed by MPI_Wait before the next, with 1-int
 * blocks (root 0). TestMPINonblockingCollectives traces it.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, p;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	int *s = calloc((size_t)p, sizeof(int)), *d = calloc((size_t)p, sizeof(int));
	int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
	for (int i = 0; i < p; i++) {
		counts[i] = 1;
		displs[i] = i;
	}
	MPI_Comm w = MPI_COMM_WORLD;
	MPI_Ibarrier(w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Ibcast(s, 1, MPI_INT, 0, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Ireduce(s, d, 1, MPI_INT, MPI_SUM, 0, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Iallreduce(s, d, 1, MPI_INT, MPI_SUM, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Iallgather(s, 1, MPI_INT, d, 1, MPI_INT, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Iallgatherv(s, 1, MPI_INT, d, counts, displs, MPI_INT, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Ialltoall(s, 1, MPI_INT, d, 1, MPI_INT, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Ialltoallv(s, counts, displs, MPI_INT, d, counts, displs, MPI_INT, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Igather(s, 1, MPI_INT, d, 1, MPI_INT, 0, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Igatherv(s, 1, MPI_INT, d, counts, displs, MPI_INT, 0, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Iscatter(s, 1, MPI_INT, d, 1, MPI_INT, 0, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Iscatterv(s, counts, displs, MPI_INT, d, 1, MPI_INT, 0, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Ireduce_scatter(s, d, counts, MPI_INT, MPI_SUM, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Ireduce_scatter_block(s, d, 1, MPI_INT, MPI_SUM, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Iscan(s, d, 1, MPI_INT, MPI_SUM, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Iexscan(s, d, 1, MPI_INT, MPI_SUM, w, &r), MPI_Wait(&r, MPI_STATUS_IGNORE);
	free(s), free(d), free(counts), free(displs);
	MPI_Finalize();
	return 0;
}
