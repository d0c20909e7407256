/*
 * requests: the ways a request completes, as HPCC uses them. Built by
 * mpi_test.go (TestMPIRequests).
 *
 * Usage: requests   (on 2 ranks)
 *
 * Known communication, each step separated by an MPI_Barrier:
 *   1. both ranks: 4 MPI_Isend of 8 bytes to the other (tags 1..4), all
 *      pending at once, and 4 MPI_Irecv, completed by one MPI_Waitall of
 *      the 8 (Open MPI's ob1 returns the same handle, ompi_request_empty,
 *      from every small MPI_Isend it completes at once).
 *   2. both ranks: 3 MPI_Isend of 8 bytes (tags 11..13) with an
 *      MPI_REQUEST_NULL between them in the array, completed by
 *      MPI_Testany until it reports no active request; 3 MPI_Irecv
 *      completed by MPI_Waitany.
 *   3. both ranks, on a sub-communicator (MPI_Comm_split, key -rank: the
 *      ranks reversed): MPI_Isend of 16 bytes, tag 21, completed by an
 *      MPI_Test loop; MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) completed by
 *      MPI_Wait.
 *   4. both ranks: MPI_Irecv(MPI_ANY_SOURCE, tag 99) that nothing sends,
 *      MPI_Cancel, MPI_Wait: cancelled. MPI_Test and MPI_Wait of
 *      MPI_REQUEST_NULL.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, srank, peer, flag, idx;
	double out[8] = {0}, in[8];
	MPI_Request r[8];
	MPI_Comm sub;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = 1 - rank;

	for (int i = 0; i < 4; i++)
		MPI_Isend(&out[i], 1, MPI_DOUBLE, peer, 1 + i, MPI_COMM_WORLD, &r[i]);
	for (int i = 0; i < 4; i++)
		MPI_Irecv(&in[i], 1, MPI_DOUBLE, peer, 1 + i, MPI_COMM_WORLD, &r[4 + i]);
	MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);

	r[1] = MPI_REQUEST_NULL;
	MPI_Isend(&out[0], 1, MPI_DOUBLE, peer, 11, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(&out[2], 1, MPI_DOUBLE, peer, 12, MPI_COMM_WORLD, &r[2]);
	MPI_Isend(&out[3], 1, MPI_DOUBLE, peer, 13, MPI_COMM_WORLD, &r[3]);
	for (;;) {
		MPI_Testany(4, r, &idx, &flag, MPI_STATUS_IGNORE);
		if (flag && idx == MPI_UNDEFINED)
			break;
	}
	for (int i = 0; i < 3; i++)
		MPI_Irecv(&in[i], 1, MPI_DOUBLE, peer, 11 + i, MPI_COMM_WORLD, &r[i]);
	for (int i = 0; i < 3; i++)
		MPI_Waitany(3, r, &idx, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);

	MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &sub);
	MPI_Comm_rank(sub, &srank);
	MPI_Isend(out, 2, MPI_DOUBLE, 1 - srank, 21, sub, &r[0]);
	MPI_Irecv(in, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, sub, &r[1]);
	do
		MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
	while (!flag);
	MPI_Wait(&r[1], MPI_STATUS_IGNORE);
	MPI_Comm_free(&sub);
	MPI_Barrier(MPI_COMM_WORLD);

	MPI_Irecv(in, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &r[0]);
	MPI_Cancel(&r[0]);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	r[0] = MPI_REQUEST_NULL;
	MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);

	MPI_Finalize();
	return 0;
}
