! Implicit vertical mixing of a column with work arrays allocated to the
! column size, the allocation checked through stat= and errmsg= as careful
! model code does (stop with the message on failure), the status reused
! for the deallocation.
! adfort: routine=column_mixing dep=t,heat indep=t,kmix
! adfort: init nz=25 dt=600 dz=15 t=280:290 kmix=0.5:5
module column_mixing_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine column_mixing(nz, dt, dz, kmix, t, heat)
    integer, intent(in) :: nz
    real(wp), intent(in) :: dt, dz, kmix(nz - 1)
    real(wp), intent(inout) :: t(nz)
    real(wp), intent(out) :: heat
    real(wp), allocatable :: a(:), b(:), c(:), cp(:), dp(:)
    real(wp) :: r, denom
    integer :: k, ierr
    character(len=120) :: msg
    allocate(a(nz), b(nz), c(nz), stat=ierr, errmsg=msg)
    if (ierr /= 0) then
      write(*, '(a)') trim(msg)
      stop 'column_mixing: cannot allocate the coefficients'
    end if
    allocate(cp(nz), dp(nz), stat=ierr)
    if (ierr /= 0) stop 'column_mixing: cannot allocate the work arrays'
    r = dt/dz**2
    a(1) = 0.0_wp
    c(nz) = 0.0_wp
    do k = 2, nz
      a(k) = -r*kmix(k - 1)
    end do
    do k = 1, nz - 1
      c(k) = -r*kmix(k)
    end do
    b = 1.0_wp - a - c
    cp(1) = c(1)/b(1)
    dp(1) = t(1)/b(1)
    do k = 2, nz
      denom = b(k) - a(k)*cp(k - 1)
      cp(k) = c(k)/denom
      dp(k) = (t(k) - a(k)*dp(k - 1))/denom
    end do
    t(nz) = dp(nz)
    do k = nz - 1, 1, -1
      t(k) = dp(k) - cp(k)*t(k + 1)
    end do
    heat = dz*sum(t**2)
    deallocate(a, b, c, stat=ierr)
    deallocate(cp, dp, stat=ierr)
  end subroutine column_mixing
end module column_mixing_mod
