"""The returning motion's stores nothing reads (adfort/liveness.py,
lean_returning) and its increments of one adjoint element gathered
(adfort/increments.py).

Kernels written as models are (upwind stencils with cyclic neighbours, a
callee given the same array twice, an increment reading another adjoint)
are FD-checked under both schedules; the text checks say which rewrite
happened or must not.  The unit cases run the pass on returning-motion
statements written by hand."""

import re
import textwrap

import pytest
from psyclone.psyir.backend.fortran import FortranWriter
from psyclone.psyir.frontend.fortran import FortranReader
from psyclone.psyir.nodes import Routine
from psyclone.psyir.symbols import AutomaticInterface, DataSymbol

import harness
from adfort.increments import merge_increments
from adfort.liveness import lean_returning

CASES = {
    # Burgers' upwind step: u_adj(i) three times, u_adj(ip) and u_adj(im)
    # between, an IF on the sign of the velocity.
    "upwind_cyclic.f90": """\
        ! adfort: routine=upwind dep=cost indep=u0,nu
        ! adfort: init n=9 nt=3 dt=0.01 dx=0.1 nu=0.02:0.05 u0=-1:1
        module upwind_mod
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine upwind(n, nt, dt, dx, nu, u0, cost)
            integer, intent(in) :: n, nt
            real(wp), intent(in) :: dt, dx, nu
            real(wp), intent(in) :: u0(n)
            real(wp), intent(out) :: cost
            real(wp) :: u(n), unew(n), adv, diff
            integer :: i, im, ip, it
            u = u0
            do it = 1, nt
              do i = 1, n
                im = i - 1
                ip = i + 1
                if (i == 1) im = n
                if (i == n) ip = 1
                if (u(i) > 0.0_wp) then
                  adv = u(i)*(u(i) - u(im))
                else
                  adv = u(i)*(u(ip) - u(i))
                end if
                diff = u(ip) - 2.0_wp*u(i) + u(im)
                unew(i) = u(i) - dt/dx*adv + nu*dt/dx**2*diff
              end do
              u = unew
            end do
            cost = 0.5_wp*sum(u**2)
          end subroutine upwind
        end module upwind_mod
        """,
    # A callee given the same array twice: its two adjoints are one
    # storage, incremented in turn.
    "same_array_twice.f90": """\
        ! adfort: routine=pair_sweep dep=y indep=a
        ! adfort: init n=6 a=0.5:1.5
        module twice_mod
          implicit none
        contains
          subroutine blend(n, p, q, y)
            integer, intent(in) :: n
            double precision, intent(in) :: p(n), q(n)
            double precision, intent(inout) :: y
            integer :: i, j
            do i = 1, n
              j = n + 1 - i
              y = y + p(i)*q(j) + p(i)**2*q(i) + p(j)*p(i)
            end do
          end subroutine blend
          subroutine pair_sweep(n, a, y)
            integer, intent(in) :: n
            double precision, intent(in) :: a(n)
            double precision, intent(out) :: y
            y = 0.0d0
            call blend(n, a, a, y)
          end subroutine pair_sweep
        end module twice_mod
        """,
    # Neighbour increments with the weights read from another adjoint that
    # changes in between; a restored index.
    "reads_another_adjoint.f90": """\
        ! adfort: routine=chain dep=s indep=x
        ! adfort: init n=7 x=0.2:1.2
        subroutine chain(n, x, s)
          integer, intent(in) :: n
          double precision, intent(in) :: x(n)
          double precision, intent(out) :: s
          double precision :: w(n), v(n)
          integer :: i, k
          s = 0.0d0
          do i = 2, n - 1
            w(i) = x(i)*x(i+1) + x(i-1)
            k = i - 1
            v(i) = w(i)*x(k) + x(k+1)**2
            k = i + 1
            s = s + v(i)*x(k) + w(i)*x(i)
          end do
        end subroutine chain
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def _returning(tmp_path, name):
    return harness.differentiate_text(tmp_path, name, CASES[name]).lower()


def test_upwind_increments_gathered(tmp_path):
    ret = harness.routine_source(_returning(tmp_path, "upwind_cyclic.f90"), "upwind_ret")
    # One increment of u_adj(i) per branch, none left before the IF.
    assert len(re.findall(r"u_adj\(i\) = u_adj\(i\) \+", ret)) == 2, ret
    loop = ret[ret.index("do i = n, 1, -1\n        im"):]
    assert loop.index("if (u(i) > 0.0_wp)") < loop.index("u_adj(i) = "), ret
    # The dead zeroings of scalar adjoints are gone.
    assert "diff_adj = 0.0_wp" not in ret and "adv_adj = 0.0_wp" not in ret, ret


def _run_pass(text, run):
    """The routine written by hand in `text`, its statements passed through
    ``run(statements, routine)``, as text."""
    routine = FortranReader().psyir_from_source(textwrap.dedent(text)).walk(Routine)[0]
    stmts = [s.detach() for s in list(routine.children)]
    for stmt in run(stmts, routine):
        routine.addchild(stmt)
    return FortranWriter()(routine).lower()


def _merged(text, shared=(), temporaries=("op_adj",)):
    """merge_increments on the statements of a routine written by hand."""
    def run(stmts, routine):
        table = routine.symbol_table

        def fresh(symbol, avoid):
            k = 1
            while f"{symbol.name}_{k}" in avoid or table.lookup(f"{symbol.name}_{k}",
                                                                otherwise=None):
                k += 1
            new = DataSymbol(f"{symbol.name}_{k}", symbol.datatype,
                             interface=AutomaticInterface())
            table.add(new)
            return new
        return merge_increments(stmts, set(shared), set(temporaries), fresh)
    return _run_pass(text, run)


HEAD = """\
    subroutine r(n, i, j, a, b, x_adj, y_adj, op_adj)
      integer :: n, i, j
      double precision :: a, b, op_adj, x_adj(n), y_adj(n)
"""


def test_unit_merges_across_other_elements():
    out = _merged(HEAD + """\
      x_adj(i) = x_adj(i) + a
      x_adj(j) = x_adj(j) + b
      x_adj(i) = x_adj(i) - b
    end subroutine r
    """)
    assert "x_adj(i) = x_adj(i) + (a - b)" in out and out.count("x_adj(i) =") == 1, out


def test_unit_assignment_does_not_pass_an_increment_of_its_array():
    out = _merged(HEAD + """\
      x_adj(i) = a
      x_adj(j) = x_adj(j) + b
      x_adj(i) = x_adj(i) + b
    end subroutine r
    """)
    assert out.count("x_adj(i) =") == 2, out


def test_unit_blocked_by_a_plain_read_and_by_a_changed_index():
    out = _merged(HEAD + """\
      x_adj(i) = x_adj(i) + a
      b = x_adj(j)
      x_adj(i) = x_adj(i) + b
      y_adj(i) = y_adj(i) + a
      i = i + 1
      y_adj(i) = y_adj(i) + a
      y_adj(j) = y_adj(j) + a
      a = 2.0d0
      y_adj(j) = y_adj(j) + a
    end subroutine r
    """)
    assert out.count("x_adj(i) = x_adj(i) +") == 2, out
    assert out.count("y_adj(i) = y_adj(i) +") == 2, out
    assert out.count("y_adj(j) = y_adj(j) +") == 2, out


def test_unit_shared_adjoints_guard_each_other():
    text = HEAD + """\
      x_adj(i) = x_adj(i) + a
      b = y_adj(j)
      x_adj(i) = x_adj(i) + b
    end subroutine r
    """
    assert _merged(text).count("x_adj(i) =") == 1
    assert _merged(text, shared={"x_adj", "y_adj"}).count("x_adj(i) =") == 2


def test_unit_sinks_into_branches_and_renames_a_temporary():
    out = _merged(HEAD + """\
      op_adj = a * 2.0d0
      x_adj(i) = x_adj(i) + op_adj
      if (i > j) then
        op_adj = b * 3.0d0
        x_adj(i) = x_adj(i) + op_adj
      end if
      x_adj(j) = x_adj(j) + a
    end subroutine r
    """)
    assert "x_adj(i) = x_adj(i) + (op_adj + op_adj_1)" in out, out
    assert re.search(r"else\n\s*x_adj\(i\) = x_adj\(i\) \+ op_adj\n", out), out


def test_unit_temporary_read_after_is_not_renamed():
    out = _merged(HEAD + """\
      x_adj(i) = x_adj(i) + op_adj
      op_adj = b * 3.0d0
      x_adj(i) = x_adj(i) + op_adj
      y_adj(i) = y_adj(i) + op_adj
    end subroutine r
    """, temporaries=())
    assert out.count("x_adj(i) =") == 2, out



def test_unit_temporary_read_by_the_next_iteration_is_not_renamed():
    out = _merged(HEAD + """\
      do j = 1, n
        x_adj(i) = x_adj(i) + op_adj
        op_adj = b * 3.0d0
        x_adj(i) = x_adj(i) + op_adj
      end do
    end subroutine r
    """)
    assert out.count("x_adj(i) =") == 2 and "op_adj_1" not in out, out


def _lean(text):
    """lean_returning on the statements of a routine written by hand; the
    arguments outlive it."""
    return _run_pass(text, lambda stmts, routine: lean_returning(stmts, routine.symbol_table))


def test_unit_dead_stores_of_locals_go():
    out = _lean("""\
    subroutine r(n, x, x_adj)
      integer :: n
      double precision :: x(n), x_adj(n)
      double precision :: w_adj(n), s_adj, t_adj(n, n)
      integer :: i, m
      m = 3
      do i = 1, n
        s_adj = x(i) * 2.0d0
        w_adj(i) = s_adj * x(i)
        x_adj(i) = x_adj(i) + w_adj(i)
        w_adj(i) = 0.0d0
        s_adj = 0.0d0
        t_adj(i, m) = x(i)
        x_adj(i) = x_adj(i) + t_adj(m, i)
        t_adj(i, m) = 0.0d0
      end do
    end subroutine r
    """)
    # Each iteration's own element, never read again: zeroing dead.
    assert "w_adj(i) = 0.0d0" not in out and "s_adj = 0.0d0" not in out, out
    # t_adj(m, i) of iteration i is t_adj(i, m) of iteration m: kept.
    assert "t_adj(i,m) = 0.0d0" in out.replace(", ", ","), out
    assert out.count("x_adj(i) = x_adj(i) +") == 2, out
