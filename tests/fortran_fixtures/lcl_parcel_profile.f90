! A parcel lifted dry-adiabatically from the surface of each column,
! level by level, until its saturation specific humidity falls to its own
! humidity (the lifting condensation level, EXIT).  The saturation
! humidity of each level comes from a function whose result goes straight
! into an array element indexed by the level; the search index is read
! nowhere else, so only that call's adjoint needs it back.
! adfort: routine=lcl_profile dep=qs,tlcl indep=tsfc,psfc,q
! adfort: init ncol=4 nlev=15 tsfc=288:300 psfc=95000:101000 q=0.008:0.012 dz=100
module lcl_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: gamma_dry = 9.8e-3_dp, scale_height = 8400.0_dp
contains
  function qsat(t, p)
    real(dp), intent(in) :: t, p
    real(dp) :: qsat
    real(dp) :: es
    es = 611.2_dp*exp(17.67_dp*(t - 273.15_dp)/(t - 29.65_dp))
    qsat = 0.622_dp*es/(p - 0.378_dp*es)
  end function qsat

  subroutine lcl_profile(ncol, nlev, dz, tsfc, psfc, q, qs, tlcl, klcl)
    integer, intent(in) :: ncol, nlev
    real(dp), intent(in) :: dz, tsfc(ncol), psfc(ncol), q(ncol)
    real(dp), intent(out) :: qs(nlev, ncol), tlcl(ncol)
    integer, intent(out) :: klcl(ncol)
    real(dp) :: temp, pres
    integer :: i, k
    qs = 0.0_dp
    do i = 1, ncol
      temp = tsfc(i)
      pres = psfc(i)
      do k = 1, nlev
        qs(k, i) = qsat(temp, pres)
        if (qs(k, i) <= q(i)) exit
        temp = temp - gamma_dry*dz
        pres = pres*exp(-dz/scale_height)
      end do
      tlcl(i) = temp
      klcl(i) = min(k, nlev)
    end do
  end subroutine lcl_profile
end module lcl_mod
