! Diagnostic cloud scheme of a GCM, level by level on a (ncol, nlev) slab:
! Murphy & Koop (2005) saturation vapour pressure over liquid (with its
! tanh transition term) and over ice, blended by a tanh ice fraction;
! saturation specific humidity, Sundqvist relative-humidity cloud fraction
! chosen by WHERE/ELSEWHERE, liquid-water potential temperature (Exner
! power, exp) and virtual potential temperature.  Elemental pure
! functions applied to column vectors; module parameters.
! adfort: routine=cloud_diagnostics dep=cf,thl,thv indep=t,qv
! adfort: init ncol=5 nlev=4 p=50000:100000 t=250:300 qv=0.001:0.012 qc=0:0.0005
! adfort: shape p=ncol,nlev t=ncol,nlev qv=ncol,nlev qc=ncol,nlev cf=ncol,nlev thl=ncol,nlev thv=ncol,nlev
! adfort: bench ncol=256 nlev=80
module cloud_diag_mod
  implicit none
  private
  public :: cloud_diagnostics, r8
  integer, parameter :: r8 = selected_real_kind(15, 300)
  real(r8), parameter :: tmelt = 273.16_r8, tice = 250.16_r8
  real(r8), parameter :: rd = 287.04_r8, rv = 461.5_r8, cpd = 1004.64_r8
  real(r8), parameter :: lv = 2.501e6_r8, ls = 2.834e6_r8
  real(r8), parameter :: epsr = rd/rv, p0 = 1.0e5_r8
  real(r8), parameter :: rhcrit = 0.8_r8
contains

  pure elemental real(r8) function esat_liq(t)
    real(r8), intent(in) :: t
    esat_liq = exp(54.842763_r8 - 6763.22_r8/t - 4.210_r8*log(t) &
         + 0.000367_r8*t + tanh(0.0415_r8*(t - 218.8_r8)) &
         * (53.878_r8 - 1331.22_r8/t - 9.44523_r8*log(t) + 0.014025_r8*t))
  end function esat_liq

  pure elemental real(r8) function esat_ice(t)
    real(r8), intent(in) :: t
    esat_ice = exp(9.550426_r8 - 5723.265_r8/t + 3.53068_r8*log(t) &
         - 0.00728332_r8*t)
  end function esat_ice

  pure elemental real(r8) function ice_fraction(t)
    real(r8), intent(in) :: t
    ice_fraction = 0.5_r8*(1.0_r8 - tanh((t - 0.5_r8*(tmelt + tice))/6.0_r8))
  end function ice_fraction

  subroutine cloud_diagnostics(p, t, qv, qc, cf, thl, thv)
    real(r8), intent(in) :: p(:,:), t(:,:), qv(:,:), qc(:,:)
    real(r8), intent(out) :: cf(:,:), thl(:,:), thv(:,:)
    real(r8), dimension(size(t, 1)) :: fice, es, qs, rh, lat, exner
    integer :: k
    do k = 1, size(t, 2)
      fice = ice_fraction(t(:, k))
      es = (1.0_r8 - fice)*esat_liq(t(:, k)) + fice*esat_ice(t(:, k))
      es = min(es, 0.6_r8*p(:, k))
      qs = epsr*es/(p(:, k) - (1.0_r8 - epsr)*es)
      rh = (qv(:, k) + qc(:, k))/qs
      where (rh >= 1.0_r8)
        cf(:, k) = 1.0_r8
      elsewhere (rh > rhcrit)
        cf(:, k) = 1.0_r8 - sqrt((1.0_r8 - rh)/(1.0_r8 - rhcrit))
      elsewhere
        cf(:, k) = 0.0_r8
      end where
      lat = (1.0_r8 - fice)*lv + fice*ls
      exner = (p(:, k)/p0)**(rd/cpd)
      thl(:, k) = t(:, k)/exner*exp(-lat*qc(:, k)/(cpd*max(t(:, k), 200.0_r8)))
      thv(:, k) = t(:, k)/exner*(1.0_r8 + qv(:, k)/epsr) &
           /(1.0_r8 + qv(:, k) + qc(:, k))
    end do
  end subroutine cloud_diagnostics

end module cloud_diag_mod
