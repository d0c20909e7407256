/*
 * irregular: a master collecting results in arrival order, a
 * sub-communicator, and polling.
 *
 * Usage: irregular   (on P >= 2 ranks; all of it on P >= 4)
 *
 * Known communication:
 *   1. every rank: MPI_Comm_split(MPI_COMM_WORLD, color rank % 2, key -rank):
 *      the sub-communicator of the ranks of the same parity, in descending
 *      world rank order ([2 0] and [3 1] on 4 ranks); then MPI_Comm_dup of
 *      MPI_COMM_WORLD.
 *   2. rank 0: P-1 MPI_Irecv(up to 100 * P bytes, MPI_ANY_SOURCE, tag 7),
 *      then P-1 MPI_Waitany, each completing one receive: one from every
 *      rank s > 0, of 100 * s bytes; rank s > 0: sleeps (P - s) ms, then
 *      MPI_Send(100 * s bytes, to 0, tag 7).
 *   3. every rank, on the sub-communicator: MPI_Bcast of 16 ints (64 bytes)
 *      from root 0 (its highest world rank), then MPI_Allreduce of 1 double.
 *      Then its rank 0 (world rank 2 or 3) sends 32 bytes with tag 13 to its
 *      rank 1 (world rank 0 or 1), which receives them with
 *      MPI_Irecv(MPI_ANY_SOURCE, tag 13) and MPI_Wait (not on 2 ranks,
 *      where each sub-communicator has one rank).
 *   4. rank 1 sleeps 20 ms and sends 8 bytes to rank 0 with tag 9; rank 0
 *      polls MPI_Iprobe(1, 9) until it finds the message (a run of failed
 *      probes, then one that finds 8 bytes from 1), then MPI_Recv's it.
 *   5. (P >= 4) rank 3 sleeps 20 ms and sends 16 bytes to rank 2 with tag
 *      11; rank 2 posts MPI_Irecv(from 3, tag 11) and polls MPI_Test until
 *      it completes (a run of failed tests, then one that completes it).
 *   6. every rank: MPI_Barrier on the duplicate, MPI_Comm_free of both.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, p;
	MPI_Comm sub, dup;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (p < 2) {
		fprintf(stderr, "irregular: needs 2 ranks or more\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);

	/* 2: results in arrival order */
	char *buf = calloc((size_t)p, 100 * (size_t)p);
	if (rank == 0) {
		MPI_Request *req = malloc(sizeof *req * (size_t)(p - 1));
		for (int i = 0; i < p - 1; i++)
			MPI_Irecv(buf + (size_t)i * 100 * p, 100 * p, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &req[i]);
		for (int i = 0; i < p - 1; i++) {
			int idx, n;
			MPI_Status st;
			MPI_Waitany(p - 1, req, &idx, &st);
			MPI_Get_count(&st, MPI_BYTE, &n);
			if (n != 100 * st.MPI_SOURCE)
				fprintf(stderr, "irregular: %d bytes from %d\n", n, st.MPI_SOURCE);
		}
		free(req);
	} else {
		usleep((useconds_t)(p - rank) * 1000);
		MPI_Send(buf, 100 * rank, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
	}

	/* 3: the sub-communicator */
	int v[16] = {0};
	double x = rank, y;
	MPI_Bcast(v, 16, MPI_INT, 0, sub);
	MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, sub);
	int subrank, subsize;
	MPI_Comm_rank(sub, &subrank);
	MPI_Comm_size(sub, &subsize);
	if (subsize < 2) {
		/* 2 ranks: nobody to send to on the sub-communicator */
	} else if (subrank == 0) {
		MPI_Send(buf, 32, MPI_BYTE, 1, 13, sub);
	} else if (subrank == 1) {
		MPI_Request req;
		MPI_Irecv(buf, 32, MPI_BYTE, MPI_ANY_SOURCE, 13, sub, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}

	/* 4 and 5: polling */
	if (rank == 0) {
		int flag = 0;
		MPI_Status st;
		while (!flag)
			MPI_Iprobe(1, 9, MPI_COMM_WORLD, &flag, &st);
		MPI_Recv(buf, 8, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		usleep(20000);
		MPI_Send(buf, 8, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
	} else if (rank == 2 && p >= 4) {
		int flag = 0;
		MPI_Request req;
		MPI_Irecv(buf, 16, MPI_BYTE, 3, 11, MPI_COMM_WORLD, &req);
		while (!flag)
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
	} else if (rank == 3 && p >= 4) {
		usleep(20000);
		MPI_Send(buf, 16, MPI_BYTE, 2, 11, MPI_COMM_WORLD);
	}

	MPI_Barrier(dup);
	if (rank == 0)
		printf("irregular: %d ranks, sum over the even ranks %g\n", p, y);
	MPI_Comm_free(&sub);
	MPI_Comm_free(&dup);
	free(buf);
	MPI_Finalize();
	return 0;
}
