! An iterative sea-surface-height analysis: innovations (observation minus
! model) are smoothed and added back with a gain.  The same routine
! (smooth) is called on passive data (the observation-error weights, once)
! and on active data (the innovations, in a DO WHILE loop, in both branches
! of an IF with different smoothing coefficients); the final misfit is a
! function with array arguments.
module ssh_analysis
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine smooth(n, a, alpha)
    integer, intent(in) :: n
    real(wp), intent(inout) :: a(n)
    real(wp), intent(in) :: alpha
    real(wp) :: b(n)
    integer :: i
    b = a
    do i = 2, n - 1
      a(i) = b(i) + alpha * (b(i - 1) - 2.0_wp * b(i) + b(i + 1))
    end do
  end subroutine smooth

  real(wp) function misfit(n, a, b, w)
    integer, intent(in) :: n
    real(wp), intent(in) :: a(n), b(n), w(n)
    misfit = 0.5_wp * sum(w * (a - b)**2) + 0.1_wp * sum(a**4)
  end function misfit

  subroutine assimilate(n, niter, h, hobs, alpha, gain, cost)
    integer, intent(in) :: n, niter
    real(wp), intent(inout) :: h(n)
    real(wp), intent(in) :: hobs(n), alpha, gain
    real(wp), intent(out) :: cost
    real(wp) :: w(n), innov(n)
    integer :: i, it
    do i = 1, n
      w(i) = 1.0_wp / (1.0_wp + (real(i - n / 2, wp) / real(n, wp))**2)
    end do
    call smooth(n, w, 0.25_wp)
    it = 0
    do while (it < niter)
      it = it + 1
      innov = hobs - h
      if (mod(it, 2) == 1) then
        call smooth(n, innov, alpha)
      else
        call smooth(n, innov, 0.5_wp * alpha)
      end if
      h = h + gain * w * innov
    end do
    cost = misfit(n, h, hobs, w)
  end subroutine assimilate
end module ssh_analysis
