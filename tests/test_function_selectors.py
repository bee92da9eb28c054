"""User functions in conditions: a SELECT CASE selector that calls one is
evaluated once, and a CHARACTER result whose length depends on the
function's argument is kept in a temporary of the caller's terms.

PSyclone reads SELECT CASE as an IF chain comparing a copy of the selector
with each case value (two for a range): each copy called the function
again, so ``r_rev`` drew other random numbers than ``r`` (wrong primal
results and gradients).  A temporary for ``low(opt)`` of ``character(len=
len(s))`` was declared with the callee's dummy ``s`` (did not compile)."""

import shutil
import subprocess
import sys
import textwrap

import pytest

import harness

RANDOM_CLASSES = """\
module stochastic_physics
  implicit none
  integer :: seed = 12345
contains
  integer function next_class()
    ! a linear congruential stream: each call draws the next class
    seed = mod(seed*1103 + 12345, 65536)
    next_class = mod(seed, 5)
  end function next_class
  subroutine perturb(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y
    integer :: i
    y = 0d0
    do i = 1, n
      select case (next_class())
      case (0)
        y = y + x(i)
      case (1:2)
        y = y + 2d0*x(i)**2
      case default
        y = y + 3d0*x(i)**3
      end select
    end do
  end subroutine perturb
end module stochastic_physics
"""

DRIVER = """\
program check_stream
  use stochastic_physics
  use stochastic_physics_ad
  implicit none
  real(8) :: x(8), xa(8), y1, y2, ya, h, yp, ym, dot
  integer :: i
  x = [(1.0d0 + 0.1d0*i, i = 1, 8)]
  seed = 12345
  call perturb(8, x, y1)
  seed = 12345
  xa = 0d0
  ya = 1d0
  call perturb_rev(8, x, xa, y2, ya)
  h = 1d-6
  seed = 12345
  call perturb(8, x + h, yp)
  seed = 12345
  call perturb(8, x - h, ym)
  dot = sum(xa)
  print *, abs(y1 - y2), abs(dot - (yp - ym)/(2*h))/abs(dot)
end program check_stream
"""


# A SELECT CASE nested in another's CASE DEFAULT draws again: PSyIR's IF
# chain looks the same as one more case of the outer construct.
NESTED_CLASSES = RANDOM_CLASSES.replace("""      case (1:2)
        y = y + 2d0*x(i)**2
      case default
        y = y + 3d0*x(i)**3
      end select""", """      case default
        select case (next_class())
        case (1:2)
          y = y + 2d0*x(i)**2
        case default
          y = y + 3d0*x(i)**3
        end select
      end select""")


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("source, draws", [(RANDOM_CLASSES, 1), (NESTED_CLASSES, 2)])
def test_a_case_selector_calling_a_function_is_evaluated_once(source, draws, schedule,
                                                              tmp_path):
    assert source.count("next_class()") == draws + 1
    compiler = shutil.which("gfortran")
    (tmp_path / "k.f90").write_text(source)
    (tmp_path / "driver.f90").write_text(DRIVER)
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", "k.f90", "--routine",
                           "perturb", "--dep", "y", "--indep", "x", "--schedule", schedule,
                           "-o", "k_ad.f90"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    generated = (tmp_path / "k_ad.f90").read_text()
    rec = generated[generated.index("subroutine perturb_rec"):]
    rec = rec[:rec.index("end subroutine perturb_rec")]
    assert rec.lower().count("next_class()") == draws, rec
    build = subprocess.run([compiler, "k.f90", "k_ad.f90", "driver.f90", "-o", "run"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run(["./run"], cwd=tmp_path, capture_output=True, text=True)
    primal_err, rel_err = (float(v) for v in out.stdout.split())
    assert primal_err == 0.0 and rel_err < 1e-6, out.stdout


CHARACTER_RESULT = """\
    ! adfort: routine=drag dep=y indep=x
    ! adfort: init n=3 x=1:2
    module scheme_options
      implicit none
      character(len=8) :: option = 'Linear'
    contains
      pure function lower(s) result(r)
        character(len=*), intent(in) :: s
        character(len=len(s)) :: r
        integer :: i, c
        r = s
        do i = 1, len(s)
          c = iachar(s(i:i))
          if (c >= 65 .and. c <= 90) r(i:i) = achar(c + 32)
        end do
      end function lower
      subroutine drag(n, x, y)
        integer, intent(in) :: n
        real(8), intent(in) :: x(n)
        real(8), intent(out) :: y
        integer :: k
        y = 0d0
        do k = 1, n
          select case (lower(trim(option)))
          case ('linear')
            y = y + 2d0*x(k)
          case default
            y = y + x(k)**2
          end select
          if (lower(option) == 'quadratic') y = y*x(k)
        end do
      end subroutine drag
    end module scheme_options
    """


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_character_function_result_of_its_arguments_length(schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", CHARACTER_RESULT, schedule)


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_calls_of_one_expression_run_left_to_right(schedule, tmp_path):
    """A function caching its last result in a module variable, called
    twice in one expression: the calls were taken out right to left, so
    the cache held the first call's value (gfortran leaves the second's):
    primal and gradient error 0.29."""
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=twocalls dep=y indep=x
        ! adfort: init x=0.5:2
        module cache_mod
          implicit none
          real(8) :: last = 0d0
        contains
          function f(x, a) result(r)
            real(8), intent(in) :: x, a
            real(8) :: r
            r = a*x*x
            last = r
          end function f
        end module cache_mod
        subroutine twocalls(x, y)
          use cache_mod
          implicit none
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          y = f(x, 1d0) + f(f(x, 2d0), 3d0)
          y = y + last
        end subroutine twocalls
        """, schedule)
