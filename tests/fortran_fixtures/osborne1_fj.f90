! adfort: routine=osborne1 dep=fvec,fjac indep=x
! adfort: init m=33 n=5 ldfjac=33 x=0.2:0.8
!
! Osborne 1 function (Moré, Garbow and Hillstrom, problem 17): fit of
! y = x1 + x2 exp(-t x4) + x3 exp(-t x5) to 33 observations, residuals
! and analytic Jacobian.  The observations are a named constant array;
! the exponentials are scalar temporaries shared by the residual and
! four Jacobian columns of the same row.
module osborne1_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: yobs(33) = [ &
      0.844_dp, 0.908_dp, 0.932_dp, 0.936_dp, 0.925_dp, 0.908_dp, 0.881_dp, &
      0.850_dp, 0.818_dp, 0.784_dp, 0.751_dp, 0.718_dp, 0.685_dp, 0.658_dp, &
      0.628_dp, 0.603_dp, 0.580_dp, 0.558_dp, 0.538_dp, 0.522_dp, 0.506_dp, &
      0.490_dp, 0.478_dp, 0.467_dp, 0.457_dp, 0.448_dp, 0.438_dp, 0.431_dp, &
      0.424_dp, 0.420_dp, 0.414_dp, 0.411_dp, 0.406_dp]
contains
  subroutine osborne1(m, n, x, fvec, fjac, ldfjac)
    integer, intent(in) :: m, n, ldfjac
    real(dp), intent(in) :: x(n)
    real(dp), intent(out) :: fvec(m), fjac(ldfjac, n)
    integer :: i
    real(dp) :: t, tmp1, tmp2

    do i = 1, m
      t = 10.0_dp*real(i - 1, dp)/real(m - 1, dp)
      tmp1 = exp(-t*x(4))
      tmp2 = exp(-t*x(5))
      fvec(i) = yobs(i) - (x(1) + x(2)*tmp1 + x(3)*tmp2)
      fjac(i, 1) = -1.0_dp
      fjac(i, 2) = -tmp1
      fjac(i, 3) = -tmp2
      fjac(i, 4) = t*x(2)*tmp1
      fjac(i, 5) = t*x(3)*tmp2
    end do
  end subroutine osborne1
end module osborne1_mod
