! Wind stress magnitude from a function whose air density and drag
! coefficient are optional (defaults used when left out), called with
! keyword arguments in another order and with trailing optional
! arguments omitted: the function's result then follows fewer actuals
! than the function has dummies.
! adfort: routine=stress_row dep=tau indep=u,v,rho,cd
! adfort: init n=8 u=-10:10 v=-10:10 rho=1.15:1.3 cd=1.0e-3:1.6e-3
module wind_stress_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  real(wp) function stress(u, v, rho, cd)
    real(wp), intent(in) :: u, v
    real(wp), intent(in), optional :: rho, cd
    real(wp) :: speed, r, c
    r = 1.225_wp
    if (present(rho)) r = rho
    ! Large and Pond style neutral drag: grows with the wind speed.
    speed = sqrt(u*u + v*v + 0.25_wp)
    c = 1.0e-3_wp*(0.61_wp + 0.063_wp*speed)
    if (present(cd)) c = cd
    stress = r*c*speed*speed
  end function stress

  subroutine stress_row(n, u, v, rho, cd, tau)
    integer, intent(in) :: n
    real(wp), intent(in) :: u(n), v(n), rho(n), cd(n)
    real(wp), intent(out) :: tau(n)
    integer :: i
    do i = 1, n
      select case (mod(i, 3))
      case (0)
        tau(i) = stress(v=v(i), u=u(i))
      case (1)
        tau(i) = stress(u(i), v(i), rho(i))
      case default
        tau(i) = 0.5_wp*(stress(u(i), v(i), rho(i), cd(i)) + stress(v=v(i), u=u(i), cd=cd(i), rho=rho(i)))
      end select
    end do
  end subroutine stress_row
end module wind_stress_mod
