/*
 * halo2d: a 2-D stencil's halo exchange on a periodic process grid.
 *
 * Usage: halo2d [ITERS [NX [NY [EVERY]]]]   (defaults 20, 64, 32, 5)
 *
 * The ranks form a periodic grid of MPI_Dims_create(size, 2) (2 x 2 on 4
 * ranks) made with MPI_Cart_create without reordering, so grid rank ==
 * world rank, row-major: rank = row * dims[1] + col. Each rank owns NX x NY
 * doubles; its north and south halos are NX doubles, east and west NY.
 *
 * Known communication, per rank:
 *   MPI_Cart_create once (a communicator with the world's members);
 *   per iteration, in this order:
 *     4 MPI_Irecv on the grid communicator: from north (tag 0, NX doubles),
 *       south (tag 1, NX), west (tag 2, NY), east (tag 3, NY);
 *     4 MPI_Send: to south (tag 0, NX doubles), north (tag 1, NX),
 *       east (tag 2, NY), west (tag 3, NY);
 *     1 MPI_Waitall of the 4 receives;
 *   every EVERY iterations (5; 0: never) an MPI_Allreduce of 1 double (a
 *     residual) on the grid, after iterations EVERY-1, 2*EVERY-1, ...;
 *   MPI_Comm_free of the grid at the end.
 * north/south are the row neighbours (row -+ 1 mod dims[0]), west/east the
 * column neighbours (col -+ 1 mod dims[1]).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 20;
	int nx = argc > 2 ? atoi(argv[2]) : 64;
	int ny = argc > 3 ? atoi(argv[3]) : 32;
	int every = argc > 4 ? atoi(argv[4]) : 5;
	int size, rank, dims[2] = {0, 0}, periods[2] = {1, 1};
	int north, south, west, east;
	MPI_Comm grid;

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
	MPI_Comm_rank(grid, &rank);
	MPI_Cart_shift(grid, 0, 1, &north, &south);
	MPI_Cart_shift(grid, 1, 1, &west, &east);

	double *u = calloc((size_t)nx * ny, sizeof *u);
	double *in[4], *out[4];
	int len[4] = {nx, nx, ny, ny};
	for (int d = 0; d < 4; d++) {
		in[d] = calloc((size_t)len[d], sizeof(double));
		out[d] = calloc((size_t)len[d], sizeof(double));
	}
	int from[4] = {north, south, west, east}; /* tag d comes from from[d] */
	int to[4] = {south, north, east, west};	  /* and goes to to[d] */
	double res = 0;
	for (int it = 0; it < iters; it++) {
		MPI_Request req[4];
		MPI_Status st[4]; /* not MPI_STATUSES_IGNORE: gcc 12 warns on MPICH's */
		for (int d = 0; d < 4; d++)
			MPI_Irecv(in[d], len[d], MPI_DOUBLE, from[d], d, grid, &req[d]);
		for (int d = 0; d < 4; d++)
			MPI_Send(out[d], len[d], MPI_DOUBLE, to[d], d, grid);
		MPI_Waitall(4, req, st);
		for (int i = 0; i < nx * ny; i++) /* the "stencil" */
			u[i] = 0.25 * (u[i] + in[0][i % nx] + in[2][i % ny] + 1.0);
		if (every > 0 && it % every == every - 1) {
			double local = u[0], global;
			MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, grid);
			res = global;
		}
	}
	if (rank == 0)
		printf("halo2d: %d x %d ranks, %d iterations, residual %g\n", dims[0], dims[1], iters, res);
	MPI_Comm_free(&grid);
	MPI_Finalize();
	return 0;
}
