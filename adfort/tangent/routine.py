"""Tangent-mode differentiation of one routine: ``r_fwd``.

``r_fwd`` runs the statements of ``r`` in their order, under the primal
control flow, each assignment to a variable carrying a tangent preceded by
the assignment of that tangent (from the old values of the right-hand
side), each call to a routine with active arguments made to its own
``_fwd``.  No tape: nothing is reversed.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, IfBlock, IntrinsicCall, Literal, Reference)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, AutomaticInterface, ScalarType)

from adfort import naming
from adfort.arrays import expr_rank, symbol_rank
from adfort.derived import is_derived_value, is_variable
from adfort.errors import AdfortError, where
from adfort.exprs import INTEGER_TYPE, real_kind, real_literal
from adfort.optional import optional_names
from adfort.symbols import new_local
from adfort.tangent.expression import (
    TangentContext, assignment_tangent, expression_tangent)
from adfort.tangent.mpi import communication_calls, mpi_tangents
from adfort.transformations.allocation import allocation_arguments
from adfort.transformations.building import (
    _argument_symbols, _assumed_shape, _assumed_size, _make_routine)
from adfort.transformations.call import _actuals, _formals, _generated_call

_IN = ArgumentInterface.Access.READ
_OUT = ArgumentInterface.Access.WRITE


class TangentSpec:
    """How to differentiate one routine in tangent mode.

    :param roles: lower-case names of the arguments (or a function's result)
        whose tangents are arguments of ``r_fwd``.
    :param active: lower-case names of the routine's active variables.
    :param module_tangents: {name: DataSymbol} of the tangents of the active
        module variables it uses.
    :param calls: {id(Call): :class:`CalleeMotions` or None}.
    :param clears: {id(call statement): actual arguments the call overwrites
        with values carrying no derivative}.
    :param zeroed_modules: names of the module variables whose tangents
        ``r_fwd`` sets to zero on entry (active, but neither dependent nor
        independent: their values on entry are constants).
    :param callee: whether the routine is called by another differentiated one.
    :param module_variable: as for :class:`adfort.transformations.routine.UnitSpec`.
    :param attributes: {name: "POINTER"/"TARGET"} of its variables.
    :param communicating: whether derivatives flow through MPI communication.
    :param passive_routine: ``passive_routine(name)``: whether the user
        declared routine `name` passive.
    """

    def __init__(self, roles, active, module_tangents, calls, clears, zeroed_modules=(),
                 callee=False, module_variable=None, attributes=None, communicating=False,
                 passive_routine=lambda name: False):
        self.roles = list(roles)
        self.active = set(active)
        self.module_tangents = dict(module_tangents)
        self.calls = calls
        self.clears = clears
        self.zeroed_modules = set(zeroed_modules)
        self.callee = callee
        self.module_variable = module_variable or (lambda name, symbol=None: None)
        self.attributes = dict(attributes or {})
        self.communicating = communicating
        self.passive_routine = passive_routine
        #: statements the routine starts with
        self.entry = []


class TangentMotions:
    """The generated routine of one routine in tangent mode (``r_fwd``), in
    the shape :func:`adfort.transformations.assemble.assemble` takes."""

    dynamic = False
    tapes = ()
    tape_sizes = {}
    extents = ()
    pushes = False

    def __init__(self, forward):
        self.forward = forward
        # CalleeMotions reads the dummies of these motions.
        self.recording = self.returning = self.reversing = forward

    @property
    def routines(self):
        return [self.forward]


def _zero(symbol):
    kind = getattr(getattr(symbol.datatype, "elemental_type", symbol.datatype),
                   "precision", None)
    return Assignment.create(Reference(symbol), real_literal(0, real_kind(symbol)
                                                             if kind is not None else None))


def _zeroed_module_tangent(tangent, found):
    """The statements zeroing the tangent of an active module variable on
    entry; an allocatable one is first allocated like the variable, when it
    is allocated (a tape of reverse mode, in r_hvp)."""
    if not getattr(tangent.datatype, "is_allocatable", False) or found is None:
        return [_zero(tangent)]
    primal = found[1]
    allocated = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATED, [Reference(tangent)])
    fresh = IfBlock.create(allocated, [IntrinsicCall.create(
        IntrinsicCall.Intrinsic.DEALLOCATE, [Reference(tangent)])])
    return [IfBlock.create(
        IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATED, [Reference(primal)]),
        [fresh, IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
            Reference(tangent), ("mold", Reference(primal))]), _zero(tangent)])]


def _insert_before(node, statements):
    parent, index = node.parent, node.position
    for offset, stmt in enumerate(statements):
        parent.addchild(stmt, index + offset)


def _insert_after(node, statements):
    parent, index = node.parent, node.position
    for offset, stmt in enumerate(statements):
        parent.addchild(stmt, index + 1 + offset)


def _intrinsic_name(call):
    """The upper-case name of an intrinsic call (PSyclone's copy of a routine
    may hold an intrinsic subroutine under a plain routine symbol)."""
    return call.routine.name.upper()


def _scalar_type(datatype):
    element = getattr(datatype, "elemental_type", datatype)
    return ScalarType(element.intrinsic, element.precision)


class ADTangentCallTrans:
    """A call to a routine with active arguments becomes a call to its
    ``_fwd``: each active formal's actual followed by its tangent (a zero
    local when the actual is passive here)."""

    def validate(self, call, ctx, info):
        if info.opaque and "fwd" not in info.names:
            raise AdfortError(
                f"'{call.routine.name}' has a user-supplied adjoint but no tangent: "
                f"give '{naming.forward(call.routine.name)}' in the --adjoint-lib file "
                "for tangent mode", where(call, ctx.filename))

    def apply(self, call, ctx, info, target=None):
        """Return the statements replacing the call (its prologue, the call,
        its epilogue).

        :param target: the Reference a function's value is assigned to.
        """
        self.validate(call, ctx, info)
        prologue, epilogue = [], []
        arguments = []
        for actual, formal in zip(_actuals(call, target), _formals(info, call, target)):
            if formal is None:
                continue
            arguments.append(((formal, False), actual.copy()))
            if formal.name.lower() in info.active:
                arguments.append(((formal, True), _tangent_actual(actual, formal, ctx,
                                                                  prologue, epilogue)))
        fwd = _generated_call(info, "fwd", arguments, where(call, ctx.filename))
        return prologue + [fwd] + epilogue


def _tangent_actual(actual, formal, ctx, prologue, epilogue):
    """The tangent to pass for `actual`: its own, or a zero local of its shape."""
    if is_variable(actual) and ctx.is_active(actual):
        return ctx.tangent_reference(actual)
    if is_variable(actual) and is_derived_value(actual):
        raise AdfortError(f"the derived-type value '{actual.debug_string()}' is passed "
                          "where the callee differentiates its argument: not supported in "
                          "tangent mode yet", where(actual, ctx.filename))
    if not is_variable(actual) and not isinstance(actual, Literal):
        raise AdfortError(f"'{actual.debug_string()}' is passed where the callee "
                          "differentiates its argument: pass a variable",
                          where(actual, ctx.filename))
    element = _scalar_type(formal.datatype) if isinstance(actual, Literal) else \
        _scalar_type(actual.symbol.datatype)
    name = naming.tangent_zero(formal.name)
    base_rank = symbol_rank(actual.symbol) if is_variable(actual) else 0
    if is_variable(actual) and isinstance(actual, ArrayReference) and \
            expr_rank(actual) == 0 and symbol_rank(formal) > 0:
        # An element starting an array dummy: a zero array like the whole one.
        if _assumed_size(actual.symbol):
            raise AdfortError(
                f"'{actual.debug_string()}' is passive here but starts the array the "
                f"callee differentiates, inside the assumed-size array "
                f"'{actual.symbol.name}': declare it with explicit bounds",
                where(actual, ctx.filename))
        zero = new_local(ctx.table, name, ArrayType(element, [ArrayType.Extent.DEFERRED]
                                                    * base_rank), ctx.taken)
        prologue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
            Reference(zero), ("mold", Reference(actual.symbol))]))
        prologue.append(_zero(zero))
        epilogue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE,
                                             [Reference(zero)]))
        return ArrayReference.create(zero, [i.copy() for i in actual.indices])
    rank = expr_rank(actual)
    if rank == 0:
        zero = new_local(ctx.table, name, element, ctx.taken)
        prologue.append(_zero(zero))
        return Reference(zero)
    zero = new_local(ctx.table, name, ArrayType(element, [ArrayType.Extent.DEFERRED] * rank),
                     ctx.taken)
    extents = [IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [
        actual.copy(), ("dim", Literal(str(d), INTEGER_TYPE))]) for d in range(1, rank + 1)]
    prologue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
        ArrayReference.create(zero, extents)]))
    prologue.append(_zero(zero))
    epilogue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [Reference(zero)]))
    return Reference(zero)


class ADTangentAllocationTrans:
    """ALLOCATE of active arrays allocates their tangents too (shaped like
    them, zero); DEALLOCATE releases them."""

    def validate(self, node, ctx):
        if _intrinsic_name(node) not in ("ALLOCATE", "DEALLOCATE", "NULLIFY", "MOVE_ALLOC"):
            raise TypeError("not an ALLOCATE/DEALLOCATE/NULLIFY/MOVE_ALLOC statement")

    def apply(self, node, ctx):
        self.validate(node, ctx)
        if _intrinsic_name(node) == "MOVE_ALLOC":
            self._move(node, ctx)
            return
        targets = [a for a in allocation_arguments(node)
                   if isinstance(a, Reference) and ctx.tangent_symbol(a.symbol) is not None]
        if not targets:
            return
        if _intrinsic_name(node) in ("DEALLOCATE", "NULLIFY"):
            _insert_before(node, [IntrinsicCall.create(IntrinsicCall.Intrinsic[
                _intrinsic_name(node)], [
                Reference(ctx.tangent_symbol(a.symbol))]) for a in targets])
            return
        source = next((arg for name, arg in zip(node.argument_names, node.arguments)
                       if name is not None and name.lower() == "source"), None)
        value = expression_tangent(source, ctx, node) if source is not None else None
        after = []
        for a in targets:
            tangent = ctx.tangent_symbol(a.symbol)
            after.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                Reference(tangent), ("mold", Reference(a.symbol))]))
            # ALLOCATE(…, SOURCE=e): the tangent of e, else zero.
            after.append(Assignment.create(Reference(tangent), value.copy())
                         if value is not None else _zero(tangent))
        _insert_after(node, after)


    @staticmethod
    def _move(node, ctx):
        """MOVE_ALLOC(from, to) moves the tangent of `from` to that of `to`."""
        source, target = node.arguments[0], node.arguments[1]
        active = [ctx.tangent_symbol(a.symbol) is not None for a in (source, target)]
        if not any(active):
            return
        if not all(active):
            raise AdfortError("MOVE_ALLOC between a variable carrying derivatives and one "
                              "that carries none: not supported in tangent mode",
                              where(node, ctx.filename))
        _insert_before(node, [IntrinsicCall.create(IntrinsicCall.Intrinsic.MOVE_ALLOC, [
            Reference(ctx.tangent_symbol(source.symbol)),
            Reference(ctx.tangent_symbol(target.symbol))])])


def tangent_work(work, spec, names, filename=None, options=None):
    """Generate ``r_fwd`` from the prepared working copy `work`.

    :param spec: a :class:`TangentSpec`.
    :param names: {"fwd": the routine's name, "taken": names to avoid}.
    :param options: the checked options (simplification).
    :rtype: :class:`TangentMotions`
    """
    table = work.symbol_table
    taken = set(names.get("taken", ()))
    result = work.return_symbol
    arguments = _argument_symbols(table)
    if result is not None:
        arguments.append(result)   # a function's r_fwd is a subroutine
    arg_names = [a.name.lower() for a in arguments]
    module_tangents = {n: s for n, s in spec.module_tangents.items()}
    ctx = TangentContext(table, spec.active | set(spec.roles), taken, filename,
                         module_tangents, options)
    ctx.location = where(work, filename)
    try:
        entry = _transform_body(work, spec, ctx)
    except AdfortError as err:
        err.location = err.location or where(work, filename)
        raise
    # Tangents of active variables that are not arguments of r_fwd and hold
    # a value on entry (SAVE, DATA, a module's, an argument's that is not
    # differentiated) start at zero: those values are constants.
    prologue = list(spec.entry) + entry
    roles = set(spec.roles)
    for name, tangent in sorted(ctx.tangents.items()):
        if name in ctx.module_tangents:
            if name in spec.zeroed_modules:
                prologue.extend(_zeroed_module_tangent(tangent, spec.module_variable(name)))
            continue
        if name in roles:
            continue
        primal = table.lookup(name)
        if isinstance(primal.interface, AutomaticInterface) and \
                getattr(primal, "initial_value", None) is None:
            continue   # set before it is read, as the primal is
        if getattr(tangent.datatype, "is_allocatable", False) or \
                spec.attributes.get(name) == "POINTER":
            continue
        if name in arg_names and _assumed_size(table.lookup(name)):
            continue
        if _assumed_shape(tangent):
            prologue.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                Reference(tangent), ("mold", Reference(table.lookup(name)))]))
        prologue.append(_zero(tangent))
    # An intent(out) dependent's tangent is set wherever the routine sets it;
    # on a path that leaves it alone it is zero.
    for a in arguments:
        name = a.name.lower()
        if name in roles and a is not result and a.interface.access == _OUT \
                and not _assumed_size(a) and not getattr(a.datatype, "is_allocatable", False):
            prologue.append(_zero(ctx.tangents[name]))
    body = prologue + list(work.children)

    intents = {a.name.lower(): (a.interface.access if a is not result else _OUT)
               for a in arguments}
    fwd_args = []
    for a in arguments:
        fwd_args.append(a)
        if a.name.lower() in roles:
            tangent = ctx.tangents[a.name.lower()]
            fwd_args.append(tangent)
            intents[tangent.name.lower()] = intents[a.name.lower()]
    optional = optional_names(work)
    work.adfort_optional = optional | {ctx.tangents[n].name.lower() for n in optional
                                       if n in ctx.tangents}
    attributes = dict(spec.attributes)
    attributes.update({ctx.tangents[n].name.lower(): a for n, a in spec.attributes.items()
                       if n in ctx.tangents})
    forward = _make_routine(work, names["fwd"], body, fwd_args, intents,
                            spec.module_variable, attributes)
    _restore_intrinsics(forward)
    return TangentMotions(forward)


def _restore_intrinsics(routine):
    """Intrinsic subroutine calls (MOVE_ALLOC) that PSyclone's copy of the
    routine holds under a plain routine symbol, made intrinsic again."""
    table = routine.symbol_table
    for call in routine.walk(IntrinsicCall):
        symbol = call.routine.symbol
        if hasattr(symbol, "intrinsic"):
            continue
        names = list(call.argument_names)
        arguments = [a.detach() for a in list(call.arguments)]
        call.replace_with(IntrinsicCall.create(
            IntrinsicCall.Intrinsic[symbol.name.upper()],
            [(n, a) if n else a for n, a in zip(names, arguments)]))
        found = table.lookup(symbol.name, otherwise=None, scope_limit=routine)
        if found is symbol:
            table.remove(symbol)


def _call_statement(call):
    parent = call.parent
    return parent if isinstance(parent, Assignment) and parent.rhs is call else call


def _transform_body(work, spec, ctx):
    """Insert the tangent statements into `work`'s body, in place.

    :returns: statements ``r_fwd`` starts with.
    """
    assignments = work.walk(Assignment)
    calls = [c for c in work.walk(Call) if not isinstance(c, IntrinsicCall)]
    communication = communication_calls(work, spec.communicating, spec.passive_routine)
    allocations = [c for c in work.walk(IntrinsicCall)
                   if _intrinsic_name(c) in ("ALLOCATE", "DEALLOCATE", "NULLIFY", "MOVE_ALLOC")]
    call_rhs = {id(_call_statement(c)) for c in calls}
    for assign in assignments:
        if id(assign) in call_rhs:
            continue
        statements = assignment_tangent(assign, ctx)
        if statements:
            _insert_before(assign, statements)
    for node in allocations:
        ADTangentAllocationTrans().apply(node, ctx)
    entry = mpi_tangents(work, communication, ctx) if communication else []
    differentiated = {id(c) for c in communication}
    for call in calls:
        if id(call) in differentiated:
            continue    # its tangent is the communication of the tangents
        statement = _call_statement(call)
        info = spec.calls.get(id(call))
        clears = [ctx.tangent_reference(a) for a in spec.clears.get(id(statement), ())
                  if ctx.is_active(a)]
        clear_statements = [Assignment.create(r, real_literal(0, ctx.kind_of(r)))
                            for r in clears]
        if info is None:
            # No derivative flows through it (passive, or no active argument):
            # what it overwrites carries none.
            if statement is not call and ctx.is_active(statement.lhs) and not clears:
                clear_statements.append(Assignment.create(
                    ctx.tangent_reference(statement.lhs),
                    real_literal(0, ctx.kind_of(statement.lhs))))
            _insert_after(statement, clear_statements)
            continue
        target = statement.lhs if statement is not call else None
        if target is not None and not is_variable(target):
            raise AdfortError("a function's value assigned to something other than a "
                              "variable: not supported in tangent mode",
                              where(statement, ctx.filename))
        replacement = ADTangentCallTrans().apply(call, ctx, info, target)
        _insert_after(statement, clear_statements)
        _insert_before(statement, replacement)
        statement.detach()
    return entry
