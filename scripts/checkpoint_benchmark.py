#!/usr/bin/env python3
"""Memory and time of checkpointed time loops against plain taping.

The model is the 2-D shallow-water run of
``benchmarks/checkpointing/shallow_water_2d.f90`` (``swe_run``: a
Lax-Friedrichs step of h, u, v on a periodic ``--grid`` x ``--grid`` mesh
per time step, the misfit of h to observations summed over the steps; the
gradient is taken with respect to the initial h, u, v).  Its time loop
carries no directive: each variant is one ``adfort diff`` run of the same
file,

- ``plain``: no checkpointing, every step's tape kept;
- ``binomial``: ``--checkpoint swe_run:it=binomial(snapshots=S)``;
- ``every``: ``--checkpoint swe_run:it=every(K)`` (left out with
  ``--every 0``).

For each variant the script builds two programs with ``gfortran -O2``:

1. a *meter*: the adjoint instrumented by scripts/tape_meter.py, which
   follows every move of the tapes; the snapshots live on the value tape,
   so its high-water mark is the peak memory of tape and snapshots
   together.  Counters added to the generated code count the plain
   (untaped) runs of each step, ``swe_run_ckpt_step``, per step, and the
   recording runs, ``swe_step_rec``, in all.  One call of ``swe_run_rev``
   per N; it also prints the gradient, compared element by element with
   the plain adjoint's: max |g - g_plain| / max |g_plain|;
2. a *timer*: the adjoint as generated.  After a warm-up call of each (the
   tapes are allocated once and kept), ``--repeats`` rounds each time
   ``swe_run`` then ``swe_run_rev`` (the order alternating from round to
   round), each the same number of calls, enough for ``--min-time``
   seconds of ``swe_run``; the cost ratio is the median over the rounds of
   t(swe_run_rev) / t(swe_run) of the same round, in processor time
   (``cpu_time``: on a shared machine, wall-clock time would also count
   the time a run spends waiting for the processor).

It prints one table row per N and variant; checks the figures: the
gradients finite and equal to the plain adjoint's to 1e-10, every step
recorded once and run forward no more often than the binomial repetition
number t allows (the first sweep included: N = 10^4 and S = 20 give
t = 4), the binomial peak the same for every N > S and at most S
snapshots and one step's tape; and draws two panels into ``--plot`` (default
``docs/checkpointing.png``): peak memory against N (log-log) and the cost
ratio against N, one curve per variant.  The exit status is 1 if a check
failed.

    python scripts/checkpoint_benchmark.py [--steps 1000,10000,100000]
        [--snapshots 20] [--every 100] [--grid 12] [--repeats 7]
        [--min-time 0.2] [--plot docs/checkpointing.png] [--json FILE]
        [--workdir DIR] [--quick]

``--quick`` (for the tests): N = 100, 200, 400 on the same grid, three
rounds of at least 0.02 s.  adfort is run as ``python -m adfort`` with
this checkout first on PYTHONPATH: the adjoints are this checkout's.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "scripts"))
sys.path.insert(0, str(REPO_ROOT))

import tape_meter  # noqa: E402
from adfort.checkpointing import repetitions  # noqa: E402

MODEL = REPO_ROOT / "benchmarks" / "checkpointing" / "shallow_water_2d.f90"
ROUTINE = "swe_run"
STEP_PROC = f"{ROUTINE}_ckpt_step"     # the loop body made a procedure
RECORD_PROC = "swe_step_rec"           # records one model step
FFLAGS = ["-O2"]
GRAD_TOL = 1e-10
DEFAULT_PLOT = REPO_ROOT / "docs" / "checkpointing.png"


@dataclasses.dataclass
class Variant:
    """One way of differentiating the time loop."""

    name: str                      # plain, binomial, every
    schedule: Optional[str]        # the --checkpoint schedule, None: plain

    @property
    def label(self) -> str:
        return self.schedule or "plain taping"


@dataclasses.dataclass
class Row:
    """Figures of one variant at one N."""

    variant: str
    steps: int
    peak_bytes: int                # tape and snapshots, high-water mark
    ratios: List[float]            # t(swe_run_rev)/t(swe_run) per round
    max_runs: int                  # most plain runs of one step
    total_runs: int                # plain runs of all steps
    records: int                   # recording runs of all steps
    grad_diff: Optional[float] = None   # against plain, normwise relative
    gradient: List[float] = dataclasses.field(default_factory=list, repr=False)

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)


# -- Fortran: the set-up shared by both programs, the counters, the drivers --

SETUP = """\
! Grid, time step and initial state of the benchmark runs.
module bench_setup
  use shallow_water_2d, only: dp
  implicit none
  integer, parameter :: nx = {grid}, ny = {grid}
  ! 20 km mesh, 200 s steps: gravity waves (sqrt(g*100 m) = 31 m/s) at a
  ! Courant number of 0.3
  real(dp), parameter :: dx = 2.0e4_dp, dy = 2.0e4_dp, dt = 200.0_dp
contains
  ! A 100 m layer with a bump of 1 m, a weak current; observations of
  ! another bump.
  subroutine initial_state(h, u, v, hobs)
    real(dp), intent(out) :: h(nx, ny), u(nx, ny), v(nx, ny), hobs(nx, ny)
    real(dp) :: x, y
    integer :: i, j
    do j = 1, ny
      do i = 1, nx
        x = (i - 0.5_dp)/nx - 0.4_dp
        y = (j - 0.5_dp)/ny - 0.5_dp
        h(i, j) = 100.0_dp + exp(-(x**2 + y**2)/0.02_dp)
        u(i, j) = 0.1_dp*sin(6.283185307179586_dp*(j - 0.5_dp)/ny)
        v(i, j) = 0.05_dp*cos(6.283185307179586_dp*(i - 0.5_dp)/nx)
        hobs(i, j) = 100.0_dp + 0.5_dp*exp(-((x - 0.2_dp)**2 + y**2)/0.03_dp)
      end do
    end do
  end subroutine initial_state
end module bench_setup
"""

COUNTER = """\
! Runs of the model step, counted by statements added to the adjoint.
module step_counter
  use iso_fortran_env, only: int64
  implicit none
  integer, allocatable :: runs(:)       ! plain runs, per step
  integer(int64) :: records = 0         ! recording runs, all steps
end module step_counter
"""

METER_DRIVER = """\
program ckpt_meter
  use shallow_water_2d, only: dp
  use shallow_water_2d_ad, only: swe_run_rev
  use bench_setup
  use step_counter
  use adf_meter_mod
  implicit none
  real(dp) :: h(nx, ny), u(nx, ny), v(nx, ny), hobs(nx, ny)
  real(dp) :: h_adj(nx, ny), u_adj(nx, ny), v_adj(nx, ny), cost, cost_adj
  integer :: nt, i, j
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read(arg, *) nt
  allocate(runs(max(nt, 1)))
  runs = 0
  call initial_state(h, u, v, hobs)
  h_adj = 0.0_dp
  u_adj = 0.0_dp
  v_adj = 0.0_dp
  cost_adj = 1.0_dp
  call swe_run_rev(nx, ny, nt, dt, dx, dy, h, h_adj, u, u_adj, v, v_adj, hobs, cost, cost_adj)
  print '(a, i0)', '@peak_bytes ', adf_meter_peak(0)
  print '(a, i0)', '@max_runs ', maxval(runs)
  print '(a, i0)', '@total_runs ', sum(int(runs, int64))
  print '(a, i0)', '@records ', records
  print '(a, es27.17e3)', '@cost ', cost
  do j = 1, ny
    do i = 1, nx
      print '(a, 3es27.17e3)', '@g ', h_adj(i, j), u_adj(i, j), v_adj(i, j)
    end do
  end do
end program ckpt_meter
"""

TIMER_DRIVER = """\
program ckpt_timer
  use shallow_water_2d, only: dp, swe_run
  use shallow_water_2d_ad, only: swe_run_rev
  use bench_setup
  implicit none
  real(dp) :: h0(nx, ny), u0(nx, ny), v0(nx, ny), hobs(nx, ny)
  real(dp) :: h(nx, ny), u(nx, ny), v(nx, ny)
  real(dp) :: h_adj(nx, ny), u_adj(nx, ny), v_adj(nx, ny), cost, cost_adj
  real(dp) :: min_time, t_primal, t_adjoint
  integer :: nt, rounds, calls, r
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read(arg, *) nt
  call get_command_argument(2, arg)
  read(arg, *) rounds
  call get_command_argument(3, arg)
  read(arg, *) min_time
  call initial_state(h0, u0, v0, hobs)
  ! warm-up: first touch of the arrays, the tapes allocated and kept
  t_adjoint = adjoint(1)
  t_primal = primal(1)
  calls = max(1, ceiling(min_time/max(t_primal, 1.0e-7_dp)))
  do r = 1, rounds
    ! which goes first alternates, so that a drift of the machine's speed
    ! does not favour one
    if (mod(r, 2) == 1) then
      t_primal = primal(calls)
      t_adjoint = adjoint(calls)
    else
      t_adjoint = adjoint(calls)
      t_primal = primal(calls)
    end if
    print '(a, i4, 2es16.8, i8)', '@t ', r, t_primal/calls, t_adjoint/calls, calls
  end do
contains
  ! Processor time of this program: the machine may be shared, and the
  ! time a run spends waiting for the processor is not its cost.
  real(dp) function seconds()
    call cpu_time(seconds)
  end function seconds

  real(dp) function primal(calls) result(t)
    integer, intent(in) :: calls
    integer :: k
    t = seconds()
    do k = 1, calls
      h = h0
      u = u0
      v = v0
      call swe_run(nx, ny, nt, dt, dx, dy, h, u, v, hobs, cost)
    end do
    t = seconds() - t
  end function primal

  real(dp) function adjoint(calls) result(t)
    integer, intent(in) :: calls
    integer :: k
    t = seconds()
    do k = 1, calls
      h = h0
      u = u0
      v = v0
      h_adj = 0.0_dp
      u_adj = 0.0_dp
      v_adj = 0.0_dp
      cost_adj = 1.0_dp
      call swe_run_rev(nx, ny, nt, dt, dx, dy, h, h_adj, u, u_adj, v, v_adj, hobs, cost, &
                       cost_adj)
    end do
    t = seconds() - t
  end function adjoint
end program ckpt_timer
"""


# -- generating, instrumenting, building --------------------------------------

def variants(snapshots: int, every: int) -> List[Variant]:
    """The variants measured: plain, binomial and (``every`` > 0) every(k)."""
    found = [Variant("plain", None),
             Variant("binomial", f"binomial(snapshots={snapshots})")]
    if every > 0:
        found.append(Variant("every", f"every({every})"))
    return found


def generate(variant: Variant, out: Path) -> str:
    """Run ``adfort diff`` on the model for `variant`; the adjoint's text."""
    cmd = [sys.executable, "-m", "adfort", "diff", str(MODEL), "--routine", ROUTINE,
           "--dep", "cost", "--indep", "h,u,v", "-o", str(out)]
    if variant.schedule:
        cmd += ["--checkpoint", f"{ROUTINE}:it={variant.schedule}"]
    # The checkout's adfort, whatever the environment has installed.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO_ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    done = subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"adfort failed for {variant.name}:\n{done.stderr}")
    return out.read_text()


def _add_to_routine(text: str, name: str, statement: str) -> str:
    """`text` with ``use step_counter`` at the top of subroutine `name` and
    `statement` just before its end (the routines instrumented have no
    RETURN: a checkpointed loop body may not hold one)."""
    head = re.search(rf"^(\s*)subroutine {name}\((?:.*&\n)*.*\n", text, re.M | re.I)
    if not head:
        raise RuntimeError(f"no subroutine {name} in the generated code")
    indent = head.group(1) + "  "
    text = text[:head.end()] + f"{indent}use step_counter\n" + text[head.end():]
    end = re.compile(rf"^\s*end subroutine {name}\s*$", re.M | re.I).search(text, head.end())
    if not end:
        raise RuntimeError(f"no END SUBROUTINE {name} in the generated code")
    return text[:end.start()] + f"{indent}{statement}\n" + text[end.start():]


def count_runs(text: str, checkpointed: bool) -> str:
    """The adjoint with the step's runs counted: plain runs per step (the
    loop index ``it`` is an argument of the step procedure) and recording
    runs in all."""
    text = _add_to_routine(text, RECORD_PROC, "records = records + 1")
    if checkpointed:
        text = _add_to_routine(text, STEP_PROC, "runs(it) = runs(it) + 1")
    return text


def build(workdir: Path, variant: Variant, grid: int) -> Dict[str, Path]:
    """Generate the adjoint of `variant` and build its meter and timer
    programs in ``workdir/<variant>``; their paths."""
    where = workdir / variant.name
    where.mkdir(parents=True, exist_ok=True)
    text = generate(variant, where / "swe_ad.f90")
    metered, _ = tape_meter.instrument(count_runs(text, variant.schedule is not None))
    (where / "swe_ad_metered.f90").write_text(metered)
    (where / "setup.f90").write_text(SETUP.format(grid=grid))
    (where / "meter_lib.f90").write_text(COUNTER + tape_meter.METER_SOURCE)
    (where / "meter.f90").write_text(METER_DRIVER)
    (where / "timer.f90").write_text(TIMER_DRIVER)
    programs = {"meter": ["meter_lib.f90", str(MODEL), "setup.f90", "swe_ad_metered.f90",
                          "meter.f90"],
                "timer": [str(MODEL), "setup.f90", "swe_ad.f90", "timer.f90"]}
    for name, sources in programs.items():
        # Separate module directories: both programs define the same modules.
        mods = where / f"mod_{name}"
        mods.mkdir(exist_ok=True)
        done = subprocess.run(["gfortran", *FFLAGS, "-J", str(mods), "-o", name, *sources],
                              cwd=where, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"gfortran failed for {variant.name} {name}:\n{done.stderr}")
    return {name: where / name for name in programs}


# -- running -------------------------------------------------------------------

def _run(program: Path, args: Sequence[str]) -> List[str]:
    done = subprocess.run([str(program), *args], cwd=program.parent,
                          capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{program} {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return [line for line in done.stdout.splitlines() if line.startswith("@")]


def measure(programs: Dict[str, Path], variant: Variant, steps: int, rounds: int,
            min_time: float) -> Row:
    """One variant at `steps` steps: the meter's figures and the timer's."""
    values: Dict[str, str] = {}
    gradient: List[float] = []
    for line in _run(programs["meter"], [str(steps)]):
        key, rest = line.split(None, 1)
        if key == "@g":
            gradient += [float(x) for x in rest.split()]
        else:
            values[key] = rest.strip()
    ratios = []
    for line in _run(programs["timer"], [str(steps), str(rounds), repr(min_time)]):
        _, _, primal, adjoint, _ = line.split()
        ratios.append(float(adjoint) / float(primal))
    return Row(variant.name, steps, int(values["@peak_bytes"]), ratios,
               int(values["@max_runs"]), int(values["@total_runs"]),
               int(values["@records"]), gradient=gradient)


def gradient_difference(row: Row, plain: Row) -> float:
    """max |g - g_plain| / max |g_plain| over all gradient elements."""
    scale = max(abs(g) for g in plain.gradient) or 1.0
    return max(abs(a - b) for a, b in zip(row.gradient, plain.gradient)) / scale


def step_tape_bytes(rows: Sequence[Row]) -> Optional[int]:
    """One step's tape: the growth of the plain adjoint's peak per step
    (None with fewer than two N)."""
    plain = sorted((r for r in rows if r.variant == "plain"), key=lambda r: r.steps)
    if len(plain) < 2 or plain[-1].steps == plain[0].steps:
        return None
    return round((plain[-1].peak_bytes - plain[0].peak_bytes)
                 / (plain[-1].steps - plain[0].steps))


def snapshot_bytes(grid: int) -> int:
    """Bytes of one snapshot as adfort takes it: h, u, v and cost in double
    precision (misfit, set before it is read in every step, is not in it)."""
    return (3 * grid ** 2 + 1) * 8


def check(rows: Sequence[Row], snapshots: int, grid: int) -> List[str]:
    """What the figures break: a gradient not finite or off the plain
    adjoint's by more than 1e-10, a step run forward more often than the
    binomial repetition number allows or not recorded exactly once, a
    binomial peak growing with N or above S snapshots and one step's
    tape."""
    problems = []
    for row in rows:
        if not all(math.isfinite(g) for g in row.gradient):
            problems.append(f"{row.variant} N={row.steps}: gradient not finite "
                            "(has the model run blown up?)")
        elif row.grad_diff is not None and not row.grad_diff <= GRAD_TOL:
            problems.append(f"{row.variant} N={row.steps}: gradient differs from the plain "
                            f"adjoint's by {row.grad_diff:.1e} (relative)")
        if row.records != row.steps:
            problems.append(f"{row.variant} N={row.steps}: {row.records} recording runs")
        t = repetitions(row.steps, snapshots)
        if row.variant == "binomial" and row.max_runs > t:
            problems.append(f"binomial N={row.steps}: a step ran forward {row.max_runs} "
                            f"times, more than t = {t}")
    binomial = [row for row in rows if row.variant == "binomial" and row.steps > snapshots]
    if len({row.peak_bytes for row in binomial}) > 1:
        problems.append("binomial peak memory not flat in N: "
                        f"{sorted({row.peak_bytes for row in binomial})}")
    step = step_tape_bytes(rows)
    if step is not None:
        bound = snapshots * snapshot_bytes(grid) + step
        for row in binomial:
            if row.peak_bytes > bound:
                problems.append(f"binomial N={row.steps}: peak {row.peak_bytes} bytes above "
                                f"S snapshots and one step's tape ({bound})")
    return problems


# -- reporting -----------------------------------------------------------------

def table(rows: Sequence[Row], snapshots: int) -> str:
    """The figures as a Markdown table."""
    lines = ["| N steps | variant | peak bytes (tape + snapshots) | t(r_rev)/t(r) "
             "| forward runs per step besides its recording: max / mean "
             "| gradient vs plain |",
             "|---|---|---:|---:|---|---|"]
    for row in rows:
        runs = f"{row.max_runs} / {row.total_runs / row.steps:.2f}" if row.steps else "-"
        if row.variant == "binomial":
            runs += f" (t = {repetitions(row.steps, snapshots)})"
        diff = "-" if row.grad_diff is None else f"{row.grad_diff:.1e}"
        lines.append(f"| {row.steps} | {row.variant} | {row.peak_bytes:,}".replace(",", " ")
                     + f" | {row.ratio:.1f} | {runs} | {diff} |")
    return "\n".join(lines)


def plot(rows: Sequence[Row], variant_list: Sequence[Variant], path: Path,
         grid: int, snapshots: int, bound: Optional[int]) -> None:
    """Two panels: peak memory against N (log-log), with the bound of S
    snapshots and one step's tape, and the cost ratio against N, each
    binomial point marked with its repetition number t."""
    import matplotlib
    matplotlib.use("Agg")         # no display needed
    import matplotlib.pyplot as plt

    fig, (mem, cost) = plt.subplots(1, 2, figsize=(10, 4.2))
    styles = {"plain": ("o-", "tab:red"), "binomial": ("s-", "tab:blue"),
              "every": ("^-", "tab:green")}
    for variant in variant_list:
        mine = sorted((r for r in rows if r.variant == variant.name), key=lambda r: r.steps)
        if not mine:
            continue
        marker, colour = styles.get(variant.name, ("x-", None))
        steps = [r.steps for r in mine]
        mem.loglog(steps, [r.peak_bytes for r in mine], marker, color=colour,
                   label=variant.label)
        cost.semilogx(steps, [r.ratio for r in mine], marker, color=colour,
                      label=variant.label)
        if variant.name == "binomial":
            for r in mine:
                cost.annotate(f"t = {repetitions(r.steps, snapshots)}", (r.steps, r.ratio),
                              textcoords="offset points", xytext=(0, 7), ha="center",
                              fontsize=8, color=colour)
    if bound is not None:
        mem.axhline(bound, color="tab:blue", linestyle=":", linewidth=1,
                    label=f"{snapshots} snapshots + one step's tape")
    # Room above the curves for the legend.
    low, high = mem.get_ylim()
    mem.set_ylim(low, high * 100)
    mem.set_xlabel("time steps N")
    mem.set_ylabel("peak bytes: tape + snapshots")
    mem.set_title("memory")
    cost.set_xlabel("time steps N")
    cost.set_ylabel("t(adjoint) / t(model)")
    cost.set_ylim(0, 1.15 * max(r.ratio for r in rows))   # room for the t labels
    cost.set_title("cost ratio")
    for ax in (mem, cost):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle(f"2-D shallow water, {grid}x{grid} grid, gfortran -O2")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="1000,10000,100000",
                        help="comma list of numbers of time steps N")
    parser.add_argument("--snapshots", type=int, default=20,
                        help="S of binomial(snapshots=S)")
    parser.add_argument("--every", type=int, default=100,
                        help="k of every(k); 0 leaves the variant out")
    parser.add_argument("--grid", type=int, default=12, help="grid points per side")
    parser.add_argument("--repeats", type=int, default=7,
                        help="timing rounds per N and variant (median taken)")
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="seconds of model runs per timing round at least")
    parser.add_argument("--plot", type=Path, default=DEFAULT_PLOT, help="PNG to write")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--workdir", type=Path,
                        help="keep generated code and programs here (default: temporary)")
    parser.add_argument("--quick", action="store_true",
                        help="small N and short timing, for the tests")
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.repeats, args.min_time = "100,200,400", 3, 0.02
    steps = [int(s) for s in args.steps.split(",") if s.strip()]
    variant_list = variants(args.snapshots, args.every)

    with tempfile.TemporaryDirectory(prefix="ckpt_bench_") as tmp:
        workdir = args.workdir or Path(tmp)
        programs = {v.name: build(workdir, v, args.grid) for v in variant_list}
        rows: List[Row] = []
        for n in steps:
            plain = None
            for variant in variant_list:
                row = measure(programs[variant.name], variant, n, args.repeats,
                              args.min_time)
                if variant.name == "plain":
                    plain = row
                elif plain is not None:
                    row.grad_diff = gradient_difference(row, plain)
                rows.append(row)
                print(f"N={n} {variant.name}: peak {row.peak_bytes} B, ratio {row.ratio:.2f}",
                      file=sys.stderr, flush=True)

    step = step_tape_bytes(rows)
    bound = None if step is None else args.snapshots * snapshot_bytes(args.grid) + step
    print(f"2-D shallow water, {args.grid}x{args.grid} grid, "
          f"binomial(snapshots={args.snapshots})"
          + (f", every({args.every})" if args.every > 0 else "") + ", gfortran -O2")
    print(f"snapshot {snapshot_bytes(args.grid)} bytes, one step's tape "
          f"{step if step is not None else '?'} bytes, S snapshots + one step's tape "
          f"{bound if bound is not None else '?'} bytes")
    print(table(rows, args.snapshots))
    plot(rows, variant_list, args.plot, args.grid, args.snapshots, bound)
    print(f"plot: {args.plot}")
    if args.json:
        args.json.write_text(json.dumps(
            {"grid": args.grid, "snapshots": args.snapshots, "every": args.every,
             "rows": [{k: v for k, v in dataclasses.asdict(r).items() if k != "gradient"}
                      | {"ratio": r.ratio} for r in rows]}, indent=1) + "\n")
    problems = check(rows, args.snapshots, args.grid)
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
