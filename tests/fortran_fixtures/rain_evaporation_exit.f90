! Rain falling from cloud base through a sub-cloud column (level 1 just
! below cloud base): in each layer a fraction of the flux evaporates,
! depending on the sub-saturation and the layer depth, moistening and
! cooling the layer.  The loop stops with EXIT once the rain has
! (practically) all evaporated; whatever reaches the last layer is the
! surface rain rate.
! adfort: routine=rain_evaporation dep=q,t,surface_rain indep=q,t,rain_top
! adfort: init nlev=40 rain_top=1e-4:2e-4 q=0.004:0.008 t=285:295 dz=100 fmin=1.2e-5
! adfort: bench nlev=40000 dz=0.1 fmin=1e-300
module rain_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: lv = 2.501e6_wp, cp = 1004.64_wp
  real(wp), parameter :: rho = 1.1_wp, qsat_ref = 0.012_wp
contains
  subroutine rain_evaporation(nlev, dz, fmin, rain_top, q, t, surface_rain)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: dz, fmin, rain_top
    real(wp), intent(inout) :: q(nlev), t(nlev)
    real(wp), intent(out) :: surface_rain
    real(wp) :: flux, fnew, evap, subsat
    integer :: k
    flux = rain_top
    surface_rain = 0.0_wp
    do k = 1, nlev
      subsat = 1.0_wp - q(k)/(qsat_ref*exp(0.06_wp*(t(k) - 290.0_wp)))
      fnew = flux*exp(-2.0e-3_wp*subsat*dz)
      evap = flux - fnew
      q(k) = q(k) + evap/(rho*dz)*60.0_wp
      t(k) = t(k) - lv/cp*evap/(rho*dz)*60.0_wp
      flux = fnew
      if (flux < fmin) exit
      if (k == nlev) surface_rain = flux
    end do
  end subroutine rain_evaporation
end module rain_mod
