! adfort: routine=helical_trig dep=fvec,fjac indep=x
! adfort: init n=6 ldfjac=6 x=0.1:0.5
!
! Residuals and analytic Jacobian of the trigonometric function (Moré,
! Garbow and Hillstrom, problem 26) on x(1:n), with the helical valley
! function (problem 7) of x(1:3) added to the first three residuals.
! The trigonometric Jacobian writes one temporary per column and spreads
! it over all rows before fixing the diagonal; the helical valley takes
! the angle by quadrant (an IF on the sign of x(1)).
module helical_trig_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine helical_trig(n, x, fvec, fjac, ldfjac)
    integer, intent(in) :: n, ldfjac
    real(dp), intent(in) :: x(n)
    real(dp), intent(out) :: fvec(n), fjac(ldfjac, n)
    integer :: j, k
    real(dp) :: s, temp, temp1, temp2, theta, tpi

    s = 0.0_dp
    do j = 1, n
      fvec(j) = cos(x(j))
      s = s + fvec(j)
    end do
    do k = 1, n
      fvec(k) = real(n + k, dp) - sin(x(k)) - s - real(k, dp)*fvec(k)
    end do
    do j = 1, n
      temp = sin(x(j))
      do k = 1, n
        fjac(k, j) = temp
      end do
      fjac(j, j) = real(j + 1, dp)*temp - cos(x(j))
    end do

    tpi = 8.0_dp*atan(1.0_dp)
    if (x(1) > 0.0_dp) then
      theta = atan(x(2)/x(1))/tpi
    else if (x(1) < 0.0_dp) then
      theta = atan(x(2)/x(1))/tpi + 0.5_dp
    else
      theta = sign(0.25_dp, x(2))
    end if
    temp = sqrt(x(1)**2 + x(2)**2)
    fvec(1) = fvec(1) + 10.0_dp*(x(3) - 10.0_dp*theta)
    fvec(2) = fvec(2) + 10.0_dp*(temp - 1.0_dp)
    fvec(3) = fvec(3) + x(3)
    temp1 = tpi*temp**2
    temp2 = temp
    fjac(1, 1) = fjac(1, 1) + 100.0_dp*x(2)/temp1
    fjac(1, 2) = fjac(1, 2) - 100.0_dp*x(1)/temp1
    fjac(1, 3) = fjac(1, 3) + 10.0_dp
    fjac(2, 1) = fjac(2, 1) + 10.0_dp*x(1)/temp2
    fjac(2, 2) = fjac(2, 2) + 10.0_dp*x(2)/temp2
    fjac(3, 3) = fjac(3, 3) + 1.0_dp
  end subroutine helical_trig
end module helical_trig_mod
