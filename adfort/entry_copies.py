"""Arguments a callee puts back from a local copy of their input values.

An implicit solver copies the state it is given before solving in place:

.. code-block:: fortran

    do k = 1, nlev
      ...
      rhs(k) = t(k)
    end do
    call tridiag_solve(nlev, a, b, c, rhs, t)

The returning motion needs ``rhs`` (the solver's adjoint reads its right-hand
side), so the recording hands it over on the tape.  A caller reversing the
call split saves ``t`` around it too, to have the state before the step
back: the same values stored twice.  Since ``rhs`` *is* ``t`` as the
routine found it, the returning motion can finish with ``t(k) = rhs(k)``
over the same loop; ``t`` is then put back by the callee, and a caller
linking it split saves nothing (:func:`adfort.taping.restored_on_return`,
``call_restores``).

A dummy argument ``A`` (real, neither ``intent(in)`` nor ``intent(out)``)
has an entry copy ``L`` when ``L`` is a local array handed over at the
end of the recording and

- ``L`` is set by one assignment only, ``L = A`` at the top level or
  ``L(i) = A(i)`` directly in a DO loop of unit step over ``i`` at the top
  level (not under an IF), and nothing else may write ``L`` (no call, no
  I/O);
- no statement before it (nor its loop) may change ``A``;
- the loop runs over the whole of ``A`` (its declared bounds, or 1 to
  ``SIZE(A)``), and its bounds read only arguments and constants the
  routine never changes (the returning motion evaluates them again at its
  end).

Whatever the routine does to ``A`` after the copy, the returning motion's
last statements put it back.  ``f_rev`` (joint) leaves them out: its
callers put back what they need themselves.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, CodeBlock, IntrinsicCall, Literal, Loop, Reference,
    Schedule)
from psyclone.psyir.symbols import ArgumentInterface, ArrayType, AutomaticInterface, DataSymbol

from adfort.activity import is_real
from adfort.fresh_elements import unit_step

_IN = ArgumentInterface.Access.READ
_OUT = ArgumentInterface.Access.WRITE


def _local_array(symbol):
    return (isinstance(symbol, DataSymbol) and isinstance(symbol.interface, AutomaticInterface)
            and isinstance(symbol.datatype, ArrayType) and symbol.initial_value is None
            and not getattr(symbol.datatype, "is_allocatable", False))


def _top_position(node, routine):
    while node.parent is not routine:
        node = node.parent
    return node.position


def _copy_of(assign, loop):
    """(A, L) for ``L = A`` (whole arrays, `loop` None) or ``L(i) = A(i)``
    with `i` the index of `loop`, else None."""
    lhs, rhs = assign.lhs, assign.rhs
    if assign.is_pointer:
        return None
    if loop is None:
        if type(lhs) is Reference and type(rhs) is Reference:
            return rhs.symbol, lhs.symbol
        return None
    index = loop.variable.name.lower()
    if (type(lhs) is ArrayReference and type(rhs) is ArrayReference
            and len(lhs.indices) == 1 and len(rhs.indices) == 1
            and all(type(i) is Reference and i.symbol.name.lower() == index
                    for i in (lhs.indices[0], rhs.indices[0]))):
        return rhs.symbol, lhs.symbol
    return None


def entry_copies(routine, finals, written, call_writes, alias):
    """{lower-case name of a dummy argument: statements putting it back from
    its entry copy} (new nodes, to end the returning motion).

    :param routine: the working copy (statements not yet reversed).
    :param finals: lower-case names of the locals handed over.
    :param written: lower-case names of the variables the routine may change.
    :param call_writes: {id(statement): names a call or kept statement may
        change}.
    :param alias: {pointer: target} of the routine's pointers.
    """
    if alias or not finals or routine.walk(CodeBlock):
        return {}
    setters = {}
    for assign in routine.walk(Assignment):
        setters.setdefault(assign.lhs.symbol.name.lower(), []).append(assign)
    by_calls = set().union(*call_writes.values()) if call_writes else set()
    found = {}
    for name in finals:
        assigns = setters.get(name, [])
        if len(assigns) != 1 or name in by_calls:
            continue
        assign = assigns[0]
        loop = assign.parent.parent if assign.parent is not None else None
        if isinstance(loop, Loop):
            if loop.parent is not routine or unit_step(loop) is None:
                continue
        elif assign.parent is routine:
            loop = None
        else:
            continue
        pair = _copy_of(assign, loop)
        if pair is None:
            continue
        source, copy = pair
        if not (_local_array(copy) and copy.name.lower() == name and source.is_argument
                and is_real(source) and source.interface.access not in (_IN, _OUT)
                and isinstance(source.datatype, ArrayType)
                and source.name.lower() not in found):
            continue
        if loop is not None and not (_bounds_kept(loop, written) and _covers(loop, source)):
            continue
        if _changed_before(routine, source.name.lower(), _top_position(assign, routine),
                           call_writes, loop):
            continue
        if loop is None:
            restore = Assignment.create(Reference(source), Reference(copy))
        else:
            restore = loop.copy()
            restore.loop_body.pop_all_children()
            index = loop.variable
            restore.loop_body.addchild(Assignment.create(
                ArrayReference.create(source, [Reference(index)]),
                ArrayReference.create(copy, [Reference(index)])))
        found[source.name.lower()] = [restore]
    return found


def _covers(loop, array):
    """Whether `loop` runs over every element of the rank-1 `array`: from
    its declared lower to its declared upper bound (``1`` to ``SIZE(a)``
    for an assumed-shape one), by steps of one either way."""
    shape = array.datatype.shape
    if len(shape) != 1:
        return False
    start, stop = loop.start_expr, loop.stop_expr
    step = unit_step(loop)
    if step == -1:
        start, stop = stop, start
    elif step != 1:
        return False
    extent = shape[0]
    if isinstance(extent, ArrayType.ArrayBounds) and not isinstance(
            extent.upper, ArrayType.Extent):
        lower, upper = extent.lower, extent.upper
        return (_text(start) == _text(lower) and _text(stop) == _text(upper))
    # Assumed shape: 1 to SIZE(a).
    return (isinstance(start, Literal) and start.value == "1"
            and isinstance(stop, IntrinsicCall) and stop.intrinsic.name == "SIZE"
            and len(stop.arguments) == 1 and type(stop.arguments[0]) is Reference
            and stop.arguments[0].symbol is array)


def _text(node):
    return node.debug_string().replace(" ", "").lower()


def _bounds_kept(loop, written):
    """Whether `loop`'s bounds read only arguments and constants the
    routine never changes."""
    for expr in (loop.start_expr, loop.stop_expr, loop.step_expr):
        if any(not isinstance(c, IntrinsicCall) for c in expr.walk(Call)):
            return False
        for ref in expr.walk(Reference):
            symbol = ref.symbol
            name = symbol.name.lower()
            if name in written:
                return False
            if not (getattr(symbol, "is_argument", False)
                    or getattr(symbol, "is_constant", False)):
                return False
    return True


def _changed_before(routine, name, position, call_writes, loop):
    """Whether a top-level statement before `position`, or `loop` (the
    copy's own loop), may change `name`."""
    statements = list(routine.children[:position]) + ([loop] if loop is not None else [])
    for stmt in statements:
        for assign in stmt.walk(Assignment):
            if assign.lhs.symbol.name.lower() == name:
                return True
        for node in stmt.walk((Assignment, Call)):
            if name in call_writes.get(id(node), ()):
                return True
            if isinstance(node, IntrinsicCall) and isinstance(node.parent, Schedule) and any(
                    r.symbol.name.lower() == name for r in node.walk(Reference)):
                return True  # ALLOCATE, an intrinsic subroutine
        if any(inner.variable.name.lower() == name for inner in stmt.walk(Loop)):
            return True
    return False
