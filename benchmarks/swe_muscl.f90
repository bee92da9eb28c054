! 1-D shallow water (h, hu) on a periodic channel: MUSCL reconstruction
! with a minmod slope limiter (function), Rusanov flux through each face,
! forward Euler steps.  Cost: misfit of the final height to observations.
! adfort: routine=swe_run dep=cost indep=h0,hu0
! adfort: init n=16 nt=5 dt=0.01 dx=1.0 g=9.81 h0=1:2 hu0=-0.2:0.2 hobs=1:2
! adfort: bench n=2000 nt=100
module swe_muscl
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  pure real(wp) function minmod(a, b)
    real(wp), intent(in) :: a, b
    if (a*b <= 0.0_wp) then
      minmod = 0.0_wp
    else
      minmod = sign(min(abs(a), abs(b)), a)
    end if
  end function minmod

  subroutine face_flux(g, hl, hul, hr, hur, fh, fhu)
    real(wp), intent(in) :: g, hl, hul, hr, hur
    real(wp), intent(out) :: fh, fhu
    real(wp) :: ul, ur, cl, cr, smax
    ul = hul/hl
    ur = hur/hr
    cl = sqrt(g*hl)
    cr = sqrt(g*hr)
    smax = max(abs(ul) + cl, abs(ur) + cr)
    fh = 0.5_wp*(hul + hur) - 0.5_wp*smax*(hr - hl)
    fhu = 0.5_wp*(hul*ul + 0.5_wp*g*hl**2 + hur*ur + 0.5_wp*g*hr**2) &
          - 0.5_wp*smax*(hur - hul)
  end subroutine face_flux

  subroutine swe_step(n, dt, dx, g, h, hu)
    integer, intent(in) :: n
    real(wp), intent(in) :: dt, dx, g
    real(wp), intent(inout) :: h(n), hu(n)
    real(wp) :: sh(n), shu(n), fh(n), fhu(n)
    integer :: i, im, ip
    do i = 1, n
      im = i - 1
      ip = i + 1
      if (im < 1) im = n
      if (ip > n) ip = 1
      sh(i) = minmod(h(i) - h(im), h(ip) - h(i))
      shu(i) = minmod(hu(i) - hu(im), hu(ip) - hu(i))
    end do
    ! face i is between cells i and i+1
    do i = 1, n
      ip = i + 1
      if (ip > n) ip = 1
      call face_flux(g, h(i) + 0.5_wp*sh(i), hu(i) + 0.5_wp*shu(i), &
                     h(ip) - 0.5_wp*sh(ip), hu(ip) - 0.5_wp*shu(ip), fh(i), fhu(i))
    end do
    do i = 1, n
      im = i - 1
      if (im < 1) im = n
      h(i) = h(i) - dt/dx*(fh(i) - fh(im))
      hu(i) = hu(i) - dt/dx*(fhu(i) - fhu(im))
    end do
  end subroutine swe_step

  subroutine swe_run(n, nt, dt, dx, g, h0, hu0, hobs, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, dx, g
    real(wp), intent(in) :: h0(n), hu0(n), hobs(n)
    real(wp), intent(out) :: cost
    real(wp) :: h(n), hu(n)
    integer :: it
    h = h0
    hu = hu0
    do it = 1, nt
      call swe_step(n, dt, dx, g, h, hu)
    end do
    cost = 0.5_wp*sum((h - hobs)**2)
  end subroutine swe_run
end module swe_muscl
