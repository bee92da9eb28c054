"""Reverse-mode differentiation of one routine: its four motions.

The advancing motion is the original routine.  From a working copy of it
this builds the recording motion ``r_rec`` (the original statements, each
overwrite preceded by a push of the value the returning motion will need),
the returning motion ``r_ret`` (statements' adjoints in reverse order, each
preceded by the restore of the value its statement overwrote) and the
reversing motion ``r_rev`` (record, then return), plus ``r_jacobian`` on
request.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, Literal, Loop, Reference, Routine,
    WhileLoop)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, AutomaticInterface, DataSymbol, ScalarType,
    RoutineSymbol)

from adfort import naming
from adfort.activity import active_variables
from adfort.arrays import expr_rank, symbol_rank
from adfort.context import ADContext
from adfort.exprs import INTEGER_TYPE, real_kind, real_literal
from adfort.normalise import deallocate_at_end, normalise_jumps
from adfort.prune import prune_symbols
from adfort.tape import TapeSet
from adfort.taping import plan_taping
from adfort.transformations.assignment import assignment_adjoint
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.reverser import Reverser

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


def _enclosing_loop_indices(node):
    names = set()
    parent = node.parent
    while parent is not None:
        if isinstance(parent, Loop):
            names.add(parent.variable.name.lower())
        parent = parent.parent
    return names


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
    return names - _enclosing_loop_indices(assign)


def _argument_symbols(table):
    return list(table.argument_list)


def _make_routine(work, name, body, arguments, intents):
    """Return a new Routine: `work` with `body`, `arguments` and `intents`.

    The routine is a copy of the working routine, so it keeps its
    declarations (kinds, parameters, imports); unused ones are pruned.

    :param work: the working copy of the original routine.
    :param str name: the new routine's name.
    :param body: the statements (detached nodes using `work`'s symbols).
    :param arguments: the argument symbols of `work`, in order.
    :param intents: argument name (lower case) -> access.
    """
    work.pop_all_children()
    for stmt in body:
        work.addchild(stmt.detach() if stmt.parent is not None else stmt)
    routine = work.copy()
    routine.name = name
    work.pop_all_children()
    table = routine.symbol_table
    new_args = [table.lookup(sym.name) for sym in arguments]
    for sym in table.datasymbols:
        if sym.is_argument and sym not in new_args:
            sym.interface = AutomaticInterface()
    for sym in new_args:
        sym.interface = ArgumentInterface(intents[sym.name.lower()])
    table.specify_argument_list(new_args)
    prune_symbols(routine)
    _declare_arguments_first(table)
    _standard_kinds(table)
    return routine


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
    the parameters), so adjoints added late would otherwise trail.
    """
    symbols = table._symbols
    order = [table._normalize(a.name) for a in table.argument_list]
    rest = [key for key in symbols if key not in order]
    reordered = {key: symbols[key] for key in order + rest}
    symbols.clear()
    symbols.update(reordered)


def _call(name, references):
    return Call.create(RoutineSymbol(name), references)


def reverse_routine(routine, dependents, independents, options, names, filename=None):
    """Generate the motions of `routine`.

    :param routine: the PSyIR Routine (not modified).
    :param dependents: names of dependent arguments, in order.
    :param independents: names of independent arguments, in order.
    :param options: checked options (see :mod:`adfort.context`).
    :param names: dict with the names to give ``rec``, ``ret``, ``rev``,
        ``jacobian`` and ``taken`` (names visible in the output scope).
    :param filename: the source file, for messages.
    :rtype: :class:`RoutineMotions`
    """
    work = routine.copy()
    table = work.symbol_table
    taken = set(names.get("taken", ()))
    normalise_jumps(work, taken)
    deallocate_at_end(work)
    arguments = _argument_symbols(table)
    arg_names = [a.name.lower() for a in arguments]
    dep = [d.lower() for d in dependents]
    indep = [i.lower() for i in independents]
    active = active_variables(work, dep, indep)
    ctx = ADContext(table, active, options, taken, filename)

    assignments = work.walk(Assignment)
    adjoints = {id(a): assignment_adjoint(a, ctx) for a in assignments}
    reads = {id(a): adjoint_reads(a, adjoints[id(a)], ctx) for a in assignments}
    written = {a.lhs.symbol.name.lower() for a in assignments} | \
        {loop.variable.name.lower() for loop in work.walk(Loop)}
    # Allocatable locals are handed over by their (explicit) deallocation.
    allocatables = {sym.name.lower() for sym in table.datasymbols
                    if getattr(sym.datatype, "is_allocatable", False)}
    plan = plan_taping(work.children, reads, written - set(arg_names) - allocatables)

    taped_arrays = any(expr_rank(a.lhs) > 0 for a in assignments if id(a) in plan.taped)
    dynamic = bool(work.walk((Loop, WhileLoop))) or taped_arrays or plan.taped_arrays or any(
        symbol_rank(table.lookup(n)) > 0 for n in plan.finals)
    tapes = TapeSet(table, dynamic, taken)
    reverser = Reverser(ctx, tapes, plan, adjoints)
    body_rec, body_ret = reverser.block(list(work.children))

    # The returning motion has its own locals: those it reads after their
    # last write are handed over through the tape.
    final_rec, final_ret = [], []
    for name in plan.finals:
        save, restore = tapes.save(Reference(table.lookup(name)))
        final_rec.extend(save)
        final_ret = restore + final_ret
    rec_body = body_rec + final_rec
    if dynamic:
        # Room for the pushes outside loops; also allocates on first use.
        needs = tapes.top_level_need()
        rec_body = [s for t in tapes.tapes
                    for s in t.reserve(needs.get(t, _int(0)), checked=False)] + rec_body

    active_args = [a for a in arg_names if a in dep or a in indep]
    ret_body = list(final_ret)
    for name, adj in sorted(ctx.adjoints.items()):
        # Allocatable adjoints are zeroed where they are allocated.
        if name not in active_args and not getattr(adj.datatype, "is_allocatable", False):
            ret_body.append(Assignment.create(
                Reference(adj), real_literal(0, real_kind(adj))))
    ret_body.extend(body_ret)

    restored = {a.lhs.symbol.name.lower() for a in assignments if id(a) in plan.taped}
    restored |= {loop.variable.name.lower() for loop in work.walk(Loop)
                 if id(loop) in plan.loop_indices}
    restored |= {name for _, name in plan.taped_arrays}

    tape_list = tapes.finalise()
    tape_args = []
    if not dynamic:
        for tape in tape_list:
            table.add(tape.symbol)
            tape_args.append(tape.symbol)

    primal_intents = {a.name.lower(): a.interface.access for a in arguments}
    adj_args = []
    for a in arguments:
        adj_args.append(a)
        if a.name.lower() in active_args:
            adj_args.append(ctx.adjoints[a.name.lower()])

    rec_intents = dict(primal_intents)
    rec_intents.update({t.name.lower(): _OUT for t in tape_args})
    recording = _make_routine(work, names["rec"], rec_body,
                              arguments + tape_args, rec_intents)

    ret_intents = {a: (_INOUT if a in restored else _IN) for a in arg_names}
    ret_intents.update({ctx.adjoints[a].name.lower(): _INOUT for a in active_args})
    ret_intents.update({t.name.lower(): _IN for t in tape_args})
    returning = _make_routine(work, names["ret"], ret_body,
                              adj_args + tape_args, ret_intents)

    reversing = _reversing(work, names, arguments, adj_args, tape_args, ctx,
                           active_args, dep, indep, restored, written)
    jacobian = None
    if options["jacobian"]:
        jacobian = _jacobian(work, names, arguments, adj_args, ctx, dep, indep,
                             written, taken)
    return RoutineMotions(recording, returning, reversing, jacobian, tape_list, dynamic)


def _int(value):
    return Literal(str(value), INTEGER_TYPE)


def _local_copy(table, symbol, name, taken):
    copy = DataSymbol(naming.unique(table, name, taken), symbol.datatype.copy(),
                      interface=AutomaticInterface())
    table.add(copy)
    return copy


def _reversing(work, names, arguments, adj_args, tapes, ctx, active_args,
               dep, indep, restored, written):
    """Build ``r_rev``: record, then return, keeping the calling convention.

    Independent-only adjoints are increments: if the routine overwrites
    such a variable, its incoming adjoint is set aside while the returning
    motion computes the adjoint of its input value, and added back after.
    Arguments the returning motion restores get their computed values back.
    """
    table = work.symbol_table
    taken = ctx.taken
    body, epilogue = [], []
    for name in active_args:
        if name in indep and name not in dep and name in written:
            adj = ctx.adjoints[name]
            keep = _local_copy(table, adj, naming.input_copy(adj.name), taken)
            body.append(Assignment.create(Reference(keep), Reference(adj)))
            body.append(Assignment.create(Reference(adj),
                                          real_literal(0, real_kind(adj))))
            epilogue.append(Assignment.create(
                Reference(adj), _add(Reference(adj), Reference(keep))))
    body.append(_call(names["rec"], [Reference(s) for s in arguments + tapes]))
    saved = []
    for a in arguments:
        if a.name.lower() in restored:
            keep = _local_copy(table, a, naming.output_copy(a.name), taken)
            body.append(Assignment.create(Reference(keep), Reference(a)))
            saved.append((a, keep))
    body.append(_call(names["ret"], [Reference(s) for s in adj_args + tapes]))
    for a, keep in saved:
        body.append(Assignment.create(Reference(a), Reference(keep)))
    body.extend(epilogue)

    intents = {a.name.lower(): a.interface.access for a in arguments}
    intents.update({ctx.adjoints[a].name.lower(): _INOUT for a in active_args})
    return _make_routine(work, names["rev"], body, adj_args, intents)


def _add(a, b):
    return BinaryOperation.create(BinaryOperation.Operator.ADD, a, b)


def _jacobian(work, names, arguments, adj_args, ctx, dep, indep, written, taken):
    """Build ``r_jacobian(args, jacobian)``: one reversal per dependent.

    Row k of the Jacobian is the gradient of dependent k: seed it with 1,
    every other adjoint with 0, reverse, read the independents' adjoints.
    Inputs the routine overwrites are kept and reset between reversals.
    """
    table = work.symbol_table
    kind = real_kind(table.lookup(dep[0]))
    jac_name = naming.unique(table, naming.JACOBIAN_ARGUMENT, taken)
    jac = DataSymbol(jac_name, ArrayType(
        table.lookup(dep[0]).datatype.copy(),
        [Literal(str(len(dep)), INTEGER_TYPE), Literal(str(len(indep)), INTEGER_TYPE)]),
        interface=AutomaticInterface())
    table.add(jac)
    intents = {a.name.lower(): a.interface.access for a in arguments}
    kept = []
    body = []
    for a in arguments:
        if a.name.lower() in written and intents[a.name.lower()] != _OUT:
            keep = _local_copy(table, a, naming.input_copy(a.name), taken)
            body.append(Assignment.create(Reference(keep), Reference(a)))
            kept.append((a, keep))
    active_args = [a.name.lower() for a in arguments
                   if a.name.lower() in dep or a.name.lower() in indep]
    # The adjoints are locals of r_jacobian, not arguments.
    for row, d in enumerate(dep, start=1):
        if row > 1:
            body.extend(Assignment.create(Reference(a), Reference(k)) for a, k in kept)
        for name in active_args:
            adj = ctx.adjoints[name]
            value = 1 if name == d else 0
            body.append(Assignment.create(Reference(adj), real_literal(value, kind)))
        body.append(_call(names["rev"], [Reference(s) for s in adj_args]))
        for col, i in enumerate(indep, start=1):
            element = ArrayReference.create(jac, [Literal(str(row), INTEGER_TYPE),
                                                  Literal(str(col), INTEGER_TYPE)])
            body.append(Assignment.create(element, Reference(ctx.adjoints[i])))
    intents[jac_name.lower()] = _OUT
    return _make_routine(work, names["jacobian"], body, arguments + [jac], intents)


class ADReverseRoutineTrans(ADReverseTrans):
    """Reverse-mode differentiation of a Routine into its motions."""

    node_type = Routine

    def apply(self, node, dependents, independents, options, names, filename=None):
        """Return the :class:`RoutineMotions` of `node`."""
        self.validate(node)
        return reverse_routine(node, dependents, independents, options, names, filename)
