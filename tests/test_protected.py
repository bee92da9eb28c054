"""PROTECTED module variables (Fortran 2003): read by the routine
differentiated, they were refused ("a declaration adfort cannot
differentiate"); written by it, its adjoint module could not set them."""

import subprocess
import sys
import textwrap

import pytest

import harness

READ = """\
    ! adfort: routine=drag dep=f indep=u
    ! adfort: init n=4 u=-1.5:1.5 f=0
    module consts
      implicit none
      real(8), protected :: cd = 1.3d-3
      real(8) :: rho
      logical :: ready
      protected :: rho, ready
      data rho /1.2d0/, ready /.true./
    end module consts
    module k
      use consts
      implicit none
    contains
      subroutine drag(n, u, f)
        integer, intent(in) :: n
        real(8), intent(in) :: u(n)
        real(8), intent(out) :: f(n)
        f = 0
        if (ready) f = rho*cd*abs(u)*u + sin(u)
      end subroutine drag
    end module k
    """


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_protected_module_variables_read(schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", READ, schedule)


def test_protected_module_variable_written_is_a_clear_error(tmp_path):
    (tmp_path / "w.f90").write_text(textwrap.dedent("""\
        module consts
          implicit none
          real(8), protected :: scale = 2d0
        contains
          subroutine f(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            scale = scale*x
            y = scale*x
          end subroutine f
        end module consts
        """))
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", "w.f90", "--dep", "y",
                           "--indep", "x"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("adfort: error: w.f90:8: 'scale' is a PROTECTED"), done.stderr
    assert not list(tmp_path.glob("*_ad.f90"))
