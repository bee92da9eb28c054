! Nonlinear red-black Gauss-Seidel smoother for the 1-D reaction-diffusion
! problem -u'' + sigma*(1 + u**2)*u = f (lagged nonlinearity), as used in
! a multigrid cycle: each sweep updates the even points upward with step
! +2, then the odd points downward with step -2 (in place, so each point
! reads freshly updated neighbours), and a final weighted restriction to
! the coarse grid walks the fine grid with a run-time stride.
! adfort: routine=rb_smooth dep=u,coarse indep=u,f,sigma
! adfort: init n=41 nsweep=6 stride=2 h=0.05 u=0.2:1 f=0.5:2 sigma=0.5:2
! adfort: bench n=20001 nsweep=100
module multigrid_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine rb_smooth(n, nsweep, stride, h, sigma, f, u, coarse)
    integer, intent(in) :: n, nsweep, stride
    real(wp), intent(in) :: h, sigma, f(n)
    real(wp), intent(inout) :: u(n)
    real(wp), intent(out) :: coarse((n - 1)/stride + 1)
    real(wp) :: h2
    integer :: i, sweep, ic, last_odd
    h2 = h*h
    last_odd = 2*((n - 2)/2) + 1      ! largest odd index below n
    do sweep = 1, nsweep
      do i = 2, n - 1, 2
        u(i) = (h2*f(i) + u(i - 1) + u(i + 1))/(2.0_wp + h2*sigma*(1.0_wp + u(i)**2))
      end do
      do i = last_odd, 3, -2
        u(i) = (h2*f(i) + u(i - 1) + u(i + 1))/(2.0_wp + h2*sigma*(1.0_wp + u(i)**2))
      end do
    end do
    ic = 0
    do i = 1, n, stride
      ic = ic + 1
      if (i == 1 .or. i == n) then
        coarse(ic) = u(i)
      else
        coarse(ic) = 0.25_wp*u(i - 1) + 0.5_wp*u(i) + 0.25_wp*u(i + 1)
      end if
    end do
  end subroutine rb_smooth
end module multigrid_mod
