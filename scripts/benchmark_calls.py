#!/usr/bin/env python3
"""Cost of split and joint call reversal on a call-heavy kernel.

The kernel is a fixture of tests/fortran_fixtures/calls/ (by default the
three-level time loop ``tracer_time_loop``: forecast -> heun_step ->
face_fluxes), at the larger sizes of its ``[bench]`` table (or --sizes).
For each schedule (split, joint) the script

1. generates the adjoint with ``python -m adfort diff ... --schedule S``;
2. times ``r`` and ``r_rev`` at ``gfortran -O2`` (random inputs as in the
   tests; each batch repeated until it lasts --min-time seconds, or exactly
   --reps times; the cost of resetting the arguments between calls is
   measured alone and subtracted);
3. measures the tapes with scripts/tape_meter.py: a copy of the generated
   file reports every tape move to a meter, and a driver calls ``r_rec``,
   reads the bytes on the value tapes (the tape after recording), then
   calls ``r_ret`` and reads the high-water marks of the value and control
   tapes (dynamic module tapes, and fixed-size local tapes while their
   routine runs).  The peak matters for joint: the callees' tapes are
   built while returning (inside ``f_rev``), so the tape after ``r_rec``
   understates what joint needs.

It prints one row per schedule:

    schedule  t_r[s]  t_rev[s]  t_rev/t_r  value_tape_after_rec[B]
              value_tape_peak[B]  control_tape_peak[B]

    python scripts/benchmark_calls.py [--fixture tracer_time_loop]
        [--sizes n=400,nt=200] [--schedules split,joint] [--reps N]
        [--min-time 0.2] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

import calls_harness as ch  # noqa: E402  (tests/calls_harness.py)

sys.path.insert(0, str(REPO_ROOT / "scripts"))
sys.path.insert(0, str(REPO_ROOT))
import tape_meter  # noqa: E402

BENCH_FFLAGS = ["-O2"]


@dataclasses.dataclass
class Row:
    schedule: str
    t_primal: float = float("nan")
    t_rev: float = float("nan")
    rec_value_bytes: int = 0
    peak_value_bytes: int = 0
    peak_control_bytes: int = 0
    error: Optional[str] = None

    @property
    def ratio(self) -> float:
        return self.t_rev / self.t_primal if self.t_primal > 0 else float("nan")


# --------------------------------------------------------------------------
# drivers
# --------------------------------------------------------------------------

def _common(prob: ch.Problem):
    """A DriverWriter with the base point and the adjoint set-up."""
    fix = prob.fix
    w = ch.DriverWriter(prob)
    w.base_point()
    for name in fix.dep:
        w.declare(name, ["seed"])
        w.fill(name, w.var(name, "seed"), lambda u: f"0.5_adf_dp + {u}")
    for name in sorted(w.active):
        if "::" not in name:
            w.declare(name, ["adj"])
    return w


def _seed_adjoints(w: ch.DriverWriter, indent: str = ""):
    fix = w.fix
    for name in fix.dep + [n for n in fix.indep if n not in fix.dep]:
        value = w.var(name, "seed") if name in fix.dep else "0"
        w.line(f"{indent}{w.var(name, 'adj')} = {value}")


def timing_driver(prob: ch.Problem, min_time: float, reps: Optional[int]) -> str:
    fix = prob.fix
    w = _common(prob)
    w.decls += ["integer(adf_int64) :: adf_c0, adf_c1, adf_rate",
                "integer :: adf_k, adf_nrep",
                "real(adf_dp) :: adf_t, adf_t_reset, adf_tmin",
                "logical :: adf_fixed"]
    w.line("call system_clock(count_rate=adf_rate)")
    w.line(f"adf_tmin = {min_time!r}_adf_dp")
    w.line(f"adf_fixed = {'.true.' if reps else '.false.'}")
    w.line("! warm-up: first touch of the arrays, tape allocation")
    w.line("call adf_reset()")
    w.line(w.call(fix.routine, False))
    w.line("call adf_reset()")
    _seed_adjoints(w)
    w.line(w.call(f"{fix.routine}_rev", True))
    for tag, rev in (("primal", False), ("rev", True), ("reset", None)):
        w.line(f"! timing: {tag}")
        w.line(f"adf_nrep = {reps or 1}")
        w.line("do")
        w.line("  call system_clock(adf_c0)")
        w.line("  do adf_k = 1, adf_nrep")
        w.line("    call adf_reset()")
        if rev:
            _seed_adjoints(w, "    ")
        if rev is not None:
            w.line("    " + w.call(f"{fix.routine}_rev" if rev
                                   else fix.routine, bool(rev)))
        w.line("  end do")
        w.line("  call system_clock(adf_c1)")
        w.line("  adf_t = real(adf_c1 - adf_c0, adf_dp) / real(adf_rate, adf_dp)")
        if tag == "reset":
            w.line("  exit")
        else:
            w.line("  if (adf_fixed .or. adf_t >= adf_tmin) exit")
            w.line("  adf_nrep = adf_nrep * max(2, min(100, ceiling(1.3_adf_dp "
                   "* adf_tmin / max(adf_t, 1.0e-6_adf_dp))))")
        w.line("end do")
        if tag == "reset":
            w.line("adf_t_reset = adf_t / adf_nrep")
            w.line("print '(a,1x,es16.8)', '@t_reset', adf_t_reset")
        else:
            w.line(f"print '(a,1x,es16.8,1x,i0)', '@t_{tag}', adf_t / adf_nrep, "
                   "adf_nrep")
    return w.program("adf_bench_time", [f"{fix.routine}_rev"])


def tape_driver(prob: ch.Problem) -> str:
    """Program printing the value-tape bytes after ``r_rec`` (@rec) and the
    peaks of the value and control tapes after ``r_ret`` (@peak)."""
    fix = prob.fix
    w = _common(prob)
    w.fix = dataclasses.replace(fix, driver_use=fix.driver_use
                                + ["use adf_meter_mod"])
    w.line("call adf_reset()")
    w.line(w.call(f"{fix.routine}_rec", False))
    w.line("print '(a,1x,i0)', '@rec', adf_meter_now(1)")
    _seed_adjoints(w)
    w.line(w.call(f"{fix.routine}_ret", True))
    w.line("print '(a,3(1x,i0))', '@peak', adf_meter_peak(1), "
           "adf_meter_peak(2), adf_meter_now(0)")
    return w.program("adf_bench_tape", [f"{fix.routine}_rec",
                                        f"{fix.routine}_ret"])


def _check_rec_signature(text: str, prob: ch.Problem):
    """r_rec must take exactly the original arguments (dynamic tapes)."""
    routine = prob.fix.routine
    m = re.search(rf"subroutine {routine}_rec\(([^)]*)\)", text.replace("&\n", ""),
                  re.IGNORECASE)
    if not m:
        raise ch.HarnessError(f"no {routine}_rec in the generated code")
    args = [a.strip().lower() for a in m.group(1).replace("&", " ").split(",")
            if a.strip()]
    if args != [a.name for a in prob.sig.args]:
        raise ch.HarnessError(f"{routine}_rec takes ({', '.join(args)}): "
                              "fixed-size tapes as arguments are not measured")


# --------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------

def _values(stdout: str, key: str) -> List[List[str]]:
    return [line.split()[1:] for line in stdout.splitlines()
            if line.split() and line.split()[0] == key]


def run_schedule(fix: ch.Fixture, sched: ch.Schedule, workdir: Path,
                 min_time: float, reps: Optional[int]) -> Row:
    row = Row(sched.name)
    prob = ch.resolve(fix)
    workdir.mkdir(parents=True, exist_ok=True)
    generated = ch.generate(fix, sched, workdir / f"{fix.name}_ad.f90")
    text = generated.read_text()
    _check_rec_signature(text, prob)

    timing = workdir / "time"
    timing.mkdir(exist_ok=True)
    driver = timing / "adf_bench_time.f90"
    driver.write_text(timing_driver(prob, min_time, reps))
    exe = timing / "adf_bench_time"
    ch.compile_and_link(fix, generated, driver, exe, BENCH_FFLAGS)
    out = ch.run([exe], timing, "timing driver", show=[driver], timeout=3600).stdout
    t_reset = float(_values(out, "@t_reset")[0][0])
    row.t_primal = max(float(_values(out, "@t_primal")[0][0]) - t_reset, 1e-12)
    row.t_rev = max(float(_values(out, "@t_rev")[0][0]) - t_reset, 1e-12)

    tape_dir = workdir / "tape"
    tape_dir.mkdir(exist_ok=True)
    instrumented = tape_dir / f"{fix.name}_ad_peak.f90"
    instrumented.write_text(tape_meter.instrument(text)[0])
    meter = tape_dir / "adf_meter.f90"
    meter.write_text(tape_meter.METER_SOURCE)
    ch.run([ch.harness.gfortran(), *BENCH_FFLAGS, "-c", meter], tape_dir,
           "compiling the tape meter")
    driver = tape_dir / "adf_bench_tape.f90"
    driver.write_text(tape_driver(prob))
    exe = tape_dir / "adf_bench_tape"
    # the meter's object rides along with the flags (compiled first: the
    # driver uses its module)
    ch.compile_and_link(fix, instrumented, driver, exe,
                        BENCH_FFLAGS + [str(tape_dir / "adf_meter.o")])
    out = ch.run([exe], tape_dir, "tape driver", show=[driver],
                 timeout=3600).stdout
    row.rec_value_bytes = int(_values(out, "@rec")[0][0])
    value, control, now = map(int, _values(out, "@peak")[0])
    if now != 0:
        raise ch.HarnessError(f"{now} bytes left on the tapes after "
                              f"{fix.routine}_ret")
    row.peak_value_bytes, row.peak_control_bytes = value, control
    return row


def parse_sizes(text: str) -> Dict[str, int]:
    sizes = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, eq, value = item.partition("=")
        if not eq:
            raise SystemExit(f"--sizes: expected name=value, got {item!r}")
        sizes[name.strip().lower()] = int(value)
    return sizes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixture", default="tracer_time_loop",
                        help="fixture directory under tests/fortran_fixtures/calls")
    parser.add_argument("--sizes", help="integer sizes, e.g. n=400,nt=200 "
                        "(default: the fixture's [bench] table)")
    parser.add_argument("--schedules", default="split,joint",
                        help="comma list of split, joint, mixed1, ...")
    parser.add_argument("--reps", type=int, help="exactly this many calls per "
                        "timing batch (default: until --min-time)")
    parser.add_argument("--min-time", type=float, default=0.2)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)

    fix = ch.load_fixture(ch.CALLS_DIR / args.fixture)
    sizes = parse_sizes(args.sizes) if args.sizes else dict(fix.bench)
    fix = fix.with_sizes(sizes)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="adfort_bench_calls_"))
    print(f"kernel {fix.name}: {fix.description}")
    print("sizes " + " ".join(f"{k}={v}" for k, v in sizes.items())
          + f"   gfortran {' '.join(BENCH_FFLAGS)}   workdir {root}")
    rows = []
    for name in filter(None, (s.strip() for s in args.schedules.split(","))):
        sched = fix.schedule(name)
        try:
            rows.append(run_schedule(fix, sched, root / name, args.min_time,
                                     args.reps))
        except ch.HarnessError as err:
            rows.append(Row(name, error=str(err)))
    head = (f"{'schedule':10s} {'t_r[s]':>11s} {'t_rev[s]':>11s} "
            f"{'t_rev/t_r':>9s} {'tape_after_rec[B]':>17s} "
            f"{'value_tape_peak[B]':>18s} {'control_peak[B]':>15s}")
    print(head)
    print("-" * len(head))
    failed = 0
    for r in rows:
        if r.error:
            failed += 1
            print(f"{r.schedule:10s} FAILED: {r.error.splitlines()[0]}")
            continue
        print(f"{r.schedule:10s} {r.t_primal:11.4e} {r.t_rev:11.4e} "
              f"{r.ratio:9.2f} {r.rec_value_bytes:17d} "
              f"{r.peak_value_bytes:18d} {r.peak_control_bytes:15d}")
    for r in rows:
        if r.error:
            print(f"\n--- {r.schedule} ---\n{r.error}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
