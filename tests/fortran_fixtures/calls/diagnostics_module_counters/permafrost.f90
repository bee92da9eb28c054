! Heat diffusion in a permafrost soil column with temperature-dependent
! conductivity (frozen soil conducts better), forced at the surface.
! The time loop also calls diagnostics that carry no derivative: a step
! report printing passive integers, and a diagnostic that reads the
! (active) temperatures but only updates a call counter, a count of cold
! layers and a running maximum kept in module variables that never feed
! back into the model.
module soil_diagnostics
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  integer :: ncalls = 0
  integer :: ncold = 0
  real(wp) :: tmax_seen = -1.0e30_wp
contains
  subroutine report_step(step, nt, every)
    integer, intent(in) :: step, nt, every
    if (mod(step, every) == 0 .or. step == nt) then
      print '(a, i4, a, i4, a, i6)', ' soil step', step, ' of', nt, &
            '  diagnostics calls', ncalls
    end if
  end subroutine report_step

  subroutine diagnostics(n, t, t_crit)
    integer, intent(in) :: n
    real(wp), intent(in) :: t(n), t_crit
    integer :: k
    ncalls = ncalls + 1
    ncold = 0
    do k = 1, n
      if (t(k) < t_crit) ncold = ncold + 1
    end do
    tmax_seen = max(tmax_seen, maxval(t))
  end subroutine diagnostics
end module soil_diagnostics

module permafrost
  use soil_diagnostics, only: wp, diagnostics, report_step
  implicit none
contains
  real(wp) function conductivity(t)
    real(wp), intent(in) :: t
    conductivity = 1.2_wp + 0.8_wp * (0.5_wp - 0.5_wp * tanh((t - 273.15_wp) / 1.5_wp))
  end function conductivity

  subroutine soil_heat(n, nt, dt, dz, t, t_surf, active_layer)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt, dz, t_surf(nt)
    real(wp), intent(inout) :: t(n)
    real(wp), intent(out) :: active_layer
    real(wp) :: flux(n + 1), kface
    integer :: k, step
    do step = 1, nt
      kface = conductivity(0.5_wp * (t_surf(step) + t(1)))
      flux(1) = kface * (t_surf(step) - t(1)) / (0.5_wp * dz)
      do k = 2, n
        kface = conductivity(0.5_wp * (t(k - 1) + t(k)))
        flux(k) = kface * (t(k - 1) - t(k)) / dz
      end do
      flux(n + 1) = 0.0_wp
      do k = 1, n
        t(k) = t(k) + dt * (flux(k) - flux(k + 1)) / (2.0e6_wp * dz)
      end do
      call diagnostics(n, t, 273.15_wp)
      call report_step(step, nt, 5)
    end do
    ! smooth measure of the thawed depth
    active_layer = 0.0_wp
    do k = 1, n
      active_layer = active_layer + dz * (0.5_wp + 0.5_wp * tanh((t(k) - 273.15_wp) / 0.5_wp))
    end do
  end subroutine soil_heat
end module permafrost
