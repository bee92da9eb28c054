! Saturation adjustment of a (column, level) field by an ELEMENTAL
! subroutine called on whole 2-D arrays and on sections with keyword
! arguments and an expression argument, and an ELEMENTAL function of two
! arguments applied to 2-D arrays inside an expression, in the style of
! CAM/WRF microphysics helpers.
module moist_adjust
  implicit none
  integer, parameter :: r8 = selected_real_kind(12)
  real(r8), parameter :: latvap = 2.501e6_r8, cpair = 1004.64_r8, rv = 461.5_r8
contains
  elemental function qsat_fn(t, p) result(qs)
    real(r8), intent(in) :: t, p
    real(r8) :: qs
    real(r8) :: es
    es = 611.2_r8 * exp(17.67_r8 * (t - 273.15_r8) / (t - 29.65_r8))
    qs = 0.622_r8 * es / (p - 0.378_r8 * es)
  end function qsat_fn

  elemental subroutine condense(t, q, p, ql)
    real(r8), intent(inout) :: t, q
    real(r8), intent(in) :: p
    real(r8), intent(inout) :: ql
    real(r8) :: qs, dq
    qs = qsat_fn(t, p)
    if (q > qs) then
      dq = (q - qs) / (1.0_r8 + latvap**2 * qs / (cpair * rv * t**2))
      q = q - dq
      ql = ql + dq
      t = t + latvap / cpair * dq
    end if
  end subroutine condense

  subroutine adjust_columns(ncol, nlev, t, q, p, ql, rh)
    integer, intent(in) :: ncol, nlev
    real(r8), intent(inout) :: t(ncol, nlev), q(ncol, nlev), ql(ncol, nlev)
    real(r8), intent(in) :: p(ncol, nlev)
    real(r8), intent(out) :: rh(ncol, nlev)
    integer :: k

    call condense(t, q, p, ql)
    ! the top level again, lifted to lower pressure
    call condense(t(:, 1), q(:, 1), p=0.9_r8 * p(:, 1), ql=ql(:, 1))
    rh = q / qsat_fn(t, p)
    do k = 2, nlev
      rh(:, k) = 0.5_r8 * (rh(:, k) + qsat_fn(t(:, k - 1), p(:, k)) * 10.0_r8)
    end do
  end subroutine adjust_columns
end module moist_adjust
