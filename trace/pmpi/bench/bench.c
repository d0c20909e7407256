/*
 * bench: the cost per MPI call of the gopsim tracer.
 *
 * Usage: bench NAME [ITERS]   (one rank; run.sh runs it with and without
 * the tracer preloaded and prints the difference)
 *
 * Each benchmark repeats a cheap MPI call pattern ITERS times, five times
 * over, and prints the best time per MPI call in ns:
 *   send      MPI_Send to MPI_PROC_NULL (a call that does nothing)
 *   isend     MPI_Irecv and MPI_Isend to itself and MPI_Waitall of the two
 *             (3 calls, one of them completing 2 requests)
 *   allreduce MPI_Allreduce of 1 double on MPI_COMM_SELF
 *   iprobe    MPI_Iprobe that finds nothing (a run of failed polls: one
 *             record for the whole run)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "send";
	long iters = argc > 2 ? atol(argv[2]) : 1000000;
	int calls = 1;
	double best = 1e300;
	char buf[64] = {0}, rbuf[64];

	MPI_Init(&argc, &argv);
	for (int rep = 0; rep < 5; rep++) {
		double t = now();
		if (strcmp(name, "send") == 0) {
			for (long i = 0; i < iters; i++)
				MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
		} else if (strcmp(name, "isend") == 0) {
			calls = 3;
			for (long i = 0; i < iters; i++) {
				MPI_Request r[2];
				MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: gcc 12 warns on MPICH's */
				MPI_Irecv(rbuf, 8, MPI_BYTE, 0, 1, MPI_COMM_SELF, &r[0]);
				MPI_Isend(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_SELF, &r[1]);
				MPI_Waitall(2, r, st);
			}
		} else if (strcmp(name, "allreduce") == 0) {
			double x = 1, y;
			for (long i = 0; i < iters; i++)
				MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
		} else if (strcmp(name, "iprobe") == 0) {
			int flag;
			for (long i = 0; i < iters; i++)
				MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		} else {
			fprintf(stderr, "bench: unknown benchmark %s\n", name);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		t = (now() - t) / ((double)iters * calls);
		if (t < best)
			best = t;
	}
	printf("%s %.1f %ld\n", name, best, 5 * iters * calls);
	MPI_Finalize();
	return 0;
}
