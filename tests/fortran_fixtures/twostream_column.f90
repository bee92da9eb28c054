! Shortwave two-stream in a column of cloudy layers: per-layer
! reflectance and transmittance from optical depth and single-scattering
! albedo (exp, sqrt), then adding of layers from the top down and from the
! surface up (recurrences), flux divergence heating.  Columns in a loop.
! adfort: routine=sw_heating dep=heat indep=tau,ssa
! adfort: init ncol=3 nlev=6 mu0=0.6 alb=0.1:0.2 tau=0.05:1.0 ssa=0.5:0.95
! adfort: bench ncol=400 nlev=60
module twostream_column
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine layer_rt(tau, ssa, mu0, rdif, tdif)
    real(wp), intent(in) :: tau, ssa, mu0
    real(wp), intent(out) :: rdif, tdif
    real(wp) :: g1, g2, k, e, den
    g1 = 2.0_wp - ssa*1.5_wp
    g2 = ssa*0.5_wp
    k = sqrt(max(g1*g1 - g2*g2, 1.0e-12_wp))
    e = exp(-k*tau/mu0)
    den = (k + g1) + (k - g1)*e*e
    rdif = g2*(1.0_wp - e*e)/den
    tdif = 2.0_wp*k*e/den
  end subroutine layer_rt

  subroutine sw_column(nlev, mu0, alb, tau, ssa, heat)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: mu0, alb, tau(nlev), ssa(nlev)
    real(wp), intent(out) :: heat(nlev)
    real(wp) :: r(nlev), t(nlev), rup(nlev+1), tdn(nlev+1), flux(nlev+1)
    integer :: k
    do k = 1, nlev
      call layer_rt(tau(k), ssa(k), mu0, r(k), t(k))
    end do
    tdn(1) = 1.0_wp
    do k = 1, nlev
      tdn(k+1) = tdn(k)*t(k)/(1.0_wp - r(k)*alb)
    end do
    rup(nlev+1) = alb
    do k = nlev, 1, -1
      rup(k) = r(k) + t(k)*t(k)*rup(k+1)/(1.0_wp - r(k)*rup(k+1))
    end do
    do k = 1, nlev + 1
      flux(k) = tdn(k)*(1.0_wp - rup(k))
    end do
    do k = 1, nlev
      heat(k) = flux(k) - flux(k+1)
    end do
  end subroutine sw_column

  subroutine sw_heating(ncol, nlev, mu0, alb, tau, ssa, heat)
    integer, intent(in) :: ncol, nlev
    real(wp), intent(in) :: mu0, alb(ncol), tau(nlev, ncol), ssa(nlev, ncol)
    real(wp), intent(out) :: heat(nlev, ncol)
    integer :: j
    do j = 1, ncol
      call sw_column(nlev, mu0, alb(j), tau(:, j), ssa(:, j), heat(:, j))
    end do
  end subroutine sw_heating
end module twostream_column
