! A COMMON block whose members have a kind from a module (real(wp) with
! use kinds): the block's layout module must use the same kind.  The
! surface fluxes are set into COMMON by one routine and read by another.
module kinds
  implicit none
  integer, parameter :: wp = selected_real_kind(12, 200)
end module kinds

subroutine surface_fluxes(n, tsurf, tair, wind)
  use kinds
  implicit none
  integer, intent(in) :: n
  real(wp), intent(in) :: tsurf(n), tair(n), wind
  real(wp) :: shf(16), lhf(16)
  common /fluxes/ shf, lhf
  integer :: i
  do i = 1, n
    shf(i) = 1.2_wp*1004.0_wp*1.3e-3_wp*wind*(tsurf(i) - tair(i))
    lhf(i) = 0.5_wp*shf(i)*exp(0.06_wp*(tsurf(i) - 273.15_wp))
  end do
end subroutine surface_fluxes

subroutine heat_budget(n, tsurf, tair, wind, budget)
  use kinds
  implicit none
  integer, intent(in) :: n
  real(wp), intent(in) :: tsurf(n), tair(n), wind
  real(wp), intent(out) :: budget
  real(wp) :: sens(16), lat(16)
  common /fluxes/ sens, lat
  integer :: i
  call surface_fluxes(n, tsurf, tair, wind)
  budget = 0.0_wp
  do i = 1, n
    budget = budget + sens(i)**2/(1.0_wp + lat(i))
  end do
end subroutine heat_budget
