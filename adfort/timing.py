"""Wall time of adfort's phases, for ``adfort diff -v``.

Phases: ``read`` (parsing sources into PSyIR: the file, the modules its
routines use, extra files), ``analyse`` (call graph, front-end rewrites,
activity, the fence), ``transform`` (generating the motions) and ``write``
(Fortran text).  A phase entered inside another is counted apart (the
outer one pauses), so the times add up to the run.  Nothing is measured
unless :func:`start` was called: :func:`phase` is then a no-op.
"""

import time
from contextlib import contextmanager

PHASES = ("read", "analyse", "transform", "write")

_totals = None   # {phase: seconds} while measuring
_stack = []      # [(phase, start of its current slice)]


def start():
    """Measure from now on (forgetting earlier figures)."""
    global _totals
    _totals = dict.fromkeys(PHASES, 0.0)
    _stack.clear()


def stop():
    """The figures measured ({phase: seconds}), and stop measuring."""
    global _totals
    totals, _totals = _totals, None
    _stack.clear()
    return totals or {}


@contextmanager
def phase(name):
    """Count the time spent in the block as phase `name`."""
    if _totals is None:
        yield
        return
    now = time.perf_counter()
    if _stack:
        outer, since = _stack[-1]
        _totals[outer] += now - since
    _stack.append((name, now))
    try:
        yield
    finally:
        now = time.perf_counter()
        _, since = _stack.pop()
        _totals[name] = _totals.get(name, 0.0) + now - since
        if _stack:
            _stack[-1] = (_stack[-1][0], now)
