! The Lorenz (1996) model of an atmospheric latitude circle, integrated
! with the classical fourth-order Runge-Kutta scheme.  The forcing F is a
! module variable (as in models that read it from a namelist) and is an
! independent (--indep lorenz96_rk4::forcing); the tendency at each point
! is a function of four neighbours called in a periodic stencil loop; the
! RK stages are passed as array expressions (x + 0.5*dt*k1):
!   l96_forecast -> rk4_step -> tendency -> l96_point (function)
module lorenz96_rk4
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp) :: forcing = 8.0_wp
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
    real(wp) :: k1(n), k2(n), k3(n), k4(n)
    call tendency(n, x, k1)
    call tendency(n, x + 0.5_wp * dt * k1, k2)
    call tendency(n, x + 0.5_wp * dt * k2, k3)
    call tendency(n, x + dt * k3, k4)
    x = x + dt / 6.0_wp * (k1 + 2.0_wp * k2 + 2.0_wp * k3 + k4)
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
