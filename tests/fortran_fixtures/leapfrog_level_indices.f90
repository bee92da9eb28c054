! Leapfrog with three time levels held in one array and pointers to the
! levels rotated each step (a pointer swap instead of copies).
! adfort: routine=leap_run dep=cost indep=u0,c
! adfort: init n=10 nt=5 c=0.2:0.4 u0=-1:1
! adfort: bench n=5000 nt=200
module pointer_levels
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine leap_run(n, nt, c, u0, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: c(n), u0(n)
    real(wp), intent(out) :: cost
    real(wp), target :: lev(n, 3)
    integer :: it, i, iold, inow, inew, itmp
    iold = 1
    inow = 2
    inew = 3
    lev(:, iold) = u0
    lev(:, inow) = u0
    lev(:, inew) = 0.0_wp
    do it = 1, nt
      do i = 2, n - 1
        lev(i, inew) = lev(i, iold) - c(i)*(lev(i+1, inow) - lev(i-1, inow))
      end do
      lev(1, inew) = 0.0_wp
      lev(n, inew) = 0.0_wp
      itmp = iold
      iold = inow
      inow = inew
      inew = itmp
    end do
    cost = sum(lev(:, inow)**2)
  end subroutine leap_run
end module pointer_levels
