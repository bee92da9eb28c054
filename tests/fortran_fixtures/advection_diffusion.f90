! 1-D linear advection-diffusion of a tracer on a periodic domain,
! forward-in-time, centred-in-space advection with explicit diffusion
! (FTCS, stable for nu*dt/dx**2 <= 1/2 with enough diffusion), nt steps;
! the whole field is updated with u = unew each step.  Cost: mean squared
! departure from an observation field.  u is both dependent and
! independent (the final state and its sensitivity to the initial state).
! adfort: routine=advect_diffuse dep=u,cost indep=u,vel,kappa
! adfort: init n=40 nt=30 u=0.5:1.5 vel=0.8:1.2 kappa=0.02:0.04 uobs=0.8:1.2
! adfort: bench n=4000 nt=400
module advection_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: dx = 0.1_wp, dt = 0.05_wp
contains
  subroutine advect_diffuse(n, nt, u, vel, kappa, uobs, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(inout) :: u(n)
    real(wp), intent(in) :: vel, kappa
    real(wp), intent(in) :: uobs(n)
    real(wp), intent(out) :: cost
    real(wp) :: unew(n)
    real(wp) :: ca, cd
    integer :: i, step, im, ip
    ca = 0.5_wp*vel*dt/dx
    cd = kappa*dt/dx**2
    do step = 1, nt
      do i = 1, n
        im = i - 1
        ip = i + 1
        if (im < 1) im = n
        if (ip > n) ip = 1
        unew(i) = u(i) - ca*(u(ip) - u(im)) + cd*(u(ip) - 2.0_wp*u(i) + u(im))
      end do
      u = unew
    end do
    cost = sum((u - uobs)**2)/real(n, wp)
  end subroutine advect_diffuse
end module advection_mod
