! adfort: routine=bucket dep=w,et indep=pet
! adfort: init w=40:120 pet=1:5 wmax=150 kdrain=0.05
!
! One step of a two-store soil hydrology: the root-zone water w drains
! nonlinearly, and the evapotranspiration from the canopy store is limited
! by the root-zone wetness.  The soil water w is an intent(inout) dependent
! that is not an independent (and does not depend on the independent pet):
! its adjoint must return the whole sensitivity of the seeded outputs to the
! incoming w, through the wetness factor (tanh) as well, not only through
! its own update.
subroutine bucket(w, pet, wmax, kdrain, et)
  implicit none
  real(8), intent(inout) :: w
  real(8), intent(in) :: pet, wmax, kdrain
  real(8), intent(out) :: et
  real(8) :: beta, drainage
  beta = tanh(2.0d0*w/wmax)
  et = pet*beta
  drainage = kdrain*w*beta**2
  w = w - drainage
end subroutine bucket
