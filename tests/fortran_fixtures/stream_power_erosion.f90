! adfort: routine=stream_power dep=erosion indep=z,dx,kero,m_exp,n_exp
! adfort: init n=12 dx=100.0 z=10:12 kero=1.0e-3:2.0e-3 m_exp=0.4:0.6 n_exp=1.5:2.0
!
! Detachment-limited fluvial erosion along a river profile, E = K A^m S^n
! (stream power law).  The downstream slope is clipped at zero, so on
! reaches that climb downstream (flats, pits) S = 0 exactly: S**n is 0
! there, and so is its derivative in every parameter, the exponent n
! included, whose partial S**n*log(S) must not turn into 0*(-Inf).
! The catchment area grows downstream as a power series in the distance,
! which is 0 at the head: t**k from k = 0 must not give 0*0**(-1).
module stream_power_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine stream_power(n, dx, z, kero, m_exp, n_exp, erosion)
    integer, intent(in) :: n
    real(wp), intent(in) :: dx
    real(wp), intent(in) :: z(n)
    real(wp), intent(in) :: kero, m_exp, n_exp
    real(wp), intent(out) :: erosion(n)
    integer :: i, k
    real(wp) :: area, slope, hack

    do i = 1, n
      ! Hack's law as a short power series in the distance downstream.
      hack = 0.0_wp
      do k = 0, 3
        hack = hack + (0.5_wp**k)*(real(i - 1, wp)*dx/1000.0_wp)**k
      end do
      area = 1.0e4_wp*hack
      if (i < n) then
        slope = max((z(i) - z(i + 1))/dx, 0.0_wp)
      else
        slope = max((z(i - 1) - z(i))/dx, 0.0_wp)
      end if
      erosion(i) = kero*area**m_exp*slope**n_exp
    end do
  end subroutine stream_power
end module stream_power_mod
