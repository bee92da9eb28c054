"""Callees whose recording tapes nothing are reversed split under the joint
schedule too (adfort/tapeless.py): their joint reversal would run them
forward a second time for no tape saved.  The derivatives of the kernels
named here are checked against finite differences under both schedules by
tests/test_benchmarks.py and tests/test_fixtures.py; these tests say which
reversal each call gets."""

import re
import textwrap
from pathlib import Path

import pytest

from adfort.api import differentiate_file
from adfort.schedules import (
    JointReversalSchedule, LinkReversalSchedule, SplitReversalSchedule)
import harness

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _sw(schedule):
    text, _, _ = differentiate_file(str(BENCH / "sw_cgrid_walls.f"), ["cost"],
                                    ["h0", "depth"], schedule, routine="swrun")
    return text.lower()


def test_linear_step_and_walls_are_reversed_split_under_joint():
    joint, split = _sw(JointReversalSchedule()), _sw(SplitReversalSchedule())
    ret = harness.routine_source(joint, "swrun_ret")
    # The step and the walls tape nothing: their returning motions run in
    # swrun's, after their recording motions ran in swrun_rec (no second
    # forward run of the momentum equations, no save of h per step).
    assert "call swstep_ret(" in ret and "call swwall_ret(" in ret, ret
    assert "_rev(" not in ret, ret
    # The joint output is the split one.
    assert joint.split("\n", 2)[2] == split.split("\n", 2)[2]


def test_a_link_the_user_names_joint_stays_joint():
    text = _sw(LinkReversalSchedule(weak_links=[("swrun", "swstep")],
                                    default=JointReversalSchedule()))
    ret = harness.routine_source(text, "swrun_ret")
    assert "call swstep_rev(" in ret and "call swwall_ret(" in ret, ret


NESTED = """\
    ! adfort: routine=outer dep=y indep=x
    ! adfort: init n=7 x=0.5:1.5
    module nested_tapes
      implicit none
      integer, parameter :: wp = kind(1.0d0)
    contains
      ! Overwrites x with a nonlinear function of itself: its recording
      ! tapes the values it destroys.
      subroutine squash(n, x)
        integer, intent(in) :: n
        real(wp), intent(inout) :: x(n)
        integer :: i
        do i = 1, n
          x(i) = x(i)*x(i) - 0.1_wp*x(i)
        end do
      end subroutine squash

      ! Linear itself, but calls squash.
      subroutine blend(n, x, y)
        integer, intent(in) :: n
        real(wp), intent(inout) :: x(n)
        real(wp), intent(inout) :: y(n)
        call squash(n, x)
        y = y + 0.5_wp*x
      end subroutine blend

      ! Linear, tapes nothing.
      subroutine smooth(n, y)
        integer, intent(in) :: n
        real(wp), intent(inout) :: y(n)
        integer :: i
        do i = 2, n
          y(i) = y(i) + 0.25_wp*y(i-1)
        end do
      end subroutine smooth

      subroutine outer(n, x, y)
        integer, intent(in) :: n
        real(wp), intent(inout) :: x(n)
        real(wp), intent(out) :: y(n)
        integer :: it
        y = 0.0_wp
        do it = 1, 3
          call blend(n, x, y)
          call smooth(n, y)
        end do
      end subroutine outer
    end module nested_tapes
    """


def test_callees_that_tape_stay_joint(tmp_path):
    source = tmp_path / "nested_tapes.f90"
    source.write_text(textwrap.dedent(NESTED))
    text, _, _ = differentiate_file(str(source), ["y"], ["x"], JointReversalSchedule(),
                                    routine="outer")
    text = text.lower()
    outer = harness.routine_source(text, "outer_ret")
    blend = harness.routine_source(text, "blend_rev")
    # squash tapes: reversed joint inside blend's reversal, and blend,
    # which must then put x back for it, with it.  smooth tapes nothing.
    assert "call squash_rev(" in blend, blend
    assert "call blend_rev(" in outer and "call smooth_ret(" in outer, outer
    assert not re.search(r"call smooth_rev\(", text)


@pytest.mark.parametrize("schedule", ["joint", "split"])
def test_callees_that_tape_stay_joint_gradient(tmp_path, schedule):
    harness.check_source(tmp_path, "nested_tapes.f90", textwrap.dedent(NESTED), schedule)


def test_callee_of_a_rerun_caller_stays_joint_if_its_reversal_reads_its_results():
    # tridiag_solve tapes nothing (its sweep is computed again), but its
    # returning motion reads the solution it computes: inside
    # diffuse_column_rev's re-run it would have to run forward, where a
    # joint link leaves it out; diffuse_column's caller is the top routine.
    text, _, _ = differentiate_file(str(BENCH / "vertical_diffusion_thomas.f90"), ["cost"],
                                    ["kz", "tr"], JointReversalSchedule(),
                                    routine="vdiff_cost")
    text = text.lower()
    column = harness.routine_source(text, "diffuse_column_rev_body") or \
        harness.routine_source(text, "diffuse_column_rev")
    assert "call tridiag_solve_rev(" in column and "tridiag_solve_rec(" not in column, column
