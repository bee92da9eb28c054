! Explicit diffusion written with array syntax and WHERE: the update reads
! shifted sections of the old field, negative values are clipped by WHERE,
! a source term with MERGE; time loop in the same routine.
! adfort: routine=diffuse_run dep=cost indep=q0,kap
! adfort: init n=12 nt=4 kap=0.05:0.2 q0=-0.2:1
! adfort: bench n=20000 nt=100
module array_syntax_diffusion
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine diffuse_run(n, nt, kap, q0, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: kap(n), q0(n)
    real(wp), intent(out) :: cost
    real(wp) :: q(n), flux(n-1)
    integer :: it
    q = q0
    do it = 1, nt
      flux = 0.5_wp*(kap(1:n-1) + kap(2:n))*(q(2:n) - q(1:n-1))
      q(2:n-1) = q(2:n-1) + flux(2:n-1) - flux(1:n-2)
      where (q < 0.0_wp)
        q = 0.1_wp*q
      end where
      where (q > 0.5_wp)
        q = q + 0.01_wp*q**2
      elsewhere
        q = 0.99_wp*q
      end where
    end do
    cost = sum(q**2)
  end subroutine diffuse_run
end module array_syntax_diffusion
