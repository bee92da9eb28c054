#!/usr/bin/env python3
"""Cost of adfort's adjoints, side by side with Tapenade's, at gfortran -O2.

For every benchmark kernel (default: the files of benchmarks/, each with
fixture metadata: ``! adfort: routine=r dep=... indep=...``, ``init`` for
the tests, ``bench`` for the sizes timed here) the script

1. generates adfort's adjoint under the split and the joint schedule (the
   joint file's modules and routines get a suffix so both link into one
   program) and, with ``--tapenade DIR``, runs
   ``DIR/bin/tapenade -b -head 'r(deps)/(indeps)'`` (``-outputlanguage
   fortran90`` for fixed form) and compiles ``DIR/ADFirstAidKit/adStack.c``
   with ``gcc -O2``;
2. writes one timing driver calling ``r``, ``r_rev`` (split), ``r_rev``
   (joint) and ``r_b``: random inputs as in the tests; the dependents'
   adjoints seeded and the other adjoints zeroed before every adjoint call
   (adfort increments independent adjoints, Tapenade overwrites them, so
   zero then seed gives both the same gradient); a first call of each
   prints ``<gradient, random direction>``, which must agree to 1e-8
   relative between all adjoints or the row is marked failed; then each
   routine is repeated until a batch lasts ``--min-time`` seconds, and
   ``--batches`` batches are run in turn (primal, split, joint, Tapenade;
   the first routine rotates), each minus the time of the same argument
   resets alone;
3. reports for each adjoint the median over the batches of
   t(adjoint)/t(r) of the same batch;
4. measures the peak tape bytes in a second program (one call of each
   adjoint, not timed): adfort's code instrumented by scripts/tape_meter.py
   (dynamic tapes: the high-water mark of the bytes in use on all tapes
   together, value and control, not the allocated capacity; static tapes:
   fixed-size local tapes counted while their routine runs), Tapenade's
   stack counted byte-exact around its push/pop entry points (see
   tape_meter.py), next to adStack's own peak in 64 KiB blocks.

    python scripts/benchmark.py [KERNEL...] [--tapenade DIR] [--filter NAME]
        [--batches 5] [--min-time 0.1] [--workdir DIR] [--verbose]
    python scripts/benchmark.py --fixture-mode [benchmark_fixtures.py options]
    python scripts/benchmark.py --tool-speed [tool_speed.py options]

Caveats: inputs are drawn per element at random (as in the tests), so
data-dependent branches are unpredictable (white noise, not smooth model
fields); Tapenade's ``r_b`` does not return the primal outputs, adfort's
``r_rev`` does.

``--fixture-mode`` runs the older one-schedule timing of the test fixtures
with loops (scripts/benchmark_fixtures.py).  The exit status is 1 if any
kernel failed.
"""

from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
sys.path.insert(0, str(REPO_ROOT / "scripts"))
sys.path.insert(0, str(REPO_ROOT))

import harness  # noqa: E402  (tests/harness.py)
import peer_tapenade as tap  # noqa: E402
import tape_meter  # noqa: E402
from bench_driver import Variant, tape_driver, timing_driver  # noqa: E402

BENCH_DIR = REPO_ROOT / "benchmarks"
BENCH_FFLAGS = ["-O2"]
JOINT_SUFFIX = "_jnt"
# --baseline TREE: another adfort checkout's adjoints, timed in the same
# program (a change measured side by side with the code before it).
BASE_SUFFIXES = {"base_split": "_bsp", "base_joint": "_bjt"}
GRAD_TOL = 1e-8
ADJOINTS = ("split", "joint", "base_split", "base_joint", "tapenade")


@dataclasses.dataclass
class Row:
    kernel: str
    sizes: str = ""
    t_primal: Optional[float] = None
    ratios: Dict[str, List[float]] = dataclasses.field(default_factory=dict)
    tape: Dict[str, Dict[str, int]] = dataclasses.field(default_factory=dict)
    grad_err: Optional[float] = None
    error: Optional[str] = None

    def ratio(self, tag: str) -> Optional[float]:
        values = self.ratios.get(tag)
        return statistics.median(values) if values else None


def kernels(paths: Sequence[Path], patterns: Sequence[str]) -> List[Path]:
    files = [Path(p).resolve() for p in paths] or sorted(
        p for p in BENCH_DIR.iterdir()
        if p.suffix in (".f90", ".f", ".F90", ".F"))
    if patterns:
        files = [f for f in files if any(
            p in f.name or fnmatch.fnmatch(f.name, p) for p in patterns)]
    return files


def defined_names(text: str) -> List[str]:
    """Modules and procedures defined in a Fortran file (lower case)."""
    found = re.findall(r"^\s*(?:module(?!\s+procedure)|(?:recursive\s+)?"
                       r"subroutine|(?:[\w(),= ]*\s)?function)\s+(\w+)",
                       text, re.I | re.M)
    return sorted({n.lower() for n in found})


def rename_joint(text: str, original: str, suffix: str = JOINT_SUFFIX) -> str:
    """The joint file with a suffix on every module and procedure it
    defines (not those of the original source), so that it links with the
    split one."""
    keep = set(defined_names(original))
    for name in defined_names(text):
        if name not in keep:
            text = re.sub(rf"\b{name}\b", name + suffix, text,
                          flags=re.I)
    return text


def _compile(sources: Sequence[Path], workdir: Path, fflags: Sequence[str],
             what: str) -> List[Path]:
    objs = []
    for src in sources:
        obj = workdir / (src.name + ".o")
        flags = list(fflags) if src.suffix != ".c" else []
        cmd = [harness.gfortran() if src.suffix != ".c" else "gcc",
               *BENCH_FFLAGS, *flags, "-c", src, "-o", obj]
        harness._run(cmd, workdir, f"{what}: compiling {src.name}",
                     show=[src] if src.suffix != ".c" else [])
        objs.append(obj)
    return objs


def _values(stdout: str, key: str) -> List[List[str]]:
    return [line.split()[1:] for line in stdout.splitlines()
            if line.split() and line.split()[0] == key]


def bench_kernel(kernel: Path, tapdir: Optional[Path], workdir: Path,
                 batches: int, min_time: float, baseline: Optional[Path] = None) -> Row:
    row = Row(kernel.stem)
    workdir.mkdir(parents=True, exist_ok=True)
    meta = harness.parse_metadata(kernel).for_benchmark()
    sig = harness.parse_signature(kernel, meta.routine)
    meta.routine = sig.routine
    harness.check_metadata_names(sig, meta, kernel)
    harness.resolve_shapes(sig, meta, str(kernel))
    row.sizes = " ".join(f"{k}={v}" for k, v in meta.bench.items())
    if sig.result:
        raise harness.HarnessError("function kernels are not supported here")

    split = harness.generate(kernel, meta, "split", workdir / "split_ad.f90")
    joint_raw = harness.generate(kernel, meta, "joint",
                                 workdir / "joint_raw_ad.f90")
    joint = workdir / "joint_ad.f90"
    joint.write_text(rename_joint(joint_raw.read_text(), kernel.read_text()))
    r = sig.routine
    variants = [Variant("split", f"{r}_rev", f"{sig.module}_ad"
                        if sig.module else None),
                Variant("joint", f"{r}_rev{JOINT_SUFFIX}",
                        f"{sig.module}_ad{JOINT_SUFFIX}" if sig.module
                        else None)]
    sources_of = {"split": split, "joint": joint}
    for tag, suffix in (BASE_SUFFIXES.items() if baseline else ()):
        raw = harness.generate(kernel, meta, tag[5:], workdir / f"{tag}_raw_ad.f90",
                               tree=baseline)
        renamed = workdir / f"{tag}_ad.f90"
        renamed.write_text(rename_joint(raw.read_text(), kernel.read_text(), suffix))
        sources_of[tag] = renamed
        variants.append(Variant(tag, f"{r}_rev{suffix}",
                                f"{sig.module}_ad{suffix}" if sig.module else None))
    extra_c: List[Path] = []
    tap_adj = None
    if tapdir:
        tap_adj = tap.differentiate(tapdir, kernel, r, meta.dep, meta.indep,
                                    workdir / "tapenade")
        variants.append(Variant("tapenade", tap_adj.name, tap_adj.module,
                                tapenade=tap_adj))

    # --- timing program -------------------------------------------------
    tdir = workdir / "time"
    tdir.mkdir(exist_ok=True)
    driver = tdir / "bench_time.f90"
    driver.write_text(timing_driver(sig, meta, kernel, variants, batches,
                                    min_time))
    sources = [kernel, *sources_of.values()] + ([tap_adj.source] if tap_adj else [])
    objs = _compile(sources + [driver], tdir, meta.fflags, "timing program")
    if tapdir:
        objs.append(tap.adstack_object(tapdir, tdir, profile=False))
    exe = tdir / "bench_time"
    harness._run([harness.gfortran(), *objs, "-o", exe], tdir,
                 "linking the timing program")
    out = harness._run([exe], tdir, "running the timing program",
                       timeout=3600).stdout
    dots = {int(v): float(d) for v, d in _values(out, "@dot")}
    ref = dots[2]
    row.grad_err = max(abs(d - ref) / max(abs(ref), 1e-300)
                       for d in dots.values())
    per_batch: Dict[int, Dict[int, float]] = {}
    for b, v, t, _n in _values(out, "@t"):
        per_batch.setdefault(int(b), {})[int(v)] = float(t)
    for b, times in per_batch.items():
        t0 = max(times[1], 1e-12)
        for i, var in enumerate(variants, start=2):
            row.ratios.setdefault(var.tag, []).append(times[i] / t0)
    row.t_primal = statistics.median(t[1] for t in per_batch.values())

    # --- tape program ---------------------------------------------------
    mdir = workdir / "tape"
    mdir.mkdir(exist_ok=True)
    msources = []
    for tag, src in sources_of.items():
        text, _counts = tape_meter.instrument(src.read_text())
        inst = mdir / f"{tag}_ad_metered.f90"
        inst.write_text(text)
        msources.append(inst)
    meter = mdir / "adf_meter.f90"
    meter.write_text(tape_meter.METER_SOURCE)
    driver = mdir / "bench_tape.f90"
    driver.write_text(tape_driver(sig, meta, kernel, variants))
    sources = [meter, kernel, *msources] + ([tap_adj.source] if tap_adj
                                            else [])
    objs = _compile(sources, mdir, meta.fflags, "tape program")
    link = []
    if tapdir:
        syms = tape_meter.tapenade_symbols(tap.undefined_symbols(objs[-1]))
        wrap = mdir / "adf_tapmeter.c"
        wrap.write_text(tape_meter.tapenade_wrappers(syms))
        objs += _compile([wrap], mdir, [], "tape program")
        objs.append(tap.adstack_object(tapdir, mdir, profile=True))
        link = ["-Wl," + ",".join(f"--wrap={s}" for s in syms)] if syms else []
    objs += _compile([driver], mdir, meta.fflags, "tape program")
    exe = mdir / "bench_tape"
    harness._run([harness.gfortran(), *objs, *link, "-o", exe], mdir,
                 "linking the tape program")
    out = harness._run([exe], mdir, "running the tape program",
                       timeout=3600).stdout
    for v, total, value, control, alloc, now in _values(out, "@tape"):
        tag = variants[int(v) - 2].tag
        if int(now) != 0:
            raise harness.HarnessError(f"{tag}: {now} bytes left on the "
                                       "tape after the adjoint")
        row.tape[tag] = {"peak": int(total), "value": int(value),
                         "control": int(control), "alloc": int(alloc)}
    if tapdir and "tapenade" in row.tape:
        row.tape["tapenade"]["alloc"] = tap.peak_blocks(out) or 0
    if row.grad_err > GRAD_TOL:
        row.error = (f"gradients disagree: <grad, dir> = "
                     + ", ".join(f"{variants[v - 2].tag} {d!r}"
                                 for v, d in sorted(dots.items()))
                     + f" (relative difference {row.grad_err:.1e})")
    return row


def _short_error(exc: BaseException, verbose: bool) -> str:
    text = str(exc).strip()
    if verbose:
        return text
    lines = [ln for ln in text.splitlines() if ln.strip()]
    detail = [ln.strip() for ln in lines[1:] if ln.lstrip().startswith(
        ("adfort:", "Error:", "Fortran runtime", "Fatal", "tapenade",
         "Command:", "undefined reference"))]
    return " | ".join(lines[:1] + detail[:3])[:400]


def _f(value: Optional[float], fmt: str = "{:.2f}") -> str:
    return "-" if value is None else fmt.format(value)


def machine_note() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        fc = subprocess.run([harness.gfortran(), "--version"],
                            capture_output=True, text=True).stdout
        fc = fc.splitlines()[0]
    except Exception:  # noqa: BLE001  (only a note)
        fc = "gfortran ?"
    load = ""
    try:
        load = " load " + Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        pass
    return (f"{time.strftime('%Y-%m-%d %H:%M')}  {cpu}  {fc}{load}  "
            f"{platform.system()} {platform.release()}")


def print_table(rows: List[Row], tapdir: Optional[Path], batches: int,
                baseline: Optional[Path] = None):
    print(f"\nadfort vs Tapenade: t(adjoint)/t(r), median of {batches} "
          f"interleaved batches, gfortran {' '.join(BENCH_FFLAGS)}; peak "
          "tape bytes (one call)")
    print(machine_note())
    head = ("| kernel | adfort split | adfort joint | Tapenade | "
            "peak tape split / joint / Tapenade [B] |")
    print(head)
    print("|---|---|---|---|---|")
    for r in rows:
        if r.error and not r.ratios:
            print(f"| {r.kernel} | FAILED: {r.error} | | | |")
            continue
        tapes = " / ".join(str(r.tape[t]["peak"]) if t in r.tape else "-"
                           for t in ("split", "joint", "tapenade"))
        print(f"| {r.kernel} | {_f(r.ratio('split'))} | "
              f"{_f(r.ratio('joint'))} | {_f(r.ratio('tapenade'))} | "
              f"{tapes} |")
    if baseline:
        print(f"\nthe same run, adfort of {baseline}:")
        print("| kernel | split | joint | peak tape split / joint [B] |")
        print("|---|---|---|---|")
        for r in rows:
            if r.ratios:
                tapes = " / ".join(str(r.tape[t]["peak"]) if t in r.tape else "-"
                                   for t in BASE_SUFFIXES)
                print(f"| {r.kernel} | {_f(r.ratio('base_split'))} | "
                      f"{_f(r.ratio('base_joint'))} | {tapes} |")
    print("\ndetails (sizes; t(r); ratio range over batches; tape bytes: "
          "value + control, allocated; Tapenade: adStack peak blocks; "
          "gradient agreement)")
    for r in rows:
        print(f"- {r.kernel} [{r.sizes}]" + (f" t(r)={r.t_primal:.3e}s"
                                              if r.t_primal else ""))
        for t in ADJOINTS:
            if t not in r.ratios:
                continue
            tp = r.tape.get(t, {})
            line = (f"    {t:8s} ratio {min(r.ratios[t]):.2f}..."
                    f"{max(r.ratios[t]):.2f}")
            if tp and t != "tapenade":
                line += (f"  tape {tp['value']} + {tp['control']}, "
                         f"allocated {tp['alloc']}")
            elif tp:
                line += f"  stack {tp['peak']}, adStack blocks {tp['alloc']}"
            print(line)
        if r.grad_err is not None:
            print(f"    max relative difference of <gradient, direction> "
                  f"between the adjoints: {r.grad_err:.1e}")
        if r.error:
            print(f"    FAILED: {r.error}")
    if not tapdir:
        print("(no --tapenade DIR: Tapenade not run)")


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--fixture-mode" in argv:
        argv.remove("--fixture-mode")
        import benchmark_fixtures
        return benchmark_fixtures.main(argv)
    if "--tool-speed" in argv:
        argv.remove("--tool-speed")
        import tool_speed
        return tool_speed.main(argv)
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*", type=Path,
                        help="kernel files (default: benchmarks/*)")
    parser.add_argument("--tapenade", type=Path, metavar="DIR",
                        help="Tapenade installation to compare with")
    parser.add_argument("--filter", action="append", default=[],
                        metavar="NAME")
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.1,
                        help="seconds each timed batch lasts at least")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--baseline", type=Path, metavar="TREE",
                        help="time another adfort checkout's adjoints too, in the "
                             "same program (base_split, base_joint)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--fixture-mode", action="store_true",
                        help="time the test fixtures instead "
                             "(scripts/benchmark_fixtures.py)")
    parser.add_argument("--tool-speed", action="store_true",
                        help="time adfort itself on a large generated module "
                             "(scripts/tool_speed.py)")
    args = parser.parse_args(argv)
    tapdir = args.tapenade.resolve() if args.tapenade else None
    if tapdir and not (tapdir / "bin" / "tapenade").exists():
        parser.error(f"no bin/tapenade in {tapdir}")
    root = args.workdir or Path(tempfile.mkdtemp(prefix="adfort_bench_"))
    rows = []
    start = time.time()
    for kernel in kernels(args.kernels, args.filter):
        try:
            row = bench_kernel(kernel, tapdir, root / kernel.stem,
                               args.batches, args.min_time, args.baseline)
        except Exception as exc:  # report, go on with the next kernel
            row = Row(kernel.stem, error=_short_error(exc, args.verbose))
        rows.append(row)
        print(f"  {kernel.name}: " + ("FAILED" if row.error else "done"),
              file=sys.stderr, flush=True)
    print_table(rows, tapdir, args.batches, args.baseline)
    print(f"files in {root}; {time.time() - start:.1f} s")
    return 1 if any(r.error for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
