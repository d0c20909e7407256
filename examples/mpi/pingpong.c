/*
 * pingpong: ranks 0 and 1 bounce a message back and forth.
 *
 * Usage: pingpong [ITERS [BYTES]]   (defaults 100 and 1024)
 *
 * Known communication, on any number of ranks >= 2:
 *   rank 0: ITERS times MPI_Send(BYTES bytes, to 1, tag 1), then
 *           MPI_Recv(BYTES bytes, from 1, tag 2);
 *   rank 1: ITERS times MPI_Recv(from 0, tag 1), then MPI_Send(to 0, tag 2);
 *   other ranks: nothing;
 *   every rank: one MPI_Barrier on MPI_COMM_WORLD at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	int iters = argc > 1 ? atoi(argv[1]) : 100;
	int bytes = argc > 2 ? atoi(argv[2]) : 1024;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		fprintf(stderr, "pingpong: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	char *buf = calloc((size_t)bytes + 1, 1);
	double t = MPI_Wtime();
	for (int i = 0; i < iters; i++) {
		if (rank == 0) {
			MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
		}
	}
	t = MPI_Wtime() - t;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("pingpong: %d round trips of %d bytes, %.2f us each\n", iters, bytes, 1e6 * t / (iters > 0 ? iters : 1));
	free(buf);
	MPI_Finalize();
	return 0;
}
