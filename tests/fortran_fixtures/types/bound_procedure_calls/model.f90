module tracer_calls_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  type :: tracer_state
    real(dp) :: t(4)
    real(dp) :: kappa
  contains
    procedure, nopass :: limiter
    procedure :: relax => state_relax
    procedure :: energy
    procedure, pass(self) :: nudge
  end type tracer_state
contains
  pure real(dp) function limiter(r)
    real(dp), intent(in) :: r
    limiter = r/(1.0_dp + abs(r))
  end function limiter
  subroutine state_relax(self, dt)
    class(tracer_state), intent(inout) :: self
    real(dp), intent(in) :: dt
    integer :: k
    do k = 2, 4
      self%t(k) = self%t(k) + dt*self%kappa*self%limiter(self%t(k - 1) - self%t(k))
    end do
  end subroutine state_relax
  real(dp) function energy(self)
    class(tracer_state), intent(in) :: self
    energy = sum(self%t**2) + self%kappa*self%t(4)
  end function energy
  subroutine nudge(weight, self)
    real(dp), intent(in) :: weight
    class(tracer_state), intent(inout) :: self
    self%t(1) = (1.0_dp - weight)*self%t(1) + weight*self%t(2)
  end subroutine nudge
  subroutine run(s, dt, cost)
    type(tracer_state), intent(inout) :: s
    real(dp), intent(in) :: dt
    real(dp), intent(out) :: cost
    integer :: n
    do n = 1, 3
      call s%relax(dt)
      call s%nudge(0.1_dp*dt)
    end do
    cost = s%energy() + s%limiter(s%kappa)
  end subroutine run
end module tracer_calls_mod
