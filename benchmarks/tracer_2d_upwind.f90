! Two-dimensional tracer transport on an ocean grid with partial cells:
! first-order upwind fluxes through cell faces (face velocities), Laplacian
! diffusion weighted by the wet fractions of the cells, forward Euler steps;
! a halo of one cell, no wrap-around.  Cost: misfit of the final tracer to
! observations; gradient w.r.t. the initial tracer and the diffusivity.
! adfort: routine=tracer_run dep=cost indep=tr0,kh
! adfort: init nx=7 ny=6 nt=4 dt=0.1 kh=0.01:0.02 tr0=0:1 uf=-0.5:0.5 vf=-0.5:0.5 obs=0:1 mask=0.5:1
! adfort: bench nx=200 ny=100 nt=50
module tracer_2d
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine tracer_step(nx, ny, dt, kh, uf, vf, mask, tr)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: dt, kh
    real(wp), intent(in) :: uf(0:nx, ny), vf(nx, 0:ny), mask(0:nx+1, 0:ny+1)
    real(wp), intent(inout) :: tr(0:nx+1, 0:ny+1)
    real(wp) :: fx(0:nx, ny), fy(nx, 0:ny), tnew(nx, ny)
    integer :: i, j
    do j = 1, ny
      do i = 0, nx
        if (uf(i, j) > 0.0_wp) then
          fx(i, j) = uf(i, j)*tr(i, j)
        else
          fx(i, j) = uf(i, j)*tr(i+1, j)
        end if
        fx(i, j) = fx(i, j) - kh*(tr(i+1, j) - tr(i, j))*mask(i, j)*mask(i+1, j)
      end do
    end do
    do j = 0, ny
      do i = 1, nx
        if (vf(i, j) > 0.0_wp) then
          fy(i, j) = vf(i, j)*tr(i, j)
        else
          fy(i, j) = vf(i, j)*tr(i, j+1)
        end if
        fy(i, j) = fy(i, j) - kh*(tr(i, j+1) - tr(i, j))*mask(i, j)*mask(i, j+1)
      end do
    end do
    do j = 1, ny
      do i = 1, nx
        tnew(i, j) = tr(i, j) - dt*(fx(i, j) - fx(i-1, j) + fy(i, j) - fy(i, j-1))
      end do
    end do
    do j = 1, ny
      do i = 1, nx
        tr(i, j) = tnew(i, j)*mask(i, j)
      end do
    end do
  end subroutine tracer_step

  subroutine tracer_run(nx, ny, nt, dt, kh, uf, vf, mask, tr0, obs, cost)
    integer, intent(in) :: nx, ny, nt
    real(wp), intent(in) :: dt, kh
    real(wp), intent(in) :: uf(0:nx, ny), vf(nx, 0:ny), mask(0:nx+1, 0:ny+1)
    real(wp), intent(in) :: tr0(0:nx+1, 0:ny+1), obs(0:nx+1, 0:ny+1)
    real(wp), intent(out) :: cost
    real(wp) :: tr(0:nx+1, 0:ny+1)
    integer :: it
    tr = tr0
    do it = 1, nt
      call tracer_step(nx, ny, dt, kh, uf, vf, mask, tr)
    end do
    cost = 0.5_wp*sum((tr - obs)**2)
  end subroutine tracer_run
end module tracer_2d
