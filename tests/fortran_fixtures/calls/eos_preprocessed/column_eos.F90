! Column-mean density and potential energy anomaly of a water column,
! configured with the C preprocessor as model code often is: the kinds
! and reference state come from an #include file, the nonlinear
! (thermobaric, cabbeling) terms are compiled in with -DNONLINEAR_EOS,
! and the cabbeling coefficient is a macro (-DGAMMA_T=...).
module column_eos
  implicit none
#include "eos_config.h"
contains

  pure function density(t, s, z) result(rho)
    real(wp), intent(in) :: t, s, z
    real(wp) :: rho
#ifdef NONLINEAR_EOS
    rho = rho_ref * (1.0_wp - alpha * (t - t_ref) * (1.0_wp + 1.0e-4_wp * z) &
          - GAMMA_T * (t - t_ref)**2 + beta * (s - s_ref))
#else
    rho = rho_ref * (1.0_wp - alpha * (t - t_ref) + beta * (s - s_ref))
#endif
  end function density

  subroutine column_density(n, dz, temp, salt, rho_mean, pe)
    integer, intent(in) :: n
    real(wp), intent(in) :: dz
    real(wp), intent(in) :: temp(n), salt(n)
    real(wp), intent(out) :: rho_mean, pe
    real(wp) :: rho, z
    integer :: k
    rho_mean = 0.0_wp
    pe = 0.0_wp
    do k = 1, n
      z = (k - 0.5_wp) * dz
      rho = density(temp(k), salt(k), z)
      rho_mean = rho_mean + rho / n
#if defined(NONLINEAR_EOS) && !defined(NO_PE)
      pe = pe + 9.81_wp * (rho - rho_ref) * z * dz
#endif
    end do
  end subroutine column_density

end module column_eos
