"""Derived types and pointers used as aliases: gradients of the fixtures
in tests/fortran_fixtures/types/ (see types_harness.py) against central
differences under both schedules, and clear errors for what is not
supported."""

from __future__ import annotations

import pytest

import types_harness as th

FIXTURES = th.fixtures()


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])
def test_gradient(fixture, schedule, tmp_path):
    lhs, rhs, primal = th.check(fixture, schedule, tmp_path)
    error = abs(lhs - rhs) / max(abs(lhs), abs(rhs), 1e-300)
    assert error < th.TOL, f"<xbar, xdot> = {lhs!r}, <ybar, dy> = {rhs!r}: rel. error {error:.2e}"
    assert primal < 1e-12, f"r_rev's primal results differ from r's by {primal:.2e}"


# -- clear errors -------------------------------------------------------------

import subprocess
import sys

# (moist_column_t extends column_t: CLASS(column_t) may hold another type,
# so it stays polymorphic; with no extension it reads as TYPE(column_t).)
TYPES_MODULE = """module grid_types
  implicit none
  type :: column_t
    integer :: nlev
    real(8) :: t(10)
  contains
    procedure :: warm
  end type column_t
  type :: holder_t
    real(8), pointer :: p(:)
  end type holder_t
  type, extends(column_t) :: moist_column_t; real(8) :: q(10); end type moist_column_t
contains
  subroutine warm(self, dt)
    class(column_t), intent(inout) :: self
    real(8), intent(in) :: dt
    self%t = self%t + dt
  end subroutine warm
end module grid_types
"""

ERRORS = {
    "type_bound_call": (
        "subroutine k(col, x, y)\n  use grid_types\n  type(column_t), intent(inout) :: col\n"
        "  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
        "  call col%warm(x)\n  y = col%t(1)\nend subroutine k\n",
        ["--dep", "y", "--indep", "x"], ":25:", "polymorphism is not supported"),
    "polymorphic": (
        "subroutine k(col, x, y)\n  use grid_types\n  class(column_t), intent(in) :: col\n"
        "  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
        "  y = x * col%t(1)\nend subroutine k\n",
        ["--dep", "y", "--indep", "x"], ":25:", "polymorph"),
    "component_named": (
        "subroutine k(col, y)\n  use grid_types\n  type(column_t), intent(in) :: col\n"
        "  real(8), intent(out) :: y\n  y = sum(col%t)\nend subroutine k\n",
        ["--dep", "y", "--indep", "col%t"], "", "name the whole derived-type argument ('col')"),
    # A CLASS dummy of a callee receiving an active value: activity saw no
    # real value in it and the call passed no derivative (a silently wrong
    # gradient).
    "polymorphic_callee": (
        "subroutine scale_it(c)\n  use grid_types\n  class(column_t), intent(inout) :: c\n"
        "  c%t = c%t**2\nend subroutine scale_it\n"
        "subroutine k(x, y)\n  use grid_types\n  real(8), intent(in) :: x\n"
        "  real(8), intent(out) :: y\n  type(column_t) :: col\n"
        "  col%t = x\n  call scale_it(col)\n  y = sum(col%t)\nend subroutine k\n",
        ["--dep", "y", "--indep", "x", "--routine", "k"], ":31:", "polymorphism is not supported"),
    "pointer_component": (
        "subroutine k(h, x, y)\n  use grid_types\n  type(holder_t), intent(inout) :: h\n"
        "  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
        "  h%p(1) = x\n  y = 2 * h%p(1)\nend subroutine k\n",
        ["--dep", "y", "--indep", "x"], ":25:", "pointer or polymorphic component"),
    "pointer_allocate": (
        "subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
        "  real(8), pointer :: p(:)\n  allocate(p(3))\n  p = x\n  y = sum(p)\n"
        "  deallocate(p)\nend subroutine k\n",
        ["--dep", "y", "--indep", "x"], ":24:", "ALLOCATE of 'p"),
    "pointer_after_loop": (
        "subroutine k(a, y)\n  real(8), intent(in), target :: a(3, 4)\n"
        "  real(8), intent(out) :: y\n  real(8), pointer :: p(:)\n  integer :: j\n"
        "  y = 0\n  do j = 1, 4\n    p => a(:, j)\n    y = y + sum(p)\n  end do\n"
        "  y = y * p(1)\nend subroutine k\n",
        ["--dep", "y", "--indep", "a"], ":30:", "cannot tell which association"),
    "pointer_subscript_changes": (
        "subroutine k(a, y)\n  real(8), intent(in), target :: a(3, 4)\n"
        "  real(8), intent(out) :: y\n  real(8), pointer :: p(:)\n  integer :: j\n"
        "  j = 1\n  p => a(:, j)\n  j = 2\n  y = sum(p) * a(1, j)\nend subroutine k\n",
        ["--dep", "y", "--indep", "a"], ":27:", "'j' changes while the pointer"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_unsupported_is_a_clear_error(case, tmp_path):
    """Unsupported derived-type and pointer constructs: exit 1, the file
    and line, no traceback, no output file."""
    body, options, line, message = ERRORS[case]
    src = tmp_path / "k.f90"
    src.write_text(TYPES_MODULE + body)
    out = tmp_path / "k_ad.f90"
    proc = subprocess.run([sys.executable, "-m", "adfort", "diff", str(src), *options,
                           "-o", str(out)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert f"k.f90{line}" in proc.stderr and message in proc.stderr, proc.stderr
    assert not out.exists()


def test_target_derived_local_with_allocatable_components_is_named(tmp_path):
    """The message said only local allocatable arrays can be allocated,
    of a local: it is the TARGET attribute adfort cannot take there."""
    import subprocess
    import sys
    source = tmp_path / "k.f90"
    source.write_text(
        "module m4\n  implicit none\n  type :: st_t\n    real(8), allocatable :: t(:)\n"
        "  end type st_t\ncontains\n  subroutine run(n, x, y)\n    integer, intent(in) :: n\n"
        "    real(8), intent(in) :: x(n)\n    real(8), intent(out) :: y\n"
        "    type(st_t), target :: s\n    allocate(s%t(n))\n    s%t = x**2\n"
        "    y = sum(s%t**2)\n    deallocate(s%t)\n  end subroutine run\nend module m4\n")
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "run", "--dep", "y", "--indep", "x", "-o", str(tmp_path / "o.f90")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "k.f90:12:" in done.stderr and "declared TARGET ('s')" in done.stderr, done.stderr
    assert not (tmp_path / "o.f90").exists()
