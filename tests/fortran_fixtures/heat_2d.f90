! 2-D heat equation with a spatially varying conductivity and a T**4
! radiative cooling term on an (nx, ny) grid: explicit five-point stencil
! in nested (i, j) loops, insulated (Neumann) side walls and fixed
! top/bottom rows written with array sections, nsteps time steps.  Output:
! the zonal (row) means of the final field, sum(t, dim=1).
! adfort: routine=heat2d dep=tzonal indep=t,kappa,cool
! adfort: init nx=12 ny=10 nsteps=10 t=0.8:1.2 kappa=0.5:1.0 cool=0.01:0.03
! adfort: bench nx=300 ny=200 nsteps=50
module heat2d_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: r = 0.2_wp     ! dt/dx**2 (stable for kappa <= 1.25)
contains
  subroutine heat2d(nx, ny, nsteps, t, kappa, cool, tzonal)
    integer, intent(in) :: nx, ny, nsteps
    real(wp), intent(inout) :: t(nx, ny)
    real(wp), intent(in) :: kappa(nx, ny)
    real(wp), intent(in) :: cool
    real(wp), intent(out) :: tzonal(ny)
    real(wp) :: tnew(nx, ny)
    integer :: i, j, k
    do k = 1, nsteps
      do j = 2, ny - 1
        do i = 2, nx - 1
          tnew(i, j) = t(i, j) + r*kappa(i, j)*(t(i + 1, j) + t(i - 1, j) &
               + t(i, j + 1) + t(i, j - 1) - 4.0_wp*t(i, j)) &
               - cool*t(i, j)**4
        end do
      end do
      ! insulated side walls, fixed top and bottom rows
      tnew(1, 2:ny - 1) = tnew(2, 2:ny - 1)
      tnew(nx, 2:ny - 1) = tnew(nx - 1, 2:ny - 1)
      tnew(:, 1) = t(:, 1)
      tnew(:, ny) = t(:, ny)
      t = tnew
    end do
    tzonal = sum(t, dim=1)/real(nx, wp)
  end subroutine heat2d
end module heat2d_mod
