! Heat budget of a rod relaxed by diffusion, written with internal
! procedures as model code often is: an internal subroutine stepping the
! host's (active) temperature in place and updating a host local, an
! internal function used inside an expression, which itself calls a
! sibling internal function; all of them read host variables through
! host association.
module heat_budget_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains

  subroutine heat_budget(n, nt, dt, temp, flux, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: dt
    real(wp), intent(inout) :: temp(n)
    real(wp), intent(in) :: flux(n)
    real(wp), intent(out) :: cost
    real(wp) :: kappa, tmean
    integer :: it
    kappa = 0.1_wp
    cost = 0.0_wp
    do it = 1, nt
      call diffuse()
      cost = cost + penalty(temp(1)) * dt
    end do
    tmean = sum(temp) / n
    cost = cost + tmean**2
  contains

    subroutine diffuse()
      integer :: k
      real(wp) :: tnew(n)
      tnew(1) = temp(1) + dt * (kappa * (temp(2) - temp(1)) + flux(1))
      do k = 2, n - 1
        tnew(k) = temp(k) + dt * (kappa * (temp(k+1) - 2.0_wp * temp(k) + temp(k-1)) &
                  + flux(k))
      end do
      tnew(n) = temp(n) + dt * (kappa * (temp(n-1) - temp(n)) + flux(n))
      temp = tnew
      ! the diffusivity grows with the temperature contrast
      kappa = kappa * (1.0_wp + 0.01_wp * tanh(temp(n) - temp(1)))
    end subroutine diffuse

    real(wp) function penalty(t)
      real(wp), intent(in) :: t
      penalty = exp(-t / relax_scale()) * kappa
    end function penalty

    function relax_scale() result(s)
      real(wp) :: s
      s = 10.0_wp + 0.1_wp * flux(n)
    end function relax_scale

  end subroutine heat_budget

end module heat_budget_mod
