! Driver of the decomposed heat model's tangent: J·ẋ against central
! differences of the whole parallel run, and the dot-product test
! <ȳ, J ẋ> = <Jᵀ ȳ, ẋ> against the adjoint, both sides summed over ranks.
program driver_heat_tangent
  use mpi
  use heat_mpi, only: dp, model
  use heat_mpi_fwd, only: model_fwd
  use heat_mpi_ad, only: model_rev
  implicit none
  integer, parameter :: nx = 6, nyg = 8, nsteps = 3
  integer :: ierr, rank, nproc, ny, i, j, jg
  real(dp), allocatable :: u0(:, :), du0(:, :), u0_adj(:, :), w(:, :)
  real(dp) :: params(2), dparams(2), params_adj(2), p(2), dp_(2), cost, cost_d, cp, cm
  real(dp) :: cost_adj, h, fd, local, forward, backward

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  ny = nyg / nproc
  allocate(u0(nx, ny), du0(nx, ny), u0_adj(nx, ny), w(nx, ny))
  do j = 1, ny
    jg = rank * ny + j
    do i = 1, nx
      u0(i, j) = 0.5_dp + 0.3_dp * sin(0.7_dp * i + 1.3_dp * jg)
      du0(i, j) = cos(1.1_dp * i - 0.4_dp * jg)
    end do
  end do
  ! Only rank 0's parameters count: the model broadcasts them.  The other
  ! ranks' directions are not zero: their tangents are overwritten too.
  params = merge([0.12_dp, 0.25_dp], [-1.0_dp, -1.0_dp], rank == 0)
  dparams = merge([0.7_dp, -0.4_dp], [5.0_dp, 3.0_dp], rank == 0)

  h = 1.0e-6_dp
  w = u0 + h * du0
  p = params + h * dparams
  call model(w, p, cp, nx, ny, nsteps, MPI_COMM_WORLD)
  w = u0 - h * du0
  p = params - h * dparams
  call model(w, p, cm, nx, ny, nsteps, MPI_COMM_WORLD)
  fd = (cp - cm) / (2 * h)

  p = params
  dp_ = dparams
  call model_fwd(u0, du0, p, dp_, cost, cost_d, nx, ny, nsteps, MPI_COMM_WORLD)
  cost_adj = 1.0_dp - 0.2_dp * rank
  local = cost_adj * cost_d
  call MPI_Allreduce(local, forward, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  u0_adj = 0.0_dp
  params_adj = 0.0_dp
  p = params
  call model_rev(u0, u0_adj, p, params_adj, cost, cost_adj, nx, ny, nsteps, MPI_COMM_WORLD)
  ! The parameters are broadcast: the direction of rank 0's alone counts.
  local = sum(u0_adj * du0) + merge(sum(params_adj * dparams), 0.0_dp, rank == 0)
  call MPI_Allreduce(local, backward, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  local = abs(cost_d - fd) / abs(fd)
  call MPI_Allreduce(MPI_IN_PLACE, local, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, &
                     ierr)
  if (rank == 0) then
    write (*, '(a, 3es26.17)') 'TANGENT ', fd, cost_d, local
    write (*, '(a, 3es26.17)') 'DOT ', forward, backward, &
      abs(forward - backward) / abs(backward)
  end if
  call MPI_Finalize(ierr)
end program driver_heat_tangent
