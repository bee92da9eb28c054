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
    ArrayReference, Assignment, Call, CodeBlock, IntrinsicCall, Literal, Loop, Reference,
    Schedule, WhileLoop)
from psyclone.psyir.symbols import ArrayType, AutomaticInterface, DataSymbol

from adfort.derived import is_variable
from adfort.fresh_elements import unit_step
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
    for loop in [node for node in routine.children if isinstance(node, Loop)]:
        for stmt in list(loop.loop_body.children):
            target = _forwardable(stmt, loop, assigned, call_written, attributes)
            if target is not None and _hoist(unit, stmt, loop, target, attributes):
                count += 1
                break
    for loop in routine.walk(Loop):
        for stmt in list(loop.loop_body.children):
            target = _forwardable(stmt, loop, assigned, call_written, attributes)
            if target is not None and _forward(stmt, loop, target):
                count += 1
    return count


def _call_written(unit, node=None):
    """Lower-case names of the variables the calls in `node` (default: all
    of `unit`'s routine) may change: a user call's actuals whose dummies it
    may change (all of them for a routine without source), every variable
    an intrinsic subroutine names (ALLOCATE, RANDOM_NUMBER, MOVE_ALLOC…)."""
    names = set()
    for call in (node if node is not None else unit.work).walk(Call):
        if isinstance(call, IntrinsicCall):
            if isinstance(call.parent, Schedule):
                names |= {r.symbol.name.lower() for r in call.walk(Reference)}
            continue
        callee = unit.calls.get(id(call))
        formals = matched_formals(call, callee_formals(callee)) if callee is not None \
            else [None] * len(call.arguments)
        for actual, formal in zip(call.arguments, formals):
            if formal is None or callee.writes_formal(formal):
                names |= {r.symbol.name.lower() for r in actual.walk(Reference)}
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
            ref.replace_with(stmt.lhs.copy())   # (a read: L writes no A)
            replaced += 1
    if not replaced:
        return False
    if stmt.position != 0:
        stmt.detach()
        loop.loop_body.children.insert(0, stmt)
    return True


def _hoist(unit, stmt, loop, source, attributes):
    """Copy the whole of `source` before the earliest top-level statement
    from which on nothing changes it, or the copy, before `loop`, and make
    the reads of `source` from there to `loop` read the copy.  Whether
    anything was forwarded.

    ``C(k) = A(k)`` must run over the whole of rank-1 ``A`` in a loop of
    its own at the top level, with ``C`` declared with ``A``'s bounds, so
    that ``C(e)`` is ``A(e)`` for every subscript ``e`` a statement may
    read ``A`` at; the loop's bounds must read nothing the statements it
    moves over change, nor may they use its index.
    """
    routine = unit.work
    copy = stmt.lhs.symbol
    if not (source.is_argument or isinstance(source.interface, AutomaticInterface)):
        return False    # a call may change a module variable unseen
    if loop.parent is not routine or not _covers(loop, source) or \
            not _same_bounds(copy, source):
        return False
    cname, sname = copy.name.lower(), source.name.lower()
    index = loop.variable.name.lower()
    bounds = {r.symbol.name.lower() for e in (loop.start_expr, loop.stop_expr, loop.step_expr)
              for r in e.walk(Reference)}
    first = loop.position
    while first > 0:
        before = routine.children[first - 1]
        if before.walk(CodeBlock) or any(a.is_pointer for a in before.walk(Assignment)):
            break
        writes = _statement_writes(unit, before)
        names = {r.symbol.name.lower() for r in before.walk(Reference)}
        if sname in writes or cname in names or bounds & writes or \
                (index in names and not _index_only_looped(before, index)):
            break
        first -= 1
    # The statements in between and the loop read the copy.
    replaced = 0
    for node in routine.children[first:loop.position] + [loop]:
        for ref in node.walk(Reference):
            if ref.symbol.name.lower() != sname or ref is stmt.rhs or \
                    _in_user_call(ref, node):
                continue
            if type(ref) is ArrayReference:
                ref.replace_with(ArrayReference.create(copy, [i.copy() for i in ref.indices]))
            elif type(ref) is Reference:
                ref.replace_with(Reference(copy))
            else:
                continue
            replaced += 1
    if not replaced:
        return False
    if first < loop.position:
        stmt.detach()
        hoisted = Loop.create(loop.variable, loop.start_expr.copy(), loop.stop_expr.copy(),
                              loop.step_expr.copy(), [stmt])
        routine.addchild(hoisted, first)
        if not loop.loop_body.children:
            loop.detach()
    elif stmt.position != 0:
        stmt.detach()
        loop.loop_body.children.insert(0, stmt)
    return True


def _statement_writes(unit, stmt):
    """Lower-case names top-level `stmt` may change (assignments, loop
    indices, calls)."""
    names = {a.lhs.symbol.name.lower() for a in stmt.walk(Assignment)}
    names |= {loop.variable.name.lower() for loop in stmt.walk(Loop)}
    return names | _call_written(unit, stmt)


def _index_only_looped(stmt, index):
    """Whether every reference to `index` in `stmt` is inside a DO loop
    over it (a copy loop run before `stmt` leaves it a value it never
    reads)."""
    for ref in stmt.walk(Reference):
        if ref.symbol.name.lower() != index:
            continue
        node = ref.parent
        while node is not None and not (isinstance(node, Loop)
                                        and node.variable.name.lower() == index):
            node = node.parent
        if node is None:
            return False
    return True


def _in_user_call(ref, top):
    node = ref.parent
    while node is not None and node is not top.parent:
        if isinstance(node, Call) and not isinstance(node, IntrinsicCall):
            return True
        node = node.parent
    return False


def _covers(loop, array):
    """Whether `loop` runs over every element of the rank-1 `array`, in
    unit steps upwards."""
    shape = array.datatype.shape
    if len(shape) != 1 or unit_step(loop) != 1:
        return False
    extent = shape[0]
    start, stop = loop.start_expr, loop.stop_expr
    if isinstance(extent, ArrayType.ArrayBounds) and not isinstance(
            extent.upper, ArrayType.Extent):
        return _text(start) == _text(extent.lower) and _text(stop) == _text(extent.upper)
    return (isinstance(start, Literal) and start.value == "1"
            and isinstance(stop, IntrinsicCall) and _intrinsic_name(stop) == "SIZE"
            and len(stop.arguments) == 1 and type(stop.arguments[0]) is Reference
            and stop.arguments[0].symbol is array)


def _same_bounds(copy, source):
    """Whether local `copy` is declared with the bounds of `source` (rank
    1; ``SIZE(a)`` elements from 1 for an assumed-shape `source`)."""
    cshape, sshape = copy.datatype.shape, source.datatype.shape
    if len(cshape) != 1 or len(sshape) != 1:
        return False
    cext, sext = cshape[0], sshape[0]
    if not isinstance(cext, ArrayType.ArrayBounds) or isinstance(cext.upper, ArrayType.Extent):
        return False
    if isinstance(sext, ArrayType.ArrayBounds) and not isinstance(sext.upper, ArrayType.Extent):
        return _text(cext.lower) == _text(sext.lower) and _text(cext.upper) == _text(sext.upper)
    upper = cext.upper
    return (_text(cext.lower) == "1" and isinstance(upper, IntrinsicCall)
            and _intrinsic_name(upper) == "SIZE" and len(upper.arguments) == 1
            and type(upper.arguments[0]) is Reference and upper.arguments[0].symbol is source)


def _text(node):
    return node.debug_string().replace(" ", "").lower()


def _intrinsic_name(call):
    """The name of intrinsic `call` (None where PSyclone's symbol has none:
    RANDOM_NUMBER read as a call)."""
    return getattr(getattr(call.routine.symbol, "intrinsic", None), "name", None)
