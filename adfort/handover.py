"""Locals the returning motion computes again instead of receiving them
from the recording motion on the tape.

The returning motion has its own locals: a value it reads after the last
write of its variable is handed over at the end of the recording (a push
per call, kept until the call is reversed, for the whole run under the
split schedule).  A scalar set once, at the top level of the routine, by a
cheap formula (:func:`adfort.recompute.condition_reads`, at most
``_MAX_REAL_NODES`` nodes: ``tc = t - t0c``, ``rh = e/es``) of arguments the
routine never changes, constants and other such scalars or handed-over
scalars set once before it, holds that value from its statement to the
end: the returning motion computes it again at its start, after the pops
of the values still handed over, for the cost of a few operations per
call.  Costly values (EXP, LOG, powers: :mod:`adfort.stored_values`) stay
on the tape.
"""

import re

from psyclone.psyir.nodes import (
    Assignment, BinaryOperation, CodeBlock, DataNode, IntrinsicCall, Literal, Loop, Reference,
    Schedule)

from adfort.iterations import _MAX_REAL_NODES, _local_scalar
from adfort.recompute import condition_reads


def computed_again(routine, finals, written, call_writes, alias, constant=None):
    """(names, statements): the handed-over locals of `finals` computed
    again, and the top-level statements of `routine` (in order, to be
    copied) computing them and the locals they read.

    :param written: lower-case names of the variables the routine may
        change (assignments, loops, calls).
    :param call_writes: {id(statement): names a call or kept statement may
        change}.
    :param constant: ``constant(name)``: whether the module variable
        `name` the routine sees is a named constant.
    """
    if alias or not finals:
        return set(), []
    table = routine.symbol_table
    opaque = " ".join(str(n).lower() for b in routine.walk(CodeBlock)
                      for n in b.parse_tree_nodes)
    by_calls = set().union(*call_writes.values()) if call_writes else set()
    loops = {loop.variable.name.lower() for loop in routine.walk(Loop)}
    # ALLOCATE(…, stat=ierr), intrinsic subroutines: writes too.
    loops |= {r.symbol.name.lower() for c in routine.walk(IntrinsicCall)
              if isinstance(c.parent, Schedule) for r in c.walk(Reference)}
    setters = {}
    for assign in routine.walk(Assignment):
        name = assign.lhs.symbol.name.lower()
        setters.setdefault(name, []).append(assign)
    once = {}   # name -> (position, statement) of the single top-level setter
    for name, assigns in setters.items():
        stmt = assigns[0]
        if (len(assigns) == 1 and stmt.parent is routine and type(stmt.lhs) is Reference
                and id(stmt) not in call_writes and name not in by_calls
                and name not in loops and _local_scalar(table.lookup(name, otherwise=None))
                and not re.search(r"\b%s\b" % re.escape(name), opaque)):
            once[name] = (stmt.position, stmt)
    candidates = {n for n, (_, s) in once.items() if _cheap(s)}
    while True:
        dropped = {n for n in candidates
                   if not _reads_available(once[n], once, candidates, finals, written, table,
                                           constant or (lambda name: False))}
        if not dropped:
            break
        candidates -= dropped
    needed = set(finals) & candidates
    while True:   # the candidates the needed ones read
        more = {r for n in needed for r in condition_reads(once[n][1].rhs)} & candidates
        if more <= needed:
            break
        needed |= more
    statements = [s for _, s in sorted(once[n] for n in needed)]
    return needed, statements


def _cheap(stmt):
    """A short formula without a real power (an EXP and a LOG)."""
    reads = condition_reads(stmt.rhs)
    return reads is not None and len(stmt.rhs.walk(DataNode)) <= _MAX_REAL_NODES and all(
        isinstance(op.children[1], Literal) and op.children[1].value.isdigit()
        for op in stmt.rhs.walk(BinaryOperation) if op.operator == BinaryOperation.Operator.POW)


def _reads_available(setter, once, candidates, finals, written, table, constant):
    """Whether what statement `setter` reads holds, at the returning
    motion's start, the value it had at the statement."""
    position, stmt = setter
    for name in condition_reads(stmt.rhs):
        symbol = table.lookup(name, otherwise=None)
        if getattr(symbol, "is_constant", False) or constant(name):
            continue
        if getattr(symbol, "is_argument", False) and name not in written:
            continue   # passed to the returning motion as the recording had it
        if name in once and once[name][0] < position and (name in candidates
                                                          or name in finals):
            continue   # set once before: computed again first, or handed over
        return False
    return True
