"""Vector subscripts, an integer array as a subscript (``x(idx)``): the
transformations took ``x(idx)`` for one element or a section, so the
adjoint of ``y = x(idx)`` was ``x_adj(idx) = x_adj(idx) + SUM(y_adj)``
(a silently wrong gradient), and an in-place update or a vector-subscripted
actual argument gave code that did not compile.  On an array carrying
derivatives they are rejected at file:line with a DO loop to write
instead; on passive arrays, and an element ``x(idx(i))`` in a loop, they
keep working."""

import subprocess
import sys

import pytest

import harness

HEAD = """\
! adfort: routine=vs dep=y indep=x
! adfort: init n=3 m=5 x=0.5:1.5
module vs_mod
  implicit none
contains
"""

REJECTED = {
    # (statements, the reference reported as adfort writes it; it is on
    # the last line but one of the statements)
    "gather copy": ("y = x(idx)\n", "x(idx)"),
    "gather with repeats": ("y = x(idx)**2\n", "x(idx)"),
    "section of the index array": ("y(1:n) = x(idx(1:n))\n", "x(idx(:n))"),
    "index expression": ("y(1:n) = x(n + 1 - idx(1:n))\n", "x(n + 1 - idx(:n))"),
    "scatter": ("y = 0d0\n    y(idx(1:n)) = x**2\n", "y(idx(:n))"),
    "in-place update": ("y = x(1)\n    z(idx) = z(idx)**2 + y(1)\n    y = z", "z(idx)"),
    "actual argument": ("call sq(n, x(idx(1:n)), y)\n", "x(idx(:n))"),
    "function argument": ("y = total(n, x(idx(1:n)))\n", "x(idx(:n))"),
}

BODY = """\
  subroutine sq(k, v, w)
    integer, intent(in) :: k
    real(8), intent(in) :: v(k)
    real(8), intent(inout) :: w(*)
    w(1:k) = v**2
  end subroutine sq

  real(8) function total(k, v)
    integer, intent(in) :: k
    real(8), intent(in) :: v(k)
    total = sum(v**2)
  end function total

  subroutine vs(n, m, x, y)
    integer, intent(in) :: n, m
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y(m)
    real(8) :: z(m)
    integer :: idx(m), i
    do i = 1, m
      idx(i) = mod(i, n) + 1
    end do
    z = 1d0
    {stmt}
  end subroutine vs
end module vs_mod
"""


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_vector_subscript_of_an_active_array_is_rejected(case, tmp_path):
    stmt, text = REJECTED[case]
    source = tmp_path / "k.f90"
    source.write_text(HEAD + BODY.replace("{stmt}", stmt))
    line = BODY.split("{stmt}")[0].count("\n") + HEAD.count("\n") + stmt.count("\n")
    out = tmp_path / "k_ad.f90"
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "vs", "--dep", "y", "--indep", "x", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert f"k.f90:{line}:" in done.stderr, done.stderr
    assert f"'{text}'" in done.stderr and "vector subscript" in done.stderr, done.stderr
    assert "do i = 1, size(" in done.stderr, done.stderr
    assert not out.exists()


ACCEPTED = {
    # A passive array with a vector subscript, an active one element by element
    # (repeated indices accumulate).
    "passive weights": """\
    do i = 1, m
      w(i) = 0.5d0*i
    end do
    y = x(1)*w(idx) + w(idx(m:1:-1))
    do i = 1, m
      y(i) = y(i) + x(idx(i))**2
    end do""",
    "scatter-add element by element": """\
    jdx = idx(m:1:-1)
    y = 0d0
    do i = 1, m
      y(jdx(i)) = y(jdx(i)) + x(idx(i))*w(jdx(i))
    end do
    y(size(x(idx))) = y(1)*x(2)""",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_vector_subscripts_of_passive_arrays_still_work(case, schedule, tmp_path):
    source = HEAD + """\
  subroutine vs(n, m, x, y)
    integer, intent(in) :: n, m
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y(m)
    real(8) :: w(m)
    integer :: idx(m), jdx(m), i
    do i = 1, m
      idx(i) = mod(i, n) + 1
      w(i) = 1d0 + 0.1d0*i
    end do
""" + ACCEPTED[case] + """
  end subroutine vs
end module vs_mod
"""
    result = harness.check_source(tmp_path, "k.f90", source, schedule)
    assert result.rel_err < 1e-6, result
