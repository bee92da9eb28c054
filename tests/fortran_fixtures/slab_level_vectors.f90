! Near-surface diagnostics of a GCM, level by level on a (ncol, nlev) slab
! of columns, written on column vectors as physics packages often are:
! virtual temperature, density, Exner function, virtual potential
! temperature, a moist static energy, a bulk stability with the level
! below and a damped buoyancy.  Each level's vectors are set whole from
! the inputs and from each other; the stability carries the level below.
! adfort: routine=slab_diagnostics dep=mse,stab,buoy indep=t,q
! adfort: init ncol=4 nlev=5 p=50000:100000 z=10:3000 t=250:300 q=0.001:0.012
! adfort: shape p=ncol,nlev z=ncol,nlev t=ncol,nlev q=ncol,nlev mse=ncol,nlev stab=ncol,nlev buoy=ncol,nlev
! adfort: bench ncol=256 nlev=80
module slab_level_vectors
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: rd = 287.04_dp, cpd = 1004.64_dp, grav = 9.80665_dp
  real(dp), parameter :: p0 = 1.0e5_dp, lv = 2.501e6_dp
contains

  subroutine slab_diagnostics(ncol, nlev, p, z, t, q, mse, stab, buoy)
    integer, intent(in) :: ncol, nlev
    real(dp), intent(in) :: p(ncol, nlev), z(ncol, nlev), t(ncol, nlev), q(ncol, nlev)
    real(dp), intent(out) :: mse(ncol, nlev), stab(ncol, nlev), buoy(ncol, nlev)
    real(dp) :: tv(ncol), rho(ncol), exner(ncol), thv(ncol), thv_below(ncol)
    real(dp) :: damp(ncol), scale(ncol), wet(ncol)
    integer :: k
    thv_below = 300.0_dp
    do k = 1, nlev
      tv = t(:, k)*(1.0_dp + 0.608_dp*q(:, k))
      rho = p(:, k)/(rd*tv)
      ! A power of a real exponent: taped, not computed again.
      exner = (p(:, k)/p0)**(rd/cpd)
      thv = tv/exner
      damp = exp(-rho*z(:, k)/1000.0_dp)
      ! wet is changed after scale reads it: scale is taped.
      wet = 1.0_dp + lv*q(:, k)/(cpd*t(:, k))
      scale = wet*rho
      wet = wet*damp
      mse(:, k) = cpd*t(:, k) + grav*z(:, k) + lv*q(:, k)*rho
      stab(:, k) = (thv - thv_below)/thv_below*damp*scale
      buoy(:, k) = grav*(thv/thv_below - 1.0_dp)*wet
      thv_below = thv
    end do
  end subroutine slab_diagnostics

end module slab_level_vectors
