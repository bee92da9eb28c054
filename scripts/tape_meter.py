"""Peak tape bytes of adfort's and Tapenade's adjoints, measured at run time.

adfort (generated code, see adfort/tape.py):

- *dynamic* tapes are allocatable module arrays ``<tape>`` with a counter
  ``<tape>_top``.  :func:`instrument` copies the generated file and, after
  every assignment to a ``<tape>_top``, calls the external subroutine
  ``adf_meter_top`` with the counter (by reference: its address tells the
  tapes apart), the element size and the allocated size;
- *static* tapes (straight-line routines) are fixed-size local arrays; the
  routine declaring one calls ``adf_meter_static`` with +bytes before its
  first executable statement and -bytes before its end.

The meter (:data:`METER_SOURCE`) keeps the bytes in use on all tapes
together and their high-water mark, and the same per kind (value tapes of
every type vs the integer control tape), plus the allocated bytes of the
dynamic tapes (they grow by doubling, never shrink).

Tapenade: its ADFirstAidKit stack (adStack.c) only reports its peak in
whole 64 KiB blocks (``adStack_showPeakSize``, compiled with
``-D_ADSTACKPROFILE``).  For the exact figure, :func:`tapenade_wrappers`
writes C wrappers around the push/pop entry points the adjoint calls
(linked with ``-Wl,--wrap=...``) that count the bytes pushed (control
pushes: their bits; 32 of them make one 4-byte word on the stack) and keep
the high-water mark; the block count is printed next to it as a check.
"""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

from adfort import naming

_TAPE_NAME = (rf"(?:{naming.VALUE_TAPE}\w*|{naming.CONTROL_TAPE}\w*)")
_TOP_DECL = re.compile(rf"^\s*integer, save, public :: ({_TAPE_NAME})"
                       rf"{naming.TAPE_TOP_SUFFIX} = 0\s*$", re.I)
_TOP_SET = re.compile(rf"^(\s*)({_TAPE_NAME}){naming.TAPE_TOP_SUFFIX}\s*=(?!=)",
                      re.I)
_ANY_TOP_SET = re.compile(rf"\b{_TAPE_NAME}{naming.TAPE_TOP_SUFFIX}\s*=(?!=)",
                          re.I)
_ROUTINE_START = re.compile(r"^\s*(?:recursive\s+)?subroutine\s+(\w+)", re.I)
_ROUTINE_END = re.compile(r"^\s*end\s+subroutine\b", re.I)
_STATIC_DECL = re.compile(rf"^\s*[^!]*dimension\(\s*\d+\s*\)(?![^:]*intent)"
                          rf"[^:]*::\s*({_TAPE_NAME})\s*$", re.I)
# (Not the integer holding a routine's room on a tape, <tape>_room.)
_TAPE_DECL = re.compile(rf"::\s*(?!\w*{naming.TAPE_ROOM_SUFFIX}\s*$)({_TAPE_NAME})\s*$", re.I)
_EXECUTABLE = re.compile(r"^\s*(call|if|do|[a-z]\w*\s*(\(.*\))?\s*=(?!=))",
                         re.I)


class MeterError(RuntimeError):
    """The generated code has a tape access the meter cannot follow."""


def tape_kind(name: str) -> int:
    """1 for value tapes, 2 for the control tape."""
    return 2 if name.lower().startswith(naming.CONTROL_TAPE) else 1


def instrument(text: str) -> Tuple[str, Dict[str, int]]:
    """Copy of generated code calling the meter at every tape move.

    :param text: the generated Fortran.
    :returns: the instrumented text and the number of instrumented
        (dynamic moves, static tapes).
    """
    dynamic = {m.group(1).lower() for line in text.splitlines()
               for m in [_TOP_DECL.match(line)] if m}
    out: List[str] = []
    counts = {"dynamic moves": 0, "static tapes": 0}
    statics: List[str] = []       # static tapes of the current routine
    pending = False               # entry call not yet placed
    routine = None
    for line in text.splitlines():
        m = _ROUTINE_START.match(line)
        if m and not line.lower().lstrip().startswith("end"):
            routine, statics, pending = m.group(1), [], False
        if routine:
            m = _STATIC_DECL.match(line)
            if m:
                statics.append(m.group(1))
                pending = True
                counts["static tapes"] += 1
            elif (_TAPE_DECL.search(line) and not re.search(
                    r"\b(intent|allocatable)\b", line, re.I)):
                raise MeterError(f"local tape of unknown size in {routine}: "
                                 f"{line.strip()}")
            elif pending and _EXECUTABLE.match(line):
                out += [f"  call adf_meter_static({tape_kind(t)}, &\n"
                        f"    size({t}) * (storage_size({t}) / 8))"
                        for t in statics]
                pending = False
            if statics and re.match(r"^\s*return\b", line, re.I):
                raise MeterError(f"RETURN in {routine}, which has a static "
                                 "tape: its release would not be counted")
            if _ROUTINE_END.match(line):
                out += [f"  call adf_meter_static({tape_kind(t)}, &\n"
                        f"    -size({t}) * (storage_size({t}) / 8))"
                        for t in statics]
                routine, statics = None, []
        out.append(line)
        m = _TOP_SET.match(line)
        if m and m.group(2).lower() in dynamic:
            ind, tape = m.group(1), m.group(2)
            out.append(f"{ind}if (allocated({tape})) call adf_meter_top("
                       f"{tape_kind(tape)}, &\n{ind}  "
                       f"{tape}{naming.TAPE_TOP_SUFFIX}, &\n{ind}  "
                       f"storage_size({tape}) / 8, size({tape}))")
            counts["dynamic moves"] += 1
        elif "::" not in line and _ANY_TOP_SET.search(line.split("!")[0]):
            raise MeterError(f"cannot instrument tape move: {line.strip()}")
    return "\n".join(out) + "\n", counts


# The meter: external subroutines (implicit interface in the generated
# code) and a module the driver reads.  LOC is a GNU extension.
METER_SOURCE = """\
module adf_meter_mod
  use iso_fortran_env, only: int64
  implicit none
  integer, parameter :: adf_meter_max = 64
  integer(int64) :: adf_meter_addr(adf_meter_max) = 0
  integer(int64) :: adf_meter_cur(adf_meter_max) = 0, adf_meter_cap(adf_meter_max) = 0
  integer :: adf_meter_kind(adf_meter_max) = 0, adf_meter_n = 0
  ! bytes in use now and their high-water marks: (0) all, (1) value, (2) control
  integer(int64) :: adf_meter_now(0:2) = 0, adf_meter_peak(0:2) = 0
  integer(int64) :: adf_meter_alloc_peak = 0
contains
  subroutine adf_meter_reset_peaks()
    adf_meter_peak = adf_meter_now
    adf_meter_alloc_peak = sum(adf_meter_cap(1:adf_meter_n))
  end subroutine adf_meter_reset_peaks
  subroutine adf_meter_add(kind, bytes)
    integer, intent(in) :: kind
    integer(int64), intent(in) :: bytes
    adf_meter_now(0) = adf_meter_now(0) + bytes
    adf_meter_now(kind) = adf_meter_now(kind) + bytes
    adf_meter_peak = max(adf_meter_peak, adf_meter_now)
  end subroutine adf_meter_add
end module adf_meter_mod

subroutine adf_meter_top(kind, top, elem_bytes, capacity)
  use adf_meter_mod
  implicit none
  integer, intent(in) :: kind, top, elem_bytes, capacity
  integer :: i
  integer(int64) :: addr, bytes
  addr = loc(top)
  do i = 1, adf_meter_n
    if (adf_meter_addr(i) == addr) exit
  end do
  if (i > adf_meter_n) then
    if (adf_meter_n == adf_meter_max) stop 'adf_meter: too many tapes'
    adf_meter_n = i
    adf_meter_addr(i) = addr
    adf_meter_kind(i) = kind
  end if
  bytes = int(top, int64) * elem_bytes
  call adf_meter_add(kind, bytes - adf_meter_cur(i))
  adf_meter_cur(i) = bytes
  adf_meter_cap(i) = int(capacity, int64) * elem_bytes
  adf_meter_alloc_peak = max(adf_meter_alloc_peak, sum(adf_meter_cap(1:adf_meter_n)))
end subroutine adf_meter_top

subroutine adf_meter_static(kind, bytes)
  use adf_meter_mod
  implicit none
  integer, intent(in) :: kind, bytes
  call adf_meter_add(kind, int(bytes, int64))
end subroutine adf_meter_static
"""

# Tapenade's Fortran entry points: bits per element (arrays: times n).
_TAPENADE_BITS = {
    "integer4": 32, "integer8": 64, "real4": 32, "real8": 64,
    "complex8": 64, "complex16": 128, "character": 8, "boolean": 1,
    "pointer4": 32, "pointer8": 64, "bit": 1,
}
_TAP_SYMBOL = re.compile(r"^(push|pop)(control(\d)b|[a-z0-9]+?)(array)?_$")


def tapenade_symbols(undefined: List[str]) -> List[str]:
    """The push/pop entry points among an object's undefined symbols."""
    return sorted(s for s in undefined if _TAP_SYMBOL.match(s))


def tapenade_wrappers(symbols: List[str]) -> str:
    """C source of ``__wrap_<symbol>`` for each push/pop symbol, counting
    bits on the stack, and ``adf_tapmeter_read_(now, peak)`` in bytes.

    :raises MeterError: for an entry point whose size is unknown.
    """
    lines = ["/* generated by scripts/tape_meter.py: byte count of Tapenade's",
             "   stack around its push/pop entry points (--wrap) */",
             "static long long adf_bits = 0, adf_peak_bits = 0;",
             "static void adf_move(long long bits) {",
             "  adf_bits += bits;",
             "  if (adf_bits > adf_peak_bits) adf_peak_bits = adf_bits;",
             "}",
             "void adf_tapmeter_read_(long long *now, long long *peak) {",
             "  /* bits go to the stack in 4-byte words of 32 */",
             "  *now = adf_bits / 32 * 4 + (adf_bits % 32 ? 4 : 0);",
             "  *peak = adf_peak_bits / 32 * 4 + (adf_peak_bits % 32 ? 4 : 0);",
             "}",
             "void adf_tapmeter_reset_(void) { adf_peak_bits = adf_bits; }"]
    for sym in symbols:
        m = _TAP_SYMBOL.match(sym)
        if not m:
            raise MeterError(f"not a Tapenade push/pop entry point: {sym}")
        op, what, nbits, array = m.groups()
        if nbits:
            bits = int(nbits)
        elif what == "boolean" and array:
            bits = 32             # a 4-byte word per element
        elif what in _TAPENADE_BITS:
            bits = _TAPENADE_BITS[what]
        else:
            raise MeterError(f"size of Tapenade's {sym} unknown")
        sign = "" if op == "push" else "-"
        if array:
            lines += [f"void __real_{sym}(void *x, int *n);",
                      f"void __wrap_{sym}(void *x, int *n) {{",
                      f"  adf_move({sign}{bits}LL * *n);",
                      f"  __real_{sym}(x, n);", "}"]
        else:
            lines += [f"void __real_{sym}(void *x);",
                      f"void __wrap_{sym}(void *x) {{",
                      f"  adf_move({sign}{bits}LL);",
                      f"  __real_{sym}(x);", "}"]
    return "\n".join(lines) + "\n"
