! Surface energy balance over a row of ocean / sea-ice points with WHERE
! masks: ice-covered points (below freezing) get an albedo that decreases
! with surface temperature and a conductive flux through the ice;
! open-water points get the ocean albedo and a mixed-layer heat uptake
! (ELSEWHERE).  Net flux and the thermodynamic ice thickness change.
! adfort: routine=ice_surface dep=qnet,hice indep=tsurf,hice,swdown
! adfort: init npts=40 tsurf=262:280 hice=0.5:3 swdown=50:300 lwdown=250:320 dt=86400
! adfort: bench npts=200000
module sea_ice_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: tfreeze = 271.35_wp, sigma = 5.670374e-8_wp
  real(wp), parameter :: kice = 2.03_wp, rhoi_lf = 917.0_wp*3.34e5_wp
contains
  subroutine ice_surface(npts, dt, tsurf, swdown, lwdown, hice, qnet)
    integer, intent(in) :: npts
    real(wp), intent(in) :: dt, tsurf(npts), swdown(npts), lwdown(npts)
    real(wp), intent(inout) :: hice(npts)
    real(wp), intent(out) :: qnet(npts)
    real(wp) :: albedo(npts), qcond(npts), lwup(npts)
    lwup = 0.97_wp*sigma*tsurf**4
    where (tsurf < tfreeze)
      albedo = 0.75_wp - 0.02_wp*(tsurf - 262.0_wp)
      qcond = kice*(tfreeze - tsurf)/hice
    elsewhere
      albedo = 0.07_wp
      qcond = -15.0_wp*(tsurf - tfreeze)
    end where
    qnet = (1.0_wp - albedo)*swdown + lwdown - lwup + qcond
    where (tsurf < tfreeze)
      hice = hice - dt*qnet/rhoi_lf
    end where
  end subroutine ice_surface
end module sea_ice_mod
