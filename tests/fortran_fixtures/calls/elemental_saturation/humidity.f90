! Relative humidity diagnostics of a column with an ELEMENTAL saturation
! vapour pressure function applied to whole arrays (es = esat(t)), inside
! an intrinsic (sum(esat(t))), to an elementwise expression of sections,
! element by element in a loop, and in an IF condition (passive control
! flow); a function with a RESULT clause.
module humidity
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  elemental function esat(t) result(es)
    real(wp), intent(in) :: t
    real(wp) :: es
    es = 611.2_wp * exp(17.67_wp * (t - 273.15_wp) / (t - 29.65_wp))
  end function esat

  function mixing_ratio(e, p) result(r)
    real(wp), intent(in) :: e, p
    real(wp) :: r
    r = 0.622_wp * e / (p - e)
  end function mixing_ratio

  subroutine column_humidity(n, t, p, qv, rh_mean, deficit)
    integer, intent(in) :: n
    real(wp), intent(in) :: t(n), p(n), qv(n)
    real(wp), intent(out) :: rh_mean, deficit
    real(wp) :: es(n), qs
    integer :: i
    es = esat(t)
    rh_mean = 0.0_wp
    deficit = 1.0e-3_wp * sum(esat(t) - es * 0.9_wp)
    deficit = deficit + 1.0e-4_wp * sum(esat(0.5_wp * (t(2:n) + t(1:n-1)) - 0.5_wp))
    do i = 1, n
      qs = mixing_ratio(es(i), p(i))
      rh_mean = rh_mean + qv(i) / qs / real(n, wp)
      if (esat(t(i)) > 1500.0_wp) then
        deficit = deficit + (qs - qv(i)) * 1.0e3_wp
      else
        deficit = deficit + 0.5_wp * (qs - qv(i)) * 1.0e3_wp
      end if
    end do
  end subroutine column_humidity
end module humidity
