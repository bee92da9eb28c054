! Tracer transport in a 1-D ocean channel (e.g. a nutrient): nt steps of a
! two-stage Heun scheme.  Three levels of calls:
!   forecast (time loop, misfit to observations)
!     -> heun_step (one time step, two stages)
!       -> face_fluxes (centred advection + gradient-dependent eddy
!          diffusion through the cell faces, closed ends)
module tracer_transport
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains

  subroutine face_fluxes(n, c, vel, kappa, dx, f)
    integer, intent(in) :: n
    real(wp), intent(in) :: c(n), vel(n + 1), kappa, dx
    real(wp), intent(out) :: f(n + 1)
    real(wp) :: grad, keff
    integer :: i
    f(1) = 0.0_wp
    f(n + 1) = 0.0_wp
    do i = 2, n
      grad = (c(i) - c(i - 1)) / dx
      keff = kappa * (1.0_wp + 0.5_wp * grad**2 / (1.0_wp + grad**2))
      f(i) = vel(i) * 0.5_wp * (c(i - 1) + c(i)) - keff * grad
    end do
  end subroutine face_fluxes

  subroutine heun_step(n, dt, dx, c, vel, kappa, decay)
    integer, intent(in) :: n
    real(wp), intent(in) :: dt, dx, vel(n + 1), kappa, decay
    real(wp), intent(inout) :: c(n)
    real(wp) :: f(n + 1), c1(n)
    integer :: i
    call face_fluxes(n, c, vel, kappa, dx, f)
    do i = 1, n
      c1(i) = c(i) + dt * (-(f(i + 1) - f(i)) / dx - decay * c(i)**2)
    end do
    call face_fluxes(n, c1, vel, kappa, dx, f)
    do i = 1, n
      c(i) = 0.5_wp * (c(i) + c1(i) &
             + dt * (-(f(i + 1) - f(i)) / dx - decay * c1(i)**2))
    end do
  end subroutine heun_step

  subroutine forecast(n, nt, dt, dx, c, vel, kappa, decay, cobs, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, dx, vel(n + 1), kappa, decay, cobs(n)
    real(wp), intent(inout) :: c(n)
    real(wp), intent(out) :: cost
    integer :: t
    cost = 0.0_wp
    do t = 1, nt
      call heun_step(n, dt, dx, c, vel, kappa, decay)
      cost = cost + 0.5_wp * dx * sum((c - cobs)**2)
    end do
  end subroutine forecast

end module tracer_transport
