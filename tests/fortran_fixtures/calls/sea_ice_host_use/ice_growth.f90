! Sea-ice growth over a few days: the driver's module uses the
! thermodynamics library whole, so the routines it calls are named only
! in the statements of the step.
module ice_growth
  use ice_thermo
  implicit none
contains
  subroutine ice_growth_step(n, nt, dt, hi, tair, cost)
    integer, intent(in) :: n, nt
    real(dp), intent(in) :: dt, tair(n)
    real(dp), intent(inout) :: hi(n)
    real(dp), intent(out) :: cost
    real(dp) :: ts(n), fc(n)
    integer :: i, it
    do it = 1, nt
      do i = 1, n
        ts(i) = surface_temperature(tair(i), hi(i))
      end do
      call conductive_flux(n, hi, ts, fc)
      do i = 1, n
        hi(i) = hi(i) + dt * fc(i) / (rhoi * lfus)
      end do
    end do
    cost = 0.0_dp
    do i = 1, n
      cost = cost + (hi(i) - 1.5_dp)**2
    end do
  end subroutine ice_growth_step
end module ice_growth
