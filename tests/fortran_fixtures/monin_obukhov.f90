! Monin-Obukhov similarity, unstable surface layer (Businger-Dyer /
! Paulson integrated stability functions) and the friction velocity from
! the log wind profile.
! adfort: routine=stability_unstable dep=psi_m,psi_h,ustar indep=zeta,u,z,z0
! adfort: init zeta=-2:-0.05 u=1:10 z=2:20 z0=0.001:0.1
module surface_layer_mod
  implicit none
  integer, parameter :: wp = selected_real_kind(15, 307)
  real(wp), parameter :: pi = 3.14159265358979323846_wp
  real(wp), parameter :: karman = 0.4_wp
contains
  subroutine stability_unstable(zeta, u, z, z0, psi_m, psi_h, ustar)
    real(wp), intent(in) :: zeta, u, z, z0
    real(wp), intent(out) :: psi_m, psi_h, ustar
    real(wp) :: x
    x = (1.0_wp - 16.0_wp*zeta)**0.25_wp
    psi_m = 2.0_wp*log(0.5_wp*(1.0_wp + x)) + log(0.5_wp*(1.0_wp + x**2)) &
            - 2.0_wp*atan(x) + 0.5_wp*pi
    psi_h = 2.0_wp*log(0.5_wp*(1.0_wp + x**2))
    ustar = karman*u/(log(z/z0) - psi_m)
  end subroutine stability_unstable
end module surface_layer_mod
