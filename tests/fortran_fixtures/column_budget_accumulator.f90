! Column energy budget diagnosed every step of a relaxation loop: the
! diagnostic routine resets its inout accumulator (budget = 0) before it
! sums into it, so the value it has on entry is never read.  A joint
! reversal need not put the accumulator back before running the callee
! again (adfort/interprocedural.py, _assigned_first); the tendency routine
! reads its inout state on entry and must still get it back.
! adfort: routine=relax_column dep=cost,t indep=t,tref
! adfort: init n=9 nt=6 dt=0.2 t=250:300 tref=255:295
module column_budget_accumulator
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine diagnose(n, t, tref, budget)
    integer, intent(in) :: n
    real(wp), intent(in) :: t(n), tref(n)
    real(wp), intent(inout) :: budget
    integer :: k
    budget = 0.0_wp
    do k = 1, n
      budget = budget + (t(k) - tref(k))**2*exp(-0.1_wp*k)
    end do
    budget = sqrt(budget + 1.0_wp)
  end subroutine diagnose

  subroutine relax(n, dt, tref, t)
    integer, intent(in) :: n
    real(wp), intent(in) :: dt, tref(n)
    real(wp), intent(inout) :: t(n)
    integer :: k
    do k = 1, n
      t(k) = t(k) + dt*(tref(k) - t(k))*(1.0_wp + 1.0e-3_wp*t(k))
    end do
  end subroutine relax

  subroutine relax_column(n, nt, dt, t, tref, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, tref(n)
    real(wp), intent(inout) :: t(n)
    real(wp), intent(out) :: cost
    real(wp) :: budget
    integer :: it
    cost = 0.0_wp
    budget = 0.0_wp
    do it = 1, nt
      call diagnose(n, t, tref, budget)
      cost = cost + budget**2
      call relax(n, dt, tref, t)
    end do
  end subroutine relax_column
end module column_budget_accumulator
