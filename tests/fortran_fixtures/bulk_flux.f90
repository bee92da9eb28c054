! Bulk aerodynamic air-sea fluxes: sensible and latent heat, zonal wind
! stress (signed with SIGN) and friction velocity (ABS of the stress).
! adfort: routine=bulk_flux dep=qh,qe,taux,ustar indep=u,v,ts,ta,qa
! adfort: init u=-12:-2 v=1:8 ts=285:300 ta=280:295 qa=0.004:0.008
module bulk_mod
  implicit none
  double precision, parameter :: rho_air = 1.225d0
contains
  subroutine bulk_flux(u, v, ts, ta, qa, qh, qe, taux, ustar)
    double precision, intent(in) :: u, v, ts, ta, qa
    double precision, intent(out) :: qh, qe, taux, ustar
    double precision, parameter :: cp = 1004.5d0, lv = 2.5d6, ch = 1.1d-3
    double precision :: speed, cd, qs
    ! 0.25 m2/s2 of gustiness keeps the speed away from zero
    speed = sqrt(u*u + v*v + 0.25d0)
    cd = 1.0d-3*(0.75d0 + 0.067d0*speed)
    qs = 0.98d0*0.622d0*611.2d0*exp(17.67d0*(ts - 273.15d0)/(ts - 29.65d0))/101325.0d0
    qh = rho_air*cp*ch*speed*(ts - ta)
    qe = rho_air*lv*ch*speed*(qs - qa)
    taux = sign(rho_air*cd*u**2, u)
    ustar = sqrt(abs(taux)/rho_air)
  end subroutine bulk_flux
end module bulk_mod
