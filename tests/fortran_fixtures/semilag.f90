! 1-D semi-Lagrangian advection on a periodic grid: departure points from
! a velocity field, cubic Lagrange interpolation at them (integer cell
! index from FLOOR, weights from the fractional position), nt steps.
! adfort: routine=sl_run dep=cost indep=q0,u
! adfort: init n=16 nt=4 dt=0.3 dx=1.0 u=0.5:1.5 q0=0:1 qobs=0:1
! adfort: bench n=4000 nt=100
module semilag
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine sl_step(n, dt, dx, u, q)
    integer, intent(in) :: n
    real(wp), intent(in) :: dt, dx, u(n)
    real(wp), intent(inout) :: q(n)
    real(wp) :: qn(n), xd, s, w0, w1, w2, w3
    integer :: i, k, km, kp, kpp
    do i = 1, n
      xd = real(i - 1, wp) - u(i)*dt/dx
      k = floor(xd)
      s = xd - real(k, wp)
      k = modulo(k, n) + 1
      km = modulo(k - 2, n) + 1
      kp = modulo(k, n) + 1
      kpp = modulo(k + 1, n) + 1
      w0 = -s*(s - 1.0_wp)*(s - 2.0_wp)/6.0_wp
      w1 = (s + 1.0_wp)*(s - 1.0_wp)*(s - 2.0_wp)/2.0_wp
      w2 = -(s + 1.0_wp)*s*(s - 2.0_wp)/2.0_wp
      w3 = (s + 1.0_wp)*s*(s - 1.0_wp)/6.0_wp
      qn(i) = w0*q(km) + w1*q(k) + w2*q(kp) + w3*q(kpp)
    end do
    q = qn
  end subroutine sl_step

  subroutine sl_run(n, nt, dt, dx, u, q0, qobs, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, dx, u(n), q0(n), qobs(n)
    real(wp), intent(out) :: cost
    real(wp) :: q(n)
    integer :: it
    q = q0
    do it = 1, nt
      call sl_step(n, dt, dx, u, q)
    end do
    cost = sum((q - qobs)**2)
  end subroutine sl_run
end module semilag
