"""``intent(out)`` dummies of a derived type whose TYPE gives components
default values (``real(8) :: s = 0d0``): compilers give the dummy those
values on entry, so the value the caller passed (and its adjoint) does not
reach the routine's results.  The returning motion did not zero the
adjoints of those components for that reset: the sensitivity leaked to
the incoming value (``b_adj%s = 1`` instead of 0) and from one call of a
loop to the next.  The fixtures of tests/fortran_fixtures/default_init/
are checked against central differences through types_harness, the
dummies' actual arguments being independents too."""

import subprocess
import sys
from pathlib import Path

import pytest

import types_harness as th

FIXTURES = sorted(p for p in (Path(__file__).resolve().parent / "fortran_fixtures"
                              / "default_init").iterdir() if (p / "fixture.toml").exists())


def _check(fixture, schedule, workdir, extra_cli=()):
    lhs, rhs, primal = th.check(fixture, schedule, workdir, extra_cli)
    error = abs(lhs - rhs) / max(abs(lhs), abs(rhs), 1e-300)
    assert error < th.TOL, f"<xbar, xdot> = {lhs!r}, <ybar, dy> = {rhs!r}: rel. error {error:.2e}"
    assert primal < 1e-12, f"r_rev's primal results differ from r's by {primal:.2e}"


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])
def test_gradient(fixture, schedule, tmp_path):
    _check(fixture, schedule, tmp_path)


def test_gradient_without_inlining(tmp_path):
    fixture = next(f for f in FIXTURES if f.name == "callees_in_loop")
    _check(fixture, "split", tmp_path, ["--no-inline"])


def test_default_inside_an_array_component_is_an_error(tmp_path):
    """A default value inside an array component of the dummy: not made
    explicit, so an error naming the routine (not a leak)."""
    source = tmp_path / "k.f90"
    source.write_text("""\
module em
  implicit none
  type :: inner_t
    real(8) :: s = 0d0
  end type inner_t
  type :: outer_t
    type(inner_t) :: arr(3)
    real(8) :: v
  end type outer_t
contains
  subroutine fill(x, o)
    real(8), intent(in) :: x
    type(outer_t), intent(out) :: o
    o%arr(1)%s = o%arr(1)%s + x
    o%v = x
  end subroutine fill
  subroutine top(x, o)
    real(8), intent(in) :: x
    type(outer_t), intent(inout) :: o
    call fill(x, o)
  end subroutine top
end module em
""")
    out = tmp_path / "k_ad.f90"
    proc = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "top", "--dep", "o", "--indep", "x,o", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert not out.exists()
    assert "k.f90:11: the intent(out) dummy 'o' is given the default values" in proc.stderr, \
        proc.stderr
    assert "'arr%s'" in proc.stderr and "intent(inout)" in proc.stderr, proc.stderr
