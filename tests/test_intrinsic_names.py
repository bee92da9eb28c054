"""User procedures named as intrinsics: where one is visible (a module
procedure, one a USE brings, an internal procedure, an interface body or
EXTERNAL declaration, a generic interface), Fortran calls it, not the
intrinsic.  A module function ``erf`` computing x**3 was differentiated
with ERF's rule (a silently wrong gradient), and a user ``scale(x)`` of one
argument was refused as a syntax error (fparser reads the name as the
intrinsic SCALE(x, i))."""

import re
import subprocess
import sys
import textwrap

import pytest

import calls_harness as ch
import harness

ACCEPTED = {
    # The user's module function erf, in the module of the caller (was
    # differentiated as ERF: 2/sqrt(pi) exp(-x**2) instead of 3 x**2).
    "module function": """\
        ! adfort: routine=f dep=y indep=x
        ! adfort: init x=0.3:0.9
        module lapse
          implicit none
        contains
          real(8) function erf(x)
            real(8), intent(in) :: x
            erf = x**3
          end function erf
          subroutine f(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = erf(x) + sin(x)
          end subroutine f
        end module lapse
        """,
    # A user scale(x) of one argument (was a syntax error: the intrinsic
    # SCALE takes two).
    "one-argument scale": """\
        ! adfort: routine=f dep=y indep=x
        ! adfort: init x=0.3:0.9
        module sm
          implicit none
        contains
          real(8) function scale(x)
            real(8), intent(in) :: x
            scale = 2d0 * x**2
          end function scale
          subroutine f(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = scale(x) + x
          end subroutine f
        end module sm
        """,
    # A generic interface scale of a scalar and a rank-1 procedure.
    "generic interface": """\
        ! adfort: routine=f dep=y indep=x
        ! adfort: init n=4 x=0.3:0.9
        module gm
          implicit none
          interface scale
            module procedure scale_s, scale_v
          end interface
        contains
          real(8) function scale_s(x)
            real(8), intent(in) :: x
            scale_s = 2d0 * x**2
          end function scale_s
          function scale_v(x) result(y)
            real(8), intent(in) :: x(:)
            real(8) :: y(size(x))
            y = 3d0 * x**3
          end function scale_v
          subroutine f(n, x, y)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: y(n)
            y = scale(x)
            y(1) = y(1) + scale(x(2))
          end subroutine f
        end module gm
        """,
    # Module functions of another module of the file, used without ONLY
    # (HYPOT and GAMMA: the user's, not the intrinsics, whose derivatives differ); its private
    # erfc is not seen, ERFC is the intrinsic there.
    "use without only": """\
        ! adfort: routine=f dep=y indep=x
        ! adfort: init x=0.3:0.9
        module shapes
          implicit none
          private :: erfc
        contains
          real(8) function erfc(a)
            real(8), intent(in) :: a
            erfc = 5d0 * a
          end function erfc
          real(8) function hypot(a, b)
            real(8), intent(in) :: a, b
            hypot = a * b**2
          end function hypot
          real(8) function gamma(a)
            real(8), intent(in) :: a
            gamma = cos(a) * a
          end function gamma
        end module shapes
        module user
          implicit none
        contains
          subroutine f(x, y)
            use shapes
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = hypot(x, 2d0*x) + gamma(x) + erfc(x)
          end subroutine f
        end module user
        """,
    # Internal procedures (hoisted, their calls renamed with them).
    "internal": """\
        ! adfort: routine=f dep=y indep=x
        ! adfort: init x=0.3:0.9
        subroutine f(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          y = erf(x) + hypot(x, 1d0)
        contains
          real(8) function erf(a)
            real(8), intent(in) :: a
            erf = a**3
          end function erf
          real(8) function hypot(a, b)
            real(8), intent(in) :: a, b
            hypot = a * b + a**2
          end function hypot
        end subroutine f
        """,
    # An external erf: the user's where an interface body or EXTERNAL
    # declares it, the intrinsic where nothing does (as compilers call it).
    "external": """\
        ! adfort: routine=f dep=y indep=x
        ! adfort: init x=0.3:0.9
        real(8) function erf(a)
          real(8), intent(in) :: a
          erf = a**3
        end function erf
        subroutine by_interface(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          interface
            real(8) function erf(a)
              real(8), intent(in) :: a
            end function erf
          end interface
          y = erf(x)
        end subroutine by_interface
        subroutine by_external(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          real(8), external :: erf
          y = erf(x)
        end subroutine by_external
        subroutine intrinsic_one(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          y = erf(x)
        end subroutine intrinsic_one
        subroutine f(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          real(8) :: a, b, c
          call by_interface(x, a)
          call by_external(x, b)
          call intrinsic_one(x, c)
          y = a + 2d0*b + 3d0*c
        end subroutine f
        """,
    # A generic interface of an intrinsic's name extends the intrinsic: a
    # call none of its procedures takes is the intrinsic's.
    "generic extending an intrinsic": """\
        ! adfort: routine=f dep=y indep=x,w
        ! adfort: init x=0.3:0.9 w=-0.9:-0.3
        module sg
          implicit none
          interface sign
            module procedure sign_r
          end interface
        contains
          real(8) function sign_r(a)
            real(8), intent(in) :: a
            sign_r = a**2 + 1
          end function sign_r
          subroutine f(x, w, y)
            real(8), intent(in) :: x, w
            real(8), intent(out) :: y
            y = sign(x, w) * x + sign(w) * x
          end subroutine f
        end module sg
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_user_procedures_named_as_intrinsics(case, schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", ACCEPTED[case], schedule)


def test_without_inlining(tmp_path):
    """The call kept (and reversed as a call) when not inlined."""
    path = tmp_path / "k.f90"
    path.write_text(textwrap.dedent(ACCEPTED["module function"]))
    res = harness.check_fixture(path, "split", tmp_path / "run", extra_cli=["--no-inline"])
    assert res.rel_err < 1e-6, res.describe()


def test_fixed_form_external_of_an_intrinsic_name(tmp_path):
    """FORTRAN 77: an EXTERNAL function GAMMA of the file, implicitly
    typed (not the intrinsic, whose derivative differs), and a
    statement function ERF."""
    harness.check_source(tmp_path, "k.f", """\
C adfort: routine=f dep=y indep=x
C adfort: init x=0.3:0.9
      DOUBLE PRECISION FUNCTION GAMMA(X)
      DOUBLE PRECISION X
      GAMMA = X**3
      END
      SUBROUTINE F(X, Y)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      EXTERNAL GAMMA
      ERF(T) = T**2 + 1
      Y = GAMMA(X) + X * ERF(X)
      END
""", "split")


LAPSE = """\
module lapse
  implicit none
  private :: hypot
  interface gamma
    module procedure gamma_r8
  end interface
contains
  real(8) function hypot(x)
    real(8), intent(in) :: x
    hypot = 2d0 * x
  end function hypot
  real(8) function erf(x)
    real(8), intent(in) :: x
    erf = hypot(x)**3 / 8d0
  end function erf
  real(8) function gamma_r8(x)
    real(8), intent(in) :: x
    gamma_r8 = sin(x) * x
  end function gamma_r8
end module lapse
"""

COLUMN = """\
module column
  use lapse
  implicit none
contains
  subroutine f(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y
    integer :: i
    y = 0
    do i = 1, n
      y = y + erf(x(i)) + gamma(x(i)) * x(i) + hypot(x(i), 2d0)
    end do
  end subroutine f
end module column
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_procedures_of_a_module_found_with_the_search_path(schedule, tmp_path):
    """A module of another file (found with -I) used without ONLY: ERF's
    intrinsic rule was taken for its erf.  Its private hypot is not seen:
    HYPOT is the intrinsic there."""
    src = tmp_path / "fx" / "src"
    src.mkdir(parents=True)
    (src / "lapse.f90").write_text(LAPSE)
    (tmp_path / "fx" / "column.f90").write_text(COLUMN)
    (tmp_path / "fx" / "fixture.toml").write_text(textwrap.dedent("""\
        main = "column.f90"
        search = ["src"]
        routine = "f"
        dep = ["y"]
        indep = ["x"]
        compile = ["src/lapse.f90", "column.f90"]
        [init]
        n = 5
        x = [0.3, 0.9]
        y = 0.0
        """))
    fix = ch.load_fixture(tmp_path / "fx")
    res = ch.check(fix, fix.schedule(schedule), tmp_path / "run")
    assert res.max_rel_err < 1e-6, res.describe()


def test_an_intrinsic_a_visible_user_procedure_hides_is_an_error(tmp_path):
    """ABS's adjoint calls SIGN, which the user's sign hides in the
    generated module: an error, not a call of the user's sign."""
    path = tmp_path / "k.f90"
    path.write_text(textwrap.dedent("""\
        module hm
          implicit none
        contains
          real(8) function sign(a)
            real(8), intent(in) :: a
            sign = 2d0 * a
          end function sign
          subroutine f(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = abs(x) * sign(x)
          end subroutine f
        end module hm
        """))
    out = tmp_path / "k_ad.f90"
    res = subprocess.run([sys.executable, "-m", "adfort", "diff", str(path), "--routine", "f",
                          "--dep", "y", "--indep", "x", "-o", str(out)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 1, res.stderr
    assert not out.exists()
    assert re.search(r"k\.f90:\d+: the procedure 'sign' has the name of the intrinsic SIGN",
                     res.stderr), res.stderr
    assert "rename the procedure" in res.stderr


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_local_of_an_intrinsic_name_in_an_io_statement(schedule, tmp_path):
    """A local named like an intrinsic (SUM, COUNT, INDEX) printed in a
    diagnostic: PSyclone keeps the PRINT as a CodeBlock and would not
    rename the variable (an internal error, exit 2)."""
    harness.check_source(tmp_path, "k.f90", """\
! adfort: routine=outer dep=r indep=w
! adfort: init n=5 w=0.5:1.5 r=0
subroutine column_sum(n, w, r)
  integer, intent(in) :: n
  real(8), intent(in) :: w(n)
  real(8), intent(out) :: r
  real(8) :: sum, scale
  integer :: i, count
  sum = 0d0
  count = 0
  do i = 1, n
    sum = sum + w(i)**2
    if (w(i) > 1d0) count = count + 1
  end do
  scale = 1d0 + 0.1d0*count
  if (sum < 0d0) write (*, '(a, es12.4, i4)') 'negative sum', sum, count
  r = sum*scale
end subroutine column_sum
subroutine outer(n, w, r)
  integer, intent(in) :: n
  real(8), intent(in) :: w(n)
  real(8), intent(out) :: r
  call column_sum(n, w, r)
  r = r**2
end subroutine outer
""", schedule)
