"""Arrays a DO loop overwrites several times per iteration, saved once
before the loop instead of at each write.

In a column adjustment

    do k = 2, nlev
      th(k) = th(k) + 0.5*dth(k)
      th(k-1) = th(k-1) - 0.5*dth(k)
    end do

each element of ``th`` is overwritten twice, and the taping plan would push
the value each write destroys: ``2*(nlev - 1)`` values.  No adjoint in the
loop reads ``th`` (the updates are linear in it); only the adjoints before
the loop need it, as it was when the loop started.  Pushing the section the
loop writes, ``th(1:nlev)``, before the loop and popping it after the loop
is reversed restores exactly that, for ``nlev`` values.

A rank-1 array ``a`` qualifies for DO loop ``L`` (index ``i``, literal unit
step, bounds that are cheap and that ``L`` does not change) when at least
two assignments in ``L`` write it, each at ``a(i + c)``; nothing else in
``L`` writes it (no call names it); and no adjoint, nor condition or bound
evaluated again, in ``L`` reads it.  The taping plan then saves the section
``a(lo:hi)`` (the least and greatest ``i + c``, within ``a``'s bounds when
a loop running no iteration could reach outside them, or a write may be
skipped: :mod:`adfort.within_bounds`) only if ``a`` is
needed when ``L`` starts, and none of its writes in ``L``.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, IfBlock, IntrinsicCall,
    Literal, Loop, Range, Reference, WhileLoop)
from psyclone.psyir.symbols import ArrayType, DataSymbol

from adfort.extents import is_assumed_size
from adfort.exprs import INTEGER_TYPE
from adfort.fresh_elements import _offset, unit_step
from adfort.reach import _plus
from adfort.recompute import condition_reads
from adfort.tape import written_names
from adfort.within_bounds import clamped, surely_written

_NODES = (Assignment, Call, IfBlock, Loop, WhileLoop)


def snapshot_candidates(statements, reads, reevaluate, call_writes, alias):
    """{id(Loop): {name: (section reference, names its bounds read),
    ids of the writes it replaces}} (see the module docstring).

    :param statements: the routine's top-level statements.
    :param reads: {id(statement): names its adjoint reads}.
    :param reevaluate: {id(IfBlock or Loop): names} evaluated again.
    """
    if alias:
        return {}
    found = {}
    for loop in (lp for s in statements for lp in s.walk(Loop)):
        step = unit_step(loop)
        if step is None:
            continue
        start, stop = condition_reads(loop.start_expr), condition_reads(loop.stop_expr)
        if start is None or stop is None:
            continue
        body = loop.loop_body.children
        changed = written_names(body, call_writes) | {loop.variable.name.lower()}
        if (start | stop) & changed:
            continue
        index = loop.variable.name.lower()
        writes = {}
        for assign in loop.loop_body.walk(Assignment):
            lhs = assign.lhs
            if isinstance(lhs, ArrayReference) and type(lhs) is ArrayReference:
                writes.setdefault(lhs.symbol.name.lower(), []).append(assign)
        read = set()
        for node in loop.loop_body.walk(_NODES):
            read |= set(reads.get(id(node), ())) | set(reevaluate.get(id(node), ()))
        if loop.loop_body.walk(CodeBlock):
            continue   # what an I/O statement writes is not known here
        named_in_calls = {r.symbol.name.lower() for c in loop.loop_body.walk(Call)
                          if not isinstance(c, IntrinsicCall) or c.intrinsic.name in (
                              "ALLOCATE", "DEALLOCATE", "MOVE_ALLOC")
                          for r in c.walk(Reference)}
        for node in loop.loop_body.walk(_NODES):
            named_in_calls |= set(call_writes.get(id(node), ()))
        chosen = {}
        for name, assigns in writes.items():
            if len(assigns) < 2 or name in read or name in named_in_calls:
                continue
            offsets = [_offset(a.lhs.indices[0], index) if len(a.lhs.indices) == 1 else None
                       for a in assigns]
            symbol = assigns[0].lhs.symbol
            if None in offsets or not _rank_one(symbol) or any(
                    a.is_pointer for a in assigns):
                continue
            skipped = not all(surely_written(a.lhs, (loop,)) for a in assigns)
            section = _section(loop, symbol, min(offsets), max(offsets), step, skipped)
            chosen[name] = (section, start | stop, {id(a) for a in assigns})
        if chosen:
            found[id(loop)] = chosen
    return found


def _rank_one(symbol):
    dtype = getattr(symbol, "datatype", None)
    return isinstance(symbol, DataSymbol) and isinstance(dtype, ArrayType) and \
        len(dtype.shape) == 1


def _section(loop, symbol, low, high, step, skipped=False):
    """``a(first + low : last + high)``, clamped to ``a``'s bounds when the
    offsets differ (a loop with no iteration may then name elements
    outside) or a write may be `skipped` (``do k = 0, n`` setting ``a(k)``
    of ``a(n)`` under ``if (k > 0)``: :mod:`adfort.within_bounds`)."""
    first, last = loop.start_expr, loop.stop_expr
    if step < 0:
        first, last = last, first
    lower, upper = _plus(first.copy(), low), _plus(last.copy(), high)
    if high != low or skipped:
        declared = symbol.datatype.shape[0]
        # (An assumed-size array, x(*), has no upper bound to clamp to: the
        # iterations reach those elements.)
        lower, upper = clamped(
            lower, upper, _bound("LBOUND", symbol, declared),
            None if is_assumed_size(symbol) else _bound("UBOUND", symbol, declared))
    return ArrayReference.create(symbol, [Range.create(lower, upper)])


def _bound(which, symbol, declared):
    """The declared lower or upper bound of `symbol`, else LBOUND/UBOUND."""
    if isinstance(declared, ArrayType.ArrayBounds):
        bound = declared.lower if which == "LBOUND" else declared.upper
        if isinstance(bound, (Literal, Reference, BinaryOperation)) and \
                condition_reads(bound) is not None:
            return bound.copy()
    return IntrinsicCall.create(IntrinsicCall.Intrinsic[which], [
        Reference(symbol), ("dim", Literal("1", INTEGER_TYPE))])
