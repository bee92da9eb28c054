! Viscous Burgers equation u_t + u u_x = nu u_xx with first-order upwind
! advection chosen by an IF on the sign of the local velocity and centred
! diffusion, fixed (Dirichlet) end values, nt explicit steps.  Output: the
! final field and its kinetic energy; sensitivities to the initial field
! and the viscosity.  (The upwind flux is continuous at u = 0.)
! adfort: routine=burgers dep=u,ke indep=u,nu
! adfort: init n=50 nt=40 dt=0.01 dx=0.05 nu=0.02:0.05 u=-1:1
! adfort: bench n=5000 nt=400
module burgers_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine burgers(n, nt, dt, dx, nu, u, ke)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, dx, nu
    real(wp), intent(inout) :: u(n)
    real(wp), intent(out) :: ke
    real(wp) :: unew(n), dudx, diff
    integer :: i, k
    do k = 1, nt
      unew(1) = u(1)
      unew(n) = u(n)
      do i = 2, n - 1
        if (u(i) > 0.0_wp) then
          dudx = (u(i) - u(i - 1))/dx
        else
          dudx = (u(i + 1) - u(i))/dx
        end if
        diff = nu*(u(i + 1) - 2.0_wp*u(i) + u(i - 1))/dx**2
        unew(i) = u(i) + dt*(diff - u(i)*dudx)
      end do
      u = unew
    end do
    ke = 0.5_wp*dx*sum(u**2)
  end subroutine burgers
end module burgers_mod
