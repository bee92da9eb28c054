! Heat diffusion in a permafrost soil column with temperature-dependent
! conductivity (frozen soil conducts better), forced at the surface.
! The time loop also calls diagnostics that carry no derivative: a step
! report printing passive integers, and a diagnostic that reads the
! (active) temperatures but only produces a passive count of frozen
! layers and the warmest temperature, which never feed back into the
! model.  adfort keeps both calls as they are.
module soil_diagnostics
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine report_step(step, nt, every, nfrozen)
    integer, intent(in) :: step, nt, every, nfrozen
    if (mod(step, every) == 0 .or. step == nt) then
      print '(a, i4, a, i4, a, i4)', ' soil step', step, ' of', nt, &
            '  frozen layers', nfrozen
    end if
  end subroutine report_step

  subroutine diagnostics(n, t, t_crit, nfrozen, tmax)
    integer, intent(in) :: n
    real(wp), intent(in) :: t(n), t_crit
    integer, intent(out) :: nfrozen
    real(wp), intent(out) :: tmax
    integer :: k
    nfrozen = 0
    do k = 1, n
      if (t(k) < t_crit) nfrozen = nfrozen + 1
    end do
    tmax = maxval(t)
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
    real(wp) :: flux(n + 1), kface, twarm
    integer :: k, step, nfrozen
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
      call diagnostics(n, t, 273.15_wp, nfrozen, twarm)
      call report_step(step, nt, 5, nfrozen)
    end do
    ! smooth measure of the thawed depth
    active_layer = 0.0_wp
    do k = 1, n
      active_layer = active_layer + dz * (0.5_wp + 0.5_wp * tanh((t(k) - 273.15_wp) / 0.5_wp))
    end do
  end subroutine soil_heat
end module permafrost
