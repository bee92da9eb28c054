"""Calls, functions, modules and reversal schedules.

Every fixture directory of tests/fortran_fixtures/calls/ (see
calls_harness.py) is differentiated under split, joint and its mixed
``--link`` schedules, compiled with gfortran (-fcheck=all, FP traps) and
checked against fourth-order central differences of the original routine,
one independent at a time, with module variables reset before every call.
Then the errors: routines without source, recursion, routines passed as
arguments; determinism; and a smoke test of scripts/benchmark_calls.py.

Nothing here is skipped: without gfortran the suite fails (conftest.py).
"""

from __future__ import annotations

import os
import dataclasses
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import calls_harness as ch

FIXTURES = ch.fixtures()
FIXTURE_NAMES = [f.name for f in FIXTURES]
TOL = ch.TOL
PRIMAL_TOL = 1e-10
REPO_ROOT = Path(__file__).resolve().parent.parent

# ---- known generator failures ----------------------------------------------
# (fixture, schedule name or "*") -> reason, by the first step that fails.
# Strict xfail: an unexpected pass fails the suite, so drop an entry as soon
# as adfort handles the case.  A case pending at one step is also expected
# to fail every later step:
#   GENERATE  adfort diff exits non-zero
#   COMPILE   the generated code does not compile
#   CHECK     the finite-difference check fails (wrong derivatives, a run-
#             time error, or a driver that cannot be built against the
#             generated module)
#   MODULE    r_rev does not leave the module variables as r does
GENERATE_PENDING: dict = {}
COMPILE_PENDING: dict = {}
CHECK_PENDING: dict = {}
MODULE_PENDING: dict = {}
_STEPS = [GENERATE_PENDING, COMPILE_PENDING, CHECK_PENDING, MODULE_PENDING]


def _pending(fixture: str, schedule: str, upto: dict):
    """Reason a case is expected to fail at step ``upto`` (or before)."""
    for table in _STEPS[:_STEPS.index(upto) + 1]:
        reason = table.get((fixture, schedule)) or table.get((fixture, "*"))
        if reason:
            return reason
    return None


def _cases(upto: dict, mixed_only=False):
    """pytest params (fixture, schedule), strict xfail where pending."""
    cases = []
    for fix in FIXTURES:
        for sched in (fix.mixed if mixed_only else fix.schedules):
            reason = _pending(fix.name, sched.name, upto)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] \
                if reason else []
            cases.append(pytest.param(fix, sched, marks=marks,
                                      id=f"{fix.name}-{sched.name}"))
    return cases


def _fixture(name):
    for fix in FIXTURES:
        if fix.name == name:
            return fix
    raise AssertionError(f"no fixture {name}")


# ---------------------------------------------------------------------------
# the fixture set
# ---------------------------------------------------------------------------

REQUIRED_FEATURES = {
    "three_levels": "time loop -> step -> flux",
    "function_in_stencil": "u(i) + dt*flux(u(i-1), u(i))",
    "function_in_intrinsic": "exp(f(x))",
    "module_state": "module arrays updated by several routines",
    "module_indep": "--indep mod::var",
    "module_dep": "--dep mod::var",
    "search_path": "a module found with -I (in src/)",
    "two_extra_files": "two extra files on the command line",
    "adjoint_lib": "--adjoint-lib for a black box compiled separately",
    "link_schedules": "one call graph under several --link schedules",
    "external_calls_module": "an external routine calling module routines",
    "multi_arg_function_loop": "a function of several active arguments in "
                               "a loop",
    "inactive_call": "an inactive diagnostic call",
}


def test_gfortran_is_available():
    """The checks compile Fortran: a missing compiler is a failure, never a
    skip (conftest.py also stops the session)."""
    assert shutil.which("gfortran") or shutil.which(
        os.environ.get("FC", "gfortran")), \
        "gfortran not found on PATH: install it (make gfortran)"
    ch.harness.gfortran()


def test_fixture_set_is_substantial():
    assert len(FIXTURES) >= 10, FIXTURE_NAMES
    covered = {feat for fix in FIXTURES for feat in fix.features}
    missing = {k: v for k, v in REQUIRED_FEATURES.items() if k not in covered}
    assert not missing, f"no fixture exercises: {missing}"
    # ... and most of them must actually pass.
    passing = [f.name for f in FIXTURES
               if not any(_pending(f.name, s.name, MODULE_PENDING)
                          for s in f.schedules)]
    assert len(passing) >= 8, passing


@pytest.mark.parametrize("fix", FIXTURES, ids=FIXTURE_NAMES)
def test_fixture_is_well_formed(fix):
    assert fix.description, "give a description"
    assert fix.mixed, "give at least one [[mixed]] --link schedule"
    assert len(set(s.name for s in fix.schedules)) == len(fix.schedules)
    assert all(n <= 40 for k, n in fix.init.items()
               if isinstance(n, int) and not isinstance(n, bool)), \
        "keep the test sizes small (n <= 40, steps <= 20)"
    prob = ch.resolve(fix)          # signature, module variables, bounds
    for name in fix.dep + fix.indep:
        if "::" in name:
            assert prob.modvars[name].is_real


def test_pending_entries_name_existing_cases():
    for table in _STEPS:
        for (name, sched) in table:
            fix = _fixture(name)
            assert sched == "*" or sched in [s.name for s in fix.schedules], \
                (name, sched)


# ---------------------------------------------------------------------------
# derivatives
# ---------------------------------------------------------------------------

_RESULTS: dict = {}
SCHEDULE_AGREEMENT = 1e-10


def _result(fix, sched, tmp_path_factory):
    """The check of one case, run once for the tests that read it."""
    key = (fix.name, sched.name)
    if key not in _RESULTS:
        try:
            _RESULTS[key] = ch.check(
                fix, sched, tmp_path_factory.mktemp(f"{fix.name}-{sched.name}"))
        except ch.HarnessError as err:
            _RESULTS[key] = err
    if isinstance(_RESULTS[key], Exception):
        raise _RESULTS[key]
    return _RESULTS[key]


@pytest.mark.parametrize("fix,sched", _cases(CHECK_PENDING))
def test_adjoint_matches_finite_differences(fix, sched, tmp_path_factory):
    res = _result(fix, sched, tmp_path_factory)
    info = res.describe()
    for k, name in enumerate(fix.indep, start=1):
        assert res.rhs[k] != 0.0, f"{name} does not influence the " \
            f"dependents: fix the fixture\n{info}"
        assert res.rel_err(k) < TOL, f"adjoint of {name} is wrong\n{info}"
    assert res.primal_err < PRIMAL_TOL, \
        f"r_rev does not leave the arguments as r does\n{info}"
    # Every schedule computes the same adjoint with the same arithmetic:
    # they agree to round-off, far tighter than the FD check.
    for (name, other), theirs in list(_RESULTS.items()):
        if name != fix.name or other == sched.name or isinstance(theirs, Exception):
            continue
        for k in res.lhs:
            a, b = res.lhs[k], theirs.lhs[k]
            assert abs(a - b) <= SCHEDULE_AGREEMENT * max(abs(a), abs(b), 1e-300), \
                f"schedules {sched.name} and {other} differ on independent {k}: " \
                f"{a!r} vs {b!r}\n{info}"


@pytest.mark.parametrize("fix,sched", _cases(MODULE_PENDING))
def test_r_rev_leaves_module_variables_as_r_does(fix, sched,
                                                 tmp_path_factory):
    """Module state after r_rev is what r computes (as for the arguments)."""
    res = _result(fix, sched, tmp_path_factory)
    bad = {n: e for n, e in res.module_errs.items() if not e < PRIMAL_TOL}
    assert not bad, f"module variables differ after r_rev: {bad}\n" \
        + res.describe()


@pytest.mark.parametrize("fix,sched", _cases(GENERATE_PENDING, mixed_only=True))
def test_mixed_schedule_changes_the_code(fix, sched, workdir):
    """A --link that names no real call would silently do nothing.  (A
    callee that tapes nothing is reversed split under joint links too,
    unless --no-split-tapeless: a split link to it changes nothing then.)"""
    default = ch.SPLIT if sched.default == "split" else ch.JOINT
    every = ("--no-split-tapeless",)
    a = ch.generate(fix, dataclasses.replace(default, flags=default.flags + every),
                    workdir / "default.f90").read_text()
    b = ch.generate(fix, dataclasses.replace(sched, flags=sched.flags + every),
                    workdir / "mixed.f90").read_text()
    strip = lambda t: "\n".join(l for l in t.splitlines()
                                if not l.startswith("!"))
    assert strip(a) != strip(b), \
        f"{' '.join(sched.links)} does not change the code: does it name " \
        "a caller:callee link of the call graph?"


@pytest.mark.parametrize("name", ["diffusion_diagnostics",
                                  "diagnostics_module_counters"])
def test_inactive_calls_are_kept_as_they_are(name, workdir):
    fix = _fixture(name)
    for sched in fix.schedules:
        text = ch.generate(fix, sched, workdir / f"{sched.name}.f90") \
            .read_text().lower()
        for routine in ("diagnostics", "report_step"):
            assert re.search(rf"call {routine}\(", text), (sched.name, routine)
            assert not re.search(rf"\b{routine}_(rec|ret|rev)\b", text), \
                f"{routine} carries no derivative but got motions " \
                f"({sched.name})"


@pytest.mark.xfail(strict=True, reason=(
    "activity is not context-sensitive: smooth(n, a, alpha) is active in "
    "other calls, so the passive weights w (computed from integers only) "
    "passed to it get an adjoint w_adj, computed through misfit_ret and "
    "smooth_ret and then thrown away"))
def test_passive_data_passed_to_an_active_routine_get_no_adjoint(workdir):
    fix = _fixture("ssh_assimilation_context")
    text = ch.generate(fix, ch.SPLIT, workdir / "out.f90").read_text().lower()
    body = text[text.index("subroutine assimilate_ret"):]
    assert not re.search(r"\bw_adj\b", body), "w is passive"


def test_module_variable_adjoints_live_in_the_generated_module(workdir):
    fix = _fixture("lorenz96_rk4_forcing")
    text = ch.generate(fix, ch.SPLIT, workdir / "out.f90").read_text().lower()
    module = re.search(r"^module lorenz96_rk4_ad\b(.*?)^end module",
                       text, re.S | re.M)
    assert module, "no module lorenz96_rk4_ad"
    head = module.group(1).split("contains")[0]
    assert re.search(r"::\s*forcing_adj\b", head), head


@pytest.mark.parametrize("fix,sched", _cases(COMPILE_PENDING))
def test_generated_code_compiles_strictly(fix, sched, workdir):
    """-Wall -Werror=unused-variable -std=f2008, like the single-file
    fixtures."""
    generated = ch.generate(fix, sched, workdir / f"{fix.name}_ad.f90")
    ch.compile_strict(fix, generated, workdir)


# ---------------------------------------------------------------------------
# harness self-tests: it must be able to fail
# ---------------------------------------------------------------------------

def _copy_fixture(fix, dest: Path):
    shutil.copytree(fix.path, dest)
    return ch.load_fixture(dest)


def test_harness_detects_a_wrong_user_adjoint(workdir):
    """A hand-written adjoint off by 20 % in one term must fail the check."""
    fix = _copy_fixture(_fixture("sea_ice_blackbox"), workdir / "fx")
    lib = fix.file(fix.adjoint_lib[0])
    text = lib.read_text()
    assert "* 0.25d0 * (1.0d0 - th**2)" in text
    lib.write_text(text.replace("* 0.25d0 * (1.0d0 - th**2)",
                                "* 0.30d0 * (1.0d0 - th**2)"))
    res = ch.check(fix, ch.SPLIT, workdir / "run")
    assert res.max_rel_err > 1e-4, res.describe()


def test_harness_detects_adjoints_not_incremented(workdir):
    """A user adjoint that overwrites an input adjoint instead of adding to
    it loses the contribution of the other uses of the value."""
    fix = _copy_fixture(_fixture("sea_ice_blackbox"), workdir / "fx")
    lib = fix.file(fix.adjoint_lib[0])
    text = lib.read_text()
    assert "ta_adj(i) = ta_adj(i) - dqdd * qh_adj(i)" in text
    lib.write_text(text.replace("ta_adj(i) = ta_adj(i) - dqdd * qh_adj(i)",
                                "ta_adj(i) = - dqdd * qh_adj(i)"))
    res = ch.check(fix, ch.SPLIT, workdir / "run")
    assert res.rel_err(2) > 1e-4, res.describe()


def test_external_statement_for_a_called_routine(workdir):
    """F77-style code declares the external routines it calls."""
    fix = _copy_fixture(_fixture("sea_ice_blackbox"), workdir / "fx")
    src = fix.file(fix.main)
    text = src.read_text()
    assert "    integer :: i, step\n" in text
    src.write_text(text.replace("    integer :: i, step\n",
                                "    integer :: i, step\n"
                                "    external :: bulk_heat_flux\n"))
    res = ch.check(fix, ch.SPLIT, workdir / "run")
    assert res.max_rel_err < TOL, res.describe()


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

def _adfort(args, cwd):
    return subprocess.run([sys.executable, "-m", "adfort", "diff", *map(str, args)],
                          cwd=str(cwd), capture_output=True, text=True,
                          env=ch._env(), timeout=300)


def assert_clean_error(result, out: Path, *fragments):
    """Exit status 1 (a user error, not 2 = internal error), one readable
    message, no traceback, no output file."""
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("adfort: error: "), result.stderr
    for fragment in fragments:
        assert fragment.lower() in result.stderr.lower(), \
            f"{fragment!r} not in: {result.stderr}"
    assert not out.exists(), "an output file was written"
    assert not list(out.parent.glob(".adfort-*")), "a temporary file was left"


def test_black_box_without_adjoint_lib_is_a_clean_error(workdir):
    fix = _fixture("sea_ice_blackbox")
    out = workdir / "out.f90"
    cmd = ch.adfort_command(fix, ch.SPLIT, out, with_adjoint_lib=False)
    res = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True,
                         env=ch._env())
    assert_clean_error(res, out, "bulk_heat_flux")


def _without_search_path(workdir):
    fix = _fixture("column_eos_search_path")
    out = workdir / "out.f90"
    res = _adfort([fix.file(fix.main), "--dep", "pe", "--indep", "temp",
                   "--routine", fix.routine, "-o", out], workdir)
    return res, out


def test_module_not_found_without_search_path_is_a_clean_error(workdir):
    res, out = _without_search_path(workdir)
    assert_clean_error(res, out)
    # It names what it cannot see: the module, or a name it would provide.
    assert re.search(r"ocean_kinds|seawater_eos|'grav'|'rho0'|'density'|'wp'",
                     res.stderr), res.stderr


def test_module_not_found_message_names_the_module(workdir):
    res, out = _without_search_path(workdir)
    assert_clean_error(res, out)
    assert re.search(r"ocean_kinds|seawater_eos", res.stderr), res.stderr
    assert "-I" in res.stderr, res.stderr


def test_missing_extra_file_is_a_clean_error(workdir):
    """convection.f90 left off the command line: its routine has no
    source."""
    fix = _fixture("column_extra_files")
    out = workdir / "out.f90"
    res = _adfort([fix.file(fix.main), fix.file("radiation.f90"),
                   "--dep", "olr_mean", "--indep", "t",
                   "--routine", fix.routine, "-o", out], workdir)
    assert_clean_error(res, out, "convective_adjust")


NO_SOURCE = """\
module ocean_solver
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine implicit_step(n, t, cost)
    integer, intent(in) :: n
    real(wp), intent(inout) :: t(n)
    real(wp), intent(out) :: cost
    real(wp) :: rhs(n)
    rhs = t + 0.1_wp * t**2
    call lapack_like_solve(n, rhs, t)
    cost = sum(t**2)
  end subroutine implicit_step
end module ocean_solver
"""


def test_link_that_names_no_call_is_reported(workdir):
    fix = _fixture("tracer_time_loop")
    out = workdir / "out.f90"
    typo = ch.Schedule("typo", "split", ("forecast:heun_stpe=joint",))
    res = subprocess.run(ch.adfort_command(fix, typo, out), cwd=workdir,
                         capture_output=True, text=True, env=ch._env())
    assert res.returncode != 0 or "heun_stpe" in res.stderr, \
        (res.returncode, res.stderr)


def test_routine_without_source_is_a_clean_error(workdir):
    src = workdir / "solver.f90"
    src.write_text(NO_SOURCE)
    out = workdir / "out.f90"
    res = _adfort([src, "--dep", "cost", "--indep", "t", "-o", out], workdir)
    assert_clean_error(res, out, "lapack_like_solve")


def test_routine_without_source_with_passive_arguments_is_kept(workdir):
    """Only calls that active values reach need source or an adjoint."""
    src = workdir / "solver.f90"
    src.write_text(NO_SOURCE.replace(
        "    call lapack_like_solve(n, rhs, t)\n",
        "    t = rhs\n    call flush_log_unit(n)\n"))
    out = workdir / "out.f90"
    res = _adfort([src, "--dep", "cost", "--indep", "t", "-o", out], workdir)
    assert res.returncode == 0, res.stderr
    assert "call flush_log_unit(n)" in out.read_text().lower()


RECURSION_SOURCES = {
    # Indirect recursion through two routines, no RECURSIVE attribute
    # (gfortran accepts it: it cannot see the cycle).
    "mutual": """\
module cascade
  implicit none
contains
  subroutine split_parcel(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    if (n <= 0) then
      y = x
    else
      call merge_parcel(n - 1, x, y)
      y = 0.5d0 * y * x
    end if
  end subroutine split_parcel
  subroutine merge_parcel(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    call split_parcel(n, x, y)
    y = y + x
  end subroutine merge_parcel
  subroutine r(x, y)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    call split_parcel(3, x, y)
  end subroutine r
end module cascade
""",
    # The usual way to write it: RECURSIVE subroutine.
    "recursive_subroutine": """\
module cascade
  implicit none
contains
  recursive subroutine energy_cascade(level, x, y)
    integer, intent(in) :: level
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    if (level <= 1) then
      y = x
    else
      call energy_cascade(level - 1, 0.5d0 * x, y)
      y = y + x**2
    end if
  end subroutine energy_cascade
  subroutine r(x, y)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    call energy_cascade(4, x, y)
  end subroutine r
end module cascade
""",
    "recursive_function": """\
module cascade
  implicit none
contains
  recursive function spectrum(level, x) result(y)
    integer, intent(in) :: level
    real(8), intent(in) :: x
    real(8) :: y
    if (level <= 1) then
      y = x
    else
      y = x**2 + spectrum(level - 1, 0.5d0 * x)
    end if
  end function spectrum
  subroutine r(x, y)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    y = spectrum(4, x)
  end subroutine r
end module cascade
""",
}


RECURSIVE_ROUTINE = {"mutual": "split_parcel",
                     "recursive_subroutine": "energy_cascade",
                     "recursive_function": "spectrum"}


@pytest.mark.parametrize("case", sorted(RECURSION_SOURCES))
def test_recursion_is_a_clean_error(case, workdir):
    src = workdir / "cascade.f90"
    src.write_text(RECURSION_SOURCES[case])
    out = workdir / "out.f90"
    res = _adfort([src, "--dep", "y", "--indep", "x", "--routine", "r",
                   "-o", out], workdir)
    assert_clean_error(res, out, "recurs", RECURSIVE_ROUTINE[case])


PROCEDURE_ARGUMENT_SOURCES = {
    # A time stepper receiving the tendency routine as an argument.
    "external_dummy": """\
module stepper
  implicit none
contains
  subroutine relaxation(x, f)
    real(8), intent(in) :: x
    real(8), intent(out) :: f
    f = -0.5d0 * x**2
  end subroutine relaxation
  subroutine euler_step(tendency, x, y)
    external :: tendency
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    real(8) :: f
    call tendency(x, f)
    y = x + 0.1d0 * f
  end subroutine euler_step
  subroutine r(x, y)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    call euler_step(relaxation, x, y)
  end subroutine r
end module stepper
""",
    "procedure_interface": """\
module stepper
  implicit none
  abstract interface
    subroutine tendency_iface(x, f)
      real(8), intent(in) :: x
      real(8), intent(out) :: f
    end subroutine tendency_iface
  end interface
contains
  subroutine relaxation(x, f)
    real(8), intent(in) :: x
    real(8), intent(out) :: f
    f = -0.5d0 * x**2
  end subroutine relaxation
  subroutine euler_step(tendency, x, y)
    procedure(tendency_iface) :: tendency
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    real(8) :: f
    call tendency(x, f)
    y = x + 0.1d0 * f
  end subroutine euler_step
  subroutine r(x, y)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    call euler_step(relaxation, x, y)
  end subroutine r
end module stepper
""",
    "interface_block_dummy": """\
module stepper
  implicit none
contains
  subroutine relaxation(x, f)
    real(8), intent(in) :: x
    real(8), intent(out) :: f
    f = -0.5d0 * x**2
  end subroutine relaxation
  subroutine euler_step(tendency, x, y)
    interface
      subroutine tendency(x, f)
        real(8), intent(in) :: x
        real(8), intent(out) :: f
      end subroutine tendency
    end interface
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    real(8) :: f
    call tendency(x, f)
    y = x + 0.1d0 * f
  end subroutine euler_step
  subroutine r(x, y)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    call euler_step(relaxation, x, y)
  end subroutine r
end module stepper
""",
}

PROCEDURE_ARGUMENT_PENDING = {
    "interface_block_dummy":
        "a dummy procedure declared with an INTERFACE block gives 'cannot "
        "parse the file: PSyclone internal error: The argument list [...] "
        "for routine 'euler_step' does not match the variable "
        "declarations:' (message cut short), not 'routine passed as an "
        "argument'",
}


@pytest.mark.parametrize("case", sorted(PROCEDURE_ARGUMENT_SOURCES))
def test_routine_passed_as_argument_is_a_clean_error(case, workdir):
    src = workdir / "stepper.f90"
    src.write_text(PROCEDURE_ARGUMENT_SOURCES[case])
    out = workdir / "out.f90"
    res = _adfort([src, "--dep", "y", "--indep", "x", "--routine", "r",
                   "-o", out], workdir)
    assert_clean_error(res, out, "euler_step")


@pytest.mark.parametrize("case", [
    pytest.param(case, id=case, marks=[pytest.mark.xfail(
        strict=True, reason=PROCEDURE_ARGUMENT_PENDING[case])]
        if case in PROCEDURE_ARGUMENT_PENDING else [])
    for case in sorted(PROCEDURE_ARGUMENT_SOURCES)])
def test_routine_passed_as_argument_error_says_so(case, workdir):
    src = workdir / "stepper.f90"
    src.write_text(PROCEDURE_ARGUMENT_SOURCES[case])
    out = workdir / "out.f90"
    res = _adfort([src, "--dep", "y", "--indep", "x", "--routine", "r",
                   "-o", out], workdir)
    assert_clean_error(res, out)
    assert re.search(r"passed as an? (actual )?argument|dummy procedure|"
                     r"procedure argument", res.stderr, re.I), res.stderr


# ---------------------------------------------------------------------------
# determinism
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name,sched_name", [
    ("land_surface_links", "mixed2"), ("column_extra_files", "split"),
    ("sea_ice_blackbox", "joint"), ("warm_rain_external", "mixed1")])
def test_output_is_deterministic(name, sched_name, workdir):
    fix = _fixture(name)
    sched = fix.schedule(sched_name)
    (workdir / "a").mkdir()
    (workdir / "b").mkdir()
    a = ch.generate(fix, sched, workdir / "a" / "out.f90",
                    cache=False).read_bytes()
    b = ch.generate(fix, sched, workdir / "b" / "out.f90",
                    cache=False).read_bytes()
    assert a == b


# ---------------------------------------------------------------------------
# scripts/benchmark_calls.py
# ---------------------------------------------------------------------------

def test_benchmark_script_smoke(workdir):
    script = REPO_ROOT / "scripts" / "benchmark_calls.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--sizes", "n=6,nt=3", "--reps", "1",
         "--workdir", str(workdir)],
        capture_output=True, text=True, env=ch._env(), timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    for sched in ("split", "joint"):
        row = [l for l in lines if l.split() and l.split()[0] == sched]
        assert row, proc.stdout
        fields = row[0].split()
        # schedule, t_r, t_rev, ratio, tape after r_rec, peak tape
        assert len(fields) >= 6, row
        assert float(fields[3]) > 0, row
        assert int(fields[5]) > 0, row
