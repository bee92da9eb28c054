! Seawater carbonate speciation: hydrogen ion concentration from pH
! (10**(-pH): constant base, active exponent, passed through REAL(x, kind)),
! the dissociation constants pK1, pK2 of Lueker et al. (2000) and the
! fractions of dissolved CO2, bicarbonate and carbonate.  Note the tiny
! magnitudes (h ~ 1e-8 mol/kg).
! adfort: routine=carbonate_speciation dep=h,alpha0,alpha1,alpha2 indep=ph,temp,sal
! adfort: init ph=7.5:8.3 temp=275:303 sal=30:38
module carbonate_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine carbonate_speciation(ph, temp, sal, h, alpha0, alpha1, alpha2)
    real(wp), intent(in) :: ph, temp, sal
    real(wp), intent(out) :: h, alpha0, alpha1, alpha2
    real(wp) :: pk1, pk2, k1, k2, denom
    pk1 = 3633.86_wp/temp - 61.2172_wp + 9.6777_wp*log(temp) &
          - 0.011555_wp*sal + 0.0001152_wp*sal**2
    pk2 = 471.78_wp/temp + 25.9290_wp - 3.16967_wp*log(temp) &
          - 0.01781_wp*sal + 0.0001122_wp*sal**2
    h = 10.0_wp**(-real(ph, kind=wp))
    k1 = 10.0_wp**(-pk1)
    k2 = 10.0_wp**(-pk2)
    denom = h**2 + k1*h + k1*k2
    alpha0 = h**2/denom
    alpha1 = k1*h/denom
    alpha2 = k1*k2/denom
  end subroutine carbonate_speciation
end module carbonate_mod
