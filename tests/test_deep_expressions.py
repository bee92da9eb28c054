"""Expressions as deep as they are long: a flat sum of hundreds of terms
(generated chemistry, the production and loss of a species over a
mechanism's reactions) is a tree hundreds of levels deep.

Python's default recursion limit stopped a sum of 250 terms with an
internal error (exit 2); propagating an adjoint asked at every level
whether each operand carries a derivative, recursing through the whole
subtree below (quadratic in the length)."""

import time

import pytest

import harness


def _long_sum(terms):
    lines = ["! adfort: routine=rates dep=p indep=c,k",
             "! adfort: init c=0.5:1.5 k=0.5:1.5 p=0",
             "subroutine rates(c, k, p)",
             "  real(8), intent(in) :: c(8), k(8)",
             "  real(8), intent(out) :: p",
             "  p = 0.0d0 &"]
    for t in range(terms):
        i, j = t % 8 + 1, (3 * t + 1) % 8 + 1
        sign = "-" if t % 5 == 3 else "+"
        lines.append(f"    {sign} {1 + t % 7}.0d-3*k({i})*c({j}){'' if t % 3 else '*c(' + str(i) + ')'}"
                     + (" &" if t < terms - 1 else ""))
    lines.append("end subroutine rates")
    return "\n".join(lines) + "\n"


def test_a_sum_of_two_hundred_and_sixty_terms(tmp_path):
    started = time.perf_counter()
    harness.check_source(tmp_path, "k.f90", _long_sum(260), "split")
    # (About 10 s on the 2-core test machine, most of it fparser reading
    # the statement.)
    assert time.perf_counter() - started < 240


def test_the_python_api_has_room_for_deep_trees(tmp_path):
    """The command line ran in a thread with a big stack; the Python API
    (adfort.api, ADReverseContainerTrans.apply) ran on the caller's, and a
    sum of 400 terms was a RecursionError there."""
    import sys
    from adfort.api import differentiate_file
    from adfort.frontend import read_file
    from adfort.schedules import SplitReversalSchedule
    from adfort.transformations import ADReverseContainerTrans
    from psyclone.psyir.nodes import Routine
    source = tmp_path / "rates.f90"
    source.write_text(_long_sum(400))
    limit = sys.getrecursionlimit()
    text, _, _ = differentiate_file(str(source), ["p"], ["c", "k"], SplitReversalSchedule())
    assert "subroutine rates_rev" in text
    assert sys.getrecursionlimit() == limit
    out = ADReverseContainerTrans().apply(read_file(str(source)), "rates", ["p"], ["c", "k"],
                                          SplitReversalSchedule())
    assert any(r.name == "rates_rev" for r in out.walk(Routine))
