"""The benchmark kernels of benchmarks/ are also gradient checks: each is
differentiated under both schedules and compared with finite differences
at its small ``init`` sizes (scripts/benchmark.py times them at their
``bench`` sizes).  Nothing here needs Tapenade."""

from pathlib import Path

import pytest

import harness

BENCH_DIR = harness.REPO_ROOT / "benchmarks"
KERNELS = sorted(p for p in BENCH_DIR.iterdir()
                 if p.suffix in (".f90", ".f", ".F90", ".F"))
SCHEDULES = ["split", "joint"]
TOL = 1e-6
PRIMAL_TOL = 1e-10

# Kernels adfort does not yet differentiate correctly: name -> reason.
# Strict xfail: remove the name as soon as the kernel passes.
PENDING = {}


def test_kernel_set():
    names = {p.name for p in KERNELS}
    assert len(KERNELS) >= 5, names
    assert any(p.suffix == ".f" for p in KERNELS), "no fixed-form kernel"
    for name in PENDING:
        assert name in names, f"PENDING names a missing kernel {name}"
    for path in KERNELS:
        meta = harness.parse_metadata(path)
        assert meta.dep and meta.indep and meta.routine, path.name
        assert meta.bench, f"{path.name}: no '! adfort: bench' sizes"


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("kernel", [
    pytest.param(p, id=p.name, marks=[pytest.mark.xfail(
        strict=True, reason=PENDING[p.name])] if p.name in PENDING else [])
    for p in KERNELS])
def test_kernel_adjoint_matches_finite_differences(kernel: Path, schedule,
                                                   workdir):
    res = harness.check_fixture(kernel, schedule, workdir)
    assert res.rel_err < TOL, res.describe()
    assert res.primal_err < PRIMAL_TOL, \
        "r_rev does not return the primal results of r\n" + res.describe()


def test_benchmark_script_measures_a_kernel(tmp_path):
    """scripts/benchmark.py (no Tapenade) times split and joint, checks
    that their gradients agree and meters their tapes; the tape is balanced
    after each adjoint (the script fails otherwise)."""
    import sys
    sys.path.insert(0, str(harness.REPO_ROOT / "scripts"))
    import benchmark
    row = benchmark.bench_kernel(BENCH_DIR / "advection_limiter.f90", None,
                                 tmp_path, batches=1, min_time=0.01)
    assert row.error is None, row.error
    assert row.grad_err < benchmark.GRAD_TOL
    for tag in ("split", "joint"):
        assert row.ratio(tag) > 0
        tape = row.tape[tag]
        assert tape["peak"] > 0
        assert tape["peak"] <= tape["value"] + tape["control"]
        assert tape["alloc"] >= tape["peak"]


def test_benchmark_script_times_a_baseline_checkout(tmp_path):
    """--baseline TREE times another checkout's adjoints in the same
    program (here this one: same code, so the same gradient and tapes)."""
    import sys
    sys.path.insert(0, str(harness.REPO_ROOT / "scripts"))
    import benchmark
    row = benchmark.bench_kernel(BENCH_DIR / "burgers_upwind_misfit.f90", None,
                                 tmp_path, batches=1, min_time=0.01,
                                 baseline=harness.REPO_ROOT)
    assert row.error is None, row.error
    assert row.grad_err < benchmark.GRAD_TOL
    for tag in ("base_split", "base_joint"):
        assert row.ratio(tag) > 0
        assert row.tape[tag]["peak"] == row.tape[tag[5:]]["peak"]


def test_tapenade_adjoint_names():
    """Tapenade names x's adjoint xb, or xb0 when xb is taken (an array
    TEMP next to a TEMPB); other names are no adjoints."""
    import sys
    sys.path.insert(0, str(harness.REPO_ROOT / "scripts"))
    import peer_tapenade as tap
    active = ["temp", "x"]
    assert tap._adjoint_of("xb", active) == "x"
    assert tap._adjoint_of("tempb0", active) == "temp"
    assert tap._adjoint_of("tempb12", active) == "temp"
    assert tap._adjoint_of("yb", active) is None
    assert tap._adjoint_of("xbb", active) is None
