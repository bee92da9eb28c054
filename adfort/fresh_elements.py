"""Array elements a DO loop writes once each: their old values need no
tape when nothing reversed later reads them.

In the forward sweep of a Thomas solver

    do k = 2, n
      den = b(k) - a(k)*cp(k-1)
      cp(k) = c(k)/den
    end do

each iteration writes its own element ``cp(k)`` and reads only the element
the iteration before wrote.  The value ``cp(k)`` held before the write is
read by no iteration's adjoint; a name-level taping plan (which sees
``cp`` read and then overwritten) would tape it once per iteration.

An assignment ``S`` to ``a(…, i + c0, …)`` in the body of DO loop ``L``
(index ``i``, step 1 or -1) writes *fresh elements* when

- ``S`` runs at most once per iteration (at the top level of ``L``'s body
  or in IF blocks there) and is the only statement of ``L`` writing
  ``a``; ``L`` holds no opaque statement, and its calls cannot reach
  ``a`` (none is given it; ``a`` is no module variable, COMMON member or
  target);
- the other subscripts of ``S`` do not change in ``L`` (no variable written
  in ``L``), and every reference to ``a`` in ``L`` has the same other
  subscripts and ``i + c1`` in the same dimension;
- each such reference reads the element ``S`` writes only after ``S`` wrote
  it: an iteration after ``S``'s (``c1`` on the side of the loop's
  direction: ``step*(c0 - c1) > 0``), or the same iteration in a later
  top-level statement of the body; or it is ``S``'s own update of the
  element, a term of a sum (``b(k) = b(k) - w*c(k-1)`` in an elimination
  done in place), whose partial is 1 or -1, so that ``S``'s adjoint does
  not read the old value either.

The taping plan then tapes ``S``'s old value only if ``a`` is needed as it
was when ``L`` started (an adjoint before ``L``, or an earlier iteration of
a loop around ``L``, reads it): see :func:`adfort.taping.plan_taping`.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, IfBlock, IntrinsicCall,
    Literal, Loop, Reference, Schedule, UnaryOperation, WhileLoop)

from psyclone.psyir.symbols import CommonBlockInterface

from adfort.tape import written_names


def fresh_element_writes(routine, alias=None, targets=()):
    """{id(Assignment): id(Loop)} of the assignments writing fresh
    elements of their loop (see the module docstring).

    :param routine: the working copy (structured).
    :param alias: {pointer: target}: nothing is fresh when a pointer may
        write anything.
    :param targets: lower-case names of the routine's targets.
    """
    if alias:
        return {}
    found = {}
    for loop in routine.walk(Loop):
        step = unit_step(loop)
        body = loop.loop_body
        if step is None or body.walk((CodeBlock, WhileLoop)):
            continue
        # A call may change (or read) only what it is given, and what is
        # shared with it (module variables, COMMON) or reachable through
        # a pointer (a target).
        given = {r.symbol.name.lower() for c in body.walk(Call)
                 if not isinstance(c, IntrinsicCall) for r in c.walk(Reference)}
        calls = any(not isinstance(c, IntrinsicCall) for c in body.walk(Call))
        index = loop.variable.name.lower()
        written = written_names(body.children)
        for assign in body.walk(Assignment):
            if calls and not _private_to_calls(assign.lhs.symbol, given, targets):
                continue
            if _fresh(assign, loop, index, step, written):
                found[id(assign)] = id(loop)
    return found


def _private_to_calls(symbol, given, targets):
    """Whether the calls of a loop cannot reach array `symbol`: none is
    given it, and it is the routine's own or a dummy argument, not shared
    (module, COMMON) and not a target."""
    name = symbol.name.lower()
    return (name not in given and name not in targets and not symbol.is_import
            and not symbol.is_unresolved
            and not isinstance(symbol.interface, CommonBlockInterface))


def unit_step(loop):
    """1 or -1 for a loop stepping by a literal unit, else None."""
    step = loop.step_expr
    sign = 1
    if isinstance(step, UnaryOperation) and step.operator == UnaryOperation.Operator.MINUS:
        sign, step = -1, step.children[0]
    return sign if isinstance(step, Literal) and step.value == "1" else None


def _offset(expr, index):
    """c for a subscript ``index + c`` / ``index - c`` / ``index``, else None."""
    if type(expr) is Reference:
        return 0 if expr.symbol.name.lower() == index else None
    if isinstance(expr, BinaryOperation) and expr.operator in (
            BinaryOperation.Operator.ADD, BinaryOperation.Operator.SUB):
        left, right = expr.children
        if type(left) is Reference and left.symbol.name.lower() == index and \
                isinstance(right, Literal) and right.value.isdigit():
            value = int(right.value)
            return value if expr.operator == BinaryOperation.Operator.ADD else -value
    return None


def _top(node, loop):
    """Position in `loop`'s body of the top-level statement holding `node`."""
    while node.parent is not loop.loop_body:
        node = node.parent
    return node.position


def _fresh(assign, loop, index, step, written):
    lhs = assign.lhs
    if type(lhs) is not ArrayReference or assign.is_pointer:
        return False
    name = lhs.symbol.name.lower()
    if not _only_in_ifs(assign, loop):
        return False
    position = _top(assign, loop)
    dims = [d for d, sub in enumerate(lhs.indices) if _offset(sub, index) is not None]
    if len(dims) != 1:
        return False
    dim = dims[0]
    c0 = _offset(lhs.indices[dim], index)
    others = [sub for d, sub in enumerate(lhs.indices) if d != dim]
    for d, sub in enumerate(lhs.indices):
        if d != dim and any(r.symbol.name.lower() in written or r.symbol.name.lower() == index
                            for r in sub.walk(Reference)):
            return False
    writes = [a for a in loop.loop_body.walk(Assignment) if a.lhs.symbol.name.lower() == name]
    if len(writes) != 1 or writes[0] is not assign:
        return False
    for ref in loop.loop_body.walk(Reference):
        if ref is lhs or ref.symbol.name.lower() != name:
            continue
        if type(ref) is not ArrayReference or len(ref.indices) != len(lhs.indices):
            return False
        if any(not (sub == other) for sub, other in zip(
                [s for d, s in enumerate(ref.indices) if d != dim], others)):
            return False  # PSyIR nodes compare by structure
        c1 = _offset(ref.indices[dim], index)
        if c1 is None:
            return False
        if step * (c0 - c1) > 0:
            continue  # read by a later iteration
        if c1 == c0 and _top(ref, loop) > position:
            continue  # read after the write, in the same iteration
        if c1 == c0 and ref.ancestor(Assignment) is assign and _additive_term(assign.rhs, ref):
            continue  # b(k) = b(k) - w*c(k-1): the old value has a unit partial
        return False
    return True


def _additive_term(rhs, ref):
    """Whether `ref` is a term of the sum `rhs` (reached from its root
    through + and - only) and no other reference there names the same
    element: the partial of `rhs` with respect to it is 1 or -1, so the
    statement's adjoint does not read the value it replaces."""
    same = [r for r in rhs.walk(Reference) if r == ref]
    if len(same) != 1 or same[0] is not ref:
        return False
    node = ref
    while node is not rhs:
        parent = node.parent
        if isinstance(parent, BinaryOperation) and parent.operator in (
                BinaryOperation.Operator.ADD, BinaryOperation.Operator.SUB):
            node = parent
        elif isinstance(parent, UnaryOperation) and parent.operator in (
                UnaryOperation.Operator.MINUS, UnaryOperation.Operator.PLUS):
            node = parent
        else:
            return False
    return True


def _only_in_ifs(node, loop):
    """Whether `node`'s statement is at the top of `loop`'s body or in IF
    blocks there (it runs at most once per iteration)."""
    node = node.parent
    while node is not loop.loop_body:
        if not isinstance(node, (IfBlock, Schedule)):
            return False
        node = node.parent
    return True


def earlier_elements(loop, stmt, name, fresh):
    """Whether every reference to array `name` in statement `stmt` of
    `loop`'s body reads an element that the loop's fresh write of `name`
    set in an earlier iteration (``cp(k-1)`` in ``den = b(k) -
    a(k)*cp(k-1)``): its value then stays what that iteration wrote until
    the loop is reversed past it, so a reversed iteration can read it.

    :param fresh: {id(Assignment): id(Loop)} of
        :func:`fresh_element_writes`.
    """
    writes = [a for a in loop.loop_body.walk(Assignment)
              if fresh.get(id(a)) == id(loop) and a.lhs.symbol.name.lower() == name]
    if len(writes) != 1:
        return False
    index, step, lhs = loop.variable.name.lower(), unit_step(loop), writes[0].lhs
    dim = next(d for d, sub in enumerate(lhs.indices) if _offset(sub, index) is not None)
    c0 = _offset(lhs.indices[dim], index)
    for ref in stmt.walk(Reference):
        if ref.symbol.name.lower() != name:
            continue
        if type(ref) is not ArrayReference or len(ref.indices) != len(lhs.indices):
            return False
        c1 = _offset(ref.indices[dim], index)
        if c1 is None or step * (c0 - c1) <= 0:
            return False
    return True
