"""Adjoints known to be zero (adfort/known_zero.py): increments become
assignments and zeroings a loop overwrites go, only where that is right.
Each case is FD-checked under both schedules; the text checks say which
rewrite happened (or must not)."""

import re

import pytest

import harness

CASES = {
    # The shape of Lorenz-96's RK4 update: k_adj(i) first set by the loop.
    "first_set_by_a_loop.f90": """\
        ! adfort: routine=stage dep=y indep=x
        ! adfort: init n=7 x=-1:1
        subroutine stage(n, x, y)
          integer, intent(in) :: n
          double precision, intent(in) :: x(n)
          double precision, intent(out) :: y(n)
          double precision :: k(n), s
          integer :: i
          do i = 1, n
            k(i) = sin(x(i))
          end do
          do i = 1, n
            s = 0.5d0*k(i)
            y(i) = x(i) + s*k(i)
          end do
        end subroutine stage
        """,
    # w_adj(i-1) and w_adj(i) from one iteration: the zeroing stays.
    "neighbours.f90": """\
        ! adfort: routine=pairs dep=y indep=x
        ! adfort: init n=8 x=-1:1
        subroutine pairs(n, x, y)
          integer, intent(in) :: n
          double precision, intent(in) :: x(n)
          double precision, intent(out) :: y
          double precision :: w(n)
          integer :: i
          do i = 1, n
            w(i) = x(i)**2 + x(i)
          end do
          y = 0.0d0
          do i = 2, n
            y = y + w(i)*w(i-1)
          end do
        end subroutine pairs
        """,
    # u_adj(i) is incremented in an inner loop: its second trip sees the
    # first one's increment.
    "inner_loop.f90": """\
        ! adfort: routine=powers dep=y indep=x,a
        ! adfort: init n=5 m=3 x=0.5:1.5 a=-1:1
        subroutine powers(n, m, x, a, y)
          integer, intent(in) :: n, m
          double precision, intent(in) :: x(n), a(m)
          double precision, intent(out) :: y
          double precision :: u(n), t(n)
          integer :: i, k
          do i = 1, n
            u(i) = 2.0d0*x(i)
            t(i) = 0.0d0
          end do
          do i = 1, n
            do k = 1, m
              t(i) = t(i) + a(k)*u(i)**k
            end do
          end do
          y = sum(t)
        end subroutine powers
        """,
    # c_adj accumulates over the iterations; q_adj is zero again at the
    # end of each one.
    "accumulated_scalar.f90": """\
        ! adfort: routine=scale dep=y indep=x,p
        ! adfort: init n=6 x=-1:1 p=0.5:2.0
        subroutine scale(n, x, p, y)
          integer, intent(in) :: n
          double precision, intent(in) :: x(n), p
          double precision, intent(out) :: y(n)
          double precision :: c, q
          integer :: i
          c = 2.0d0*p
          do i = 1, n
            q = c*x(i)
            y(i) = q*q + c
          end do
        end subroutine scale
        """,
    # The work array goes through a call in the loop: nothing is known.
    "through_a_call.f90": """\
        ! adfort: routine=calls dep=y indep=x
        ! adfort: init n=5 x=-1:1
        module through_a_call
          implicit none
        contains
          subroutine sq(a, b)
            double precision, intent(in) :: a
            double precision, intent(out) :: b
            b = a*a
          end subroutine sq
          subroutine calls(n, x, y)
            integer, intent(in) :: n
            double precision, intent(in) :: x(n)
            double precision, intent(out) :: y
            double precision :: w(n)
            integer :: i
            do i = 1, n
              call sq(x(i), w(i))
            end do
            y = sum(w*x)
          end subroutine calls
        end module through_a_call
        """,
    # A 2-D update (a tracer step): tnew_adj(i, j) first set in the nest.
    "nest_first_set.f90": """\
        ! adfort: routine=smooth dep=t indep=t,w
        ! adfort: init nx=5 ny=4 t=0:1 w=0.5:1
        subroutine smooth(nx, ny, w, t)
          integer, intent(in) :: nx, ny
          double precision, intent(in) :: w(nx, ny)
          double precision, intent(inout) :: t(0:nx+1, ny)
          double precision :: tnew(nx, ny)
          integer :: i, j
          do j = 1, ny
            do i = 1, nx
              tnew(i, j) = t(i-1, j) + 2.0d0*t(i, j)**2 + t(i+1, j)
            end do
          end do
          do j = 1, ny
            do i = 1, nx
              t(i, j) = tnew(i, j)*w(i, j)
            end do
          end do
        end subroutine smooth
        """,
    # tnew(i, j) and tnew(j, i): iteration (i, j) reaches another's element.
    "nest_transposed.f90": """\
        ! adfort: routine=mix dep=s indep=x
        ! adfort: init n=4 x=0:1
        subroutine mix(n, x, s)
          integer, intent(in) :: n
          double precision, intent(in) :: x(n, n)
          double precision, intent(out) :: s
          double precision :: a(n, n)
          integer :: i, j
          do j = 1, n
            do i = 1, n
              a(i, j) = x(i, j)**2
            end do
          end do
          s = 0.0d0
          do j = 1, n
            do i = 1, n
              s = s + a(i, j)*a(j, i) + a(i, j)
            end do
          end do
        end subroutine mix
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def _returning(tmp_path, name, extra_cli=()):
    text = harness.differentiate_text(tmp_path, name, CASES[name], extra_cli)
    meta = harness.parse_metadata(tmp_path / name)
    return harness.routine_source(text, meta.routine + "_ret").lower()


def test_first_set_by_a_loop(tmp_path):
    ret = _returning(tmp_path, "first_set_by_a_loop.f90")
    assert "k_adj = 0" not in ret and "k_adj(:n) = 0" not in ret, ret
    # The first write of an iteration assigns; the second, an increment,
    # is gathered into it (adfort.increments): one store, no load.
    writes = re.findall(r"k_adj\(i\) = ([^\n]*)", ret)
    assert len(writes) == 1 and "k_adj" not in writes[0] and "+" in writes[0], ret


def test_neighbours_keep_their_zeroing(tmp_path):
    ret = _returning(tmp_path, "neighbours.f90")
    assert "w_adj = 0.0d0" in ret, ret
    assert "w_adj(i - 1) = w_adj(i - 1) +" in ret, ret


def test_inner_loop_increments_stay(tmp_path):
    ret = _returning(tmp_path, "inner_loop.f90")
    assert "u_adj(i) = u_adj(i) +" in ret, ret


def test_scalar_zero_at_each_iteration_start(tmp_path):
    ret = _returning(tmp_path, "accumulated_scalar.f90")
    assert re.search(r"c_adj = c_adj \+", ret), ret
    assert not re.search(r"q_adj = q_adj \+", ret), ret


def test_call_naming_the_adjoint(tmp_path):
    # (sq kept as a call: inlined, there would be no call to check)
    ret = _returning(tmp_path, "through_a_call.f90", ["--no-inline"])
    # Assigned whole before the call (its zeroing is then dead), and passed
    # to the call, which increments it.
    assert re.search(r"w_adj = y_adj \* x\n", ret), ret
    assert "call sq_ret(x(i), x_adj(i), w(i), w_adj(i))" in ret, ret


def test_nest_first_set(tmp_path):
    ret = _returning(tmp_path, "nest_first_set.f90")
    # Zero on entry to the nest, each element first set by its iteration:
    # assigned, and the whole-array zeroing is gone.
    assert "tnew_adj = 0" not in ret, ret
    assert re.search(r"tnew_adj\(i,j\) = t_adj\(i,j\) \* w\(i,j\)", ret.replace(", ", ",")), ret


def test_nest_transposed_keeps_increments(tmp_path):
    ret = _returning(tmp_path, "nest_transposed.f90").replace(", ", ",")
    assert "a_adj = 0" in ret, ret
    assert "a_adj(i,j) = a_adj(i,j) +" in ret or "a_adj(j,i) = a_adj(j,i) +" in ret, ret
