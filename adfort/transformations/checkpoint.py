"""Adjoint of a checkpointed time loop (``!$adfort checkpoint``).

The front end made the loop ``do n = a, b, s; call step(n, …); end do``
(:mod:`adfort.checkpoint_loops`); the step is reversed split.  The state
is what a joint reversal of the step would put back (what it overwrites
and reads on entry: :func:`adfort.transformations.call.overwritten_inputs`).
Both motions follow the schedule of :mod:`adfort.checkpointing` for the
trip count the loop has at run time (computed by the Fortran module
``adfort_checkpointing``, written into the output as
``<routine>_checkpointing`` by :func:`adfort.checkpoint_loops.with_schedule_module`):

- the recording motion runs the schedule's forward sweep (the actions
  before its first REVERSE: ADVANCE and TAKESHOT only, slots 1, 2, … in
  turn), then pushes the state at the last step and runs that step, and
  pushes the loop's first value, stride, trip count and snapshot count;
- the returning motion pops the last step's state and runs the rest:
  ADVANCE a, b runs steps a … b-1 as the original does; TAKESHOT pushes
  the state on the value tapes; RESTORE pops the snapshots taken after
  the slot (no longer needed), pops the slot into the state and pushes it
  again (it may be restored later); REVERSE runs ``step_rec`` then
  ``step_ret``.  The snapshots left are popped at the end (the last one is
  the entry state).

The schedules use their snapshots last in first out (a slot is taken or
restored only when every slot taken after it is dead), so the snapshots
are a stack on the value tapes, above what the recording motion pushed
before the loop and below what it pushes after: at most S + 1 states
(binomial) whatever the trip count, besides one step's tape, and a
routine holding the loop may be called split or joint, many times.
Every step runs forward at most t times (the first sweep included), t the
binomial repetition number, besides its recording run.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, IfBlock, IntrinsicCall, Literal,
    Loop, Reference, WhileLoop)
from psyclone.psyir.symbols import (
    ArrayType, ContainerSymbol, DataSymbol, ImportInterface, RoutineSymbol)

from adfort import naming
from adfort.exprs import INTEGER_TYPE
from adfort.symbols import new_local
from adfort.tape import tidy_reserves, written_names
from adfort.transformations.call import _actuals, _formals, overwritten_inputs
from adfort.transformations.reverser import statement_text

BinOp = BinaryOperation.Operator
TAKESHOT, RESTORE, ADVANCE, REVERSE = 1, 2, 3, 4
MODULE = "adfort_checkpointing"


def _int(value):
    return Literal(str(value), INTEGER_TYPE)


def _op(op, a, b):
    return BinaryOperation.create(op, a, b)


def _local(reverser, base):
    return new_local(reverser.ctx.table, base, INTEGER_TYPE, reverser.ctx.taken)


def _imported(table, name):
    """The routine `name` of module adfort_checkpointing, imported into `table`."""
    container = table.lookup(MODULE, otherwise=None)
    if container is None:
        container = ContainerSymbol(MODULE)
        table.add(container)
    symbol = table.lookup(name, otherwise=None)
    if symbol is None:
        symbol = RoutineSymbol(name, interface=ImportInterface(container))
        table.add(symbol)
    return symbol


def _action(actions, row, iact):
    return ArrayReference.create(actions, [_int(row), Reference(iact)])


def _snapshots(reverser, state):
    """(reserve + push statements, pop statements) of the state, with the
    room it needs made first."""
    tapes = reverser.tapes
    tapes.open_frame(set())
    push, pop = [], []
    for ref in state:
        save, restore = tapes.save(ref.copy())
        push.extend(save)
        pop = restore + pop
    needs = tapes.close_frame()
    needs.pop("inline", None)
    return tapes.reserve(needs) + push, pop


def reverse_checkpointed_loop(node, reverser):
    """(recording, returning) statements of the checkpointed loop `node`."""
    from adfort.transformations.loop import reverse_loop
    spec = node.adfort_checkpoint
    call = node.loop_body.children[0]
    info = reverser.calls.get(id(call))
    if info is None:
        # A passive step: the loop runs as it is.
        return reverse_loop(node, reverser)
    text = f"DO {node.variable.name} = {statement_text(node.start_expr)}, " \
           f"{statement_text(node.stop_expr)}, {statement_text(node.step_expr)}"
    ctx, tapes = reverser.ctx, reverser.tapes
    table = ctx.table
    index = node.variable
    plain = call.copy()
    actuals = _actuals(call, None)
    formals = _formals(info, call, None)
    state = overwritten_inputs(call, call, info, actuals, formals, reverser)

    first = _local(reverser, naming.loop_bound("start"))
    stride = _local(reverser, naming.loop_bound("step"))
    trip = _local(reverser, naming.CHECKPOINT_STEPS)
    actions = DataSymbol(naming.unique(table, naming.CHECKPOINT_ACTIONS, ctx.taken),
                         ArrayType(INTEGER_TYPE, [ArrayType.Extent.DEFERRED] * 2))
    table.add(actions)
    slot_depth = DataSymbol(naming.unique(table, naming.CHECKPOINT_SLOT_DEPTH, ctx.taken),
                            ArrayType(INTEGER_TYPE, [ArrayType.Extent.DEFERRED]))
    table.add(slot_depth)
    nact = _local(reverser, naming.CHECKPOINT_COUNT)
    forward = _local(reverser, naming.CHECKPOINT_FORWARD)
    iact = _local(reverser, naming.CHECKPOINT_ACTION)
    depth = _local(reverser, naming.CHECKPOINT_DEPTH)
    step = _local(reverser, naming.CHECKPOINT_STEP)
    schedule = _imported(table, "adfort_binomial_schedule" if spec.kind == "binomial"
                         else "adfort_periodic_schedule")
    slots = _imported(table, "adfort_schedule_slots")
    first_reverse = _imported(table, "adfort_first_reverse")

    def at(row):
        return _action(actions, row, iact)

    def set_index(step_expr):
        return Assignment.create(Reference(index), _op(BinOp.ADD, Reference(first), _op(
            BinOp.MUL, step_expr, Reference(stride))))

    def is_kind(kind):
        return _op(BinOp.EQ, at(1), _int(kind))

    def count(by):
        return Assignment.create(Reference(depth), _op(BinOp.ADD if by > 0 else BinOp.SUB,
                                                       Reference(depth), _int(1)))

    def advance():
        loop = Loop.create(step, at(2), _op(BinOp.SUB, at(3), _int(1)), _int(1),
                           [set_index(Reference(step)), plain.copy()])
        loop.preceding_comment = "advance: steps a .. b-1 as the original runs them"
        return [loop]

    def take(noted):
        push, _ = _snapshots(reverser, state)
        push[0].preceding_comment = "take a snapshot: push the state"
        return push + [count(1)] + ([Assignment.create(
            ArrayReference.create(slot_depth, [at(3)]), Reference(depth))] if noted else [])

    def planned():
        return [Call.create(schedule, [Reference(trip), _int(spec.value), Reference(actions),
                                       Reference(nact)]),
                Assignment.create(Reference(forward), Call.create(
                    first_reverse, [Reference(actions), Reference(nact)]))]

    rec = [Assignment.create(Reference(first), node.start_expr.copy()),
           Assignment.create(Reference(stride), node.step_expr.copy()),
           Assignment.create(Reference(trip), IntrinsicCall.create(
               IntrinsicCall.Intrinsic.MAX, [_int(0), _op(BinOp.DIV, _op(BinOp.ADD, _op(
                   BinOp.SUB, node.stop_expr.copy(), Reference(first)), Reference(stride)),
                   Reference(stride))]))]
    ret_after = []
    if id(node) in reverser.plan.loop_indices:
        # The adjoint of a statement before the loop reads the index.
        save, restore = tapes.save(Reference(index))
        rec = save + rec
        ret_after = restore
    # The forward sweep of the schedule (its snapshots stay on the tapes
    # for the returning motion), then the last step from a snapshot of
    # its entry state, which the returning motion reverses first.
    rec += planned() + [Assignment.create(Reference(depth), _int(0))]
    rec.append(Loop.create(iact, _int(1), _op(BinOp.SUB, Reference(forward), _int(1)), _int(1),
                           [IfBlock.create(is_kind(ADVANCE), advance(), take(False))]))
    rec[-1].preceding_comment = "the forward sweep of the schedule"
    last_push, last_pop = _snapshots(reverser, state)
    rec.append(IfBlock.create(_op(BinOp.GT, Reference(trip), _int(0)), last_push + [
        set_index(_op(BinOp.SUB, Reference(trip), _int(1))), plain.copy()]))
    rec[-1].preceding_comment = "the last step, from a snapshot of its entry state"
    rec.append(set_index(Reference(trip)))
    pushes, token = tapes.control.push([Reference(first), Reference(stride), Reference(trip),
                                        Reference(depth)])
    rec.extend(pushes)

    # The returning motion's side: its reserves keep no room for the
    # routine, which pushes nothing more there.
    # One step reversed: step_rec then step_ret (with what the plan saves
    # around the call, and the scalars an iteration pushes).
    with tapes.returning_side():
        tapes.open_frame(written_names([call], reverser.plan.call_writes))
        step_rec, step_ret = reverser.block([call])
        popped = []
        for name in reverser.pushed.get(id(node), ()):
            save, restore = tapes.save(Reference(table.lookup(name)))
            step_rec.extend(save)
            popped = restore + popped
        if id(node) in reverser.recomputed:
            popped += [s.copy() for s in reverser.recomputed[id(node)][1]]
        needs = tapes.close_frame()
        needs.pop("inline", None)
        reverse = [set_index(at(2))] + tapes.reserve(needs) + step_rec + popped + step_ret
        reverse[0].preceding_comment = "reverse one step: record it, then return through it"

        pops, values = tapes.control.pop(token)
        ret = pops + [Assignment.create(Reference(target), value) for target, value in
                      zip((first, stride, trip, depth), values)]
        ret += planned()
        ret.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [ArrayReference.create(
            slot_depth, [Call.create(slots, [Reference(actions), Reference(nact)])])]))
        # The forward sweep took slots 1, 2, ... in turn.
        ret.append(Loop.create(iact, _int(1), Reference(depth), _int(1), [Assignment.create(
            ArrayReference.create(slot_depth, [Reference(iact)]), Reference(iact))]))
        ret.append(IfBlock.create(_op(BinOp.GT, Reference(trip), _int(0)), last_pop))
        drop_push, drop_pop = _snapshots(reverser, state)
        _, again_pop = _snapshots(reverser, state)
        restore = [WhileLoop.create(
            _op(BinOp.GT, Reference(depth), ArrayReference.create(slot_depth, [at(3)])),
            drop_pop + [count(-1)])]
        restore[0].preceding_comment = \
            "restore a snapshot: drop those taken after it, pop it and keep it"
        restore += again_pop + drop_push

        dispatch = IfBlock.create(is_kind(ADVANCE), advance(), [IfBlock.create(
            is_kind(TAKESHOT), take(True), [IfBlock.create(
                is_kind(RESTORE), restore, reverse)])])
        ret.append(Loop.create(iact, Reference(forward), Reference(nact), _int(1), [dispatch]))
        ret[-1].preceding_comment = "the rest of the schedule, from its first reversed step"
        _, end_pop = _snapshots(reverser, state)
        ret.append(WhileLoop.create(_op(BinOp.GT, Reference(depth), _int(0)),
                                    end_pop + [count(-1)]))
        ret[-1].preceding_comment = "the snapshots left: the last popped is the entry state"
        ret.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [
            Reference(slot_depth)]))
    tidy_reserves(ret)
    ret.extend(ret_after)
    ret[0].preceding_comment = (f"checkpointed loop ({spec.text()}, {spec.place}): "
                                "its steps reversed from snapshots")
    reverser.comment(ret, text)
    return rec, ret
