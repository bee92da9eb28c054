! The model of heat_mpi_sendrecv.f90 on one process: the whole grid, rows
! 0 and ny+1 the fixed (zero) boundary the decomposed model's outer halos
! keep.
module heat_serial
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains

  subroutine step(u, unew, kappa, vel, nx, ny)
    integer, intent(in) :: nx, ny
    real(dp), intent(inout) :: u(nx, 0:ny+1)
    real(dp), intent(out) :: unew(nx, 0:ny+1)
    real(dp), intent(in) :: kappa, vel
    integer :: i, j, im, ip

    do j = 1, ny
      do i = 1, nx
        im = max(i - 1, 1)
        ip = min(i + 1, nx)
        unew(i, j) = u(i, j) + kappa * (u(ip, j) + u(im, j) + u(i, j+1) + u(i, j-1) &
                     - 4.0_dp * u(i, j)) - vel * (u(i, j) - u(i, j-1))
      end do
    end do
  end subroutine step

  subroutine model(u0, params, cost, nx, ny, nsteps)
    integer, intent(in) :: nx, ny, nsteps
    real(dp), intent(in) :: u0(nx, ny)
    real(dp), intent(inout) :: params(2)
    real(dp), intent(out) :: cost
    real(dp) :: u(nx, 0:ny+1), unew(nx, 0:ny+1)
    integer :: n, j

    u = 0.0_dp
    u(:, 1:ny) = u0
    do n = 1, nsteps
      call step(u, unew, params(1), params(2), nx, ny)
      do j = 1, ny
        u(:, j) = unew(:, j) - 0.1_dp * unew(:, j)**3
      end do
    end do
    cost = sum(u(:, 1:ny)**2)
  end subroutine model

end module heat_serial
