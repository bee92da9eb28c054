! Linear surface gravity waves at finite depth: angular frequency from the
! dispersion relation, phase and group speed, and the pressure attenuation
! factor at height z below the surface.
! adfort: routine=wave_dispersion dep=omega,cp,cg,attn indep=k,depth,z
! adfort: init k=0.05:0.5 depth=5:50 z=-4:-1
module waves_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: g = 9.81_wp
contains
  subroutine wave_dispersion(k, depth, z, omega, cp, cg, attn)
    real(wp), intent(in) :: k, depth, z
    real(wp), intent(out) :: omega, cp, cg, attn
    real(wp) :: kh
    kh = k*depth
    omega = sqrt(g*k*tanh(kh))
    cp = omega/k
    cg = 0.5_wp*cp*(1.0_wp + 2.0_wp*kh/sinh(2.0_wp*kh))
    attn = cosh(k*(depth + z))/cosh(kh)
  end subroutine wave_dispersion
end module waves_mod
