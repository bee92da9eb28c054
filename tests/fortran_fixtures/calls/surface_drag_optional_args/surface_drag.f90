! Bulk drag and heat exchange over a row of surface points.  The drag
! routine is written F77-style (no intents) and clips a roughness it is
! given; callers pass it named constants and literals.  Gustiness is an
! optional argument (active where given), the diagnostics flag another.
module surface_drag
  use surface_consts
  implicit none
contains

  subroutine drag_coeff(z, z0, zeta, cd, gust)
    real(wp) z, z0, zeta, cd
    real(wp), intent(in), optional :: gust
    real(wp) psi
    if (z0 < 1.0e-5_wp) z0 = 1.0e-5_wp
    ! Stable (zeta > 0) or unstable stability correction, smooth at 0.
    psi = -5.0_wp*zeta/(1.0_wp + abs(zeta))
    cd = (karman/(log(z/z0) - psi))**2
    if (present(gust)) cd = cd*(1.0_wp + gust)
  end subroutine drag_coeff

  subroutine surface_fluxes(n, landfrac, u, t, ts, z, tau, hflux, verbose)
    integer, intent(in) :: n
    real(wp), intent(in) :: landfrac(n)
    real(wp), intent(in) :: u(n), t(n), ts(n), z
    real(wp), intent(out) :: tau(n), hflux(n)
    logical, intent(in), optional :: verbose
    real(wp) :: zeta, cd, ch, z0
    integer :: k
    do k = 1, n
      zeta = 9.81_wp*z*(t(k) - ts(k))/(t(k)*max(u(k), 0.5_wp)**2)
      if (landfrac(k) > 0.5_wp) then
        call drag_coeff(z, z0_land, zeta, cd, gust=0.2_wp*u(k)/(1.0_wp + u(k)))
        call drag_coeff(z, 0.1_wp*z0_land, zeta, ch)
      else
        call drag_coeff(z, z0_sea, zeta, cd)
        call drag_coeff(z, 1.0e-4_wp, zeta, ch, 0.05_wp)
        ! A roughness below the scheme's floor: clipped in place.
        z0 = 2.0e-6_wp
        call drag_coeff(z, z0, zeta, cd)
        cd = 0.5_wp*(cd + ch)
      end if
      tau(k) = rho_air*cd*u(k)**2
      hflux(k) = rho_air*cp_air*ch*u(k)*(ts(k) - t(k))
    end do
    if (present(verbose)) then
      if (verbose) write(*, '(a,es12.4)') 'surface_fluxes: mean stress ', sum(tau)/n
    end if
  end subroutine surface_fluxes
end module surface_drag
