! 2-D tracer advection by a variable (divergent) wind, dimensionally split:
! each step an x-sweep then a y-sweep; every face flux comes from a flux
! function that upwinds on the sign of the face velocity and calls a
! van Leer limiter function of the ratio of successive gradients.
! Periodic in x, walls (zero flux) in y.  Chain: run -> step -> sweep_x /
! sweep_y -> face_flux -> vanleer.  Cost: misfit to an observed field.
! adfort: routine=tracer_run dep=cost indep=q,u,v
! adfort: init nx=7 ny=6 nt=3 dt=0.2 u=-0.8:0.8 v=-0.8:0.8 q=0.5:1.5 qobs=0.5:1.5
! adfort: bench nx=160 ny=120 nt=20
module vl_split2d
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: eps = 1.0e-10_wp
contains
  pure real(wp) function vanleer(r)
    real(wp), intent(in) :: r
    vanleer = (r + abs(r))/(1.0_wp + abs(r))
  end function vanleer

  real(wp) function face_flux(vel, qm, q0, qp, qpp, cfl)
    real(wp), intent(in) :: vel, qm, q0, qp, qpp, cfl
    real(wp) :: r, d
    if (vel >= 0.0_wp) then
      d = qp - q0
      if (abs(d) > eps) then
        r = (q0 - qm)/d
      else
        r = 0.0_wp
      end if
      face_flux = vel*(q0 + 0.5_wp*(1.0_wp - cfl)*vanleer(r)*d)
    else
      d = q0 - qp
      if (abs(d) > eps) then
        r = (qp - qpp)/d
      else
        r = 0.0_wp
      end if
      face_flux = vel*(qp + 0.5_wp*(1.0_wp - cfl)*vanleer(r)*d)
    end if
  end function face_flux

  subroutine sweep_x(nx, ny, dt, u, q)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: dt, u(nx, ny)
    real(wp), intent(inout) :: q(nx, ny)
    real(wp) :: fx(0:nx)
    integer :: i, j, im, ip, ipp
    do j = 1, ny
      do i = 1, nx
        im = i - 1
        if (im < 1) im = nx
        ip = i + 1
        if (ip > nx) ip = ip - nx
        ipp = i + 2
        if (ipp > nx) ipp = ipp - nx
        fx(i) = face_flux(u(i, j), q(im, j), q(i, j), q(ip, j), q(ipp, j), &
                          abs(u(i, j))*dt)
      end do
      fx(0) = fx(nx)
      do i = 1, nx
        q(i, j) = q(i, j) - dt*(fx(i) - fx(i-1))
      end do
    end do
  end subroutine sweep_x

  subroutine sweep_y(nx, ny, dt, v, q)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: dt, v(nx, ny)
    real(wp), intent(inout) :: q(nx, ny)
    real(wp) :: fy(nx, 0:ny)
    integer :: i, j
    fy(:, 0) = 0.0_wp
    fy(:, ny) = 0.0_wp
    do j = 1, ny - 1
      do i = 1, nx
        fy(i, j) = face_flux(v(i, j), q(i, max(j-1, 1)), q(i, j), q(i, j+1), &
                             q(i, min(j+2, ny)), abs(v(i, j))*dt)
      end do
    end do
    do j = 1, ny
      do i = 1, nx
        q(i, j) = q(i, j) - dt*(fy(i, j) - fy(i, j-1))
      end do
    end do
  end subroutine sweep_y

  subroutine step(nx, ny, dt, u, v, q)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: dt, u(nx, ny), v(nx, ny)
    real(wp), intent(inout) :: q(nx, ny)
    call sweep_x(nx, ny, dt, u, q)
    call sweep_y(nx, ny, dt, v, q)
  end subroutine step

  subroutine tracer_run(nx, ny, nt, dt, u, v, q, qobs, cost)
    integer, intent(in) :: nx, ny, nt
    real(wp), intent(in) :: dt, u(nx, ny), v(nx, ny), qobs(nx, ny)
    real(wp), intent(inout) :: q(nx, ny)
    real(wp), intent(out) :: cost
    integer :: it
    do it = 1, nt
      call step(nx, ny, dt, u, v, q)
    end do
    cost = 0.5_wp*sum((q - qobs)**2)
  end subroutine tracer_run
end module vl_split2d
