"""Final writes of r_rev's results made straight into their output copies.

``r_rev`` of the routine differentiated runs its recording, copies the
results the returning motion puts back (``t_out = t``), runs the
returning motion and copies the results back.  A physics routine ending
with the state update

.. code-block:: fortran

    do k = 1, nlev
      q(k) = q(k) - dt*cond(k)     ! cond's adjoint reads the old q(k)
    end do

pushes every old ``q(k)`` for the returning motion to pop.  When that
assignment is the last statement naming ``q``, and names it at the one
element each iteration assigns, ``r_rev`` can write the new values into
the copy instead (``q_out(k) = q(k) - dt*cond(k)``, the copy taken just
before the loop): ``q`` keeps its old values for the adjoints, with no
push and no pop, and ``q = q_out`` at the end gives the results.  Only
``r_rev`` changes; ``r_rec`` and ``r_ret`` keep their tape for callers.

An assignment qualifies (:func:`direct_final_writes`) when

- its target is a dummy argument of the routine whose overwritten value
  is taped (:func:`tag_overwrite`), not optional, pointer, target,
  allocatable or assumed-size;
- it is the last statement writing that argument in the last top-level
  statement naming it, which holds no calls naming it, and names it
  nowhere after the assignment; earlier writes there are in the same
  iteration of the innermost loop around it, before the statement of its
  body holding it (a microphysics column updating ``qr(k)`` by
  evaporation, then by accretion): each iteration then copies the element
  as they leave it, just before that statement;
- every reference to the argument there is the same text, and names,
  for each DO loop around the assignment, that loop's variable alone in
  a dimension of its own (no DO WHILE): no iteration reads what another
  wrote.

The returning motion then finds the old values where it popped them
before (the pop comes before the assignment's adjoint), and reads the
argument nowhere earlier: only the adjoints of statements after the
assignment come earlier, and none of them names it.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, CodeBlock, IntrinsicCall, Loop, Reference, Statement,
    WhileLoop)
from psyclone.psyir.symbols import ArrayType

from adfort import naming
from adfort.arrays import is_shape_inquiry
from adfort.deferral import fresh_per_iteration

_TAG = "adfort_overwrite_of"


def tag_overwrite(stmt, statements):
    """Mark `statements` (the push or the pop of the value assignment
    `stmt` overwrites) and `stmt` itself; copies keep the mark."""
    for node in statements:
        setattr(node, _TAG, id(stmt))
    setattr(stmt, _TAG + "_here", id(stmt))


def _loops_alone(ref, stmt, top):
    """Whether `ref` names, for each DO loop around `stmt` inside `top`
    (itself included), its variable alone in a dimension of its own (no DO
    WHILE around it)."""
    loops = []
    node = stmt
    while node is not None:
        if isinstance(node, WhileLoop):
            return False
        if isinstance(node, Loop):
            loops.append(node)
        if node is top:
            break
        node = node.parent
    return fresh_per_iteration(ref, loops)


def _innermost_loop(stmt, top):
    """The innermost DO loop around `stmt` inside `top` (itself included),
    or None."""
    node = stmt.parent
    while node is not None:
        if isinstance(node, Loop):
            return node
        if node is top:
            return None
        node = node.parent
    return None


def _candidate(statements, symbol):
    """(the assignment of `symbol` to redirect, the top-level statement of
    `statements` holding it, the statement before which each iteration
    copies the element, or None when the copy before the top-level
    statement does), or None."""
    name = symbol.name.lower()
    top = None
    for stmt in statements:
        if any(r.symbol.name.lower() == name for r in stmt.walk(Reference)):
            top = stmt
    if top is None or top.walk(CodeBlock):
        return None
    refs = [r for r in top.walk(Reference) if r.symbol.name.lower() == name
            and not is_shape_inquiry(r)]
    writes = [a for a in top.walk(Assignment) if a.lhs.symbol.name.lower() == name]
    if not writes or getattr(writes[-1], _TAG + "_here", None) is None:
        return None
    assign = writes[-1]
    for call in top.walk(Call):
        if not isinstance(call, IntrinsicCall) and any(
                r.symbol.name.lower() == name for r in call.walk(Reference)):
            return None
    text = assign.lhs.debug_string().lower()
    if any(r.debug_string().lower() != text for r in refs if type(r) in (
            Reference, ArrayReference)) or any(type(r) not in (Reference, ArrayReference)
                                              for r in refs):
        return None
    # Nothing names it after the assignment (its own right-hand side aside).
    inside = {id(r) for r in assign.walk(Reference)}
    position = next(i for i, r in enumerate(refs) if r is assign.lhs)
    if any(id(r) not in inside for r in refs[position:]):
        return None
    if not _loops_alone(assign.lhs, assign, top):
        return None
    if len(writes) == 1:
        return assign, top, None
    # Written before in the same iteration: each iteration copies the
    # element as those writes leave it, just before the statement of the
    # loop's body holding the last write.
    loop = _innermost_loop(assign, top)
    if loop is None:
        return None
    point = assign
    while point.parent is not loop.loop_body:
        point = point.parent
    body = loop.loop_body.children
    before = {id(n) for stmt in body[:point.position] for n in stmt.walk(Assignment)}
    if any(id(w) not in before for w in writes[:-1]):
        return None
    return assign, top, point


def direct_final_writes(rec_part, arguments, excluded, table, taken, local_copy, copy):
    """Redirect the final writes of `arguments` in `rec_part` (r_rev's
    recording statements, copies changed in place) into output copies.

    :param arguments: the dummy symbols whose values the returning motion
        puts back (r_rev would copy them).
    :param excluded: lower-case names never redirected (optional, pointer,
        target, delivered already).
    :param local_copy: ``local_copy(symbol, name)``: a new local holding a
        copy of `symbol` (:func:`adfort.transformations.reversing._local_copy`).
    :param copy: ``copy(keep, symbol)``: the statements ``keep = symbol``.
    :returns: (the recording statements, {id of an assignment redirected},
        the names redirected, the statements copying the results back).
    """
    done, names, back = set(), set(), []
    for symbol in arguments:
        name = symbol.name.lower()
        dtype = symbol.datatype
        if name in excluded or getattr(dtype, "is_allocatable", False) or (
                isinstance(dtype, ArrayType) and any(
                    d == ArrayType.Extent.DEFERRED for d in dtype.shape)):
            continue
        found = _candidate(rec_part, symbol)
        if found is None:
            continue
        assign, top, point = found
        key = getattr(assign, _TAG + "_here")
        pushes = [s for stmt in rec_part for s in stmt.walk(Statement)
                  if getattr(s, _TAG, None) == key]
        if not pushes:
            continue
        for stmt in pushes:
            if stmt.parent is not None:
                stmt.detach()
        # (by identity: equal statements are not the same statement)
        rec_part = [s for s in rec_part if not any(s is p for p in pushes)]
        keep = local_copy(symbol, naming.output_copy(symbol.name))
        lhs = assign.lhs
        if isinstance(lhs, ArrayReference):
            target = ArrayReference.create(keep, [i.copy() for i in lhs.indices])
        else:
            target = Reference(keep)
        if point is not None:
            point.parent.addchild(Assignment.create(target.copy(), lhs.copy()),
                                  point.position)
        lhs.replace_with(target)
        position = next(i for i, s in enumerate(rec_part) if s is top)
        rec_part[position:position] = copy(keep, symbol)
        back.append(Assignment.create(Reference(symbol), Reference(keep)))
        done.add(key)
        names.add(name)
    return rec_part, done, names, back


def without_pops(statements, keys):
    """`statements` (a list of copies) without the pops of the values the
    assignments `keys` overwrote (at any depth)."""
    if not keys:
        return statements
    for stmt in statements:
        for node in stmt.walk(Statement):
            if node is not stmt and getattr(node, _TAG, None) in keys and \
                    node.parent is not None:
                node.detach()
    return [s for s in statements if getattr(s, _TAG, None) not in keys]
