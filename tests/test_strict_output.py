"""Generated declarations and output assembly: the generated file compiles,
unedited, with ``gfortran -std=f2008 -Wall`` whatever the source's kinds,
visibility and declaration order (small sources; the fixtures check the
derivatives)."""

import subprocess
import sys
import textwrap

import pytest

import harness

# real*8 values on a dynamic tape: the tape module must say real(kind=8).
BYTE_KINDS = textwrap.dedent("""\
    module damping
      implicit none
    contains
      subroutine damp(n, x, y)
        integer, intent(in) :: n
        real*8, intent(in) :: x(n)
        real*8, intent(inout) :: y(n)
        real*8 :: t
        integer :: k
        do k = 1, n
          t = y(k)
          y(k) = sin(t)*x(k)
        end do
      end subroutine damp
    end module damping
    """)

# A module whose default is private, a private helper run as it is under
# the joint schedule, a private constant, and r8 from a kinds module that
# has it from another.
PRIVATE = textwrap.dedent("""\
    module precision_base
      implicit none
      integer, parameter :: r8 = selected_real_kind(12)
    end module precision_base
    module model_kinds
      use precision_base
      implicit none
    end module model_kinds
    module drag_law
      use model_kinds
      implicit none
      private
      public :: drag
      real(r8), parameter :: cd = 1.2e-3_r8
    contains
      subroutine drag(n, u, tau)
        integer, intent(in) :: n
        real(r8), intent(in) :: u(n)
        real(r8), intent(out) :: tau(n)
        integer :: i
        do i = 1, n
          tau(i) = quadratic(u(i))
        end do
      end subroutine drag
      function quadratic(x) result(y)
        real(r8), intent(in) :: x
        real(r8) :: y
        y = cd*x*abs(x)
      end function quadratic
    end module drag_law
    """)

# WRF-style memory bounds declared after the arrays they size, the kind
# from a use inside the routine.
WRF_ORDER = textwrap.dedent("""\
    module wrf_kinds
      implicit none
      integer, parameter :: r8 = selected_real_kind(12)
    end module wrf_kinds
    subroutine relax_column(a, b, y, ims, ime)
      use wrf_kinds, only: r8
      real(r8), intent(in) :: a(ims:ime), b
      real(r8), intent(inout) :: y(ims:ime)
      integer, intent(in) :: ims, ime
      real(r8) :: tmp(ims:ime)
      integer :: k
      do k = ims, ime
        tmp(k) = y(k)*exp(-b*a(k))
        y(k) = tmp(k)**2 + a(k)
      end do
    end subroutine relax_column
    """)

CASES = {
    "byte_kinds": (BYTE_KINDS, ["--dep", "y", "--indep", "x,y"]),
    "private": (PRIVATE, ["--dep", "tau", "--indep", "u"]),
    "wrf_order": (WRF_ORDER, ["--dep", "y", "--indep", "a,b,y"]),
}


def _adfort(args, cwd):
    return subprocess.run([sys.executable, "-m", "adfort"] + args, cwd=cwd,
                          capture_output=True, text=True)


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_file_compiles_strictly(case, schedule, tmp_path):
    source, args = CASES[case]
    (tmp_path / "model.f90").write_text(source)
    result = _adfort(["diff", "model.f90", *args, "--schedule", schedule,
                      "-o", "model_ad.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    # The original compiles with gfortran's defaults (WRF_ORDER is a GNU
    # extension), the generated file with the strict flags.
    subprocess.run(["gfortran", "-c", "model.f90"], cwd=tmp_path, check=True)
    strict = subprocess.run(["gfortran", "-c", *harness.STRICT_FFLAGS, "model_ad.f90"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert strict.returncode == 0, strict.stderr + (tmp_path / "model_ad.f90").read_text()
    text = (tmp_path / "model_ad.f90").read_text().lower()
    if case == "private":
        assert "private :: quadratic_" not in text  # the motions are public


def test_private_module_variable_is_an_error(tmp_path):
    source = PRIVATE.replace("real(r8), parameter :: cd = 1.2e-3_r8",
                             "real(r8) :: cd = 1.2e-3_r8")
    (tmp_path / "model.f90").write_text(source)
    result = _adfort(["diff", "model.f90", "--dep", "tau", "--indep", "u",
                      "-o", "model_ad.f90"], tmp_path)
    assert result.returncode == 1
    assert "model.f90:28:" in result.stderr and "'cd'" in result.stderr \
        and "make it public" in result.stderr, result.stderr
    assert not (tmp_path / "model_ad.f90").exists()


def test_private_module_variables_are_named_together(tmp_path):
    # A module of private tables: each run named only the first.
    source = PRIVATE.replace("real(r8), parameter :: cd = 1.2e-3_r8",
                             "real(r8) :: cd = 1.2e-3_r8, ce = 1.1e-3_r8").replace(
        "y = cd*x*abs(x)", "y = cd*x*abs(x) + ce*x")
    (tmp_path / "model.f90").write_text(source)
    result = _adfort(["diff", "model.f90", "--dep", "tau", "--indep", "u",
                      "-o", "model_ad.f90"], tmp_path)
    assert result.returncode == 1
    assert "'cd', 'ce' are private variables" in result.stderr \
        and "public :: cd, ce" in result.stderr, result.stderr
