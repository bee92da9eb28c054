"""Running Tapenade 3.16 (../shared/peers/tapenade-3.16) on a benchmark
kernel, for side-by-side measurements only: nothing it writes goes into
adfort.

Tapenade writes ``r_b`` into ``OUTDIR/<stem>_b.f90`` (module ``m`` becomes
``m_diff``); its run-time stack is ADFirstAidKit/adStack.c, compiled here
with ``gcc -O2``.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import subprocess
from pathlib import Path
from typing import List, Optional, Sequence

FIXED_FORM = (".f", ".for", ".ftn", ".f77", ".F", ".FOR")


class TapenadeError(RuntimeError):
    """Tapenade, or building with its output, failed."""


@dataclasses.dataclass
class Adjoint:
    """Tapenade's reverse-mode routine for a kernel."""

    source: Path            # OUTDIR/<stem>_b.f90
    name: str               # r_b (lower case)
    module: Optional[str]   # m_diff, or None for an external routine
    formals: List[str]      # its dummy arguments, lower case


def _run(cmd: Sequence[str], cwd: Path, what: str) -> str:
    proc = subprocess.run([str(c) for c in cmd], cwd=str(cwd),
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise TapenadeError(f"{what} failed (exit {proc.returncode}): "
                            f"{shlex.join(map(str, cmd))}\n{proc.stdout}"
                            f"\n{proc.stderr}")
    return proc.stdout + proc.stderr


def differentiate(tapdir: Path, source: Path, routine: str,
                  deps: Sequence[str], indeps: Sequence[str],
                  outdir: Path) -> Adjoint:
    """``tapenade -b -head 'r(deps)/(indeps)' -O outdir source``.

    :param tapdir: the Tapenade installation (has bin/tapenade).
    :raises TapenadeError: when Tapenade fails or writes no ``r_b``.
    """
    outdir.mkdir(parents=True, exist_ok=True)
    cmd = [tapdir / "bin" / "tapenade", "-b", "-head",
           f"{routine}({' '.join(deps)})/({' '.join(indeps)})"]
    if source.suffix in FIXED_FORM:
        cmd += ["-outputlanguage", "fortran90"]
    cmd += ["-O", outdir, source]
    log = _run(cmd, outdir, "tapenade")
    out = outdir / f"{source.stem}_b.f90"
    if not out.exists():
        raise TapenadeError(f"tapenade wrote no {out}:\n{log}")
    return read_adjoint(out, routine)


def read_adjoint(path: Path, routine: str) -> Adjoint:
    """Name, module and dummy arguments of ``<routine>_b`` in ``path``."""
    text = path.read_text()
    joined = re.sub(r"&\s*\n\s*&?", " ", text)
    name = f"{routine}_b".lower()
    m = re.search(rf"^\s*subroutine\s+{name}\s*\(([^)]*)\)", joined,
                  re.I | re.M)
    if not m:
        raise TapenadeError(f"no subroutine {name} in {path}")
    formals = [a.strip().lower() for a in m.group(1).split(",") if a.strip()]
    module = None
    before = joined[:m.start()]
    opened = re.findall(r"^\s*module\s+(\w+)\s*$", before, re.I | re.M)
    closed = re.findall(r"^\s*end\s+module\b", before, re.I | re.M)
    if len(opened) > len(closed):
        module = opened[-1].lower()
    return Adjoint(path, name, module, formals)


def actuals(adj: Adjoint, arg_names: Sequence[str], active: Sequence[str],
            var, adj_var) -> List[str]:
    """Actual arguments of a call of ``r_b``: an original argument ``x`` is
    ``var(x)``, the adjoint ``xb`` of an active one is ``adj_var(x)``.

    :raises TapenadeError: for a dummy argument of neither kind.
    """
    names, out = set(arg_names), []
    for formal in adj.formals:
        if formal in names:
            out.append(var(formal))
        elif _adjoint_of(formal, active):
            # Tapenade names x's adjoint xb, or xb0, xb1... when xb is taken
            out.append(adj_var(_adjoint_of(formal, active)))
        else:
            raise TapenadeError(f"{adj.name} has an argument {formal!r} that "
                                "is neither an argument of the original nor "
                                "the adjoint of an active one")
    return out


def _adjoint_of(formal: str, active: Sequence[str]) -> Optional[str]:
    """The active argument whose Tapenade adjoint is named `formal`, if any."""
    for name in active:
        if formal == name + "b":
            return name
    for name in active:
        if re.fullmatch(re.escape(name) + r"b\d+", formal):
            return name
    return None


def adstack_object(tapdir: Path, workdir: Path, profile: bool) -> Path:
    """adStack.c compiled with ``gcc -O2`` (``-D_ADSTACKPROFILE`` with
    ``profile``: counts the peak in blocks, slower)."""
    kit = tapdir / "ADFirstAidKit"
    out = workdir / ("adStack_profile.o" if profile else "adStack.o")
    cmd = ["gcc", "-O2", "-c", kit / "adStack.c", "-I", kit, "-o", out]
    if profile:
        cmd.insert(2, "-D_ADSTACKPROFILE")
    _run(cmd, workdir, "compiling adStack.c")
    return out


def undefined_symbols(obj: Path) -> List[str]:
    """Undefined symbols of an object file (``nm -u``)."""
    out = _run(["nm", "-u", obj], obj.parent, "nm")
    return [line.split()[-1] for line in out.splitlines() if line.strip()]


_PEAK = re.compile(r"Peak stack size \((\d+) blocks\): (\d+) bytes")


def peak_blocks(stdout: str) -> Optional[int]:
    """Bytes in the blocks ``adStack_showPeakSize`` reports, if printed."""
    m = _PEAK.search(stdout)
    return int(m.group(2)) if m else None
