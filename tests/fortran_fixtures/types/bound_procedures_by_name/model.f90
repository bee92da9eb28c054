module tracer_state_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  type :: tracer_state
    real(dp) :: t(4)
    real(dp) :: kappa
  contains
    procedure :: relax => state_relax
    procedure :: energy
  end type tracer_state
contains
  subroutine state_relax(self, dt)
    class(tracer_state), intent(inout) :: self
    real(dp), intent(in) :: dt
    integer :: k
    do k = 2, 4
      self%t(k) = self%t(k) + dt*self%kappa*(self%t(k - 1) - self%t(k))**2
    end do
  end subroutine state_relax
  real(dp) function energy(self)
    class(tracer_state), intent(in) :: self
    energy = sum(self%t**2) + self%kappa*self%t(4)
  end function energy
  subroutine run(s, dt, cost)
    type(tracer_state), intent(inout) :: s
    real(dp), intent(in) :: dt
    real(dp), intent(out) :: cost
    integer :: n
    do n = 1, 3
      call state_relax(s, dt)
    end do
    cost = energy(s)
  end subroutine run
end module tracer_state_mod
