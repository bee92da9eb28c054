! Ocean mixed layer: one routine diagnoses the mixed-layer depth into a
! module variable, another reads it to entrain heat; the driving routine
! never names the module variable itself.  Its adjoint lives in the
! generated module and must start at zero in every reversal (the depth is
! relaxed, so its old value is read and its adjoint does not end at zero).
module mixed_layer_state
  implicit none
  integer, parameter :: r8 = selected_real_kind(12)
  real(r8) :: mld = 20.0_r8          ! mixed-layer depth [m]
  real(r8) :: entrain_coef = 0.2_r8
end module mixed_layer_state

module mixed_layer
  use mixed_layer_state
  implicit none
contains
  subroutine diagnose_mld(nz, dz, temp)
    integer, intent(in) :: nz
    real(r8), intent(in) :: dz, temp(nz)
    real(r8) :: w, wsum, depth
    integer :: k
    depth = 0.0_r8
    wsum = 0.0_r8
    do k = 1, nz
      ! smooth indicator of the temperature step below the surface
      w = 0.5_r8*(1.0_r8 + tanh((temp(1) - temp(k) - 0.2_r8)*5.0_r8))
      depth = depth + (1.0_r8 - w)*dz
      wsum = wsum + w
    end do
    ! relaxed towards the diagnosed depth: the old value is read
    mld = 0.5_r8*mld + 0.5_r8*(depth + 0.1_r8*wsum)
  end subroutine diagnose_mld

  subroutine entrain(nz, dz, temp, heat)
    integer, intent(in) :: nz
    real(r8), intent(in) :: dz
    real(r8), intent(inout) :: temp(nz)
    real(r8), intent(out) :: heat
    real(r8) :: tmix, depth
    integer :: k
    tmix = 0.0_r8
    do k = 1, nz
      depth = (k - 0.5_r8)*dz
      tmix = tmix + temp(k)*exp(-depth/mld)
    end do
    tmix = tmix/nz
    heat = 0.0_r8
    do k = 1, nz
      heat = heat + entrain_coef*(tmix - temp(k))*dz
      temp(k) = temp(k) + entrain_coef*(tmix - temp(k))
    end do
  end subroutine entrain

  subroutine mixed_layer_step(nz, dz, temp, heat)
    integer, intent(in) :: nz
    real(r8), intent(in) :: dz
    real(r8), intent(inout) :: temp(nz)
    real(r8), intent(out) :: heat
    call diagnose_mld(nz, dz, temp)
    call entrain(nz, dz, temp, heat)
  end subroutine mixed_layer_step
end module mixed_layer
