"""Scalars a loop iteration computes from values the iteration changes
later: the returning motion computes them again just before it reverses
their last reader, instead of taping them.

In an iteration of a Monin-Obukhov solver

    do iter = 1, 3
      rl = vk*grav*tstar/(ta*ustar**2)
      zl = max(min(z*rl, 5.0), -10.0)
      ...
      ustar = vk*u/(lnz - psim)
      tstar = vk*(ta - ts)/(lnz - psih)
    end do

the adjoint of ``zl``'s statement reads ``rl``.  :mod:`adfort.iterations`
cannot compute ``rl`` again at the start of the reversed iteration (it
reads ``tstar`` and ``ustar``, which the iteration changes after it), so
``rl`` would be pushed at each iteration's end.  But where ``zl``'s
statement is reversed, the statements after it have been reversed and
their overwrites of ``tstar`` and ``ustar`` undone: ``rl``'s formula gives
there the value it had.

A variable ``v`` (an integer or real scalar local, without SAVE or an
initial value, named only in loop ``L``) qualifies when

- one assignment ``S`` at the top level of ``L``'s body sets it, without
  reading it, from a cheap formula (:func:`adfort.recompute.condition_reads`,
  at most ``_MAX_LATE_NODES`` nodes for a real value); nothing else sets
  it, but for at most one later top-level update reading it (``dq =
  max(dq, -qc)``) after which no adjoint reads it (statements before ``S``
  may use the name for another value: ``S`` sets it afresh, and the taping
  plan keeps what they need);
- ``T``, the last top-level statement of the body whose adjoint (or IF
  condition evaluated again) reads ``v``, and the statements between ``S``
  and ``T`` change nothing ``S`` reads;
- ``S`` reads no other variable that qualifies (its value would not be
  there yet) and :mod:`adfort.iterations` does not compute ``v`` again.

The returning motion runs a copy of ``S`` before reversing ``T``.  The
adjoints reading ``v`` read what ``S`` reads instead: the taping plan then
puts back, before ``T`` is reversed, what the statements after ``T``
overwrite of it.

Cost model: computing the formula again costs its few operations once per
reversed iteration; taping costs a push, a pop and a tape slot.
"""

import re

from psyclone.psyir.nodes import (
    Assignment, Call, CodeBlock, DataNode, IfBlock, Loop, Reference, WhileLoop)
from psyclone.psyir.symbols import ScalarType

from adfort.iteration_values import names_outside
from adfort.iterations import _MAX_REAL_NODES, _extra_reads, _local_scalar, _may_set, _named
from adfort.recompute import condition_reads
from adfort.tape import written_names
from adfort.transformations.reverser import enclosing_loop_indices

_NODES = (Assignment, Call, IfBlock, Loop, WhileLoop)
# A value computed late saves a tape slot per iteration besides the push
# and the pop: formulas twice as long as those of adfort.iterations (a
# ratio of two sums) are still worth it.
_MAX_LATE_NODES = 2 * _MAX_REAL_NODES


def late_recomputed(routine, recomputed, reads, conditions, alias, call_writes):
    """{id(top-level statement T): [S, …]}: the statements computing again,
    before ``T`` is reversed, the variables of the module docstring (in
    the body's order), and {id(Loop): {name: (what S reads, the top-level
    statements from S to T)}}.

    :param recomputed: {id(Loop): (names, statements)} of
        :mod:`adfort.iterations`.
    :param reads: {id(statement): names its adjoint reads}.
    :param conditions: {id(IfBlock or Loop): names} evaluated again.
    :param call_writes: {id(call statement): names the call may change}.
    """
    if alias:
        return {}, {}
    table = routine.symbol_table
    opaque = " ".join(str(n).lower() for block in routine.walk(CodeBlock)
                      for n in block.parse_tree_nodes)
    before, found = {}, {}
    named_outside = names_outside(routine)
    for loop in routine.walk(Loop):
        again = recomputed.get(id(loop), (set(), []))[0]
        outside = named_outside(loop)
        body = loop.loop_body.children
        chosen = {}
        for position, stmt in enumerate(body):
            if not isinstance(stmt, Assignment) or type(stmt.lhs) is not Reference:
                continue
            name = stmt.lhs.symbol.name.lower()
            symbol = table.lookup(name, otherwise=None)
            if (name in again or name in outside or not _local_scalar(symbol)
                    or re.search(r"\b%s\b" % re.escape(name), opaque)):
                continue
            last = _qualifies(body, position, name, symbol, reads, conditions, call_writes)
            if last is not None:
                chosen[name] = (position, last, condition_reads(stmt.rhs))
        while True:
            # A formula reading a value computed late: that value is computed
            # again before the same statement's reversal (its inputs kept
            # until there), else the formula is not computed late.
            changed = False
            for name, (position, last, formula) in list(chosen.items()):
                for other in sorted(formula & (set(chosen) - {name})):
                    start, other_last, other_formula = chosen[other]
                    if other_last >= last:
                        continue
                    between = written_names(body[start + 1:last + 1], call_writes)
                    if start < position and not between & (other_formula | {other}):
                        # (Not past an update of it: the formula reads the
                        # updated value, the copy would give the first.)
                        chosen[other] = (start, last, other_formula)
                    else:
                        del chosen[name]
                    changed = True
                    break
            if not changed:
                break
        if not chosen:
            continue
        indices = enclosing_loop_indices(loop)
        found[id(loop)] = {n: (r - {n} - indices, body[p:last + 1])
                           for n, (p, last, r) in chosen.items()}
        for name, (position, last, _) in sorted(chosen.items(), key=lambda c: c[1][0]):
            before.setdefault(id(body[last]), []).append(body[position])
    return before, found


def _qualifies(body, position, name, symbol, reads, conditions, call_writes):
    """The position of the last top-level statement reading `name` if the
    statement at `position` qualifies (module docstring), else None."""
    setter = body[position]
    if name in _named(setter.rhs):
        return None
    formula = condition_reads(setter.rhs)
    if formula is None:
        return None
    if symbol.datatype.intrinsic == ScalarType.Intrinsic.REAL and \
            len(setter.rhs.walk(DataNode)) > _MAX_LATE_NODES:
        return None
    last = update = None
    for other, stmt in enumerate(body):
        if other <= position or name not in _named(stmt):
            continue   # (before S: another value of the name, S sets it afresh)
        read = any(name in reads.get(id(n), ()) or name in conditions.get(id(n), ())
                   for n in [stmt] + stmt.walk(_NODES))
        if update is not None and read:
            return None   # the updated value is read: it is not S's
        if isinstance(stmt, Assignment) and type(stmt.lhs) is Reference and \
                stmt.lhs.symbol.name.lower() == name and name in _named(stmt.rhs) \
                and update is None:
            update = other   # dq = max(dq, -qc): its adjoint reads S's value
        elif any(a.lhs.symbol.name.lower() == name for a in stmt.walk(Assignment)) or \
                any(lp.variable.name.lower() == name for lp in stmt.walk(Loop)) or \
                any(_may_set(c, name, call_writes) for c in stmt.walk(Call)):
            return None
        if read:
            last = other
    if last is None:
        return None   # nothing reads it: nothing to save either
    if written_names(body[position + 1:last + 1], call_writes) & formula:
        return None
    return last


def strip_late(reads, conditions, routine, found, recomputed=None, cheap_calls=frozenset()):
    """`reads` and `conditions` with the variables of `found` replaced, in
    the statements from their setter to their last reader, by what their
    formulas read (the later setters first: a formula may read an earlier
    one's variable).  A formula's read of a variable that
    :mod:`adfort.iterations` computes again in an enclosing loop (`recomputed`)
    is what that computation reads: it is there at every reversed iteration."""
    reads, conditions = dict(reads), dict(conditions)
    recomputed = recomputed or {}
    for loop in routine.walk(Loop):
        late = found.get(id(loop), {})
        order = {id(s): k for k, s in enumerate(loop.loop_body.children)}
        for name, (formula, span) in sorted(late.items(),
                                            key=lambda item: -order[id(item[1][1][0])]):
            formula = _through_recomputed(formula, loop, recomputed, cheap_calls)
            for node in (n for stmt in span for n in [stmt] + stmt.walk(_NODES)):
                for table in (reads, conditions):
                    names = set(table.get(id(node), ()))
                    if name in names:
                        table[id(node)] = (names - {name}) | formula
    return reads, conditions


def _through_recomputed(formula, loop, recomputed, cheap_calls):
    """`formula` (names read) with the names that `loop` or a loop around
    it computes again replaced by what computing them reads."""
    node = loop
    while node is not None:
        if isinstance(node, Loop) and id(node) in recomputed:
            names = recomputed[id(node)][0]
            if formula & names:
                formula = (formula - names) | _extra_reads(node, recomputed[id(node)],
                                                           cheap_calls)
        node = node.parent
    return formula
