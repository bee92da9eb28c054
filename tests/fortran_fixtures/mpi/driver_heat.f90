! Driver of the decomposed heat model's adjoint: gradient of the global
! cost against central finite differences of the whole parallel run (dot
! product summed over ranks), and the gradient field gathered on rank 0
! for comparison with the serial model's adjoint.
program driver_heat
  use mpi
  use heat_mpi, only: dp, model
  use heat_mpi_ad, only: model_rev
  implicit none
  integer, parameter :: nx = 6, nyg = 8, nsteps = 3
  integer :: ierr, rank, nproc, ny, i, j, jg
  real(dp), allocatable :: u0(:, :), du0(:, :), u0_adj(:, :), w(:, :), grad(:, :)
  real(dp) :: params(2), dparams(2), params_adj(2), p(2), cost, cp, cm, cost_adj
  real(dp) :: h, fd, ad, local, stray

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  ny = nyg / nproc
  allocate(u0(nx, ny), du0(nx, ny), u0_adj(nx, ny), w(nx, ny), grad(nx, nyg))
  do j = 1, ny
    jg = rank * ny + j
    do i = 1, nx
      u0(i, j) = 0.5_dp + 0.3_dp * sin(0.7_dp * i + 1.3_dp * jg)
      du0(i, j) = cos(1.1_dp * i - 0.4_dp * jg)
    end do
  end do
  ! Only rank 0's parameters count: the model broadcasts them.
  if (rank == 0) then
    params = [0.12_dp, 0.25_dp]
    dparams = [0.7_dp, -0.4_dp]
  else
    params = -1.0_dp
    dparams = 0.0_dp
  end if

  h = 1.0e-6_dp
  w = u0 + h * du0
  p = params + h * dparams
  call model(w, p, cp, nx, ny, nsteps, MPI_COMM_WORLD)
  w = u0 - h * du0
  p = params - h * dparams
  call model(w, p, cm, nx, ny, nsteps, MPI_COMM_WORLD)
  fd = (cp - cm) / (2 * h)

  u0_adj = 0.0_dp
  params_adj = 0.0_dp
  ! The cost is the same on every rank: its adjoint is seeded once.
  cost_adj = merge(1.0_dp, 0.0_dp, rank == 0)
  p = params
  call model_rev(u0, u0_adj, p, params_adj, cost, cost_adj, nx, ny, nsteps, MPI_COMM_WORLD)
  local = sum(u0_adj * du0) + sum(params_adj * dparams)
  call MPI_Allreduce(local, ad, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  local = merge(0.0_dp, maxval(abs(params_adj)), rank == 0)
  call MPI_Reduce(local, stray, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  call MPI_Gather(u0_adj, nx * ny, MPI_DOUBLE_PRECISION, grad, nx * ny, &
                  MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a, 3es26.17)') 'DOT ', fd, ad, abs(fd - ad) / abs(fd)
    write (*, '(a, es26.17)') 'STRAY ', stray
    write (*, '(a, 3es26.17)') 'COST ', cost
    write (*, '(a, 2es26.17)') 'PARAMS ', params_adj
    write (*, '(a, 6es26.17)') ('GRAD ', grad(:, j), j = 1, nyg)
  end if
  call MPI_Finalize(ierr)
end program driver_heat
