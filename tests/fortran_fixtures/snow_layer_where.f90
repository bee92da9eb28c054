! Snow and soil column update on a (point, layer) grid written with WHERE
! the way land-surface schemes write it: a mask from a shifted field
! (CSHIFT, a neighbour's temperature), an assignment that reads the array
! it assigns at other elements (y = y(n:1:-1)), masked ELSEWHERE chains,
! a column sum inside a masked assignment (evaluated before any element
! is assigned), a WHERE statement whose mask reads what it assigns, and a
! 2-D WHERE over (point, layer).
! adfort: routine=snow_update dep=tsnow,swe,melt indep=tsnow,swe,tair
! adfort: init np=6 nl=3 tsnow=262:280 swe=5:40 tair=265:285 melt=0
module snow_where_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: tfrz = 273.15_wp, lf = 0.334_wp
contains
  subroutine snow_update(np, nl, tsnow, swe, tair, melt)
    integer, intent(in) :: np, nl
    real(wp), intent(inout) :: tsnow(np, nl), swe(np)
    real(wp), intent(in) :: tair(np)
    real(wp), intent(out) :: melt(np)
    real(wp) :: heat(np), top(np)

    top = tsnow(:, 1)
    melt = 0.0_wp
    heat = 0.0_wp
    ! warmer than the western neighbour and above freezing: melting
    where (top - cshift(top, 1) > -4.0_wp .and. tair > tfrz)
      heat = 0.02_wp * (tair - tfrz) * (1.0_wp + 0.01_wp * swe)
      melt = min(heat / lf, 0.5_wp * swe)
      swe = swe - melt
      top = top + 0.1_wp * heat(np:1:-1)
    elsewhere (tair < tfrz - 5.0_wp)
      heat = -0.01_wp * (tfrz - tair)
      swe = swe * (1.0_wp + 0.001_wp * sum(swe) / np)
    elsewhere
      heat = 0.5_wp * heat
      top = 0.5_wp * (top + tair)
    end where
    ! a mask reading the array assigned
    where (swe > 20.0_wp) swe = swe - 0.05_wp * (swe - 20.0_wp)**2 / sqrt(swe)
    tsnow(:, 1) = top
    ! 2-D: layers relax towards the layer above where colder
    where (tsnow(:, 2:nl) < tsnow(:, 1:nl-1))
      tsnow(:, 2:nl) = tsnow(:, 2:nl) + 0.3_wp * (tsnow(:, 1:nl-1) - tsnow(:, 2:nl))
    end where
    swe = swe + 1.0e-3_wp * heat * tsnow(:, nl)
  end subroutine snow_update
end module snow_where_mod
