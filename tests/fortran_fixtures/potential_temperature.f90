! In-place conversion of temperature to virtual potential temperature
! (Exner function), plus an approximate equivalent potential temperature.
! t is intent(inout) and both dependent and independent.
! adfort: routine=to_potential_temperature dep=t,theta_e indep=t,p,q
! adfort: init t=250:310 p=50000:100000 q=0.001:0.015
module thermo_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: rd = 287.04_wp, cp = 1004.64_wp
  real(wp), parameter :: p0 = 1.0e5_wp, lv = 2.501e6_wp
contains
  subroutine to_potential_temperature(t, p, q, theta_e)
    real(wp), intent(inout) :: t
    real(wp), intent(in) :: p, q
    real(wp), intent(out) :: theta_e
    real(wp) :: exner, kappa
    kappa = rd/cp
    exner = (p/p0)**kappa
    theta_e = t/exner*exp(lv*q/(cp*t))
    t = t/exner
    t = t*(1.0_wp + 0.61_wp*q)
  end subroutine to_potential_temperature
end module thermo_mod
