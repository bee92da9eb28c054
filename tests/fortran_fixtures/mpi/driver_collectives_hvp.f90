! Driver of the collectives fixture's Hessian-vector product: H·v against
! central differences of the adjoint's gradients at x ± h v, and r_hvp's
! gradient against r_rev's, the largest errors over all ranks relative to
! the largest values.
program driver_collectives_hvp
  use mpi
  use collectives, only: dp
  use collectives_ad, only: ensemble_cost_rev
  use collectives_hvp, only: ensemble_cost_hvp
  implicit none
  integer, parameter :: n = 3
  integer :: ierr, rank, nproc, nglob, i
  real(dp), allocatable :: x(:), vx(:), gx(:), hx(:), gxp(:), gxm(:)
  real(dp) :: w(n), vw(n), gw(n), hw(n), gwp(n), gwm(n), cost, seed, cost_adj, h
  real(dp) :: local(4), error(4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  nglob = n * nproc
  allocate(x(nglob), vx(nglob), gx(nglob), hx(nglob), gxp(nglob), gxm(nglob))
  do i = 1, nglob
    x(i) = 0.3_dp + 0.5_dp * sin(1.7_dp * i)
    vx(i) = merge(cos(0.9_dp * i), 0.0_dp, rank == 0)
  end do
  do i = 1, n
    w(i) = 1.0_dp + 0.1_dp * i + 0.05_dp * rank
    vw(i) = sin(2.3_dp * i + rank)
  end do
  seed = merge(1.0_dp, 0.0_dp, rank == 0)

  h = 1.0e-5_dp
  call gradient(x + h * vx, w + h * vw, gxp, gwp)
  call gradient(x - h * vx, w - h * vw, gxm, gwm)
  gx = 0.0_dp
  hx = 0.0_dp
  gw = 0.0_dp
  hw = 0.0_dp
  cost_adj = seed
  call ensemble_cost_hvp(x, vx, gx, hx, w, vw, gw, hw, cost, cost_adj, n, nglob, MPI_COMM_WORLD)
  local(1) = max(maxval(abs(hx - (gxp - gxm) / (2 * h))), maxval(abs(hw - (gwp - gwm) / (2 * h))))
  local(2) = max(maxval(abs(hx)), maxval(abs(hw)))
  call gradient(x, w, gxp, gwp)
  local(3) = max(maxval(abs(gx - gxp)), maxval(abs(gw - gwp)))
  local(4) = max(maxval(abs(gxp)), maxval(abs(gwp)))
  call MPI_Allreduce(local, error, 4, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a, 2es26.17)') 'HVP ', error(2), error(1) / error(2)
    write (*, '(a, 2es26.17)') 'GRADIENT ', error(4), error(3) / error(4)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine gradient(xx, ww, gxx, gww)
    real(dp), intent(in) :: xx(:), ww(:)
    real(dp), intent(out) :: gxx(:), gww(:)
    real(dp) :: c
    gxx = 0.0_dp
    gww = 0.0_dp
    cost_adj = seed
    call ensemble_cost_rev(xx, gxx, ww, gww, c, cost_adj, n, nglob, MPI_COMM_WORLD)
  end subroutine gradient

end program driver_collectives_hvp
