"""VALUE dummy arguments (Fortran 2003): refused as "a declaration adfort
cannot differentiate"; now read as plain dummies when the routine never
changes them (the same by value and by reference), a clear error when it
does."""

import subprocess
import sys
import textwrap

import pytest

import harness

STEP = """\
    ! adfort: routine=f dep=y indep=a,y
    ! adfort: init a=0.2:0.6 y=0.5:1.5
    module by_value
      implicit none
    contains
      pure real(8) function sq(x)
        real(8), value :: x
        sq = x*x
      end function sq
      subroutine damp(x, y)
        real(8), intent(in) :: x
        real(8), intent(inout) :: y
        y = y*exp(-x)
      end subroutine damp
      subroutine step(n, c, y)
        integer, value :: n
        real(8) :: c
        value :: c
        real(8), intent(inout) :: y
        integer :: k
        do k = 1, n
          call damp(c, y)
          y = y + sq(c)*sin(y)
        end do
      end subroutine step
      subroutine f(a, y)
        real(8), intent(in) :: a
        real(8), intent(inout) :: y
        call step(3, a, y)
      end subroutine f
    end module by_value
    """


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_value_dummies_read_only(schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", STEP, schedule)


@pytest.mark.parametrize("change", ["c = 0.9d0*c", "call scale(c)"])
def test_value_dummy_changed_is_a_clear_error(change, tmp_path):
    source = textwrap.dedent(STEP).replace(
        "      y = y + sq(c)*sin(y)\n", f"      y = y + sq(c)*sin(y)\n      {change}\n").replace(
        "end module by_value", "end module by_value\nsubroutine scale(v)\n"
        "  real(8), intent(inout) :: v\n  v = 2*v\nend subroutine scale")
    (tmp_path / "k.f90").write_text(source)
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", "k.f90", "--routine", "f",
                           "--dep", "y", "--indep", "a,y"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 1, done.stderr
    assert "k.f90:24: the VALUE dummy 'c' of 'step' may be changed here" in done.stderr, \
        done.stderr
    assert not list(tmp_path.glob("*_ad.f90"))
