! x = (s%t, s%kappa, dt), y = (cost)
module glue
  use tracer_calls_mod
  use tracer_calls_mod_ad, only: run_rev, tracer_state_adj
  implicit none
contains
  subroutine glue_sizes(nx, ny)
    integer, intent(out) :: nx, ny
    nx = 6
    ny = 1
  end subroutine glue_sizes

  subroutine glue_base(x)
    real(dp), intent(out) :: x(:)
    x = [1.2_dp, 1.0_dp, 0.8_dp, 0.7_dp, 0.3_dp, 0.2_dp]
  end subroutine glue_base

  subroutine make(x, s, dt)
    real(dp), intent(in) :: x(:)
    type(tracer_state), intent(out) :: s
    real(dp), intent(out) :: dt
    s%t = x(1:4)
    s%kappa = x(5)
    dt = x(6)
  end subroutine make

  subroutine glue_eval(x, y)
    real(dp), intent(in) :: x(:)
    real(dp), intent(out) :: y(:)
    type(tracer_state) :: s
    real(dp) :: dt, cost
    call make(x, s, dt)
    call run(s, dt, cost)
    y = [cost]
  end subroutine glue_eval

  subroutine glue_rev(x, xpre, ybar, xbar, y)
    real(dp), intent(in) :: x(:), xpre(:), ybar(:)
    real(dp), intent(out) :: xbar(:), y(:)
    type(tracer_state) :: s
    type(tracer_state_adj) :: s_adj
    real(dp) :: dt, dt_adj, cost, cost_adj
    call make(x, s, dt)
    s_adj%t = xpre(1:4)
    s_adj%kappa = xpre(5)
    dt_adj = xpre(6)
    cost_adj = ybar(1)
    call run_rev(s, s_adj, dt, dt_adj, cost, cost_adj)
    xbar = [s_adj%t, s_adj%kappa, dt_adj] - xpre
    y = [cost]
  end subroutine glue_rev
end module glue
