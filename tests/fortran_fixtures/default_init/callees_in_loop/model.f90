! Accumulators passed to callees as intent(out) dummies: each call starts
! from the default values of the type (a named constant, literals), so the
! values (and adjoints) the caller held before the call do not reach y.
module acc_types
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: s0 = 0.5_wp
  type :: acc_t
    real(wp) :: s = s0
    real(wp) :: q = 0._wp
    integer :: n = 0
  end type acc_t
  type :: outer_t
    type(acc_t) :: a
    real(wp) :: w = 1._wp
    real(wp) :: v
  end type outer_t
end module acc_types
module acc_work
  use acc_types, only: acc_t, outer_t
  implicit none
contains
  subroutine add_sq(x, b)
    real(8), intent(in) :: x
    type(acc_t), intent(out) :: b
    b%s = b%s + x**2
    b%q = b%q * x + b%s
    b%n = b%n + 1
  end subroutine add_sq
  subroutine fill(x, o)
    real(8), intent(in) :: x
    type(outer_t), intent(out) :: o
    o%a%s = o%a%s * x + o%w * x**2
    o%w = o%w + o%a%q
    o%v = x
  end subroutine fill
  subroutine fill_all(n, x, bs)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    type(acc_t), intent(out) :: bs(n)
    integer :: i
    do i = 1, n
      bs(i)%s = bs(i)%s + x(i)**3
    end do
  end subroutine fill_all
  subroutine top(n, x, b, o, bs, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    type(acc_t), intent(inout) :: b
    type(outer_t), intent(inout) :: o
    type(acc_t), intent(inout) :: bs(n)
    real(8), intent(inout) :: y
    integer :: i
    do i = 1, n
      call add_sq(x(i), b)
      y = y + b%s * b%q
    end do
    call fill(x(1), o)
    call fill_all(n, x, bs)
    y = y + sum(bs%s) + o%a%s * o%w
  end subroutine top
end module acc_work
