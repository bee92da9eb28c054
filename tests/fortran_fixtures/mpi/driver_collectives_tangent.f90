! Driver of the collectives fixture's tangent: J·ẋ against central
! differences of the whole parallel run, and the dot-product test
! <ȳ, J ẋ> = <Jᵀ ȳ, ẋ> against the adjoint, both sides summed over ranks
! (ȳ differs from rank to rank).
program driver_collectives_tangent
  use mpi
  use collectives, only: dp, ensemble_cost
  use collectives_fwd, only: ensemble_cost_fwd
  use collectives_ad, only: ensemble_cost_rev
  implicit none
  integer, parameter :: n = 3
  integer :: ierr, rank, nproc, nglob, i
  real(dp), allocatable :: x(:), dx(:), x_adj(:), xp(:)
  real(dp) :: w(n), dw(n), w_adj(n), wp(n), cost, cost_d, cp, cm, cost_adj, h, fd
  real(dp) :: local, forward, backward

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
  call ensemble_cost_fwd(x, dx, w, dw, cost, cost_d, n, nglob, MPI_COMM_WORLD)
  ! The cost is every rank's: each rank's tangent of it is J·ẋ.
  cost_adj = 0.5_dp + 0.25_dp * rank
  local = cost_adj * cost_d
  call MPI_Allreduce(local, forward, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  x_adj = 0.0_dp
  w_adj = 0.0_dp
  call ensemble_cost_rev(x, x_adj, w, w_adj, cost, cost_adj, n, nglob, MPI_COMM_WORLD)
  local = sum(x_adj * dx) + sum(w_adj * dw)
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
end program driver_collectives_tangent
