! A tracer advected and diffused on a periodic-in-x, walled-in-y 2-D grid,
! decomposed in y over MPI ranks: rank r owns rows r*ny+1 .. (r+1)*ny of
! the global grid, rows 0 and ny+1 are halos filled by the neighbours
! (MPI_Irecv/MPI_Isend/MPI_Waitall), or left at the wall value by
! MPI_PROC_NULL at the outer edges.  The physical parameters are known on
! rank 0 and broadcast; the cost, a misfit to observations summed over the
! whole grid, is a global sum (MPI_Allreduce).
module diffusion
  use mpi
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains

  subroutine exchange_halos(c, nx, ny, comm)
    integer, intent(in) :: nx, ny, comm
    real(wp), intent(inout) :: c(nx, 0:ny+1)
    integer :: rank, nproc, north, south, ierr
    integer :: requests(4)

    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, nproc, ierr)
    north = rank + 1
    if (north == nproc) north = MPI_PROC_NULL
    south = rank - 1
    if (south < 0) south = MPI_PROC_NULL
    call MPI_Irecv(c(:, 0), nx, MPI_DOUBLE_PRECISION, south, 1, comm, requests(1), ierr)
    call MPI_Irecv(c(:, ny+1), nx, MPI_DOUBLE_PRECISION, north, 2, comm, requests(2), ierr)
    call MPI_Isend(c(:, ny), nx, MPI_DOUBLE_PRECISION, north, 1, comm, requests(3), ierr)
    call MPI_Isend(c(:, 1), nx, MPI_DOUBLE_PRECISION, south, 2, comm, requests(4), ierr)
    call MPI_Waitall(4, requests, MPI_STATUSES_IGNORE, ierr)
  end subroutine exchange_halos

  subroutine advance(c, cnew, kappa, u, v, nx, ny, comm)
    integer, intent(in) :: nx, ny, comm
    real(wp), intent(inout) :: c(nx, 0:ny+1)
    real(wp), intent(out) :: cnew(nx, ny)
    real(wp), intent(in) :: kappa, u, v
    integer :: i, j, ie, iw

    call exchange_halos(c, nx, ny, comm)
    do j = 1, ny
      do i = 1, nx
        ie = mod(i, nx) + 1
        iw = mod(i - 2 + nx, nx) + 1
        ! Upwind advection (u, v > 0) and five-point diffusion.
        cnew(i, j) = c(i, j) - u * (c(i, j) - c(iw, j)) - v * (c(i, j) - c(i, j-1)) &
                     + kappa * (c(ie, j) + c(iw, j) + c(i, j+1) + c(i, j-1) - 4 * c(i, j))
      end do
    end do
  end subroutine advance

  subroutine misfit(c0, params, obs, cost, nx, ny, nsteps, comm)
    integer, intent(in) :: nx, ny, nsteps, comm
    real(wp), intent(in) :: c0(nx, ny), obs(nx, ny)
    real(wp), intent(inout) :: params(3)       ! kappa, u, v: rank 0's count
    real(wp), intent(out) :: cost
    real(wp) :: c(nx, 0:ny+1), cnew(nx, ny), local
    integer :: n, ierr

    call MPI_Bcast(params, 3, MPI_DOUBLE_PRECISION, 0, comm, ierr)
    c = 0
    c(:, 1:ny) = c0
    do n = 1, nsteps
      call advance(c, cnew, params(1), params(2), params(3), nx, ny, comm)
      c(:, 1:ny) = cnew
    end do
    local = 0.5_wp * sum((c(:, 1:ny) - obs)**2)
    call MPI_Allreduce(local, cost, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
  end subroutine misfit

end module diffusion
