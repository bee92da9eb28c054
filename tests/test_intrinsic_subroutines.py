"""Intrinsic subroutines in differentiated routines (adfort/forward_only.py,
``KEPT_CALLS``).

Timers (``CPU_TIME``, ``SYSTEM_CLOCK``, ``DATE_AND_TIME``), the random
generator (``RANDOM_SEED``, ``RANDOM_NUMBER``), the command line and the
environment, and ``MVBITS`` are kept statements, like a READ: they run in
the forward motions where the original runs them, and what they set is a
may-write saved where the returning motion needs it.  They used to be
refused ("call it outside and pass its results in"), which put every
instrumented model routine out of reach.  A draw (``RANDOM_NUMBER``) must
not run twice: under a joint link or ``--jacobian`` it is an error, as a
READ from a file is.  The FD check of a stochastic column with timers is
the fixture ``sppt_column_timers.f90``; here: a fixed-form routine with
GO TOs, and the clear errors.
"""

import re
import textwrap

import pytest

import harness
from harness import assert_clean_failure, run_adfort as run

FIXED_FORM = """\
C Explicit relaxation of a column, F77: the iteration is a GO TO loop,
C timed with SYSTEM_CLOCK and CPU_TIME; MVBITS packs a diagnostic word.
C adfort: routine=relaxc dep=t indep=t,rk
C adfort: init n=8 niter=5 rk=0.1:0.3 t=250:300
      SUBROUTINE RELAXC(N, NITER, RK, T)
      IMPLICIT NONE
      INTEGER N, NITER
      DOUBLE PRECISION RK(N), T(N)
      DOUBLE PRECISION TN(100), TM
      REAL T0, T1, ELAPS
      INTEGER K, IT, IC0, IC1, IRATE, IWORD
      COMMON /TIMING/ ELAPS, IWORD
      CALL CPU_TIME(T0)
      CALL SYSTEM_CLOCK(IC0, IRATE)
      IT = 0
   10 CONTINUE
      IT = IT + 1
      TM = 0.0D0
      DO 20 K = 1, N
        TM = TM + T(K)/N
   20 CONTINUE
      DO 30 K = 1, N
        TN(K) = T(K) + RK(K)*(TM - T(K))*(1.0D0 + 0.01D0*SIN(T(K)))
   30 CONTINUE
      DO 40 K = 1, N
        T(K) = TN(K)
   40 CONTINUE
      IF (IT .LT. NITER) GO TO 10
      CALL SYSTEM_CLOCK(IC1)
      CALL MVBITS(IT, 0, 8, IWORD, 8)
      CALL CPU_TIME(T1)
      ELAPS = ELAPS + (T1 - T0)
      RETURN
      END
"""


def test_timers_in_a_goto_routine_match_finite_differences(tmp_path):
    for schedule in ("split", "joint"):
        harness.check_source(tmp_path, "relaxc.f", FIXED_FORM, schedule)
        text = (tmp_path / schedule / "relaxc_ad.f90").read_text().upper()
        # run in the recording, never in the returning motion
        returning = re.findall(r"SUBROUTINE RELAXC_RET\w*\(.*?END SUBROUTINE", text, re.S)
        assert returning and not any("CPU_TIME" in body for body in returning), text
        assert "CALL CPU_TIME(T0)" in text and "CALL MVBITS(IT, 0, 8, IWORD, 8)" in text


STOCHASTIC = """\
module noise
  implicit none
contains
  subroutine perturb(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y(n)
    real(8) :: r(n)
    call random_number(r)
    y = x*(1d0 + 0.1d0*(r - 0.5d0))
  end subroutine perturb
  subroutine model(n, x, cost)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: cost
    real(8) :: y(n)
    call perturb(n, x, y)
    cost = sum(y**2)
  end subroutine model
end module noise
"""


def test_random_number_in_a_callee_reversed_joint_is_an_error(tmp_path):
    (tmp_path / "noise.f90").write_text(STOCHASTIC)
    args = ["diff", "noise.f90", "--routine", "model", "--dep", "cost", "--indep", "x"]
    assert_clean_failure(run(args + ["--schedule", "joint"], tmp_path),
                  tmp_path, "noise.f90:9:", "CALL RANDOM_NUMBER would run more than once",
                  "draw other numbers", "--link model:perturb=split")
    # reversed split, the draw runs once: fine
    done = run(args + ["--schedule", "joint", "--link", "model:perturb=split",
                       "-o", "noise_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr
    adjoint = (tmp_path / "noise_ad.f90").read_text().lower()
    returning = re.findall(r"subroutine perturb_ret\w*\(.*?end subroutine", adjoint, re.S)
    assert returning and not any("random_number" in body for body in returning), adjoint
    assert "call random_number(r)" in adjoint


def test_random_number_into_an_active_variable_is_an_error(tmp_path):
    (tmp_path / "fill.f90").write_text(textwrap.dedent("""\
        subroutine fill(n, x, y)
          integer n
          real(8) x(n), y
          y = sum(x**2)
          call random_number(x)
          y = y + sum(x)
        end subroutine
        """))
    assert_clean_failure(run(["diff", "fill.f90", "--routine", "fill", "--dep", "y", "--indep", "x"],
                      tmp_path),
                  tmp_path, "fill.f90:5:", "CALL RANDOM_NUMBER sets the active variable 'x'",
                  "another (passive) variable")


def test_other_intrinsic_subroutines_are_still_refused(tmp_path):
    (tmp_path / "co.f90").write_text(textwrap.dedent("""\
        subroutine step(n, x, y)
          integer n, i, s
          real(8) x(n), y
          s = n
          call co_sum(s)
          y = 0
          do i = 1, n
            y = y + x(i)**2
          end do
        end subroutine
        """))
    assert_clean_failure(run(["diff", "co.f90", "--routine", "step", "--dep", "y", "--indep", "x"],
                      tmp_path),
                  tmp_path, "co.f90:5:", "CALL CO_SUM (an intrinsic subroutine) is not supported")


CHECKPOINTED = """\
module mck
contains
  subroutine step(n, x, r)
    integer, intent(in) :: n
    real(8), intent(inout) :: x(n)
    real(8), intent(inout) :: r(n)
    {step}
    x = x + 0.1d0*x*r
  end subroutine step
  subroutine run(n, nt, x, cost)
    integer, intent(in) :: n, nt
    real(8), intent(inout) :: x(n)
    real(8), intent(out) :: cost
    real(8) :: r(n)
    integer :: it
    cost = 0
    r = 0.5d0
    !$adfort checkpoint every(4)
    do it = 1, nt
      call step(n, x, r)
      cost = cost + sum(x**2)
    end do
  end subroutine run
end module mck
"""


@pytest.mark.parametrize("step, fragments", [
    ("call random_number(r)", ["this CALL RANDOM_NUMBER would run more than once"]),
    ("read(*, *) r", ["this READ would run more than once"]),
    ("integer, save :: k = 0\n    k = k + 1\n    r = r*(1d0 + 0.01d0*k)",
     ["'k' is a SAVE'd variable of 'step'"]),
])
def test_a_checkpointed_step_runs_again(step, fragments, tmp_path):
    """The steps of a checkpointed time loop run forward again from their
    snapshots: a draw, a READ from a file and SAVE'd state that changes
    what the step computes were accepted there, and silently gave the
    derivative of other data."""
    (tmp_path / "ck.f90").write_text(CHECKPOINTED.format(step=step))
    assert_clean_failure(run(["diff", "ck.f90", "--routine", "run", "--dep", "cost", "--indep", "x"],
                      tmp_path),
                  tmp_path, *fragments,
                  "the checkpointed time loop of 'run' runs its steps forward again",
                  "do not checkpoint that loop")
