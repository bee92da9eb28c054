"""``!$adfort split`` / ``!$adfort joint`` in the source (adfort/directives.py):
the reversal of one call, of every call to a routine, or of named routines,
as ``--link`` sets it from the command line.  Gradients under both
``--schedule`` values; the generated calls; the command line's precedence;
the messages for directives that apply to nothing or disagree."""

import re
import shutil

import pytest

import harness
from adfort.api import differentiate_file
from adfort.schedules import JointReversalSchedule, SplitReversalSchedule
from test_cli import assert_clean_failure, run

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

# A column model's time loop: a diffusion step (its own tridiagonal solve)
# and a relaxation source; the loop's calls carry directives.
COLUMN = """\
! adfort: routine=column_run dep=cost indep=t,kz
! adfort: init n=12 nt=5 dt=0.2 t=270:300 kz=0.5:2 tref=270:300
module column_model
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine relax(n, dt, tref, t)
    integer, intent(in) :: n
    real(dp), intent(in) :: dt, tref(n)
    real(dp), intent(inout) :: t(n)
    integer :: k
    do k = 1, n
      t(k) = t(k) + dt*(tref(k) - t(k))*0.1_dp*exp(-0.01_dp*abs(tref(k) - t(k)))
    end do
  end subroutine relax

!$adfort split
  subroutine diffuse(n, dt, kz, t)
    integer, intent(in) :: n
    real(dp), intent(in) :: dt, kz(n)
    real(dp), intent(inout) :: t(n)
    real(dp) :: a(n), b(n), cp(n), dpr(n), den
    integer :: k
    do k = 1, n
      a(k) = -dt*kz(k)
      b(k) = 1.0_dp + 2.0_dp*dt*kz(k)
    end do
    cp(1) = a(1)/b(1)
    dpr(1) = t(1)/b(1)
    do k = 2, n
      den = b(k) - a(k)*cp(k-1)
      cp(k) = a(k)/den
      dpr(k) = (t(k) - a(k)*dpr(k-1))/den
    end do
    t(n) = dpr(n)
    do k = n - 1, 1, -1
      t(k) = dpr(k) - cp(k)*t(k+1)
    end do
  end subroutine diffuse

  subroutine column_run(n, nt, dt, kz, tref, t, cost)
    integer, intent(in) :: n, nt
    real(dp), intent(in) :: dt, kz(n), tref(n)
    real(dp), intent(inout) :: t(n)
    real(dp), intent(out) :: cost
    integer :: it
    do it = 1, nt
      call diffuse(n, dt, kz, t)
!$adfort joint
      call relax(n, dt, tref, t)
    end do
    cost = sum(t**2)
  end subroutine column_run
end module column_model
"""


def _routine(text, name):
    low = harness.routine_source(text, name).lower()
    assert low, f"no {name} in the output"
    return low


@pytest.mark.parametrize("schedule", [SplitReversalSchedule(), JointReversalSchedule()],
                         ids=["split", "joint"])
def test_directives_choose_each_calls_reversal(tmp_path, schedule):
    path = tmp_path / "column.f90"
    path.write_text(COLUMN)
    text = differentiate_file(str(path), ["cost"], ["t", "kz"], schedule,
                              routine="column_run")[0]
    rec = _routine(text, "column_run_rec")
    # diffuse: split whatever --schedule says (the routine's directive);
    # relax: joint (the call's directive).
    assert "call diffuse_rec(" in rec and "call relax(" in rec, rec
    ret = _routine(text, "column_run_ret")
    assert "call diffuse_ret(" in ret and "call relax_rev(" in ret, ret


def test_named_directive_and_command_line_precedence(tmp_path):
    path = tmp_path / "column.f90"
    path.write_text(COLUMN.replace("!$adfort joint\n", "").replace(
        "!$adfort split\n", "!$adfort joint relax, diffuse\n"))
    out = tmp_path / "column_ad.f90"
    result = run(
        ["diff", str(path), "--dep", "cost", "--indep", "t,kz", "--routine", "column_run",
         "--schedule", "split", "--link", "column_run:diffuse=split", "-o", str(out)], tmp_path)
    assert result.returncode == 0, result.stderr
    rec = _routine(out.read_text(), "column_run_rec")
    # --link wins for diffuse; the named directive makes relax joint.
    assert "call diffuse_rec(" in rec and "call relax(" in rec, rec


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_gradient_with_directives(tmp_path, schedule):
    harness.check_source(tmp_path, "column_directives.f90", COLUMN, schedule)


@pytest.mark.parametrize("text, fragments", [
    (COLUMN.replace("!$adfort joint\n      call relax", "!$adfort joint\n      cost = 0\n"
                    "      call relax"),
     ["column.f90:49", "'!$adfort joint' is not followed by a CALL or a SUBROUTINE/FUNCTION"]),
    (COLUMN.replace("!$adfort joint\n", "!$adfort split relax\n!$adfort joint relax\n"),
     ["column.f90:50", "'!$adfort joint' contradicts '!$adfort split' at", "column.f90:49"]),
])
def test_directives_that_apply_to_nothing_or_disagree(tmp_path, text, fragments):
    path = tmp_path / "column.f90"
    path.write_text(text)
    before = path.read_text()
    result = run(["diff", str(path), "--dep", "cost", "--indep", "t,kz",
                  "--routine", "column_run"], tmp_path)
    assert_clean_failure(result, tmp_path, *fragments)
    assert path.read_text() == before
    assert re.search(r":\d+:", result.stderr)


def test_unknown_directive_is_an_error_not_ignored(tmp_path):
    path = tmp_path / "column.f90"
    path.write_text(COLUMN.replace("    do it = 1, nt\n",
                                   "!$adfort unroll(4)\n"
                                   "    do it = 1, nt\n"))
    result = run(["diff", str(path), "--dep", "cost", "--indep", "t,kz",
                  "--routine", "column_run"], tmp_path)
    assert_clean_failure(result, tmp_path, "column.f90:47",
                         "'!$adfort unroll' is not a directive adfort knows",
                         "split, joint, passive, checkpoint")
