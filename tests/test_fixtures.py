"""Finite-difference checks of generated adjoints on every Fortran fixture,
plus self-tests proving the harness itself can tell right from wrong."""

import dataclasses
from pathlib import Path

import pytest

import harness

FIXTURES = harness.fixtures()
SCHEDULES = ["split", "joint"]
TOL = 1e-6
PRIMAL_TOL = 1e-10   # r_rev's primal outputs vs r (simplification may reorder)
# A few fixtures covering modules, externals, fixed form, inout actives,
# loops, branches and arrays.
OPTION_FIXTURES = ["seawater_eos.f90", "logistic_growth.f90",
                   "arrhenius_rate.f90", "wall_heat_flux.f",
                   "potential_temperature.f90", "burgers_upwind.f90",
                   "column_physics.f90"]
OPTIONS = ["--verbose", "--no-simplify", "--no-inline-operation-adjoints"]

# ---- features adfort does not have yet ------------------------------------
# Tests of fixtures named here are expected to fail (strict: an unexpected
# pass fails the suite, so remove a name as soon as the feature lands).
# Allocatable work arrays and array Jacobians have landed
# (implicit_diffusion_alloc.f90 and the array Jacobians pass), so the lists
# are (nearly) empty; to park a fixture again, add its file name.
#
# Local ALLOCATABLE work arrays (ALLOCATE/DEALLOCATE in the routine):
# every test of these fixtures, e.g. ["implicit_diffusion_alloc.f90"].
ALLOCATABLE_PENDING = []
# --jacobian with array dependents/independents: the r_jacobian test of
# these fixtures.  Their independents are assumed-size (A(*)..D(*) of
# tridiagonal_solve.f), whose extents r_jacobian cannot know (adfort says so).
ARRAY_JACOBIAN_PENDING = ["tridiagonal_solve.f", "strided_norm_assign_goto.f",
                          "tridiag_inplace_lapack_style.f", "lu_solve_assumed_size_blas.f"]
# --jacobian of a routine that draws random numbers: r_jacobian records
# the routine once per row, and adfort refuses (the draws would differ).
JACOBIAN_REFUSED = ["sppt_column_timers.f90"]
PENDING_REASONS = {
    "allocatable": "allocatable work arrays not yet supported",
    "jacobian": "--jacobian with these array dependents/independents not "
                "supported (yet)",
}


def _ids(paths):
    return [p.name for p in paths]


def _pending(paths, jacobian=False):
    """pytest params of the fixtures, the pending ones marked xfail."""
    params = []
    for path in paths:
        marks = []
        if path.name in ALLOCATABLE_PENDING:
            marks.append(pytest.mark.xfail(
                strict=True, reason=PENDING_REASONS["allocatable"]))
        elif jacobian and path.name in JACOBIAN_REFUSED:
            marks.append(pytest.mark.xfail(
                strict=True, raises=harness.HarnessError,
                reason="--jacobian re-runs RANDOM_NUMBER: refused by adfort"))
        elif jacobian and path.name in ARRAY_JACOBIAN_PENDING:
            marks.append(pytest.mark.xfail(
                strict=True, reason=PENDING_REASONS["jacobian"]))
        params.append(pytest.param(path, marks=marks, id=path.name))
    return params


def test_pending_lists_name_existing_fixtures():
    names = {p.name for p in FIXTURES}
    for name in ALLOCATABLE_PENDING + ARRAY_JACOBIAN_PENDING + JACOBIAN_REFUSED:
        assert name in names, f"pending list names a missing fixture {name}"


def test_array_jacobian_pending_lists_only_array_fixtures():
    """ARRAY_JACOBIAN_PENDING must not hide a scalar fixture's Jacobian."""
    for path in FIXTURES:
        if path.name not in ARRAY_JACOBIAN_PENDING:
            continue
        meta = harness.parse_metadata(path)
        sig = harness.parse_signature(path, meta.routine)
        assert any(sig.arg(n).is_array for n in meta.dep + meta.indep), \
            f"{path.name} has no array active variable: drop it from " \
            "ARRAY_JACOBIAN_PENDING"


def test_fixture_set_is_substantial():
    assert len(FIXTURES) >= 12, FIXTURES
    # ... and at least 12 of them with loops / arrays (issue 3).
    with_arrays = []
    for path in FIXTURES:
        meta = harness.parse_metadata(path)
        sig = harness.parse_signature(path, meta.routine)
        if any(a.is_array for a in sig.args):
            with_arrays.append(path.name)
    assert len(with_arrays) >= 12, with_arrays


# --------------------------------------------------------------------------
# generated code
# --------------------------------------------------------------------------

# Both schedules compute the same adjoint with the same arithmetic: they
# must agree to round-off, far tighter than the finite-difference check
# (a joint reversal from slightly wrong inputs once passed that at 6e-7).
SCHEDULE_AGREEMENT = 1e-10
_LHS: dict = {}

# Sizes for the tests whose cost grows with the square of the problem (a
# Jacobian column, or a finite difference, per independent element).  The
# adjoint test above runs each fixture at its own size: column_work_arrays
# is big there to take its automatic arrays' allocated (not stack) path.
SQUARE_COST_SIZES = {"column_work_arrays.f90": {"ncol": "20"}}


def _square_cost_metadata(fixture):
    """The fixture's metadata, with :data:`SQUARE_COST_SIZES` applied."""
    meta = harness.parse_metadata(fixture)
    sizes = SQUARE_COST_SIZES.get(fixture.name)
    if sizes:
        meta = dataclasses.replace(meta, init={**meta.init, **sizes})
    return meta


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("fixture", _pending(FIXTURES))
def test_adjoint_matches_finite_differences(fixture, schedule, workdir):
    # check_fixture first compiles the generated file alone with
    # -std=f2008 -Wall -Werror=unused-variable (harness.compile_strict).
    res = harness.check_fixture(fixture, schedule, workdir)
    assert res.rel_err < TOL, res.describe()
    assert res.primal_err < PRIMAL_TOL, \
        "r_rev does not return the primal results of r\n" + res.describe()
    _LHS[fixture.name, schedule] = res.lhs
    for other in SCHEDULES:
        if other != schedule and (fixture.name, other) in _LHS:
            theirs = _LHS[fixture.name, other]
            assert harness.rel_error(res.lhs, theirs) < SCHEDULE_AGREEMENT, \
                f"{schedule} and {other} adjoints differ: {res.lhs!r} vs {theirs!r}\n" \
                + res.describe()


JAC_FIXTURES = [f for f in FIXTURES if harness.parse_metadata(f).dep]


@pytest.mark.parametrize("fixture", _pending(JAC_FIXTURES, jacobian=True))
def test_jacobian_matches_finite_differences(fixture, workdir):
    res = harness.check_jacobian(fixture, "split", workdir,
                                 metadata=_square_cost_metadata(fixture))
    assert res.max_rel_err < TOL, res.describe()
    assert res.primal_err < PRIMAL_TOL, \
        "r_jacobian does not return the primal results of r\n" + res.describe()


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[pytest.mark.xfail(
        strict=True, reason=PENDING_REASONS["allocatable"])]
        if n in ALLOCATABLE_PENDING else []) for n in OPTION_FIXTURES])
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


@pytest.mark.harness_selftest
@pytest.mark.parametrize("fixture", FIXTURES, ids=_ids(FIXTURES))
def test_harness_plumbing_with_fd_adjoint(fixture, workdir):
    """Every fixture through the harness with an FD-based reference adjoint:
    validates drivers for each kind of signature and that the fixture is
    smooth and well-conditioned at its sampled point."""
    meta = _square_cost_metadata(fixture)
    ad = _write(workdir, "fd_ad.f90", harness.write_fd_adjoint(fixture, metadata=meta))
    res = harness.check_fixture(fixture, None, workdir / "rev",
                                adjoint_source=ad, metadata=meta)
    assert res.rel_err < 1e-6, res.describe()
    jac = harness.check_jacobian(fixture, None, workdir / "jac",
                                 adjoint_source=ad, metadata=meta)
    assert jac.max_rel_err < 1e-6, jac.describe()


# Arrays: explicit bounds with a halo x(0:n+1), a scalar active, an array
# and a scalar dependent.  Jacobian rows: y(1..n) then z; columns: x(0..n+1)
# then s (array element order, --dep/--indep order).
ARRAY_SRC = """\
! adfort: routine=f dep=y,z indep=x,s
! adfort: init n=6 x=0.5:1.5 s=1:2
module arr_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine f(n, x, s, y, z)
    integer, intent(in) :: n
    real(wp), intent(in) :: x(0:n + 1), s
    real(wp), intent(out) :: y(n), z
    integer :: i
    do i = 1, n
      y(i) = s*x(i - 1)*x(i + 1)
    end do
    z = sum(x**2)
  end subroutine f
end module arr_mod
"""

ARRAY_AD = """\
module arr_mod_ad
  use arr_mod
  implicit none
contains
  subroutine f_rev(n, x, x_adj, s, s_adj, y, y_adj, z, z_adj)
    integer, intent(in) :: n
    real(wp), intent(in) :: x(0:n + 1), s
    real(wp), intent(inout) :: x_adj(0:n + 1), s_adj, y_adj(n), z_adj
    real(wp), intent(out) :: y(n), z
    integer :: i
    call f(n, x, s, y, z)
    do i = 1, n
      x_adj(i - 1) = x_adj(i - 1) + y_adj(i)*s*x(i + 1)
      x_adj(i + 1) = x_adj(i + 1) + y_adj(i)*s*x(i - 1)
      s_adj = s_adj + y_adj(i)*x(i - 1)*x(i + 1)
    end do
    x_adj = x_adj + z_adj*2*x
    y_adj = 0
    z_adj = 0
  end subroutine f_rev
  subroutine f_jacobian(n, x, s, y, z, jac)
    integer, intent(in) :: n
    real(wp), intent(in) :: x(0:n + 1), s
    real(wp), intent(out) :: y(n), z
    real(wp), intent(out) :: jac(n + 1, n + 3)
    integer :: i
    call f(n, x, s, y, z)
    jac = 0
    do i = 1, n
      jac(i, i) = s*x(i + 1)          ! d y(i) / d x(i-1): column i
      jac(i, i + 2) = s*x(i - 1)      ! d y(i) / d x(i+1): column i+2
      jac(i, n + 3) = x(i - 1)*x(i + 1)
    end do
    jac(n + 1, 1:n + 2) = 2*x
  end subroutine f_jacobian
end module arr_mod_ad
"""

# Fixed-form external routine with an assumed-size input (shape metadata)
# and an inout array that is both dependent and independent.
ASSUMED_SRC = """\
C adfort: routine=g dep=u indep=u,a
C adfort: init n=5 u=1:2 a=0.1:0.5
C adfort: shape a=n+1
      SUBROUTINE G(N, A, U)
      IMPLICIT NONE
      INTEGER N, I
      DOUBLE PRECISION A(*), U(N)
      DO 10 I = N, 1, -1
         U(I) = U(I)*A(I) + SIN(A(I+1))
   10 CONTINUE
      END
"""

ASSUMED_AD = """\
subroutine g_rev(n, a, a_adj, u, u_adj)
  implicit none
  integer :: n, i
  double precision :: a(*), a_adj(*), u(n), u_adj(n)
  double precision :: u0(n)
  u0 = u
  do i = n, 1, -1
    u(i) = u(i)*a(i) + sin(a(i+1))
  end do
  do i = 1, n
    a_adj(i) = a_adj(i) + u_adj(i)*u0(i)
    a_adj(i+1) = a_adj(i+1) + u_adj(i)*cos(a(i+1))
    u_adj(i) = u_adj(i)*a(i)
  end do
end subroutine g_rev
"""


def test_harness_arrays_right_and_wrong(workdir):
    src = _write(workdir, "arr.f90", ARRAY_SRC)
    good_ad = _write(workdir, "good_ad.f90", ARRAY_AD)
    res = harness.check_fixture(src, None, workdir / "ok",
                                adjoint_source=good_ad)
    assert res.rel_err < 1e-8, res.describe()
    assert res.primal_err == 0.0
    # An index slip in one element's contribution.
    bad_ad = _write(workdir, "bad_ad.f90", ARRAY_AD.replace(
        "y_adj(i)*s*x(i - 1)\n", "y_adj(i)*s*x(i)\n"))
    res = harness.check_fixture(src, None, workdir / "bad",
                                adjoint_source=bad_ad)
    assert res.rel_err > 100 * TOL, res.describe()
    # Forgetting the halo element x(n+1) in the increment (lhs0 and lhs
    # disagree only through the preset check when x_adj is overwritten).
    over_ad = _write(workdir, "over_ad.f90", ARRAY_AD.replace(
        "x_adj = x_adj + z_adj*2*x", "x_adj = z_adj*2*x"))
    res = harness.check_fixture(src, None, workdir / "over",
                                adjoint_source=over_ad)
    assert res.rel_err > 100 * TOL, res.describe()


def test_harness_array_jacobian_layout(workdir):
    src = _write(workdir, "arr.f90", ARRAY_SRC)
    good_ad = _write(workdir, "good_ad.f90", ARRAY_AD)
    jac = harness.check_jacobian(src, None, workdir / "ok",
                                 adjoint_source=good_ad)
    assert jac.max_rel_err < 1e-8, jac.describe()
    assert len(jac.entries) == 7 * 9
    # Columns of x(i-1) and x(i+1) swapped: a layout error must show.
    swapped = _write(workdir, "swapped_ad.f90", ARRAY_AD.replace(
        "jac(i, i) = s*x(i + 1)", "jac(i, i) = s*x(i - 1)").replace(
        "jac(i, i + 2) = s*x(i - 1)", "jac(i, i + 2) = s*x(i + 1)"))
    bad = harness.check_jacobian(src, None, workdir / "bad",
                                 adjoint_source=swapped)
    assert bad.max_rel_err > 100 * TOL, bad.describe()


def test_harness_assumed_size_fixed_form(workdir):
    src = _write(workdir, "gsize.f", ASSUMED_SRC)
    sig = harness.parse_signature(src, "g")
    meta = harness.parse_metadata(src)
    harness.resolve_shapes(sig, meta)
    assert sig.arg("a").dims == [("1", "*")] and sig.arg("a").assumed
    assert sig.arg("a").bounds == [(1, 6)] and sig.arg("u").bounds == [(1, 5)]
    ad = _write(workdir, "g_ad.f90", ASSUMED_AD)
    res = harness.check_fixture(src, None, workdir / "ok", adjoint_source=ad)
    assert res.rel_err < 1e-8, res.describe()
    wrong = _write(workdir, "w_ad.f90", ASSUMED_AD.replace(
        "u_adj(i) = u_adj(i)*a(i)", "u_adj(i) = u_adj(i)"))
    res = harness.check_fixture(src, None, workdir / "bad",
                                adjoint_source=wrong)
    assert res.rel_err > 100 * TOL, res.describe()


def test_harness_requires_shape_for_assumed_arrays(workdir):
    src = _write(workdir, "g.f", ASSUMED_SRC.replace("C adfort: shape a=n+1\n",
                                                     ""))
    ad = _write(workdir, "g_ad.f90", ASSUMED_AD)
    with pytest.raises(harness.HarnessError, match="shape a="):
        harness.check_fixture(src, None, workdir / "x", adjoint_source=ad)


def test_bounds_evaluation():
    env = {"n": "50", "m": 20, "nh": "n/3 + 1"}
    assert harness.eval_int("n+1", env) == 51
    assert harness.eval_int("2*(n - 1)/m", env) == 4
    assert harness.eval_int("-7/2", env) == -3          # truncation
    assert harness.eval_int("max(nh, 3_ik)", env) == 17
    assert harness.eval_int("mod(n, 7)", env) == 1
    with pytest.raises(harness.HarnessError, match="unknown integer"):
        harness.eval_int("k + 1", env)


def test_signature_of_array_arguments(workdir):
    src = _write(workdir, "s.f90", """\
module s_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0), nlev = 4
contains
  subroutine s(n, a, b, c, d, e, opt, mask)
    integer, intent(in) :: n
    real(wp), intent(in) :: a(*), b(:), c(0:)
    real(wp), intent(inout) :: d(n, nlev)
    real(wp), intent(inout) :: e(-1:n+1, *)
    character(len=*), intent(in) :: opt
    logical, intent(in) :: mask(n)
  end subroutine s
end module s_mod
""")
    sig = harness.parse_signature(src)
    meta = harness.Metadata(dep=["d"], indep=["a"],
                            init={"n": "3", "opt": "'upwind'",
                                  "mask": ".true."},
                            shape={"a": ["n"], "b": ["2*n"], "c": ["n+1"],
                                   "e": ["n+3", "2"]})
    harness.resolve_shapes(sig, meta)
    got = {a.name: a.bounds for a in sig.args if a.is_array}
    assert got == {"a": [(1, 3)], "b": [(1, 6)], "c": [(1, 4)],
                   "d": [(1, 3), (1, 4)], "e": [(-1, 4), (1, 2)],
                   "mask": [(1, 3)]}
    assert sig.arg("e").intent == "inout"
    assert sig.arg("opt").type_text == "character(len=6)"
    assert sig.arg("d").size == 12


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
    src = _write(workdir, "m2.f90", "! adfort: routine=w dep=y indep=x\n"
                 "! adfort: init n=40 nt=5 x=0:1\n"
                 "! adfort: shape x=n+2 a=n,m\n"
                 "! adfort: bench n=4000 nt=50\n")
    meta = harness.parse_metadata(src)
    assert meta.shape == {"x": ["n+2"], "a": ["n", "m"]}
    assert meta.bench == {"n": "4000", "nt": "50"}
    bench = meta.for_benchmark()
    assert bench.init["n"] == "4000" and bench.init["x"] == (0.0, 1.0)
    assert meta.init["n"] == "40"
    meta.bench = {}
    assert meta.for_benchmark(scale=10).init["nt"] == "50"


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


# --------------------------------------------------------------------------
# scripts/benchmark.py (smoke test: one tiny kernel, one repetition)
# --------------------------------------------------------------------------

BENCH_SRC = """\
! adfort: routine=decay dep=u indep=u,rate
! adfort: init n=20 nt=3 u=1:2 rate=0.1:0.2
! adfort: bench n=200 nt=5
module bench_smoke_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine decay(n, nt, rate, u)
    integer, intent(in) :: n, nt
    real(wp), intent(in) :: rate
    real(wp), intent(inout) :: u(n)
    integer :: i, k
    do k = 1, nt
      do i = 1, n
        u(i) = u(i)*exp(-rate*u(i))
      end do
    end do
  end subroutine decay
end module bench_smoke_mod
"""


def test_benchmark_script_smoke(workdir):
    """The benchmark script generates, compiles and times a kernel, skips
    loop-free fixtures and reports a failing one without stopping."""
    import subprocess
    import sys
    good = _write(workdir, "decay.f90", BENCH_SRC)
    scalar = harness.FIXTURE_DIR / "magnus_vapour.f90"
    broken = _write(workdir, "broken.f90", BENCH_SRC.replace(
        "dep=u indep=u,rate", "dep=u indep=u,no_such_argument"))
    script = harness.REPO_ROOT / "scripts" / "benchmark_fixtures.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--reps", "1", "--workdir",
         str(workdir / "bench"), "--fixtures", str(good), str(scalar),
         str(broken)], capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr   # one kernel failed
    rows = {line.split()[0]: line for line in out.splitlines()
            if line.split()}
    assert "decay" in rows and "n=200 nt=5" in rows["decay"], out
    ratio = float(rows["decay"].split()[-1])
    assert ratio > 0, out
    assert "FAILED" in rows["broken"] and "no_such_argument" in \
        rows["broken"], out
    assert "median ratio:" in out and "skipped (no loops): 1" in out, out
