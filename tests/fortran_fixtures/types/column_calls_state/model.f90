! A column model step that passes its derived-type state to physics
! routines (relaxation, then a nonlinear damping) and keeps a copy of the
! initial state (whole derived-type assignment).  Output: a cost.
module column_state_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  type :: column_state
    real(dp) :: t(5)          ! temperature profile
    real(dp) :: tsfc          ! surface temperature
    integer :: nlev
  end type column_state
contains
  subroutine relax(s, rate)
    type(column_state), intent(inout) :: s
    real(dp), intent(in) :: rate
    s%t(1:s%nlev) = s%t(1:s%nlev) + rate * (s%tsfc - s%t(1:s%nlev))
  end subroutine relax

  subroutine damp(s)
    type(column_state), intent(inout) :: s
    integer :: k
    do k = 1, s%nlev
      s%t(k) = s%t(k) - 0.05_dp * s%t(k)**2 / (1.0_dp + s%t(k))
    end do
  end subroutine damp

  subroutine column_step(s, rate, cost)
    type(column_state), intent(inout) :: s
    real(dp), intent(in) :: rate
    real(dp), intent(out) :: cost
    type(column_state) :: first
    first = s
    call relax(s, rate)
    call damp(s)
    call relax(s, rate)
    cost = sum((s%t(1:s%nlev) - first%t(1:s%nlev))**2) + first%tsfc * s%t(1)
  end subroutine column_step
end module column_state_mod
