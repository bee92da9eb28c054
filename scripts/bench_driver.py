"""Fortran drivers of scripts/benchmark.py: one program calling the primal
and every adjoint (adfort split, adfort joint, Tapenade) of a kernel.

Routines are numbered: 1 the primal ``r``, 2.. the adjoints in the order
given.  Before every adjoint call the arguments are reset to the base point
and the adjoints set: dependents' adjoints to their seed, all other active
adjoints to zero (adfort increments independent adjoints, Tapenade
overwrites them; zeroing first makes both return the plain gradient).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import List, Optional, Sequence

import harness
import peer_tapenade as tap


@dataclasses.dataclass
class Variant:
    tag: str                        # split, joint, tapenade
    proc: str                       # the routine called
    module: Optional[str]           # module holding it (None: external)
    tapenade: Optional[tap.Adjoint] = None


class _Writer(harness._DriverWriter):
    """The harness's driver writer with more modules/externals in the
    header and more contained procedures."""

    def __init__(self, sig, meta, fixture, variants: Sequence[Variant],
                 extra_uses: Sequence[str] = ()):
        super().__init__(sig, meta, fixture)
        self.variants = list(variants)
        self.extra_uses = list(extra_uses)
        self.procs: List[str] = []

    def header(self, program, extra_procs):
        lines = super().header(program, extra_procs[:1])
        uses = [f"use {v.module}, only: {v.proc}"
                for v in self.variants[1:] if v.module]
        uses += self.extra_uses
        externals = [v.proc for v in self.variants[1:] if not v.module]
        if externals:
            lines.append("  external :: " + ", ".join(externals))
        return [lines[0]] + ["  " + u for u in uses] + lines[1:]

    def footer(self, program):
        lines = super().footer(program)
        return lines[:1] + ["  " + p for p in self.procs] + lines[1:]

    def call_text(self, index: int) -> str:
        """The statement calling routine ``index`` (1: primal)."""
        if index == 1:
            self.call(self.sig.routine, False)
            return self.body.pop()
        var = self.variants[index - 2]
        if var.tapenade is None:
            self.call(var.proc, True)
            return self.body.pop()
        args = tap.actuals(var.tapenade, [a.name for a in self.sig.args],
                           sorted(self.active), self.v,
                           lambda n: self.v(n, "_adj"))
        return f"call {var.proc}(" + ", ".join(args) + ")"


def _setup(sig, meta, fixture, variants, extra_uses=()) -> _Writer:
    w = _Writer(sig, meta, fixture, variants, extra_uses)
    w.base_point()
    active = [a for a in sig.args if a.name in w.active]
    for arg in active:
        w.declare(arg, ["_adj", "_seed"])
        w.declare(arg, ["_dir"], "real(adf_dp)")
        for s in ("_adj", "_seed", "_dir"):
            w.alloc_like(arg, s)
        w.fill(arg, w.v(arg.name, "_seed"), lambda u: f"0.5_adf_dp + {u}")
        w.fill(arg, w.v(arg.name, "_dir"), lambda u: f"2.0_adf_dp * {u} - 1.0_adf_dp")
    seed = ["subroutine adf_seed()"]
    for arg in active:
        value = w.v(arg.name, "_seed") if arg.name in meta.dep else "0"
        seed.append(f"  {w.v(arg.name, '_adj')} = {value}")
    seed.append("end subroutine adf_seed")
    dot = ["function adf_dot() result(d)", "  real(adf_dp) :: d", "  d = 0"]
    for name in meta.indep:
        arg = sig.arg(name)
        dot.append("  d = d + " + w.red(arg, f"real({w.v(name, '_adj')}, "
                                        f"adf_dp) * {w.v(name, '_dir')}"))
    dot.append("end function adf_dot")
    run = ["subroutine adf_run(v, nrep, with_call)",
           "  integer, intent(in) :: v, nrep",
           "  logical, intent(in) :: with_call",
           "  integer :: k",
           "  do k = 1, nrep",
           "    call adf_reset()",
           "    if (v > 1) call adf_seed()",
           "    if (.not. with_call) cycle",
           "    select case (v)"]
    for i in range(1, len(variants) + 2):
        run += [f"    case ({i})", "      " + w.call_text(i)]
    run += ["    end select", "  end do", "end subroutine adf_run"]
    w.procs = seed + dot + run
    return w


def timing_driver(sig: harness.Signature, meta: harness.Metadata,
                  fixture: Path, variants: Sequence[Variant], batches: int,
                  min_time: float) -> str:
    """Program printing ``@dot v <gradient . direction>`` for each adjoint
    and ``@t batch v seconds_per_call nrep`` for every routine and batch."""
    w = _setup(sig, meta, fixture, variants)
    nv = len(variants) + 1
    w.procs += ["function adf_time(v, nrep, with_call) result(t)",
                "  integer, intent(in) :: v, nrep",
                "  logical, intent(in) :: with_call",
                "  real(adf_dp) :: t",
                "  integer(adf_int64) :: c0, c1, rate",
                "  call system_clock(c0, rate)",
                "  call adf_run(v, nrep, with_call)",
                "  call system_clock(c1)",
                "  t = real(c1 - c0, adf_dp) / real(rate, adf_dp)",
                "end function adf_time"]
    w.decls += [f"integer :: adf_v, adf_b, adf_kk, adf_nrep({nv})",
                "real(adf_dp) :: adf_t, adf_t0"]
    w.line("! first call of each routine: warm-up (first touch, tape")
    w.line("! allocation) and the gradient of every adjoint")
    w.line(f"do adf_v = 1, {nv}")
    w.line("  call adf_run(adf_v, 1, .true.)")
    w.line("  if (adf_v > 1) write(*, '(a, i3, es25.16)') '@dot ', adf_v, adf_dot()")
    w.line("end do")
    w.line("! calls per batch: at least the minimum time")
    w.line(f"do adf_v = 1, {nv}")
    w.line("  adf_nrep(adf_v) = 1")
    w.line("  do")
    w.line("    adf_t = adf_time(adf_v, adf_nrep(adf_v), .true.)")
    w.line(f"    if (adf_t >= {min_time!r}_adf_dp) exit")
    w.line("    adf_nrep(adf_v) = adf_nrep(adf_v) * max(2, min(100, ceiling("
           f"1.3_adf_dp * {min_time!r}_adf_dp / max(adf_t, 1.0e-6_adf_dp))))")
    w.line("  end do")
    w.line("end do")
    w.line("! batches, the routines in turn (first one rotating), each minus")
    w.line("! the same resets alone")
    w.line(f"do adf_b = 1, {batches}")
    w.line(f"  do adf_kk = 0, {nv - 1}")
    w.line(f"    adf_v = mod(adf_b - 1 + adf_kk, {nv}) + 1")
    w.line("    adf_t = adf_time(adf_v, adf_nrep(adf_v), .true.)")
    w.line("    adf_t0 = adf_time(adf_v, adf_nrep(adf_v), .false.)")
    w.line("    write(*, '(a, 2i4, es16.8, i10)') '@t ', adf_b, adf_v, "
           "max(adf_t - adf_t0, 0.0_adf_dp) / adf_nrep(adf_v), adf_nrep(adf_v)")
    w.line("  end do")
    w.line("end do")
    return harness._assemble(w, "adfort_bench_time", [variants[0].proc])


def tape_driver(sig: harness.Signature, meta: harness.Metadata,
                fixture: Path, variants: Sequence[Variant]) -> str:
    """Program printing ``@tape v peak value control allocated now`` (bytes)
    after one call of each adjoint (adfort metered, Tapenade wrapped)."""
    w = _setup(sig, meta, fixture, variants, ["use adf_meter_mod"])
    w.decls += ["integer :: adf_v", "integer(adf_int64) :: adf_now, adf_peak, "
                "adf_base"]
    for i, var in enumerate(variants, start=2):
        w.line(f"! {var.tag}")
        if var.tapenade is None:
            w.line("call adf_meter_reset_peaks()")
            w.line("adf_base = adf_meter_alloc_peak")
            w.line(f"call adf_run({i}, 1, .true.)")
            w.line(f"write(*, '(a, i3, 5i16)') '@tape ', {i}, adf_meter_peak(0), "
                   "adf_meter_peak(1), adf_meter_peak(2), adf_meter_alloc_peak"
                   " - adf_base, adf_meter_now(0)")
        else:
            w.line("call adf_tapmeter_reset()")
            w.line(f"call adf_run({i}, 1, .true.)")
            w.line("call adf_tapmeter_read(adf_now, adf_peak)")
            w.line(f"write(*, '(a, i3, 5i16)') '@tape ', {i}, adf_peak, 0_adf_int64,"
                   " 0_adf_int64, 0_adf_int64, adf_now")
            w.line("flush(6)")
            w.line("call adstack_showpeaksize()")
    return harness._assemble(w, "adfort_bench_tape", [variants[0].proc])
