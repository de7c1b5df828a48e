! The Fortran (gfortran, libgomp) twin of omp_team.c: a parallel region that runs steps
! of about 1,000 adds with a barrier after each for 0.3 s of wall time, printing the
! team size, and with OMP_TEAM_FILE set also appending it to that file as one line.
program omp_team
  use omp_lib
  implicit none
  integer :: team, i, step, last, length, status
  double precision :: start
  double precision, volatile :: x
  character(len=4096) :: path
  team = 0
  ! The step after whose barrier every thread stops (see omp_team.c).
  last = huge(last)
  start = omp_get_wtime()
  !$omp parallel private(x, i, step)
  !$omp single
  team = omp_get_num_threads()
  !$omp end single
  x = 0
  step = 0
  do
    do i = 1, 1000
      x = x + i
    end do
    !$omp single
    if (omp_get_wtime() - start >= 0.3d0) last = step
    !$omp end single
    if (step >= last) exit
    step = step + 1
  end do
  !$omp end parallel
  print '(a,i0)', 'team ', team
  call get_environment_variable('OMP_TEAM_FILE', path, length, status)
  if (status == 0 .and. length > 0) then
    open (unit=10, file=path(1:length), status='unknown', position='append', action='write')
    write (10, '(i0)') team
    close (10)
  end if
end program omp_team
