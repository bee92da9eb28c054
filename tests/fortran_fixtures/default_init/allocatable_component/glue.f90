! x = (x(1:3), s%t(1:3), s%s), y = (y)
module glue
  use st_mod
  use st_mod_ad, only: top_rev, st_adj
  implicit none
  integer, parameter :: n = 3
contains
  subroutine glue_sizes(nx, ny)
    integer, intent(out) :: nx, ny
    nx = 7
    ny = 1
  end subroutine glue_sizes
  subroutine glue_base(x)
    real(8), intent(out) :: x(:)
    x = [0.3d0, 0.7d0, 1.1d0, 5d0, 4d0, 3d0, 7d0]
  end subroutine glue_base
  subroutine make(x, xs, s)
    real(8), intent(in) :: x(:)
    real(8), intent(out) :: xs(n)
    type(st), intent(out) :: s
    xs = x(1:3)
    s%t = x(4:6)
    s%s = x(7)
  end subroutine make
  subroutine glue_eval(x, y)
    real(8), intent(in) :: x(:)
    real(8), intent(out) :: y(:)
    real(8) :: xs(n), yy
    type(st) :: s
    call make(x, xs, s)
    call top(n, xs, s, yy)
    y = [yy]
  end subroutine glue_eval
  subroutine glue_rev(x, xpre, ybar, xbar, y)
    real(8), intent(in) :: x(:), xpre(:), ybar(:)
    real(8), intent(out) :: xbar(:), y(:)
    real(8) :: xs(n), xs_adj(n), yy, y_adj
    type(st) :: s
    type(st_adj) :: s_adj
    call make(x, xs, s)
    allocate(s_adj%t(n))
    xs_adj = xpre(1:3)
    s_adj%t = xpre(4:6)
    s_adj%s = xpre(7)
    y_adj = ybar(1)
    call top_rev(n, xs, xs_adj, s, s_adj, yy, y_adj)
    xbar = [xs_adj, s_adj%t, s_adj%s] - xpre
    y = [yy]
  end subroutine glue_rev
end module glue
