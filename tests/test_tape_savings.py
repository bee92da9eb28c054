"""What the recording motion leaves off the tape (adfort/taping.py,
adfort/fresh_elements.py, adfort/iterations.py): checked on the generated
code of the benchmarks/ kernels.  Their derivatives are checked against
finite differences by tests/test_benchmarks.py, and the mechanisms by the
fixture implicit_column_tendencies.f90 (each one's failure there was seen
with the mechanism broken on purpose)."""

import re
from pathlib import Path

import pytest

from adfort.api import differentiate_file
from adfort.schedules import SplitReversalSchedule

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _part(text, name):
    low = text.lower()
    start = low.index(f"subroutine {name}(")
    return low[start:low.index(f"end subroutine {name}", start)]


@pytest.fixture(scope="module")
def advection():
    text, _, _ = differentiate_file(str(BENCH / "advection_limiter.f90"), ["cost"],
                                    ["c", "u"], SplitReversalSchedule(), routine="run")
    return text


def test_split_caller_does_not_save_what_the_callee_puts_back(advection):
    # step_ret puts back every c it overwrote: run keeps no copy of c.
    run = _part(advection, "run_rec")
    assert "= c\n" not in run and not re.search(r"value_tape\([^)]*\) = c\b", run), run
    step = _part(advection, "step_rec")
    assert re.search(r"value_tape\(value_tape_top \+ 1\) = c\(i\)", step), step


def test_ratio_given_to_a_function_is_computed_again(advection):
    # r = (c(i) - c(i-1))/dc, then limiter(r): r is computed again in the
    # reversed iteration, not taped.
    rec, ret = _part(advection, "fluxes_rec"), _part(advection, "fluxes_ret")
    assert not re.search(r"value_tape\([^)]*\) = r\n", rec.split("enddo")[0]), rec
    assert re.search(r"r = \(c\(i\) - c\(i - 1\)\) / dc", ret), ret


def test_solver_sweep_tapes_no_fresh_elements():
    text, _, _ = differentiate_file(str(BENCH / "vertical_diffusion_thomas.f90"),
                                    ["cost"], ["kz", "tr"], SplitReversalSchedule(),
                                    routine="vdiff_cost")
    rec = _part(text, "tridiag_solve_rec")
    loops = rec.split("do k")[1:]
    for loop in loops:
        body = loop.split("enddo")[0]
        assert not re.search(r"value_tape\([^)]*\) = (cp|dp|x)\(k\)", body), body
    # The caller does not save the solver's intent(out) result on entry.
    column = _part(text, "diffuse_column_rec")
    assert not re.search(r"value_tape\([^)]*\) = t\n", column), column


def test_stencil_difference_is_computed_again():
    text, _, _ = differentiate_file(str(BENCH / "burgers_upwind_misfit.f90"), ["cost"],
                                    ["u0", "nu"], SplitReversalSchedule())
    rec, ret = _part(text, "burgers_cost_rec"), _part(text, "burgers_cost_ret")
    assert "= diff\n" not in rec.split("cost = 0.0_wp")[0], rec
    assert "diff = u(ip) - 2.0_wp * u(i) + u(im)" in ret, ret
    # adv is read by no adjoint: not computed again.
    assert "adv = " not in ret, ret
