! A module-based sediment transport step calling a legacy routine that lives
! outside any module, in another file: the external routine's generated
! motions are external subroutines the module's motions call through their
! implicit interface.
module sediment
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine transport_step(n, dt, u, h, flux_total)
    integer, intent(in) :: n
    real(dp), intent(in) :: dt
    real(dp), intent(in) :: u(n)
    real(dp), intent(inout) :: h(n)
    real(dp), intent(out) :: flux_total
    real(dp) :: q
    integer :: i
    flux_total = 0.0_dp
    do i = 2, n - 1
      call bedload(u(i), h(i), q)
      h(i) = h(i) - dt*q
      flux_total = flux_total + q
    end do
  end subroutine transport_step
end module sediment
