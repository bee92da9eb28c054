! Surface net radiation: shortwave with Kasten-Czeplak cloud attenuation,
! Swinbank clear-sky emissivity blended with cloud, Stefan-Boltzmann
! longwave, and the sky brightness temperature.  Default REAL: the
! harness promotes it to double so finite differences are meaningful.
! adfort: routine=net_radiation dep=rnet,tsky indep=tsurf,tair,albedo,zenith,cloud
! adfort: init tsurf=260:310 tair=255:305 albedo=0.05:0.6 zenith=0.1:1.2 cloud=0.1:0.9
! adfort: fflags=-fdefault-real-8 -fdefault-double-8
module radiation_mod
  implicit none
contains
  subroutine net_radiation(tsurf, tair, albedo, zenith, cloud, rnet, tsky)
    real, intent(in) :: tsurf, tair, albedo, zenith, cloud
    real, intent(out) :: rnet, tsky
    real, parameter :: sigma = 5.670374e-8, s0 = 1361.0, emis = 0.97
    real :: sw, lw_down, lw_up, eps_sky
    sw = (1.0 - albedo)*s0*cos(zenith)*(1.0 - 0.75*cloud**3.4)
    eps_sky = 9.2e-6*tair**2*(1.0 - cloud) + cloud
    lw_down = eps_sky*sigma*tair**4
    lw_up = emis*sigma*tsurf**4 + (1.0 - emis)*lw_down
    rnet = sw + lw_down - lw_up
    tsky = (lw_down/sigma)**0.25
  end subroutine net_radiation
end module radiation_mod
