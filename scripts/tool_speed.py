#!/usr/bin/env python3
"""adfort's own run time and peak memory on a large generated module, side
by side with Tapenade's (``scripts/benchmark.py --tool-speed``).

The module (``--routines`` stencil routines, about 50 lines each, written
the way model code is: loop nests, IFs, intrinsics, local work arrays)
holds two targets:

- ``model_step``, at the top of a call tree ``--depth`` levels deep, each
  level calling the next and two stencil routines;
- one stencil routine in the middle of the file that calls nothing.

Each tool runs in its own process; its wall time and peak resident memory
(``ru_maxrss`` of the process and what it ran, from ``wait4``) are the
median and the maximum over ``--repeat`` runs.  adfort's time includes the
interpreter's start-up and imports (from cached bytecode, as installed),
Tapenade's the JVM's; each tool runs once untimed first.  The adfort
timed is this checkout's (``python -m adfort`` with it on PYTHONPATH).
A third row times adfort on the call-tree target again with ``--cache``
(the rebuild of a Makefile: the cache filled by an earlier run).

``--scaling`` adds two tables for the call-tree target: the file grows
(100, 200, 400 routines) with the call tree the same, then the call tree
grows (depth 2, 4, 8) in the same file.

    python scripts/benchmark.py --tool-speed [--tapenade DIR] [--routines 200]
        [--depth 8] [--repeat 3] [--scaling] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def stencil(k: int, callees=()) -> str:
    """A 2-D stencil routine of about 50 lines; it calls `callees`."""
    calls = "".join(f"    call {c}(nx, ny, dt, work, q)\n" for c in callees)
    return f"""\
  subroutine kern_{k:03d}(nx, ny, dt, u, q)
    ! advection-diffusion of q by u with a limiter, variant {k}
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: dt
    real(wp), intent(in) :: u(nx, ny)
    real(wp), intent(inout) :: q(nx, ny)
    real(wp) :: work(nx, ny), flux(0:nx, ny), r, lim, dq
    integer :: i, j, im, ip
    do j = 1, ny
      do i = 0, nx
        im = max(i, 1)
        ip = min(i + 1, nx)
        dq = q(ip, j) - q(im, j)
        if (abs(dq) > 1.0e-12_wp) then
          r = (q(im, j) - q(max(im - 1, 1), j))/dq
        else
          r = 0.0_wp
        end if
        lim = max(0.0_wp, min(2.0_wp*r, 1.0_wp), min(r, 2.0_wp))
        if (u(ip, j) > 0.0_wp) then
          flux(i, j) = u(ip, j)*(q(im, j) + 0.5_wp*lim*dq)
        else
          flux(i, j) = u(ip, j)*(q(ip, j) - 0.5_wp*lim*dq)
        end if
      end do
    end do
    do j = 1, ny
      do i = 1, nx
        work(i, j) = q(i, j) - dt*(flux(i, j) - flux(i - 1, j))
        work(i, j) = work(i, j) + {0.001 * (k % 7 + 1):.4f}_wp*dt*exp(-work(i, j)**2)
      end do
    end do
    do j = 2, ny - 1
      do i = 1, nx
        q(i, j) = 0.25_wp*(work(i, j - 1) + 2.0_wp*work(i, j) + work(i, j + 1))
      end do
    end do
    q(:, 1) = work(:, 1)
    q(:, ny) = work(:, ny)
    where (q < 0.0_wp) q = 0.0_wp
{calls}  end subroutine kern_{k:03d}

"""


def level(d: int, depth: int, kernels) -> str:
    inner = f"    call level_{d + 1:02d}(nx, ny, dt, u, q)\n" if d < depth else ""
    calls = "".join(f"    call kern_{k:03d}(nx, ny, dt, u, q)\n" for k in kernels)
    return f"""\
  subroutine level_{d:02d}(nx, ny, dt, u, q)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: dt
    real(wp), intent(in) :: u(nx, ny)
    real(wp), intent(inout) :: q(nx, ny)
{calls}{inner}  end subroutine level_{d:02d}

"""


def generate(routines: int, depth: int) -> tuple[str, str]:
    """(module text, name of the stand-alone target)."""
    parts = ["module big_model\n  implicit none\n"
             "  integer, parameter :: wp = kind(1.0d0)\ncontains\n"]
    for k in range(1, routines + 1):
        parts.append(stencil(k))
    for d in range(1, depth + 1):
        parts.append(level(d, depth, [2 * d - 1, 2 * d]))
    parts.append("""\
  subroutine model_step(nx, ny, dt, u, q, cost)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: dt
    real(wp), intent(in) :: u(nx, ny)
    real(wp), intent(inout) :: q(nx, ny)
    real(wp), intent(out) :: cost
    call level_01(nx, ny, dt, u, q)
    cost = sum(q**2)
  end subroutine model_step
end module big_model
""")
    return "".join(parts), f"kern_{routines // 2 + 1:03d}"


def measure(command: list[str], cwd: Path, repeat: int,
            warm_up: bool = False) -> tuple[float, float, str]:
    """(median wall seconds, max peak RSS in MB, error text or '').

    Python runs with its bytecode cached (in ``pycache`` beside `cwd`, as
    an installed package has it, even where PYTHONDONTWRITEBYTECODE is
    set); with `warm_up` one untimed run comes first.
    """
    times, peaks = [], []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
        "PYTHONPYCACHEPREFIX": str(Path(cwd).parent / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if warm_up:
        subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        times.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss / 1024.0)
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            return 0.0, 0.0, err.strip().splitlines()[-1] if err.strip() else "failed"
    return statistics.median(times), max(peaks), ""


def _cell(result) -> str:
    t, m, err = result
    return f"{t:.2f} s, {m:.0f} MB" if not err else f"failed: {err[:60]}"


def _adfort(source: Path, routine: str, dep: str, indep: str, work: Path, repeat: int,
            extra=()) -> tuple[float, float, str]:
    out = work / f"{routine}_ad.f90"
    return measure([sys.executable, "-m", "adfort", "diff", str(source), "--routine", routine,
                    "--dep", dep, "--indep", indep, "-o", str(out)] + list(extra),
                   work, repeat, warm_up=True)


def _tapenade(tapenade: Path, source: Path, routine: str, dep: str, indep: str, work: Path,
              repeat: int) -> tuple[float, float, str]:
    tapout = work / f"tapenade_{routine}"
    tapout.mkdir(exist_ok=True)
    return measure([str(tapenade.resolve() / "bin" / "tapenade"), "-b", "-head",
                    f"{routine}({dep})/({indep})", "-O", str(tapout), str(source)],
                   work, repeat, warm_up=True)


def _module(work: Path, routines: int, depth: int) -> tuple[Path, str, int]:
    """(file, stand-alone target, lines) of a generated module in `work`."""
    text, alone = generate(routines, depth)
    work.mkdir(parents=True, exist_ok=True)
    source = work / "big_model.f90"
    source.write_text(text)
    return source, alone, text.count("\n")


def _table(title: str, rows, tapenade: bool) -> list[str]:
    lines = [title, "| target | adfort |" + (" Tapenade |" if tapenade else ""),
             "|---|---|" + ("---|" if tapenade else "")]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _scaling(args, work: Path) -> list[str]:
    """The two --scaling tables (call-tree target)."""
    lines = []
    for title, cases in (
            ("the file grows, the call tree (depth 8) is the same",
             [(n, 8) for n in (100, 200, 400)]),
            (f"the call tree grows, the file ({args.routines} routines) is the same",
             [(args.routines, d) for d in (2, 4, 8)])):
        rows = []
        for routines, depth in cases:
            source, _, count = _module(work / f"r{routines}_d{depth}", routines, depth)
            row = [f"{routines} routines ({count} lines), depth {depth} "
                   f"({3 * depth + 1} routines in the tree)",
                   _cell(_adfort(source, "model_step", "cost", "q", source.parent,
                                 args.repeat))]
            if args.tapenade:
                row.append(_cell(_tapenade(args.tapenade, source, "model_step", "cost", "q",
                                           source.parent, args.repeat)))
            rows.append(row)
        lines += [""] + _table(f"model_step: {title}", rows, bool(args.tapenade))
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tapenade", type=Path, metavar="DIR")
    parser.add_argument("--routines", type=int, default=200)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scaling", action="store_true")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="adfort_speed_"))
    source, alone, lines = _module(work, args.routines, args.depth)
    targets = [("model_step", "cost", "q", f"call tree {args.depth} levels deep"),
               (alone, "q", "q", "calls nothing")]
    rows = []
    for routine, dep, indep, what in targets:
        row = [f"{routine} ({what})", _cell(_adfort(source, routine, dep, indep, work,
                                                    args.repeat))]
        if args.tapenade:
            row.append(_cell(_tapenade(args.tapenade, source, routine, dep, indep, work,
                                       args.repeat)))
        rows.append(row)
    cache = ["--cache", str(work / "adfort-cache")]
    # (The warm-up run fills the cache.)
    rows.append(["model_step again, --cache filled (a rebuild)",
                 _cell(_adfort(source, "model_step", "cost", "q", work, args.repeat, cache))]
                + (["(no cache)"] if args.tapenade else []))
    report = _table(f"tool run time on a generated module of {lines} lines, {args.routines} "
                    f"stencil routines (median of {args.repeat}; peak resident memory)",
                    rows, bool(args.tapenade))
    if args.scaling:
        report += _scaling(args, work)
    print("\n".join(report))
    print(f"files in {work}")
    return 1 if any("failed" in line for line in report) else 0


if __name__ == "__main__":
    sys.exit(main())
