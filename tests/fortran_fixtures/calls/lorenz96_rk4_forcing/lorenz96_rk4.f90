! The Lorenz (1996) model of an atmospheric latitude circle, integrated
! with the classical fourth-order Runge-Kutta scheme.  The forcing F is a
! module variable (as in models that read it from a namelist) and is an
! independent (--indep lorenz96_rk4::forcing), and the time-integrated
! energy accumulated in the module variable energy_sum is a dependent
! (--dep lorenz96_rk4::energy_sum); the tendency at each point
! is a function of four neighbours called in a periodic stencil loop; the
! stages go through a work array xs:
!   l96_forecast -> rk4_step -> tendency -> l96_point (function)
module lorenz96_rk4
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp) :: forcing = 8.0_wp
  real(wp) :: energy_sum = 0.0_wp     ! time-integrated energy diagnostic
contains
  real(wp) function l96_point(xm2, xm1, x, xp1)
    real(wp), intent(in) :: xm2, xm1, x, xp1
    l96_point = (xp1 - xm2) * xm1 - x + forcing
  end function l96_point

  subroutine tendency(n, x, dxdt)
    integer, intent(in) :: n
    real(wp), intent(in) :: x(n)
    real(wp), intent(out) :: dxdt(n)
    integer :: i
    do i = 1, n
      dxdt(i) = l96_point(x(modulo(i - 3, n) + 1), x(modulo(i - 2, n) + 1), &
                          x(i), x(modulo(i, n) + 1))
    end do
  end subroutine tendency

  subroutine rk4_step(n, dt, x)
    integer, intent(in) :: n
    real(wp), intent(in) :: dt
    real(wp), intent(inout) :: x(n)
    real(wp) :: k1(n), k2(n), k3(n), k4(n), xs(n)
    call tendency(n, x, k1)
    xs = x + 0.5_wp * dt * k1
    call tendency(n, xs, k2)
    xs = x + 0.5_wp * dt * k2
    call tendency(n, xs, k3)
    xs = x + dt * k3
    call tendency(n, xs, k4)
    x = x + dt / 6.0_wp * (k1 + 2.0_wp * k2 + 2.0_wp * k3 + k4)
    energy_sum = energy_sum + dt * 0.5_wp * sum(x**2)
  end subroutine rk4_step

  subroutine l96_forecast(n, nt, dt, x, xobs, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, xobs(n)
    real(wp), intent(inout) :: x(n)
    real(wp), intent(out) :: cost
    integer :: t
    cost = 0.0_wp
    do t = 1, nt
      call rk4_step(n, dt, x)
      cost = cost + 0.5_wp * sum((x - xobs)**2)
    end do
  end subroutine l96_forecast
end module lorenz96_rk4
