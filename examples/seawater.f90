! UNESCO (EOS-80) equation of state of seawater: in-situ density from
! temperature, practical salinity and pressure, via the one-atmosphere
! density and the secant bulk modulus (Millero and Poisson 1981;
! Fofonoff and Millard 1983).  Check value: rho(t=25, S=35, p=10000 dbar)
! = 1062.53817 kg m-3.
!
! Differentiate with
!   adfort diff examples/seawater.f90 --dep rho --indep temp,salt
module seawater_mod
  implicit none
  private
  public :: wp, density

  integer, parameter :: wp = kind(1.0d0)

contains

  subroutine density(temp, salt, p, rho)
    real(wp), intent(in) :: temp   ! in-situ temperature [degC]
    real(wp), intent(in) :: salt   ! practical salinity [psu]
    real(wp), intent(in) :: p      ! sea pressure [dbar]
    real(wp), intent(out) :: rho   ! in-situ density [kg m-3]
    real(wp) :: t, s15, pb, rho_w, rho0, k_w, k0, a_w, a, b_w, b, k

    t = temp
    s15 = salt*sqrt(salt)          ! S**1.5
    pb = 0.1_wp*p                  ! the bulk modulus fit uses bar

    ! density of pure water and at one atmosphere
    rho_w = 999.842594_wp + 6.793952e-2_wp*t - 9.095290e-3_wp*t**2 &
            + 1.001685e-4_wp*t**3 - 1.120083e-6_wp*t**4 + 6.536332e-9_wp*t**5
    rho0 = rho_w + salt*(0.824493_wp - 4.0899e-3_wp*t + 7.6438e-5_wp*t**2 &
                         - 8.2467e-7_wp*t**3 + 5.3875e-9_wp*t**4) &
           + s15*(-5.72466e-3_wp + 1.0227e-4_wp*t - 1.6546e-6_wp*t**2) &
           + 4.8314e-4_wp*salt**2

    ! secant bulk modulus K(S, t, p) = K0 + A p + B p**2
    k_w = 19652.21_wp + 148.4206_wp*t - 2.327105_wp*t**2 &
          + 1.360477e-2_wp*t**3 - 5.155288e-5_wp*t**4
    k0 = k_w + salt*(54.6746_wp - 0.603459_wp*t + 1.09987e-2_wp*t**2 &
                     - 6.1670e-5_wp*t**3) &
         + s15*(7.944e-2_wp + 1.6483e-2_wp*t - 5.3009e-4_wp*t**2)
    a_w = 3.239908_wp + 1.43713e-3_wp*t + 1.16092e-4_wp*t**2 - 5.77905e-7_wp*t**3
    a = a_w + salt*(2.2838e-3_wp - 1.0981e-5_wp*t - 1.6078e-6_wp*t**2) &
        + 1.91075e-4_wp*s15
    b_w = 8.50935e-5_wp - 6.12293e-6_wp*t + 5.2787e-8_wp*t**2
    b = b_w + salt*(-9.9348e-7_wp + 2.0816e-8_wp*t + 9.1697e-10_wp*t**2)
    k = k0 + a*pb + b*pb**2

    rho = rho0/(1.0_wp - pb/k)
  end subroutine density

end module seawater_mod
