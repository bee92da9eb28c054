! Glacier surface mass balance with a prognostic snow albedo (module state).
! The albedo is an independent that the routine overwrites (ageing), so its
! adjoint must be incremented, exactly as for an argument.
module glacier_state
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp) :: albedo = 0.8_wp          ! snow albedo, aged at every call
  real(wp) :: melt_total = 0.0_wp      ! accumulated melt (diagnostic)
  real(wp), parameter :: lf = 3.34e5_wp
contains
  subroutine age_albedo(snowfall, dt)
    real(wp), intent(in) :: snowfall, dt
    real(wp) :: fresh
    fresh = min(1.0_wp, snowfall/0.01_wp)
    albedo = albedo + (0.55_wp - albedo)*(1.0_wp - exp(-dt/20.0_wp))
    albedo = albedo*(1.0_wp - 0.3_wp*fresh) + 0.3_wp*fresh*0.85_wp
  end subroutine age_albedo

  subroutine mass_balance(nday, swin, tair, snowfall, melt)
    integer, intent(in) :: nday
    real(wp), intent(in) :: swin(nday), tair(nday), snowfall(nday)
    real(wp), intent(out) :: melt
    integer :: d
    real(wp) :: qnet, qm
    melt = 0.0_wp
    do d = 1, nday
      qnet = (1.0_wp - albedo)*swin(d) + 8.0_wp*(tair(d) - 273.15_wp)
      qm = 0.5_wp*(qnet + sqrt(qnet**2 + 1.0_wp))
      melt = melt + qm*86400.0_wp/lf
      call age_albedo(snowfall(d), 1.0_wp)
    end do
    melt_total = melt_total + melt
  end subroutine mass_balance
end module glacier_state
