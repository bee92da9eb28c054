! Bulk surface fluxes with Monin-Obukhov stability corrections on every
! point of a grid: straight-line formulas with log, atan, sqrt and powers,
! a branch on the sign of the bulk Richardson number, a fixed number of
! iterations for the Obukhov length.
! adfort: routine=sfc_flux dep=tau,hflx indep=u,ts,ta
! adfort: init npts=8 z=10.0 z0=0.01:0.1 u=2:10 ts=285:300 ta=280:295
! adfort: bench npts=20000
module surface_flux_mo
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: vk = 0.4_wp, grav = 9.81_wp, cp = 1004.0_wp, rho = 1.2_wp
contains
  subroutine sfc_point(z, z0, u, ts, ta, tau, hflx)
    real(wp), intent(in) :: z, z0, u, ts, ta
    real(wp), intent(out) :: tau, hflx
    real(wp) :: ustar, tstar, zl, psim, psih, x, rl, lnz
    integer :: iter
    lnz = log(z/z0)
    ustar = vk*u/lnz
    tstar = vk*(ta - ts)/lnz
    do iter = 1, 3
      rl = vk*grav*tstar/(ta*ustar**2)
      zl = max(min(z*rl, 5.0_wp), -10.0_wp)
      if (zl >= 0.0_wp) then
        psim = -5.0_wp*zl
        psih = -5.0_wp*zl
      else
        x = sqrt(sqrt(1.0_wp - 16.0_wp*zl))
        psim = 2.0_wp*log((1.0_wp + x)/2.0_wp) + log((1.0_wp + x*x)/2.0_wp) &
               - 2.0_wp*atan(x) + 2.0_wp*atan(1.0_wp)
        psih = 2.0_wp*log((1.0_wp + x*x)/2.0_wp)
      end if
      ustar = vk*u/(lnz - psim)
      tstar = vk*(ta - ts)/(lnz - psih)
    end do
    tau = rho*ustar**2
    hflx = -rho*cp*ustar*tstar
  end subroutine sfc_point

  subroutine sfc_flux(npts, z, z0, u, ts, ta, tau, hflx)
    integer, intent(in) :: npts
    real(wp), intent(in) :: z, z0(npts), u(npts), ts(npts), ta(npts)
    real(wp), intent(out) :: tau(npts), hflx(npts)
    integer :: i
    do i = 1, npts
      call sfc_point(z, z0(i), u(i), ts(i), ta(i), tau(i), hflx(i))
    end do
  end subroutine sfc_flux
end module surface_flux_mo
