"""Generated names never take a user's name where they are seen, and never
have more than 63 characters (adfort/naming.py).

An internal generated name is changed (``coef_adj_1``, a hash for a long
one) and the adjoint checked against finite differences; a name the
calling convention fixes (``m_ad``, ``r_rev``, the adjoint of a module
variable or COMMON member the user seeds) gives a clear error: exit 1,
``file:line``, both names, no output file, no traceback."""

import shutil
import subprocess
import sys
import textwrap

import pytest

import harness

# A routine's local named like the adjoint adfort declares in the generated
# module for an active module variable (or COMMON member): it hid that
# adjoint, which then read the local's value (a zero gradient).
SHADOWED_MODULE_ADJOINT = """\
    ! adfort: routine=r dep=y indep=x
    ! adfort: init x=0.5:1.5
    module m
      real(8) :: coef = 3d0
    contains
      subroutine r(x, y)
        real(8), intent(in) :: x
        real(8), intent(out) :: y
        real(8) :: coef_adj
        coef_adj = 0.5d0
        coef = 3d0*x
        y = coef_adj*coef*x
      end subroutine
    end module
    """

SHADOWED_COMMON_ADJOINT = """\
C adfort: routine=R dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
      SUBROUTINE R(X, Y)
      DOUBLE PRECISION X, Y, A, A_ADJ
      COMMON /C/ A
      A_ADJ = 0.5D0
      A = 3.D0*X
      Y = A_ADJ*A*X
      END
"""

# A module variable named like the adjoint of another: the generated
# module, which uses the module whole, declared it again.
MODULE_VARIABLE_NAMED_ADJOINT = """\
    ! adfort: routine=r dep=y indep=x
    ! adfort: init x=0.5:1.5
    module m
      real(8) :: coef_adj = 2d0
      real(8) :: coef = 3d0
    contains
      subroutine s(x)
        real(8), intent(in) :: x
        coef = 3d0*sin(x)
      end subroutine
      subroutine r(x, y)
        real(8), intent(in) :: x
        real(8), intent(out) :: y
        call s(x)
        y = coef_adj*coef*x
      end subroutine
    end module
    """

# A routine's local named like a tape of the generated module: the tape
# was hidden in that routine's motions (which did not compile).
SHADOWED_TAPE = """\
    ! adfort: routine=r dep=y indep=x
    ! adfort: init x=0.5:1.5
    module m
    contains
      subroutine s(x, y)
        real(8), intent(in) :: x
        real(8), intent(inout) :: y
        integer :: i
        do i = 1, 3
          y = sin(y)*x
        end do
      end subroutine
      subroutine r(x, y)
        real(8), intent(in) :: x
        real(8), intent(out) :: y
        real(8) :: value_tape, control_tape
        integer :: i
        value_tape = 2d0
        control_tape = 0.5d0
        y = x
        do i = 1, 2
          y = y*x*value_tape*control_tape
          call s(x, y)
        end do
      end subroutine
    end module
    """

# An active module variable named op: its adjoint op_adj was also the name
# of the generated routine's operation-adjoint temporaries (a wrong gradient).
MODULE_VARIABLE_OP = """\
    ! adfort: routine=r dep=y indep=x
    ! adfort: init x=0.5:1.5
    module m
      real(8) :: op = 3d0
    contains
      subroutine r(x, y)
        real(8), intent(in) :: x
        real(8), intent(out) :: y
        op = 3d0*x
        y = sin(op*x)*cos(x*op) + exp(op)*x
      end subroutine
    end module
    """

FD_CASES = {
    "module_variable_op": ("k.f90", MODULE_VARIABLE_OP),
    "shadowed_module_adjoint": ("k.f90", SHADOWED_MODULE_ADJOINT),
    "shadowed_common_adjoint": ("k.f", SHADOWED_COMMON_ADJOINT),
    "module_variable_named_adjoint": ("k.f90", MODULE_VARIABLE_NAMED_ADJOINT),
    "shadowed_tape": ("k.f90", SHADOWED_TAPE),
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(FD_CASES))
def test_internal_names_renamed(case, schedule, tmp_path):
    name, text = FD_CASES[case]
    if name.endswith(".f"):
        text = textwrap.dedent(text)
    harness.check_source(tmp_path, name, text, schedule)


def run(args, cwd):
    return subprocess.run([sys.executable, "-m", "adfort"] + args, cwd=cwd,
                          capture_output=True, text=True)


def assert_clean_failure(result, cwd, place, *fragments):
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith(f"adfort: error: {place}"), result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
    assert not (cwd / "out.f90").exists(), "an output file was written"


LONG_ROUTINE = "r" + "a" * 59   # 60 characters: r_rec would have 64

ERRORS = {
    # The output module of module m is m_ad: a user module of that name.
    "user_module_named_m_ad": (
        """\
        module m_ad
          real(8) :: coef = 2d0
        end module
        module m
          use m_ad
        contains
          subroutine r(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = coef*x*x
          end subroutine
        end module
        """, "k.f90", ["--dep", "y", "--indep", "x"], "k.f90:1:",
        ["module 'm_ad'", "module 'm'", "rename the module 'm_ad'"]),
    # COMMON /c/'s layout module is c_common: a user module of that name.
    "user_module_named_like_common_layout": (
        """\
        module c_common
          real(8) :: scale = 2d0
        end module
        subroutine r(x, y)
          use c_common
          real(8) :: x, y, a
          common /c/ a
          a = x*scale
          y = a*x
        end subroutine
        """, "k.f90", ["--dep", "y", "--indep", "x"], "k.f90:1:",
        ["module 'c_common'", "COMMON /c/", "rename module 'c_common'"]),
    "routine_name_too_long": (
        f"""\
        module m
        contains
          subroutine {LONG_ROUTINE}(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = x*x
          end subroutine
        end module
        """, "k.f90", ["--dep", "y", "--indep", "x"], "k.f90:3:",
        [f"{LONG_ROUTINE}_rec", "64 characters", "at most 59 characters"]),
    "module_name_too_long": (
        f"""\
        module m{'o' * 60}
        contains
          subroutine r(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = x*x
          end subroutine
        end module
        """, "k.f90", ["--dep", "y", "--indep", "x"], "k.f90:1:",
        [f"m{'o' * 60}_ad", "at most 60 characters"]),
    # The adjoint of a module variable the user seeds keeps its name
    # coef_adj in m_ad: a local of that name would hide it.
    "local_named_like_seeded_adjoint": (
        textwrap.dedent(SHADOWED_MODULE_ADJOINT), "k.f90",
        ["--dep", "y", "--indep", "x,m::coef"], "k.f90:",
        ["'r' has a variable 'coef_adj'", "module variable 'm::coef'",
         "rename the variable 'coef_adj' of 'r'"]),
    "module_variable_named_like_seeded_adjoint": (
        textwrap.dedent(MODULE_VARIABLE_NAMED_ADJOINT), "k.f90",
        ["--dep", "y", "--indep", "x,m::coef"], "k.f90:3:",
        ["module 'm' has 'coef_adj'", "rename 'coef_adj'"]),
    "local_named_like_seeded_common_adjoint": (
        SHADOWED_COMMON_ADJOINT, "k.f",
        ["--dep", "Y", "--indep", "X,/c/a"], "k.f:",
        ["'R' has a variable 'a_adj'", "COMMON member 'a'", "'c_common_ad'"]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_fixed_names_clear_errors(case, tmp_path):
    text, name, options, place, fragments = ERRORS[case]
    if not name.endswith(".f"):
        text = textwrap.dedent(text)
    (tmp_path / name).write_text(text)
    result = run(["diff", name] + options + ["-o", "out.f90"], tmp_path)
    assert_clean_failure(result, tmp_path, place, *fragments)


def test_long_argument_adjoint_shortened(tmp_path):
    """The adjoint of a 62-character argument (66 characters as
    ``<name>_adj``) gets a shortened name with a hash, and the output
    compiles within free form's line length."""
    arg = "x" + "b" * 61
    source = textwrap.dedent(f"""\
        module m
        contains
          subroutine r({arg}, y)
            real(8), intent(in) :: {arg}
            real(8), intent(out) :: y
            y = {arg} &
              * {arg}
          end subroutine
        end module
        """)
    (tmp_path / "k.f90").write_text(source)
    result = run(["diff", "k.f90", "--dep", "y", "--indep", arg, "-o", "out.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "out.f90").read_text()
    assert max(len(line) for line in text.splitlines()) <= 132
    import re
    assert max(len(n) for n in re.findall(r"\w+", text)) <= 63
    gfortran = shutil.which("gfortran")
    if gfortran is None:
        pytest.skip("no gfortran")
    (tmp_path / "drv.f90").write_text(textwrap.dedent("""\
        program drv
          use m_ad
          implicit none
          real(8) :: x, y, xa, ya
          x = 0.7d0; xa = 0; ya = 1d0
          call r_rev(x, xa, y, ya)
          if (abs(xa - 2*x) > 1d-12) stop 1
          print *, 'ok'
        end program
        """))
    build = subprocess.run([gfortran, "-std=f2008", "k.f90", "out.f90", "drv.f90", "-o", "drv"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    done = subprocess.run(["./drv"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "ok" in done.stdout, done.stdout + done.stderr


def test_routine_name_of_59_characters(tmp_path):
    """59 characters leave room for _rec/_ret/_rev; the internal
    r_ret_given is shortened."""
    name = "r" + "a" * 58
    (tmp_path / "k.f90").write_text(textwrap.dedent(f"""\
        module m
        contains
          subroutine {name}(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            real(8) :: t
            t = sin(x)
            y = t*t
          end subroutine
        end module
        """))
    result = run(["diff", "k.f90", "--dep", "y", "--indep", "x", "-o", "out.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    import re
    text = (tmp_path / "out.f90").read_text()
    assert f"{name}_rev" in text
    assert max(len(n) for n in re.findall(r"\w+", text)) <= 63
