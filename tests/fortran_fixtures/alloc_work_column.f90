! A column routine with allocatable work arrays allocated and freed on each
! call (as physics packages do), called for every column at every step.
! adfort: routine=columns_run dep=cost indep=th0
! adfort: init ncol=3 nlev=7 nt=2 th0=280:300
! adfort: bench ncol=200 nlev=60 nt=20
module alloc_work_column
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine adjust_column(nlev, th)
    integer, intent(in) :: nlev
    real(wp), intent(inout) :: th(nlev)
    real(wp), allocatable :: dth(:), w(:)
    integer :: k
    allocate(dth(nlev), w(nlev))
    do k = 1, nlev
      w(k) = exp(-0.1_wp*real(k, wp))
    end do
    dth(1) = 0.0_wp
    do k = 2, nlev
      dth(k) = max(th(k-1) - th(k), 0.0_wp)*w(k)
    end do
    do k = 2, nlev
      th(k) = th(k) + 0.5_wp*dth(k)
      th(k-1) = th(k-1) - 0.5_wp*dth(k)
    end do
    deallocate(dth, w)
  end subroutine adjust_column

  subroutine columns_run(ncol, nlev, nt, th0, cost)
    integer, intent(in) :: ncol, nlev, nt
    real(wp), intent(in) :: th0(nlev, ncol)
    real(wp), intent(out) :: cost
    real(wp) :: th(nlev, ncol)
    integer :: j, it
    th = th0
    do it = 1, nt
      do j = 1, ncol
        call adjust_column(nlev, th(:, j))
      end do
      th = th + 0.1_wp*sin(th*0.01_wp)
    end do
    cost = sum(th**2)
  end subroutine columns_run
end module alloc_work_column
