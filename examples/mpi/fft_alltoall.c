/*
 * fft_alltoall: the transposes of a distributed FFT.
 *
 * Usage: fft_alltoall [ITERS [BLOCK]]   (defaults 10, 256)
 *
 * Known communication, per rank r of P, ITERS times:
 *   MPI_Alltoall of BLOCK complex numbers (2 doubles, 16 bytes each) per
 *     rank, on MPI_COMM_WORLD: 16 * BLOCK bytes to each rank;
 *   MPI_Alltoallv of ints with sendcounts[j] = 8 * ((r + 2j) % P + 1) and
 *     recvcounts[j] = 8 * ((j + 2r) % P + 1) (what rank j sends to r), in
 *     bytes 4 times that.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 10;
	int block = argc > 2 ? atoi(argv[2]) : 256;
	int rank, p;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	MPI_Datatype cplx;
	MPI_Type_contiguous(2, MPI_DOUBLE, &cplx);
	MPI_Type_commit(&cplx);
	double *a = calloc((size_t)block * p, 2 * sizeof(double)), *b = calloc((size_t)block * p, 2 * sizeof(double));
	int *sc = malloc(sizeof(int) * p), *rc = malloc(sizeof(int) * p), *sd = malloc(sizeof(int) * p),
	    *rd = malloc(sizeof(int) * p);
	int stot = 0, rtot = 0;
	for (int j = 0; j < p; j++) {
		sc[j] = 8 * ((rank + 2 * j) % p + 1);
		rc[j] = 8 * ((j + 2 * rank) % p + 1);
		sd[j] = stot;
		rd[j] = rtot;
		stot += sc[j];
		rtot += rc[j];
	}
	int *vs = calloc((size_t)stot, sizeof(int)), *vr = calloc((size_t)rtot, sizeof(int));
	for (int it = 0; it < iters; it++) {
		for (int i = 0; i < 2 * block * p; i++) /* the local FFTs */
			a[i] = 0.5 * a[i] + b[i] + 1.0;
		MPI_Alltoall(a, block, cplx, b, block, cplx, MPI_COMM_WORLD);
		MPI_Alltoallv(vs, sc, sd, MPI_INT, vr, rc, rd, MPI_INT, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("fft_alltoall: %d ranks, %d transposes of %d bytes per pair\n", p, iters, 16 * block);
	MPI_Type_free(&cplx);
	MPI_Finalize();
	return 0;
}
