! Smooth convective adjustment: where the lapse rate between two layers
! exceeds a critical value, heat is moved upward at a rate 1/tau (a
! softplus keeps it differentiable); moisture condenses smoothly above a
! Clausius-Clapeyron saturation value, warming the layer.
module convection
  implicit none
  integer, parameter :: cp = kind(1.0d0)
  real(cp), parameter :: gamma_crit = 6.5_cp   ! K per layer
  real(cp), parameter :: width = 0.5_cp        ! softplus width (K)
contains
  real(cp) function softplus(x, s)
    real(cp), intent(in) :: x, s
    softplus = s * log(1.0_cp + exp(x / s))
  end function softplus

  real(cp) function qsat(t)
    real(cp), intent(in) :: t
    qsat = 3.8e-3_cp * exp(17.27_cp * (t - 273.15_cp) / (t - 35.85_cp))
  end function qsat

  subroutine convective_adjust(nz, t, q, dt, tau)
    integer, intent(in) :: nz
    real(cp), intent(inout) :: t(nz), q(nz)
    real(cp), intent(in) :: dt, tau
    real(cp) :: excess, dq
    integer :: k
    do k = 2, nz
      excess = softplus(t(k - 1) - t(k) - gamma_crit, width)
      t(k - 1) = t(k - 1) - 0.5_cp * dt / tau * excess
      t(k) = t(k) + 0.5_cp * dt / tau * excess
    end do
    do k = 1, nz
      dq = 1.0e-3_cp * softplus((q(k) - qsat(t(k))) / 1.0e-3_cp, 0.2_cp)
      q(k) = q(k) - dt / tau * dq
      t(k) = t(k) + dt / tau * 2500.0_cp * dq
    end do
  end subroutine convective_adjust
end module convection
