! Snow-covered land-surface scheme with a four-level call graph in which
! one function (albedo) has two callers:
!   lsm_run -> lsm_step -> surface_balance -> albedo
!                       -> snow_update     -> albedo, softplus
!                       -> soil_conduction
! Used to compare split, joint and several mixed --link schedules on the
! same call graph.
module land_surface
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: sigma = 5.67e-8_wp, t_melt = 273.15_wp
  real(wp), parameter :: c_surf = 2.0e5_wp      ! J m-2 K-1
  real(wp), parameter :: h_conv = 10.0_wp       ! W m-2 K-1
  real(wp), parameter :: g_soil = 5.0_wp        ! W m-2 K-1
  real(wp), parameter :: dz_soil = 0.1_wp       ! m
contains

  real(wp) function softplus(x, s)
    real(wp), intent(in) :: x, s
    softplus = s * log(1.0_wp + exp(x / s))
  end function softplus

  real(wp) function albedo(tsurf, swe)
    real(wp), intent(in) :: tsurf, swe
    ! fresh cold snow is bright, wet (near melting) or thin snow darker
    albedo = 0.2_wp + 0.6_wp * swe / (swe + 0.02_wp) &
                      * (0.6_wp + 0.4_wp * tanh((268.0_wp - tsurf) / 3.0_wp))
  end function albedo

  subroutine surface_balance(tsurf, swe, sw, lw, ta, tsoil1, dt)
    real(wp), intent(inout) :: tsurf
    real(wp), intent(in) :: swe, sw, lw, ta, tsoil1, dt
    real(wp) :: net
    net = (1.0_wp - albedo(tsurf, swe)) * sw + lw - 0.98_wp * sigma * tsurf**4 &
          - h_conv * (tsurf - ta) - g_soil * (tsurf - tsoil1)
    tsurf = tsurf + dt * net / c_surf
  end subroutine surface_balance

  subroutine snow_update(tsurf, swe, sw, dt)
    real(wp), intent(in) :: tsurf, sw, dt
    real(wp), intent(inout) :: swe
    real(wp) :: energy, melt
    energy = h_conv * softplus(tsurf - t_melt, 0.5_wp) &
             + 0.1_wp * (1.0_wp - albedo(tsurf, swe)) * sw
    melt = dt * energy / (1000.0_wp * 3.34e5_wp)
    swe = swe - melt * swe / (swe + 1.0e-3_wp)
  end subroutine snow_update

  subroutine soil_conduction(nsoil, tsoil, tsurf, dt, kappa)
    integer, intent(in) :: nsoil
    real(wp), intent(inout) :: tsoil(nsoil)
    real(wp), intent(in) :: tsurf, dt, kappa
    real(wp) :: flux(nsoil + 1)
    integer :: k
    flux(1) = kappa * (tsurf - tsoil(1)) / (0.5_wp * dz_soil)
    do k = 2, nsoil
      flux(k) = kappa * (tsoil(k - 1) - tsoil(k)) / dz_soil
    end do
    flux(nsoil + 1) = 0.0_wp
    do k = 1, nsoil
      tsoil(k) = tsoil(k) + dt * (flux(k) - flux(k + 1)) / dz_soil
    end do
  end subroutine soil_conduction

  subroutine lsm_step(nsoil, tsurf, swe, tsoil, sw, lw, ta, dt, kappa)
    integer, intent(in) :: nsoil
    real(wp), intent(inout) :: tsurf, swe, tsoil(nsoil)
    real(wp), intent(in) :: sw, lw, ta, dt, kappa
    call surface_balance(tsurf, swe, sw, lw, ta, tsoil(1), dt)
    call snow_update(tsurf, swe, sw, dt)
    call soil_conduction(nsoil, tsoil, tsurf, dt, kappa)
  end subroutine lsm_step

  subroutine lsm_run(nsoil, nt, dt, tsurf, swe, tsoil, sw, lw, ta, kappa, score)
    integer, intent(in) :: nsoil, nt
    real(wp), intent(in) :: dt, sw(nt), lw, ta(nt), kappa
    real(wp), intent(inout) :: tsurf, swe, tsoil(nsoil)
    real(wp), intent(out) :: score
    integer :: t
    do t = 1, nt
      call lsm_step(nsoil, tsurf, swe, tsoil, sw(t), lw, ta(t), dt, kappa)
    end do
    ! mean soil temperature anomaly plus snow water equivalent in mm
    score = sum(tsoil - t_melt) / real(nsoil, wp) + 1000.0_wp * swe
  end subroutine lsm_run

end module land_surface
