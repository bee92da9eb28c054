! Warm-rain microphysics on model columns (Kessler type): autoconversion
! above a threshold, accretion, evaporation of rain in subsaturated air,
! saturation adjustment with a latent heat release; each process limited
! by what is there (MIN/MAX).  Per level, per column, no time loop.
! adfort: routine=kessler dep=t,qv,qc,qr indep=t,qv,qc,qr
! adfort: init ncol=2 nlev=6 dt=20.0 p=500:1000 t=270:300 qv=0.005:0.015 qc=0:0.002 qr=0:0.001
! adfort: bench ncol=500 nlev=60
module kessler_column
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine kessler(ncol, nlev, dt, p, t, qv, qc, qr)
    integer, intent(in) :: ncol, nlev
    real(wp), intent(in) :: dt, p(nlev)
    real(wp), intent(inout), dimension(nlev, ncol) :: t, qv, qc, qr
    real(wp) :: qs, es, auto, accr, evap, dq, lv, cp
    integer :: j, k
    lv = 2.5e6_wp
    cp = 1004.0_wp
    do j = 1, ncol
      do k = 1, nlev
        auto = max(0.001_wp*(qc(k,j) - 1.0e-3_wp), 0.0_wp)
        accr = 2.2_wp*qc(k,j)*max(qr(k,j), 0.0_wp)**0.875_wp
        dq = min((auto + accr)*dt, qc(k,j))
        qc(k,j) = qc(k,j) - dq
        qr(k,j) = qr(k,j) + dq
        es = 611.2_wp*exp(17.67_wp*(t(k,j) - 273.15_wp)/(t(k,j) - 29.65_wp))
        qs = 0.622_wp*es/(100.0_wp*p(k) - es)
        if (qv(k,j) < qs .and. qr(k,j) > 0.0_wp) then
          evap = min(dt*1.0e-3_wp*(qs - qv(k,j))*sqrt(qr(k,j)), qr(k,j))
          qr(k,j) = qr(k,j) - evap
          qv(k,j) = qv(k,j) + evap
          t(k,j) = t(k,j) - lv/cp*evap
        end if
        dq = (qv(k,j) - qs)/(1.0_wp + lv**2*qs/(cp*461.5_wp*t(k,j)**2))
        dq = max(dq, -qc(k,j))
        qv(k,j) = qv(k,j) - dq
        qc(k,j) = qc(k,j) + dq
        t(k,j) = t(k,j) + lv/cp*dq
      end do
    end do
  end subroutine kessler
end module kessler_column
