! Thermodynamic growth of sea ice over nt days at n points.  The surface
! temperature moves from the freezing point (thin ice) towards the air
! temperature (thick, insulating ice); the turbulent heat loss comes from
! a library routine without source (bulk_heat_flux), whose adjoint the
! user supplies with --adjoint-lib.
module sea_ice
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: t_freeze = 271.35_dp
  real(dp), parameter :: h_insul = 0.3_dp             ! m
  real(dp), parameter :: growth = 86400.0_dp / (917.0_dp * 334.0e3_dp)
contains
  real(dp) function surface_temp(ta, h)
    real(dp), intent(in) :: ta, h
    surface_temp = (t_freeze * h_insul + ta * h) / (h_insul + h)
  end function surface_temp

  subroutine ice_growth(n, nt, dt, h, ta, wind, hmean)
    integer, intent(in) :: n, nt
    real(dp), intent(in) :: dt, ta(n), wind
    real(dp), intent(inout) :: h(n)
    real(dp), intent(out) :: hmean
    real(dp) :: ts(n), qh(n)
    integer :: i, step
    do step = 1, nt
      do i = 1, n
        ts(i) = surface_temp(ta(i), h(i))
      end do
      call bulk_heat_flux(n, ts, ta, wind, qh)
      do i = 1, n
        h(i) = h(i) + dt * growth * (qh(i) - 2.0_dp)
      end do
    end do
    hmean = sum(h) / real(n, dp)
  end subroutine ice_growth
end module sea_ice
