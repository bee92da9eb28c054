! Parameter fit by steepest descent with a reverse-communication solver,
! in the style of L-BFGS-B: the solver asks for the cost and gradient by
! setting its character argument TASK to 'FG...', and reports each new
! iterate with 'NEW_X', convergence with 'CONVERGENCE: ...'.  The driver
! answers the requests by evaluating a smoothed least-squares misfit of the
! state x to observations shaped by the parameters p.  The sensitivity of
! the fitted state and of the final cost to the parameters (and to the
! first guess) goes through every branch the task strings select.
! adfort: routine=fit_state dep=x,cost indep=p,x
! adfort: init n=5 niter=6 p=0.5:1.5 x=0.2:0.8 status='..............................'
module descent_solver
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: gtol = 1.0e-10_dp

contains

  ! One move of the solver.  task in: what the caller has just done;
  ! task out: what the solver wants next.
  subroutine descent_step(task, n, x, f, g, alpha, iter)
    character(len=*), intent(inout) :: task
    integer, intent(in) :: n
    real(dp), intent(inout) :: x(n)
    real(dp), intent(in) :: f, g(n)
    real(dp), intent(inout) :: alpha
    integer, intent(inout) :: iter
    character(len=40) :: msg
    real(dp) :: gnorm
    integer :: i

    if (task(1:5) .eq. 'START') then
      iter = 0
      alpha = 0.15_dp
      task = 'FG_START'
    else if (task(1:2) == 'FG') then
      ! f and g are known at x: step downhill.
      gnorm = sqrt(sum(g**2))
      if (gnorm < gtol) then
        task = 'CONVERGENCE: NORM_OF_PROJECTED_GRADIENT_<=_PGTOL'
      else
        do i = 1, n
          x(i) = x(i) - alpha*g(i)
        end do
        ! A cost that keeps growing means too long a step.
        if (f > 1.0e3_dp) alpha = 0.5_dp*alpha
        iter = iter + 1
        task = 'NEW_X'
      end if
    else if (index(task, 'NEW_X') > 0) then
      task = 'FG_' // 'LNSRCH'
    else
      write(msg, '(a,i4,2a)') 'descent_step: iteration ', iter, ' bad task ', &
           trim(adjustl(task))
      print *, trim(msg)
      task = 'ERROR: ' // task(1:len_trim(task) - 7)
    end if
  end subroutine descent_step

  ! Smoothed misfit of x to observations p(i)*(1 + 0.1 i) and its gradient.
  subroutine misfit(n, p, x, f, g)
    integer, intent(in) :: n
    real(dp), intent(in) :: p(n), x(n)
    real(dp), intent(out) :: f, g(n)
    real(dp) :: obs, d
    integer :: i
    f = 0.0_dp
    do i = 1, n
      obs = p(i)*(1.0_dp + 0.1_dp*i)
      d = x(i) - obs
      f = f + 0.5_dp*d**2 + 0.05_dp*log(1.0_dp + x(i)**2)
      g(i) = d + 0.1_dp*x(i)/(1.0_dp + x(i)**2)
    end do
  end subroutine misfit

  subroutine fit_state(n, niter, p, x, cost, status)
    integer, intent(in) :: n, niter
    real(dp), intent(in) :: p(n)
    real(dp), intent(inout) :: x(n)
    real(dp), intent(out) :: cost
    character(len=*), intent(out) :: status
    character(len=60) :: task
    real(dp) :: g(n), alpha
    integer :: k, iter

    cost = 0.0_dp
    g = 0.0_dp
    alpha = 0.0_dp
    iter = 0
    task = 'START'
    do k = 1, 3*niter
      call descent_step(task, n, x, cost, g, alpha, iter)
      if (task(1:2) == 'FG') then
        call misfit(n, p, x, cost, g)
      else if (task(1:5) == 'NEW_X') then
        if (iter >= niter) then
          task = 'STOP: TOTAL NO. of ITERATIONS REACHED LIMIT'
          exit
        end if
      else if (task(1:4) == 'CONV' .or. task(1:5) == 'ERROR') then
        exit
      end if
    end do
    call misfit(n, p, x, cost, g)
    status = task
  end subroutine fit_state
end module descent_solver
