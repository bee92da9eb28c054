! Newtonian relaxation of a column towards a reference profile, applied
! in sub-steps counted by a DO WHILE in the callee: the counter only
! decides when the loop ends, so a reversal that records just what the
! adjoint needs must still advance it (else the callee's f_rev never
! returns).
! adfort: routine=relax_column dep=t indep=t,tau
! adfort: init nlev=10 nsub=4 t=250:300 tref=240:290 tau=2000:8000 dt=600
! adfort: bench nlev=100000 nsub=8
module relax_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine relax_level(nsub, dt, tau, tref, t)
    integer, intent(in) :: nsub
    real(wp), intent(in) :: dt, tau, tref
    real(wp), intent(inout) :: t
    integer :: it
    real(wp) :: h
    h = dt/nsub
    it = 0
    do while (it < nsub)
      it = it + 1
      t = t + h*(tref - t)/tau*(1.0_wp + 0.01_wp*(t - tref)**2/tau)
    end do
  end subroutine relax_level

  subroutine relax_column(nlev, nsub, dt, tau, tref, t)
    integer, intent(in) :: nlev, nsub
    real(wp), intent(in) :: dt, tau, tref(nlev)
    real(wp), intent(inout) :: t(nlev)
    integer :: k
    do k = 1, nlev
      call relax_level(nsub, dt, tau, tref(k), t(k))
    end do
  end subroutine relax_column
end module relax_mod
