! Viscous Burgers equation with a Rusanov-type numerical flux written as a
! function and used inside the stencil, u(i) - dt/dx*(flux(u(i),u(i+1)) -
! flux(u(i-1),u(i))), plus a nonlinear Rayleigh drag applied through
! exp(-dt*drag(u)) (a function inside an intrinsic argument) and a
! kinetic-energy diagnostic through sqrt(energy(...)).
module burgers_functions
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: alpha = 1.5_wp   ! bound on |u| for the dissipation
contains

  real(wp) function num_flux(ul, ur, nu, dx)
    real(wp), intent(in) :: ul, ur, nu, dx
    num_flux = 0.25_wp * (ul**2 + ur**2) - 0.5_wp * alpha * (ur - ul) &
               - nu * (ur - ul) / dx
  end function num_flux

  real(wp) function drag(v, cd)
    real(wp), intent(in) :: v, cd
    drag = cd * v**2 / (1.0_wp + v**2)
  end function drag

  real(wp) function energy(a, b)
    real(wp), intent(in) :: a, b
    energy = 0.5_wp * (a**2 + b**2) + 0.01_wp
  end function energy

  subroutine burgers(n, nt, dt, dx, nu, cd, u, ke)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, dx, nu, cd
    real(wp), intent(inout) :: u(n)
    real(wp), intent(out) :: ke
    real(wp) :: unew(n)
    integer :: i, t
    do t = 1, nt
      unew(1) = u(1)
      unew(n) = u(n)
      do i = 2, n - 1
        unew(i) = u(i) - dt / dx * (num_flux(u(i), u(i + 1), nu, dx) &
                                    - num_flux(u(i - 1), u(i), nu, dx))
        unew(i) = unew(i) * exp(-dt * drag(u(i), cd))
      end do
      u = unew
    end do
    ke = 0.0_wp
    do i = 1, n - 1
      ke = ke + dx * sqrt(energy(u(i), u(i + 1)))
    end do
  end subroutine burgers

end module burgers_functions
