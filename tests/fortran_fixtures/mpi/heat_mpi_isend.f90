! A 2-D diffusion-advection model decomposed in y over MPI ranks: each rank
! owns rows 1..ny of the global grid (nx by ny*nproc), halo rows 0 and
! ny+1 come from the neighbours by MPI_Irecv/MPI_Isend and MPI_Waitall; the diffusivity is read on
! rank 0 and broadcast; the cost is a global sum by MPI_Allreduce.
module heat_mpi
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains

  subroutine exchange_halos(u, nx, ny, comm)
    integer, intent(in) :: nx, ny, comm
    real(dp), intent(inout) :: u(nx, 0:ny+1)
    integer :: rank, nproc, north, south, ierr
    integer :: requests(4)
    integer :: statuses(MPI_STATUS_SIZE, 4)

    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, nproc, ierr)
    north = rank + 1
    if (north >= nproc) north = MPI_PROC_NULL
    south = rank - 1
    if (south < 0) south = MPI_PROC_NULL
    ! Post the receives of both halos, then send the edge rows.
    call MPI_Irecv(u(1, 0), nx, MPI_DOUBLE_PRECISION, south, 21, comm, requests(1), ierr)
    call MPI_Irecv(u(1, ny+1), nx, MPI_DOUBLE_PRECISION, north, 22, comm, requests(2), ierr)
    call MPI_Isend(u(1, ny), nx, MPI_DOUBLE_PRECISION, north, 21, comm, requests(3), ierr)
    call MPI_Isend(u(1, 1), nx, MPI_DOUBLE_PRECISION, south, 22, comm, requests(4), ierr)
    call MPI_Waitall(4, requests, statuses, ierr)
  end subroutine exchange_halos

  subroutine step(u, unew, kappa, vel, nx, ny, comm)
    integer, intent(in) :: nx, ny, comm
    real(dp), intent(inout) :: u(nx, 0:ny+1)
    real(dp), intent(out) :: unew(nx, 0:ny+1)
    real(dp), intent(in) :: kappa, vel
    integer :: i, j, im, ip

    call exchange_halos(u, nx, ny, comm)
    do j = 1, ny
      do i = 1, nx
        im = max(i - 1, 1)
        ip = min(i + 1, nx)
        unew(i, j) = u(i, j) + kappa * (u(ip, j) + u(im, j) + u(i, j+1) + u(i, j-1) &
                     - 4.0_dp * u(i, j)) - vel * (u(i, j) - u(i, j-1))
      end do
    end do
  end subroutine step

  subroutine model(u0, params, cost, nx, ny, nsteps, comm)
    integer, intent(in) :: nx, ny, nsteps, comm
    real(dp), intent(in) :: u0(nx, ny)
    real(dp), intent(inout) :: params(2)
    real(dp), intent(out) :: cost
    real(dp) :: u(nx, 0:ny+1), unew(nx, 0:ny+1), local
    integer :: n, j, ierr

    ! Rank 0 holds the parameters; the others get them from it.
    call MPI_Bcast(params, 2, MPI_DOUBLE_PRECISION, 0, comm, ierr)
    u = 0.0_dp
    u(:, 1:ny) = u0
    do n = 1, nsteps
      call step(u, unew, params(1), params(2), nx, ny, comm)
      do j = 1, ny
        u(:, j) = unew(:, j) - 0.1_dp * unew(:, j)**3
      end do
    end do
    local = sum(u(:, 1:ny)**2)
    call MPI_Allreduce(local, cost, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
  end subroutine model

end module heat_mpi
