! Backward-Euler vertical diffusion of a tracer in a column, solved with
! the Thomas algorithm in ALLOCATABLE work arrays allocated to the column
! size on entry and deallocated on exit (a common pattern in model
! physics).  Several implicit steps; output: the final profile and its
! column integral.
! adfort: routine=implicit_diffusion dep=c,column indep=c,kdiff
! adfort: init nz=30 nt=5 dt=300 dz=20 c=1:2 kdiff=1:10
! adfort: bench nz=20000 nt=50
module implicit_diff_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine implicit_diffusion(nz, nt, dt, dz, kdiff, c, column)
    integer, intent(in) :: nz, nt
    real(wp), intent(in) :: dt, dz, kdiff(nz - 1)
    real(wp), intent(inout) :: c(nz)
    real(wp), intent(out) :: column
    real(wp), allocatable :: lower(:), diag(:), upper(:), cp(:), dp(:)
    real(wp) :: r, denom
    integer :: k, step
    allocate(lower(nz), diag(nz), upper(nz), cp(nz), dp(nz))
    r = dt/dz**2
    lower(1) = 0.0_wp
    upper(nz) = 0.0_wp
    do k = 2, nz
      lower(k) = -r*kdiff(k - 1)
    end do
    do k = 1, nz - 1
      upper(k) = -r*kdiff(k)
    end do
    diag = 1.0_wp - lower - upper
    do step = 1, nt
      cp(1) = upper(1)/diag(1)
      dp(1) = c(1)/diag(1)
      do k = 2, nz
        denom = diag(k) - lower(k)*cp(k - 1)
        cp(k) = upper(k)/denom
        dp(k) = (c(k) - lower(k)*dp(k - 1))/denom
      end do
      c(nz) = dp(nz)
      do k = nz - 1, 1, -1
        c(k) = dp(k) - cp(k)*c(k + 1)
      end do
    end do
    column = dz*sum(c)
    deallocate(lower, diag, upper, cp, dp)
  end subroutine implicit_diffusion
end module implicit_diff_mod
