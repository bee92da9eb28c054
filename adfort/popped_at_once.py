"""Values pushed on the control tape and popped right after, kept in a
local instead.

A callee's ``f_rev`` runs its recording then its returning motion in one
routine.  A DO WHILE ending the recording pushes its trip count, and the
returning motion starts by popping it for its reversed loop:

.. code-block:: fortran

    control_tape(control_tape_top + 1) = iteration_count
    control_tape_top = control_tape_top + 1
    t_out = t
    control_tape_top = control_tape_top - 1
    do iteration_count = 1, control_tape(control_tape_top + 1), 1

Nothing between reads the tape, so the count is kept in a local
(``popped_value = iteration_count`` … ``do iteration_count = 1,
popped_value, 1``): no tape room, no tape traffic.  Only top-level
statements are looked at; the statement reading the value back must be an
assignment or a DO loop reading it in its bounds.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Literal, Loop, Reference)

from adfort import naming
from adfort.exprs import INTEGER_TYPE
from adfort.symbols import new_local


def _move(stmt, top, amount):
    """Whether `stmt` is ``top = top + amount`` (``- 1`` for -1)."""
    if not (isinstance(stmt, Assignment) and type(stmt.lhs) is Reference
            and stmt.lhs.symbol is top and isinstance(stmt.rhs, BinaryOperation)):
        return False
    left, right = stmt.rhs.children
    operator = BinaryOperation.Operator.ADD if amount > 0 else BinaryOperation.Operator.SUB
    return (stmt.rhs.operator == operator and type(left) is Reference and left.symbol is top
            and isinstance(right, Literal) and right.value == str(abs(amount)))


def _at_top(node, tape, top):
    """Whether `node` is ``tape(top + 1)``."""
    if not (type(node) is ArrayReference and node.symbol is tape and len(node.indices) == 1):
        return False
    index = node.indices[0]
    return (isinstance(index, BinaryOperation)
            and index.operator == BinaryOperation.Operator.ADD
            and type(index.children[0]) is Reference and index.children[0].symbol is top
            and isinstance(index.children[1], Literal) and index.children[1].value == "1")


def _names(stmt, tape, top):
    return any(r.symbol is tape or r.symbol is top for r in stmt.walk(Reference))


def _read_again(statements, start, tape, top):
    """Whether the next statement from `start` naming the tape moves its
    top back up over the value just popped (a joint caller peeks at a
    value it saved: read before the callee's reversal, popped after it)."""
    for stmt in statements[start:]:
        if _names(stmt, tape, top):
            return _move(stmt, top, 1)
    return False


def keep_popped_at_once(statements, tapes, table, taken=()):
    """Rewrite `statements` (a list of top-level statements, changed in
    place) so that one-value pushes of the dynamic integer `tapes` popped
    by the next statement naming the tape are kept in locals.

    :param tapes: (tape symbol, top symbol) pairs of control tapes.
    :returns: `statements`.
    """
    for tape, top in tapes:
        position = 0
        while position + 1 < len(statements):
            push, move = statements[position], statements[position + 1]
            if not (isinstance(push, Assignment) and _at_top(push.lhs, tape, top)
                    and _move(move, top, 1)):
                position += 1
                continue
            later = position + 2
            while later < len(statements) and not _names(statements[later], tape, top):
                later += 1
            if later + 1 >= len(statements) or not _move(statements[later], top, -1):
                position += 1
                continue
            reader = statements[later + 1]
            if isinstance(reader, Loop):
                # (the body's reads of the tape follow its own pops)
                parts = [reader.start_expr, reader.stop_expr, reader.step_expr]
            elif isinstance(reader, Assignment) and not _names(reader.lhs, tape, top):
                parts = [reader.rhs]
            else:
                position += 1
                continue
            reads = [n for part in parts for n in part.walk(ArrayReference)
                     if _at_top(n, tape, top)]
            others = [r for part in parts for r in part.walk(Reference)
                      if (r.symbol is tape or r.symbol is top)
                      and not any(r is n or r.ancestor(ArrayReference) is n for n in reads)]
            if not reads or others or _read_again(statements, later + 2, tape, top):
                position += 1
                continue
            kept = new_local(table, naming.POPPED_VALUE, INTEGER_TYPE, taken)
            for node in reads:
                node.replace_with(Reference(kept))
            statements[position] = Assignment.create(Reference(kept), push.rhs.copy())
            del statements[later]
            del statements[position + 1]
            position += 1
    return statements
