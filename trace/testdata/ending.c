/*
 * ending: how a traced run ends, and threads. Built by mpi_test.go.
 *
 * Usage: ending MODE   (on 2 ranks)
 *   exit     every rank: MPI_Barrier, then exit(0) without MPI_Finalize
 *   abort    rank 1: MPI_Barrier, MPI_Abort(MPI_COMM_WORLD, 3); rank 0:
 *            MPI_Barrier, then an MPI_Recv from 1 that never completes
 *            (mpirun kills it)
 *   threads  MPI_Init_thread(MPI_THREAD_MULTIPLE); two MPI_Comm_dup of
 *            MPI_COMM_WORLD; two threads each make 100 MPI_Sendrecv of 8
 *            bytes with the other rank, each on its own communicator, and
 *            50 failed MPI_Iprobe; then MPI_Finalize
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm comms[2];
static int peer;

static void *work(void *arg)
{
	MPI_Comm c = comms[*(int *)arg];
	double x = 1, y;
	int flag;
	for (int i = 0; i < 100; i++)
		MPI_Sendrecv(&x, 1, MPI_DOUBLE, peer, 4, &y, 1, MPI_DOUBLE, peer, 4, c, MPI_STATUS_IGNORE);
	for (int i = 0; i < 50; i++)
		MPI_Iprobe(peer, 99, c, &flag, MPI_STATUS_IGNORE);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit";
	int rank, provided;

	if (strcmp(mode, "threads") == 0) {
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
		if (provided != MPI_THREAD_MULTIPLE) {
			fprintf(stderr, "ending: no MPI_THREAD_MULTIPLE\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		peer = 1 - rank;
		MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
		MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
		pthread_t t[2];
		int ids[2] = {0, 1};
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, work, &ids[i]);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		MPI_Finalize();
		return 0;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (strcmp(mode, "exit") == 0)
		exit(0);
	if (rank == 1)
		MPI_Abort(MPI_COMM_WORLD, 3);
	int x;
	MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
