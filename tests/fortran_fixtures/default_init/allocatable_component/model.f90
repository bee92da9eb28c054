! An intent(out) dummy with an allocatable component (freed on entry,
! allocated again by the assignment) and a default-initialised one.
module st_mod
  implicit none
  type :: st
    real(8), allocatable :: t(:)
    real(8) :: s = 1d0
  end type st
contains
  subroutine fill(n, x, s)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    type(st), intent(out) :: s
    s%t = x
    s%t = s%t**2 + s%s
    s%s = s%s * sum(x)
  end subroutine fill
  subroutine top(n, x, s, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    type(st), intent(inout) :: s
    real(8), intent(out) :: y
    call fill(n, x, s)
    y = sum(s%t) + s%s * s%t(1)
  end subroutine top
end module st_mod
