! A physics library whose routines a model imports under its own names.
module surface_physics
  implicit none
  integer, parameter :: r8 = kind(1.0d0)
  real(r8), parameter :: karman = 0.4_r8
contains
  ! neutral drag coefficient over a rough surface
  real(r8) function neutral_drag(z, z0)
    real(r8), intent(in) :: z, z0
    neutral_drag = (karman/log(z/z0))**2
  end function neutral_drag

  ! relax a profile towards a value with a given rate
  subroutine relax_profile(n, q, target_value, rate)
    integer, intent(in) :: n
    real(r8), intent(inout) :: q(n)
    real(r8), intent(in) :: target_value, rate
    q = q + rate*(target_value - q)
  end subroutine relax_profile
end module surface_physics
