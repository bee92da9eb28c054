#!/usr/bin/env python3
"""Run-time cost of adfort adjoints: t(r_rev) / t(r) at gfortran -O2.

For every fixture in tests/fortran_fixtures/ that has loops (DO, DO WHILE,
WHERE, or array arguments), this script

1. generates the adjoint with ``python -m adfort diff`` (the fixture's
   dep=/indep= metadata, ``--schedule`` as given);
2. takes the benchmark sizes from the fixture's ``! adfort: bench n=2000
   nt=100`` line (integer arguments, or names used in ``shape=``); a
   fixture without one uses its test sizes times ``--scale``;
3. writes a timing driver (random inputs as in the test harness) that
   calls ``r`` and ``r_rev`` once to warm up, then each of them repeatedly
   until a batch takes at least ``--min-time`` seconds (or exactly
   ``--reps`` times), subtracting the time spent resetting the arguments
   between calls;
4. compiles original + adjoint + driver with ``gfortran -O2`` and runs it.

It prints one row per kernel (t_primal, t_rev, ratio) and the median
ratio.  A fixture whose generation, compilation or run fails is reported
in the table and the run carries on; the exit status is 1 if any failed.

    python scripts/benchmark_fixtures.py [--schedule split|joint] [--filter NAME]
                                [--min-time 0.2] [--reps N] [--scale F]
                                [--workdir DIR] [--verbose] [--check-bounds]
"""

from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

import harness  # noqa: E402  (tests/harness.py)

BENCH_FFLAGS = ["-O2"]


@dataclasses.dataclass
class Row:
    kernel: str
    sizes: str = ""
    t_primal: Optional[float] = None
    t_rev: Optional[float] = None
    nrep_primal: int = 0
    nrep_rev: int = 0
    error: Optional[str] = None
    workdir: Optional[Path] = None

    @property
    def ratio(self) -> Optional[float]:
        if self.t_primal and self.t_rev is not None and self.t_primal > 0:
            return self.t_rev / self.t_primal
        return None


def has_loops(fixture: Path, meta: harness.Metadata) -> bool:
    """DO / DO WHILE / WHERE (lowered to loops by PSyclone) in the routine,
    or array arguments (whole-array statements are loops too)."""
    from psyclone.psyir.nodes import Loop, Routine, WhileLoop
    psyir = harness._reader_for(fixture).psyir_from_file(str(fixture))
    routines = [r for r in psyir.walk(Routine)
                if meta.routine is None or r.name.lower() == meta.routine]
    if not routines:
        return False
    node = routines[0]
    if node.walk((Loop, WhileLoop)):
        return True
    sig = harness.parse_signature(fixture, meta.routine)
    return any(a.is_array for a in sig.args)


def _sizes_text(meta: harness.Metadata, bench: harness.Metadata) -> str:
    """The sizes the benchmark changed (bench metadata or scaled init)."""
    names = list(meta.bench) or [n for n, v in meta.init.items()
                                 if bench.init.get(n) != v]
    return " ".join(f"{n}={bench.init[n]}" for n in names
                    if str(bench.init[n]).lstrip("+-").isdigit())


def write_timing_driver(sig: harness.Signature, meta: harness.Metadata,
                        fixture: Path, min_time: float,
                        reps: Optional[int]) -> str:
    """Fortran program printing @t_primal / @t_rev (seconds per call)."""
    w = harness._DriverWriter(sig, meta, fixture)
    dep, indep = meta.dep, meta.indep
    w.base_point()
    active = [a.name for a in sig.args if a.name in set(dep) | set(indep)]
    for name in active:
        arg = sig.arg(name)
        w.declare(arg, ["_adj", "_seed"])
        w.alloc_like(arg, "_adj")
        w.alloc_like(arg, "_seed")
    for name in dep:
        w.fill(sig.arg(name), w.v(name, "_seed"),
               lambda u: f"0.5_adf_dp + {u}")
    w.decls += ["integer(adf_int64) :: adf_c0, adf_c1, adf_rate",
                "integer :: adf_k, adf_nrep",
                "real(adf_dp) :: adf_t_loop, adf_t_reset, adf_tmin",
                "logical :: adf_fixed"]
    call_rev = f"{sig.routine}_rev"

    def seed_adjoints(indent: str):
        for name in active:
            if name in dep:
                w.line(f"{indent}{w.v(name, '_adj')} = {w.v(name, '_seed')}")
            else:
                w.line(f"{indent}{w.v(name, '_adj')} = 0")

    def call(indent: str, rev: bool):
        w.call(call_rev if rev else sig.routine, rev)
        w.body[-1] = indent + w.body[-1]

    w.line("call system_clock(count_rate=adf_rate)")
    w.line(f"adf_tmin = {min_time!r}_adf_dp")
    w.line(f"adf_fixed = {'.true.' if reps else '.false.'}")
    w.line("! warm-up (first-touch of arrays, tape allocation)")
    w.line("call adf_reset()")
    call("", False)
    w.line("call adf_reset()")
    seed_adjoints("")
    call("", True)
    for tag, rev in (("primal", False), ("rev", True)):
        w.line(f"! timing of {'r_rev' if rev else 'r'}")
        w.line(f"adf_nrep = {reps or 1}")
        w.line("do")
        w.line("  call system_clock(adf_c0)")
        w.line("  do adf_k = 1, adf_nrep")
        w.line("    call adf_reset()")
        if rev:
            seed_adjoints("    ")
        call("    ", rev)
        w.line("  end do")
        w.line("  call system_clock(adf_c1)")
        w.line("  adf_t_loop = real(adf_c1 - adf_c0, adf_dp) / "
               "real(adf_rate, adf_dp)")
        w.line("  if (adf_fixed .or. adf_t_loop >= adf_tmin) exit")
        w.line("  adf_nrep = adf_nrep * max(2, min(100, ceiling(1.3_adf_dp * "
               "adf_tmin / max(adf_t_loop, 1.0e-6_adf_dp))))")
        w.line("end do")
        w.line("! the same number of argument resets alone")
        w.line("call system_clock(adf_c0)")
        w.line("do adf_k = 1, adf_nrep")
        w.line("  call adf_reset()")
        if rev:
            seed_adjoints("  ")
        w.line("end do")
        w.line("call system_clock(adf_c1)")
        w.line("adf_t_reset = real(adf_c1 - adf_c0, adf_dp) / "
               "real(adf_rate, adf_dp)")
        w.line(f"write(*, '(a, es16.8)') '@t_{tag} ', "
               "max(adf_t_loop - adf_t_reset, 0.0_adf_dp) / adf_nrep")
        w.line(f"write(*, '(a, i12)') '@nrep_{tag} ', adf_nrep")
    return harness._assemble(w, "adfort_bench", [call_rev])


def bench_fixture(fixture: Path, schedule: str, workdir: Path,
                  min_time: float, reps: Optional[int],
                  scale: Optional[float]) -> Row:
    row = Row(fixture.stem, workdir=workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    test_meta = harness.parse_metadata(fixture)
    meta = test_meta.for_benchmark(scale)
    sig = harness.parse_signature(fixture, meta.routine)
    meta.routine = sig.routine
    harness.check_metadata_names(sig, meta, fixture)
    harness.resolve_shapes(sig, meta, str(fixture))
    row.sizes = _sizes_text(test_meta, meta) or "(test sizes)"
    generated = workdir / f"{fixture.stem}_ad.f90"
    harness.generate(fixture, meta, schedule, generated)
    text = write_timing_driver(sig, meta, fixture, min_time, reps)
    driver = workdir / "bench_driver.f90"
    driver.write_text(text)
    exe = workdir / "bench"
    harness._run([harness.gfortran(), *BENCH_FFLAGS, *meta.fflags, fixture,
                  generated, driver, "-o", exe], workdir,
                 "compiling original + generated + timing driver")
    proc = harness._run([exe], workdir, "running the timing driver",
                        timeout=600)
    values = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].startswith("@"):
            values[parts[0][1:]] = float(parts[1])
    try:
        row.t_primal, row.t_rev = values["t_primal"], values["t_rev"]
        row.nrep_primal = int(values["nrep_primal"])
        row.nrep_rev = int(values["nrep_rev"])
    except KeyError as err:
        raise harness.HarnessError(f"timing driver printed no {err}:\n"
                                   f"{proc.stdout}")
    return row


def _short_error(exc: BaseException, verbose: bool) -> str:
    text = str(exc).strip()
    if verbose:
        return text
    lines = [ln for ln in text.splitlines() if ln.strip()]
    # The first line names the failing step; add the most telling detail.
    detail = [ln.strip() for ln in lines[1:]
              if ln.lstrip().startswith(("adfort:", "Error:", "Fortran runtime",
                                         "Fatal"))]
    return " | ".join(lines[:1] + detail[:2])[:300]


def _fmt_time(t: Optional[float]) -> str:
    return "-" if t is None else f"{t:.3e}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schedule", choices=["split", "joint"],
                        default="split")
    parser.add_argument("--filter", action="append", default=[],
                        metavar="NAME",
                        help="only fixtures whose name contains NAME or "
                             "matches it as a glob (repeatable)")
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="seconds each timed batch must last (default "
                             "0.2)")
    parser.add_argument("--reps", type=int,
                        help="exactly this many calls of each routine "
                             "instead of --min-time")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the integer init sizes by this for "
                             "fixtures without 'adfort: bench' metadata")
    parser.add_argument("--fixtures", type=Path, nargs="*",
                        help="fixture files (default: all in "
                             "tests/fortran_fixtures)")
    parser.add_argument("--workdir", type=Path,
                        help="keep generated files here (default: a "
                             "temporary directory)")
    parser.add_argument("--verbose", action="store_true",
                        help="print full error messages")
    parser.add_argument("--check-bounds", action="store_true",
                        help="add -fcheck=bounds (slower; turns a tape "
                             "overflow into a clear run-time error)")
    args = parser.parse_args(argv)
    if args.check_bounds:
        BENCH_FFLAGS.append("-fcheck=bounds")

    fixtures = [Path(f).resolve() for f in args.fixtures] if args.fixtures \
        else harness.fixtures()
    if args.filter:
        fixtures = [f for f in fixtures
                    if any(p in f.name or fnmatch.fnmatch(f.name, p)
                           or fnmatch.fnmatch(f.stem, p) for p in args.filter)]
    root = args.workdir or Path(tempfile.mkdtemp(prefix="adfort_bench_"))
    rows: List[Row] = []
    skipped = []
    start = time.time()
    for fixture in fixtures:
        try:
            meta = harness.parse_metadata(fixture)
            if not has_loops(fixture, meta):
                skipped.append(fixture.name)
                continue
        except Exception as exc:  # unreadable fixture: report, go on
            rows.append(Row(fixture.stem, error=_short_error(exc,
                                                             args.verbose)))
            continue
        work = root / args.schedule / fixture.stem
        try:
            row = bench_fixture(fixture, args.schedule, work, args.min_time,
                                args.reps, args.scale)
        except Exception as exc:
            row = Row(fixture.stem, error=_short_error(exc, args.verbose),
                      workdir=work)
        rows.append(row)
        status = f"ratio {row.ratio:.2f}" if row.ratio is not None \
            else "FAILED"
        print(f"  {fixture.name}: {status}", file=sys.stderr, flush=True)

    print(f"\nadfort benchmark: t(r_rev)/t(r), gfortran {' '.join(BENCH_FFLAGS)}"
          f", schedule={args.schedule}")
    width = max([len(r.kernel) for r in rows] + [6])
    head = (f"{'kernel':<{width}}  {'sizes':<28}  {'t_primal [s]':>12}  "
            f"{'t_rev [s]':>12}  {'ratio':>7}")
    print(head)
    print("-" * len(head))
    for r in rows:
        if r.error:
            print(f"{r.kernel:<{width}}  FAILED: {r.error}")
            continue
        print(f"{r.kernel:<{width}}  {r.sizes[:28]:<28}  "
              f"{_fmt_time(r.t_primal):>12}  {_fmt_time(r.t_rev):>12}  "
              + (f"{r.ratio:7.2f}" if r.ratio is not None else f"{'-':>7}"))
    ratios = [r.ratio for r in rows if r.ratio is not None]
    print("-" * len(head))
    if ratios:
        print(f"median ratio: {statistics.median(ratios):.2f} over "
              f"{len(ratios)} kernels (min {min(ratios):.2f}, max "
              f"{max(ratios):.2f})")
    else:
        print("median ratio: - (no kernel timed)")
    failed = [r for r in rows if r.error]
    if failed:
        print(f"{len(failed)} failed: " + ", ".join(r.kernel for r in failed))
    if skipped:
        print(f"skipped (no loops): {len(skipped)} fixtures")
    print(f"files in {root}; {time.time() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
