! x = (s%t, s%tsfc, rate), y = (cost)
module glue
  use column_state_mod
  use column_state_mod_ad, only: column_step_rev, column_state_adj
  implicit none
contains
  subroutine glue_sizes(nx, ny)
    integer, intent(out) :: nx, ny
    nx = 7
    ny = 1
  end subroutine glue_sizes

  subroutine glue_base(x)
    real(dp), intent(out) :: x(:)
    x = [1.2_dp, 1.0_dp, 0.8_dp, 0.7_dp, 0.65_dp, 1.4_dp, 0.3_dp]
  end subroutine glue_base

  subroutine make(x, s, rate)
    real(dp), intent(in) :: x(:)
    type(column_state), intent(out) :: s
    real(dp), intent(out) :: rate
    s%t = x(1:5)
    s%tsfc = x(6)
    s%nlev = 5
    rate = x(7)
  end subroutine make

  subroutine glue_eval(x, y)
    real(dp), intent(in) :: x(:)
    real(dp), intent(out) :: y(:)
    type(column_state) :: s
    real(dp) :: rate, cost
    call make(x, s, rate)
    call column_step(s, rate, cost)
    y = [cost]
  end subroutine glue_eval

  subroutine glue_rev(x, xpre, ybar, xbar, y)
    real(dp), intent(in) :: x(:), xpre(:), ybar(:)
    real(dp), intent(out) :: xbar(:), y(:)
    type(column_state) :: s
    type(column_state_adj) :: s_adj
    real(dp) :: rate, rate_adj, cost, cost_adj
    call make(x, s, rate)
    ! s is independent only: its adjoint is incremented (from the presets);
    ! cost is the one dependent.
    s_adj%t = xpre(1:5)
    s_adj%tsfc = xpre(6)
    rate_adj = xpre(7)
    cost_adj = ybar(1)
    call column_step_rev(s, s_adj, rate, rate_adj, cost, cost_adj)
    xbar = [s_adj%t, s_adj%tsfc, rate_adj] - xpre
    y = [cost]
  end subroutine glue_rev
end module glue
