! Shapiro-type smoothing filter of a periodic signal written for
! assumed-shape arrays in a module procedure: x(:) in, y(:) out, a local
! work array sized with SIZE, neighbours via CSHIFT, npass passes, and a
! normalisation that keeps the signal's maximum (MAXVAL) and mean.
! adfort: routine=shapiro_smooth dep=y indep=x,strength
! adfort: init npts=32 npass=4 x=0.5:2 strength=0.3:0.6
! adfort: shape x=npts y=npts
! adfort: bench npts=100000 npass=20
module filters_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine shapiro_smooth(x, strength, npass, y)
    real(wp), intent(in) :: x(:)
    real(wp), intent(in) :: strength
    integer, intent(in) :: npass
    real(wp), intent(out) :: y(:)
    real(wp) :: work(size(x)), xmax, xmean
    integer :: pass, i
    xmax = maxval(x)
    xmean = sum(x)/size(x)
    y = x
    do pass = 1, npass
      work = y + 0.25_wp*strength*(cshift(y, 1) - 2.0_wp*y + cshift(y, -1))
      do i = lbound(y, 1), ubound(y, 1)
        y(i) = work(i)
      end do
    end do
    ! restore the mean, then scale the anomaly so the maximum is kept
    y = y - sum(y)/size(y) + xmean
    y = xmean + (y - xmean)*(xmax - xmean)/(maxval(y) - xmean)
  end subroutine shapiro_smooth
end module filters_mod
