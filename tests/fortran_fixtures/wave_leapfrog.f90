! 1-D wave equation with a variable wave speed, leapfrog in time (three
! time levels rotated by copies), a weak Robert-Asselin filter, fixed
! ends.  Cost: energy of the final state at the observed points.
! adfort: routine=wave_run dep=cost indep=c2,u0
! adfort: init n=12 nt=6 dt=0.05 dx=0.2 c2=0.8:1.2 u0=-1:1
! adfort: bench n=5000 nt=300
module wave_leapfrog
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine wave_run(n, nt, dt, dx, c2, u0, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, dx
    real(wp), intent(in) :: c2(n), u0(n)
    real(wp), intent(out) :: cost
    real(wp) :: uold(n), u(n), unew(n), lap, gam
    integer :: i, it
    real(wp), parameter :: alpha = 0.01_wp
    gam = (dt/dx)**2
    uold = u0
    u = u0
    unew = 0.0_wp
    do it = 1, nt
      do i = 2, n - 1
        lap = u(i+1) - 2.0_wp*u(i) + u(i-1)
        unew(i) = 2.0_wp*u(i) - uold(i) + gam*c2(i)*lap
      end do
      unew(1) = 0.0_wp
      unew(n) = 0.0_wp
      do i = 1, n
        u(i) = u(i) + alpha*(unew(i) - 2.0_wp*u(i) + uold(i))
      end do
      uold = u
      u = unew
    end do
    cost = 0.0_wp
    do i = 1, n, 3
      cost = cost + u(i)**2 + c2(i)*((u(i) - uold(i))/dt)**2
    end do
  end subroutine wave_run
end module wave_leapfrog
