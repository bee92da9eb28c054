! Collective and point-to-point communication of a small ensemble
! statistic: rank 0 scatters a vector, every rank transforms its block,
! the ranks exchange the extremes (MPI_MAX to all, MPI_MIN to the root),
! gather all blocks, pass values round a ring (MPI_Send and MPI_Recv,
! MPI_Sendrecv_replace, MPI_Isend/MPI_Irecv with a MPI_Wait each), sum in
! place (to all, and to the root), and rank 0 gathers a cost it broadcasts.
module collectives
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains

  subroutine ensemble_cost(x, w, cost, n, nglob, comm)
    integer, intent(in) :: n, nglob, comm
    real(dp), intent(in) :: x(nglob)     ! significant on rank 0
    real(dp), intent(in) :: w(n)         ! each rank's weights
    real(dp), intent(out) :: cost
    real(dp) :: xl(n), yl(n), peak(n), low(n), energy(n), every(nglob), gathered(nglob)
    real(dp) :: pooled(n), unused(n)
    real(dp) :: got, shifted, back, s, total
    integer :: rank, nproc, right, left, ierr, i, request, request2
    integer :: status(MPI_STATUS_SIZE)

    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, nproc, ierr)
    call MPI_Scatter(x, n, MPI_DOUBLE_PRECISION, xl, n, MPI_DOUBLE_PRECISION, 0, comm, ierr)
    do i = 1, n
      yl(i) = w(i) * xl(i) + sin(xl(i) * (rank + 1))
    end do
    call MPI_Allreduce(yl, peak, n, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
    call MPI_Reduce(yl, low, n, MPI_DOUBLE_PRECISION, MPI_MIN, 0, comm, ierr)
    call MPI_Allgather(yl, n, MPI_DOUBLE_PRECISION, every, n, MPI_DOUBLE_PRECISION, comm, ierr)
    ! The first value goes round the ring; even ranks send first.
    right = mod(rank + 1, nproc)
    left = mod(rank - 1 + nproc, nproc)
    if (mod(rank, 2) == 0) then
      call MPI_Send(yl(1), 1, MPI_DOUBLE_PRECISION, right, 5, comm, ierr)
      call MPI_Recv(got, 1, MPI_DOUBLE_PRECISION, left, 5, comm, status, ierr)
    else
      call MPI_Recv(got, 1, MPI_DOUBLE_PRECISION, left, 5, comm, status, ierr)
      call MPI_Send(yl(1), 1, MPI_DOUBLE_PRECISION, right, 5, comm, ierr)
    end if
    ! The last value one rank to the right, in place; another one to the
    ! left, non-blocking with a wait for each request.
    shifted = yl(n)
    call MPI_Sendrecv_replace(shifted, 1, MPI_DOUBLE_PRECISION, right, 6, left, 6, comm, &
                              status, ierr)
    call MPI_Irecv(back, 1, MPI_DOUBLE_PRECISION, right, 8, comm, request, ierr)
    call MPI_Isend(yl(n), 1, MPI_DOUBLE_PRECISION, left, 8, comm, request2, ierr)
    call MPI_Wait(request2, MPI_STATUS_IGNORE, ierr)
    call MPI_Wait(request, status, ierr)
    do i = 1, n
      energy(i) = yl(i)**2 + shifted * back
      yl(i) = yl(i) * peak(i) + every(mod(i + rank * n, nglob) + 1) + got
    end do
    call MPI_Allreduce(MPI_IN_PLACE, energy, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    call MPI_Gather(yl, n, MPI_DOUBLE_PRECISION, gathered, n, MPI_DOUBLE_PRECISION, 0, &
                    comm, ierr)
    ! A sum to the root, in place there.
    pooled = xl * yl
    if (rank == 0) then
      call MPI_Reduce(MPI_IN_PLACE, pooled, n, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, ierr)
    else
      call MPI_Reduce(pooled, unused, n, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, ierr)
    end if
    s = sum(energy * yl)
    if (rank == 0) then
      s = s + sum(gathered**2) + sum(low * peak) + sum(pooled**3)
    end if
    call MPI_Reduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, ierr)
    if (rank == 0) cost = total
    call MPI_Bcast(cost, 1, MPI_DOUBLE_PRECISION, 0, comm, ierr)
  end subroutine ensemble_cost

end module collectives
