! A model state held in a derived type (fields as allocatable components),
! stepped by routines taking the whole state; a parameter block in
! another type.  Cost: misfit of the final temperature.
! adfort: routine=state_run dep=cost indep=t0,kdiff
! adfort: init n=8 nt=3 kdiff=0.1:0.3 t0=270:290 tobs=270:290
! adfort: bench n=5000 nt=100
module derived_state
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  type :: state_t
    real(wp), allocatable :: t(:), q(:)
  end type state_t
  type :: params_t
    real(wp) :: kdiff, relax, dt
  end type params_t
contains
  subroutine step(n, s, p)
    integer, intent(in) :: n
    type(state_t), intent(inout) :: s
    type(params_t), intent(in) :: p
    real(wp) :: tn(n)
    integer :: i
    do i = 2, n - 1
      tn(i) = s%t(i) + p%dt*p%kdiff*(s%t(i+1) - 2.0_wp*s%t(i) + s%t(i-1)) &
              - p%dt*p%relax*s%q(i)*s%t(i)
    end do
    tn(1) = s%t(1)
    tn(n) = s%t(n)
    do i = 1, n
      s%q(i) = s%q(i) + p%dt*(0.01_wp*tn(i) - s%q(i))
    end do
    s%t = tn
  end subroutine step

  subroutine state_run(n, nt, kdiff, t0, tobs, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: kdiff, t0(n), tobs(n)
    real(wp), intent(out) :: cost
    type(state_t) :: s
    type(params_t) :: p
    integer :: it
    allocate(s%t(n), s%q(n))
    s%t = t0
    s%q = 1.0e-3_wp
    p%kdiff = kdiff
    p%relax = 0.05_wp
    p%dt = 0.5_wp
    do it = 1, nt
      call step(n, s, p)
    end do
    cost = sum((s%t - tobs)**2)
    deallocate(s%t, s%q)
  end subroutine state_run
end module derived_state
