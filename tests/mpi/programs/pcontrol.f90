! pcontrol.c in Fortran (mpif.h), through OpenMPI's Fortran binding of
! MPI_PCONTROL, which calls PMPI_Pcontrol itself. Always with the window;
! rank 1 computes (outside MPI) instead of sleeping for its 0.5 s.
program pcontrol
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, token, status(MPI_STATUS_SIZE)
  double precision :: x
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_PCONTROL(0)
  x = spin(0.6d0)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_PCONTROL(1)
  token = 0
  if (rank == 0) then
    call MPI_RECV(token, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, status, ierr)
  else if (rank == 1) then
    x = x + spin(0.5d0)
    call MPI_SEND(token, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_PCONTROL(0)
  if (x < 0) print *, x
  call MPI_FINALIZE(ierr)
contains
  ! Computes for `seconds` of wall clock.
  double precision function spin(seconds)
    double precision, intent(in) :: seconds
    integer(8) :: start, now, rate
    spin = 1.0d0
    call system_clock(start, rate)
    do
      spin = spin * 1.0000001d0 + 1d-9
      call system_clock(now)
      if (dble(now - start) / dble(rate) >= seconds) exit
    end do
  end function spin
end program pcontrol
