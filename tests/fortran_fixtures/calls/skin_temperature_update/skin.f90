! Surface skin temperature as module state, stepped by a function that
! reads the state it is about to replace: t_skin = skin_update(t_air).  The
! generated motions must not pass t_skin itself as the function's result
! argument (the function reads it by use association after setting its
! result), and likewise q = relax(q, ...) must not pass q twice.
module t_skin_state
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp) :: t_skin = 273.15_wp
  real(wp), parameter :: sigma = 5.67e-8_wp, heat_cap = 2.0e5_wp
contains
  function skin_update(t_air, dt) result(t_new)
    real(wp), intent(in) :: t_air, dt
    real(wp) :: t_new
    real(wp) :: net
    t_new = 0.0_wp                          ! set before t_skin is read
    net = 15.0_wp*(t_air - t_skin) - 0.97_wp*sigma*(t_skin**4 - t_air**4)
    t_new = t_new + t_skin + dt*net/heat_cap
  end function skin_update

  function relax(v, target, rate) result(w)
    real(wp), intent(in) :: v, target, rate
    real(wp) :: w
    w = 0.0_wp
    w = w + v + rate*(target - v)*(1.0_wp + 50.0_wp*v)
  end function relax

  subroutine surface_step(nstep, t_air, q, flux)
    integer, intent(in) :: nstep
    real(wp), intent(in) :: t_air(nstep)
    real(wp), intent(inout) :: q
    real(wp), intent(out) :: flux
    integer :: n
    flux = 0.0_wp
    do n = 1, nstep
      t_skin = skin_update(t_air(n), 600.0_wp)
      q = relax(q, 0.004_wp*exp(0.06_wp*(t_skin - 273.15_wp)), 0.1_wp)
      flux = flux + 1.2_wp*1004.0_wp*1.0e-3_wp*(t_skin - t_air(n)) + 2.5e3_wp*q
    end do
  end subroutine surface_step
end module t_skin_state
