"""Values of costly calls kept for the adjoint (adfort/stored_values.py):
what the generated code must contain.  The derivatives are checked by the
fixtures and benchmarks/ kernels (moist_thermo, saturation formulas…)."""

import re
import textwrap

from adfort.api import differentiate_file
from adfort.schedules import SplitReversalSchedule
import harness

FORMULA = """\
subroutine bolton(p, t, e, thetae)
  real(8), intent(in) :: p, t, e
  real(8), intent(out) :: thetae
  real(8) :: tl, r
  integer :: k
  r = 0.622d0*(e/(p - e))**1.05d0
  tl = 2840.0d0/(3.5d0*log(t) - log(e) - 4.805d0) + 55.0d0
  thetae = t*(1000.0d0/p)**(0.2854d0*(1.0d0 - 0.28d0*r)) &
           *exp((3.376d0/tl - 0.00254d0)*r*1.0d3*(1.0d0 + 0.81d0*r))
  do k = 1, 3
    thetae = thetae + 1.0d-3*exp(-thetae/300.0d0)
  end do
end subroutine bolton
"""


def _part(text, name):
    low = harness.routine_source(text, name).lower()
    assert low, f"no {name} in the output"
    return low


def test_costly_values_are_kept_outside_loops_only(tmp_path):
    src = tmp_path / "bolton.f90"
    src.write_text(textwrap.dedent(FORMULA))
    text, _, _ = differentiate_file(str(src), ["thetae"], ["t", "e"], SplitReversalSchedule())
    rec, ret = _part(text, "bolton_rec"), _part(text, "bolton_ret")
    # Set once before the statement, read by it ...
    assert re.search(r"exp_value = exp\(\(3\.376d0 / tl", rec), rec
    assert re.search(r"pow_value(_\d)? = \(1000\.0d0 / p\) \*\* ", rec), rec
    assert re.search(r"thetae = t \* pow_value(_\d)? \* exp_value", rec), rec
    # ... and by its adjoint, which computes neither again.
    assert "exp((3.376d0" not in ret and "(1000.0d0 / p) **" not in ret, ret
    # A power's base partial reuses the power: y*x**y/x, guarded at x = 0.
    assert re.search(r"pow_value(_\d)? / merge\(", ret), ret
    # In the loop, EXP is computed again (no value added to the tape).
    assert re.search(r"exp\(-thetae / 300\.0d0\)", ret), ret
