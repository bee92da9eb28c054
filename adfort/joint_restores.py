"""Restores after a joint call's reversal that nothing reads.

A joint call's returning motion puts back the inputs the callee overwrote,
runs ``f_rev`` (which runs the callee forward again, changing them), then
puts back once more the values from before the call, for the adjoints of
the statements before it.  When the call is a statement of a time loop,
the values put back the second time are often never read: the next thing
reversed that reads the array is the same call one iteration earlier,
which first puts back its own saves of the same sections.  A model step
and a wall routine (``call step(u, v, h)``, ``call walls(u, v)``) restored
the step's sections twice per step.

The second restore is left out, for a call directly in the body of a DO
loop at the top level of the routine, of the variables that

- are the routine's own locals (their values die with the returning
  motion: not arguments, module or COMMON variables, SAVE'd locals);
- no other statement of the loop's body reads in its adjoint, its
  conditions or bounds evaluated again, or the statements computed again
  before or during its reversal;
- no statement before the loop reads so either, nor the loop's bounds.

Then every read of the variable after the call's reversal is the same
call's, an iteration earlier, after it has put back its own saves: the
restore's values are overwritten before anyone reads them.  (That call
puts back the same sections: their bounds are constant in the routine.)
"""

from psyclone.psyir.nodes import Loop, Node, Reference
from psyclone.psyir.symbols import ArrayType, AutomaticInterface, DataSymbol, ScalarType


def dead_restores(routine, reads, reevaluate, recomputed, before_reversal, calls):
    """{id(call statement): lower-case names whose restore after the call's
    ``f_rev`` nothing reads}.

    :param routine: the working routine (before reversal).
    :param reads: {id(node): names its adjoint reads}.
    :param reevaluate: {id(IfBlock or Loop): names its condition or bounds
        read, evaluated again}.
    :param recomputed: {id(Loop): (names, statements) each reversed
        iteration computes again}.
    :param before_reversal: {id(statement): statements computing again
        before its reversal}.
    :param calls: {id(Call): the callee's motions, or None}: the calls
        considered.
    """
    table = routine.symbol_table
    found = {}
    for position, loop in enumerate(routine.children):
        if not isinstance(loop, Loop):
            continue
        body = loop.loop_body.children
        before = routine.children[:position]
        for stmt in body:
            if id(stmt) not in calls or calls[id(stmt)] is None:
                continue
            others = [s for s in body if s is not stmt] + before
            read = _read_by(others, reads, reevaluate, recomputed, before_reversal)
            read |= set(reevaluate.get(id(loop), ()))
            read |= _recomputed_reads(recomputed.get(id(loop)))
            names = {n for n in _names(stmt)
                     if n not in read and _own_local(table.lookup(n, otherwise=None))}
            if names:
                found[id(stmt)] = names
    return found


def _read_by(statements, reads, reevaluate, recomputed, before_reversal):
    names = set()
    for stmt in statements:
        for node in [stmt] + stmt.walk(Node):
            names |= set(reads.get(id(node), ()))
            names |= set(reevaluate.get(id(node), ()))
            if isinstance(node, Loop):
                names |= _recomputed_reads(recomputed.get(id(node)))
            for again in before_reversal.get(id(node), ()):
                names |= _names(again)
    return names


def _recomputed_reads(entry):
    if not entry:
        return set()
    return {n for stmt in entry[1] for n in _names(stmt)}


def _names(node):
    return {r.symbol.name.lower() for r in node.walk(Reference)}


def _own_local(symbol):
    """A real local of the routine (integers may be subscripts the call's
    reversal reads before its restores)."""
    dtype = getattr(symbol, "datatype", None)
    element = getattr(dtype, "elemental_type", dtype) if isinstance(dtype, ArrayType) else dtype
    return (isinstance(symbol, DataSymbol) and isinstance(symbol.interface, AutomaticInterface)
            and symbol.initial_value is None and not symbol.is_constant
            and not getattr(dtype, "is_allocatable", False)
            and isinstance(element, ScalarType) and element.intrinsic == ScalarType.Intrinsic.REAL)
