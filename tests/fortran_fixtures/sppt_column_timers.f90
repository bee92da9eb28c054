! Stochastically perturbed physics tendencies (SPPT style) on one column:
! the seed is put from the member number, a vertically correlated pattern
! is drawn with RANDOM_NUMBER and multiplies the tendencies; the column
! routine and its relaxation callee are timed with CPU_TIME, SYSTEM_CLOCK
! and DATE_AND_TIME into module counters (instrumentation as models carry
! it), and a debug print is switched on from the environment.  The random
! numbers are saved for the returning motion (they cannot be drawn again);
! the timers run again where a callee is reversed joint.
! adfort: routine=sppt_column dep=t indep=t,tend
! adfort: init nlev=12 member=7 amp=0.3 dt=60.0 tend=-0.01:0.01 t=250:300
module sppt_timed
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real, save :: cpu_seconds = 0.0
  integer, save :: clock_ticks = 0, ncalls = 0
  character(len=8), save :: last_date = ' '
contains
  subroutine sppt_column(nlev, member, amp, dt, tend, t)
    integer, intent(in) :: nlev, member
    real(wp), intent(in) :: amp, dt
    real(wp), intent(in) :: tend(nlev)
    real(wp), intent(inout) :: t(nlev)
    real(wp) :: r(nlev), pattern(nlev)
    real :: t0, t1
    integer :: k, nseed, seed(64), c0, c1, rate
    call cpu_time(t0)
    call system_clock(c0, rate)
    call random_seed(size=nseed)
    nseed = min(nseed, 64)
    do k = 1, nseed
      seed(k) = 1000003*member + 7919*k
    end do
    call random_seed(put=seed(1:nseed))
    call random_number(r)
    ! an AR(1) pattern in the vertical, in [-1, 1]
    pattern(1) = 2.0_wp*r(1) - 1.0_wp
    do k = 2, nlev
      pattern(k) = 0.8_wp*pattern(k - 1) + 0.2_wp*(2.0_wp*r(k) - 1.0_wp)
    end do
    do k = 1, nlev
      t(k) = t(k) + dt*tend(k)*(1.0_wp + amp*pattern(k))*(1.0_wp + 1.0e-3_wp*(t(k) - 273.15_wp))
    end do
    call relax_column(nlev, dt, t)
    call system_clock(c1)
    call cpu_time(t1)
    cpu_seconds = cpu_seconds + (t1 - t0)
    clock_ticks = clock_ticks + (c1 - c0)
    ncalls = ncalls + 1
  end subroutine sppt_column

  subroutine relax_column(nlev, dt, t)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: dt
    real(wp), intent(inout) :: t(nlev)
    real(wp) :: tmean, w
    real :: t0, t1
    integer :: k, values(8), nchar, stat
    character(len=10) :: clock
    character(len=16) :: flag
    call cpu_time(t0)
    call date_and_time(last_date, clock, values=values)
    call get_environment_variable('SPPT_DEBUG', flag, nchar, stat)
    tmean = sum(t)/nlev
    do k = 1, nlev
      w = dt/(3600.0_wp + abs(t(k) - tmean)*60.0_wp)
      t(k) = t(k) + w*(tmean - t(k))
    end do
    if (stat == 0 .and. flag(1:1) == '1') print *, 'relax_column', values(5:7), tmean
    call cpu_time(t1)
    cpu_seconds = cpu_seconds + (t1 - t0)
  end subroutine relax_column
end module sppt_timed
