! A simplified nonlinear equation of state of seawater (quadratic in
! temperature, thermobaric and cabbeling terms), as in Vallis (2006).
module seawater_eos
  use ocean_kinds, only: wp, rho0
  implicit none
  real(wp), parameter :: t0 = 10.0_wp, s0 = 35.0_wp
  real(wp), parameter :: beta_t = 1.67e-4_wp, beta_s = 7.8e-4_wp
  real(wp), parameter :: gamma_b = 1.1e-8_wp, cabbel = 1.0e-5_wp
contains
  real(wp) function density(t, s, z)
    real(wp), intent(in) :: t, s, z
    real(wp) :: dt
    dt = t - t0
    density = rho0 * (1.0_wp - beta_t * (1.0_wp + gamma_b * z * rho0 * 9.81_wp) * dt &
                      - 0.5_wp * cabbel * dt**2 + beta_s * (s - s0))
  end function density

  subroutine buoyancy_frequency(nz, rho, z, n2)
    integer, intent(in) :: nz
    real(wp), intent(in) :: rho(nz), z(nz)
    real(wp), intent(out) :: n2(nz - 1)
    integer :: k
    do k = 1, nz - 1
      n2(k) = 9.81_wp / rho0 * (rho(k + 1) - rho(k)) / (z(k + 1) - z(k))
    end do
  end subroutine buoyancy_frequency
end module seawater_eos
