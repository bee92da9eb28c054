! Diagnostics of a 2-D (lon, lat) field given with explicit bounds
! x(nlon, nlat): zonal means (SUM with dim=), anomalies from them
! (SPREAD), a cosine-latitude weighted variance, the range of the
! anomalies (MAXVAL - MINVAL) and a meridional-eddy covariance computed
! through the transposed field (TRANSPOSE) with a second field v.
! adfort: routine=zonal_stats dep=zmean,eddy_var,spread_range,cov indep=x,v
! adfort: init nlon=16 nlat=9 x=250:300 v=-10:10
! adfort: bench nlon=720 nlat=360
module zonal_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: pi = 3.14159265358979324_wp
contains
  subroutine zonal_stats(nlon, nlat, x, v, zmean, eddy_var, spread_range, cov)
    integer, intent(in) :: nlon, nlat
    real(wp), intent(in) :: x(nlon, nlat), v(nlon, nlat)
    real(wp), intent(out) :: zmean(nlat), eddy_var, spread_range, cov(nlat)
    real(wp) :: anom(nlon, nlat), coslat(nlat), xt(nlat, nlon), vt(nlat, nlon)
    integer :: j
    do j = 1, nlat
      coslat(j) = cos(pi*(real(j, wp) - 0.5_wp*(nlat + 1))/real(nlat + 1, wp))
    end do
    zmean = sum(x, dim=1)/real(nlon, wp)
    anom = x - spread(zmean, dim=1, ncopies=nlon)
    eddy_var = sum(sum(anom**2, dim=1)*coslat)/(real(nlon, wp)*sum(coslat))
    spread_range = maxval(anom) - minval(anom)
    ! the same zonal sums taken along the second index of the transposes
    xt = transpose(anom)
    vt = transpose(v - spread(sum(v, dim=1)/real(nlon, wp), dim=1, ncopies=nlon))
    cov = sum(xt*vt, dim=2)/real(nlon, wp)
  end subroutine zonal_stats
end module zonal_mod
