! Relative humidity and column saturation deficit from a saturation vapour
! pressure *table* (every 10 K from 180 K, set by a DATA statement, log-
! linearly interpolated), as older physics packages do it.  Temperatures
! outside the table are clipped with a warning (the first few only, counted
! in SAVE'd variables); absurd ones stop the run.  A module array with an
! initialiser holds the latent heat's temperature fit, and a module DATA
! statement the thresholds of the ice/liquid blend.
! adfort: routine=column_saturation dep=rh,deficit,latent indep=t,q
! adfort: init nlev=12 t=240:300 q=0.001:0.006 p=50000:100000 dz=200:400
module satvap_table
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  integer, parameter :: ntab = 16
  real(wp), parameter :: t0tab = 180.0_wp, dttab = 10.0_wp, eps = 0.622_wp
  real(wp) :: lv_fit(2) = (/ 2.501e6_wp, -2.37e3_wp /)
  real(wp) :: blend_t(2)
  data blend_t / 250.16_wp, 273.16_wp /
  integer :: total_clipped = 0

contains

  subroutine column_saturation(nlev, t, q, p, dz, rh, deficit, latent)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: t(nlev), q(nlev), p(nlev), dz(nlev)
    real(wp), intent(out) :: rh(nlev), deficit, latent
    real(wp) :: estab(ntab), lnes, es, qs, w, x, lv, fice
    integer :: k, i
    integer, save :: ncalls = 0
    integer :: nwarned
    data estab / 0.01076_wp, 0.06409_wp, 0.3097_wp, 1.256_wp, 4.4_wp, &
                 13.6_wp, 37.74_wp, 95.49_wp, 222.9_wp, 484.9_wp, 991.2_wp, &
                 1918.0_wp, 3535.0_wp, 6236.0_wp, 1.058e4_wp, 1.733e4_wp /
    data nwarned / 0 /

    ncalls = ncalls + 1
    deficit = 0.0_wp
    latent = 0.0_wp
    do k = 1, nlev
      x = (t(k) - t0tab)/dttab + 1.0_wp
      i = int(x)
      if (i < 1 .or. i >= ntab) then
        if (t(k) < 100.0_wp .or. t(k) > 400.0_wp) then
          write(*, *) 'column_saturation: temperature ', t(k), ' at level ', k
          stop 'column_saturation: temperature out of any range'
        end if
        if (nwarned < 5) then
          write(*, '(a,i8,a,f8.2)') 'column_saturation: call ', ncalls, &
               ': clipping T = ', t(k)
          nwarned = nwarned + 1
        end if
        total_clipped = total_clipped + 1
        i = max(1, min(ntab - 1, i))
      end if
      w = x - real(i, wp)
      lnes = (1.0_wp - w)*log(estab(i)) + w*log(estab(i + 1))
      es = exp(lnes)
      ! Below the blend, part of the condensate is ice (more latent heat).
      fice = min(1.0_wp, max(0.0_wp, (blend_t(2) - t(k))/(blend_t(2) - blend_t(1))))
      qs = eps*es/(p(k) - (1.0_wp - eps)*es)
      rh(k) = q(k)/qs
      lv = lv_fit(1) + lv_fit(2)*(t(k) - 273.15_wp) + fice*3.34e5_wp
      deficit = deficit + (qs - q(k))*dz(k)
      latent = latent + lv*max(q(k) - 0.8_wp*qs, 0.0_wp)*dz(k)
    end do
  end subroutine column_saturation
end module satvap_table
