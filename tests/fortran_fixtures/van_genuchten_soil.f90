! Soil hydraulics (van Genuchten 1980, Mualem 1976): relative saturation
! Se = (1 + (alpha*|h|)**n)**(-m), conductivity K = Ks*Se**l*(1 - (1 -
! Se**(1/m))**m)**2, plus the slope of the surface (atan of a cubic
! profile) and a wetting-front phase angle.  Powers of powers and
! negated exponents: the adjoint must keep Fortran's right-associative
! ** and unary-minus rules (x**3**2 is x**9, not (x**3)**2).
! adfort: routine=van_genuchten dep=theta,cond,slope,phase indep=h,alpha,vg_n,ks,relief
! adfort: init h=-3:-0.5 alpha=0.5:2 vg_n=1.5:2.5 ks=1:10 relief=0.2:0.8 theta_r=0.05 theta_s=0.45
module soil_hydraulics_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: tort = 0.5_wp       ! Mualem tortuosity exponent
contains
  subroutine van_genuchten(h, alpha, vg_n, ks, relief, theta_r, theta_s, &
                           theta, cond, slope, phase)
    real(wp), intent(in) :: h, alpha, vg_n, ks, relief, theta_r, theta_s
    real(wp), intent(out) :: theta, cond, slope, phase
    real(wp) :: m, se, gap, wet

    m = 1.0_wp - 1.0_wp/vg_n
    se = (1.0_wp + (alpha*abs(h))**vg_n)**(-m)
    theta = theta_r + (theta_s - theta_r)*se
    gap = 1.0_wp - (1.0_wp - se**(1.0_wp/m))**m
    cond = ks*se**tort*gap**2
    ! Slope of a cubic relief profile, and how fast the wetting front turns.
    slope = atan(relief**3) + tanh(relief**2)*tan(relief**2/4.0_wp)
    wet = -(theta - theta_r)/(-(theta_s - theta_r))
    phase = atan2(wet, relief**4) - (-wet)**2*relief**(-2) + 2.0_wp**(-relief)**2
  end subroutine van_genuchten
end module soil_hydraulics_mod
