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
