! Shallow-ice approximation ice-sheet model on an (nx, ny) grid, explicit
! time stepping: Glen's-law diffusivity D = gam*H**5*|grad s|**2 on cell
! faces (skipped where both neighbours are ice-free), a surface mass
! balance with an accumulation / ablation switch at the equilibrium-line
! altitude, the thickness kept non-negative, and two thickness arrays
! swapped every step.  Cost: misfit to an observed thickness plus a
! smoothness penalty on the basal topography.
! adfort: routine=sia_run dep=cost indep=h,bed
! adfort: init nx=7 ny=6 nt=4 h=0.5:2.0 bed=0.0:0.5 hobs=0.5:2.0
! adfort: bench nx=120 ny=100 nt=40
module sia_model
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: gam = 0.004_wp, dx = 1.0_wp, dt = 0.15_wp
  real(wp), parameter :: ela = 1.4_wp, accum = 0.05_wp, ablat = 0.2_wp
  real(wp), parameter :: hmin = 1.0e-6_wp, alpha_reg = 0.01_wp
contains

  subroutine sia_step(nx, ny, h, bed, hnew)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: h(nx, ny), bed(nx, ny)
    real(wp), intent(out) :: hnew(nx, ny)
    real(wp) :: qx(0:nx, ny), qy(nx, 0:ny)
    real(wp) :: s(nx, ny), havg, dsdx, dsdy, diff, smb
    integer :: i, j
    s = bed + h
    qx = 0.0_wp
    qy = 0.0_wp
    do j = 1, ny
      do i = 1, nx - 1
        if (h(i, j) > hmin .or. h(i+1, j) > hmin) then
          havg = 0.5_wp*(h(i, j) + h(i+1, j))
          dsdx = (s(i+1, j) - s(i, j))/dx
          if (j > 1 .and. j < ny) then
            dsdy = 0.25_wp*(s(i, j+1) + s(i+1, j+1) - s(i, j-1) - s(i+1, j-1))/dx
          else
            dsdy = 0.0_wp
          end if
          diff = gam*havg**5*(dsdx**2 + dsdy**2)
          qx(i, j) = -diff*dsdx
        end if
      end do
    end do
    do j = 1, ny - 1
      do i = 1, nx
        if (h(i, j) > hmin .or. h(i, j+1) > hmin) then
          havg = 0.5_wp*(h(i, j) + h(i, j+1))
          dsdy = (s(i, j+1) - s(i, j))/dx
          if (i > 1 .and. i < nx) then
            dsdx = 0.25_wp*(s(i+1, j) + s(i+1, j+1) - s(i-1, j) - s(i-1, j+1))/dx
          else
            dsdx = 0.0_wp
          end if
          diff = gam*havg**5*(dsdx**2 + dsdy**2)
          qy(i, j) = -diff*dsdy
        end if
      end do
    end do
    do j = 1, ny
      do i = 1, nx
        if (s(i, j) > ela) then
          smb = accum*min(s(i, j) - ela, 1.0_wp)
        else
          smb = ablat*(s(i, j) - ela)
        end if
        hnew(i, j) = h(i, j) - dt/dx*(qx(i, j) - qx(i-1, j) + qy(i, j) - qy(i, j-1)) &
             + dt*smb
        if (hnew(i, j) < 0.0_wp) hnew(i, j) = 0.0_wp
      end do
    end do
  end subroutine sia_step

  subroutine sia_run(nx, ny, nt, h, bed, hobs, cost)
    integer, intent(in) :: nx, ny, nt
    real(wp), intent(inout) :: h(nx, ny)
    real(wp), intent(in) :: bed(nx, ny), hobs(nx, ny)
    real(wp), intent(out) :: cost
    real(wp) :: h2(nx, ny)
    integer :: it, i, j
    do it = 1, nt, 2
      call sia_step(nx, ny, h, bed, h2)
      call sia_step(nx, ny, h2, bed, h)
    end do
    cost = 0.0_wp
    do j = 1, ny
      do i = 1, nx
        cost = cost + 0.5_wp*(h(i, j) - hobs(i, j))**2
        if (i < nx) cost = cost + alpha_reg*(bed(i+1, j) - bed(i, j))**2
        if (j < ny) cost = cost + alpha_reg*(bed(i, j+1) - bed(i, j))**2
      end do
    end do
  end subroutine sia_run

end module sia_model
