! Flux-limited advection of a tracer on a 1-D periodic grid, written with
! Fortran 2008 BLOCK constructs for the per-interface temporaries (as
! newer model code is): a named block per interface, an inner block for
! the limiter, a block local shadowing a routine variable of the same name
! ('r'), and an automatic work array sized from an argument.
! adfort: routine=advect_blocks dep=q,mass indep=q,u
! adfort: init n=16 nt=3 dt=0.1 dx=1.0 u=0.2:0.8 q=0.5:1.5
module limiter_blocks
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine advect_blocks(n, nt, dt, dx, u, q, mass)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, dx, u(n)
    real(wp), intent(inout) :: q(n)
    real(wp), intent(out) :: mass
    real(wp) :: flux(0:n), r
    integer :: i, it
    r = dt/dx
    do it = 1, nt
      do i = 1, n
        face: block
          real(wp) :: dq_up, dq_lo, r, phi, c
          integer :: im, ip
          im = modulo(i - 2, n) + 1
          ip = modulo(i, n) + 1
          dq_up = q(i) - q(im)
          dq_lo = q(ip) - q(i)
          c = u(i)*dt/dx
          if (abs(dq_lo) > 1.0e-12_wp) then
            r = dq_up/dq_lo
          else
            r = 0.0_wp
          end if
          block
            real(wp) :: num
            num = r + abs(r)
            phi = num/(1.0_wp + abs(r))
          end block
          flux(i) = u(i)*(q(i) + 0.5_wp*(1.0_wp - c)*phi*dq_lo)
        end block face
      end do
      flux(0) = flux(n)
      block
        real(wp) :: dflux(n)
        dflux = flux(1:n) - flux(0:n-1)
        q = q - r*dflux
      end block
    end do
    mass = dx*sum(q)
  end subroutine advect_blocks
end module limiter_blocks
