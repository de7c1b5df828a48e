! The Fortran (gfortran, libgomp) twin of omp_team.c: a parallel region that runs for
! 20,000 steps of about 1,000 adds with a barrier after each, printing the team size.
program omp_team
  use omp_lib
  implicit none
  integer :: team, i, step
  double precision, volatile :: x
  team = 0
  !$omp parallel private(x, i, step)
  !$omp single
  team = omp_get_num_threads()
  !$omp end single
  x = 0
  do step = 1, 20000
    do i = 1, 1000
      x = x + i
    end do
    !$omp barrier
  end do
  !$omp end parallel
  print '(a,i0)', 'team ', team
end program omp_team
