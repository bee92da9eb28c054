! Bulk momentum drag over a row of points with a gustiness floor: the
! wind speed is HYPOT(u, v) (a Fortran 2008 intrinsic fparser does not
! know, so PSyclone keeps the WHERE using it opaque), calm points get a
! gust speed; a second WHERE right after it limits the drag coefficient
! over rough (high-wind) points with constants from another module.  Two
! WHEREs in one opaque block, the second lowered only once the module's
! names are known.
! adfort: routine=gust_drag dep=taux,tauy indep=u,v,cd
! adfort: init npts=40 u=-12:12 v=-12:12 cd=1e-3:2e-3 rho=1.1:1.3
! adfort: bench npts=200000
module surface_constants
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: wgust = 0.5_wp, cd_max = 1.8e-3_wp, u_rough = 8.0_wp
end module surface_constants

module gust_drag_mod
  use surface_constants, only: wp
  implicit none
contains
  subroutine gust_drag(npts, rho, u, v, cd, taux, tauy)
    use surface_constants, only: wgust, cd_max, u_rough
    integer, intent(in) :: npts
    real(wp), intent(in) :: rho(npts), u(npts), v(npts)
    real(wp), intent(inout) :: cd(npts)
    real(wp), intent(out) :: taux(npts), tauy(npts)
    real(wp) :: speed(npts)
    speed = wgust
    where (hypot(u, v) > wgust)
      speed = hypot(u, v)
    end where
    where (speed > u_rough)
      cd = min(cd*(1.0_wp + 0.07_wp*(speed - u_rough)), cd_max)
    elsewhere
      cd = cd*(1.0_wp + 0.01_wp*speed)
    end where
    taux = rho*cd*speed*u
    tauy = rho*cd*speed*v
  end subroutine gust_drag
end module gust_drag_mod
