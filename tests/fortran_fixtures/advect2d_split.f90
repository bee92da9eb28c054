! 2-D flux-form advection by dimensional splitting: each step sweeps the
! rows (x) and then the columns (y) with a 1-D van Leer limited upwind
! scheme; the sweep routine gets a row q(:, j) (contiguous) or a column
! q(i, :) (strided) and calls the limiter function.  Periodic in both.
! adfort: routine=advect2d dep=cost indep=q0,cx
! adfort: init nx=6 ny=5 nt=3 cx=0.2:0.4 cy=0.1:0.3 q0=0:1
! adfort: bench nx=200 ny=200 nt=20
module advect2d_split
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  real(wp) function vanleer(r)
    real(wp), intent(in) :: r
    vanleer = (r + abs(r))/(1.0_wp + abs(r))
  end function vanleer

  subroutine sweep(n, c, q)
    integer, intent(in) :: n
    real(wp), intent(in) :: c
    real(wp), intent(inout) :: q(n)
    real(wp) :: f(0:n), dq, r
    integer :: i, im, ip
    do i = 1, n
      im = i - 1
      if (im < 1) im = n
      ip = i + 1
      if (ip > n) ip = 1
      dq = q(ip) - q(i)
      if (abs(dq) > 1.0e-10_wp) then
        r = (q(i) - q(im))/dq
      else
        r = 0.0_wp
      end if
      f(i) = c*(q(i) + 0.5_wp*(1.0_wp - c)*vanleer(r)*dq)
    end do
    f(0) = f(n)
    do i = 1, n
      q(i) = q(i) - (f(i) - f(i-1))
    end do
  end subroutine sweep

  subroutine advect2d(nx, ny, nt, cx, cy, q0, cost)
    integer, intent(in) :: nx, ny, nt
    real(wp), intent(in) :: cx, cy
    real(wp), intent(in) :: q0(nx, ny)
    real(wp), intent(out) :: cost
    real(wp) :: q(nx, ny)
    integer :: i, j, it
    q = q0
    do it = 1, nt
      do j = 1, ny
        call sweep(nx, cx, q(:, j))
      end do
      do i = 1, nx
        call sweep(ny, cy, q(i, :))
      end do
    end do
    cost = sum(q**2)
  end subroutine advect2d
end module advect2d_split
