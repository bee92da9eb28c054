! Zero-layer sea-ice thermodynamics (Semtner 1976): the conductive flux
! through ice of thickness h between a surface at ts and water at its
! freezing point, and the surface temperature balancing it.
module ice_thermo
  implicit none
  integer, parameter :: dp = selected_real_kind(12, 100)
  real(dp), parameter :: kice = 2.03_dp, rhoi = 917.0_dp, lfus = 3.34e5_dp
  real(dp), parameter :: tfrz = 271.35_dp, hmin = 0.05_dp
contains
  subroutine conductive_flux(n, h, ts, fc)
    integer, intent(in) :: n
    real(dp), intent(in) :: h(n), ts(n)
    real(dp), intent(out) :: fc(n)
    integer :: i
    do i = 1, n
      fc(i) = kice * (tfrz - ts(i)) / max(h(i), hmin)
    end do
  end subroutine conductive_flux

  real(dp) function surface_temperature(tair, h)
    real(dp), intent(in) :: tair, h
    real(dp) :: w
    ! Weight of the air temperature: thin ice stays near freezing.
    w = h / (h + 0.3_dp)
    surface_temperature = w * tair + (1.0_dp - w) * tfrz
  end function surface_temperature
end module ice_thermo
