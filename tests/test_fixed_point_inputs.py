"""What the reversal of a fixed-point or checkpointed loop reads besides
the state its step iterates (adfort/transformations/fixed_point.py,
adfort/transformations/checkpoint.py): the loop's reversal runs the step
again, so the values the step reads on entry must be there in the
returning motion, and the parts of the state array the step reads but
never writes are inputs of the fixed-point map."""

import pytest

import harness

SCHEDULES = ["split", "joint"]

# A Newton iteration for a wet-bulb-like temperature: the step reads the
# local tk (= t), set before the loop; its returning motion alone does not
# (f is linear in tk), so tk was never given to the returning motion, whose
# recorded steps then ran on an uninitialised tk (rel_err 1).
NEWTON = """\
! adfort: routine=wb dep=cost indep=t
! adfort: init t=255:300 q=0.001:0.008
module wb_mod
  implicit none
contains
  subroutine wb(t, q, cost)
    real(8), intent(in) :: t, q
    real(8), intent(out) :: cost
    real(8) :: tw, dtw, f, df, es, tk
    tk = t
    tw = tk - 2.0d0
    dtw = 1.0d0
    !$adfort fixed-point(tol=1e-14, maxiter=200)
    do while (abs(dtw) > 1.0d-12)
      es = exp(0.07d0*(tw - 273.15d0))*1.0d-2
      f = (tk - tw) - 2500.0d0*(es - q)
      df = -1.0d0 - 2500.0d0*0.07d0*es
      dtw = -f/df
      tw = tw + dtw
    end do
    cost = (tw - 273.15d0)**2
  end subroutine wb
end module wb_mod
"""

# The same for a checkpointed loop, whose reversal advances from snapshots:
# the step reads tk, its returning motion does not (rel_err 0.38).
CHECKPOINTED = """\
! adfort: routine=ck dep=cost indep=t
! adfort: init t=1:2
module ck_mod
  implicit none
contains
  subroutine ck(t, cost)
    real(8), intent(in) :: t
    real(8), intent(out) :: cost
    real(8) :: tw, tk
    integer :: i
    tk = t
    tw = tk - 2.0d0
    !$adfort checkpoint binomial(snapshots=2)
    do i = 1, 10
      tw = 0.5d0*sin(tw) + tk
    end do
    cost = tw**2
  end subroutine ck
end module ck_mod
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_fixed_point_step_reads_a_local_set_before_the_loop(schedule, tmp_path):
    harness.check_source(tmp_path, "wb.f90", NEWTON, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_checkpointed_step_reads_a_local_set_before_the_loop(schedule, tmp_path):
    harness.check_source(tmp_path, "ck.f90", CHECKPOINTED, schedule)
