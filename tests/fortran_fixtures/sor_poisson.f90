! Implicit step with a Poisson-type solve by a fixed number of SOR sweeps
! (Gauss-Seidel order: the new left neighbour, the old right one), then a
! pressure-gradient correction; time loop.  Dirichlet ends.
! adfort: routine=sor_run dep=cost indep=f0,kap
! adfort: init n=10 nt=3 nsweep=4 kap=0.5:1.5 f0=-1:1
! adfort: bench n=2000 nt=40 nsweep=20
module sor_poisson
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine sor_solve(n, nsweep, kap, f, p)
    integer, intent(in) :: n, nsweep
    real(wp), intent(in) :: kap(n), f(n)
    real(wp), intent(inout) :: p(0:n+1)
    real(wp), parameter :: omega = 1.5_wp
    real(wp) :: r
    integer :: i, k
    do k = 1, nsweep
      do i = 1, n
        r = 0.5_wp*(p(i-1) + p(i+1)) - 0.5_wp*kap(i)*f(i) - p(i)
        p(i) = p(i) + omega*r
      end do
    end do
  end subroutine sor_solve

  subroutine sor_run(n, nt, nsweep, kap, f0, cost)
    integer, intent(in) :: n, nt, nsweep
    real(wp), intent(in) :: kap(n), f0(n)
    real(wp), intent(out) :: cost
    real(wp) :: p(0:n+1), f(n)
    integer :: i, it
    p = 0.0_wp
    f = f0
    do it = 1, nt
      call sor_solve(n, nsweep, kap, f, p)
      do i = 1, n
        f(i) = 0.9_wp*f(i) - 0.05_wp*(p(i+1) - p(i-1)) + 0.01_wp*sin(f(i))
      end do
    end do
    cost = sum(p(1:n)**2) + sum(f**2)
  end subroutine sor_run
end module sor_poisson
