! Implicit (backward Euler) vertical diffusion of a tracer on ncol model
! columns of nlev levels, nt time steps: on each column and step the
! tridiagonal system is built from the interface diffusivities and solved
! with the Thomas algorithm.  Zero-flux top and bottom.  Cost: the misfit
! of the final profiles to observations; gradient w.r.t. the diffusivity
! profiles and the initial tracer.
! adfort: routine=vdiff_cost dep=cost indep=kz,tr
! adfort: init ncol=3 nlev=10 nt=4 dt=600.0 dz=50.0 kz=1:10 tr=280:300 tobs=280:300
! adfort: bench ncol=200 nlev=80 nt=40
module vertical_diffusion
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  ! Thomas algorithm for a(k) x(k-1) + b(k) x(k) + c(k) x(k+1) = d(k),
  ! diagonally dominant systems (no pivoting).
  subroutine tridiag_solve(n, a, b, c, d, x)
    integer, intent(in) :: n
    real(wp), intent(in) :: a(n), b(n), c(n), d(n)
    real(wp), intent(out) :: x(n)
    real(wp) :: cp(n), dp(n), den
    integer :: k
    cp(1) = c(1)/b(1)
    dp(1) = d(1)/b(1)
    do k = 2, n
      den = b(k) - a(k)*cp(k-1)
      cp(k) = c(k)/den
      dp(k) = (d(k) - a(k)*dp(k-1))/den
    end do
    x(n) = dp(n)
    do k = n - 1, 1, -1
      x(k) = dp(k) - cp(k)*x(k+1)
    end do
  end subroutine tridiag_solve

  ! One implicit diffusion step on one column; kz(k) is the diffusivity
  ! at the interface below level k (kz(0) top, kz(nlev) bottom, unused).
  subroutine diffuse_column(nlev, dt, dz, kz, t)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: dt, dz
    real(wp), intent(in) :: kz(0:nlev)
    real(wp), intent(inout) :: t(nlev)
    real(wp) :: a(nlev), b(nlev), c(nlev), rhs(nlev), s
    integer :: k
    s = dt/dz**2
    do k = 1, nlev
      a(k) = -s*kz(k-1)
      c(k) = -s*kz(k)
      if (k == 1) a(k) = 0.0_wp
      if (k == nlev) c(k) = 0.0_wp
      b(k) = 1.0_wp - a(k) - c(k)
      rhs(k) = t(k)
    end do
    call tridiag_solve(nlev, a, b, c, rhs, t)
  end subroutine diffuse_column

  subroutine vdiff_cost(ncol, nlev, nt, dt, dz, kz, tr, tobs, cost)
    integer, intent(in) :: ncol, nlev, nt
    real(wp), intent(in) :: dt, dz
    real(wp), intent(in) :: kz(0:nlev, ncol)
    real(wp), intent(inout) :: tr(nlev, ncol)
    real(wp), intent(in) :: tobs(nlev, ncol)
    real(wp), intent(out) :: cost
    integer :: it, j
    do it = 1, nt
      do j = 1, ncol
        call diffuse_column(nlev, dt, dz, kz(:, j), tr(:, j))
      end do
    end do
    cost = 0.5_wp*sum((tr - tobs)**2)
  end subroutine vdiff_cost
end module vertical_diffusion
