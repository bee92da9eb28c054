"""The reversing motion ``r_rev`` (record, then return, keeping the
calling convention: increments, cleared dependents, copies of overwritten
inputs, and the persistent state -- module and COMMON variables, its own
SAVE'd locals -- left as one call of ``r`` leaves it) and ``r_jacobian``
(one reverse sweep per dependent component), both built around the
recording and returning motions."""


import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, IfBlock, IntrinsicCall, Literal, Loop, Range,
    Reference)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, AutomaticInterface, CommonBlockInterface, ContainerSymbol,
    DataSymbol, DataTypeSymbol, ImportInterface, ScalarType, StaticInterface, UnresolvedType,
    UnsupportedFortranType)

from adfort import naming
from adfort.arrays import symbol_rank
from adfort.derived import add_statements, is_derived, zero_statements
from adfort.errors import AdfortError, where
from adfort.optional import guarded, optional_in, optional_names
from adfort.exprs import INTEGER_TYPE, intrinsic_call, real_kind, real_literal
from adfort.simplify import simplify, simplify_statements
from adfort.symbols import new_local

from adfort.extents import section
from adfort.pointers import declared_attribute
from adfort.transformations.building import (
    _assumed_shape, _assumed_size, _call, _deferred, _make_routine)

_IN = ArgumentInterface.Access.READ
_OUT = ArgumentInterface.Access.WRITE
_INOUT = ArgumentInterface.Access.READWRITE


def _int(value):
    return Literal(str(value), INTEGER_TYPE)


def _local_copy(table, symbol, name, taken, filename=None, primal=None, extent=None):
    """A local to hold a copy of `symbol`'s value (sized on assignment
    when `symbol` is an assumed-shape array, or the part of an assumed-size
    one up to its measured `extent`)."""
    if _assumed_size(symbol) and extent is not None:
        return new_local(table, name, _deferred(symbol.datatype), taken)
    if _assumed_size(symbol):
        label = (primal or symbol).name
        raise AdfortError(
            f"'{label}' is an assumed-size array ({label}(*)) that the routine "
            "overwrites: adfort must copy it to keep the calling convention but cannot "
            f"know its size; declare it with explicit bounds (e.g. {label}(n))",
            where(table.node, filename) or filename)
    dtype = symbol.datatype.copy()
    if _assumed_shape(symbol):
        dtype = _deferred(dtype)
    return new_local(table, name, dtype, taken)


def _copy(keep, value, part=None):
    """``keep = value``; an allocatable `keep` (the copy of an assumed-shape
    array) is allocated with the value as source, so its bounds are set
    where a reader (and the compiler's -Wuninitialized) sees them.

    :param part: the reference to copy from instead of all of `value`
        (an assumed-size array up to its extent)."""
    source = part.copy() if part is not None else Reference(value)
    if getattr(keep.datatype, "is_allocatable", False) and not getattr(
            value.datatype, "is_allocatable", False):
        allocate = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [Reference(keep)])
        allocate.append_named_arg("source", source)
        return allocate
    return Assignment.create(Reference(keep), source)


def _part(symbol, of, extents, name):
    """The part of `of` (the argument `name` or its adjoint) r_rev copies:
    None for all of it, a section up to the measured extent of an
    assumed-size argument."""
    extent = extents.get(name)
    return section(symbol, of, extent) if extent is not None else None




def _reversing(work, names, arguments, adj_args, tapes, ctx, increments, cleared,
               restored, written, primal_intents=None, lean=None, extents=None, fused=None):
    """Build ``r_rev``: record, then return, keeping the calling convention.

    Independent-only adjoints are increments: if the routine overwrites
    such a variable (argument or module variable), its incoming adjoint is
    set aside while the returning motion computes the adjoint of its input
    value, and added back after.  The adjoint of an ``intent(out)``
    dependent's input value is zero.  Arguments the returning motion
    restores get their computed values back.

    :param increments: names of the independent-only variables.
    :param cleared: names of the ``intent(out)`` dependents.
    :param lean: for a callee, ``f_rev``'s whole body: the statements of
        its recording the returning motion needs (:mod:`adfort.liveness`),
        then those of the returning motion; it does not give the callee's
        results (its joint callers have them).
    :param extents: {name: DataSymbol} of the assumed-size arguments whose
        extent the recording motion measures (:mod:`adfort.extents`): their
        copies are sections up to it.
    :param fused: (statements of the recording, of the returning motion,
        names of the results the returning motion delivers) to run inline
        instead of calling ``r_rec`` and ``r_ret`` (:mod:`adfort.deferral`).
    """
    extents = extents or {}
    intents = dict(primal_intents) if primal_intents else \
        {a.name.lower(): a.interface.access for a in arguments}
    intents.update({s.name.lower(): _INOUT for s in adj_args if s not in arguments})
    if lean is not None:
        return _make_routine(work, names["rev"], list(lean), adj_args, intents,
                             ctx.module_variable, ctx.attributes)
    table = work.symbol_table
    taken = ctx.taken
    optional = optional_names(work)
    # after_rec: what needs the extents the recording motion measured.
    body, epilogue, after_rec = [], [], []
    for name in increments:
        if name not in written:
            continue  # nothing zeroes its adjoint: it is incremented in place
        adj = ctx.adjoints[name]
        primal = table.lookup(name, otherwise=None) or ctx.module_variable(name)[1]
        keep = _local_copy(table, adj, naming.input_copy(adj.name), taken, ctx.filename,
                           primal=primal, extent=extents.get(name))
        part = _part(primal, adj, extents, name)
        if part is not None:
            # The adjoints of the elements r assigns: kept, zeroed, added back.
            zero = [Assignment.create(part.copy(), real_literal(0, real_kind(adj)))]
            add_back = [Assignment.create(part.copy(), BinaryOperation.create(
                BinaryOperation.Operator.ADD, part.copy(), Reference(keep)))]
        else:
            zero = zero_statements(adj, table, taken)
            add_back = add_statements(adj, keep, table, taken)
        # An absent optional argument has no adjoint to keep.
        (body if part is None else after_rec).extend(guarded(
            [_copy(keep, adj, part)] + zero, optional_in([primal], optional)))
        epilogue.extend(guarded(add_back, optional_in([primal], optional)))
    for name in cleared:
        if _assumed_size(ctx.adjoints[name]):
            # Its size is not known, and the returning motion has already
            # zeroed the adjoint of every element r writes; elements r does
            # not write keep the seed (their output is undefined anyway).
            continue
        epilogue.extend(guarded(zero_statements(ctx.adjoints[name], table, taken),
                                optional_in([table.lookup(name, otherwise=None)], optional)))
    measured = list(extents.values())
    delivered = set()
    if fused is not None:
        body.extend(fused[0])
        delivered = fused[2]
    else:
        body.append(_call(names["rec"], [Reference(s) for s in arguments + tapes + measured]))
    body.extend(after_rec)
    saved = []
    for a in arguments:
        if a.name.lower() in restored and a.name.lower() not in delivered:
            keep = _local_copy(table, a, naming.output_copy(a.name), taken, ctx.filename,
                               extent=extents.get(a.name.lower()))
            part = _part(a, a, extents, a.name.lower())
            body.extend(guarded([_copy(keep, a, part)], optional_in([a], optional)))
            saved.append((part or Reference(a), keep))
    # Persistent state: r_rev leaves it as one call of r does.  The
    # returning motion puts back what the recording changed, at any depth
    # (a callee's f_ret restores the table its callee built in an
    # assumed-size dummy, a DO loop's pops roll a SAVE'd counter back),
    # and which of the callers above may see that is hard to follow
    # through every link (split, joint, an array given as an argument).
    # So, simply: every module and COMMON variable r and its callees may
    # write, and r_rev's own SAVE'd locals when it runs the recording's
    # statements itself (r_rec has its own copy otherwise), is copied
    # once the recording is over and copied back once the returning motion
    # is; a routine that writes none gets no copy.
    persistent = [(module_var, _copy_type(table, module, module_var, ctx))
                  for module, module_var in _module_variables(work, written, arguments, ctx)
                  if module_var.name.lower() in restored or not _pointer(module_var)]
    if fused is not None:
        persistent += _saved_locals(work, written)
    restores = []
    for variable, dtype in persistent:
        keep = new_local(table, naming.output_copy(variable.name), dtype, taken)
        copy = [Assignment.create(Reference(keep), Reference(variable))]
        back = [Assignment.create(Reference(variable), Reference(keep))]
        if getattr(variable.datatype, "is_allocatable", False) or \
                getattr(dtype, "is_allocatable", False):
            # (nothing to copy while unallocated)
            copy = [IfBlock.create(_allocated(variable), copy)]
            back = [IfBlock.create(_allocated(keep), back)]
        body.extend(copy)
        restores.extend(back)
    if fused is not None:
        body.extend(fused[1])
    else:
        body.append(_call(names["ret"], [Reference(s) for s in adj_args + tapes]))
    for target, keep in saved:
        body.extend(guarded([Assignment.create(target.copy(), Reference(keep))],
                            optional_in([target.symbol], optional)))
    body.extend(restores)
    body.extend(epilogue)
    return _make_routine(work, names["rev"], body, adj_args, intents, ctx.module_variable, ctx.attributes)


def _copy_type(table, module, symbol, ctx):
    """The type of a local copy of module variable `symbol` (of `module`).

    Its plain type (TARGET/POINTER left out); a derived type is named
    through a ``use`` of the module defining it, added to `table`: a copy
    of the definition would be another type.
    """
    dtype = symbol.datatype
    if declared_attribute(symbol):
        dtype = dtype.partial_datatype
    element = dtype.elemental_type if isinstance(dtype, ArrayType) else dtype
    found = None
    if isinstance(element, DataTypeSymbol) and ctx.types is not None and \
            ctx.types.program is not None:
        home = ctx.types.program.module(module)
        found = ctx.types.definition(element.name, home) if home is not None else None
    if found is None or found[0] is None:
        return dtype.copy()
    type_symbol = table.lookup(element.name, otherwise=None)
    if not isinstance(type_symbol, DataTypeSymbol):
        container = table.lookup(found[0], otherwise=None)
        if not isinstance(container, ContainerSymbol):
            container = ContainerSymbol(found[0])
            table.add(container)
        type_symbol = DataTypeSymbol(found[1].name, UnresolvedType(),
                                     interface=ImportInterface(container))
        table.add(type_symbol)
    return ArrayType(type_symbol, dtype.shape) if isinstance(dtype, ArrayType) \
        else type_symbol


def _allocated(symbol):
    return IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATED, [Reference(symbol)])


def _pointer(symbol):
    """Whether `symbol` is declared a pointer (a copy of a disassociated
    one could not be taken)."""
    return declared_attribute(symbol) == "POINTER" or \
        "pointer" in str(getattr(symbol.datatype, "declaration", "")).lower().split("::")[0]


def _saved_locals(work, written):
    """(symbol, type of its copy) of `work`'s own SAVE'd (or initialised)
    variables among `written`."""
    found = []
    for symbol in work.symbol_table.datasymbols:
        if symbol.name.lower() not in written or symbol.is_constant \
                or not isinstance(symbol.interface, StaticInterface):
            continue
        dtype = symbol.datatype
        if isinstance(dtype, UnsupportedFortranType) and not re.match(
                r"\s*(?:COMPLEX|DOUBLE\s*COMPLEX)\b", dtype.declaration, re.IGNORECASE):
            dtype = dtype.partial_datatype
            if dtype is None or "pointer" in str(symbol.datatype.declaration).lower():
                continue
        found.append((symbol, dtype.copy()))
    return found


def _module_variables(work, names, arguments, ctx):
    """(module, symbol) of the module variables among `names` (neither
    arguments nor locals)."""
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
            found.append(resolved)
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
    for module, module_var in _module_variables(work, written, arguments, ctx):
        # Every row starts from the state the routine was called in.
        keep = new_local(table, naming.input_copy(module_var.name),
                         _copy_type(table, module, module_var, ctx), taken)
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
