"""Subscripts that read the array their statement assigns, and FINDLOC.

``h(nint(h(2))) = 2*h(nint(h(2))) + 1``: the returning motion put the
element back, and sent its adjoint, through the subscript worked out again
from the array as the assignment left it (another element when ``h(2)``
was the one assigned): gradients wrong by 10–100 % with the primal right.
Such a subscript is now kept in a local set before the assignment
(:func:`adfort.normalise.hoist_self_subscripts`).

FINDLOC with a DIM argument was an internal error (PSyclone cannot tell its
argument set), and its rank was taken for an array's."""

import pytest

import harness

CASES = {
    "nint_of_an_element.f90": """\
        ! adfort: routine=bump dep=cost indep=h
        ! adfort: init n=6 h=1.6:1.9
        subroutine bump(n, h, cost)
          integer, intent(in) :: n
          real(8), intent(inout) :: h(n)
          real(8), intent(out) :: cost
          h(nint(h(2))) = 2.0d0*h(nint(h(2))) + 1.0d0
          cost = sum(h**3)
        end subroutine bump
        """,
    "damp_the_peak_level.f90": """\
        ! adfort: routine=cap_peak dep=cost indep=t
        ! adfort: init nlev=7 ncol=3 t=200.5:300.5
        subroutine cap_peak(nlev, ncol, t, cost)
          integer, intent(in) :: nlev, ncol
          real(8), intent(inout) :: t(nlev, ncol)
          real(8), intent(out) :: cost
          integer :: i
          do i = 1, ncol
            ! the warmest level of each column is damped twice
            t(maxloc(t(:, i), dim=1), i) = 0.7d0*t(maxloc(t(:, i), dim=1), i)
            t(maxloc(t(:, i), dim=1), i) = 0.9d0*t(maxloc(t(:, i), dim=1), i)
          end do
          cost = sum(t**2)
        end subroutine cap_peak
        """,
    "findloc.f90": """\
        ! adfort: routine=pick dep=y indep=x
        ! adfort: init n=5 x=1:2 used=3
        subroutine pick(n, x, used, y)
          integer, intent(in) :: n, used(n)
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          y = x(1)
          if (findloc(used, 3, dim=1) > 0) y = 2d0*x(2)*y
          if (findloc(used, 3, 1) == 1) y = y + x(3)**2
          if (findloc(used, 7, back=.true., dim=1) == 0) y = y*x(4)
        end subroutine pick
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_subscripts_reading_the_assigned_array(name, schedule, tmp_path):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def test_a_subscript_reading_another_component_is_left_in_place(tmp_path):
    """``st%kv(st%nz) = 0``: the subscript reads a component the assignment
    does not write; no local is made (it would cost an integer tape)."""
    import subprocess
    import sys
    fixture = harness.FIXTURE_DIR / "ocean_column_derived_state.f90"
    meta = harness.parse_metadata(fixture)
    out = tmp_path / "o.f90"
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(fixture), "--routine",
                           meta.routine, "--dep", ",".join(meta.dep), "--indep",
                           ",".join(meta.indep), "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "st_at" not in out.read_text()
