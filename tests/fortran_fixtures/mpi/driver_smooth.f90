! Driver of the F77 smoothing fixture's adjoint (external routines).
program driver_smooth
  use mpi
  implicit none
  integer, parameter :: n = 5, niter = 4
  integer :: ierr, rank, i
  double precision :: f(n), df(n), f_adj(n), w(n), e, ep, em, e_adj, h, local, ad, fd
  external smooth, smooth_rev

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do i = 1, n
    f(i) = 0.4d0 + 0.3d0 * sin(1.3d0 * (rank * n + i))
    df(i) = cos(0.7d0 * (rank * n + i))
  end do
  h = 1.0d-6
  w = f + h * df
  call smooth(n, niter, w, ep, MPI_COMM_WORLD)
  w = f - h * df
  call smooth(n, niter, w, em, MPI_COMM_WORLD)
  fd = (ep - em) / (2 * h)
  f_adj = 0.0d0
  e_adj = merge(1.0d0, 0.0d0, rank == 0)
  w = f
  call smooth_rev(n, niter, w, f_adj, e, e_adj, MPI_COMM_WORLD)
  local = sum(f_adj * df)
  call MPI_Allreduce(local, ad, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a, 3es26.17)') 'DOT ', fd, ad, abs(fd - ad) / abs(fd)
  call MPI_Finalize(ierr)
end program driver_smooth
