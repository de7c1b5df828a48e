! missed_calls.c's calls in Fortran (use mpi): rank 1 stays outside MPI for
! D seconds (spinning on MPI_WTIME) before each, so rank 0 is blocked in
! each for about D: MPI_MPROBE (then MPI_MRECV), MPI_ALLTOALLW, the five
! blocking MPI_NEIGHBOR_* collectives, persistent receives completed by
! MPI_START/MPI_WAIT and MPI_STARTALL/MPI_WAITALL, MPI_SENDRECV_REPLACE:
! about 10 x D inside blocking MPI on rank 0 (2 p2p, 6 collective, 2 wait).
program missed_calls
  use mpi
  implicit none
  double precision, parameter :: d = 0.2d0
  integer :: ierr, rank, size, other, ring, message, request, i
  integer :: status(MPI_STATUS_SIZE), requests(1)
  integer :: send(2), recv(2), four(4), one(2), disp(2), counts(2), types(2)
  integer(kind=MPI_ADDRESS_KIND) :: adisp(2)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  if (size /= 2) stop 2
  other = 1 - rank
  send = rank
  one = 1
  counts = 1
  disp = (/ 0, 4 /)
  adisp = (/ 0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND /)
  types = MPI_INTEGER
  call MPI_CART_CREATE(MPI_COMM_WORLD, 1, (/ 2 /), (/ .true. /), .false., ring, ierr)

  call late()
  if (rank == 0) then
    call MPI_MPROBE(1, 7, MPI_COMM_WORLD, message, status, ierr)
    call MPI_MRECV(recv, 1, MPI_INTEGER, message, status, ierr)
  else
    call MPI_SEND(send, 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, ierr)
  end if
  call late()
  call MPI_ALLTOALLW(send, one, disp, types, recv, one, disp, types, MPI_COMM_WORLD, ierr)
  call late()
  call MPI_NEIGHBOR_ALLGATHER(send, 1, MPI_INTEGER, four, 1, MPI_INTEGER, ring, ierr)
  call late()
  call MPI_NEIGHBOR_ALLGATHERV(send, 1, MPI_INTEGER, four, counts, disp, MPI_INTEGER, ring, ierr)
  call late()
  call MPI_NEIGHBOR_ALLTOALL(send, 1, MPI_INTEGER, four, 1, MPI_INTEGER, ring, ierr)
  call late()
  call MPI_NEIGHBOR_ALLTOALLV(send, counts, disp, MPI_INTEGER, four, counts, disp, MPI_INTEGER, &
                              ring, ierr)
  call late()
  call MPI_NEIGHBOR_ALLTOALLW(send, counts, adisp, types, four, counts, adisp, types, ring, ierr)
  if (rank == 0) then
    call MPI_RECV_INIT(recv, 1, MPI_INTEGER, 1, 8, MPI_COMM_WORLD, request, ierr)
    call MPI_START(request, ierr)
    call MPI_WAIT(request, status, ierr)
    requests(1) = request
    call MPI_STARTALL(1, requests, ierr)
    call MPI_WAITALL(1, requests, MPI_STATUSES_IGNORE, ierr)
    call MPI_REQUEST_FREE(requests(1), ierr)
  else
    do i = 1, 2
      call late()
      call MPI_SEND(send, 1, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, ierr)
    end do
  end if
  call late()
  call MPI_SENDRECV_REPLACE(send, 1, MPI_INTEGER, other, 9, other, 9, MPI_COMM_WORLD, status, ierr)
  call MPI_COMM_FREE(ring, ierr)
  call MPI_FINALIZE(ierr)
contains
  subroutine late()
    double precision :: start
    if (rank /= 1) return
    start = MPI_WTIME()
    do while (MPI_WTIME() - start < d)
    end do
  end subroutine late
end program missed_calls
