! A boundary-layer step importing library routines under local names
! (use surface_physics, only: cd_n => neutral_drag, nudge => relax_profile),
! as models do to fit a library into their own naming.
module boundary_layer
  use surface_physics, only: wp => r8, cd_n => neutral_drag, nudge => relax_profile
  implicit none
contains
  subroutine bl_step(n, zref, z0, u, theta, tau)
    integer, intent(in) :: n
    real(wp), intent(in) :: zref, z0
    real(wp), intent(inout) :: u(n), theta(n)
    real(wp), intent(out) :: tau
    real(wp) :: cd
    cd = cd_n(zref, z0)
    tau = cd*u(1)**2
    call nudge(n, u, 0.9_wp*u(1), cd*10.0_wp)
    call nudge(n, theta, theta(n), 0.05_wp + cd)
  end subroutine bl_step
end module boundary_layer
