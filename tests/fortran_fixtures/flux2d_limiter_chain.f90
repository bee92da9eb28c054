! 2-D finite-volume advection: for every face a flux function is called,
! which calls a limiter function of the ratio of consecutive gradients
! (a call chain time loop -> step -> face_flux -> limiter).  Periodic.
! adfort: routine=fv_run dep=cost indep=q0,cx
! adfort: init nx=6 ny=5 nt=3 cx=0.2:0.4 cy=0.1:0.3 q0=0:1
! adfort: bench nx=150 ny=150 nt=20
module flux2d_chain
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  real(wp) function superbee(r)
    real(wp), intent(in) :: r
    superbee = max(0.0_wp, min(2.0_wp*r, 1.0_wp), min(r, 2.0_wp))
  end function superbee

  real(wp) function face_flux(c, qm, q0, qp)
    real(wp), intent(in) :: c, qm, q0, qp
    real(wp) :: d, r
    d = qp - q0
    r = (q0 - qm)/sign(max(abs(d), 1.0e-12_wp), d)
    face_flux = c*(q0 + 0.5_wp*(1.0_wp - c)*superbee(r)*d)
  end function face_flux

  subroutine fv_step(nx, ny, cx, cy, q)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: cx, cy
    real(wp), intent(inout) :: q(nx, ny)
    real(wp) :: fx(nx, ny), fy(nx, ny)
    integer :: i, j, im, ip, jm, jp
    do j = 1, ny
      do i = 1, nx
        im = i - 1
        if (im < 1) im = nx
        ip = i + 1
        if (ip > nx) ip = 1
        fx(i, j) = face_flux(cx, q(im, j), q(i, j), q(ip, j))
      end do
    end do
    do j = 1, ny
      jm = j - 1
      if (jm < 1) jm = ny
      jp = j + 1
      if (jp > ny) jp = 1
      do i = 1, nx
        fy(i, j) = face_flux(cy, q(i, jm), q(i, j), q(i, jp))
      end do
    end do
    do j = 1, ny
      jm = j - 1
      if (jm < 1) jm = ny
      do i = 1, nx
        im = i - 1
        if (im < 1) im = nx
        q(i, j) = q(i, j) - (fx(i, j) - fx(im, j)) - (fy(i, j) - fy(i, jm))
      end do
    end do
  end subroutine fv_step

  subroutine fv_run(nx, ny, nt, cx, cy, q0, cost)
    integer, intent(in) :: nx, ny, nt
    real(wp), intent(in) :: cx, cy, q0(nx, ny)
    real(wp), intent(out) :: cost
    real(wp) :: q(nx, ny)
    integer :: it
    q = q0
    do it = 1, nt
      call fv_step(nx, ny, cx, cy, q)
    end do
    cost = sum(q**2)
  end subroutine fv_run
end module flux2d_chain
