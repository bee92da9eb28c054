"""Tangent mode (``adfort diff --mode forward``, r_fwd) on the fixtures:

- every single-file fixture: the tangent against the adjoint in the
  dot-product test ⟨ȳ, J ẋ⟩ = ⟨Jᵀȳ, ẋ⟩ (1e-12 relative in double
  precision), against central differences (1e-6), and r_fwd's primal
  outputs against r's; under the split schedule of the adjoint, and the
  joint one for the fixtures with calls;
- a sample of the multi-file fixtures (modules, COMMON, functions,
  internal procedures, preprocessing) likewise;
- the calling convention, the rules table's tangent forms, clean errors.
"""

import subprocess
import sys

import pytest

import calls_harness as ch
import harness
import tangent_harness as th

FIXTURES = harness.fixtures()
DOT_TOL = 1e-12            # tangent vs adjoint: rounding only
DOT_TOL_SINGLE = 1e-5      # ... with default (single precision) reals
FD_TOL = 1e-6
PRIMAL_TOL = 1e-10

# Fixtures tangent mode rejects, with the reason it gives.
REJECTED = {
    # A model state held in a derived type (reverse mode only so far).
    "derived_state_alloc_components.f90": "tangent mode does not differentiate "
                                          "derived-type variables yet",
    "ocean_column_derived_state.f90": "tangent mode does not differentiate "
                                      "derived-type variables yet",
    "swm_modern_constructs.f90": "tangent mode does not differentiate "
                                 "derived-type variables yet",
}

# The fixtures whose adjoint differs between split and joint (they call
# routines of their own): the dot-product test under joint too.
JOINT = ["basis_blend_axpy.f", "column_nudge_common_copy.f",
         "column_quadrature_external_args.f", "gauss_kronrod_rule.f",
         "implicit_column_tendencies.f90", "lu_factor_blas.f",
         "lu_solve_assumed_size_blas.f", "monin_obukhov.f90",
         "potential_temperature.f90", "radiative_relax_sequence.f",
         "relaxation_steps_while.f90", "strided_norm_assign_goto.f",
         "wind_stress_optional_function.f90", "workarray_sections.f"]

# Multi-file fixtures: modules and their variables as dependents and
# independents, COMMON blocks, functions, internal procedures, -D, -I.
CALLS = ["box_model_state", "humidity_functions", "lorenz_common_blocks",
         "internal_procedures", "column_eos_search_path", "mixed_layer_shared_state"]


def _check(result):
    tol = DOT_TOL_SINGLE if result.single else DOT_TOL
    assert result.dot_err < tol, result.describe()
    assert result.fd_err < FD_TOL, result.describe()
    assert result.primal_err < PRIMAL_TOL, result.describe()


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_tangent_of_every_fixture(path, tmp_path):
    if path.name in REJECTED:
        meta = harness.parse_metadata(path)
        with pytest.raises(harness.HarnessError, match=REJECTED[path.name]):
            th.generate(path, meta, "forward", None, tmp_path / "out.f90")
        return
    # (in process: the sweep over every fixture stays quick; the CLI is
    # exercised by the other tests)
    _check(th.check_tangent(path, "split", tmp_path, in_process=True))


@pytest.mark.parametrize("name", JOINT)
def test_tangent_against_joint_adjoint(name, tmp_path):
    _check(th.check_tangent(harness.FIXTURE_DIR / name, "joint", tmp_path, in_process=True))


@pytest.mark.parametrize("name", CALLS)
def test_tangent_of_calls_fixture(name, tmp_path):
    fix = next(f for f in ch.fixtures() if f.name == name)
    _check(th.check_calls_tangent(fix, ch.SPLIT, tmp_path))


def test_joint_list_names_existing_fixtures():
    names = {p.name for p in FIXTURES}
    assert set(JOINT) <= names and set(REJECTED) <= names
    assert set(CALLS) <= {f.name for f in ch.fixtures()}


def _diff(*args, cwd):
    return subprocess.run([sys.executable, "-m", "adfort", "diff", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True)


KERNEL = """\
module box
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp) :: drag = 0.5_wp
contains
  subroutine step(n, x, f, y)
    integer, intent(in) :: n
    real(wp), intent(in) :: x(n), f
    real(wp), intent(out) :: y
    real(wp) :: s
    integer :: i
    s = 0
    do i = 1, n
      s = s + drag * sin(x(i)) * f
    end do
    y = s**2
  end subroutine step
end module box
"""


def test_calling_convention(tmp_path):
    """r_fwd in module m_fwd: the arguments in order, each active one
    followed by its tangent with the same intent; the default output name."""
    (tmp_path / "box.f90").write_text(KERNEL)
    proc = _diff("box.f90", "--dep", "y", "--indep", "x,f", "--mode", "forward", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "box_fwd.f90").read_text()
    assert "module box_fwd" in text and "use box" in text
    assert "subroutine step_fwd(n, x, x_d, f, f_d, y, y_d)" in text
    assert "real(kind=wp), dimension(n), intent(in) :: x_d" in text
    assert "real(kind=wp), intent(out) :: y_d" in text
    assert "tape" not in text          # tangent mode keeps no tape
    assert "reversal schedule" not in text.splitlines()[1]


def test_module_variable_tangents(tmp_path):
    """A module variable as independent: its tangent drag_d lives in box_fwd."""
    (tmp_path / "box.f90").write_text(KERNEL)
    proc = _diff("box.f90", "--dep", "y", "--indep", "x,box::drag", "--mode", "forward",
                 "-o", "out.f90", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "out.f90").read_text()
    assert "public :: drag_d" in text.replace("real(kind=wp), ", "")
    assert "subroutine step_fwd(n, x, x_d, f, y, y_d)" in text


def test_forward_and_reverse_link_together(tmp_path):
    """m_fwd and m_ad are separate modules: one program can use both."""
    (tmp_path / "box.f90").write_text(KERNEL)
    for mode, out in (("forward", "box_fwd.f90"), ("reverse", "box_ad.f90")):
        proc = _diff("box.f90", "--dep", "y", "--indep", "x,f", "--mode", mode, "-o", out,
                     cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    (tmp_path / "main.f90").write_text("""\
program main
  use box, only: wp
  use box_fwd, only: step_fwd
  use box_ad, only: step_rev
  implicit none
  real(wp) :: x(3), xd(3), xb(3), f, fd, fb, y, yd, yb
  x = [0.1_wp, 0.2_wp, 0.3_wp]; f = 2; xd = [1, 2, 3]; fd = 1
  call step_fwd(3, x, xd, f, fd, y, yd)
  xb = 0; fb = 0; yb = 1
  call step_rev(3, x, xb, f, fb, y, yb)
  print *, abs(yd - (sum(xb * xd) + fb * fd)) / abs(yd)
end program main
""")
    fc = harness.gfortran()
    subprocess.run([fc, "box.f90", "box_fwd.f90", "box_ad.f90", "main.f90", "-o", "main"],
                   cwd=tmp_path, check=True, capture_output=True)
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True)
    assert float(out.stdout) < 1e-13


def test_unsupported_is_a_clean_error(tmp_path):
    """A routine without source with only a user adjoint: tangent mode asks
    for its tangent, naming file:line; no output file."""
    (tmp_path / "m.f90").write_text("""\
subroutine outer(x, y)
  real(8), intent(in) :: x
  real(8), intent(out) :: y
  call blackbox(x, y)
end subroutine outer
""")
    (tmp_path / "lib.f90").write_text("""\
subroutine blackbox_rev(x, x_adj, y, y_adj)
  real(8), intent(in) :: x
  real(8), intent(inout) :: x_adj
  real(8), intent(out) :: y
  real(8), intent(inout) :: y_adj
  y = 2 * x
  x_adj = x_adj + 2 * y_adj
  y_adj = 0
end subroutine blackbox_rev
""")
    proc = _diff("m.f90", "--dep", "y", "--indep", "x", "--mode", "forward",
                 "--adjoint-lib", "lib.f90", "-o", "out.f90", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "m.f90:4" in proc.stderr and "blackbox_fwd" in proc.stderr
    assert not (tmp_path / "out.f90").exists()


def test_user_tangent_from_adjoint_lib(tmp_path):
    """With blackbox_fwd next to blackbox_rev, r_fwd calls it."""
    test_unsupported_is_a_clean_error(tmp_path)
    with open(tmp_path / "lib.f90", "a") as lib:
        lib.write("""\
subroutine blackbox_fwd(x, x_d, y, y_d)
  real(8), intent(in) :: x, x_d
  real(8), intent(out) :: y, y_d
  y = 2 * x
  y_d = 2 * x_d
end subroutine blackbox_fwd
""")
    proc = _diff("m.f90", "--dep", "y", "--indep", "x", "--mode", "forward",
                 "--adjoint-lib", "lib.f90", "-o", "out.f90", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "call blackbox_fwd(x, x_d, y, y_d)" in (tmp_path / "out.f90").read_text()


@pytest.mark.parametrize("name,routine,dep,indep", [
    ("ocean_vertical_mix", "vertical_mix", "state,heat", "state,kappa"),
    ("column_calls_state", "column_step", "cost", "s,rate")])
def test_derived_types_rejected_cleanly(name, routine, dep, indep, tmp_path):
    """Derived-type variables carrying derivatives: not in tangent mode yet,
    an error at the routine's file:line, no output."""
    model = harness.FIXTURE_DIR / "types" / name / "model.f90"
    proc = _diff(model, "--routine", routine, "--dep", dep, "--indep", indep, "--mode",
                 "forward", "-o", "out.f90", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert f"{model}:" in proc.stderr and "derived type" in proc.stderr
    assert not (tmp_path / "out.f90").exists()


def test_every_pullback_rule_has_a_tangent():
    from adfort import rules
    missing = [name for name, rule in rules.RULES.items()
               if isinstance(rule, rules.Pullback) and rule.tangent is None]
    assert not missing


SHIFTED_SCALAR = """\
! adfort: routine=shifted dep=y indep=s
! adfort: init n=7 s=0.5:1.5 a=0.5:1.5
module shifts
  implicit none
contains
  subroutine shifted(n, s, a, y)
    integer, intent(in) :: n
    real(8), intent(in) :: s, a(n)
    real(8), intent(out) :: y
    ! Only s is active: the tangent of s + a (or of s*2 + a) is the scalar
    ! s_d standing for every element, which CSHIFT and EOSHIFT cannot take
    ! (fuzz L2 seed 1018039).
    y = sum(cshift(s + a, 1) * a) + sum(eoshift(s*2 + a, 1) * a) &
        + sum(eoshift(s**2 + a, -2, boundary=s) * a)
  end subroutine shifted
end module shifts
"""


def test_tangent_of_shifting_a_scalar_tangent(tmp_path):
    path = tmp_path / "shifted.f90"
    path.write_text(SHIFTED_SCALAR)
    _check(th.check_tangent(path, "split", tmp_path / "run"))
