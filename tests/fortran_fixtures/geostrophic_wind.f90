! Geostrophic wind from a horizontal pressure gradient on the f-plane:
! speed, meteorological direction (ATAN2) and the beta parameter.
! adfort: routine=geostrophic dep=speed,wdir,beta indep=lat,dpdx,dpdy,rho
! adfort: init lat=30:60 dpdx=0.0005:0.002 dpdy=0.0005:0.002 rho=1.1:1.3
module dynamics_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: omega = 7.2921e-5_wp
  real(wp), parameter :: earth_radius = 6.371e6_wp
contains
  subroutine geostrophic(lat, dpdx, dpdy, rho, speed, wdir, beta)
    real(wp), intent(in) :: lat, dpdx, dpdy, rho
    real(wp), intent(out) :: speed, wdir, beta
    real(wp), parameter :: deg2rad = 3.14159265358979324_wp/180.0_wp
    real(wp) :: f, ug, vg
    f = 2.0_wp*omega*sin(lat*deg2rad)
    ug = -dpdy/(rho*f)
    vg = dpdx/(rho*f)
    speed = sqrt(ug**2 + vg**2)
    ! direction the wind blows from, degrees clockwise from north
    wdir = atan2(-ug, -vg)/deg2rad
    beta = 2.0_wp*omega*cos(lat*deg2rad)/earth_radius
  end subroutine geostrophic
end module dynamics_mod
