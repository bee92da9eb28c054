! Constants of the surface layer scheme.
module surface_consts
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: karman = 0.4_wp
  real(wp), parameter :: z0_sea = 2.0e-4_wp, z0_land = 0.05_wp
  real(wp), parameter :: cp_air = 1004.64_wp, rho_air = 1.2_wp
end module surface_consts
