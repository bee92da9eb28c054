"""Adjoints of DO and DO WHILE loops: the iterations run in reverse.

A DO loop's recording pushes, after the loop, its final index value (and
its first value and step when they are not constants): with them the
returning motion runs ``do i = last - step, first, -step`` whatever the
bounds' variables hold by then.  A loop of unit step whose bounds the
taping plan puts back where the loop is reversed (see
:mod:`adfort.recompute`) pushes nothing: ``do i = stop, start, -step``.
A DO WHILE loop counts its iterations and pushes the count.  Each loop
makes room on the tapes first: at entry from the trip count when the room
an iteration needs is known there, otherwise at each iteration.
"""

from psyclone.psyir.nodes import (
    Assignment, BinaryOperation, Call, IntrinsicCall, Literal, Loop, Reference,
    UnaryOperation, WhileLoop)
from psyclone.psyir.symbols import ScalarType

from adfort import iteration_reversal as iterations
from adfort import naming
from adfort.exprs import INTEGER_TYPE
from adfort.recompute import literal_step
from adfort.simplify import simplify
from adfort.tape import invariant, written_names
from adfort.symbols import new_local
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.reverser import statement_text

BinOp = BinaryOperation.Operator


def _int(value):
    return Literal(str(value), INTEGER_TYPE)


def _is_constant(expr):
    if isinstance(expr, UnaryOperation):
        expr = expr.children[0]
    return isinstance(expr, Literal)


def _local_integer(reverser, base):
    return new_local(reverser.ctx.table, base, INTEGER_TYPE, reverser.ctx.taken)


def _binary(op, a, b):
    return BinaryOperation.create(op, a, b)


def reverse_loop(node, reverser):
    """Return (recording, returning) statements for DO loop `node`."""
    text = f"DO {node.variable.name} = {statement_text(node.start_expr)}, " \
           f"{statement_text(node.stop_expr)}, {statement_text(node.step_expr)}"
    tapes = reverser.tapes
    index = node.variable
    start, stop, step = (node.start_expr.copy(), node.stop_expr.copy(),
                         node.step_expr.copy())
    body = list(node.loop_body.children)
    written = written_names(body, reverser.plan.call_writes) | {index.name.lower()}
    # Arrays the loop overwrites several times per iteration, saved whole
    # before it (adfort.loop_snapshots), in the enclosing frame.
    snap_rec, snap_ret = [], []
    for name, section in sorted(reverser.plan.loop_snapshots.get(id(node), {}).items()):
        save, restore = tapes.save(section.copy())
        snap_rec += save
        snap_ret = restore + snap_ret
    pushes_before = tapes.pushes_made()

    tapes.open_frame(written_names(body, reverser.plan.call_writes))
    body_rec, body_ret = reverser.block(body)
    # Scalars the iteration set, pushed last: popped first when reversing.
    popped = []
    for name in reverser.pushed.get(id(node), ()):
        save, restore = tapes.save(Reference(reverser.ctx.table.lookup(name)))
        body_rec.extend(save)
        popped = restore + popped
    body_ret = popped + body_ret
    needs = tapes.close_frame()
    body_pushes = tapes.pushes_made() - pushes_before
    rec, ret_after = snap_rec, []
    if id(node) in reverser.plan.loop_indices:
        # The adjoint of some statement before the loop reads the index:
        # the loop destroys that value, even when nothing in it needs
        # reversing.
        save, restore = tapes.save(Reference(index))
        rec.extend(save)
        ret_after.extend(restore)
    ret_after += snap_ret
    if not body_ret and not body_pushes:
        return rec + [Loop.create(index, start, stop, step, body_rec)], ret_after
    if id(node) in reverser.recomputed:
        # Index arithmetic of the iteration, computed again, not taped
        # (after the pops: it may read nothing they set).
        body_ret = body_ret[:len(popped)] + [
            s.copy() for s in reverser.recomputed[id(node)][1]] + body_ret[len(popped):]
    # The first value and step are pushed after the loop; keep them in
    # locals if the body could change what they are computed from.
    kept = {}
    for label, expr in (("start", start), ("step", step)):
        if not _is_constant(expr) and not invariant(expr, written):
            local = _local_integer(reverser, naming.loop_bound(label))
            rec.append(Assignment.create(Reference(local), expr.copy()))
            kept[label] = Reference(local)
    start_ref = kept.get("start", start)
    step_ref = kept.get("step", step)

    invariant_needs = not needs.pop("inline", False) and all(
        invariant(n, written) for n in needs.values())
    room = []
    if invariant_needs:
        count = _binary(BinOp.DIV, _binary(BinOp.ADD, _binary(
            BinOp.SUB, stop.copy(), start_ref.copy()), step_ref.copy()), step_ref.copy())
        if _long_index(index):
            # (An integer(8) index: the tape room is a default integer.)
            count = IntrinsicCall.create(IntrinsicCall.Intrinsic.INT, [count])
        trip = IntrinsicCall.create(IntrinsicCall.Intrinsic.MAX, [_int(0), count])
        room = tapes.reserve(needs, per_iteration_of=trip)
        rec.extend(room)
        loop_body = body_rec
    else:
        loop_body = tapes.reserve(needs) + body_rec
    rec.append(Loop.create(index, start_ref.copy(), stop, step_ref.copy(), loop_body))

    if id(node) in reverser.plan.reevaluated:
        # A literal step and bounds the body leaves alone, put back by the
        # plan where the loop is reversed: from the last index value down
        # (the upper bound for a unit step; a + ((b - a + s)/s - 1)*s,
        # below a when no iteration ran, else).
        reverse_step = simplify(UnaryOperation.create(UnaryOperation.Operator.MINUS,
                                                      step_ref.copy()))
        last = stop.copy()
        if abs(literal_step(node)) != 1:
            trips = _binary(BinOp.DIV, _binary(BinOp.ADD, _binary(
                BinOp.SUB, stop.copy(), start_ref.copy()), step_ref.copy()), step_ref.copy())
            last = simplify(_binary(BinOp.ADD, start_ref.copy(), _binary(
                BinOp.MUL, _binary(BinOp.SUB, trips, _int(1)), step_ref.copy())))
        ret = [Loop.create(index, last, start_ref.copy(), reverse_step, body_ret)]
        if id(node) == reverser.iterations_loop and not snap_ret and not ret_after and (
                body_pushes or any(not isinstance(c, IntrinsicCall) for c in node.walk(Call))):
            # r_rev may run each iteration's recording and returning motion
            # together (adfort.iteration_reversal): mark both loops, and the
            # room made for all iterations, which one iteration's replaces.
            # (Worth it when the iterations tape values or call routines.)
            setattr(rec[-1], iterations.REC_LOOP, True)
            setattr(ret[0], iterations.RET_LOOP, True)
            for stmt in room:
                setattr(stmt, iterations.ROOM, True)
            first = _local_integer(reverser, naming.block_bound(index.name, "first"))
            last = _local_integer(reverser, naming.block_bound(index.name, "last"))
            block_needs = {tape: need.copy() for tape, need in needs.items()}
            setattr(rec[-1], iterations.BLOCKS, (first, last, tapes.reserve(
                block_needs, per_iteration_of=_int(iterations.BLOCK)) if room else []))
        ret += ret_after
        reverser.comment(ret, text)
        return rec, ret
    pushed = [e for e in (start_ref, step_ref) if not _is_constant(e)]
    push_stmts, token = tapes.control.push([e.copy() for e in pushed] + [Reference(index)])
    rec.extend(push_stmts)

    pops, values = tapes.control.pop(token)
    values = list(values)
    last = values.pop()
    first = values.pop(0) if not _is_constant(start_ref) else start_ref.copy()
    stride = values.pop(0) if not _is_constant(step_ref) else step_ref.copy()
    reverse_start = simplify(_binary(BinOp.SUB, last, stride.copy()))
    reverse_step = simplify(UnaryOperation.create(UnaryOperation.Operator.MINUS, stride))
    ret = pops + [Loop.create(index, reverse_start, first, reverse_step, body_ret)] + ret_after
    reverser.comment(ret, text)
    return rec, ret


def _long_index(index):
    """Whether DO variable `index` has a kind of its own (``integer(8)``)."""
    precision = getattr(index.datatype, "precision", None)
    return precision is not None and precision != ScalarType.Precision.UNDEFINED


def reverse_while(node, reverser):
    """Return (recording, returning) statements for DO WHILE loop `node`."""
    text = "DO WHILE (" + statement_text(node.condition) + ")"
    tapes = reverser.tapes
    pushes_before = tapes.pushes_made()
    tapes.open_frame(written_names(node.loop_body.children, reverser.plan.call_writes))
    body_rec, body_ret = reverser.block(list(node.loop_body.children))
    needs = tapes.close_frame()
    needs.pop("inline", None)
    condition = node.condition.copy()
    if not body_ret and tapes.pushes_made() == pushes_before:
        return [WhileLoop.create(condition, body_rec)], []
    count = _local_integer(reverser, naming.ITERATION_COUNT)
    step = Assignment.create(Reference(count), _binary(BinOp.ADD, Reference(count), _int(1)))
    rec = [Assignment.create(Reference(count), _int(0)),
           WhileLoop.create(condition, [step] + tapes.reserve(needs) + body_rec)]
    push_stmts, token = tapes.control.push([Reference(count)])
    rec.extend(push_stmts)
    pops, (total,) = tapes.control.pop(token)
    ret = pops + [Loop.create(count, _int(1), total, _int(1), body_ret)]
    reverser.comment(ret, text)
    return rec, ret


class ADReverseLoopTrans(ADReverseTrans):
    """Adjoint of a DO loop."""

    node_type = Loop

    def reverse(self, node, reverser):
        """Return the (recording, returning) statements of `node`."""
        self.validate(node)
        return reverse_loop(node, reverser)


class ADReverseWhileLoopTrans(ADReverseTrans):
    """Adjoint of a DO WHILE loop."""

    node_type = WhileLoop

    def reverse(self, node, reverser):
        """Return the (recording, returning) statements of `node`."""
        self.validate(node)
        return reverse_while(node, reverser)
