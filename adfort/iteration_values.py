"""Scalars each iteration of a DO loop sets before it reads them and that
the returning motion cannot compute again (a costly formula, a ratio of
values the loop changes, a function's result): pushed once, at the end of
each iteration, and popped at the start of its reversal.

Taping the value each write destroys would push, per run of the loop, one
value more than the loop has iterations, the first being whatever the
variable held before the loop (often nothing defined), and hand the last
one over at the routine's end besides.  The value a reversed iteration
needs is the one its forward iteration set: it is still there at the
iteration's end, since nothing else sets it, and the last push of an
iteration is the first pop of its reversal, so the tape stays in order.

A variable ``v`` (a real or integer scalar local, without SAVE or an
initial value, named nowhere outside loop ``L``) qualifies when one
statement at the top level of ``L``'s body sets it (an assignment not
reading it, or ``v = f(…)``), every other statement naming it comes after
that one and none of them may set it, some adjoint (or condition, or loop
bound evaluated again) in ``L`` reads it, and :mod:`adfort.iterations`
does not compute it again.
"""

import re
from collections import Counter

from psyclone.psyir.nodes import (
    Assignment, Call, CodeBlock, IfBlock, Loop, Reference, WhileLoop)

from adfort.iterations import _local_scalar, _may_set, _named


def pushed_per_iteration(routine, recomputed, reads, conditions, alias, call_writes):
    """{id(Loop): sorted names} of the scalars each iteration of the loop
    pushes at its end (see the module docstring).

    :param recomputed: {id(Loop): (names, statements)} computed again.
    :param reads: {id(statement): names its adjoint reads}.
    :param conditions: {id(IfBlock or Loop): names} evaluated again.
    :param alias: {pointer: target}: nothing qualifies when a pointer may
        write anything.
    :param call_writes: {id(call statement): names the call may change}.
    """
    if alias:
        return {}
    table = routine.symbol_table
    opaque = " ".join(str(n).lower() for block in routine.walk(CodeBlock)
                      for n in block.parse_tree_nodes)
    found = {}
    named_outside = names_outside(routine)
    for loop in routine.walk(Loop):
        outside = named_outside(loop)
        again = recomputed.get(id(loop), (set(), []))[0]
        read = set()
        for node in loop.loop_body.walk((Assignment, Call, IfBlock, Loop, WhileLoop)):
            read |= set(reads.get(id(node), ())) | set(conditions.get(id(node), ()))
        names = set()
        for position, stmt in enumerate(loop.loop_body.children):
            if not isinstance(stmt, Assignment) or type(stmt.lhs) is not Reference:
                continue
            name = stmt.lhs.symbol.name.lower()
            if (name in again or name not in read or name in outside
                    or not _local_scalar(table.lookup(name, otherwise=None))
                    or re.search(r"\b%s\b" % re.escape(name), opaque)):
                continue
            if _set_once_then_read(loop, position, name, call_writes):
                names.add(name)
        if names:
            found[id(loop)] = sorted(names)
    return found


def names_outside(routine):
    """A function giving, for a loop of `routine`, the lower-case names of
    the routine's references outside that loop (a set).

    The routine's references are counted once: a name is named outside a
    loop when the routine has more references to it than the loop has
    (walking the whole routine again for each loop was quadratic).
    """
    total = _name_counts(routine)

    def outside(loop):
        inside = _name_counts(loop)
        return {name for name, count in total.items() if count > inside[name]}
    return outside


def _name_counts(node):
    return Counter(r.symbol.name.lower() for r in node.walk(Reference))


def _set_once_then_read(loop, position, name, call_writes):
    """Whether the statement at `position` of `loop`'s body is the only one
    setting `name`, reads it not, and every statement naming it follows."""
    body = loop.loop_body.children
    if name in _named(body[position].rhs) or any(
            r.symbol.name.lower() == name for r in body[position].lhs.walk(Reference)
            if r is not body[position].lhs):
        return False
    for other, stmt in enumerate(body):
        if other == position or name not in _named(stmt):
            continue
        if other < position:
            return False  # read before it is set: carried over
        if any(a.lhs.symbol.name.lower() == name for a in stmt.walk(Assignment)) or \
                any(l.variable.name.lower() == name for l in stmt.walk(Loop)) or \
                any(_may_set(c, name, call_writes) for c in stmt.walk(Call)):
            return False
    return True


def strip_pushed(reads, conditions, routine, pushed):
    """`reads` and `conditions` without the pushed variables read inside
    their loops: those come off the tape at the start of each reversed
    iteration, so the taping plan must not tape them."""
    reads, conditions = dict(reads), dict(conditions)
    for loop in routine.walk(Loop):
        names = set(pushed.get(id(loop), ()))
        if not names:
            continue
        for node in loop.loop_body.walk((Assignment, Call, IfBlock, Loop, WhileLoop)):
            for table in (reads, conditions):
                if id(node) in table and names & set(table[id(node)]):
                    table[id(node)] = set(table[id(node)]) - names
    return reads, conditions
