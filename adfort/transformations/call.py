"""Adjoint of a call to a differentiated routine (or of ``v = f(…)`` for a
differentiated function), under the call's reversal schedule.

- split: the recording motion calls ``f_rec``, the returning motion
  ``f_ret``; ``f``'s tape entries live from one to the other.
- joint: the recording motion calls ``f`` itself; the returning motion puts
  back the inputs ``f`` overwrote and calls ``f_rev``, which records and
  returns at once.

Either way the caller saves, around the call, the values the call may
overwrite that its own adjoint still needs, as for any other overwrite.
"""

from psyclone.psyir.nodes import ArrayReference, Assignment, Call, Reference
from psyclone.psyir.symbols import ArgumentInterface, RoutineSymbol

from adfort import naming
from adfort.errors import AdfortError, where
from adfort.exprs import real_kind, real_literal
from adfort.symbols import new_local
from adfort.transformations.assignment import adjoint_reference
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.reverser import statement_text

_OUT = ArgumentInterface.Access.WRITE


class CalleeMotions:
    """What a call site needs to know about a differentiated callee.

    :param unit: the callee's :class:`adfort.interprocedural.Unit`.
    :param names: its generated routine names (``rec``, ``ret``, ``rev``).
    :param active: lower-case names of its formals with adjoints, in order
        (a function's result last, when active).
    :param module_writes: module variables it (or what it calls) writes.
    :param opaque: a routine without source, with a user-supplied ``_rev``
        (always reversed joint).
    """

    def __init__(self, unit, names, active, module_writes=(), opaque=False):
        self.opaque = opaque
        self.unit = unit
        self.names = names
        self.active = active
        self.module_writes = sorted(module_writes)


def _actuals(call, target):
    """The actual arguments, a function's result variable last."""
    actuals = list(call.arguments)
    if target is not None:
        actuals.append(target)
    return actuals


def _formals(callee):
    formals = [f for f in callee.unit.formals if f is not callee.unit.result]
    if callee.unit.result is not None:
        formals.append(callee.unit.result)
    return formals


def _adjoint_actual(actual, reverser, prologue):
    """The adjoint to pass for `actual`: its own, or a zeroed scratch
    variable when the actual is passive at this call."""
    ctx = reverser.ctx
    if type(actual) in (Reference, ArrayReference):
        adj = ctx.adjoint_symbol(actual.symbol)
        if adj is not None:
            return adjoint_reference(actual, adj)
        symbol = actual.symbol
        if isinstance(actual, ArrayReference) or not hasattr(symbol.datatype, "shape"):
            scratch = new_local(ctx.table, naming.ADJOINT_SCRATCH,
                                _scalar_type(symbol.datatype), ctx.taken)
            prologue.append(Assignment.create(Reference(scratch),
                                              real_literal(0, real_kind(scratch))))
            return Reference(scratch)
    raise AdfortError(
        f"'{actual.debug_string()}' is passed where the callee differentiates its "
        "argument, but adfort cannot give it an adjoint here: pass a variable",
        where(actual, ctx.filename))


def _scalar_type(datatype):
    from psyclone.psyir.symbols import ScalarType
    return ScalarType(datatype.intrinsic, datatype.precision)


def reverse_call(call, reverser, target=None):
    """Return (recording, returning) statements for a call.

    :param call: the Call (a statement, or the right-hand side of ``target =
        f(…)`` for a function).
    :param target: the Reference a function's value is assigned to.
    """
    info = reverser.calls[id(call)]
    stmt = call if target is None else call.parent
    text = statement_text(stmt)
    rec, ret_after = [], []
    for save, restore in reverser.call_saves(stmt):
        rec.extend(save)
        ret_after = restore + ret_after
    actuals = _actuals(call, target)
    if info is None:  # a passive call: it runs, nothing to reverse
        rec.append(stmt.detach())
        return rec, ret_after
    formals = _formals(info)
    prologue, with_adjoints = [], []
    for actual, formal in zip(actuals, formals):
        with_adjoints.append(actual.copy())
        if formal.name.lower() in info.active:
            with_adjoints.append(_adjoint_actual(actual, reverser, prologue))
    plain = [a.copy() for a in actuals]
    caller, callee = reverser.routine_name, info.unit.name
    if not info.opaque and reverser.schedule.is_split(caller, callee):
        rec.append(Call.create(RoutineSymbol(info.names["rec"]), plain))
        # f_rec may have used the room this routine reserved on shared tapes.
        rec.extend(reverser.tapes.after_call())
        stmt.detach()
        ret = prologue + [Call.create(RoutineSymbol(info.names["ret"]), with_adjoints)]
    else:
        # Joint: f advances now and is reversed whole later, from the inputs
        # it had; those it overwrites are put back first.
        inputs = []
        for actual, formal in zip(actuals, formals):
            if formal is info.unit.result:
                continue
            if formal.interface.access not in (_OUT, ArgumentInterface.Access.READ):
                inputs.append(reverser.tapes.save(actual))
        for name in info.module_writes:
            found = info.unit.module_variable(name)
            if found is not None:
                inputs.append(reverser.tapes.save(Reference(found[1])))
        for save, _ in inputs:
            rec.extend(save)
        rec.append(stmt.detach())
        ret = [s for _, restore in reversed(inputs) for s in restore]
        ret += prologue + [Call.create(RoutineSymbol(info.names["rev"]), with_adjoints)]
    ret += ret_after
    reverser.comment(ret, text)
    return rec, ret


class ADReverseCallTrans(ADReverseTrans):
    """Adjoint of a call to a subroutine or function."""

    node_type = Call

    def reverse(self, node, reverser, target=None):
        """Return the (recording, returning) statements of `node`."""
        self.validate(node)
        return reverse_call(node, reverser, target)
