"""Loops over residuals with scalar temporaries, F77 data and singular
partials: the taping analysis and what the generated code must contain.

The numerical checks are the fixtures (MINPACK-style residuals and
Jacobians in tests/fortran_fixtures); these tests pin down the analysis
itself and the errors.
"""

import re
import textwrap

import pytest

from psyclone.psyir.nodes import Assignment, Loop, Routine

from adfort.api import differentiate_file
from adfort.errors import AdfortError
from adfort.frontend import read_file
from adfort.schedules import SplitReversalSchedule
from adfort.taping import plan_taping

JACOBIAN_LOOP = """\
subroutine jac(m, x, fjac)
  implicit none
  integer, intent(in) :: m
  double precision, intent(in) :: x(2)
  double precision, intent(out) :: fjac(m, 2)
  integer :: i
  double precision :: temp1, ti
  do i = 1, m
    ti = dble(i)
    temp1 = exp(-ti*x(1))
    fjac(i, 1) = -ti*temp1*x(2)
    fjac(i, 2) = temp1
  end do
end subroutine jac
"""


def _routine(tmp_path, text, name="k.f90"):
    path = tmp_path / name
    path.write_text(text)
    return path, read_file(str(path)).walk(Routine)[0]


def _reads(routine, table):
    """{id(assignment): names its adjoint reads}, from a table keyed by the
    assignment's text."""
    return {id(a): set(table.get(a.debug_string().strip(), ()))
            for a in routine.walk(Assignment)}


def _by_text(routine, plan):
    return {a.debug_string().strip() for a in routine.walk(Assignment)
            if id(a) in plan.taped}


def test_temporary_written_and_read_each_iteration_is_taped(tmp_path):
    """temp1 and ti are read by the adjoints of later statements of the same
    iteration: each write destroys the previous iteration's value, which the
    reversed previous iteration needs, and the last values are handed over."""
    _, routine = _routine(tmp_path, JACOBIAN_LOOP)
    reads = _reads(routine, {
        "temp1 = EXP(-ti * x(1))": {"ti", "x"},
        "fjac(i,1) = -ti * temp1 * x(2)": {"ti", "temp1", "x"},
    })
    plan = plan_taping(routine.children, reads, {"i", "ti", "temp1"})
    assert _by_text(routine, plan) == {"ti = DBLE(i)", "temp1 = EXP(-ti * x(1))"}
    assert plan.finals == ["temp1", "ti"]


def test_temporary_read_before_its_write_in_the_iteration(tmp_path):
    """A value carried to the next iteration (read first, written after)."""
    text = JACOBIAN_LOOP.replace(
        "    ti = dble(i)\n    temp1 = exp(-ti*x(1))\n",
        "    ti = dble(i)\n").replace(
        "    fjac(i, 2) = temp1\n", "    fjac(i, 2) = temp1\n    temp1 = temp1*x(1)\n")
    _, routine = _routine(tmp_path, text)
    reads = _reads(routine, {
        "fjac(i,1) = -ti * temp1 * x(2)": {"ti", "temp1", "x"},
        "temp1 = temp1 * x(1)": {"temp1", "x"},
    })
    plan = plan_taping(routine.children, reads, {"i", "ti", "temp1"})
    assert "temp1 = temp1 * x(1)" in _by_text(routine, plan)


def test_write_nobody_reads_is_not_taped(tmp_path):
    _, routine = _routine(tmp_path, JACOBIAN_LOOP)
    plan = plan_taping(routine.children, _reads(routine, {}), {"i", "ti", "temp1"})
    assert not plan.taped and not plan.finals


def test_nested_loop_temporary_read_after_the_inner_loop(tmp_path):
    """The inner loop's last value of s is read after it, in the outer body;
    the reset before the inner loop must save the previous outer value."""
    text = """\
subroutine w(n, x, f)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: x(n)
  double precision, intent(out) :: f(n)
  integer :: i, j
  double precision :: s
  do i = 1, n
    s = 0.0d0
    do j = 1, n
      s = s + x(j)*dble(i)
    end do
    f(i) = s*s
  end do
end subroutine w
"""
    _, routine = _routine(tmp_path, text)
    reads = _reads(routine, {"f(i) = s * s": {"s"}})
    plan = plan_taping(routine.children, reads, {"i", "j", "s"})
    assert _by_text(routine, plan) == {"s = 0.0d0"}
    assert plan.finals == ["s"]
    assert not plan.loop_indices
    assert len(routine.walk(Loop)) == 2


F77_DATA = """\
      SUBROUTINE RESID(M, X, FVEC)
      IMPLICIT NONE
      INTEGER M
      DOUBLE PRECISION X(2), FVEC(M)
      INTEGER I, IDX(3)
      DOUBLE PRECISION Y(3), UNUSED(2)
      DATA Y /1.5D0, 2.5D0, 3.5D0/
      DATA IDX /2, 1, 2/
      DATA UNUSED /2*0.0D0/
      DO 10 I = 1, M
         FVEC(I) = Y(I) - X(IDX(I))**2
   10 CONTINUE
      END
"""


def test_data_statements_stay_with_their_variables(tmp_path):
    """A DATA statement initialises variables the generated routines use:
    dropping it would silently zero them (wrong residuals, index 0)."""
    path, _ = _routine(tmp_path, F77_DATA, "resid.f")
    text, _, _ = differentiate_file(str(path), ["fvec"], ["x"], SplitReversalSchedule())
    rec = text[text.lower().index("subroutine resid_rec"):text.lower().index("end subroutine resid_rec")]
    ret = text[text.lower().index("subroutine resid_ret"):text.lower().index("end subroutine resid_ret")]
    assert "DATA Y / 1.5D0, 2.5D0, 3.5D0 /" in rec
    assert "DATA IDX / 2, 1, 2 /" in rec and "DATA IDX / 2, 1, 2 /" in ret
    # The returning motion reads IDX but not Y; nobody reads UNUSED.
    assert "DATA Y" not in ret
    assert "UNUSED" not in text.upper()


STATEMENT_FUNCTION = """\
      SUBROUTINE RESID(M, X, FVEC)
      IMPLICIT NONE
      INTEGER M
      DOUBLE PRECISION X(2), FVEC(M)
      INTEGER I
      DOUBLE PRECISION SQ, T
      SQ(T) = T*T + 1.0D0
      DO 10 I = 1, M
         FVEC(I) = SQ(X(1))*DBLE(I)
   10 CONTINUE
      END
"""


def test_statement_functions_are_inlined(tmp_path):
    """PSyIR would read ``SQ(T) = …`` as an assignment to an element of a
    scalar; the front end inlines each reference instead, so no definition
    is left in the generated code."""
    path, _ = _routine(tmp_path, STATEMENT_FUNCTION, "sf.f")
    text, _, _ = differentiate_file(str(path), ["fvec"], ["x"], SplitReversalSchedule())
    assert not re.search(r"^\s*sq\s*\(", text, re.IGNORECASE | re.MULTILINE), text


@pytest.mark.parametrize("expression, fragments", [
    # d/de of 10**e: LOG of a real ten, not of the integer 10.
    ("10**e", ["LOG(10.0d0)"]),
    # d/de of x**e: log(x) guarded where x = 0 (x**e is 0 there).
    ("x**e", ["LOG(x + MERGE(1, 0, x == 0))"]),
    # d/dx of x**k for an integer k that may be 0.
    ("x**k", ["x ** (k - 1 + MERGE(1, 0, k == 0))"]),
])
def test_power_partials_stay_finite(tmp_path, expression, fragments):
    src = textwrap.dedent(f"""\
        subroutine p(k, x, e, y)
          implicit none
          integer, intent(in) :: k
          double precision, intent(in) :: x, e
          double precision, intent(out) :: y
          y = {expression}
        end subroutine p
        """)
    path, _ = _routine(tmp_path, src, "p.f90")
    text, _, _ = differentiate_file(str(path), ["y"], ["x", "e"], SplitReversalSchedule())
    for fragment in fragments:
        assert fragment in text, text


def test_neighbour_indices_are_computed_again_not_taped():
    """Index arithmetic each iteration computes afresh from the loop index
    and arguments (adfort/iterations.py) is computed again at the start of
    each reversed iteration; a counter carried from iteration to iteration
    is taped.  The derivatives are checked by the fixture itself."""
    from pathlib import Path
    path = Path(__file__).parent / "fortran_fixtures" / "cyclic_filter_indices.f90"
    text, _, _ = differentiate_file(str(path), ["y"], ["x", "w"], SplitReversalSchedule())
    low = text.lower()
    rec = low[low.index("subroutine cyclic_filter_rec"):low.index("end subroutine cyclic_filter_rec")]
    ret = low[low.index("subroutine cyclic_filter_ret"):low.index("end subroutine cyclic_filter_ret")]
    assert not re.search(r"tape\([^)]*\) = (im|ip)\b", rec), rec
    assert re.search(r"tape\([^)]*\) = kw\b", rec), rec
    loop = ret[ret.index("do i ="):]
    assert loop.index("im = i - 1") < loop.index("ip = i + 1") < loop.index("x_adj(im)"), ret
