! Loops whose reversal evaluates their bounds again instead of popping
! trip counts (adfort/recompute.py): a triangular nest (the inner lower
! bound is the outer index), a downward loop to a local bound set once,
! a loop whose bound variable is changed after it and one whose bound
! is set anew in each iteration of an outer loop (those two keep their
! trip counts on the tape).
! adfort: routine=triangular_sums dep=s,y indep=x,w
! adfort: init n=6 x=-1:1 w=0.5:1.5 y=0:1
module loop_bounds_again
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine triangular_sums(n, x, w, s, y)
    integer, intent(in) :: n
    real(wp), intent(in) :: x(n), w(n)
    real(wp), intent(out) :: s
    real(wp), intent(inout) :: y
    integer :: i, j, m, nk
    real(wp) :: t
    s = 0.0_wp
    do j = 1, n
      do i = j, n
        s = s + w(j)*sin(x(i))*x(j)
      end do
    end do
    m = n - 1
    do i = m, 1, -1
      t = x(i)*x(i + 1)
      s = s + t*t
    end do
    do i = 1, m
      y = y*cos(x(i)) + w(i)
    end do
    m = 2
    y = y + m*s
    do j = 1, 3
      nk = j + 1
      do i = 1, nk
        y = y + sin(y)*w(i)
      end do
    end do
  end subroutine triangular_sums
end module loop_bounds_again
