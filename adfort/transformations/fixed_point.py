"""Adjoint of a fixed-point loop (``!$adfort fixed-point(tol=…, maxiter=…)``
before ``DO WHILE``): Christianson's two-phase method.

The front end made the loop ``do while (…); call step(…); end do``
(:mod:`adfort.checkpoint_loops`); the step is reversed split.  The loop
iterates x = Φ(x, p) to convergence.  Its adjoint does not reverse every
iteration: the recording motion runs the loop as the original does and
pushes the converged state x* (what the step overwrites and reads on
entry); the returning motion solves w = x̄ + Φ_x(x*, p)^T w by iterating
with one recorded step from x* (``step_rec`` then ``step_ret``, the
parameters' adjoints zero) until the change of w is below `tol` relative
to its size or `maxiter` iterations, then adds Φ_p^T w to the parameters'
adjoints.  The initial guess gets no adjoint (the fixed point does not
depend on it), nor do the step's other outputs (a residual).

A state array the step may not set whole (``x(1)`` of ``x(0:2)``, ghost
cells ``t(0)`` and ``t(n+1)`` the step reads and never writes) holds
parameters of the map among its elements, where Φ is the identity: there w
grows by x̄ + Φ_p^T w each iteration instead of converging.  adfort cannot
always tell which elements they are, so such an array is iterated whole
and its increment w_(k+1) - w_k is what converges: to 0 on the elements the
step sets, to x̄ + Φ_p^T w on the others, which is the adjoint they keep.

Memory: one step's tape and two states (the fixed point, and the state's
value before the loop, which the adjoints of earlier statements may read),
whatever the number of iterations (and three adjoints of the state, four
when iterated by increments);
time: the adjoint iterations, each one step recorded and reversed.
"""

from psyclone.psyir.nodes import (
    Assignment, BinaryOperation, IntrinsicCall, Literal, Reference, WhileLoop)
from psyclone.psyir.symbols import ArrayType, DataSymbol, ScalarType

from adfort import naming
from adfort.derived import is_variable, zero_statements
from adfort.errors import AdfortError
from adfort.exprs import INTEGER_TYPE
from adfort.sections import sets_every_element
from adfort.symbols import new_local
from adfort.tape import written_names
from adfort.transformations.call import _actuals, _formals, overwritten_inputs
from adfort.transformations.checkpoint import _snapshots
from adfort.transformations.reverser import statement_text

BinOp = BinaryOperation.Operator
Intrinsic = IntrinsicCall.Intrinsic


def _int(value):
    return Literal(str(value), INTEGER_TYPE)


def _op(op, a, b):
    return BinaryOperation.create(op, a, b)


def _temporary(reverser, base, adjoint):
    """A local like `adjoint` (allocatable for an array) and the statements
    giving it `adjoint`'s value."""
    ctx = reverser.ctx
    datatype = adjoint.datatype
    if isinstance(datatype, ArrayType):
        scalar = ScalarType(datatype.intrinsic, datatype.precision)
        local = DataSymbol(naming.unique(ctx.table, base, ctx.taken),
                           ArrayType(scalar, [ArrayType.Extent.DEFERRED] * len(datatype.shape)))
        ctx.table.add(local)
        return local, [IntrinsicCall.create(Intrinsic.ALLOCATE, [
            Reference(local), ("mold", Reference(adjoint))]),
            Assignment.create(Reference(local), Reference(adjoint))]
    local = new_local(ctx.table, base, datatype, ctx.taken)
    return local, [Assignment.create(Reference(local), Reference(adjoint))]


def _largest(expr, is_array):
    magnitude = IntrinsicCall.create(Intrinsic.ABS, [expr])
    return IntrinsicCall.create(Intrinsic.MAXVAL, [magnitude]) if is_array else magnitude


def reverse_fixed_point_loop(node, reverser):
    """(recording, returning) statements of the fixed-point loop `node`."""
    from adfort.transformations.loop import reverse_while
    spec = node.adfort_checkpoint
    call = node.loop_body.children[0]
    info = reverser.calls.get(id(call))
    if info is None:
        return reverse_while(node, reverser)
    ctx, tapes = reverser.ctx, reverser.tapes
    table = ctx.table
    text = "DO WHILE (" + statement_text(node.condition) + ")"
    plain = call.copy()
    actuals = _actuals(call, None)
    formals = _formals(info, call, None)
    state = overwritten_inputs(call, call, info, actuals, formals, reverser)
    written = reverser.plan.call_writes.get(id(call), set())
    for name in sorted(info.module_writes):
        if name in ctx.adjoints:
            raise AdfortError(
                f"the step of the fixed-point loop writes the active module variable "
                f"'{name}': adfort iterates the adjoint of a state held in arguments and "
                "local variables only; pass it as an argument, or remove the "
                "'!$adfort fixed-point' directive (the loop is then reversed whole)",
                spec.place)

    # The state's adjoints (x̄), the parameters' (p̄), the other outputs'.
    state_names = {ref.symbol.name.lower() for ref in state}
    x_adj, params, outs = [], [], []
    for ref in state:
        adj = ctx.adjoint_symbol(ref.symbol)
        if adj is not None and adj not in x_adj:
            x_adj.append(adj)
    # The state arrays the step surely sets whole: the others' adjoints are
    # iterated by their increments (the module's docstring).
    whole = {actual.symbol.name.lower() for actual, formal in zip(actuals, formals)
             if type(actual) is Reference and sets_every_element(info.unit, formal)}
    growing = {ctx.adjoint_symbol(ref.symbol).name for ref in state
               if ctx.adjoint_symbol(ref.symbol) is not None
               and isinstance(ctx.adjoint_symbol(ref.symbol).datatype, ArrayType)
               and ref.symbol.name.lower() not in whole}
    for actual, formal in zip(actuals, formals):
        if formal.name.lower() not in info.active or not is_variable(actual):
            continue
        adj = ctx.adjoint_symbol(actual.symbol)
        name = actual.symbol.name.lower()
        if adj is None or name in state_names or adj in params or adj in outs:
            continue
        (outs if name in written else params).append(adj)

    push, pop = _snapshots(reverser, state)
    # The state's value before the loop (the initial guess), which the
    # adjoints of earlier statements may read (cost = sum(x**2) then the
    # loop): saved before it, put back once it is reversed.  (The taping
    # plan counts on the step's returning motion putting back what it
    # changes, as a callee's does; here no step is reversed but the one
    # recorded at the fixed point.)
    saves_rec, saves_ret = _snapshots(reverser, state)
    rec = [*saves_rec, WhileLoop.create(node.condition.copy(), [plain.copy()]), *push]
    rec[len(saves_rec)].preceding_comment = f"fixed-point loop ({spec.text()}, {spec.place})"
    if not x_adj:
        # Nothing active flows through the iterated state.
        return rec, pop + saves_ret

    tapes.open_frame(written_names([call], reverser.plan.call_writes))
    again_push, _ = _snapshots(reverser, state)
    step_rec, step_ret = reverser.block([call])
    needs = tapes.close_frame()
    needs.pop("inline", None)
    _, again_pop = _snapshots(reverser, state)

    precision = x_adj[0].datatype.precision
    real = ScalarType(ScalarType.Intrinsic.REAL, precision)
    count = new_local(table, naming.FIXED_POINT_COUNT, INTEGER_TYPE, ctx.taken)
    change = new_local(table, naming.FIXED_POINT_CHANGE, real, ctx.taken)
    size = new_local(table, naming.FIXED_POINT_SIZE, real, ctx.taken)
    tol = Literal(f"{float(spec.value[0].split('_')[0].replace('d', 'e')):.6e}", real)

    ret = list(pop)
    ret[0].preceding_comment = (
        f"fixed-point loop ({spec.text()}, {spec.place}): w = x_adj + (dPhi/dx)^T w "
        "iterated from the converged state, then p_adj += (dPhi/dp)^T w")
    outs_kept, previous, increment, saved, allocated = {}, {}, {}, {}, []
    for adj in x_adj:
        outs_kept[adj.name], copy = _temporary(reverser, adj.name + "_" +
                                               naming.FIXED_POINT_OUT, adj)
        ret += copy
        previous[adj.name], copy = _temporary(reverser, adj.name + "_" +
                                              naming.FIXED_POINT_PREVIOUS, adj)
        ret += copy
        allocated += [outs_kept[adj.name], previous[adj.name]] \
            if isinstance(adj.datatype, ArrayType) else []
        if adj.name in growing:
            increment[adj.name], copy = _temporary(reverser, adj.name + "_" +
                                                   naming.FIXED_POINT_INCREMENT, adj)
            ret += copy[:1] + zero_statements(increment[adj.name], table, ctx.taken)
            allocated.append(increment[adj.name])
    for adj in params:
        saved[adj.name], copy = _temporary(reverser, adj.name + "_" +
                                           naming.FIXED_POINT_SAVED, adj)
        ret += copy
        if isinstance(adj.datatype, ArrayType):
            allocated.append(saved[adj.name])
    ret += [Assignment.create(Reference(count), _int(0)),
            Assignment.create(Reference(change), Literal("1.0", real)),
            Assignment.create(Reference(size), Literal("0.0", real))]

    body = [Assignment.create(Reference(count), _op(BinOp.ADD, Reference(count), _int(1)))]
    body += again_push + tapes.reserve(needs) + step_rec
    for adj in params + outs:
        body += zero_statements(adj, table, ctx.taken)
    body += step_ret + again_pop
    body += [Assignment.create(Reference(change), Literal("0.0", real)),
             Assignment.create(Reference(size), Literal("0.0", real))]
    for adj in x_adj:
        is_array = isinstance(adj.datatype, ArrayType)
        body.append(Assignment.create(Reference(adj), _op(
            BinOp.ADD, Reference(outs_kept[adj.name]), Reference(adj))))
        if adj.name in growing:
            # The change of the increment w_(k+1) - w_k.
            step = _op(BinOp.SUB, Reference(adj), Reference(previous[adj.name]))
            body += [
                Assignment.create(Reference(change), IntrinsicCall.create(Intrinsic.MAX, [
                    Reference(change), _largest(_op(BinOp.SUB, step.copy(), Reference(
                        increment[adj.name])), is_array)])),
                Assignment.create(Reference(size), IntrinsicCall.create(Intrinsic.MAX, [
                    Reference(size), _largest(Reference(adj), is_array)])),
                Assignment.create(Reference(increment[adj.name]), step),
                Assignment.create(Reference(previous[adj.name]), Reference(adj))]
            continue
        body += [
            Assignment.create(Reference(change), IntrinsicCall.create(Intrinsic.MAX, [
                Reference(change), _largest(_op(BinOp.SUB, Reference(adj),
                                                Reference(previous[adj.name])), is_array)])),
            Assignment.create(Reference(size), IntrinsicCall.create(Intrinsic.MAX, [
                Reference(size), _largest(Reference(adj), is_array)])),
            Assignment.create(Reference(previous[adj.name]), Reference(adj))]
    condition = _op(BinOp.AND,
                    _op(BinOp.LT, Reference(count), _int(spec.value[1])),
                    _op(BinOp.GT, Reference(change), _op(BinOp.MUL, tol, Reference(size))))
    loop = WhileLoop.create(condition, body)
    loop.preceding_comment = "the adjoint iteration, one recorded step from the fixed point"
    ret.append(loop)
    for adj in params:
        ret.append(Assignment.create(Reference(adj), _op(
            BinOp.ADD, Reference(saved[adj.name]), Reference(adj))))
    for adj in x_adj + outs:
        # No adjoint for the initial guess, nor for the other outputs' values
        # before the loop; a state array iterated by increments keeps the
        # last (0 where the step sets it, x_adj + Phi_p^T w elsewhere).
        if adj.name in growing:
            ret.append(Assignment.create(Reference(adj), Reference(increment[adj.name])))
        else:
            ret += zero_statements(adj, table, ctx.taken)
    if allocated:
        ret.append(IntrinsicCall.create(Intrinsic.DEALLOCATE,
                                        [Reference(a) for a in allocated]))
    ret += saves_ret
    reverser.comment(ret, text)
    return rec, ret
