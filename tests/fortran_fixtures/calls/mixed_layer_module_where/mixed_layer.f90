! A one-column ocean mixed layer whose temperature profile lives in a
! module.  The surface flux heats the top level; a crude convective
! relaxation pulls every level towards the column mean, faster where a
! level is warmer than the mean (WHERE on the module array, whose shape
! the relaxing routine only knows through the USE), and a soft cap damps
! warming beyond a threshold.
module column_state
  implicit none
  integer, parameter :: nz = 12
  real(8) :: temp(nz), dz(nz)
end module column_state

module mixed_layer
  use column_state
  implicit none
  real(8), parameter :: rho_cp = 1025.0d0*3990.0d0
contains
  subroutine heat_surface(qnet, dt)
    real(8), intent(in) :: qnet, dt
    temp(1) = temp(1) + qnet*dt/(rho_cp*dz(1))
    call soft_cap(16.0d0)
  end subroutine heat_surface

  subroutine relax_to_mean(rate)
    real(8), intent(in) :: rate
    real(8) :: tmean
    tmean = sum(temp*dz)/sum(dz)
    where (temp > tmean)
      temp = temp - rate*(temp - tmean)
    elsewhere
      temp = temp + 0.5d0*rate*(tmean - temp)
    end where
  end subroutine relax_to_mean

  subroutine column_step(qnet, rate, sst, heat_content)
    real(8), intent(in) :: qnet, rate
    real(8), intent(out) :: sst, heat_content
    integer :: it
    do it = 1, 3
      call heat_surface(qnet, 3600.0d0)
      call relax_to_mean(rate)
    end do
    sst = temp(1)
    heat_content = rho_cp*sum(temp*dz)
  end subroutine column_step
end module mixed_layer

! An F77-style external routine using the module: warming beyond tcap is
! damped in levels thicker than 6 m (sections and whole module arrays).
subroutine soft_cap(tcap)
  use column_state
  implicit none
  real(8), intent(in) :: tcap
  where (temp(:) > tcap .and. dz > 6.0d0) temp(:) = tcap + 0.1d0*(temp(:) - tcap)
end subroutine soft_cap
