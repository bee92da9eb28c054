! A 2-D (x, z) atmospheric grid whose column physics is called once per
! column with array sections t(:, i), q(:, i) (contiguous), followed by a
! horizontal smoothing called once per level on the row t(k, :) (a
! non-contiguous section, passed by copy-in/copy-out), as in models that
! loop over columns around their physics packages.
module grid_physics
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine column_physics(nz, t, q, dt, tau)
    integer, intent(in) :: nz
    real(wp), intent(inout) :: t(nz), q(nz)
    real(wp), intent(in) :: dt, tau
    real(wp) :: cond
    integer :: k
    do k = 1, nz
      ! relaxation towards a reference profile and smooth condensation
      t(k) = t(k) + dt / tau * (290.0_wp - 6.0_wp * real(k, wp) - t(k))
      cond = 0.1_wp * q(k)**2 / (q(k) + 0.01_wp)
      q(k) = q(k) - dt * cond
      t(k) = t(k) + dt * 2.5_wp * cond
    end do
  end subroutine column_physics

  subroutine smooth_row(nx, row, alpha)
    integer, intent(in) :: nx
    real(wp), intent(inout) :: row(nx)
    real(wp), intent(in) :: alpha
    real(wp) :: tmp(nx)
    integer :: i
    tmp = row
    do i = 2, nx - 1
      row(i) = tmp(i) + alpha * (tmp(i - 1) - 2.0_wp * tmp(i) + tmp(i + 1))
    end do
  end subroutine smooth_row

  subroutine grid_run(nx, nz, nt, dt, tau, alpha, t, q, cost)
    integer, intent(in) :: nx, nz, nt
    real(wp), intent(in) :: dt, tau, alpha
    real(wp), intent(inout) :: t(nz, nx), q(nz, nx)
    real(wp), intent(out) :: cost
    integer :: i, k, step
    do step = 1, nt
      do i = 1, nx
        call column_physics(nz, t(:, i), q(:, i), dt, tau)
      end do
      do k = 1, nz
        call smooth_row(nx, t(k, :), alpha)
      end do
    end do
    cost = sum((t - 270.0_wp)**2) / real(nx * nz, wp) + 1.0e3_wp * sum(q)
  end subroutine grid_run
end module grid_physics
