! Cooperative ligand binding (Hill equation, integer Hill coefficient n as
! a passive input: x**n with a variable integer exponent) and Haldane
! uptake kinetics with substrate inhibition (negative exponent).
! adfort: routine=hill_binding dep=theta,uptake indep=lig,kd,vmax,s
! adfort: init lig=0.5:3 kd=0.8:2 vmax=1:5 s=0.2:4 n=3
module kinetics_mod
  implicit none
  integer, parameter :: wp = selected_real_kind(p=15, r=300)
  real(wp), parameter :: ki = 2.5_wp     ! inhibition constant
contains
  subroutine hill_binding(lig, kd, n, vmax, s, theta, uptake)
    real(wp), intent(in) :: lig, kd, vmax, s
    integer, intent(in) :: n
    real(wp), intent(out) :: theta, uptake
    theta = lig**n/(kd**n + lig**n)
    uptake = vmax*s/(kd + s + s**2*ki**(-1)) - 1.0e-2_wp*s**(-1.5_wp)*theta
    uptake = -(-uptake)
  end subroutine hill_binding
end module kinetics_mod
