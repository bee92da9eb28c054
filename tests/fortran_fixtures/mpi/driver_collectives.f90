! Driver of the collectives fixture's adjoint: dot-product test against
! central differences of the whole parallel run, summed over ranks.
program driver_collectives
  use mpi
  use collectives, only: dp, ensemble_cost
  use collectives_ad, only: ensemble_cost_rev
  implicit none
  integer, parameter :: n = 3
  integer :: ierr, rank, nproc, nglob, i
  real(dp), allocatable :: x(:), dx(:), x_adj(:), xp(:)
  real(dp) :: w(n), dw(n), w_adj(n), wp(n), cost, cp, cm, cost_adj, h, fd, ad, local, stray

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  nglob = n * nproc
  allocate(x(nglob), dx(nglob), x_adj(nglob), xp(nglob))
  do i = 1, nglob
    x(i) = 0.3_dp + 0.5_dp * sin(1.7_dp * i)
    dx(i) = merge(cos(0.9_dp * i), 0.0_dp, rank == 0)
  end do
  do i = 1, n
    w(i) = 1.0_dp + 0.1_dp * i + 0.05_dp * rank
    dw(i) = sin(2.3_dp * i + rank)
  end do
  h = 1.0e-6_dp
  xp = x + h * dx
  wp = w + h * dw
  call ensemble_cost(xp, wp, cp, n, nglob, MPI_COMM_WORLD)
  xp = x - h * dx
  wp = w - h * dw
  call ensemble_cost(xp, wp, cm, n, nglob, MPI_COMM_WORLD)
  fd = (cp - cm) / (2 * h)
  x_adj = 0.0_dp
  w_adj = 0.0_dp
  cost_adj = merge(1.0_dp, 0.0_dp, rank == 0)
  call ensemble_cost_rev(x, x_adj, w, w_adj, cost, cost_adj, n, nglob, MPI_COMM_WORLD)
  local = sum(x_adj * dx) + sum(w_adj * dw)
  call MPI_Allreduce(local, ad, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  local = merge(0.0_dp, maxval(abs(x_adj)), rank == 0)
  call MPI_Reduce(local, stray, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a, 3es26.17)') 'DOT ', fd, ad, abs(fd - ad) / abs(fd)
    write (*, '(a, es26.17)') 'STRAY ', stray
  end if
  call MPI_Finalize(ierr)
end program driver_collectives
