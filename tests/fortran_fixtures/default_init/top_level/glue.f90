! x = (x), y = (b%s, b%q)
module glue
  use acc_mod
  use acc_mod_ad, only: init_acc_rev, acc_t_adj
  implicit none
contains
  subroutine glue_sizes(nx, ny)
    integer, intent(out) :: nx, ny
    nx = 1
    ny = 2
  end subroutine glue_sizes
  subroutine glue_base(x)
    real(8), intent(out) :: x(:)
    x = [0.7d0]
  end subroutine glue_base
  subroutine glue_eval(x, y)
    real(8), intent(in) :: x(:)
    real(8), intent(out) :: y(:)
    type(acc_t) :: b
    b%s = 5d0; b%q = 3d0
    call init_acc(x(1), b)
    y = [b%s, b%q]
  end subroutine glue_eval
  subroutine glue_rev(x, xpre, ybar, xbar, y)
    real(8), intent(in) :: x(:), xpre(:), ybar(:)
    real(8), intent(out) :: xbar(:), y(:)
    type(acc_t) :: b
    type(acc_t_adj) :: b_adj
    real(8) :: x_adj
    b%s = 5d0; b%q = 3d0
    x_adj = xpre(1)
    b_adj%s = ybar(1); b_adj%q = ybar(2)
    call init_acc_rev(x(1), x_adj, b, b_adj)
    if (b_adj%s /= 0 .or. b_adj%q /= 0) stop 'b_adj not zeroed'
    xbar = [x_adj - xpre(1)]
    y = [b%s, b%q]
  end subroutine glue_rev
end module glue
