! Shallow-water-like 1-D flux-form update written with modern Fortran:
! a generic interface for the limiter, DO CONCURRENT loops, ASSOCIATE
! names for the state's components, automatic work arrays,
! CONTIGUOUS assumed-shape dummies and an OPTIONAL smoothing argument.
! adfort: routine=swm_run dep=cost indep=h0,u0
! adfort: init n=12 nt=4 h0=1:2 u0=-0.3:0.3 hobs=1:2
! adfort: shape h0=n u0=n hobs=n
! adfort: bench n=4000 nt=200
module swm_modern
  implicit none
  integer, parameter :: rk = selected_real_kind(12, 100)
  real(rk), parameter :: grav = 9.81_rk, dx = 1000.0_rk, dt = 5.0_rk
  type :: swm_state
    real(rk), allocatable :: h(:), u(:)
  end type swm_state
  interface limit
    module procedure limit_minmod
  end interface limit
contains
  elemental real(rk) function limit_minmod(a, b) result(r)
    real(rk), intent(in) :: a, b
    r = 0.5_rk*(sign(1.0_rk, a) + sign(1.0_rk, b))*min(abs(a), abs(b))
  end function limit_minmod

  subroutine fluxes(h, u, fh, fu, smooth)
    real(rk), contiguous, intent(in) :: h(:), u(:)
    real(rk), contiguous, intent(out) :: fh(0:), fu(0:)
    real(rk), optional, intent(in) :: smooth
    integer :: i, n, im, ip
    real(rk) :: hl, hr, ul, ur, s
    n = size(h)
    s = 0.0_rk
    if (present(smooth)) s = smooth
    do concurrent (i = 1:n-1)
      hl = h(i) + 0.5_rk*limit(h(i) - h(max(i-1, 1)), h(i+1) - h(i))
      hr = h(i+1) - 0.5_rk*limit(h(i+1) - h(i), h(min(i+2, n)) - h(i+1))
      ul = 0.5_rk*(u(i) + u(i+1))
      fh(i) = 0.5_rk*ul*(hl + hr) - s*(hr - hl)
      fu(i) = 0.5_rk*ul*ul + grav*0.5_rk*(hl + hr)
    end do
    fh(0) = 0.0_rk
    fh(n) = 0.0_rk
    fu(0) = fu(1)
    fu(n) = fu(n-1)
  end subroutine fluxes

  subroutine step(st)
    type(swm_state), intent(inout) :: st
    integer :: n
    real(rk) :: fh(0:size(st%h)), fu(0:size(st%h))
    n = size(st%h)
      associate (h => st%h, u => st%u)
        call fluxes(h, u, fh, fu, smooth=0.05_rk)
        h = h - dt/dx*(fh(1:n) - fh(0:n-1))
        u = u - dt/dx*(fu(1:n) - fu(0:n-1))
      end associate
  end subroutine step

  subroutine swm_run(n, nt, h0, u0, hobs, cost)
    integer, intent(in) :: n, nt
    real(rk), intent(in) :: h0(n), u0(n), hobs(n)
    real(rk), intent(out) :: cost
    type(swm_state) :: st
    integer :: it
    allocate(st%h(n), st%u(n))
    st%h = h0
    st%u = u0
    do it = 1, nt
      call step(st)
    end do
    cost = sum((st%h - hobs)**2)/n
    deallocate(st%h, st%u)
  end subroutine swm_run
end module swm_modern
