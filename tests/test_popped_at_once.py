"""Control values a callee's f_rev pushes last and pops first kept in a
local (adfort/popped_at_once.py).  The fixtures these apply to are
FD-checked with the others; here the shape of the code."""

import harness

FIXTURE = harness.FIXTURE_DIR / "relaxation_steps_while.f90"


def test_sub_step_count_kept_in_a_local(tmp_path):
    for schedule in ("split", "joint"):
        text = harness.differentiate_text(tmp_path, FIXTURE.name, FIXTURE.read_text(),
                                          ["--schedule", schedule])
        rev = harness.routine_source(text, "relax_level_rev")
        # The DO WHILE's count goes to a local, not on the control tape.
        assert "control_tape" not in rev, rev
        assert "popped_value = iteration_count" in rev, rev
        assert "do iteration_count = 1, popped_value, 1" in rev, rev
        # f_rec still pushes it: f_ret, run later, pops it.
        rec = harness.routine_source(text, "relax_level_rec")
        assert "control_tape(control_tape_top + 1) = iteration_count" in rec, rec


def test_value_peeked_around_a_callee_reversal_stays_on_the_tape():
    """A joint f_rev saving a module counter around a call it also puts
    back for the callee's f_rev reads the saved value, moves the top back
    over it, runs the callee's reversal, then pops it: that value is read
    twice and must stay on the tape (kept in a local, the second read
    found no tape: a run-time crash, fuzz case level 3, seed 1020027)."""
    from adfort.testing.campaign import run
    [result] = run([(1020027, 3)], jobs=1, tangent=False)
    assert result["cls"] == "pass", result["message"]
