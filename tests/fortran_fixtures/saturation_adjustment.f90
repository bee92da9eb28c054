! Saturation adjustment of a column: in each supersaturated layer, find
! the temperature T at which the vapour left equals saturation,
!   T - t0 = L/cp*(q0 - qs(T)),
! by Newton iteration to a tolerance with an iteration cap (DO WHILE
! nested in a DO loop over levels; the trip count is not known in advance).
! adfort: routine=saturation_adjust dep=t,q,iters indep=t,q
! adfort: init nlev=20 t=260:300 q=0.004:0.03 p=70000:100000
! adfort: bench nlev=50000
module satadj_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: lv = 2.501e6_wp, cp = 1004.64_wp, rv = 461.5_wp
  real(wp), parameter :: es0 = 610.78_wp, t0 = 273.15_wp
  real(wp), parameter :: tol = 1.0e-10_wp
  integer, parameter :: maxit = 30
contains
  subroutine saturation_adjust(nlev, p, t, q, iters)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: p(nlev)
    real(wp), intent(inout) :: t(nlev), q(nlev)
    real(wp), intent(out) :: iters          ! mean Newton iterations (passive)
    real(wp) :: tt, qsat, dqsdt, f, fprime, dt, tstart, qstart
    integer :: k, it, total
    total = 0
    do k = 1, nlev
      tstart = t(k)
      qstart = q(k)
      qsat = 0.622_wp*es0*exp(lv/rv*(1.0_wp/t0 - 1.0_wp/tstart))/p(k)
      if (qstart > qsat) then
        tt = tstart
        dt = 1.0_wp
        it = 0
        do while (abs(dt) > tol .and. it < maxit)
          qsat = 0.622_wp*es0*exp(lv/rv*(1.0_wp/t0 - 1.0_wp/tt))/p(k)
          dqsdt = qsat*lv/(rv*tt**2)
          f = tt - tstart - lv/cp*(qstart - qsat)
          fprime = 1.0_wp + lv/cp*dqsdt
          dt = -f/fprime
          tt = tt + dt
          it = it + 1
        end do
        total = total + it
        t(k) = tt
        q(k) = qstart - cp/lv*(tt - tstart)
      end if
    end do
    iters = real(total, wp)/real(nlev, wp)
  end subroutine saturation_adjust
end module satadj_mod
