/*
 * strided: a halo exchange of matrix columns with a vector datatype.
 *
 * Usage: strided [ITERS [NX [NY [COLL]]]]   (defaults 10, 128, 2048, 1)
 *
 * Each rank holds an NY x NX matrix of doubles in row-major order, so
 * consecutive elements of a column are 8*NX bytes apart. The ranks form a
 * periodic ring (east = rank+1, west = rank-1). A column is
 * MPI_Type_vector(NY, 1, NX, MPI_DOUBLE), committed once: NY*8 bytes of
 * data at a stride of 8*NX bytes (16 KiB at 1 KiB with the defaults).
 *
 * Calls per rank:
 *   MPI_Type_vector and MPI_Type_commit of the column type;
 *   per iteration:
 *     MPI_Irecv of the west ghost column (column 0) from west, tag 0;
 *     MPI_Isend of the last interior column (NX-2) to east, tag 0;
 *     MPI_Waitall of the 2;
 *     MPI_Sendrecv: the first interior column (1) to west, tag 1, and the
 *       east ghost column (NX-1) from east, tag 1;
 *     the "stencil" update;
 *   if COLL is not 0: MPI_Bcast of column 1 from rank 0 (one column) and
 *     MPI_Allreduce of 1 double (contiguous);
 *   MPI_Type_free of the column type.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int iters = argc > 1 ? atoi(argv[1]) : 10;
	int nx = argc > 2 ? atoi(argv[2]) : 128;
	int ny = argc > 3 ? atoi(argv[3]) : 2048;
	int coll = argc > 4 ? atoi(argv[4]) : 1;
	int size, rank;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (nx < 4 || ny < 1 || iters < 0) {
		if (rank == 0)
			fprintf(stderr, "strided: want NX >= 4, NY >= 1, ITERS >= 0\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int east = (rank + 1) % size, west = (rank + size - 1) % size;
	double *u = malloc(sizeof(double) * (size_t)nx * (size_t)ny);
	if (!u)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int i = 0; i < nx * ny; i++)
		u[i] = rank + i * 1e-6;

	MPI_Datatype column;
	MPI_Type_vector(ny, 1, nx, MPI_DOUBLE, &column);
	MPI_Type_commit(&column);

	for (int it = 0; it < iters; it++) {
		MPI_Request req[2];
		MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: gcc 12 warns on MPICH's */
		MPI_Irecv(&u[0], 1, column, west, 0, MPI_COMM_WORLD, &req[0]);
		MPI_Isend(&u[nx - 2], 1, column, east, 0, MPI_COMM_WORLD, &req[1]);
		MPI_Waitall(2, req, st);
		MPI_Sendrecv(&u[1], 1, column, west, 1, &u[nx - 1], 1, column, east, 1, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		for (int y = 0; y < ny; y++) /* the "stencil" */
			for (int x = 1; x < nx - 1; x++)
				u[y * nx + x] = 0.25 * (u[y * nx + x - 1] + u[y * nx + x + 1] + 2 * u[y * nx + x]);
	}
	if (coll) {
		double local = u[nx + 1], global;
		MPI_Bcast(&u[1], 1, column, 0, MPI_COMM_WORLD);
		MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (rank == 0)
			printf("strided: %d ranks, %d iterations, checksum %g\n", size, iters, global);
	}
	MPI_Type_free(&column);
	free(u);
	MPI_Finalize();
	return 0;
}
