! Air-sea turbulent heat fluxes over n ocean points with bulk formulae.
! sensible_heat and latent_heat are functions of several active arguments
! called inside the loop; latent_heat calls the function q_saturation, and
! the transfer coefficient comes from a function of the wind and of the
! air-sea temperature difference (stability), itself an argument of
! another function call.
module air_sea
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: rho_air = 1.22_wp, cp_air = 1005.0_wp
  real(wp), parameter :: lv = 2.5e6_wp
contains
  real(wp) function transfer_coeff(wind, dtemp, c0)
    real(wp), intent(in) :: wind, dtemp, c0
    ! larger in unstable conditions (warm sea), weak wind dependence
    transfer_coeff = c0 * (1.0_wp + 0.07_wp * wind / (1.0_wp + 0.1_wp * wind)) &
                     * (1.0_wp + 0.3_wp * tanh(dtemp / (wind**2 + 1.0_wp)))
  end function transfer_coeff

  real(wp) function q_saturation(t, p)
    real(wp), intent(in) :: t, p
    q_saturation = 0.98_wp * 0.622_wp * 611.2_wp &
                   * exp(17.67_wp * (t - 273.15_wp) / (t - 29.65_wp)) / p
  end function q_saturation

  real(wp) function sensible_heat(ts, ta, wind, ch)
    real(wp), intent(in) :: ts, ta, wind, ch
    sensible_heat = rho_air * cp_air * ch * wind * (ts - ta)
  end function sensible_heat

  real(wp) function latent_heat(ts, qa, wind, ce, p)
    real(wp), intent(in) :: ts, qa, wind, ce, p
    latent_heat = rho_air * lv * ce * wind * (q_saturation(ts, p) - qa)
  end function latent_heat

  subroutine surface_heat_loss(n, ts, ta, qa, wind, p, c0, area, total)
    integer, intent(in) :: n
    real(wp), intent(in) :: ts(n), ta(n), qa(n), wind(n), p(n), c0, area(n)
    real(wp), intent(out) :: total
    real(wp) :: coeff
    integer :: i
    total = 0.0_wp
    do i = 1, n
      coeff = transfer_coeff(wind(i), ts(i) - ta(i), c0)
      total = total + area(i) * (sensible_heat(ts(i), ta(i), wind(i), coeff) &
              + latent_heat(ts(i), qa(i), wind(i), 1.2_wp * coeff, p(i)))
    end do
    total = total / sum(area)
  end subroutine surface_heat_loss
end module air_sea
