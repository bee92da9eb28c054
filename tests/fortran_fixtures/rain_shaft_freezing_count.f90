! Rain falling through a sub-cloud column (level 1 just below cloud
! base): each layer evaporates a fraction of the flux, moistening and
! cooling it, until the rain has practically all gone (EXIT).  A
! diagnostic loop afterwards counts the layers below freezing with the
! same level index, as column physics often does: the adjoint of the
! first loop needs the level it stopped at, which the second loop
! overwrote.
! adfort: routine=rain_shaft dep=q,t,surface_rain indep=q,t,rain_top
! adfort: init nlev=30 rain_top=1e-4:2e-4 q=0.004:0.008 t=268:280 dz=150 fmin=2e-5
module rain_shaft_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: lv = 2.501e6_wp, cp = 1004.64_wp
  real(wp), parameter :: rho = 1.1_wp, qsat_ref = 0.012_wp
contains
  subroutine rain_shaft(nlev, dz, fmin, rain_top, q, t, surface_rain, nfrozen)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: dz, fmin, rain_top
    real(wp), intent(inout) :: q(nlev), t(nlev)
    real(wp), intent(out) :: surface_rain
    integer, intent(out) :: nfrozen
    real(wp) :: flux, fnew, evap, subsat
    integer :: k
    flux = rain_top
    do k = 1, nlev
      subsat = 1.0_wp - q(k)/(qsat_ref*exp(0.06_wp*(t(k) - 280.0_wp)))
      fnew = flux*exp(-4.0e-3_wp*subsat*dz)
      evap = flux - fnew
      q(k) = q(k) + evap/(rho*dz)*60.0_wp
      t(k) = t(k) - lv/cp*evap/(rho*dz)*60.0_wp
      flux = fnew
      if (flux < fmin) exit
    end do
    surface_rain = flux
    ! Diagnostic only: layers colder than 0 C.
    nfrozen = 0
    do k = 1, nlev
      if (t(k) < 273.15_wp) nfrozen = nfrozen + 1
    end do
  end subroutine rain_shaft
end module rain_shaft_mod
