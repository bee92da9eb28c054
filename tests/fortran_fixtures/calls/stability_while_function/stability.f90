! Fixed-point iteration of a surface-layer stability parameter whose DO
! WHILE condition calls a function with expression arguments: the
! arguments are evaluated again at every trip.
module surface_layer
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  real(dp) function psi_m(zeta)
    real(dp), intent(in) :: zeta
    psi_m = -5.0_dp*zeta/(1.0_dp + 0.5_dp*abs(zeta))
  end function psi_m

  subroutine friction_velocity(z, z0, wind, zl, ustar)
    real(dp), intent(in) :: z, z0, wind, zl
    real(dp), intent(out) :: ustar
    real(dp) :: zeta
    integer :: it
    ustar = 0.4_dp*wind/log(z/z0)
    zeta = zl*z
    it = 0
    do while (abs(psi_m(zeta*0.5_dp) - psi_m(zeta)) > 1.0e-3_dp .and. it < 6)
      ustar = 0.4_dp*wind/(log(z/z0) - psi_m(zeta))
      zeta = 0.5_dp*zeta + 0.1_dp*ustar
      it = it + 1
    end do
  end subroutine friction_velocity
end module surface_layer
