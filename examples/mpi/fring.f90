! fring: a ring exchange in Fortran with the mpi module.
!
! Usage: fring   (any number of ranks)
!
! Known communication, per rank r of P, left = mod(r-1+P, P), right = mod(r+1, P):
!   MPI_Comm_split(MPI_COMM_WORLD, color mod(r, 2), key r);
!   10 times: MPI_Irecv(100 double precision = 800 bytes, from left, tag 5),
!     MPI_Isend(800 bytes, to right, tag 5), MPI_Waitall of both with
!     MPI_STATUSES_IGNORE;
!   MPI_Sendrecv: 10 integers (40 bytes) to right with tag 6, 10 integers
!     from left with tag 6;
!   MPI_Allreduce of 1 double precision (8 bytes) with MPI_IN_PLACE on MPI_COMM_WORLD;
!   MPI_Bcast of 4 integers (16 bytes) from root 0 on the sub-communicator;
!   MPI_Recv of 1 integer from left with tag 7 after MPI_Send of 1 integer to
!     right (even ranks send first);
!   MPI_Barrier on MPI_COMM_WORLD; MPI_Comm_free of the sub-communicator.
program fring
  use mpi
  implicit none
  integer :: ierr, rank, p, left, right, sub, i, it
  integer :: req(2), st(MPI_STATUS_SIZE), ival(10), jval(10), bval(4), one
  double precision :: a(100), b(100), s

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  left = mod(rank - 1 + p, p)
  right = mod(rank + 1, p)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  a = rank
  do it = 1, 10
    call MPI_Irecv(b, 100, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(a, 100, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    do i = 1, 100
      a(i) = 0.5d0 * (a(i) + b(i))
    end do
  end do
  ival = rank
  call MPI_Sendrecv(ival, 10, MPI_INTEGER, right, 6, jval, 10, MPI_INTEGER, left, 6, &
                    MPI_COMM_WORLD, st, ierr)
  s = a(1)
  call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  bval = rank
  call MPI_Bcast(bval, 4, MPI_INTEGER, 0, sub, ierr)
  one = rank
  if (mod(rank, 2) == 0) then
    call MPI_Send(one, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
    call MPI_Recv(one, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, st, ierr)
  else
    call MPI_Recv(one, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, st, ierr)
    call MPI_Send(one, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, f0.3)', 'fring: ', p, ' ranks, sum ', s
  call MPI_Comm_free(sub, ierr)
  call MPI_Finalize(ierr)
end program fring
