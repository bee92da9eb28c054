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

import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, IntrinsicCall, Literal, Range, Reference)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, DataSymbol, RoutineSymbol, ScalarType)

from adfort import naming
from adfort.deferral import is_deferred, tag_deferred_saves, tag_deferred_split
from adfort.errors import AdfortError, where
from adfort.extents import declared_elements, measured_elements, reached_any
from adfort.pointers import canonical
from adfort.sections import in_caller, section_references
from adfort.reach import reached
from adfort.arrays import expr_rank, symbol_rank
from adfort.derived import (
    is_derived_value, is_variable, value_type, zero_reference, zero_statements)
from adfort.exprs import INTEGER_TYPE, int_literal, real_kind, real_literal
from adfort.optional import callee_formals, matched_formals
from adfort.symbols import new_local
from adfort.transformations.assignment import adjoint_reference
from adfort.transformations.base import ADReverseTrans
from adfort.mpi_analysis import mpi_call_rule
from adfort.transformations.mpi import NONBLOCKING, is_active_mpi, reverse_mpi, reverse_request
from adfort.transformations.building import _assumed_size
from adfort.transformations.reverser import (
    seen_by_callees, enclosing_loop_indices, statement_text, tag_not_rerun)

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
    :param motions: its :class:`RoutineMotions` (None for an opaque one):
        the dummy names of its generated routines, for keyword arguments.
    """

    def __init__(self, unit, names, active, module_writes=(), opaque=False, motions=None):
        self.opaque = opaque
        self.unit = unit
        self.names = names
        self.active = active
        self.module_writes = sorted(module_writes)
        self.dummies = {}
        self.pushes = motions is None or getattr(motions, "pushes", True)
        # Formals whose extent its recording motion measures (adfort.extents).
        self.extents = list(getattr(motions, "extents", ()))
        # Formals its f_rev names at all (None: any): the only inputs a
        # joint caller puts back for it.
        self.rev_reads = getattr(motions, "rev_reads", None)
        # Dummies f_rev leaves as it found them (adfort.taping.restored_on_return).
        self.rev_restores = set(getattr(motions, "rev_restores", ()))
        # Dummies f_ret reads as f_rec left them (None: any), those it puts
        # back, and whether f_rec pushes nothing (set by the container).
        self.exit_reads = getattr(motions, "exit_reads", None)
        self.restores = set(getattr(motions, "restores", ()))
        self.tapeless = False
        if motions is not None:
            for motion, routine in (("rec", motions.recording), ("ret", motions.returning),
                                    ("rev", motions.reversing)):
                self.dummies[motion] = [a.name for a in routine.symbol_table.argument_list]


def _actuals(call, target):
    """The actual arguments, a function's result variable last."""
    actuals = list(call.arguments)
    if target is not None:
        actuals.append(target)
    return actuals


def _formals(callee, call, target):
    """The formals `call`'s actuals (see :func:`_actuals`) go to, in the
    same order: optional arguments the call leaves out have none."""
    formals = matched_formals(call, callee_formals(callee.unit))
    if target is not None:
        formals.append(callee.unit.result)
    return formals


def _generated_call(info, motion, arguments, location):
    """``call f_<motion>(…)`` with `arguments` [(formal, node)] in order.

    A function call that leaves out trailing optional arguments is followed
    by the result (and its adjoint) in the generated routines: those go by
    the names of the generated dummies."""
    every = [f for f in info.unit.formals if f is not info.unit.result]
    if info.unit.result is not None:
        every.append(info.unit.result)
    with_adjoints = motion != "rec"
    position, slots = 0, {}
    for formal in every:
        slots[(formal.name.lower(), False)] = position
        position += 1
        if with_adjoints and formal.name.lower() in info.active:
            slots[(formal.name.lower(), True)] = position
            position += 1
    expected = 0
    passed = []
    for (formal, is_adjoint), node in arguments:
        slot = slots[(formal.name.lower(), is_adjoint)]
        if slot != expected:
            dummies = info.dummies.get(motion)
            if dummies is None:
                raise AdfortError(
                    f"this call to '{info.unit.name}' leaves out optional arguments "
                    "before others it passes (or the function result); its "
                    "user-supplied adjoint cannot take them by keyword: pass them",
                    location)
            passed.append((dummies[slot], node))
        else:
            passed.append(node)
        expected = slot + 1 if slot == expected else -1
    return Call.create(RoutineSymbol(info.names[motion]), passed)


def recording_call_again(assign, info, location):
    """``call f_rec(…, v)`` for ``v = f(…)``, a call to a short function the
    returning motion computes again (:func:`adfort.iterations.cheap_function`),
    or None to compute it as written.  The generated module holds ``f_rec``,
    the same formula, which gfortran can inline there; ``f`` is in the
    user's module, out of its reach (``advection_limiter``'s flux adjoint:
    7 % of the adjoint's time).  Only for an ``f_rec`` that pushes nothing
    and a variable of the function's type and kind.

    :param assign: the Assignment ``v = f(…)`` (its right side a Call).
    :param info: the callee's :class:`CalleeMotions`.
    """
    if info is None or info.opaque or info.pushes or "rec" not in info.dummies:
        return None
    result = info.unit.result
    target = assign.lhs
    if result is None or expr_rank(target) != 0 or not is_variable(target):
        return None
    mine = _scalar_type(target.symbol.datatype)
    theirs = _scalar_type(result.datatype)
    if mine.intrinsic != theirs.intrinsic or \
            str(mine.precision).lower() != str(theirs.precision).lower():
        return None
    call = assign.rhs
    formals = _formals(info, call, target)
    plain = [((f, False), a.copy()) for a, f in zip(_actuals(call, target), formals)]
    return _generated_call(info, "rec", plain, location)


def _adjoint_actual(actual, formal, reverser, prologue, epilogue, by_name=None):
    """The adjoint to pass for `actual`: its own, or a zeroed scratch
    variable (of the actual's shape) when the actual is passive here.

    :param by_name: {lower-case dummy name: actual} of the call, to size
        the scratch of an assumed-size array from the callee's dummy.
    """
    ctx = reverser.ctx
    if is_variable(actual):
        adj = ctx.adjoint_symbol(actual.symbol)
        if adj is not None:
            return adjoint_reference(actual, adj)
        if _assumed_size(actual.symbol) and symbol_rank(formal) > 0 and (
                not isinstance(actual, ArrayReference) or expr_rank(actual) == 0):
            return _dummy_sized_scratch(actual, formal, by_name or {}, ctx, prologue,
                                        epilogue)
        if (isinstance(actual, ArrayReference) and expr_rank(actual) == 0
                and symbol_rank(formal) > 0 and not is_derived_value(actual)):
            return _element_scratch(actual, ctx, prologue, epilogue)
        rank = expr_rank(actual)
        if is_derived_value(actual):
            if rank > 0:
                raise AdfortError(
                    f"the array of derived-type values '{actual.debug_string()}' is "
                    "passive here but passed where the callee differentiates its "
                    "argument: adfort cannot give it an adjoint", where(actual, ctx.filename))
            scratch = new_local(ctx.table, naming.ADJOINT_SCRATCH,
                                ctx.types.adjoint_datatype(value_type(actual)), ctx.taken)
            prologue.extend(zero_statements(scratch, ctx.table, ctx.taken))
            return Reference(scratch)
        return _zeroed_scratch(actual, _scalar_type(value_type(actual)), ctx, prologue,
                               epilogue)
    raise AdfortError(
        f"'{actual.debug_string()}' is passed where the callee differentiates its "
        "argument, but adfort cannot give it an adjoint here: pass a variable",
        where(actual, ctx.filename))


def _aliased_inputs(actuals, formals, info, at_call, ctx):
    """{id(actual): its adjoint symbol} of the actuals whose adjoints get a
    scratch variable: a variable given to several active dummies that the
    callee only reads has its adjoint incremented through each, and two
    dummies must not share storage (gfortran copies a strided section in
    and out: one of the increments came back, half the gradient lost).
    All such read-only occurrences but one get a scratch, all of them when
    a dummy the callee writes is given the same variable too."""
    uses = {}
    for actual, formal in zip(actuals, formals):
        actual = at_call.get(id(actual), actual)
        if formal is None or formal.name.lower() not in info.active or \
                not is_variable(actual) or is_derived_value(actual) or \
                getattr(actual, "member", None) is not None:
            continue    # (components of one structure: other storage)
        adj = ctx.adjoint_symbol(actual.symbol)
        if adj is not None:
            written = formal is getattr(info.unit, "result", None) or not hasattr(
                info.unit, "writes_formal") or info.unit.writes_formal(formal)
            uses.setdefault(id(adj), []).append((actual, adj, written))
    found = {}
    for group in uses.values():
        if len(group) < 2:
            continue
        # Only a section may be copied in and out (an element or a whole
        # array is passed by address: sharing its adjoint loses nothing).
        inputs = [(actual, adj) for actual, adj, written in group
                  if not written and _section(actual)]
        keep_one = len(inputs) == len(group)
        for actual, adj in inputs[1:] if keep_one else inputs:
            found[id(actual)] = adj
    return found


def _section(actual):
    return isinstance(actual, ArrayReference) and any(
        isinstance(index, Range) for index in actual.indices)


def _aliased_adjoint(actual, adj, ctx, prologue, epilogue):
    """A zeroed scratch adjoint for `actual`, a section of a variable the
    call is also given in another argument; the epilogue adds it to the
    adjoint of the section."""
    target = adjoint_reference(actual, adj)
    added = []
    scratch = _zeroed_scratch(actual, _scalar_type(adj.datatype), ctx, prologue, added)
    epilogue.append(Assignment.create(target, BinaryOperation.create(
        BinaryOperation.Operator.ADD, target.copy(), scratch.copy())))
    epilogue.extend(added)
    return scratch


def _zeroed_scratch(actual, element, ctx, prologue, epilogue):
    """A scratch variable of `actual`'s shape and type `element`, zeroed in
    `prologue` (allocated there and freed in `epilogue` for an array)."""
    rank = expr_rank(actual)
    if rank == 0:
        scratch = new_local(ctx.table, naming.ADJOINT_SCRATCH, element, ctx.taken)
    else:
        scratch = new_local(ctx.table, naming.ADJOINT_SCRATCH, ArrayType(
            element, [ArrayType.Extent.DEFERRED] * rank), ctx.taken)
        extents = [IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [
            actual.copy(), ("dim", Literal(str(d), INTEGER_TYPE))])
            for d in range(1, rank + 1)]
        prologue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
            ArrayReference.create(scratch, extents)]))
        epilogue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [
            Reference(scratch)]))
    prologue.append(Assignment.create(Reference(scratch), real_literal(0, real_kind(scratch))))
    return Reference(scratch)


def _dummy_sized_scratch(actual, formal, by_name, ctx, prologue, epilogue):
    """A zeroed scratch adjoint for a passive assumed-size array (``w``) or
    an element of one starting the array the callee sees (``w(k)``), given
    to a dummy the callee differentiates (it does for another call): as
    many elements as the callee's explicit-shape dummy has, its bounds
    evaluated with the call's actuals; what the callee adds to it is
    dropped.  The actual's own size is unknown (``SIZE`` of ``w(*)`` is
    not Fortran).

    :raises AdfortError: when the dummy is assumed-size too, or its bounds
        need more than literals and the callee's other dummies.
    """
    count = declared_elements(formal, by_name)
    if count is None:
        raise AdfortError(
            f"'{actual.debug_string()}' is passive here, inside the assumed-size array "
            f"'{actual.symbol.name}', but passed to the dummy '{formal.name}' that the "
            "callee differentiates (another call gives it an active value): adfort cannot "
            "size a zero adjoint for it; declare that dummy or "
            f"'{actual.symbol.name}' with explicit bounds", where(actual, ctx.filename))
    scratch = new_local(ctx.table, naming.ADJOINT_SCRATCH, ArrayType(
        _scalar_type(actual.symbol.datatype), [ArrayType.Extent.DEFERRED]), ctx.taken)
    prologue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
        ArrayReference.create(scratch, [IntrinsicCall.create(
            IntrinsicCall.Intrinsic.MAX, [count, int_literal(0)])])]))
    epilogue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [
        Reference(scratch)]))
    prologue.append(Assignment.create(Reference(scratch), real_literal(0, real_kind(scratch))))
    return Reference(scratch)


def _element_scratch(actual, ctx, prologue, epilogue):
    """A zeroed scratch array shaped like the whole array of `actual`, an
    element given to an array dummy (sequence association): its element at
    the same subscripts starts what the callee sees."""
    base = actual.symbol
    if _assumed_size(base):
        raise AdfortError(
            f"'{actual.debug_string()}' is passive here but starts the array the callee "
            f"differentiates, inside the assumed-size array '{base.name}': adfort cannot "
            "size a zero adjoint for it; declare the array with explicit bounds",
            where(actual, ctx.filename))
    rank = symbol_rank(base)
    scratch = new_local(ctx.table, naming.ADJOINT_SCRATCH, ArrayType(
        _scalar_type(base.datatype), [ArrayType.Extent.DEFERRED] * rank), ctx.taken)
    prologue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
        Reference(scratch), ("mold", Reference(base))]))
    epilogue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [
        Reference(scratch)]))
    prologue.append(Assignment.create(Reference(scratch), real_literal(0, real_kind(scratch))))
    return ArrayReference.create(scratch, [i.copy() for i in actual.indices])


def _scalar_type(datatype):
    element = getattr(datatype, "elemental_type", datatype)
    return ScalarType(element.intrinsic, element.precision)


def reverse_call(call, reverser, target=None):
    """Return (recording, returning) statements for a call.

    :param call: the Call (a statement, or the right-hand side of ``target =
        f(…)`` for a function).
    :param target: the Reference a function's value is assigned to.
    """
    info = reverser.calls[id(call)]
    stmt = call if target is None else call.parent
    text = statement_text(stmt)
    location = where(stmt, reverser.ctx.filename)
    split = info is not None and not info.opaque and \
        reverser.schedule.is_split(reverser.routine_name, info.unit.name)
    saves = reverser.call_saves(stmt, split=split and not is_deferred(stmt))
    actuals = _actuals(call, target)
    # The returning motion must name the same elements the call was given,
    # even if the call changed the subscripts (call f(k, a(k)) with k
    # overwritten): those subscripts are kept as they were at the call.
    written = reverser.plan.call_writes.get(id(stmt), set())
    keep_rec, keep_ret, at_call, subscripts = _subscripts_at_call(actuals, written, reverser)
    # Active variables the call sets to passive values: their adjoints
    # (of the values they had before) are zero from here back.
    clears = []
    for actual in reverser.clears.get(id(stmt), []):
        actual = at_call.get(id(actual), actual)
        adj = adjoint_reference(actual, reverser.ctx.adjoint_symbol(actual.symbol))
        if is_derived_value(actual):
            clears.extend(zero_reference(adj, value_type(actual)))
        else:
            clears.append(Assignment.create(adj, real_literal(0, real_kind(adj.symbol))))
    if info is None:  # a passive call (or MPI's): it runs, nothing to reverse
        rec, ret_after = _saved_around(saves)
        rec.extend(keep_rec)
        adjoint = []
        if is_active_mpi(call, reverser):
            # Before the call leaves the routine's tree: the symbols of the
            # constants it names are found from there.
            adjoint = reverse_request(call, reverser) \
                if mpi_call_rule(call).kind in NONBLOCKING else reverse_mpi(call, reverser)
            reverser.comment(adjoint, text)
        rec.append(stmt.detach())
        return rec, keep_ret + clears + adjoint + _as_at_call(ret_after, subscripts)
    formals = _formals(info, call, target)
    prologue, with_adjoints, epilogue = [], [], []
    scratch_for = _aliased_inputs(actuals, formals, info, at_call, reverser.ctx)
    by_name = {f.name.lower(): at_call.get(id(a), a)
               for a, f in zip(actuals, formals) if f is not None}
    for actual, formal in zip(actuals, formals):
        actual = at_call.get(id(actual), actual)
        with_adjoints.append(((formal, False), actual.copy()))
        if formal.name.lower() in info.active:
            if id(actual) in scratch_for:
                with_adjoints.append(((formal, True), _aliased_adjoint(
                    actual, scratch_for[id(actual)], reverser.ctx, prologue, epilogue)))
                continue
            with_adjoints.append(((formal, True), _adjoint_actual(
                actual, formal, reverser, prologue, epilogue, by_name)))
    plain = [((f, False), a.copy()) for a, f in zip(actuals, formals)]
    caller, callee = reverser.routine_name, info.unit.name
    loop_indices = enclosing_loop_indices(stmt)
    if not info.opaque and reverser.schedule.is_split(caller, callee):
        rec, ret_after = _saved_around(saves)
        rec.extend(keep_rec)
        rec_call = _generated_call(info, "rec", plain, location)
        rec.append(rec_call)
        if id(stmt) in reverser.dead:
            # f_rev's re-run leaves out a call whose reversal needs no run
            # of it (adfort.rerun).
            tag_not_rerun([rec_call])
        _measured_extents(rec_call, stmt, info, actuals, formals, reverser)
        _declared_extents(rec_call, stmt, info, actuals, formals, reverser)
        # f_rec may have used the room this routine reserved on shared tapes.
        if info.pushes:
            rec.extend(reverser.tapes.after_call())
        stmt.detach()
        ret_call = _generated_call(info, "ret", with_adjoints, location)
        if is_deferred(stmt):
            # r_rev runs f_rev here instead (adfort.deferral).
            tag_deferred_split(rec_call, ret_call,
                               _generated_call(info, "rev", [(key, node.copy()) for key, node
                                                             in with_adjoints], location))
        ret = clears + prologue + [ret_call] + epilogue
    else:
        # Joint: f advances now and is reversed whole later, from the inputs
        # it had; those it overwrites are put back first.  Constants, DO
        # variables of enclosing loops and the routine's intent(in)
        # arguments cannot be overwritten.
        put_back = overwritten_inputs(call, stmt, info, actuals, formals, reverser,
                                      for_rev=True)
        # A value the caller saves anyway is not saved twice: it is pushed
        # last, read back before f_rev (its tape room kept, so f_rev's own
        # entries go above it) and popped after.
        shared = {text for text, _, _ in saves}
        inputs = [reverser.tapes.save(ref) for ref in put_back
                  if ref.debug_string().lower() not in shared]
        again = [t for t, _, _ in saves if t in {r.debug_string().lower() for r in put_back}]
        rec, ret_after = _saved_around([t for t in saves if t[0] not in again]
                                       + [t for t in saves if t[0] in again])
        # Put back once, not again after f_rev, what nothing reads before
        # the same call an iteration earlier puts it back itself.
        # Nor what f_rev leaves as it found it: the values it was given back.
        dead = reverser.dead_restores.get(id(stmt), set()) | _left_by_rev(info, actuals,
                                                                          formals)
        once = bool(again) and id(stmt) not in reverser.dead and all(
            re.match(r"\w+", t).group(0) in dead for t in again)
        if once:
            _, ret_after = _saved_around([t for t in saves if t[0] not in again])
        for save, _ in inputs:
            rec.extend(save)
        rec.extend(keep_rec)
        rec.append(stmt.detach())
        _declared_extents(call, stmt, info, actuals, formals, reverser)
        ret = [s for _, restore in reversed(inputs) for s in restore]
        if again:
            kept = [s for _, _, restore in reversed([t for t in saves if t[0] in again])
                    for s in restore]
            ret += kept if once else [s.copy() for s in kept] + _undo_pops(kept, reverser.tapes)
        if is_deferred(stmt):
            # r_rev runs f_rev on the inputs as they are (adfort.deferral):
            # nothing is put back around it there.
            tag_deferred_saves(ret + [s for save, _ in inputs for s in save])
        if id(stmt) in reverser.dead:
            # The re-run leaves the call out: no inputs to put back for
            # f_rev.  What the caller saves around the call stays: f_rev
            # may change those arguments too (the results its adjoint reads).
            tag_not_rerun([stmt] + [s for save, restore in inputs for s in save + restore])
        ret = clears + _as_at_call(ret, subscripts) + prologue + [
            _generated_call(info, "rev", with_adjoints, location)] + epilogue
    if is_deferred(stmt):
        tag_deferred_saves([s for _, save, restore in saves for s in save + restore]
                           + ret_after)
    ret = keep_ret + ret + _as_at_call(ret_after, subscripts)
    reverser.comment(ret, text)
    return rec, ret


def overwritten_inputs(call, stmt, info, actuals, formals, reverser, for_rev=False):
    """References to what the call overwrites that the callee reads on
    entry: what must be put back for it to run again from the same inputs
    (the joint schedule; the snapshots of a checkpointed loop's step).
    Constants, DO variables of enclosing loops and the routine's intent(in)
    arguments cannot be overwritten.

    :param for_rev: for the callee's ``f_rev`` (joint): only the inputs it
        names (a linear callee's f_rev runs nothing of ``f`` again)."""
    written = reverser.plan.call_writes.get(id(stmt), set())
    loop_indices = enclosing_loop_indices(stmt)
    put_back = []
    alias = reverser.plan.alias
    for actual, formal in zip(actuals, formals):
        if formal is info.unit.result:
            continue
        if not (formal.interface.access not in (_OUT, ArgumentInterface.Access.READ)
                and is_variable(actual) and info.unit.reads_on_entry(formal)):
            continue
        if for_rev and info.rev_reads is not None and \
                formal.name.lower() not in info.rev_reads:
            continue
        name = actual.symbol.name.lower()
        if name in alias:
            # A pointer alias (col => t(:, i)): the call overwrites the
            # target, which the caller keeps whole (its writes are the
            # target's): put that back.
            storage = canonical(name, alias)
            if storage in written:
                put_back.append(Reference(stmt.scope.symbol_table.lookup(storage)))
        elif name in written and name not in loop_indices:
            sections = in_caller(actual, formal, info.unit, call, reverser.fixed) \
                if reverser.fixed is not None and name not in info.module_writes else None
            if sections is not None:
                put_back.extend(section_references(actual, sections))
            else:
                put_back.append(reached(actual, formal, info.unit, call, written)
                                or _sequence_base(actual, formal, reverser.ctx.filename))
    for name in info.module_writes:
        # (written by the callee, or by a routine it calls that alone
        # sees it)
        found = seen_by_callees(info.unit, name)
        if found is None:
            raise AdfortError(
                f"internal error: '{call.routine.name}' overwrites the module "
                f"variable '{name}' and adfort cannot find its declaration to put "
                "it back; please report this with the input",
                where(call, reverser.ctx.filename))
        put_back.extend(reverser.module_saved(stmt, info, found[1], name))
    return put_back


def _measured_extents(call, stmt, info, actuals, formals, reverser):
    """Pass the callee's recording motion integers to hand back the
    extents it measures of its assumed-size dummies, and note on `call`
    (``adfort_extents``: [(actual, elements assigned, guard)]) those of
    vector dummies, through which the caller measures its own arrays
    (:mod:`adfort.extents`); ``reverser.measured_calls`` keeps them by the
    call statement."""
    found = []
    for name in info.extents:
        formal = next(f for f in formals if f.name.lower() == name)
        extent = new_local(reverser.ctx.table, naming.extent(formal.name), INTEGER_TYPE.copy(),
                           reverser.ctx.taken)
        call.addchild(Reference(extent))
        actual = next((a for a, f in zip(actuals, formals) if f is formal), None)
        if actual is None or not is_variable(actual):
            continue
        # (The callee's bounds in the caller's terms: its dummies' actuals.)
        by_name = dict(zip([f.name.lower() for f in formals], actuals))
        count = measured_elements(formal, extent, by_name)
        if count is not None:
            found.append((actual.copy(), count, reached_any(formal, extent)))
    call.adfort_extents = list(getattr(call, "adfort_extents", [])) + found
    reverser.measured_calls.setdefault(id(stmt), []).extend(found)


def _declared_extents(call, stmt, info, actuals, formals, reverser):
    """Note on `call` the arrays it is given whose dummies have explicit
    bounds (F77's ``y(1)``, ``w(n)``): the callee assigns at most that many
    elements from the actual on (its bounds evaluated with the actuals)."""
    found = []
    for actual, formal in zip(actuals, formals):
        if not is_variable(actual) or formal is info.unit.result:
            continue
        if symbol_rank(formal) == 0:
            # An element given to a scalar dummy: that element alone.
            count = int_literal(1) if isinstance(actual, ArrayReference) else None
        else:
            count = declared_elements(formal, dict(zip(
                [f.name.lower() for f in formals], actuals)))
        if count is not None:
            found.append((actual.copy(), count, None))
    call.adfort_extents = list(getattr(call, "adfort_extents", [])) + found
    reverser.measured_calls.setdefault(id(stmt), []).extend(found)


def _saved_around(saves):
    """(recording, returning) statements of the (text, save, restore)
    triples `saves`: pushed in order, popped in reverse."""
    rec, ret = [], []
    for _, save, restore in saves:
        rec.extend(save)
        ret = restore + ret
    return rec, ret


def _undo_pops(restore, tapes):
    """Statements moving the tops of dynamic tapes back up by what the
    `restore` statements moved them down: the values stay on the tape."""
    tops = {t.top.name.lower() for t in tapes.tapes if t.dynamic}
    undo = []
    for stmt in restore:
        if (isinstance(stmt, Assignment) and type(stmt.lhs) is Reference
                and stmt.lhs.symbol.name.lower() in tops
                and isinstance(stmt.rhs, BinaryOperation)
                and stmt.rhs.operator == BinaryOperation.Operator.SUB
                and type(stmt.rhs.children[0]) is Reference
                and stmt.rhs.children[0].symbol is stmt.lhs.symbol):
            undo.append(Assignment.create(stmt.lhs.copy(), BinaryOperation.create(
                BinaryOperation.Operator.ADD, stmt.lhs.copy(),
                stmt.rhs.children[1].copy())))
    return undo


def _sequence_base(actual, formal, filename):
    """What a joint call may overwrite through `actual`: the actual itself,
    or, for an array element given to an array dummy (``call dscal(m, t,
    a(k+1, k), 1)``, sequence association), the whole array it starts in,
    as the callee may reach any element after it."""
    if not isinstance(actual, ArrayReference) and _assumed_size(actual.symbol):
        raise AdfortError(
            f"'{actual.symbol.name}' is an assumed-size array the callee overwrites: a "
            "joint reversal of this call must keep the elements it overwrites but cannot "
            "know how many there are; reverse the call split (--link CALLER:CALLEE=split, "
            f"the default for such calls) or declare '{actual.symbol.name}' with explicit "
            "bounds", where(actual, filename))
    if not (isinstance(actual, ArrayReference) and symbol_rank(formal) > 0
            and expr_rank(actual) == 0):
        return actual
    if _assumed_size(actual.symbol):
        raise AdfortError(
            f"'{actual.debug_string()}' starts the array the callee works on, inside "
            f"the assumed-size array '{actual.symbol.name}': a joint reversal of this "
            "call must keep the elements it overwrites but cannot know how many there "
            "are; reverse the call split (--link CALLER:CALLEE=split) or declare "
            f"'{actual.symbol.name}' with explicit bounds", where(actual, filename))
    return Reference(actual.symbol)


def _shape_inquiry(ref):
    """Whether `ref` is the array of LBOUND/UBOUND/SIZE/SHAPE (as in the
    bounds of ``a(:, i)``): a call changing the array's values leaves its
    shape alone."""
    parent = ref.parent
    return (isinstance(parent, IntrinsicCall)
            and parent.intrinsic.name in ("LBOUND", "UBOUND", "SIZE", "SHAPE")
            and parent.arguments and parent.arguments[0] is ref)


def _subscripts_at_call(actuals, written, reverser):
    """Keep the subscripts of `actuals` that the call may overwrite.

    :returns: (recording statements pushing their values, returning
        statements popping them into locals, {id(actual): copy of the actual
        subscripted with those locals}).
    """
    names = sorted({ref.symbol.name.lower() for actual in actuals
                    if isinstance(actual, ArrayReference)
                    for index in actual.indices for ref in index.walk(Reference)
                    if not _shape_inquiry(ref)} & written)
    if not names:
        return [], [], {}, {}
    ctx = reverser.ctx
    symbols = []
    for name in names:
        symbol = ctx.table.lookup(name, otherwise=None)
        if (not isinstance(symbol, DataSymbol) or symbol.is_unresolved) \
                and ctx.module_variable(name):
            # Seen through a wildcard USE: its declaration gives the type.
            symbol = ctx.module_variable(name)[1]
        if symbol is None or expr_rank(Reference(symbol)) > 0:
            raise AdfortError(
                f"the call overwrites '{name}', which a subscript of its own arguments "
                "uses: adfort cannot keep the subscript's value; pass the element "
                "through a variable", where(actuals[0], ctx.filename))
        symbols.append(symbol)
    tape = reverser.tapes.for_value(Reference(symbols[0]))
    rec, token = tape.push([Reference(s) for s in symbols])
    pops, values = tape.pop(token)
    kept, ret = {}, list(pops)
    for symbol, value in zip(symbols, values):
        local = new_local(ctx.table, naming.at_call(symbol.name), symbol.datatype, ctx.taken)
        ret.append(Assignment.create(Reference(local), value))
        kept[symbol.name.lower()] = local
    at_call = {}
    for actual in actuals:
        if not isinstance(actual, ArrayReference):
            continue
        copy = actual.copy()
        for index in copy.indices:
            for ref in index.walk(Reference):
                if ref.symbol.name.lower() in kept:
                    ref.symbol = kept[ref.symbol.name.lower()]
        at_call[id(actual)] = copy
    return rec, ret, at_call, kept


def _as_at_call(statements, kept):
    """`statements` (restores of values saved before a call) naming the
    elements by the subscripts' values at the call (`kept`: {name: local}):
    the call may have changed the subscripts (``call bump(k, h(k))``), and
    what was saved is the element the subscript named then."""
    if kept:
        for stmt in statements:
            for array in stmt.walk(ArrayReference):
                for index in array.indices:
                    for ref in index.walk(Reference):
                        if ref.symbol.name.lower() in kept:
                            ref.symbol = kept[ref.symbol.name.lower()]
    return statements


class ADReverseCallTrans(ADReverseTrans):
    """Adjoint of a call to a subroutine or function."""

    node_type = Call

    def reverse(self, node, reverser, target=None):
        """Return the (recording, returning) statements of `node`."""
        self.validate(node)
        return reverse_call(node, reverser, target)


def _left_by_rev(info, actuals, formals):
    """Lower-case names of the caller's variables passed to the call whose
    ``f_rev`` leaves them as it found them: every dummy they go to is
    put back by it (or never changed), and the callee writes none as a
    module variable."""
    names, changed = set(), set()
    for actual, formal in zip(actuals, formals):
        if not is_variable(actual):
            continue
        name = actual.symbol.name.lower()
        names.add(name)
        if formal is None or not formal.is_argument or (
                formal.name.lower() not in info.rev_restores
                and info.unit.writes_formal(formal)):
            changed.add(name)
    written = {w.split("::")[-1].strip().lower() for w in info.module_writes}
    return names - changed - written
