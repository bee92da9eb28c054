"""Derived types and pointers used as aliases: gradients of the fixtures
in tests/fortran_fixtures/types/ (see types_harness.py) against central
differences under both schedules, and clear errors for what is not
supported."""

from __future__ import annotations

import pytest

import types_harness as th

FIXTURES = th.fixtures()


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])
def test_gradient(fixture, schedule, tmp_path):
    lhs, rhs, primal = th.check(fixture, schedule, tmp_path)
    error = abs(lhs - rhs) / max(abs(lhs), abs(rhs), 1e-300)
    assert error < th.TOL, f"<xbar, xdot> = {lhs!r}, <ybar, dy> = {rhs!r}: rel. error {error:.2e}"
    assert primal < 1e-12, f"r_rev's primal results differ from r's by {primal:.2e}"
