! Dry convective adjustment of model columns: while the column is unstable
! (and at most nmax sweeps), neighbouring unstable levels are mixed; a
! DO WHILE with a data-dependent trip count, per column.
! adfort: routine=adjust_columns dep=th indep=th
! adfort: init ncol=3 nlev=8 th=280:300
! adfort: bench ncol=500 nlev=40
module convect_while
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine adjust_columns(ncol, nlev, th)
    integer, intent(in) :: ncol, nlev
    real(wp), intent(inout) :: th(nlev, ncol)
    real(wp) :: avg
    logical :: unstable
    integer :: j, k, sweep
    do j = 1, ncol
      unstable = .true.
      sweep = 0
      do while (unstable .and. sweep < 20)
        unstable = .false.
        sweep = sweep + 1
        do k = 1, nlev - 1
          if (th(k, j) < th(k + 1, j) - 1.0e-3_wp) then
            avg = 0.5_wp*(th(k, j) + th(k + 1, j))
            th(k, j) = avg + 1.0e-4_wp
            th(k + 1, j) = avg - 1.0e-4_wp
            unstable = .true.
          end if
        end do
      end do
    end do
  end subroutine adjust_columns
end module convect_while
