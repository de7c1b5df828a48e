! A Fortran MPI program (use mpi): each rank sends ROUNDS messages of 10
! integers round a ring with MPI_SEND/MPI_RECV, then calls MPI_ALLREDUCE
! once. Its calls must be counted once each by the monitor.
program calls
  use mpi
  implicit none
  integer, parameter :: rounds = 7
  integer :: ierr, rank, size, round, next, prev, total
  integer :: buffer(10), status(MPI_STATUS_SIZE)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  next = mod(rank + 1, size)
  prev = mod(rank + size - 1, size)
  buffer = rank
  do round = 1, rounds
    if (mod(rank, 2) == 0) then
      call MPI_SEND(buffer, 10, MPI_INTEGER, next, round, MPI_COMM_WORLD, ierr)
      call MPI_RECV(buffer, 10, MPI_INTEGER, prev, round, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_RECV(buffer, 10, MPI_INTEGER, prev, round, MPI_COMM_WORLD, status, ierr)
      call MPI_SEND(buffer, 10, MPI_INTEGER, next, round, MPI_COMM_WORLD, ierr)
    end if
  end do
  call MPI_ALLREDUCE(1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= size) stop 1
  call MPI_FINALIZE(ierr)
end program calls
