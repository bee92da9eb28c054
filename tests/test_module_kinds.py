"""Kind parameters and module symbols in the generated code, as real model
code declares them (GSW, ICON, NCAR ccpp, CESM): kinds local to a callee,
private to a module, aliased, renamed on import, brought by a wildcard USE
into a module typed implicitly.  Each case is checked against finite
differences under both schedules, the generated code compiled with
``-std=f2008 -Wall``."""

import shutil
import textwrap

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")
SCHEDULES = ["split", "joint"]


def _check(tmp_path, name, text, schedule):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    res = harness.check_fixture(path, schedule, tmp_path / schedule)
    assert res.rel_err < 1e-6, res.describe()
    assert res.primal_err < 1e-10, res.describe()
    return res


CASES = {
    # A module procedure repeating its host module's 'use kinds' (GSW), with
    # a taped local and a constant of the kinds module: the generated
    # module's 'use kinds' was added twice (internal error).
    "repeated_use_kinds.f90": """\
        ! adfort: routine=top dep=y indep=x
        module kinds
          implicit none
          integer, parameter :: r8 = selected_real_kind(14, 30)
          real(r8), parameter :: half = 0.5_r8
        end module kinds
        module tb
          use kinds
          implicit none
        contains
          elemental function f(a, b)
            use kinds
            implicit none
            real(r8), intent(in) :: a, b
            real(r8) :: f
            real(r8) :: t
            t = a*b
            f = t*sin(a)*half
          end function f
        end module tb
        module drv
        contains
          subroutine top(x, y)
            use tb, only: f
            use kinds, only: r8
            real(r8), intent(in) :: x
            real(r8), intent(out) :: y
            y = f(x, 2.0_r8)
          end subroutine top
        end module drv
        """,
}


@needs_gfortran
@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_module_kinds_match_finite_differences(tmp_path, name, schedule):
    _check(tmp_path, name, CASES[name], schedule)
