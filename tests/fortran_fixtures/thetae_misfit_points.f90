! Misfit of the equivalent potential temperature (Bolton 1980) to
! observations at scattered points.  A point routine computes theta-e from
! T, q and p with the intrinsics real thermodynamics code uses (LOG, EXP, a
! real power); the cost sums the squared departures, weighted, over the
! points.  The point loop is the routine's last statement and its
! iterations share only the sum: r_rev reverses it one point at a time.
! adfort: routine=thetae_misfit dep=cost indep=t,q
! adfort: init n=40 t=250:300 q=0.001:0.015 p=50000:100000 obs=300:340 w=0.5:1.5
! adfort: bench n=200000
module thetae_obs
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: p0 = 100000.0_dp
contains
  subroutine thetae_point(t, q, p, the)
    real(dp), intent(in) :: t, q, p
    real(dp), intent(out) :: the
    real(dp) :: e, r, tl, kappa, thl
    r = q/(1.0_dp - q)                      ! mixing ratio
    e = p*r/(0.622_dp + r)/100.0_dp         ! vapour pressure [hPa]
    tl = 2840.0_dp/(3.5_dp*log(t) - log(e) - 4.805_dp) + 55.0_dp
    kappa = 0.2854_dp*(1.0_dp - 0.28_dp*r)
    thl = t*(p0/p)**kappa
    the = thl*exp((3.376_dp/tl - 0.00254_dp)*1000.0_dp*r*(1.0_dp + 0.81_dp*r))
  end subroutine thetae_point

  subroutine thetae_misfit(n, t, q, p, obs, w, cost)
    integer, intent(in) :: n
    real(dp), intent(in) :: t(n), q(n), p(n), obs(n), w(n)
    real(dp), intent(out) :: cost
    real(dp) :: the, d
    integer :: i
    cost = 0.0_dp
    do i = 1, n
      call thetae_point(t(i), q(i), p(i), the)
      d = the - obs(i)
      cost = cost + 0.5_dp*w(i)*d*d
    end do
  end subroutine thetae_misfit
end module thetae_obs
