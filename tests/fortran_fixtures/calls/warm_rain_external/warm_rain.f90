! Warm-rain (Kessler-type) microphysics of a column.  The process rates
! are routines and functions of module microphysics; the column physics
! and the forecast loop are external (non-module) routines, as in many
! older atmospheric models:
!   rain_forecast (external) -> column_micro (external)
!     -> autoconversion, accretion (module subroutines)
!     -> evaporation, qsat (module functions)
module microphysics
  implicit none
  integer, parameter :: mp = kind(1.0d0)
  real(mp), parameter :: qc0 = 5.0e-4_mp       ! autoconversion threshold
  real(mp), parameter :: k_acc = 2.2_mp
contains
  subroutine autoconversion(qc, qr, dt, k_auto)
    real(mp), intent(inout) :: qc, qr
    real(mp), intent(in) :: dt, k_auto
    real(mp) :: rate
    rate = k_auto * qc**2 / (qc + qc0)
    qc = qc - dt * rate
    qr = qr + dt * rate
  end subroutine autoconversion

  subroutine accretion(qc, qr, dt)
    real(mp), intent(inout) :: qc, qr
    real(mp), intent(in) :: dt
    real(mp) :: rate
    rate = k_acc * qc * qr**0.875_mp
    qc = qc - dt * rate
    qr = qr + dt * rate
  end subroutine accretion

  real(mp) function qsat(t, p)
    real(mp), intent(in) :: t, p
    qsat = 380.0_mp / p * exp(17.27_mp * (t - 273.15_mp) / (t - 35.86_mp))
  end function qsat

  real(mp) function evaporation(qr, qv, t, p)
    real(mp), intent(in) :: qr, qv, t, p
    evaporation = 5.0e-3_mp * (qsat(t, p) - qv) / qsat(t, p) * sqrt(qr)
  end function evaporation
end module microphysics

subroutine column_micro(nz, dt, dz, p, t, qv, qc, qr, k_auto, rain_rate)
  use microphysics, only: mp, autoconversion, accretion, evaporation
  implicit none
  integer, intent(in) :: nz
  real(mp), intent(in) :: dt, dz, p(nz), t(nz), k_auto
  real(mp), intent(inout) :: qv(nz), qc(nz), qr(nz)
  real(mp), intent(out) :: rain_rate
  real(mp), parameter :: v_fall = 5.0_mp
  real(mp) :: flux(nz + 1), ev
  integer :: k
  do k = 1, nz
    call autoconversion(qc(k), qr(k), dt, k_auto)
    call accretion(qc(k), qr(k), dt)
    ev = dt * evaporation(qr(k), qv(k), t(k), p(k))
    qr(k) = qr(k) - ev * qr(k)
    qv(k) = qv(k) + ev * qr(k)
  end do
  ! sedimentation of rain, k = 1 at the ground
  do k = 1, nz
    flux(k) = v_fall * qr(k)
  end do
  flux(nz + 1) = 0.0_mp
  do k = 1, nz
    qr(k) = qr(k) + dt * (flux(k + 1) - flux(k)) / dz
  end do
  rain_rate = flux(1)
end subroutine column_micro

subroutine rain_forecast(nz, nt, dt, dz, p, t, qv, qc, qr, k_auto, precip)
  use microphysics, only: mp
  implicit none
  integer, intent(in) :: nz, nt
  real(mp), intent(in) :: dt, dz, p(nz), t(nz), k_auto
  real(mp), intent(inout) :: qv(nz), qc(nz), qr(nz)
  real(mp), intent(out) :: precip
  real(mp) :: rate
  integer :: step
  precip = 0.0_mp
  do step = 1, nt
    call column_micro(nz, dt, dz, p, t, qv, qc, qr, k_auto, rate)
    precip = precip + 1000.0_mp * dt * rate     ! mm of rain
  end do
end subroutine rain_forecast
