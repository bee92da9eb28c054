! Simplified seawater equation of state (Roquet et al. 2015, "SEOS"):
! in-situ density anomaly with cabbeling and thermobaricity, plus the
! Medwin sound speed and the acoustic impedance rho*c.
! adfort: routine=seos dep=rho,sound,impedance indep=theta,salt,depth
! adfort: init theta=-1:28 salt=32:38 depth=0:2000
module seos_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  ! Module-level named constants (reference state and coefficients).
  real(wp), parameter :: rho0 = 1026.0_wp
  real(wp), parameter :: a0 = 1.6550e-1_wp, b0 = 7.6554e-1_wp
  real(wp), parameter :: lambda1 = 5.9520e-2_wp, lambda2 = 5.4914e-4_wp
  real(wp), parameter :: mu1 = 1.4970e-4_wp, mu2 = 1.1090e-5_wp
  real(wp), parameter :: nu = 2.4341e-3_wp
contains
  subroutine seos(theta, salt, depth, rho, sound, impedance)
    real(wp), intent(in) :: theta, salt, depth
    real(wp), intent(out) :: rho, sound, impedance
    real(wp) :: ta, sa
    ta = theta - 10.0_wp
    sa = salt - 35.0_wp
    rho = rho0 - a0*(1.0_wp + 0.5_wp*lambda1*ta + mu1*depth)*ta &
          + b0*(1.0_wp - 0.5_wp*lambda2*sa - mu2*depth)*sa - nu*ta*sa
    sound = 1449.2_wp + 4.6_wp*theta - 0.055_wp*theta**2 + 0.00029_wp*theta**3 &
            + (1.34_wp - 0.01_wp*theta)*sa + 0.016_wp*depth
    ! impedance written through a square root of rho**2*c**2 on purpose
    impedance = sqrt(rho**2*sound**2)
  end subroutine seos
end module seos_mod
