"""Reverse-mode differentiation of one routine: its four motions.

The advancing motion is the original routine.  From a working copy of it
this builds the recording motion ``r_rec`` (the original statements, each
overwrite preceded by a push of the value the returning motion will need),
the returning motion ``r_ret`` (statements' adjoints in reverse order, each
preceded by the restore of the value its statement overwrote) and the
reversing motion ``r_rev`` (record, then return), plus ``r_jacobian`` on
request.
"""

import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, IntrinsicCall, Literal, Loop,
    Range, Reference, Routine, WhileLoop)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, AutomaticInterface, CommonBlockInterface, DataSymbol,
    ContainerSymbol, ImportInterface, ScalarType, Symbol,
    NoType, RoutineSymbol, UnsupportedFortranType)

from adfort import naming
from adfort.activity import active_variables
from adfort.arrays import expr_rank, symbol_rank
from adfort.context import ADContext
from adfort.pointers import aliases, canonical, restore_attributes, target_reads
from adfort.derived import add_statements, is_derived, zero_statements
from adfort.errors import AdfortError, where
from adfort.forward_only import kept_statement_writes
from adfort.optional import declare_optional, guarded, optional_in, optional_names
from adfort.exprs import INTEGER_TYPE, intrinsic_call, real_kind, real_literal
from adfort.simplify import simplify, simplify_statements
from adfort.symbols import new_local
from adfort.normalise import deallocate_at_end, normalise_jumps
from adfort.prune import _datatype_references, prune_symbols
from adfort.tape import TapeSet, tidy_reserves, written_names
from adfort.taping import plan_taping
from adfort.transformations.assignment import assignment_adjoint
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.reverser import Reverser, enclosing_loop_indices
from adfort.writer import Writer

_IN = ArgumentInterface.Access.READ
_OUT = ArgumentInterface.Access.WRITE
_INOUT = ArgumentInterface.Access.READWRITE


class RoutineMotions:
    """The routines generated for one differentiated routine.

    :ivar recording: ``r_rec``; :ivar returning: ``r_ret``;
    :ivar reversing: ``r_rev``; :ivar jacobian: ``r_jacobian`` or None;
    :ivar tapes: the :class:`adfort.tape.Tape` objects used;
    :ivar dynamic: whether the tapes are module arrays that grow (True) or
        fixed-size arguments (False).
    """

    def __init__(self, recording, returning, reversing, jacobian, tapes, dynamic):
        self.recording = recording
        self.returning = returning
        self.reversing = reversing
        self.jacobian = jacobian
        self.tapes = tapes
        self.dynamic = dynamic

    @property
    def routines(self):
        """The generated Routine nodes, in output order."""
        return [r for r in (self.recording, self.returning, self.reversing,
                            self.jacobian) if r is not None]

    @property
    def tape_sizes(self):
        """Slots of each static tape, by name (dynamic tapes: None)."""
        return {t.symbol.name: (None if t.dynamic else t.slots) for t in self.tapes}


def adjoint_reads(assign, adjoint, ctx):
    """Lower-case names of the primal variables the returning motion reads
    for `assign`: in its adjoint statements and in the indices a restore of
    its target uses.  Indices of enclosing loops are set by the reversed
    loops themselves, so they are not counted."""
    names = set()
    for stmt in adjoint:
        for ref in stmt.walk(Reference):
            if not ctx.is_adjoint_or_temporary(ref.symbol):
                names.add(ref.symbol.name.lower())
    if isinstance(assign.lhs, ArrayReference):
        for index in assign.lhs.indices:
            names |= {r.symbol.name.lower() for r in index.walk(Reference)}
    return names - enclosing_loop_indices(assign)


def _argument_symbols(table):
    return list(table.argument_list)


def _make_routine(work, name, body, arguments, intents, origin=None, attributes=None):
    """Return a new Routine: `work` with `body`, `arguments` and `intents`.

    The routine is a copy of the working routine, so it keeps its
    declarations (kinds, parameters, imports); unused ones are pruned.

    :param work: the working copy of the original routine.
    :param str name: the new routine's name.
    :param body: the statements (detached nodes using `work`'s symbols).
    :param arguments: the argument symbols of `work`, in order.
    :param intents: argument name (lower case) -> access.
    :param origin: ``origin(name)`` gives (module, DataSymbol) of a module
        variable the body refers to.
    :param attributes: {lower-case name: "POINTER"/"TARGET"} to declare.
    """
    work.pop_all_children()
    for stmt in body:
        work.addchild(stmt.detach() if stmt.parent is not None else stmt)
    routine = work.copy()
    routine.name = name
    if routine.name != name:
        # A function's name is also its result variable's, which PSyclone
        # will not rename; the routine's own symbol is a private copy.
        routine._symbol._name = name
    routine._return_symbol = None  # a function's motions are subroutines
    routine._symbol.datatype = NoType()
    # Motions push onto module tapes: they cannot be pure or elemental.
    routine._symbol.is_pure = False
    routine._symbol.is_elemental = False
    # The motions of a private routine are public in the generated module:
    # its callers' motions and the user call them.
    routine._symbol.visibility = Symbol.Visibility.PUBLIC
    work.pop_all_children()
    table = routine.symbol_table
    new_args = [table.lookup(sym.name) for sym in arguments]
    for sym in table.datasymbols:
        if sym.is_argument and sym not in new_args:
            sym.interface = AutomaticInterface()
        if sym not in new_args and _assumed_shape(sym):
            # A local cannot take its shape from an actual argument: it is
            # allocated (or assigned) instead.
            sym.datatype = _deferred(sym.datatype)
    for sym in new_args:
        sym.interface = ArgumentInterface(intents[sym.name.lower()])
    table.specify_argument_list(new_args)
    prune_symbols(routine)
    _declare_arguments_first(table)
    _standard_kinds(table)
    _restore_assumed_size(table)
    restore_attributes(table, attributes or {})
    _name_outer_symbols(routine, origin)
    declare_optional(table, optional_names(work))
    return routine


def _name_outer_symbols(routine, origin=None):
    """Point references to variables declared elsewhere (module variables
    the analysis resolved to their modules' symbols) at symbols of the
    routine's own scope: an import from their module when `origin(name)`
    names it (PSyclone's copy would otherwise bring a foreign declaration in
    with a shape that uses it, jacobian(1, size(v))), else a plain name the
    generated module imports.

    :param origin: ``origin(name)`` gives (module name, DataSymbol) or None.
    """
    table = routine.symbol_table
    names = {}
    references = list(routine.walk(Reference))
    for symbol in table.datasymbols:
        references += _datatype_references(symbol)
    for ref in references:
        symbol = ref.symbol
        if symbol in table.symbols or not isinstance(symbol, DataSymbol):
            continue
        local = table.lookup(symbol.name, otherwise=None)
        if local is not None:
            ref.symbol = local
            continue
        key = symbol.name.lower()
        if key not in names:
            found = origin(symbol.name) if origin is not None else None
            if found is not None and found[1].visibility == Symbol.Visibility.PRIVATE:
                # A private constant cannot be imported: the generated
                # module declares its own copy, the name resolves to it.
                found = None
            if found is not None:
                container = table.lookup(found[0], otherwise=None)
                if container is None:
                    container = ContainerSymbol(found[0])
                    table.add(container)
                names[key] = Symbol(symbol.name, interface=ImportInterface(container))
                table.add(names[key])
            else:
                names[key] = Symbol(symbol.name)
        ref.symbol = names[key]


def _restore_assumed_size(table):
    """Declare assumed-size arrays with their ``*`` again."""
    writer = Writer()
    for symbol in table.datasymbols:
        shape = getattr(symbol.datatype, "shape", [])
        if any(naming.ASSUMED_SIZE in str(getattr(e, "upper", "")) for e in shape):
            text = writer.gen_vardecl(symbol).strip()
            # x(1:*) is written x(*); other lower bounds stay (x(-1:*)).
            text = re.sub(r"([(,]\s*)1:" + naming.ASSUMED_SIZE + r"\b", r"\1*", text)
            text = re.sub(r"\b" + naming.ASSUMED_SIZE + r"\b", "*", text)
            symbol.datatype = UnsupportedFortranType(text)


def _standard_kinds(table):
    """Declare ``real*8``-style types as ``real(kind=8)``: generated code
    must compile with ``-std=f2008``, which rejects the byte-size form."""
    for symbol in table.datasymbols:
        dtype = symbol.datatype
        element = getattr(dtype, "elemental_type", dtype)  # element type of an array
        if isinstance(getattr(element, "precision", None), int):
            fixed = ScalarType(element.intrinsic, Literal(str(element.precision),
                                                          INTEGER_TYPE))
            if isinstance(dtype, ArrayType):
                symbol.datatype = ArrayType(fixed, dtype.shape)
            else:
                symbol.datatype = fixed


def _declare_arguments_first(table):
    """Order declarations as a person would: arguments in order, then locals.

    PSyIR keeps symbols in insertion order and the writer follows it (after
    the parameters), so adjoints added late would otherwise trail.  An
    argument whose bounds name a later argument (``fjac(ldfjac, n)`` before
    ``ldfjac``, the MINPACK order) comes after that one: standard Fortran
    wants a variable typed before a specification uses it.
    """
    symbols = table._symbols
    arguments = [table._normalize(a.name) for a in table.argument_list]
    order = []

    def place(key, visiting=()):
        if key in order or key in visiting:
            return
        for ref in _datatype_references(symbols[key]):
            name = table._normalize(ref.symbol.name)
            if name in arguments:
                place(name, visiting + (key,))
        order.append(key)

    for key in arguments:
        place(key)
    rest = [key for key in symbols if key not in order]
    reordered = {key: symbols[key] for key in order + rest}
    symbols.clear()
    symbols.update(reordered)


def _call(name, references):
    return Call.create(RoutineSymbol(name), references)


class UnitSpec:
    """How to differentiate one routine of a call graph.

    :param dependents: names of the arguments (or a function's result)
        whose adjoints come in.
    :param independents: names of the arguments whose adjoints go out.
    :param active: lower-case names of the routine's own active variables
        (None: analyse the routine alone).
    :param module_adjoints: {name: adjoint DataSymbol} of active module
        variables (declared in a generated module).
    :param calls: {id(Call): CalleeMotions or None} for the calls in it.
    :param call_io: {id(call statement): (names read, names written)}.
    :param call_clears: {id(call statement): [actual arguments whose
        adjoints the call clears (overwritten with passive values)]}.
    :param tapes: the shared dynamic TapeSet of the routine's host, or None.
    :param schedule: the reversal schedule (for calls).
    :param callee: True for a routine called by another: its ``_rev`` has
        pullback semantics for every active argument.
    :param module_dependents: names of the module variables named as
        dependents (their adjoints are the user's).
    :param module_independents: names of the module variables named as
        independents.
    :param module_variable: ``module_variable(name)`` gives (module,
        DataSymbol) of a module variable the routine may not see itself.
    :param jacobian_dependents: the rows of ``r_jacobian`` in order:
        arguments and module variables (default: the dependents).
    :param jacobian_independents: its columns in order (default: the
        independents).
    :param types: the :class:`adfort.derived.TypeRegistry` of derived types.
    :param attributes: {lower-case name: "POINTER"/"TARGET"} of its
        variables declared so (see :mod:`adfort.pointers`).
    """

    def __init__(self, dependents, independents, active=None, module_adjoints=None,
                 calls=None, call_io=None, call_clears=None, tapes=None, schedule=None,
                 callee=False,
                 module_dependents=(), module_independents=(), module_variable=None,
                 jacobian_dependents=(), jacobian_independents=(), types=None,
                 attributes=None):
        self.dependents = [d.lower() for d in dependents]
        self.independents = [i.lower() for i in independents]
        self.active = active
        self.module_adjoints = module_adjoints or {}
        self.calls = calls or {}
        self.call_io = call_io or {}
        self.call_clears = call_clears or {}
        self.tapes = tapes
        self.schedule = schedule
        self.callee = callee
        self.module_dependents = {name.lower() for name in module_dependents}
        self.module_independents = {name.lower() for name in module_independents}
        self.module_roles = self.module_dependents | self.module_independents
        self.jacobian_dependents = [n.lower() for n in jacobian_dependents]
        self.jacobian_independents = [n.lower() for n in jacobian_independents]
        self.module_variable = module_variable or (lambda name: None)
        self.types = types
        self.attributes = attributes or {}


def prepare(routine, taken=()):
    """A working copy of `routine`, with jumps and implicit deallocations
    made explicit."""
    work = routine.copy()
    normalise_jumps(work, taken)
    deallocate_at_end(work)
    return work


def reverse_routine(routine, dependents, independents, options, names, filename=None):
    """Generate the motions of `routine`, differentiated on its own.

    :param routine: the PSyIR Routine (not modified).
    :param dependents: names of dependent arguments, in order.
    :param independents: names of independent arguments, in order.
    :param options: checked options (see :mod:`adfort.context`).
    :param names: dict with the names to give ``rec``, ``ret``, ``rev``,
        ``jacobian`` and ``taken`` (names visible in the output scope).
    :param filename: the source file, for messages.
    :rtype: :class:`RoutineMotions`
    """
    work = prepare(routine, names.get("taken", ()))
    return reverse_work(work, UnitSpec(dependents, independents), options, names, filename)


def reverse_work(work, spec, options, names, filename=None):
    """Generate the motions of the prepared working copy `work`.

    :param spec: a :class:`UnitSpec`.
    :rtype: :class:`RoutineMotions`
    """
    table = work.symbol_table
    taken = set(names.get("taken", ()))
    result = work.return_symbol
    arguments = _argument_symbols(table)
    if result is not None:
        arguments.append(result)  # a function's motions are subroutines
    arg_names = [a.name.lower() for a in arguments]
    dep, indep = spec.dependents, spec.independents
    active = spec.active if spec.active is not None else active_variables(work, dep, indep)
    ctx = ADContext(table, active, options, taken, filename, spec.types)
    ctx.adjoints.update(spec.module_adjoints)
    ctx.module_adjoints = set(spec.module_adjoints)
    ctx.module_variable = spec.module_variable
    # The adjoint of a target is a target, of a pointer a pointer.
    ctx.attributes = dict(spec.attributes)
    ctx.attributes.update({ctx.adjoints[n].name.lower(): a for n, a in spec.attributes.items()
                           if n in ctx.adjoints})

    assignments = work.walk(Assignment)
    adjoints = {id(a): assignment_adjoint(a, ctx) for a in assignments
                if id(a.rhs) not in spec.calls}
    reads = {id(a): adjoint_reads(a, adjoints[id(a)], ctx) for a in assignments
             if id(a) in adjoints}
    for a in assignments:
        if a.is_pointer:  # re-associated from its subscripts while returning
            reads[id(a)] = target_reads(a) - enclosing_loop_indices(a)
    call_writes = {}
    for key, (read, wrote) in spec.call_io.items():
        reads[key] = set(read)
        call_writes[key] = set(wrote)
    # Values read or written through a pointer are its target's.
    alias = aliases(work)
    reads = {key: {canonical(n, alias) for n in names} for key, names in reads.items()}
    call_writes = {key: {canonical(n, alias) for n in names}
                   for key, names in call_writes.items()}
    # I/O statements (kept in the recording motion only) may overwrite
    # variables too (READ, internal WRITE, IOSTAT=): taped like a call's.
    kept_writes = kept_statement_writes(work)
    written = {canonical(a.lhs.symbol.name.lower(), alias) for a in assignments
               if not a.is_pointer} | \
        {loop.variable.name.lower() for loop in work.walk(Loop)}
    for wrote in list(call_writes.values()) + list(kept_writes.values()):
        written |= wrote
    # Allocatable locals are handed over by their (explicit) deallocation.
    allocatables = {sym.name.lower() for sym in table.datasymbols
                    if getattr(sym.datatype, "is_allocatable", False)}
    # The routine's own variables: not those seen through a use (unresolved
    # symbols of a wildcard import) or shared in COMMON.
    own = {sym.name.lower() for sym in table.datasymbols
           if not sym.is_import and not sym.is_unresolved
           and not isinstance(sym.interface, CommonBlockInterface)}
    plan = plan_taping(work.children, reads,
                       (written & own) - set(arg_names) - allocatables,
                       {**call_writes, **kept_writes}, alias)

    taped_arrays = any(expr_rank(a.lhs) > 0 for a in assignments if id(a) in plan.taped)
    # Strings go on the tape character by character: their length may be
    # known only at run time (len=*), so their room too.
    taped_names = {a.lhs.symbol.name.lower() for a in assignments if id(a) in plan.taped}
    taped_names |= {name for _, name in plan.taped_calls} | set(plan.finals)
    taped_arrays = taped_arrays or any(
        _is_character(table.lookup(name, otherwise=None)) for name in taped_names)
    dynamic = (spec.tapes is not None or bool(work.walk((Loop, WhileLoop))) or taped_arrays
               or plan.taped_arrays or plan.taped_calls or any(
                   symbol_rank(table.lookup(n)) > 0 for n in plan.finals))
    tapes = spec.tapes if spec.tapes is not None else TapeSet(table, dynamic, taken)
    # Pushes sized by what the routine sets get their room where they are.
    tapes.start_routine(written_names(work.children) - {
        a.name.lower() for a in arguments if getattr(a.interface, "access", None) == _IN})
    reverser = Reverser(ctx, tapes, plan, adjoints, spec.calls, spec.schedule, work.name,
                        spec.call_clears)
    location = where(work, filename)
    try:
        body_rec, body_ret = reverser.block(list(work.children))

        # The returning motion has its own locals: those it reads after their
        # last write are handed over through the tape.
        final_rec, final_ret = [], []
        for name in plan.finals:
            save, restore = tapes.save(Reference(table.lookup(name)))
            final_rec.extend(save)
            final_ret = restore + final_ret
    except AdfortError as err:
        err.location = err.location or location   # at least the routine
        raise
    rec_body = body_rec + final_rec
    if dynamic:
        # Room for the pushes outside loops; also allocates on first use.
        needs = tapes.top_level_need()
        rec_body = [s for t in tapes.tapes
                    for s in t.reserve(needs.get(t, _int(0)), checked=False)] + rec_body
        tidy_reserves(rec_body)

    adjoint_args = dep + [i for i in indep if i not in dep]
    active_args = [a for a in arg_names if a in adjoint_args]
    ret_body = list(final_ret)
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
                ret_body.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                    Reference(adj), ("mold", Reference(table.lookup(name)))]))
            ret_body.extend(zero_statements(adj, table, taken))
    ret_body.extend(body_ret)

    restored = {a.lhs.symbol.name.lower() for a in assignments if id(a) in plan.taped}
    restored |= {loop.variable.name.lower() for loop in work.walk(Loop)
                 if id(loop) in plan.loop_indices}
    restored |= {name for _, name in plan.taped_arrays}
    restored |= {name for _, name in plan.taped_calls}
    for wrote in call_writes.values():
        # f_ret and f_rev write back into what the call overwrote.
        restored |= wrote
    fixed = sorted(a.name for a in arguments
                   if a is not result and a.interface.access == _IN
                   and a.name.lower() in restored)
    if fixed:
        # r_rev must leave its intent(in) arguments alone (they may be
        # constants in the caller): never restore one.
        raise AdfortError(
            f"internal error: the returning motion of '{work.name}' would restore the "
            f"intent(in) argument(s) {', '.join(fixed)}; please report this with the "
            "input", where(work, ctx.filename))

    # The adjoint of an optional argument is optional too.
    optional = optional_names(work)
    work.adfort_optional = optional | {ctx.adjoints[name].name.lower() for name in optional
                                       if name in ctx.adjoints}

    tape_list = tapes.finalise()
    tape_args = []
    if not dynamic:
        for tape in tape_list:
            table.add(tape.symbol)
            tape_args.append(tape.symbol)

    primal_intents = {a.name.lower(): a.interface.access for a in arguments
                      if a is not result}
    if result is not None:
        primal_intents[result.name.lower()] = _OUT
    adj_args = []
    for a in arguments:
        adj_args.append(a)
        if a.name.lower() in active_args:
            adj_args.append(ctx.adjoints[a.name.lower()])

    rec_intents = dict(primal_intents)
    rec_intents.update({t.name.lower(): _OUT for t in tape_args})
    recording = _make_routine(work, names["rec"], rec_body,
                              arguments + tape_args, rec_intents, ctx.module_variable, ctx.attributes)

    ret_intents = {a: (_INOUT if a in restored else _IN) for a in arg_names}
    ret_intents.update({ctx.adjoints[a].name.lower(): _INOUT for a in active_args})
    ret_intents.update({t.name.lower(): _IN for t in tape_args})
    _allocate_at_first_use(ret_body, [t for pool in ctx._op_adjoints.values() for t in pool
                                      if symbol_rank(t) > 0])
    returning = _make_routine(work, names["ret"], ret_body,
                              adj_args + tape_args, ret_intents, ctx.module_variable, ctx.attributes)

    increments = [a for a in active_args if a in indep and a not in dep]
    cleared = [a for a in active_args if a in dep and primal_intents.get(a) == _OUT]
    if not spec.callee:
        # Module variables follow the rules of arguments.
        increments += sorted(spec.module_independents - spec.module_dependents)
    else:
        increments, cleared = [], []  # pullback: no increments to keep apart
    reversing = _reversing(work, names, arguments, adj_args, tape_args, ctx,
                           increments, cleared, restored, written, primal_intents)
    jacobian = None
    if options["jacobian"] and not spec.callee:
        jacobian = _jacobian(work, names, arguments, adj_args, ctx,
                             spec.jacobian_dependents or dep,
                             spec.jacobian_independents or indep, written, taken)
    return RoutineMotions(recording, returning, reversing, jacobian, tape_list, dynamic)


def _int(value):
    return Literal(str(value), INTEGER_TYPE)


def _local_copy(table, symbol, name, taken, filename=None, primal=None):
    """A local to hold a copy of `symbol`'s value (sized on assignment
    when `symbol` is an assumed-shape array)."""
    if _assumed_size(symbol):
        label = (primal or symbol).name
        raise AdfortError(
            f"'{label}' is an assumed-size array ({label}(*)) that the routine "
            "overwrites: adfort must copy it to keep the calling convention but cannot "
            f"know its size; declare it with explicit bounds (e.g. {label}(n))",
            filename)
    dtype = symbol.datatype.copy()
    if _assumed_shape(symbol):
        dtype = _deferred(dtype)
    return new_local(table, name, dtype, taken)


def _allocate_at_first_use(body, temporaries):
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


def _copy(keep, value):
    """``keep = value``; an allocatable `keep` (the copy of an assumed-shape
    array) is allocated with the value as source, so its bounds are set
    where a reader (and the compiler's -Wuninitialized) sees them."""
    if getattr(keep.datatype, "is_allocatable", False) and not getattr(
            value.datatype, "is_allocatable", False):
        return IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
            Reference(keep), ("source", Reference(value))])
    return Assignment.create(Reference(keep), Reference(value))


def _deferred(dtype):
    """An allocatable array type of `dtype`'s element type and rank."""
    element = dtype.elemental_type
    if not is_derived(dtype):
        element = ScalarType(dtype.intrinsic, dtype.precision)
    return ArrayType(element, [ArrayType.Extent.DEFERRED] * len(dtype.shape))


def _reversing(work, names, arguments, adj_args, tapes, ctx, increments, cleared,
               restored, written, primal_intents=None):
    """Build ``r_rev``: record, then return, keeping the calling convention.

    Independent-only adjoints are increments: if the routine overwrites
    such a variable (argument or module variable), its incoming adjoint is
    set aside while the returning motion computes the adjoint of its input
    value, and added back after.  The adjoint of an ``intent(out)``
    dependent's input value is zero.  Arguments the returning motion
    restores get their computed values back.

    :param increments: names of the independent-only variables.
    :param cleared: names of the ``intent(out)`` dependents.
    """
    table = work.symbol_table
    taken = ctx.taken
    optional = optional_names(work)
    body, epilogue = [], []
    for name in increments:
        if name not in written:
            continue  # nothing zeroes its adjoint: it is incremented in place
        adj = ctx.adjoints[name]
        primal = table.lookup(name, otherwise=None) or ctx.module_variable(name)[1]
        keep = _local_copy(table, adj, naming.input_copy(adj.name), taken, ctx.filename,
                           primal=primal)
        # An absent optional argument has no adjoint to keep.
        body.extend(guarded([_copy(keep, adj)] + zero_statements(adj, table, taken),
                            optional_in([primal], optional)))
        epilogue.extend(guarded(add_statements(adj, keep, table, taken),
                                optional_in([primal], optional)))
    for name in cleared:
        epilogue.extend(guarded(zero_statements(ctx.adjoints[name], table, taken),
                                optional_in([table.lookup(name, otherwise=None)], optional)))
    body.append(_call(names["rec"], [Reference(s) for s in arguments + tapes]))
    saved = []
    for a in arguments:
        if a.name.lower() in restored:
            keep = _local_copy(table, a, naming.output_copy(a.name), taken, ctx.filename)
            body.extend(guarded([_copy(keep, a)], optional_in([a], optional)))
            saved.append((a, keep))
    for module_var in _module_variables(work, restored, arguments, ctx):
        # Module variables the returning motion put back: r_rev leaves them
        # as r does.
        keep = _local_copy(table, module_var, naming.output_copy(module_var.name),
                           taken, ctx.filename)
        body.append(Assignment.create(Reference(keep), Reference(module_var)))
        saved.append((module_var, keep))
    body.append(_call(names["ret"], [Reference(s) for s in adj_args + tapes]))
    for a, keep in saved:
        body.extend(guarded([Assignment.create(Reference(a), Reference(keep))],
                            optional_in([a], optional)))
    body.extend(epilogue)

    intents = dict(primal_intents) if primal_intents else \
        {a.name.lower(): a.interface.access for a in arguments}
    intents.update({s.name.lower(): _INOUT for s in adj_args if s not in arguments})
    return _make_routine(work, names["rev"], body, adj_args, intents, ctx.module_variable, ctx.attributes)


def _module_variables(work, names, arguments, ctx):
    """The module variables among `names` (neither arguments nor locals)."""
    table = work.symbol_table
    arg_names = {a.name.lower() for a in arguments}
    found = []
    for name in sorted(set(names) - arg_names):
        local = table.lookup(name, otherwise=None, scope_limit=work)
        if (isinstance(local, DataSymbol) and not local.is_import and not local.is_unresolved
                and not isinstance(local.interface, CommonBlockInterface)):
            continue  # a local
        resolved = ctx.module_variable(name)
        if resolved is not None:
            found.append(resolved[1])
    return found


def _add(a, b):
    if isinstance(b, int):
        b = _int(b)
    return BinaryOperation.create(BinaryOperation.Operator.ADD, a, b)


def _size(symbol):
    """Number of elements of `symbol` (1 for a scalar), as an expression."""
    if symbol_rank(symbol) == 0:
        return _int(1)
    return IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [Reference(symbol)])


def _offset(symbols):
    """Sum of the sizes of `symbols`, as an expression."""
    total = _int(0)
    for symbol in symbols:
        total = _add(total, _size(symbol))
    return total


def _flat(symbol):
    """`symbol`'s elements in array element order, as a rank-1 value."""
    if symbol_rank(symbol) <= 1:
        return Reference(symbol)
    return IntrinsicCall.create(IntrinsicCall.Intrinsic.PACK, [
        Reference(symbol), Literal("true", ScalarType(ScalarType.Intrinsic.BOOLEAN,
                                                      ScalarType.Precision.UNDEFINED))])


def _jacobian(work, names, arguments, adj_args, ctx, dep, indep, written, taken):
    """Build ``r_jacobian(args, jacobian)``: one reversal per dependent element.

    Row k of the Jacobian is the gradient of the k-th dependent element (in
    ``--dep`` order, array element order within an array): seed it with 1,
    every other adjoint with 0, reverse, and read the independents'
    adjoints along the row.  Inputs the routine overwrites are kept and
    reset before each reversal.
    """
    table = work.symbol_table
    by_name = {a.name.lower(): a for a in arguments}

    def variable(name):  # an argument, or a module/COMMON variable
        return by_name.get(name) or ctx.module_variable(name)[1]
    deps = [variable(d) for d in dep]
    indeps = [variable(i) for i in indep]
    for symbol in deps + indeps:
        if is_derived(symbol.datatype):
            raise AdfortError(
                f"--jacobian with the derived-type variable '{symbol.name}' as dependent "
                "or independent is not supported: use the reversing routine (r_rev), or "
                "name real variables", where(work, ctx.filename))
        if _assumed_size(symbol):
            raise AdfortError(
                f"the Jacobian needs the size of '{symbol.name}', an assumed-size "
                "array: declare it with explicit bounds (x(n))", where(work, ctx.filename))
    kind = real_kind(deps[0])
    jac_name = naming.unique(table, naming.JACOBIAN_ARGUMENT, taken)
    jac = DataSymbol(jac_name, ArrayType(
        ScalarType(ScalarType.Intrinsic.REAL, deps[0].datatype.precision.copy()
                   if hasattr(deps[0].datatype.precision, "copy")
                   else deps[0].datatype.precision),
        [simplify(_offset(deps)), simplify(_offset(indeps))]),
        interface=AutomaticInterface())
    table.add(jac)
    intents = {a.name.lower(): getattr(a.interface, "access", _OUT) for a in arguments}
    body, kept = [], []
    optional = optional_names(work)
    for name in dep + indep:
        if name in optional:
            raise AdfortError(
                f"--jacobian with the optional argument '{name}' as a dependent or "
                "independent: r_jacobian needs it; make it a plain argument",
                where(work, ctx.filename))
    for a in arguments:
        if a.name.lower() in written and intents[a.name.lower()] != _OUT:
            keep = _local_copy(table, a, naming.input_copy(a.name), taken, ctx.filename)
            body.extend(guarded([_copy(keep, a)], optional_in([a], optional)))
            kept.append((a, keep))
    for module_var in _module_variables(work, written, arguments, ctx):
        # Every row starts from the state the routine was called in.
        keep = _local_copy(table, module_var, naming.input_copy(module_var.name), taken,
                           ctx.filename)
        body.append(Assignment.create(Reference(keep), Reference(module_var)))
        kept.append((module_var, keep))
    active = [a for a in arguments if a.name.lower() in dep or a.name.lower() in indep]
    active += [v for v in deps + indeps if v not in active and v not in arguments]
    for adj in (ctx.adjoints[a.name.lower()] for a in active):
        if _assumed_shape(adj):
            primal = by_name[[k for k, v in ctx.adjoints.items() if v is adj][0]]
            body.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                Reference(adj), ("mold", Reference(primal))]))
    element = new_local(table, naming.JACOBIAN_ELEMENT, INTEGER_TYPE, taken)
    for position, d in enumerate(deps):
        d_adj = ctx.adjoints[d.name.lower()]
        row0 = _offset(deps[:position])
        one_row = [s for a, k in kept for s in guarded(
            [Assignment.create(Reference(a), Reference(k))], optional_in([a], optional))]
        for a in active:
            adj = ctx.adjoints[a.name.lower()]
            one_row.append(Assignment.create(Reference(adj), real_literal(0, kind)))
        rank = symbol_rank(d)
        if rank == 0:
            one_row.append(Assignment.create(Reference(d_adj), real_literal(1, kind)))
            row = _add(row0, 1)
        elif rank == 1:
            # Element k in order is d(lbound + k - 1): bounds need not start at 1.
            first = IntrinsicCall.create(IntrinsicCall.Intrinsic.LBOUND, [
                Reference(d_adj), ("dim", _int(1))])
            index = BinaryOperation.create(BinaryOperation.Operator.SUB,
                                           _add(first, Reference(element)), _int(1))
            one_row.append(Assignment.create(_element_of(d_adj, index),
                                             real_literal(1, kind)))
            row = _add(row0, Reference(element))
        else:
            # The k-th element in array element order of a rank-n array:
            # set it in a flat vector, then give the vector d's shape.
            flat = new_local(table, naming.JACOBIAN_SEED, ArrayType(
                ScalarType(d_adj.datatype.intrinsic, d_adj.datatype.precision),
                [ArrayType.Extent.DEFERRED]), taken)
            body.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                ArrayReference.create(flat, [_size(d)])]))
            one_row.append(Assignment.create(Reference(flat), real_literal(0, kind)))
            one_row.append(Assignment.create(_element_of(flat, Reference(element)),
                                             real_literal(1, kind)))
            one_row.append(Assignment.create(Reference(d_adj), intrinsic_call(
                "RESHAPE", [Reference(flat), IntrinsicCall.create(
                    IntrinsicCall.Intrinsic.SHAPE, [Reference(d_adj)])])))
            row = _add(row0, Reference(element))
        one_row.append(_call(names["rev"], [Reference(s) for s in adj_args]))
        for col_position, i in enumerate(indeps):
            col0 = _offset(indeps[:col_position])
            i_adj = ctx.adjoints[i.name.lower()]
            if symbol_rank(i) == 0:
                cols = _add(col0, 1)
            else:
                cols = Range.create(_add(col0.copy(), 1), _add(col0, _size(i)))
            one_row.append(Assignment.create(
                ArrayReference.create(jac, [row.copy(), cols]), _flat(i_adj)))
        if rank == 0:
            body.extend(one_row)
        else:
            body.append(Loop.create(element, _int(1), _size(d), _int(1), one_row))
    simplify_statements(body)
    intents[jac_name.lower()] = _OUT
    return _make_routine(work, names["jacobian"], body, arguments + [jac], intents,
                         ctx.module_variable, ctx.attributes)


def _element_of(symbol, index):
    return ArrayReference.create(symbol, [index])


def _is_character(symbol):
    dtype = getattr(symbol, "datatype", None)
    element = getattr(dtype, "elemental_type", dtype)
    return getattr(element, "intrinsic", None) == ScalarType.Intrinsic.CHARACTER


def _assumed_size(symbol):
    return any(naming.ASSUMED_SIZE in str(getattr(e, "upper", ""))
               for e in getattr(symbol.datatype, "shape", []))


def _assumed_shape(symbol):
    dtype = symbol.datatype
    return isinstance(dtype, ArrayType) and any(
        extent == ArrayType.Extent.ATTRIBUTE for extent in dtype.shape)


class ADReverseRoutineTrans(ADReverseTrans):
    """Reverse-mode differentiation of a Routine into its motions."""

    node_type = Routine

    def apply(self, node, dependents, independents, options, names, filename=None):
        """Return the :class:`RoutineMotions` of `node`."""
        self.validate(node)
        return reverse_routine(node, dependents, independents, options, names, filename)
