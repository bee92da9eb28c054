"""A last loop of independent iterations, reversed block by block.

The routine differentiated often ends in a loop over points or columns
whose iterations share nothing but a sum:

.. code-block:: fortran

    cost = 0
    do i = 1, n
      call thetae_point(t(i), q(i), p(i), the)
      cost = cost + 0.5*(the - obs(i))**2
    end do

``r_rev`` records the whole loop, then returns through it backwards: the
tape holds every iteration's values at once (split), or the callee runs
forward twice (joint).  When each iteration reads nothing another one
writes, iteration ``i``'s adjoint needs only what iteration ``i`` computed
and the adjoints the loop's results come in with, which nothing in the
loop changes (the loop is the routine's last statement; a sum's adjoint is
the same for every term).  ``r_rev`` then takes the iterations in blocks
of :data:`BLOCK`, in the loop's own order: the recording of a block, then
its returning motion.  The tape holds one block's values, and the sums add
up in the original order (the primal results are bit for bit ``r``'s).
When an iteration's pushes all meet their pops once its returning motion
follows at once (and it calls no routine), the blocks are single
iterations and the tape is not used at all.  (One iteration at a time with
a callee's recording and returning motion alternating measured 10-14 %
slower than the whole loop; blocks of 256, as fast.)

The loop ``L`` (the last statement of the routine's body, a DO loop) is
reversed so when every variable written in ``L`` is

- a *sum*: a scalar referenced in ``L`` only as ``s = s + e``,
  ``s = e + s`` or ``s = s - e`` (``e`` not naming ``s``);
- a *private* scalar: a local of the routine (not an argument, not saved,
  not shared) that a statement at the top of ``L``'s body sets (an
  assignment, a DO loop's index, an ``intent(out)`` scalar dummy of a
  call, or an IF block with ELSE each of whose branches sets it so) before
  any other statement of the body names it;
- a *fresh* array: every reference to it in ``L`` subscripts one fixed
  dimension by ``L``'s index alone, so each iteration reads and writes
  only its own elements;

and

- ``L``'s index and the variables of its bounds are not written in it;
- it holds no DO WHILE, no I/O or other code kept opaque, no intrinsic
  subroutine, no pointer, and calls only routines differentiated here that
  write no module variable, giving no array element to an array dummy
  (the callee could reach the neighbours);
- a call writes only locals of the routine (privates, fresh local arrays).

The transformation itself (:func:`fuse_iterations`) works on the generated
statements: ``r_rev``'s recording of ``L`` and ``L``'s returning loop, each
marked by :mod:`adfort.transformations.loop` (only a DO loop of unit step
whose bounds the plan evaluates again, so that no control value is taped).  It also checks what only
the taping plan knows: no argument of the routine written in ``L`` is put
back by its returning motion (``r_rev`` would return the value from before
the iteration).
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, IfBlock, IntrinsicCall, Literal,
    Loop, Range, Reference, Schedule, StructureReference, UnaryOperation, WhileLoop)
from psyclone.psyir.symbols import ArgumentInterface, CommonBlockInterface, StaticInterface

from adfort.arrays import is_shape_inquiry, symbol_rank
from adfort.exprs import INTEGER_TYPE
from adfort.fresh_elements import unit_step
from adfort.optional import callee_formals, matched_formals

_OUT = ArgumentInterface.Access.WRITE

#: Marks on generated nodes (kept by copies).
REC_LOOP = "adfort_iterations_rec"
RET_LOOP = "adfort_iterations_ret"
ROOM = "adfort_iterations_room"
BLOCKS = "adfort_iterations_blocks"

#: Iterations per block when the tape is used (see :func:`fuse_iterations`).
BLOCK = 256


def _name(ref):
    return ref.symbol.name.lower()


def _refs(node):
    return [r for r in node.walk(Reference) if not is_shape_inquiry(r)]


def _sum_statement(stmt, name):
    """Whether `stmt` is ``name = name ± e`` or ``name = e + name`` with
    `e` not naming `name`."""
    if not (isinstance(stmt, Assignment) and type(stmt.lhs) is Reference
            and _name(stmt.lhs) == name and isinstance(stmt.rhs, BinaryOperation)):
        return False
    op = stmt.rhs.operator
    left, right = stmt.rhs.children
    if op == BinaryOperation.Operator.ADD:
        if type(left) is Reference and _name(left) == name:
            other = right
        elif type(right) is Reference and _name(right) == name:
            other = left
        else:
            return False
    elif op == BinaryOperation.Operator.SUB and type(left) is Reference \
            and _name(left) == name:
        other = right
    else:
        return False
    return all(_name(r) != name for r in other.walk(Reference))


def _own_local(symbol):
    """Whether `symbol` is a plain local of its routine: not an argument,
    not saved or initialised, not shared (COMMON, use)."""
    return (not symbol.is_argument and not symbol.is_import and not symbol.is_unresolved
            and not isinstance(symbol.interface, (CommonBlockInterface, StaticInterface))
            and getattr(symbol, "initial_value", None) is None
            and not getattr(symbol, "is_constant", False))


class _Loop:
    """What :func:`independent_last_loop` learns of the loop's body."""

    def __init__(self, loop, calls):
        self.loop = loop
        self.index = loop.variable.name.lower()
        self.calls = calls
        self.writes = {}       # name -> [nodes writing it: Assignment or Loop]
        self.call_writes = {}  # name -> [(call, formal)]

    def scan(self):
        body = self.loop.loop_body
        if body.walk((CodeBlock, WhileLoop, StructureReference)):
            return False
        for node in body.walk(Loop):
            self.writes.setdefault(node.variable.name.lower(), []).append(node)
        for node in body.walk(Assignment):
            if node.is_pointer:
                return False
            self.writes.setdefault(_name(node.lhs), []).append(node)
        for node in body.walk(Call):
            if isinstance(node, IntrinsicCall):
                if isinstance(node.parent, Schedule):
                    return False  # RANDOM_NUMBER, ALLOCATE… write what they name
                continue
            if not self._call(node):
                return False
        return True

    def _call(self, call):
        info = self.calls.get(id(call))
        if info is None or getattr(info, "opaque", True) or info.module_writes:
            return False
        unit = info.unit
        for actual, formal in zip(call.arguments,
                                  matched_formals(call, callee_formals(unit))):
            if formal is None:
                return False
            if isinstance(actual, ArrayReference) and symbol_rank(formal) > 0 \
                    and _element(actual):
                return False  # sequence association: the callee may go past it
            if not unit.writes_formal(formal):
                continue
            if type(actual) not in (Reference, ArrayReference):
                return False
            self.call_writes.setdefault(_name(actual), []).append((call, formal))
        return True


def _element(ref):
    """Whether array reference `ref` names one element (no range)."""
    return not any(isinstance(i, Range) for i in ref.indices)


def _fresh_dimension(loop, name):
    """Whether every reference to array `name` in `loop` subscripts one
    fixed dimension by the loop's index alone."""
    refs = [r for r in _refs(loop.loop_body) if _name(r) == name]
    index = loop.variable.name.lower()
    dims = None
    for ref in refs:
        if not isinstance(ref, ArrayReference):
            return False
        here = {d for d, i in enumerate(ref.indices)
                if type(i) is Reference and _name(i) == index}
        dims = here if dims is None else dims & here
        if not dims:
            return False
    return bool(dims)


def _private(loop, name, calls):
    """Whether scalar `name` is set by a top-level statement of `loop`'s
    body before any statement of the body names it."""
    return _set_first(loop.loop_body.children, name, calls)


def _set_first(statements, name, calls):
    """Whether the first of `statements` naming `name` sets it without
    reading it: an assignment, a DO loop's index, an ``intent(out)`` scalar
    dummy of a call, or an IF block (with ELSE) whose condition does not
    name it and each of whose branches sets it so first."""
    for stmt in statements:
        named = [r for r in _refs(stmt) if _name(r) == name]
        if isinstance(stmt, Loop) and stmt.variable.name.lower() == name:
            return not any(r for r in _refs(stmt.start_expr) + _refs(stmt.stop_expr)
                           + _refs(stmt.step_expr) if _name(r) == name)
        if not named:
            continue
        if isinstance(stmt, Assignment):
            return (type(stmt.lhs) is Reference and _name(stmt.lhs) == name
                    and all(_name(r) != name for r in _refs(stmt.rhs)))
        if isinstance(stmt, IfBlock):
            return (stmt.else_body is not None
                    and all(_name(r) != name for r in _refs(stmt.condition))
                    and _set_first(stmt.if_body.children, name, calls)
                    and _set_first(stmt.else_body.children, name, calls))
        if isinstance(stmt, Call) and not isinstance(stmt, IntrinsicCall):
            info = calls.get(id(stmt))
            if info is None:
                return False
            pairs = list(zip(stmt.arguments, matched_formals(stmt, callee_formals(info.unit))))
            given = [(a, f) for a, f in pairs if any(_name(r) == name for r in _refs(a))]
            return (len(given) == 1 and type(given[0][0]) is Reference
                    and given[0][1] is not None
                    and given[0][1].interface.access == _OUT
                    and symbol_rank(given[0][1]) == 0)
        return False
    return False


def independent_last_loop(work, calls, deferred=()):
    """The routine's last statement if it is a DO loop whose iterations
    are independent (see the module docstring), else None.

    :param work: the working copy of the routine differentiated.
    :param calls: {id(call statement): CalleeMotions or None}.
    :param deferred: ids of the calls r_rev defers (:mod:`adfort.deferral`):
        their reversal already runs once, so the loop is left to it.
    """
    body = work.children
    if not body or not isinstance(body[-1], Loop):
        return None
    loop = body[-1]
    if any(id(c) in deferred for c in loop.walk(Call)):
        return None
    scan = _Loop(loop, calls)
    if not scan.scan():
        return None
    table = work.symbol_table
    bounds = {_name(r) for e in (loop.start_expr, loop.stop_expr, loop.step_expr)
              for r in e.walk(Reference)}
    written = set(scan.writes) | set(scan.call_writes)
    if scan.index in written or bounds & written:
        return None
    for name in written:
        symbol = table.lookup(name, otherwise=None)
        if symbol is None or not hasattr(symbol, "datatype"):
            return None
        if name in scan.call_writes and not _own_local(symbol):
            return None
        if not (_own_local(symbol) or symbol.is_argument):
            return None  # shared: a module variable, COMMON, saved
        if symbol_rank(symbol) > 0:
            if not _fresh_dimension(loop, name):
                return None
            continue
        stmts = [a for a in scan.writes.get(name, ()) if isinstance(a, Assignment)]
        refs = [r for r in _refs(loop.loop_body) if _name(r) == name]
        if stmts and name not in scan.call_writes and all(
                _sum_statement(s, name) for s in scan.writes[name]) and \
                len(refs) == 2 * len(stmts):
            continue  # a sum: named only in its own updates
        if not _own_local(symbol) or not _private(loop, name, calls):
            return None
    return loop


def taped_arguments(loop, plan, arguments):
    """Names among `arguments` (lower case) that the taping `plan` saves
    inside `loop`: their returning motion would put them back."""
    found = set()
    inside = {id(n) for n in loop.walk((Assignment, Call, Loop))}
    for node in loop.walk(Assignment):
        if id(node) in plan.taped and _name(node.lhs) in arguments:
            found.add(_name(node.lhs))
    for key, name in plan.taped_calls:
        if key in inside and name in arguments:
            found.add(name)
    for key, name in plan.taped_arrays:
        if key in inside and name in arguments:
            found.add(name)
    for key, names in plan.loop_snapshots.items():
        if key in inside:
            found |= set(names) & set(arguments)
    return found


def fuse_iterations(recording, returning, adjoint, tops):
    """``r_rev``'s statements with the last loop reversed block by block,
    or None when the generated code is not as expected.

    :param recording: ``r_rev``'s recording statements (copies); the last
        is the loop marked :data:`REC_LOOP` (its :data:`BLOCKS`: the
        block's first and last index, the room a block needs), the
        reserves before it that count every iteration marked :data:`ROOM`.
    :param returning: the returning statements (copies): statements that
        set adjoints only, then the loop marked :data:`RET_LOOP`, then the
        rest.
    :param adjoint: ``adjoint(symbol)``: whether a symbol is an adjoint or
        a temporary of the returning motion.
    :param tops: lower-case names of the tapes' tops (what pushes set).
    :returns: (the statements to run before ``r_rev`` keeps its results,
        those to run after), or None.
    """
    if not recording or not getattr(recording[-1], REC_LOOP, False):
        return None
    rec_loop = recording[-1]
    at = [i for i, s in enumerate(returning) if getattr(s, RET_LOOP, False)]
    if len(at) != 1 or not isinstance(returning[at[0]], Loop):
        return None
    ret_loop = returning[at[0]]
    prefix = returning[:at[0]]
    written = {s.lhs.symbol.name.lower() for s in rec_loop.loop_body.walk(Assignment)}
    written |= {r.symbol.name.lower() for c in rec_loop.loop_body.walk(Call)
                for r in c.walk(Reference)}
    written |= {n.variable.name.lower() for n in rec_loop.walk(Loop)}
    for stmt in prefix:
        # Zeroing the adjoints the loop accumulates into: moved before the
        # loop's recording, which neither reads nor writes them.
        if not isinstance(stmt, Assignment) or not adjoint(stmt.lhs.symbol):
            return None
        if any(not adjoint(r.symbol) and r.symbol.name.lower() in written
               for r in stmt.walk(Reference)):
            return None
    head = [s for s in recording[:-1] if not getattr(s, ROOM, False)]
    rec_body = [s.detach() for s in list(rec_loop.loop_body.children)]
    ret_body = [s.detach() for s in list(ret_loop.loop_body.children)]
    rest = returning[at[0] + 1:]
    alone = _without_tape(rec_body, ret_body, rest, tops)
    if alone is not None:
        # Nothing left on the tape: each iteration's recording, then at
        # once its returning motion.
        fused = Loop.create(rec_loop.variable, rec_loop.start_expr.copy(),
                            rec_loop.stop_expr.copy(), rec_loop.step_expr.copy(),
                            alone[0] + alone[1])
        return head + prefix + [fused], rest
    # Blocks of iterations: the recording of a block, then its returning
    # motion (see the module docstring).
    first, last, room = getattr(rec_loop, BLOCKS, (None, None, None))
    step = unit_step(rec_loop)
    if first is None or step is None:
        return None
    bound = IntrinsicCall.create(
        IntrinsicCall.Intrinsic.MIN if step > 0 else IntrinsicCall.Intrinsic.MAX, [
            BinaryOperation.create(
                BinaryOperation.Operator.ADD if step > 0 else BinaryOperation.Operator.SUB,
                Reference(first), Literal(str(BLOCK - 1), INTEGER_TYPE)),
            rec_loop.stop_expr.copy()])
    one = Literal("1", INTEGER_TYPE)
    forward = one.copy() if step > 0 else UnaryOperation.create(
        UnaryOperation.Operator.MINUS, one.copy())
    backward = one.copy() if step < 0 else UnaryOperation.create(
        UnaryOperation.Operator.MINUS, one.copy())
    block = [Assignment.create(Reference(last), bound)] + [s.copy() for s in room] + [
        Loop.create(rec_loop.variable, Reference(first), Reference(last), forward, rec_body),
        Loop.create(rec_loop.variable, Reference(last), Reference(first), backward, ret_body)]
    width = Literal(str(BLOCK), INTEGER_TYPE)
    blocks = Loop.create(first, rec_loop.start_expr.copy(), rec_loop.stop_expr.copy(),
                         width if step > 0 else UnaryOperation.create(
                             UnaryOperation.Operator.MINUS, width), block)
    return head + prefix + [blocks], rest


def _without_tape(rec_body, ret_body, rest, tops):
    """(recording, returning) statements of one iteration without the
    pushes that meet their pops when the returning motion follows at once,
    or None when something else is still pushed (or a routine called).

    :param tops: lower-case names of the tapes' tops."""
    rec_body = [s.copy() for s in rec_body]
    ret_body = [s.copy() for s in ret_body]
    # A value pushed last in the recording and popped first in the
    # returning motion (scalars each iteration sets, adfort.iteration_values)
    # meets its pop at once: neither is needed.
    while len(rec_body) >= 2 and len(ret_body) >= 2 and _push_then_pop(
            rec_body[-2:], ret_body[:2]):
        rec_body, ret_body = rec_body[:-2], ret_body[2:]
    # A scalar pushed first and popped last: the value it had before the
    # iteration, which the iteration sets before reading.  Only what runs
    # after the loop could read it again.
    after = {r.symbol.name.lower() for s in rest for r in s.walk(Reference)}
    while len(rec_body) >= 2 and len(ret_body) >= 2 and _push_then_pop(
            rec_body[:2], ret_body[-2:]) and rec_body[0].rhs.symbol.name.lower() not in after:
        rec_body, ret_body = rec_body[2:], ret_body[:-2]
    if any(isinstance(n, Assignment) and n.lhs.symbol.name.lower() in tops
           or isinstance(n, Call) and not isinstance(n, IntrinsicCall)
           for s in rec_body + ret_body for n in s.walk((Assignment, Call))):
        return None
    return rec_body, ret_body


def _push_then_pop(push, pop):
    """Whether `push` is ``tape(top + 1) = x; top = top + 1`` and `pop` is
    ``top = top - 1; x = tape(top + 1)`` on the same tape, for the same
    variable ``x``."""
    put, up = push
    down, get = pop
    if not all(isinstance(s, Assignment) for s in (put, up, down, get)):
        return False
    if not (isinstance(put.lhs, ArrayReference) and len(put.lhs.indices) == 1
            and type(up.lhs) is Reference and type(down.lhs) is Reference
            and up.lhs.symbol is down.lhs.symbol
            and isinstance(up.rhs, BinaryOperation) and isinstance(down.rhs, BinaryOperation)
            and up.rhs.operator == BinaryOperation.Operator.ADD
            and down.rhs.operator == BinaryOperation.Operator.SUB):
        return False
    top = up.lhs.symbol
    one = up.rhs.children[1]
    if not (type(up.rhs.children[0]) is Reference and up.rhs.children[0].symbol is top
            and type(down.rhs.children[0]) is Reference and down.rhs.children[0].symbol is top
            and isinstance(one, Literal) and one.value == "1"
            and down.rhs.children[1] == one):
        return False
    index = put.lhs.indices[0]
    if not (isinstance(index, BinaryOperation) and index.operator == BinaryOperation.Operator.ADD
            and type(index.children[0]) is Reference and index.children[0].symbol is top
            and index.children[1] == one):
        return False
    return get.rhs == put.lhs and get.lhs == put.rhs and isinstance(
        get.lhs, Reference) and not get.lhs.walk(Call)
