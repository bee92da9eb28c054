"""Adjoint liveness (adfort/liveness.py): a callee's f_rev, the reversal
its joint callers run, records only what its returning motion needs, in
one routine with it.  The derivatives are checked by the call fixtures and
benchmarks/ kernels under the joint schedule; here is what the generated
code must (not) contain."""

import re
from pathlib import Path

from adfort.api import differentiate_file
from adfort.schedules import JointReversalSchedule
import harness

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _routine(text, name):
    low = harness.routine_source(text, name).lower()
    assert low, f"no {name} in the output"
    return low


RESULTS_READ = """\
module moist_sum
  use moist_thermo, only: wp, thermo_point
  implicit none
contains
  subroutine moist_total(nlev, p, t, q, thetae, twet, total)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: p(nlev), t(nlev), q(nlev)
    real(wp), intent(out) :: thetae(nlev), twet(nlev), total
    integer :: k
    do k = 1, nlev
      call thermo_point(p(k), t(k), q(k), thetae(k), twet(k))
    end do
    total = sum(thetae) + sum(twet)
  end subroutine moist_total
end module moist_sum
"""


def test_callee_reversal_skips_the_results_and_the_hand_over(tmp_path):
    # The caller reads the results again (so it runs the call forward,
    # adfort/deferral.py): thermo_point_rev need not compute them.
    source = tmp_path / "moist_sum.f90"
    source.write_text(RESULTS_READ)
    text, _, _ = differentiate_file(str(source), ["total"], ["t", "q"],
                                    JointReversalSchedule(), routine="moist_total",
                                    extra_files=[str(BENCH / "moist_thermo.f90")])
    rev = _routine(text, "thermo_point_rev")
    # The callee's results are not computed again (its caller has them) ...
    assert not re.search(r"^\s*(thetae|twet) =", rev, re.M), rev
    # ... what their partials need is (tl, thetal: read by the adjoint) ...
    assert re.search(r"^\s*thetal = ", rev, re.M), rev
    # ... in the same routine as the adjoint: no tape hand-over, no call.
    assert "value_tape" not in rev and "call thermo_point_ret" not in rev, rev
    assert "thetal_adj" in rev


def test_callee_reversal_delivers_the_results_of_a_deferred_call():
    """moist_column's results are only thermo_point's: moist_column_rev
    leaves the call to thermo_point_rev, which computes them too."""
    text, _, _ = differentiate_file(str(BENCH / "moist_thermo.f90"), ["thetae", "twet"],
                                    ["t", "q"], JointReversalSchedule(),
                                    routine="moist_column")
    rev = _routine(text, "thermo_point_rev")
    assert re.search(r"^\s*thetae = ", rev, re.M) and re.search(r"^\s*twet = ", rev, re.M)
    assert "value_tape" not in rev and "call thermo_point_ret" not in rev, rev
    column = _routine(text, "moist_column_rev")
    assert "call thermo_point(" not in column and "call moist_column_rec" not in column


def test_loop_index_kept_when_its_body_is_dead():
    """A loop whose body computes only results still runs when its index
    is pushed for the returning motion; its dead statements are gone."""
    text, _, _ = differentiate_file(str(BENCH / "lorenz96_rk4.f"), ["cost"],
                                    ["x0", "forc"], JointReversalSchedule())
    rev = _routine(text, "l96tnd_rev")
    assert "dxdt(i) = " not in rev, rev
    assert "x_adj(im1)" in rev


def test_joint_rerun_leaves_out_what_no_adjoint_reads():
    """adfort/rerun.py: step_rev need not update the state (no adjoint
    reads the new values) nor, then, call the flux routine whose result
    only that update reads; the state's pushes and pops go with it.  The
    flux routine's own re-run skips its limiter loop (a cheap function whose
    values each reversed iteration computes again)."""
    # (The joint re-runs of callees that tape nothing too: not reversed split.)
    text, _, _ = differentiate_file(str(BENCH / "advection_limiter.f90"), ["cost"],
                                    ["c", "u"], JointReversalSchedule(), routine="run",
                                    options={"inline": False, "split_tapeless": False})
    step = _routine(text, "step_rev")
    assert "call fluxes(" not in step and "value_tape" not in step, step
    assert not re.search(r"^\s*c\(i\) = ", step, re.M), step
    assert "call fluxes_rev(" in step
    fluxes = _routine(text, "fluxes_rev")
    # in the reversed loop only, through limiter_rec (inlined by gfortran)
    assert fluxes.count("call limiter_rec(r, ") == 1 and "limiter(r)" not in fluxes, fluxes
    # f_rec (split callers) still records everything.
    assert re.search(r"^\s*c\(i\) = c\(i\) - ", _routine(text, "step_rec"), re.M)


def test_joint_rerun_keeps_calls_whose_results_an_adjoint_reads():
    """RK4: the last stage's tendency feeds only the state update, which
    no adjoint reads: three tendency calls are run again, not four."""
    text, _, _ = differentiate_file(str(BENCH / "lorenz96_rk4.f"), ["cost"],
                                    ["x0", "forc"], JointReversalSchedule(),
                                    options={"split_tapeless": False})
    rk4 = _routine(text, "l96rk4_rev")
    assert rk4.count("call l96tnd(") == 3, rk4
    assert rk4.count("call l96tnd_rev(") == 4, rk4


def test_no_loop_left_empty_by_a_dropped_reserve():
    """The tracer step's re-run under joint: its last loop nest was kept
    for the reserve call of pushes no adjoint needs; once the reserve goes,
    the loop goes too (it was left as an empty DO loop)."""
    text, _, _ = differentiate_file(str(BENCH / "tracer_2d_upwind.f90"), ["cost"],
                                    ["tr0", "kh"], JointReversalSchedule(),
                                    routine="tracer_run")
    assert not re.search(r"\n\s*do [^\n]*\n\s*enddo", text.lower()), \
        _routine(text, "tracer_step_rev")
