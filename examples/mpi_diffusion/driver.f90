! Gradient of the misfit with respect to the initial tracer field and the
! parameters, on any number of ranks, checked against central finite
! differences of the whole parallel run.
program driver
  use mpi
  use diffusion, only: wp, misfit
  use diffusion_ad, only: misfit_rev
  implicit none
  integer, parameter :: nx = 32, nyg = 32, nsteps = 20
  integer :: ierr, rank, nproc, ny, i, j, jg
  real(wp), allocatable :: c0(:, :), obs(:, :), dc0(:, :), c0_adj(:, :), c(:, :)
  real(wp) :: params(3), dparams(3), params_adj(3), p(3)
  real(wp) :: cost, cost_adj, cp, cm, h, local, dot, fd

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  if (mod(nyg, nproc) /= 0) then
    if (rank == 0) print *, 'the number of ranks must divide', nyg
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  ny = nyg / nproc
  allocate(c0(nx, ny), obs(nx, ny), dc0(nx, ny), c0_adj(nx, ny), c(nx, ny))
  do j = 1, ny
    jg = rank * ny + j
    do i = 1, nx
      c0(i, j) = exp(-((i - 10.0_wp)**2 + (jg - 12.0_wp)**2) / 20)
      obs(i, j) = exp(-((i - 14.0_wp)**2 + (jg - 15.0_wp)**2) / 25)
      dc0(i, j) = sin(0.3_wp * i) * cos(0.2_wp * jg)
    end do
  end do
  params = [0.1_wp, 0.3_wp, 0.2_wp]
  dparams = [1.0_wp, -0.5_wp, 0.5_wp]

  ! The adjoint: the cost is the same on every rank, its adjoint is seeded
  ! once (on rank 0).
  c0_adj = 0
  params_adj = 0
  cost_adj = merge(1.0_wp, 0.0_wp, rank == 0)
  p = params
  call misfit_rev(c0, c0_adj, p, params_adj, obs, cost, cost_adj, nx, ny, nsteps, &
                  MPI_COMM_WORLD)
  ! params_adj is the gradient on rank 0 (zero on the others).
  local = sum(c0_adj * dc0) + sum(params_adj * dparams)
  call MPI_Allreduce(local, dot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)

  h = 1.0e-6_wp
  c = c0 + h * dc0
  p = params + h * dparams
  call misfit(c, p, obs, cp, nx, ny, nsteps, MPI_COMM_WORLD)
  c = c0 - h * dc0
  p = params - h * dparams
  call misfit(c, p, obs, cm, nx, ny, nsteps, MPI_COMM_WORLD)
  fd = (cp - cm) / (2 * h)
  if (rank == 0) then
    print '(a, i0, a)', 'misfit on ', nproc, ' ranks'
    print '(a, es22.14)', '  cost                 ', cost
    print '(a, 3es22.14)', '  d cost / d params    ', params_adj
    print '(a, es22.14)', '  adjoint . direction  ', dot
    print '(a, es22.14)', '  finite differences   ', fd
    print '(a, es10.2)', '  relative difference  ', abs(dot - fd) / abs(fd)
  end if
  call MPI_Finalize(ierr)
end program driver
