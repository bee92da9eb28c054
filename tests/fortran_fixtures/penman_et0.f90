! Penman-Monteith reference evapotranspiration on every grid point of a
! land surface: straight-line formula with exp, log, sqrt and real powers
! (FAO-56), the aerodynamic resistance from the wind at 2 m.
! adfort: routine=et0_field dep=et0 indep=tmean,rn,u2,rh
! adfort: init npts=10 z=100:500 tmean=5:30 rn=5:20 u2=0.5:5 rh=30:90
! adfort: bench npts=20000
module penman
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine et0_point(z, tmean, rn, u2, rh, et0)
    real(wp), intent(in) :: z, tmean, rn, u2, rh
    real(wp), intent(out) :: et0
    real(wp) :: p, gamma, es, ea, delta, g, ra, rs, lambda, num, den
    p = 101.3_wp*((293.0_wp - 0.0065_wp*z)/293.0_wp)**5.26_wp
    lambda = 2.501_wp - 2.361e-3_wp*tmean
    gamma = 1.013e-3_wp*p/(0.622_wp*lambda)
    es = 0.6108_wp*exp(17.27_wp*tmean/(tmean + 237.3_wp))
    ea = es*rh/100.0_wp
    delta = 4098.0_wp*es/(tmean + 237.3_wp)**2
    g = 0.1_wp*rn
    ra = log((2.0_wp - 0.08_wp)/0.015_wp)**2/(0.41_wp**2*max(u2, 0.1_wp))
    rs = 70.0_wp
    num = 0.408_wp*delta*(rn - g) + gamma*900.0_wp/(tmean + 273.0_wp)*u2*(es - ea)
    den = delta + gamma*(1.0_wp + 0.34_wp*u2)
    et0 = num/den + 1.0e-3_wp*sqrt(ra/(ra + rs))
  end subroutine et0_point

  subroutine et0_field(npts, z, tmean, rn, u2, rh, et0)
    integer, intent(in) :: npts
    real(wp), intent(in) :: z(npts), tmean(npts), rn(npts), u2(npts), rh(npts)
    real(wp), intent(out) :: et0(npts)
    integer :: i
    do i = 1, npts
      call et0_point(z(i), tmean(i), rn(i), u2(i), rh(i), et0(i))
    end do
  end subroutine et0_field
end module penman
