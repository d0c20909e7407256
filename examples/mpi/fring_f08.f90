! fring_f08: a ring exchange in Fortran with the mpi_f08 module. Its
! bindings reach the tracer in three ways: Open MPI's through ompi_*_f,
! MPICH's through the C MPI_* (functions with a buffer) or through
! mpi_*_f08_ wrappers (the others, which call PMPI_* directly).
!
! Usage: fring_f08   (any even number of ranks)
!
! Known communication, per rank r of P, left = mod(r-1+P, P), right = mod(r+1, P):
!   MPI_Comm_split(MPI_COMM_WORLD, color mod(r, 2), key r);
!   5 times: even ranks MPI_Send(50 integers = 200 bytes, to right, tag 3)
!     then MPI_Recv(from left, tag 3); odd ranks the other way round, with
!     MPI_STATUS_IGNORE;
!   3 times: MPI_Irecv(10 integers = 40 bytes, from left, tag 4),
!     MPI_Isend(40 bytes, to right, tag 4), MPI_Waitall of both with
!     MPI_STATUSES_IGNORE;
!   MPI_Irecv(1 integer from left, tag 8), MPI_Isend(1 integer to right,
!     tag 8), MPI_Wait on the receive (with a status), MPI_Wait on the send
!     (MPI_STATUS_IGNORE);
!   MPI_Allreduce of 1 integer (4 bytes) on MPI_COMM_WORLD;
!   MPI_Barrier on the sub-communicator, MPI_Comm_free of it;
!   MPI_Barrier on MPI_COMM_WORLD.
program fring_f08
  use mpi_f08
  implicit none
  integer :: rank, p, left, right, it, n, total, one, got
  integer :: buf(50), a(10), b(10)
  type(MPI_Status) :: st
  type(MPI_Comm) :: sub
  type(MPI_Request) :: req(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p)
  left = mod(rank - 1 + p, p)
  right = mod(rank + 1, p)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  buf = rank
  do it = 1, 5
    if (mod(rank, 2) == 0) then
      call MPI_Send(buf, 50, MPI_INTEGER, right, 3, MPI_COMM_WORLD)
      call MPI_Recv(buf, 50, MPI_INTEGER, left, 3, MPI_COMM_WORLD, st)
    else
      call MPI_Recv(buf, 50, MPI_INTEGER, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call MPI_Send(buf, 50, MPI_INTEGER, right, 3, MPI_COMM_WORLD)
    end if
  end do
  a = rank
  do it = 1, 3
    call MPI_Irecv(b, 10, MPI_INTEGER, left, 4, MPI_COMM_WORLD, req(1))
    call MPI_Isend(a, 10, MPI_INTEGER, right, 4, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  end do
  one = rank
  call MPI_Irecv(got, 1, MPI_INTEGER, left, 8, MPI_COMM_WORLD, req(1))
  call MPI_Isend(one, 1, MPI_INTEGER, right, 8, MPI_COMM_WORLD, req(2))
  call MPI_Wait(req(1), st)
  call MPI_Wait(req(2), MPI_STATUS_IGNORE)
  n = 1
  call MPI_Allreduce(n, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Barrier(sub)
  call MPI_Comm_free(sub)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a, i0)', 'fring_f08: ', total, ' ranks, got ', got
  call MPI_Finalize()
end program fring_f08
