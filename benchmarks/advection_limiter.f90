! 1-D advection of a tracer by a constant velocity on a periodic grid:
! a flux-limited (van Leer/superbee-type) scheme, nt forward Euler steps.
! Call chain: run (time loop) -> step -> fluxes -> limiter (function).
! Cost: the squared tracer after nt steps; gradient w.r.t. the initial
! tracer and the velocity.
! adfort: routine=run dep=cost indep=c,u
! adfort: init n=20 nt=8 dt=0.1 dx=1.0 u=0.4:0.6 c=0.5:1.5
! adfort: bench n=2000 nt=200
module advection
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  real(wp) function limiter(r)
    real(wp), intent(in) :: r
    limiter = max(0.0_wp, min(2.0_wp*r, 1.0_wp), min(r, 2.0_wp))
  end function limiter

  subroutine fluxes(n, c, u, dt, dx, f)
    integer, intent(in) :: n
    real(wp), intent(in) :: c(0:n+1), u, dt, dx
    real(wp), intent(out) :: f(0:n)
    integer :: i
    real(wp) :: r, nu, dc
    nu = u*dt/dx
    do i = 1, n - 1
      dc = c(i+1) - c(i)
      if (abs(dc) > 1.0e-12_wp) then
        r = (c(i) - c(i-1))/dc
      else
        r = 0.0_wp
      end if
      f(i) = u*(c(i) + 0.5_wp*(1.0_wp - nu)*limiter(r)*dc)
    end do
    f(0) = u*c(0)
    f(n) = u*c(n)
  end subroutine fluxes

  subroutine step(n, c, u, dt, dx)
    integer, intent(in) :: n
    real(wp), intent(inout) :: c(0:n+1)
    real(wp), intent(in) :: u, dt, dx
    real(wp) :: f(0:n)
    integer :: i
    call fluxes(n, c, u, dt, dx, f)
    do i = 1, n
      c(i) = c(i) - dt/dx*(f(i) - f(i-1))
    end do
    c(0) = c(n)
    c(n+1) = c(1)
  end subroutine step

  subroutine run(n, nt, c, u, dt, dx, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(inout) :: c(0:n+1)
    real(wp), intent(in) :: u, dt, dx
    real(wp), intent(out) :: cost
    integer :: it
    do it = 1, nt
      call step(n, c, u, dt, dx)
    end do
    cost = sum(c(1:n)**2)
  end subroutine run
end module advection
