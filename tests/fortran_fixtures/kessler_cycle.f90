! Kessler warm-rain microphysics for a column: autoconversion of cloud
! water above a threshold, accretion of cloud by rain and evaporation of
! rain in sub-saturated air.  Layers without enough cloud water skip the
! cloud processes with CYCLE (autoconversion is continuous at the
! threshold, so the derivative is well defined away from it).
! adfort: routine=kessler dep=qc,qr,qv indep=qc,qr,qv
! adfort: init nlev=30 dt=10 qc=0:2e-3 qr=1e-4:1e-3 qv=0.006:0.012 qvs=0.01:0.012
! adfort: bench nlev=100000
module kessler_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: qc_crit = 1.0e-3_wp, k_auto = 1.0e-3_wp
  real(wp), parameter :: k_accr = 2.2_wp, k_evap = 5.0e-3_wp
contains
  subroutine kessler(nlev, dt, qvs, qv, qc, qr)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: dt, qvs(nlev)
    real(wp), intent(inout) :: qv(nlev), qc(nlev), qr(nlev)
    real(wp) :: auto, accr, evap
    integer :: k
    do k = 1, nlev
      ! rain evaporation everywhere (sub-saturated only)
      if (qv(k) < qvs(k)) then
        evap = k_evap*(qvs(k) - qv(k))*qr(k)**0.525_wp*dt
        qr(k) = qr(k) - evap
        qv(k) = qv(k) + evap
      end if
      if (qc(k) <= qc_crit) cycle
      auto = k_auto*(qc(k) - qc_crit)*dt
      accr = k_accr*qc(k)*qr(k)**0.875_wp*dt
      qc(k) = qc(k) - auto - accr
      qr(k) = qr(k) + auto + accr
    end do
  end subroutine kessler
end module kessler_mod
