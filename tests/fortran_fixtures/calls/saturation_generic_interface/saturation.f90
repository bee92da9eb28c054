! Saturation humidity through generic interfaces, as model physics
! libraries provide it (one name, a procedure per rank): qsat is a
! subroutine for a point or a column, esat a function for a point or a
! column; the column routine calls each form by its generic name.
module saturation
  implicit none
  integer, parameter :: r8 = kind(1.0d0)
  private
  public :: r8, qsat, esat, relative_humidity
  interface qsat
    module procedure qsat_point, qsat_column
  end interface qsat
  interface esat
    module procedure esat_point, esat_column
  end interface esat
contains
  real(r8) function esat_point(t)
    real(r8), intent(in) :: t
    esat_point = 611.2_r8*exp(17.67_r8*(t - 273.15_r8)/(t - 29.65_r8))
  end function esat_point

  function esat_column(n, t) result(es)
    integer, intent(in) :: n
    real(r8), intent(in) :: t(n)
    real(r8) :: es(n)
    integer :: k
    do k = 1, n
      es(k) = esat_point(t(k))
    end do
  end function esat_column

  subroutine qsat_point(t, p, qs)
    real(r8), intent(in) :: t, p
    real(r8), intent(out) :: qs
    real(r8) :: es
    es = esat(t)
    qs = 0.622_r8*es/(p - 0.378_r8*es)
  end subroutine qsat_point

  subroutine qsat_column(n, t, p, qs)
    integer, intent(in) :: n
    real(r8), intent(in) :: t(n), p(n)
    real(r8), intent(out) :: qs(n)
    integer :: k
    do k = 1, n
      call qsat(t(k), p(k), qs(k))
    end do
  end subroutine qsat_column

  subroutine relative_humidity(n, t, p, q, rh, rh_sfc, es_mean)
    integer, intent(in) :: n
    real(r8), intent(in) :: t(n), p(n), q(n)
    real(r8), intent(out) :: rh(n), rh_sfc, es_mean
    real(r8) :: qs(n), qs_sfc
    call qsat(n, t, p, qs)
    rh = q/qs
    call qsat(t(n), p(n), qs_sfc)
    rh_sfc = q(n)/qs_sfc
    es_mean = sum(esat(n, t))/n + 0.1_r8*esat(t(1))
  end subroutine relative_humidity
end module saturation
