! A four-box ocean-atmosphere energy balance model (surface mixed layer,
! thermocline, intermediate and deep boxes) whose state lives in module
! variables.  Several routines update the module arrays: surface_forcing
! (radiative forcing and feedback on the surface box), exchange (nonlinear
! diffusive heat exchange between neighbouring boxes with the exchange
! coefficient kdiff, a parameter-like module variable) and accumulate
! (ocean heat uptake, a module accumulator).  run_boxes only loops in time.
module ocean_boxes
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  integer, parameter :: nbox = 4
  real(wp), parameter :: lambda = 1.2_wp          ! feedback (W m-2 K-1)
  real(wp) :: temp(nbox) = [0.0_wp, 0.0_wp, 0.0_wp, 0.0_wp]
  real(wp) :: heat_cap(nbox) = [8.0_wp, 20.0_wp, 50.0_wp, 100.0_wp]
  real(wp) :: kdiff = 0.7_wp                      ! exchange coefficient
  real(wp) :: heat_uptake = 0.0_wp                ! accumulated uptake
  real(wp) :: surface_flux = 0.0_wp               ! last net surface flux
contains

  subroutine surface_forcing(dt, forcing)
    real(wp), intent(in) :: dt, forcing
    surface_flux = forcing - lambda * temp(1) - 0.02_wp * temp(1)**2
    temp(1) = temp(1) + dt * surface_flux / heat_cap(1)
  end subroutine surface_forcing

  subroutine exchange(dt)
    real(wp), intent(in) :: dt
    real(wp) :: q(nbox - 1), dtemp
    integer :: k
    do k = 1, nbox - 1
      dtemp = temp(k) - temp(k + 1)
      q(k) = kdiff * dtemp * (1.0_wp + 0.1_wp * dtemp**2)
    end do
    temp(1) = temp(1) - dt * q(1) / heat_cap(1)
    do k = 2, nbox - 1
      temp(k) = temp(k) + dt * (q(k - 1) - q(k)) / heat_cap(k)
    end do
    temp(nbox) = temp(nbox) + dt * q(nbox - 1) / heat_cap(nbox)
  end subroutine exchange

  subroutine accumulate(dt)
    real(wp), intent(in) :: dt
    heat_uptake = heat_uptake + dt * surface_flux
  end subroutine accumulate

  subroutine run_boxes(nt, dt, forcing)
    integer, intent(in) :: nt
    real(wp), intent(in) :: dt, forcing(nt)
    integer :: t
    do t = 1, nt
      call surface_forcing(dt, forcing(t))
      call exchange(dt)
      call accumulate(dt)
    end do
  end subroutine run_boxes

end module ocean_boxes
