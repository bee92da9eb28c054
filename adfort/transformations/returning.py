"""The returning motion's statements, put together and tidied.

After the statements of the hand-over (the locals the recording motion left
on the tape) come the zeroings of the adjoints of the routine's own
variables, the adjoint of the body and the restores of arguments from
their entry copies.  Then:

- an increment of an adjoint known to be zero is an assignment
  (:mod:`adfort.known_zero`);
- a store nothing reads is dropped (:func:`adfort.liveness.lean_returning`);
- the increments of one adjoint element are gathered into one
  (:mod:`adfort.increments`).

``r_rev`` of the routine differentiated runs the recording's statements
itself, then :func:`returning_given`.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, IfBlock, IntrinsicCall, Reference)
from psyclone.psyir.symbols import ArgumentInterface, ArrayType, DataSymbol, ScalarType

from adfort.arrays import expr_rank
from adfort.components import allocatable_components
from adfort.derived import zero_statements
from adfort.errors import where
from adfort.increments import merge_increments
from adfort.known_zero import simplify_known_zero
from adfort.liveness import lean_returning
from adfort.prune import _drop as drop, data_statement_names
from adfort.transformations.building import _assumed_shape, _call, _make_routine
from adfort.transformations.call import recording_call_again


def _module_adjoint_allocation(adj, primal):
    """Statements giving the adjoint `adj` of allocatable module array
    `primal` its shape, zero (unallocated while the array is)."""
    def allocated(symbol):
        return IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATED, [Reference(symbol)])
    allocate = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
        Reference(adj), ("mold", Reference(primal))])
    return [IfBlock.create(allocated(adj), [IntrinsicCall.create(
                IntrinsicCall.Intrinsic.DEALLOCATE, [Reference(adj)])]),
            IfBlock.create(allocated(primal), [allocate] + zero_statements(adj, None, ()))]


def returning_statements(ctx, spec, table, taken, parts, active_args, arg_names, sections):
    """The statements of the returning motion (a list).

    :param ctx: the routine's :class:`adfort.context.ADContext`.
    :param spec: what the routine is differentiated for (its RoutineSpec).
    :param table: the working symbol table.
    :param taken: names generated names must avoid.
    :param parts: (hand-over restores, adjoint of the body, restores from
        entry copies), lists of statements.
    :param active_args: lower-case names of the arguments with adjoints.
    :param arg_names: lower-case names of all the arguments.
    :param sections: {name: the section a local work array is set on}.
    """
    final_ret, body_ret, entry_ret = parts
    ret_body = list(final_ret)
    zeroings = []
    for name, adj in sorted(ctx.adjoints.items()):
        # Allocatable adjoints are zeroed where they are allocated; module
        # variables' adjoints belong to the caller, or, for the routine
        # differentiated, to the user when they are dependents/independents.
        internal_module = (name in ctx.module_adjoints and not spec.callee
                           and name not in spec.module_roles)
        if (name not in active_args and (name not in ctx.module_adjoints or internal_module)
                and not getattr(adj.datatype, "is_allocatable", False)
                and spec.attributes.get(name) != "POINTER"):
            if _assumed_shape(adj):
                # The adjoint of an assumed-shape argument that is neither
                # dependent nor independent: a local of the argument's shape.
                zeroings.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                    Reference(adj), ("mold", Reference(table.lookup(name)))]))
            # (A local's allocatable components: zeroed where allocated.)
            primal = table.lookup(name, otherwise=None)
            skip = allocatable_components(primal.datatype) if isinstance(
                primal, DataSymbol) and primal.is_automatic else ()
            zeroings.extend(_zeroed(adj, sections.get(name))
                            or zero_statements(adj, table, taken, skip))
        elif internal_module and getattr(adj.datatype, "is_allocatable", False):
            # A module's allocatable array, set and read by the routines
            # (allocated outside them): its adjoint takes its shape here.
            zeroings.extend(_module_adjoint_allocation(adj, ctx.module_variable(name)[1]))
    # Increments of adjoints still zero are assignments (adfort.known_zero).
    zeroings, body_ret = simplify_known_zero(
        zeroings, body_ret, {ctx.adjoints[n].name.lower() for n in ctx.adjoints
                             if n not in ctx.module_adjoints})
    ret_body.extend(zeroings)
    ret_body.extend(body_ret)
    ret_body.extend(entry_ret)
    if "POINTER" not in spec.attributes.values():
        # Stores nothing reads (adfort.liveness), then each adjoint
        # element's increments gathered (adfort.increments).
        shared = {ctx.adjoints[n].name.lower() for n in ctx.adjoints
                  if n in active_args or n in ctx.module_adjoints}
        ret_body = lean_returning(ret_body, table, shared | set(arg_names))
        body_ids = {id(s) for s in body_ret}
        at = [k for k, s in enumerate(ret_body) if id(s) in body_ids]
        if at:
            body = merge_increments(ret_body[at[0]:at[-1] + 1], shared,
                                    ctx.scalar_temporaries(), ctx.free_temporary)
            ret_body[at[0]:at[-1] + 1] = body
    return ret_body


def _zeroed(adj, section):
    """``a_adj(lo:hi) = 0`` for the adjoint `adj` of a local work array the
    routine only ever sets on `section` (FORTRAN 77: ``X(NMAX)`` used on
    ``1:N``; see :func:`adfort.reach.written_section`), or None.  A local
    is read only where it was set first, and its adjoint is read only where
    the local was set: the other elements' adjoints are never read, so
    zeroing them would only cost time (all of NMAX on every call)."""
    if section is None or not isinstance(adj.datatype, ArrayType):
        return None
    zero = zero_statements(adj)[0]
    zero.lhs.replace_with(ArrayReference.create(adj, [i.copy() for i in section.indices]))
    return [zero]


def returning_given(work, name, ret_body, handover, arguments, handed, intents, ctx,
                    deferred=None):
    """(``r_ret_given`` or None, the statements ``r_rev`` runs for the
    returning motion after running the recording's statements itself).

    ``r_ret_given`` is the returning motion without the hand-over: the
    locals it reads as the recording left them are its last arguments, so
    they stay off the tape.  It is a routine of its own, not statements of
    ``r_rev``: gfortran compiled a one-routine model's two loop nests worse
    in one routine (Burgers: 7 % slower).  A local that cannot be such an
    argument (allocatable, derived type, assumed shape) keeps the returning
    motion's statements in ``r_rev`` itself.

    :param work: the working routine.
    :param str name: the name of ``r_ret_given``.
    :param ret_body: the returning motion's statements.
    :param handover: (the hand-over's restores, those and the values the
        returning motion computes again).
    :param arguments: ``r_ret``'s arguments (symbols).
    :param handed: the symbols of the locals handed over.
    :param intents: ``r_ret``'s intents by lower-case name.
    :param ctx: the routine's :class:`adfort.context.ADContext`.
    :param deferred: a function turning the calls the routine defers into
        their reversals, or None.
    """
    restores, final = handover
    given_args = _passable(handed)
    if given_args is None:
        part = [s.copy() for s in excluding(ret_body, final)]
        return None, deferred(part) if deferred else part
    part = [s.copy() for s in excluding(ret_body, restores)]
    if deferred:
        before = {c.routine.name.lower() for s in part for c in s.walk(Call)}
        part = deferred(part)
        # A deferred call runs the callee forward again (f_rev): the
        # locals it is given (a hoisted argument, fill_argument = a*b) must
        # reach it as the recording left them, even where f_ret, which it
        # replaces, read none of them.
        more = _deferred_inputs(part, before, work, given_args, arguments)
        given_args = _passable(given_args + more) if more else given_args
        if given_args is None:
            part = [s.copy() for s in excluding(ret_body, final)]
            return None, deferred(part)
    # A SAVE'd local a DATA statement initialises (F77 ``SAVE J`` and
    # ``DATA J /0/``) is a dummy of r_ret_given: the statement goes (a
    # dummy may not have one), unless it initialises other locals too.
    given_names = {s.name.lower() for s in given_args}
    data = [(symbol, data_statement_names(symbol)) for symbol in work.symbol_table.symbols]
    data = [(symbol, named) for symbol, named in data if named and named & given_names]
    if any(named - given_names for _, named in data):
        part = [s.copy() for s in excluding(ret_body, final)]
        return None, deferred(part) if deferred else part
    given_intents = dict(intents)
    given_intents.update({s.name.lower(): ArgumentInterface.Access.READWRITE for s in given_args})
    routine = _make_routine(work, name, part, arguments + given_args, given_intents,
                            ctx.module_variable, ctx.attributes)
    for symbol, _ in data:
        drop(routine.symbol_table, routine.symbol_table.lookup(symbol.name))
    return routine, [_call(name, [Reference(s) for s in arguments + given_args])]


def _deferred_inputs(part, before, work, given, arguments):
    """The locals of `work` given to the calls of `part` that deferral
    made (calls of routines `before` did not call), not among `given` or
    `arguments`."""
    known = {id(s) for s in list(given) + list(arguments)}
    found = []
    for call in [c for s in part for c in s.walk(Call)]:
        if call.routine.name.lower() in before:
            continue
        for arg in call.arguments:
            if not isinstance(arg, Reference):
                continue
            symbol = work.symbol_table.lookup(arg.symbol.name, otherwise=None)
            if isinstance(symbol, DataSymbol) and not symbol.is_argument \
                    and id(symbol) not in known and symbol not in found \
                    and not symbol.is_import:
                found.append(symbol)
    return found


def _passable(symbols):
    """`symbols` (the locals handed over), if each can be an argument of
    a routine declaring it as `r` does: of intrinsic type, not allocatable
    or a pointer, arrays of explicit shape; else None."""
    for symbol in symbols:
        dtype = getattr(symbol, "datatype", None)
        element = dtype.elemental_type if isinstance(dtype, ArrayType) else dtype
        if not isinstance(symbol, DataSymbol) or not isinstance(element, ScalarType) \
                or getattr(dtype, "is_allocatable", False) or symbol.is_constant \
                or symbol.initial_value is not None:
            return None
        if isinstance(dtype, ArrayType) and any(
                not isinstance(extent, ArrayType.ArrayBounds) for extent in dtype.shape):
            return None
    return symbols


def excluding(statements, *others):
    """`statements` without those of the lists `others` (the nodes
    themselves, not equal ones), looked up by id: searching the lists for
    each statement was quadratic on a long routine's hand-over."""
    left_out = {id(s) for group in others for s in group}
    return [s for s in statements if id(s) not in left_out]


def allocate_at_first_use(body, temporaries):
    """Allocate each allocatable array temporary from the value first
    assigned to it, when that assignment is a statement of the routine's
    own body (run once, before any other use): ``allocate(t, source=e)``
    rather than ``t = e`` on an unallocated `t`, which gfortran -Wall
    reports as reading undefined bounds."""
    for temporary in temporaries:
        for position, stmt in enumerate(body):
            uses = [r for r in stmt.walk(Reference) if r.symbol is temporary]
            if not uses:
                continue
            if (isinstance(stmt, Assignment) and type(stmt.lhs) is Reference
                    and uses == [stmt.lhs] and expr_rank(stmt.rhs) > 0):
                allocate = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE,
                                                [Reference(temporary)])
                # PSyclone's create() takes only a reference as SOURCE=;
                # Fortran takes any expression.
                allocate.append_named_arg("source", stmt.rhs.detach())
                body[position] = allocate
            break


def computed_again_call(stmt, cheap, filename):
    """`stmt`, computed again by the returning motion: ``v = f(…)`` of a
    short function `cheap` names as ``call f_rec(…, v)`` when it can be
    (:func:`adfort.transformations.call.recording_call_again`).

    :param cheap: {lower-case function name: its CalleeMotions}."""
    if isinstance(stmt, Assignment) and type(stmt.rhs) is Call:
        info = cheap.get(stmt.rhs.routine.name.lower())
        call = recording_call_again(stmt, info, where(stmt, filename)) if info else None
        if call is not None:
            return call
    return stmt
