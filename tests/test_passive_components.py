"""Components of derived types no value of which varies get no adjoint
terms (adfort/passive_components.py).  The gradients are checked against
finite differences by the fixture ocean_column_derived_state.f90 (whose
reference temperature, a component set from an independent, must stay
active: the fixture fails when it is taken for passive) and by the
derived-type fixtures of test_types.py; here, which components are
passive."""

import re
from pathlib import Path

import pytest

from adfort.api import differentiate_file
from adfort.schedules import JointReversalSchedule, SplitReversalSchedule
import harness

FIXTURE = Path(__file__).resolve().parent / "fortran_fixtures" / "ocean_column_derived_state.f90"


def _part(text, name):
    low = harness.routine_source(text, name).lower()
    assert low, f"no {name} in the output"
    return low


@pytest.mark.parametrize("schedule", [SplitReversalSchedule(), JointReversalSchedule()],
                         ids=["split", "joint"])
def test_grid_spacing_and_time_step_of_an_active_state_get_no_adjoint(schedule):
    text, _, _ = differentiate_file(str(FIXTURE), ["cost"], ["t0", "s0"], schedule,
                                    routine="column_cost")
    low = text.lower()
    # st%dz and st%dt are set from literals only: no term for them.
    assert not re.search(r"st_adj%(dz|dt) = st_adj%", low), low
    # st%tref is set from t0(1): its adjoint flows.
    assert "t0_adj(1) = t0_adj(1) + st_adj%tref" in low, low
    if isinstance(schedule, SplitReversalSchedule):
        # The densities of each level were taped for n2's derivative with
        # respect to st%dz; the stratification's own derivative needs none.
        rec = _part(text, "mixing_coeffs_rec")
        assert not re.search(r"value_tape\([^)]*\) = rho_eos_value", rec), rec
        # call diffuse(st, st%t, …): the state saved whole holds st%t, which
        # is not saved again (one save of st per call, two calls per step).
        rec = _part(text, "column_cost_rec")
        loop = rec[rec.index("do it = 1"):rec.index("enddo")]
        assert loop.count("= st%t\n") == 2 and loop.count("= st%s\n") == 2, loop


MODULE = """module state_types
  implicit none
  type :: grid_t
    real(8) :: dz
    real(8) :: w(4)
  end type grid_t
contains
  subroutine set_spacing(dz, x)
    real(8), intent(inout) :: dz
    real(8), intent(in) :: x
    dz = dz * x
  end subroutine set_spacing
  subroutine scaled(dz, x, y)
    real(8), intent(in) :: dz, x
    real(8), intent(out) :: y
    y = x / dz
  end subroutine scaled
end module state_types
"""

CASES = {
    # (body of k, whether g_adj%dz receives terms)
    "literal": ("  g%dz = 2.0d0\n", False),
    "named constant and passive component": (
        "  g%dz = 2.0d0\n  g%w(1) = g%dz * 3.0d0\n", False),
    "from an independent": ("  g%dz = x * 2.0d0\n", True),
    "through a copy of its type": ("  h%dz = x\n  g = h\n  g%w = x\n", True),
    "given to a routine that sets it": ("  g%dz = 2.0d0\n  call set_spacing(g%dz, x)\n", True),
    "read by intrinsic functions": (
        "  g%dz = 2.0d0\n  g%w(3) = max(g%dz, 1.5d0) * x + size(g%w)\n", False),
    "given to an intent(in) dummy": (
        "  g%dz = 2.0d0\n  call scaled(g%dz, x, s)\n  g%w(3) = s\n", False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_which_components_stay_active(case, tmp_path):
    # (A local of a type with an array component, handed to the returning
    # motion: its tape is of dynamic size.  That was an internal error.)
    body, varies = CASES[case]
    text = MODULE + (
        "! adfort: routine=k dep=y indep=x\n! adfort: init x=0.5:1.5\n"
        "subroutine k(x, y)\n  use state_types\n  real(8), intent(in) :: x\n"
        "  real(8), intent(out) :: y\n  type(grid_t) :: g, h\n  real(8) :: s\n"
        "  h%dz = 1.0d0\n  h%w = 0.0d0\n  g%w = x\n" + body +
        "  s = x * g%w(2) / g%dz\n  y = s * g%dz**2 + g%w(1) * g%w(3)\nend subroutine k\n")
    source = tmp_path / "k.f90"
    source.write_text(text)
    generated, _, _ = differentiate_file(str(source), ["y"], ["x"], SplitReversalSchedule(),
                                         routine="k")
    ret = _part(generated, "k_ret")
    assert bool(re.search(r"g_adj%dz = g_adj%dz [+-]", ret)) == varies, ret
    for schedule in ("split", "joint"):
        harness.check_source(tmp_path, f"k_{schedule}.f90", text, schedule)
