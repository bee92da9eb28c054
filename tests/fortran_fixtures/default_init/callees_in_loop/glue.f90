! x = (x(1:3), b%s, b%q, o%a%s, o%a%q, o%w, o%v, bs%s, bs%q, y): all independent
! y = (y, b%s, b%q, o%a%s, o%a%q, o%w, o%v, bs%s, bs%q): all dependent
module glue
  use acc_types
  use acc_work
  use acc_types_ad, only: acc_t_adj, outer_t_adj
  use acc_work_ad, only: top_rev
  implicit none
  integer, parameter :: n = 3
contains
  subroutine glue_sizes(nx, ny)
    integer, intent(out) :: nx, ny
    nx = 16
    ny = 13
  end subroutine glue_sizes

  subroutine glue_base(x)
    real(wp), intent(out) :: x(:)
    x = [0.7_wp, 1.1_wp, 0.9_wp, 3.0_wp, 2.0_wp, 1.5_wp, 0.4_wp, 2.5_wp, 0.8_wp, &
         1.3_wp, 0.6_wp, 0.9_wp, 0.2_wp, 0.3_wp, 0.4_wp, 0.25_wp]
  end subroutine glue_base

  subroutine make(x, xs, b, o, bs, y)
    real(wp), intent(in) :: x(:)
    real(wp), intent(out) :: xs(n), y
    type(acc_t), intent(out) :: b, bs(n)
    type(outer_t), intent(out) :: o
    xs = x(1:3)
    b%s = x(4); b%q = x(5)
    o%a%s = x(6); o%a%q = x(7); o%w = x(8); o%v = x(9)
    bs%s = x(10:12); bs%q = x(13:15)
    y = x(16)
  end subroutine make

  function flat(b, o, bs, y) result(v)
    type(acc_t), intent(in) :: b, bs(n)
    type(outer_t), intent(in) :: o
    real(wp), intent(in) :: y
    real(wp) :: v(13)
    v = [y, b%s, b%q, o%a%s, o%a%q, o%w, o%v, bs%s, bs%q]
  end function flat

  subroutine glue_eval(x, y)
    real(wp), intent(in) :: x(:)
    real(wp), intent(out) :: y(:)
    real(wp) :: xs(n), yy
    type(acc_t) :: b, bs(n)
    type(outer_t) :: o
    call make(x, xs, b, o, bs, yy)
    call top(n, xs, b, o, bs, yy)
    y = flat(b, o, bs, yy)
  end subroutine glue_eval

  subroutine glue_rev(x, xpre, ybar, xbar, y)
    real(wp), intent(in) :: x(:), xpre(:), ybar(:)
    real(wp), intent(out) :: xbar(:), y(:)
    real(wp) :: xs(n), yy, xs_adj(n), y_adj
    type(acc_t) :: b, bs(n)
    type(outer_t) :: o
    type(acc_t_adj) :: b_adj, bs_adj(n)
    type(outer_t_adj) :: o_adj
    call make(x, xs, b, o, bs, yy)
    ! x is independent only: its adjoint is incremented from the presets;
    ! the others are dependents too: they carry their seeds in.
    xs_adj = xpre(1:3)
    y_adj = ybar(1)
    b_adj%s = ybar(2); b_adj%q = ybar(3)
    o_adj%a%s = ybar(4); o_adj%a%q = ybar(5); o_adj%w = ybar(6); o_adj%v = ybar(7)
    bs_adj%s = ybar(8:10); bs_adj%q = ybar(11:13)
    call top_rev(n, xs, xs_adj, b, b_adj, o, o_adj, bs, bs_adj, yy, y_adj)
    xbar = [xs_adj - xpre(1:3), b_adj%s, b_adj%q, o_adj%a%s, o_adj%a%q, o_adj%w, o_adj%v, &
            bs_adj%s, bs_adj%q, y_adj]
    y = flat(b, o, bs, yy)
  end subroutine glue_rev
end module glue
