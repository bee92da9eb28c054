! Two-pass column radiation: a first pass with optical depths from the
! humidity profile (a differentiated routine), then a clear-sky pass where the optical depths are set
! from constants by a routine (intent(out)) and the reference humidity by a
! function of passive values.  The active variables overwritten with
! passive values must have their adjoints cleared there.
module cloud_optics
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine clear_sky_depth(n, tau)
    integer, intent(in) :: n
    real(dp), intent(out) :: tau(n)
    integer :: k
    do k = 1, n
      tau(k) = 0.05_dp + 0.01_dp*k
    end do
  end subroutine clear_sky_depth

  subroutine humid_depth(n, q, tau)
    integer, intent(in) :: n
    real(dp), intent(in) :: q(n)
    real(dp), intent(out) :: tau(n)
    integer :: k
    do k = 1, n
      tau(k) = 2.0_dp*q(k)**0.7_dp
    end do
  end subroutine humid_depth

  real(dp) function reference_humidity(p)
    real(dp), intent(in) :: p
    reference_humidity = 0.6_dp*exp(-p/8.0e4_dp)
  end function reference_humidity

  subroutine two_pass(n, q, t, olr)
    integer, intent(in) :: n
    real(dp), intent(in) :: q(n), t(n)
    real(dp), intent(out) :: olr
    real(dp) :: tau(n), trans, qref, p0
    integer :: k
    call humid_depth(n, q, tau)
    qref = sum(q)/n
    trans = 1.0_dp
    olr = 0.0_dp
    do k = n, 1, -1
      olr = olr + 5.67e-8_dp*t(k)**4*(1.0_dp - exp(-tau(k)))*trans*qref
      trans = trans*exp(-tau(k))
    end do
    ! clear-sky pass: tau and qref take passive values
    call clear_sky_depth(n, tau)
    p0 = 5.0e4_dp
    qref = reference_humidity(p0)
    trans = 1.0_dp
    do k = n, 1, -1
      olr = olr + 5.67e-8_dp*t(k)**4*(1.0_dp - exp(-tau(k)))*trans*qref
      trans = trans*exp(-tau(k))
    end do
  end subroutine two_pass
end module cloud_optics
