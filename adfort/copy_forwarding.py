"""Reads of a state array forwarded to the local copy the same iteration
makes of it.

An implicit step builds its coefficients from the state, copies the state
into the right-hand side and solves in place:

.. code-block:: fortran

    do k = 1, nlev
      kz = kdiff*(1.0 + 1.0e-3*(t(k) - 270.0)**2)
      a(k) = -kz
      ...
      rhs(k) = t(k)
    end do
    call tridiag_solve(nlev, a, b, c, rhs, t)

The adjoints of the coefficient formulas read ``t(k)``, which the solver
then overwrites: the recording would save ``t`` before the call, and hand
``a``, ``b``, ``c`` over to the returning motion, which could not compute
them again from a ``t`` it gets back only after reversing the solver.  Yet
``rhs(k)`` holds ``t(k)`` from the copy on, and nothing writes ``rhs``
again.  With the copy made first in the iteration and the formulas reading
``rhs(k)``, the program is the same, ``t`` is read by the copy only, and
the returning motion computes the coefficients again from the ``rhs`` it
is handed (:func:`adfort.handover.arrays_computed_again`): one array on
the tape per call instead of five.

A copy ``C(idx) = A(idx)`` in DO loop ``L`` qualifies when

- it is a statement of ``L``'s body itself (not under an IF), ``C`` a
  local array (no SAVE, initial value, pointer, target or allocatable)
  that nothing else writes, in the whole routine: no other assignment, no
  call that may change it, no I/O;
- ``A`` is an array that ``L`` never writes and some other statement of
  the routine does (else reading it costs nothing);
- ``L`` calls no routine of the user and holds no I/O or pointer
  assignment; ``C`` is not named in ``L`` before the copy;
- each loop around the copy (``L`` among them) names its index in
  ``idx``, whose other names ``L`` does not change, so that every
  execution of the copy writes another element;

It runs before activity is found: ``C`` then carries derivatives wherever
``A`` does.

Reads ``A(idx)`` in ``L``'s body with the same subscripts read ``C(idx)``,
and the copy moves to the top of the body.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, CodeBlock, IfBlock, IntrinsicCall, Loop, Reference,
    WhileLoop)
from psyclone.psyir.symbols import ArrayType, AutomaticInterface, DataSymbol

from adfort.derived import is_variable
from adfort.optional import callee_formals, matched_formals


def forward_copies(unit):
    """Forward reads of state arrays to same-iteration copies in
    `unit.work` (see the module docstring).

    :param unit: an :class:`adfort.interprocedural.Unit` whose callees'
        units are set up (their `writes_formal` answers).
    :returns: the number of copies forwarded.
    """
    routine = unit.work
    if routine.walk(CodeBlock):
        return 0    # I/O or constructs not in PSyIR may write anything
    assigned = {}
    for assign in routine.walk(Assignment):
        assigned.setdefault(assign.lhs.symbol.name.lower(), []).append(assign)
    call_written = _call_written(unit)
    attributes = getattr(unit, "attributes", {}) or {}
    count = 0
    for loop in routine.walk(Loop):
        for stmt in list(loop.loop_body.children):
            target = _forwardable(stmt, loop, assigned, call_written, attributes)
            if target is not None and _forward(stmt, loop, target):
                count += 1
    return count


def _call_written(unit):
    """Lower-case names of the variables the user calls of `unit` may
    change (all the actuals of a call without source)."""
    names = set()
    for call in unit.work.walk(Call):
        if isinstance(call, IntrinsicCall):
            if call.intrinsic.name in ("ALLOCATE", "DEALLOCATE"):
                names |= {a.symbol.name.lower() for a in call.arguments if is_variable(a)}
            continue
        callee = unit.calls.get(id(call))
        formals = matched_formals(call, callee_formals(callee)) if callee is not None \
            else [None] * len(call.arguments)
        for actual, formal in zip(call.arguments, formals):
            for ref in actual.walk(Reference):
                if formal is None or callee.writes_formal(formal):
                    names.add(ref.symbol.name.lower())
    return names


def _local_array(symbol):
    return (isinstance(symbol, DataSymbol) and isinstance(symbol.interface, AutomaticInterface)
            and isinstance(symbol.datatype, ArrayType) and symbol.initial_value is None
            and not getattr(symbol.datatype, "is_allocatable", False)
            and not getattr(symbol.datatype, "is_pointer", False))


def _forwardable(stmt, loop, assigned, call_written, attributes):
    """The array symbol ``A`` of a qualifying copy ``C(idx) = A(idx)``, or
    None.

    :param attributes: {lower-case name: 'POINTER' or 'TARGET'}."""
    if not isinstance(stmt, Assignment) or stmt.is_pointer:
        return None
    lhs, rhs = stmt.lhs, stmt.rhs
    if type(lhs) is not ArrayReference or type(rhs) is not ArrayReference:
        return None
    copy, source = lhs.symbol, rhs.symbol
    cname, sname = copy.name.lower(), source.name.lower()
    if cname == sname or not _local_array(copy) or not isinstance(source, DataSymbol):
        return None
    if not isinstance(source.datatype, ArrayType) or \
            getattr(source.datatype, "is_pointer", False):
        return None
    if cname in attributes or sname in attributes:
        return None
    if copy.datatype.intrinsic != source.datatype.intrinsic or \
            str(copy.datatype.precision) != str(source.datatype.precision):
        return None
    if len(assigned.get(cname, ())) != 1 or cname in call_written:
        return None
    if len(lhs.indices) != len(rhs.indices) or not all(
            a == b for a, b in zip(lhs.indices, rhs.indices)):
        return None
    # Every execution of the copy writes another element: each loop around
    # it names its index in the subscripts, and nothing inside L changes
    # what the subscripts read (neither A nor the index names).
    if stmt.ancestor(WhileLoop) is not None:
        return None
    index_refs = {ref.symbol.name.lower() for i in lhs.indices for ref in i.walk(Reference)}
    node = loop
    while node is not None:
        if isinstance(node, Loop):
            if not any(type(i) is Reference and i.symbol.name.lower() == node.variable.name.lower()
                       for i in lhs.indices):
                return None
        node = node.parent
    if loop.walk(CodeBlock) or any(not isinstance(c, IntrinsicCall) for c in loop.walk(Call)):
        return None
    loop_writes = {a.lhs.symbol.name.lower() for a in loop.walk(Assignment)} | \
        {inner.variable.name.lower() for inner in loop.walk(Loop) if inner is not loop}
    if sname in loop_writes or (index_refs - {loop.variable.name.lower()}) & loop_writes:
        return None
    if any(a.is_pointer for a in loop.walk(Assignment)):
        return None
    # Reading A costs something only if the routine changes it somewhere.
    if sname not in assigned and sname not in call_written:
        return None
    # C is not named before the copy in the iteration.
    for before in loop.loop_body.children[:stmt.position]:
        if any(r.symbol.name.lower() == cname for r in before.walk(Reference)):
            return None
    return source


def _forward(stmt, loop, source):
    """Move the copy `stmt` to the top of `loop`'s body and make the reads
    of `source` at the copy's subscripts read the copy.  Whether anything
    was forwarded."""
    indices = stmt.rhs.indices
    sname = source.name.lower()
    replaced = 0
    for other in loop.loop_body.children:
        if other is stmt:
            continue
        for ref in other.walk(ArrayReference):
            if ref.symbol.name.lower() != sname or len(ref.indices) != len(indices):
                continue
            if not all(a == b for a, b in zip(ref.indices, indices)):
                continue
            if isinstance(ref.parent, Assignment) and ref.parent.lhs is ref:
                return False   # (L writes no A: cannot happen)
            ref.replace_with(stmt.lhs.copy())
            replaced += 1
    if not replaced:
        return False
    if stmt.position != 0:
        stmt.detach()
        loop.loop_body.children.insert(0, stmt)
    return True
