! Single-column moist physics step: Tetens saturation humidity over the
! column (array syntax), a phase partition by temperature with an ELSE IF
! chain (liquid / mixed-phase ramp / ice), condensation of the
! supersaturation with latent heating, falling precipitation that
! re-evaporates in sub-saturated layers below (second ELSE IF chain on
! relative humidity), and a shallow-mixing term written with overlapping
! array sections t(2:nlev) / t(1:nlev-1).  Level 1 is the model top.
! adfort: routine=moist_column dep=t,q,precip indep=t,q
! adfort: init nlev=30 t=245:300 q=0.002:0.02 p=60000:100000 dt=600
! adfort: bench nlev=20000
module moist_physics_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: lv = 2.501e6_wp, ls = 2.834e6_wp
  real(wp), parameter :: cp = 1004.64_wp, grav = 9.80665_wp
  real(wp), parameter :: t0 = 273.15_wp, tice = 253.15_wp
contains
  subroutine moist_column(nlev, p, dt, t, q, precip)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: p(nlev), dt
    real(wp), intent(inout) :: t(nlev), q(nlev)
    real(wp), intent(out) :: precip
    real(wp) :: qs(nlev), rh(nlev), fliq(nlev), cond(nlev), lat(nlev)
    real(wp) :: flux(nlev + 1), mix(nlev)
    real(wp) :: evap
    integer :: k
    qs(:) = 0.622_wp*610.78_wp*exp(17.27_wp*(t(:) - t0)/(t(:) - 35.86_wp))/p(:)
    rh = q/qs
    do k = 1, nlev
      if (t(k) > t0) then
        fliq(k) = 1.0_wp
      else if (t(k) > tice) then
        fliq(k) = (t(k) - tice)/(t0 - tice)
      else
        fliq(k) = 0.0_wp
      end if
      if (rh(k) > 1.0_wp) then
        cond(k) = (q(k) - qs(k))/(1.0_wp + 0.5_wp*rh(k))
      else
        cond(k) = 0.0_wp
      end if
    end do
    lat(:) = fliq(:)*lv + (1.0_wp - fliq(:))*ls
    q(:) = q(:) - cond(:)
    t(:) = t(:) + lat(:)*cond(:)/cp
    ! precipitation flux at the top of each layer [kg m-2 s-1]
    flux(1) = 0.0_wp
    do k = 1, nlev
      if (rh(k) >= 1.0_wp) then
        evap = 0.0_wp
      else if (rh(k) > 0.7_wp) then
        evap = 0.2_wp*(1.0_wp - rh(k))*flux(k)
      else
        evap = (0.06_wp + 0.1_wp*(0.7_wp - rh(k)))*flux(k)
      end if
      flux(k + 1) = flux(k) - evap + cond(k)*p(k)/(grav*dt*real(nlev, wp))
      q(k) = q(k) + evap*grav*dt/p(k)
      t(k) = t(k) - lat(k)*evap*grav*dt/(cp*p(k))
    end do
    precip = flux(nlev + 1)
    ! weak mixing with the layer above (sections overlap by design)
    mix(1) = 0.0_wp
    mix(2:nlev) = 0.05_wp*(t(1:nlev - 1) - t(2:nlev))
    t(2:nlev) = t(2:nlev) + mix(2:nlev)
    t(1:nlev - 1) = t(1:nlev - 1) - mix(2:nlev)
  end subroutine moist_column
end module moist_physics_mod
