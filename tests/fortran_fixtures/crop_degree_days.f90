! Crop model bookkeeping: growing degree days (DIM, MIN/MAX with 2 and 3+
! arguments), a heat stress index scaled by integer calendar arithmetic
! (INT NINT FLOOR CEILING, integer division: not differentiable), and
! the phase within a period (MOD and SIGN on reals).
! adfort: routine=crop_growth dep=gdd,stress,phase indep=tmax,tmin,tbase,tcap,day,period
! adfort: init tmax=27:32 tmin=8:14 tbase=5:7 tcap=35:38 day=120.2:120.8 period=27:29 nlayers=5
module crop_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine crop_growth(tmax, tmin, tbase, tcap, day, period, nlayers, gdd, stress, phase)
    real(wp), intent(in) :: tmax, tmin, tbase, tcap, day, period
    integer, intent(in) :: nlayers
    real(wp), intent(out) :: gdd, stress, phase
    real(wp) :: tmean, tupper, frac
    integer :: iday, week, nhalf, ihour
    tupper = min(tmax, tcap)
    tmean = 0.5_wp*(tupper + max(tmin, tbase, 0.0_wp))
    gdd = dim(tmean, tbase)
    ! integer calendar arithmetic
    iday = int(day)
    week = iday/7 + 1
    ihour = nint(24.0_wp*(day - floor(day)))
    nhalf = ceiling(real(nlayers, wp)/2.0_wp)
    frac = day - real(iday, wp)
    stress = max(abs(tmax - 25.0_wp)/10.0_wp, 0.1_wp, 0.05_wp*frac)
    stress = stress*real(week, wp)/real(nhalf*10, wp) + dble(ihour)*1.0e-3_wp &
             + 1.0e-3_wp*min(dble(tcap), 40.0_wp, tmax + 20.0_wp, 45.0_wp)
    phase = mod(day, period)/period
    phase = -sign(phase, tmin - tmax)
  end subroutine crop_growth
end module crop_mod
