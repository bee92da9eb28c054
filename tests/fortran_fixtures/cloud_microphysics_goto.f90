! Warm-cloud microphysics of one column, written in the legacy style of
! many physics packages: a search for the cloud top that jumps out of its
! labelled DO loop, a saturation adjustment whose Newton iteration is a
! backward GO TO loop, and an autoconversion over substeps whose inner
! loop skips dry levels (a jump to the terminal statement) and leaves
! both loops once the column has rained out its quota RMAX.
! adfort: routine=warm_cloud dep=t,qv,qc,rain indep=t,qv,qc
! adfort: init nlev=16 nsub=4 rmax=4.0d-4 t=275:290 qv=0.006:0.009 qc=0.0003:0.0009 p=70000:95000
! adfort: bench nlev=20000 nsub=4
subroutine warm_cloud(nlev, nsub, rmax, p, t, qv, qc, rain)
  implicit none
  integer, intent(in) :: nlev, nsub
  real(8), intent(in) :: rmax, p(nlev)
  real(8), intent(inout) :: t(nlev), qv(nlev), qc(nlev)
  real(8), intent(out) :: rain
  real(8), parameter :: lv = 2.501d6, cp = 1004.64d0, eps = 0.622d0
  real(8), parameter :: qcrit = 2.0d-4, rate = 0.15d0, qtiny = 1.0d-12
  real(8) :: es, qs, dqs, dt, auto, gamma
  integer :: k, ktop, j, iter

  rain = 0.0d0
  ! cloud top: the highest level holding cloud water
  do 10 k = nlev, 1, -1
    if (qc(k) > qtiny) go to 20
10 continue
  return
20 ktop = k

  ! saturation adjustment, three Newton steps on the temperature
  do 100 k = 1, ktop
    iter = 0
30  es = 610.78d0*exp(17.27d0*(t(k) - 273.15d0)/(t(k) - 35.86d0))
    qs = eps*es/p(k)
    if (qc(k) <= 0.0d0 .and. qv(k) <= qs) go to 100
    dqs = qs*17.27d0*(273.15d0 - 35.86d0)/(t(k) - 35.86d0)**2
    gamma = lv/cp
    dt = gamma*(qv(k) - qs)/(1.0d0 + gamma*dqs)
    ! evaporation is limited by the cloud water there is
    if (-dt/gamma >= qc(k)) go to 40
    t(k) = t(k) + dt
    qv(k) = qv(k) - dt/gamma
    qc(k) = qc(k) + dt/gamma
    iter = iter + 1
    if (iter < 3) go to 30
    go to 100
    ! all the cloud water evaporates
40  t(k) = t(k) - qc(k)*gamma
    qv(k) = qv(k) + qc(k)
    qc(k) = 0.0d0
100 continue

  ! autoconversion in substeps; dry levels are skipped
  do 200 j = 1, nsub
    do 150 k = 1, ktop
      if (qc(k) <= qcrit) go to 150
      auto = rate/nsub*(qc(k) - qcrit)
      qc(k) = qc(k) - auto
      rain = rain + auto
      if (rain > rmax) go to 300
150 continue
200 continue
  return
! quota reached: the rest of the column keeps its cloud water
300 continue
end subroutine warm_cloud
