"""Calls whose forward run the reversing motion can leave to their reversal.

``r_rev`` of the routine differentiated runs ``r_rec`` then ``r_ret``, and
must leave the primal results as ``r`` does.  A column routine calling a
per-level or per-column physics routine, each call writing its own
elements of the results and nothing else reading them,

.. code-block:: fortran

    do k = 1, nlev
      call thermo_point(p(k), t(k), q(k), thetae(k), twet(k))
    end do

runs ``thermo_point`` three times under a joint link: in ``r_rec``, and
inside ``thermo_point_rev`` (its re-run, then its adjoint).  When that
re-run also delivers the callee's results (``thetae(k)``, ``twet(k)``),
``r_rev`` need not run the call forward at all: the call's reversal leaves
every element the call would have written, each written once.  Tapenade's
``_b`` routines get the same saving by not returning the primal results;
adfort keeps its contract (``r_rev`` returns them) and still runs the
callee's forward code once less.

A call statement is *deferred* when

- it calls a routine differentiated here that writes no module variable
  and no SAVE'd local (its own or its callees': ``f_rev`` keeps copies of
  its own, which its returning part may roll back), and is not a function; linked split, it also reads nothing the routine
  may change (no variable it names is assigned or passed on elsewhere, no
  module variable is written): ``f_rev`` runs in place of ``f_ret`` and
  must find its inputs as they were;
- every actual argument it may change goes to an ``intent(out)`` dummy
  and is (part of) a dummy argument of the caller that no other statement
  names (so nothing reads it forward, in an adjoint, in a condition or a
  bound, and nothing else writes it) and that is not a pointer or target;
- it sits in DO loops only (no DO WHILE) and each such actual subscripts,
  for every loop around the call, one dimension by that loop's variable
  alone: distinct iterations write distinct elements, so the reversal,
  which runs the iterations backwards, leaves the same values;
- and the callee's reversal delivers those results
  (:attr:`RoutineMotions.rev_outputs`, checked once it is built).

Only ``r_rev`` of the routine differentiated changes; ``r_rec`` and
``r_ret`` are as before (a caller linking it split reads the results
between them).  Under a split link the deferred call is reversed by
``f_rev`` (forward again, then adjoint) instead of ``f_rec`` ... ``f_ret``:
the same forward work, no tape.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, CodeBlock, IfBlock, IntrinsicCall, Loop, Reference,
    Routine, Schedule, Statement, WhileLoop)
from psyclone.psyir.symbols import ArgumentInterface, ArrayType, UnsupportedFortranType

from adfort import naming
from adfort.arrays import is_shape_inquiry
from adfort.extents import is_assumed_size
from adfort.symbols import new_local
from adfort.optional import callee_formals, matched_formals

_OUT = ArgumentInterface.Access.WRITE
_INOUT = ArgumentInterface.Access.READWRITE


def _enclosing(node):
    """The loops around `node` inside its routine, or None if a DO WHILE
    is among them."""
    loops = []
    parent = node.parent
    while parent is not None and not isinstance(parent, Routine):
        if isinstance(parent, WhileLoop):
            return None
        if isinstance(parent, Loop):
            loops.append(parent)
        parent = parent.parent
    return loops


def fresh_per_iteration(actual, loops):
    """Whether `actual` names, for each loop in `loops`, elements
    subscripted by that loop's variable alone in a dimension of its own."""
    if not loops:
        return True
    if not isinstance(actual, ArrayReference):
        return False
    used = set()
    for loop in loops:
        name = loop.variable.name.lower()
        found = [i for i, index in enumerate(actual.indices)
                 if type(index) is Reference and index.symbol.name.lower() == name
                 and i not in used]
        if not found:
            return False
        used.add(found[0])
    return True


def _inputs_kept(work, call, loops):
    """Whether nothing in `work` may change what `call` reads: a split
    link has its inputs put back for its returning motion only as far as
    that reads them, so f_rev, run in its place, must find them as they
    were.  The variables `call` names (but the loop indices around it) are
    assigned nowhere, are no DO variable and are passed to no other call;
    and the routine changes no module variable (asked by the caller)."""
    names = {r.symbol.name.lower() for r in call.walk(Reference)
             if not is_shape_inquiry(r)} - {loop.variable.name.lower() for loop in loops}
    for assign in work.walk(Assignment):
        if assign.lhs.symbol.name.lower() in names:
            return False
    if any(loop.variable.name.lower() in names for loop in work.walk(Loop)
           if loop not in loops):
        return False
    for other in work.walk(Call):
        if other is call or (isinstance(other, IntrinsicCall)
                             and not isinstance(other.parent, Schedule)):
            continue
        if any(r.symbol.name.lower() in names for r in other.walk(Reference)
               if not is_shape_inquiry(r)):
            return False
    return True


def deferrable_calls(unit, chosen, is_split, module_writes, attributes):
    # (a split link also needs the routine to change no module variable:
    # module_writes(unit))
    """Candidate deferred calls of `unit` (the routine differentiated):
    {id(call statement): (callee unit, names of the callee's dummies whose
    results the call leaves to its reversal, names of `unit`'s variables
    they go to)}.

    :param unit: the :class:`adfort.interprocedural.Unit` differentiated.
    :param chosen: the units differentiated (callees with motions).
    :param is_split: ``is_split(callee)``: whether the link is split.
    :param module_writes: ``module_writes(callee)``: module variables the
        callee (or what it calls) writes.
    :param attributes: {lower-case name: "POINTER"/"TARGET"} of `unit`.
    """
    work = unit.work
    if work.walk(CodeBlock):
        return {}  # what an I/O statement reads is not seen by name
    counts = {}
    for ref in work.walk(Reference):
        if not is_shape_inquiry(ref):
            name = ref.symbol.name.lower()
            counts[name] = counts.get(name, 0) + 1
    found = {}
    for call in work.walk(Call):
        if isinstance(call, IntrinsicCall) or not isinstance(call.parent, Schedule):
            continue
        callee = unit.calls.get(id(call))
        if (callee is None or callee not in chosen or getattr(callee, "opaque", False)
                or callee.result is not None or module_writes(callee)):
            continue
        loops = _enclosing(call)
        if loops is None:
            continue
        if is_split(callee) and (module_writes(unit) or not _inputs_kept(work, call, loops)):
            continue
        in_call = {}
        for ref in call.walk(Reference):
            if is_shape_inquiry(ref):
                continue
            name = ref.symbol.name.lower()
            in_call[name] = in_call.get(name, 0) + 1
        outputs, targets, ok = set(), set(), True
        for actual, formal in zip(call.arguments, matched_formals(call, callee_formals(callee))):
            if formal is None:
                ok = False
                break
            if not callee.writes_formal(formal):
                continue
            if (formal.interface.access not in (_OUT, _INOUT)
                    or type(actual) not in (Reference, ArrayReference)
                    or not actual.symbol.is_argument):
                ok = False
                break
            name = actual.symbol.name.lower()
            if (attributes.get(name) or in_call.get(name) != 1 or counts.get(name) != 1
                    or not fresh_per_iteration(actual, loops)):
                ok = False
                break
            outputs.add(formal.name.lower())
            targets.add(name)
        if ok and outputs:
            found[id(call)] = (callee, outputs, targets)
    return found


_DEFERRED = "adfort_deferred"


def tag_deferred(statements, keys):
    """Mark the statements of `statements` (at every depth) whose ids are
    in `keys`; copies keep the mark."""
    for stmt in statements:
        for node in stmt.walk(Call):
            if id(node) in keys:
                setattr(node, _DEFERRED, True)


_INSTEAD = "adfort_deferred_instead"
_SAVE = "adfort_deferred_save"


def tag_deferred_saves(statements):
    """Mark `statements`: the saves and restores of what a deferred call
    overwrites, which r_rev leaves out with the call (the call never runs
    forward there: f_rev finds its inputs as they were)."""
    for stmt in statements:
        setattr(stmt, _SAVE, True)


def _without_saves(statements):
    """`statements` (a list) without those :func:`tag_deferred_saves`
    marked, at any depth (detached from their parents)."""
    for stmt in statements:
        for node in stmt.walk(Statement):
            if node is not stmt and getattr(node, _SAVE, False) and node.parent is not None:
                node.detach()
    return [s for s in statements if not getattr(s, _SAVE, False)]


def is_deferred(node):
    """Whether `node` (a call statement) is marked by :func:`tag_deferred`."""
    return getattr(node, _DEFERRED, False)


def tag_deferred_split(rec_call, ret_call, rev_call):
    """Mark a deferred call linked split: r_rev drops `rec_call` (``call
    f_rec``) and runs `rev_call` (``call f_rev``) where `ret_call` (``call
    f_ret``) is."""
    setattr(rec_call, _DEFERRED, True)
    setattr(ret_call, _INSTEAD, rev_call)


def with_deferred_reversed(statements):
    """`statements` (copies, modified in place) with ``call f_rev`` where a
    deferred call linked split has ``call f_ret``."""
    kept = []
    for stmt in _without_saves(statements):
        for node in stmt.walk(Call):
            instead = getattr(node, _INSTEAD, None)
            if instead is not None and node is not stmt and node.parent is not None:
                node.replace_with(instead.copy())
        instead = getattr(stmt, _INSTEAD, None)
        kept.append(instead.copy() if instead is not None else stmt)
    return kept


def without_deferred(statements):
    """`statements` (copies, modified in place) without the marked calls,
    and without the DO loops and IF blocks left empty by that."""
    statements = _without_saves(statements)
    for stmt in statements:
        for node in stmt.walk(Call):
            if getattr(node, _DEFERRED, False) and node.parent is not None:
                node.detach()
    kept = [s for s in statements if not getattr(s, _DEFERRED, False)]
    changed = True
    while changed:
        changed = False
        for stmt in list(kept):
            for node in reversed(stmt.walk((Loop, IfBlock))):
                if _empty(node) and _loop_variable_unused(node, kept):
                    if node is stmt:
                        kept = [s for s in kept if s is not stmt]
                    elif node.parent is not None:
                        node.detach()
                    changed = True
    return kept


def _empty(node):
    if any(not isinstance(c, IntrinsicCall) for c in node.walk(Call)):
        return False  # a bound or condition calling a user function
    if isinstance(node, Loop):
        return not node.loop_body.children
    return not node.if_body.children and (node.else_body is None
                                          or not node.else_body.children)


def _loop_variable_unused(node, statements):
    """Whether an empty DO loop's variable is read nowhere in `statements`
    but inside loops that set it themselves (its value after the loop is
    not needed).  True for IF blocks."""
    if not isinstance(node, Loop):
        return True
    name = node.variable.name.lower()
    for stmt in statements:
        for ref in stmt.walk(Reference):
            if ref.symbol.name.lower() != name:
                continue
            parent = ref.parent
            while parent is not None and not (isinstance(parent, Loop)
                                              and parent.variable.name.lower() == name
                                              and parent is not node):
                parent = parent.parent
            if parent is None:
                return False
    return True


def writes_any(statements, names):
    """Whether `statements` may write a variable among `names`: assign it
    or pass it to a call statement."""
    for stmt in statements:
        for node in stmt.walk(Assignment):
            if node.lhs.symbol.name.lower() in names:
                return True
        for node in stmt.walk(Call):
            if isinstance(node.parent, Schedule) and any(
                    ref.symbol.name.lower() in names for ref in node.walk(Reference)):
                return True
    return False


def kept_results(table, results, taken, excluded):
    """For a callee's f_rev that delivers its results (see
    :attr:`RoutineMotions.rev_outputs`) while its returning part puts some
    of them back: (statements copying the dummies `results` to locals,
    statements copying them back), or None when one of them cannot be
    copied plainly (assumed size or shape, allocatable, or named in
    `excluded`: optional, pointer, target)."""
    save, back = [], []
    for symbol in results:
        dtype = symbol.datatype
        if (getattr(dtype, "is_allocatable", False) or is_assumed_size(symbol)
                or symbol.name.lower() in excluded
                or isinstance(dtype, UnsupportedFortranType)
                or (isinstance(dtype, ArrayType) and any(
                    not isinstance(d, ArrayType.ArrayBounds) for d in dtype.shape))):
            return None
        keep = new_local(table, naming.output_copy(symbol.name), dtype.copy(), taken)
        save.append(Assignment.create(Reference(keep), Reference(symbol)))
        back.append(Assignment.create(Reference(symbol), Reference(keep)))
    return save, back
