! Moist thermodynamics on a model column, one level at a time: vapour
! pressure from specific humidity, saturation vapour pressure (Bolton
! 1980), lifting condensation level temperature, equivalent potential
! temperature (Bolton eq. 43) and wet-bulb temperature (Stull 2011).
! thermo_point is straight-line code full of intrinsics (exp, log, sqrt,
! atan, real powers); moist_column calls it on every level.
! adfort: routine=moist_column dep=thetae,twet indep=t,q
! adfort: init nlev=12 p=300:1000 t=260:300 q=0.002:0.012
! adfort: bench nlev=20000
module moist_thermo
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: t0c = 273.15_wp       ! K
  real(wp), parameter :: eps = 0.622_wp         ! Rd/Rv
  real(wp), parameter :: kappa = 0.2854_wp      ! Rd/cp (moist value)
  real(wp), parameter :: p00 = 1000.0_wp        ! hPa
contains
  subroutine thermo_point(p, t, q, thetae, twet)
    real(wp), intent(in) :: p          ! pressure [hPa]
    real(wp), intent(in) :: t          ! temperature [K]
    real(wp), intent(in) :: q          ! specific humidity [kg/kg]
    real(wp), intent(out) :: thetae    ! equivalent potential temperature [K]
    real(wp), intent(out) :: twet      ! wet-bulb temperature [K]
    real(wp) :: e, es, rh, r, tc, tl, thetal, rhpc
    tc = t - t0c
    e = q*p/(eps + (1.0_wp - eps)*q)
    es = 6.112_wp*exp(17.67_wp*tc/(tc + 243.5_wp))
    rh = e/es
    r = eps*e/(p - e)
    ! temperature at the lifting condensation level (Bolton eq. 22)
    tl = 1.0_wp/(1.0_wp/(t - 55.0_wp) - log(rh)/2840.0_wp) + 55.0_wp
    thetal = t*(p00/(p - e))**kappa*(t/tl)**(0.28_wp*r)
    thetae = thetal*exp((3036.0_wp/tl - 1.78_wp)*r*1.0e3_wp*(1.0_wp + 0.448_wp*r))
    ! Stull (2011) fit, relative humidity in percent
    rhpc = 100.0_wp*rh
    twet = t0c + tc*atan(0.151977_wp*sqrt(rhpc + 8.313659_wp)) &
         + atan(tc + rhpc) - atan(rhpc - 1.676331_wp) &
         + 0.00391838_wp*rhpc**1.5_wp*atan(0.023101_wp*rhpc) - 4.686035_wp
  end subroutine thermo_point

  subroutine moist_column(nlev, p, t, q, thetae, twet)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: p(nlev), t(nlev), q(nlev)
    real(wp), intent(out) :: thetae(nlev), twet(nlev)
    integer :: k
    do k = 1, nlev
      call thermo_point(p(k), t(k), q(k), thetae(k), twet(k))
    end do
  end subroutine moist_column
end module moist_thermo
