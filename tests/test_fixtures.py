"""Finite-difference checks of generated adjoints on every Fortran fixture,
plus self-tests proving the harness itself can tell right from wrong."""

from pathlib import Path

import pytest

import harness

FIXTURES = harness.fixtures()
SCHEDULES = ["split", "joint"]
TOL = 1e-6
PRIMAL_TOL = 1e-10   # r_rev's primal outputs vs r (simplification may reorder)
# A few fixtures covering modules, externals, fixed form and inout actives.
OPTION_FIXTURES = ["seawater_eos.f90", "logistic_growth.f90",
                   "arrhenius_rate.f90", "wall_heat_flux.f",
                   "potential_temperature.f90"]
OPTIONS = ["--verbose", "--no-simplify", "--no-inline-operation-adjoints"]


def _ids(paths):
    return [p.name for p in paths]


def test_fixture_set_is_substantial():
    assert len(FIXTURES) >= 12, FIXTURES


# --------------------------------------------------------------------------
# generated code
# --------------------------------------------------------------------------

@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("fixture", FIXTURES, ids=_ids(FIXTURES))
def test_adjoint_matches_finite_differences(fixture, schedule, workdir):
    res = harness.check_fixture(fixture, schedule, workdir)
    assert res.rel_err < TOL, res.describe()
    assert res.primal_err < PRIMAL_TOL, \
        "r_rev does not return the primal results of r\n" + res.describe()


@pytest.mark.parametrize("fixture", FIXTURES, ids=_ids(FIXTURES))
def test_generated_code_compiles_strictly(fixture, workdir):
    harness.check_compiles(fixture, "split", workdir)


JAC_FIXTURES = [f for f in FIXTURES if harness.parse_metadata(f).dep]


@pytest.mark.parametrize("fixture", JAC_FIXTURES, ids=_ids(JAC_FIXTURES))
def test_jacobian_matches_finite_differences(fixture, workdir):
    res = harness.check_jacobian(fixture, "split", workdir)
    assert res.max_rel_err < TOL, res.describe()
    assert res.primal_err < PRIMAL_TOL, \
        "r_jacobian does not return the primal results of r\n" + res.describe()


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("name", OPTION_FIXTURES)
def test_cli_options_keep_adjoint_correct(name, option, workdir):
    fixture = harness.FIXTURE_DIR / name
    res = harness.check_fixture(fixture, "split", workdir, extra_cli=[option])
    assert res.rel_err < TOL, f"with {option}\n" + res.describe()


# --------------------------------------------------------------------------
# harness self-tests: hand-written adjoints, no generator involved
# --------------------------------------------------------------------------

SELFTEST_SRC = """\
! adfort: routine=f dep=z indep=x,y
! adfort: init x=1:2 y=0.2:1.2 n=3
module selftest_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine f(x, y, n, z)
    real(wp), intent(in) :: x, y
    integer, intent(in) :: n
    real(wp), intent(out) :: z
    z = x*sin(y) + n*x**2
  end subroutine f
end module selftest_mod
"""

SELFTEST_AD = """\
module selftest_mod_ad
  use selftest_mod
  implicit none
contains
  subroutine f_rev(x, x_adj, y, y_adj, n, z, z_adj)
    real(wp), intent(in) :: x, y
    real(wp), intent(inout) :: x_adj, y_adj, z_adj
    integer, intent(in) :: n
    real(wp), intent(out) :: z
    z = x*sin(y) + n*x**2
    x_adj = x_adj + z_adj*(sin(y) + 2*n*x)
    y_adj = y_adj + z_adj*x*cos(y)
    z_adj = 0
  end subroutine f_rev
  subroutine f_jacobian(x, y, n, z, jac)
    real(wp), intent(in) :: x, y
    integer, intent(in) :: n
    real(wp), intent(out) :: z
    real(wp), intent(out) :: jac(1, 2)
    z = x*sin(y) + n*x**2
    jac(1, 1) = sin(y) + 2*n*x
    jac(1, 2) = x*cos(y)
  end subroutine f_jacobian
end module selftest_mod_ad
"""

# Fixed-form external routine whose argument a is both dep and indep.
INOUT_SRC = """\
C adfort: routine=g dep=a indep=a,b
C adfort: init a=0.5:1.5 b=2:3
      SUBROUTINE G(A, B)
      IMPLICIT NONE
      DOUBLE PRECISION A, B
      A = A*B + A
      A = EXP(0.1D0*A)
      END
"""

INOUT_AD = """\
subroutine g_rev(a, a_adj, b, b_adj)
  implicit none
  double precision :: a, a_adj, b, b_adj
  double precision :: a0, a1
  a0 = a
  a1 = a0*b + a0
  a = exp(0.1d0*a1)
  a_adj = a_adj*0.1d0*exp(0.1d0*a1)
  b_adj = b_adj + a_adj*a0
  a_adj = a_adj*(b + 1.0d0)
end subroutine g_rev
"""


def _write(workdir: Path, name: str, text: str) -> Path:
    path = Path(workdir) / name
    path.write_text(text)
    return path


def _selftest(workdir, adjoint_text, src=SELFTEST_SRC, src_name="st.f90"):
    src_path = _write(workdir, src_name, src)
    ad_path = _write(workdir, "hand_ad.f90", adjoint_text)
    return src_path, ad_path


def test_harness_accepts_correct_adjoint(workdir):
    src, ad = _selftest(workdir, SELFTEST_AD)
    res = harness.check_fixture(src, None, workdir / "run", adjoint_source=ad)
    assert res.rel_err < 1e-8, res.describe()
    assert res.primal_err == 0.0


def test_harness_detects_wrong_derivative(workdir):
    # d/dy of x*sin(y) written as x*sin(y) instead of x*cos(y)
    src, ad = _selftest(workdir, SELFTEST_AD.replace("z_adj*x*cos(y)",
                                                     "z_adj*x*sin(y)"))
    res = harness.check_fixture(src, None, workdir / "run", adjoint_source=ad)
    assert res.rel_err > 100 * TOL, res.describe()


def test_harness_detects_overwritten_adjoint(workdir):
    # x_adj = ... instead of x_adj = x_adj + ...: breaks the increment rule
    # while the gradient itself is right (lhs0 agrees, lhs does not).
    src, ad = _selftest(workdir, SELFTEST_AD.replace("x_adj = x_adj + ",
                                                     "x_adj = "))
    res = harness.check_fixture(src, None, workdir / "run", adjoint_source=ad)
    assert harness.rel_error(res.lhs0, res.rhs) < 1e-8
    assert res.rel_err > 100 * TOL, res.describe()


def test_harness_detects_wrong_primal(workdir):
    src, ad = _selftest(workdir, SELFTEST_AD.replace(
        "    z = x*sin(y) + n*x**2\n    x_adj", "    z = 0\n    x_adj"))
    res = harness.check_fixture(src, None, workdir / "run", adjoint_source=ad)
    assert res.rel_err < 1e-8
    assert res.primal_err > 100 * TOL


def test_harness_jacobian_right_and_wrong(workdir):
    src, ad = _selftest(workdir, SELFTEST_AD)
    good = harness.check_jacobian(src, None, workdir / "good",
                                  adjoint_source=ad)
    assert good.max_rel_err < 1e-8, good.describe()
    bad_ad = _write(workdir, "bad_ad.f90",
                    SELFTEST_AD.replace("jac(1, 2) = x*cos(y)",
                                        "jac(1, 2) = 1.01_wp*x*cos(y)"))
    bad = harness.check_jacobian(src, None, workdir / "bad",
                                 adjoint_source=bad_ad)
    assert bad.max_rel_err > 100 * TOL, bad.describe()


def test_harness_inout_active_fixed_form_external(workdir):
    src, ad = _selftest(workdir, INOUT_AD, INOUT_SRC, "g.f")
    meta = harness.parse_metadata(src)
    assert meta.dep == ["a"] and meta.indep == ["a", "b"]
    res = harness.check_fixture(src, None, workdir / "ok", adjoint_source=ad)
    assert res.rel_err < 1e-8, res.describe()
    # Forgetting the direct path a_in -> a_out (the "+ a0" term).
    wrong = _write(workdir, "wrong_ad.f90",
                   INOUT_AD.replace("a_adj*(b + 1.0d0)", "a_adj*b"))
    res = harness.check_fixture(src, None, workdir / "bad",
                                adjoint_source=wrong)
    assert res.rel_err > 100 * TOL, res.describe()


@pytest.mark.parametrize("fixture", FIXTURES, ids=_ids(FIXTURES))
def test_harness_plumbing_with_fd_adjoint(fixture, workdir):
    """Every fixture through the harness with an FD-based reference adjoint:
    validates drivers for each kind of signature and that the fixture is
    smooth and well-conditioned at its sampled point."""
    ad = _write(workdir, "fd_ad.f90", harness.write_fd_adjoint(fixture))
    res = harness.check_fixture(fixture, None, workdir / "rev",
                                adjoint_source=ad)
    assert res.rel_err < 1e-6, res.describe()
    jac = harness.check_jacobian(fixture, None, workdir / "jac",
                                 adjoint_source=ad)
    assert jac.max_rel_err < 1e-6, jac.describe()


def test_metadata_parsing(workdir):
    src = _write(workdir, "m.f", "C adfort: routine=w dep=q,t indep=x\n"
                 "! adfort: init x=1:2 n=4 h=8 flag=.true.\n"
                 "c adfort: fflags=-fdefault-real-8 -fdefault-double-8\n"
                 "      SUBROUTINE W\n      END\n")
    meta = harness.parse_metadata(src)
    assert meta.routine == "w"
    assert meta.dep == ["q", "t"] and meta.indep == ["x"]
    assert meta.init == {"x": (1.0, 2.0), "n": "4", "h": "8",
                         "flag": ".true."}
    assert meta.fflags == ["-fdefault-real-8", "-fdefault-double-8"]


def test_harness_reports_compiler_errors_readably(workdir):
    src, ad = _selftest(workdir, SELFTEST_AD.replace("z_adj = 0",
                                                     "z_adj = undeclared"))
    with pytest.raises(harness.HarnessError) as err:
        harness.check_fixture(src, None, workdir / "run", adjoint_source=ad)
    text = str(err.value)
    assert "hand_ad.f90" in text or "st_ad.f90" in text
    assert "undeclared" in text


# --------------------------------------------------------------------------
# the bundled example (what `make demo` runs)
# --------------------------------------------------------------------------

EXAMPLES = harness.REPO_ROOT / "examples"


def test_example_seawater_adjoint(workdir):
    meta = harness.Metadata(routine="density", dep=["rho"],
                            indep=["temp", "salt"],
                            init={"temp": (-2.0, 30.0), "salt": (30.0, 40.0),
                                  "p": (0.0, 6000.0)})
    for schedule in SCHEDULES:
        res = harness.check_fixture(EXAMPLES / "seawater.f90", schedule,
                                    workdir / schedule, metadata=meta)
        assert res.rel_err < TOL, res.describe()


def test_demo_driver_runs(workdir):
    """The Makefile's demo steps: generate, compile -O2, run; the driver
    exits non-zero if adjoint and finite differences disagree."""
    src = EXAMPLES / "seawater.f90"
    meta = harness.Metadata(dep=["rho"], indep=["temp", "salt"])
    generated = harness.generate(src, meta, None, workdir / "seawater_ad.f90")
    harness._run([harness.gfortran(), "-O2", "-o", "demo", src, generated,
                  EXAMPLES / "demo_driver.f90"], workdir, "compiling the demo",
                 show=[generated])
    proc = harness._run([workdir / "demo"], workdir, "running the demo")
    assert "OK: adjoint gradient agrees" in proc.stdout, proc.stdout
