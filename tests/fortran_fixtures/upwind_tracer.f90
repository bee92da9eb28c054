! Conservative first-order upwind transport of a tracer on a periodic
! domain with face velocities of either sign: the face flux takes the
! upwind cell (IF on the sign of the velocity).  The tracer array has one
! halo cell on each side, q(0:n+1), refreshed every step; velocities live
! on faces w(0:n).  Outputs: the final tracer and its variance.
! adfort: routine=upwind_transport dep=q,variance indep=q,w
! adfort: init n=30 nt=25 q=1:2 w=-1:1 courant=0.2
! adfort: bench n=5000 nt=300
module transport_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine upwind_transport(n, nt, courant, w, q, variance)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: courant          ! dt/dx
    real(wp), intent(in) :: w(0:n)           ! velocity at face i+1/2
    real(wp), intent(inout) :: q(0:n + 1)
    real(wp), intent(out) :: variance
    real(wp) :: flux(0:n), qmean
    integer :: i, k
    do k = 1, nt
      q(0) = q(n)
      q(n + 1) = q(1)
      do i = 0, n
        if (w(i) >= 0.0_wp) then
          flux(i) = w(i)*q(i)
        else
          flux(i) = w(i)*q(i + 1)
        end if
      end do
      do i = 1, n
        q(i) = q(i) - courant*(flux(i) - flux(i - 1))
      end do
    end do
    qmean = sum(q(1:n))/n
    variance = sum((q(1:n) - qmean)**2)/n
  end subroutine upwind_transport
end module transport_mod
