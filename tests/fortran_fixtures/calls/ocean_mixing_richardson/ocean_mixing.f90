! Upper-ocean vertical mixing with the Pacanowski-Philander (1981)
! Richardson-number closure.  Mixing coefficients come from nested
! function calls - pp_viscosity(richardson(...), nu0) - and
! pp_diffusivity calls pp_viscosity; a wind stress forces the surface
! layer.  The dependent is the potential-energy change of the column.
module ocean_mixing
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: nu_back = 1.0e-5_wp, kappa_back = 1.0e-6_wp
contains
  real(wp) function richardson(db, du, dv, dz)
    real(wp), intent(in) :: db, du, dv, dz
    richardson = db * dz / (du**2 + dv**2 + 1.0e-8_wp)
  end function richardson

  real(wp) function pp_viscosity(ri, nu0)
    real(wp), intent(in) :: ri, nu0
    pp_viscosity = nu0 / (1.0_wp + 5.0_wp * ri)**2 + nu_back
  end function pp_viscosity

  real(wp) function pp_diffusivity(ri, nu0)
    real(wp), intent(in) :: ri, nu0
    pp_diffusivity = pp_viscosity(ri, nu0) / (1.0_wp + 5.0_wp * ri) + kappa_back
  end function pp_diffusivity

  subroutine mix_column(nz, dt, dz, u, v, b, nu0)
    integer, intent(in) :: nz
    real(wp), intent(in) :: dt, dz, nu0
    real(wp), intent(inout) :: u(nz), v(nz), b(nz)
    real(wp) :: visc(nz + 1), diff(nz + 1), ri
    integer :: k
    visc(1) = 0.0_wp
    diff(1) = 0.0_wp
    visc(nz + 1) = 0.0_wp
    diff(nz + 1) = 0.0_wp
    do k = 2, nz
      visc(k) = pp_viscosity(richardson(b(k - 1) - b(k), u(k - 1) - u(k), &
                                        v(k - 1) - v(k), dz), nu0)
      ri = richardson(b(k - 1) - b(k), u(k - 1) - u(k), v(k - 1) - v(k), dz)
      diff(k) = pp_diffusivity(ri, nu0)
    end do
    do k = 1, nz - 1
      ! fluxes through the interface below layer k (index k + 1)
      u(k) = u(k) - dt / dz**2 * visc(k + 1) * (u(k) - u(k + 1))
      u(k + 1) = u(k + 1) + dt / dz**2 * visc(k + 1) * (u(k) - u(k + 1))
      v(k) = v(k) - dt / dz**2 * visc(k + 1) * (v(k) - v(k + 1))
      v(k + 1) = v(k + 1) + dt / dz**2 * visc(k + 1) * (v(k) - v(k + 1))
      b(k) = b(k) - dt / dz**2 * diff(k + 1) * (b(k) - b(k + 1))
      b(k + 1) = b(k + 1) + dt / dz**2 * diff(k + 1) * (b(k) - b(k + 1))
    end do
  end subroutine mix_column

  subroutine wind_mixing(nz, nt, dt, dz, n2, u, v, b_anom, nu0, taux, pe_change)
    integer, intent(in) :: nz, nt
    real(wp), intent(in) :: dt, dz, n2, b_anom(nz), nu0, taux
    real(wp), intent(inout) :: u(nz), v(nz)
    real(wp), intent(out) :: pe_change
    real(wp) :: b(nz), pe0, f_cor
    integer :: k, step
    f_cor = 1.0e-4_wp
    do k = 1, nz
      b(k) = -n2 * (real(k, wp) - 0.5_wp) * dz + b_anom(k)
    end do
    pe0 = 0.0_wp
    do k = 1, nz
      pe0 = pe0 + b(k) * (real(k, wp) - 0.5_wp) * dz
    end do
    do step = 1, nt
      u(1) = u(1) + dt * taux / (1025.0_wp * dz)
      call mix_column(nz, dt, dz, u, v, b, nu0)
      ! inertial rotation
      do k = 1, nz
        u(k) = u(k) + dt * f_cor * v(k)
        v(k) = v(k) - dt * f_cor * u(k)
      end do
    end do
    pe_change = 0.0_wp
    do k = 1, nz
      pe_change = pe_change + b(k) * (real(k, wp) - 0.5_wp) * dz
    end do
    pe_change = 1.0e4_wp * (pe_change - pe0)
  end subroutine wind_mixing
end module ocean_mixing
