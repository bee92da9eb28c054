! Zero-layer sea-ice thermodynamics on a 2-D grid written with FORALL, as
! some F95-era models are: a masked FORALL construct for the surface
! energy balance and one-line FORALLs for the melt and the diagnostics
! (no FORALL reads an array it assigns, so adfort writes them as loops).
! adfort: routine=ice_thermo dep=hi,melt_total indep=hi,tair,qsw
! adfort: init nx=6 ny=5 dt=3600 hi=0.2:2.5 tair=250:275 qsw=50:250
module ice_thermo_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: kice = 2.03_wp, rhoi_lf = 3.0e8_wp, tf = 271.35_wp
contains
  subroutine ice_thermo(nx, ny, dt, tair, qsw, hi, melt_total)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: dt, tair(nx, ny), qsw(nx, ny)
    real(wp), intent(inout) :: hi(nx, ny)
    real(wp), intent(out) :: melt_total
    real(wp) :: tsurf(nx, ny), cond(nx, ny), melt(nx, ny)
    integer :: i, j
    forall (i = 1:nx, j = 1:ny, hi(i, j) > 0.05_wp)
      tsurf(i, j) = (kice*tf/hi(i, j) + 0.8_wp*qsw(i, j) + 15.0_wp*tair(i, j)) &
                    /(kice/hi(i, j) + 15.0_wp)
      cond(i, j) = kice*(tf - min(tsurf(i, j), tf))/hi(i, j)
    end forall
    forall (i = 1:nx, j = 1:ny, hi(i, j) <= 0.05_wp) tsurf(i, j) = tf
    forall (i = 1:nx, j = 1:ny, hi(i, j) <= 0.05_wp) cond(i, j) = 0.0_wp
    forall (j = 1:ny, i = 1:nx) melt(i, j) = dt*(0.2_wp*qsw(i, j) - cond(i, j))/rhoi_lf
    hi = max(hi - melt, 0.0_wp)
    melt_total = sum(melt**2)*1.0e6_wp
  end subroutine ice_thermo
end module ice_thermo_mod
