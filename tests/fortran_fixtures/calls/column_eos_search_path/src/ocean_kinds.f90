! Working precision and physical constants shared by the ocean routines.
module ocean_kinds
  implicit none
  integer, parameter :: wp = selected_real_kind(12, 100)
  real(wp), parameter :: grav = 9.81_wp
  real(wp), parameter :: rho0 = 1025.0_wp
end module ocean_kinds
