! Viscous Burgers equation u_t + u u_x = nu u_xx on a periodic grid:
! first-order upwind advection chosen per point by the sign of the local
! velocity, centred diffusion, forward Euler time stepping.  Cost: the
! misfit of the final state to observations (as in a 4D-Var cost
! function); gradient w.r.t. the initial state and the viscosity.
! adfort: routine=burgers_cost dep=cost indep=u0,nu
! adfort: init n=24 nt=10 dt=0.01 dx=0.1 nu=0.02:0.05 u0=-1:1 uobs=-1:1
! adfort: bench n=4000 nt=400
module burgers_misfit
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine burgers_cost(n, nt, dt, dx, nu, u0, uobs, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, dx, nu
    real(wp), intent(in) :: u0(n), uobs(n)
    real(wp), intent(out) :: cost
    real(wp) :: u(n), unew(n)
    real(wp) :: adv, diff, cfl, dif
    integer :: i, im, ip, it
    cfl = dt/dx
    dif = nu*dt/dx**2
    u = u0
    do it = 1, nt
      do i = 1, n
        im = i - 1
        ip = i + 1
        if (i == 1) im = n
        if (i == n) ip = 1
        ! upwind difference on the side the flow comes from
        if (u(i) > 0.0_wp) then
          adv = u(i)*(u(i) - u(im))
        else
          adv = u(i)*(u(ip) - u(i))
        end if
        diff = u(ip) - 2.0_wp*u(i) + u(im)
        unew(i) = u(i) - cfl*adv + dif*diff
      end do
      u = unew
    end do
    cost = 0.0_wp
    do i = 1, n
      cost = cost + 0.5_wp*(u(i) - uobs(i))**2
    end do
  end subroutine burgers_cost
end module burgers_misfit
