! Driver of the decomposed heat model's Hessian-vector product: H·v
! against central differences of the adjoint's gradients at x ± h v, and
! r_hvp's gradient against r_rev's, every rank's, the largest errors
! relative to the largest values over all ranks.
program driver_heat_hvp
  use mpi
  use heat_mpi, only: dp
  use heat_mpi_ad, only: model_rev
  use heat_mpi_hvp, only: model_hvp
  implicit none
  integer, parameter :: nx = 6, nyg = 8, nsteps = 3
  integer :: ierr, rank, nproc, ny, i, j, jg
  real(dp), allocatable :: u0(:, :), v(:, :), g(:, :), hv(:, :), gp(:, :), gm(:, :), w(:, :)
  real(dp) :: params(2), vp(2), pg(2), phv(2), pgp(2), pgm(2), p(2), cost, seed, cost_adj, h
  real(dp) :: local(4), error(4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  ny = nyg / nproc
  allocate(u0(nx, ny), v(nx, ny), g(nx, ny), hv(nx, ny), gp(nx, ny), gm(nx, ny), w(nx, ny))
  do j = 1, ny
    jg = rank * ny + j
    do i = 1, nx
      u0(i, j) = 0.5_dp + 0.3_dp * sin(0.7_dp * i + 1.3_dp * jg)
      v(i, j) = cos(1.1_dp * i - 0.4_dp * jg)
    end do
  end do
  params = merge([0.12_dp, 0.25_dp], [-1.0_dp, -1.0_dp], rank == 0)
  vp = merge([0.7_dp, -0.4_dp], [5.0_dp, 3.0_dp], rank == 0)
  ! The cost is every rank's: its adjoint is seeded once (each call of
  ! the adjoint consumes its seed).
  seed = merge(1.0_dp, 0.0_dp, rank == 0)

  h = 1.0e-5_dp
  call gradient(u0 + h * v, params + h * vp, gp, pgp)
  call gradient(u0 - h * v, params - h * vp, gm, pgm)
  g = 0.0_dp
  hv = 0.0_dp
  pg = 0.0_dp
  phv = 0.0_dp
  p = params
  cost_adj = seed
  call model_hvp(u0, v, g, hv, p, vp, pg, phv, cost, cost_adj, nx, ny, nsteps, MPI_COMM_WORLD)
  local(1) = max(maxval(abs(hv - (gp - gm) / (2 * h))), maxval(abs(phv - (pgp - pgm) / (2 * h))))
  local(2) = max(maxval(abs(hv)), maxval(abs(phv)))
  call gradient(u0, params, gp, pgp)
  local(3) = max(maxval(abs(g - gp)), maxval(abs(pg - pgp)))
  local(4) = max(maxval(abs(gp)), maxval(abs(pgp)))
  call MPI_Allreduce(local, error, 4, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a, 2es26.17)') 'HVP ', error(2), error(1) / error(2)
    write (*, '(a, 2es26.17)') 'GRADIENT ', error(4), error(3) / error(4)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine gradient(x, q, gx, gq)
    real(dp), intent(in) :: x(:, :), q(2)
    real(dp), intent(out) :: gx(:, :), gq(2)
    real(dp) :: c, qq(2)
    gx = 0.0_dp
    gq = 0.0_dp
    qq = q
    cost_adj = seed
    call model_rev(x, gx, qq, gq, c, cost_adj, nx, ny, nsteps, MPI_COMM_WORLD)
  end subroutine gradient

end program driver_heat_hvp
