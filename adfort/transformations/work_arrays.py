"""A generated routine's automatic work arrays, taken in one piece.

gfortran takes every automatic array (a local whose bounds are only known
on entry, ``real(wp) :: a(nlev)``) from the heap: one ``malloc``/``free``
per array and call, unless the user builds with ``-fstack-arrays``.  A
column-physics routine called once per column and time step pays that on
every call, and its adjoint motions pay it twice (the primal locals the
returning motion recomputes, and their adjoints): on the vertical
diffusion benchmark the allocations were a seventh of the adjoint's time.

So a generated routine ``r_ret`` with such arrays becomes two:

- ``r_ret_body``: the routine as generated, its automatic arrays of the
  most common type turned into explicit-shape dummy arguments (same
  declarations, so the code reads and compiles as before);
- ``r_ret``: same name and arguments, holding one fixed-size buffer of
  :data:`STACK_ELEMENTS` elements (on the stack: no allocation at all) and
  passing consecutive sections of it to ``r_ret_body``; when the arrays
  need more, one saved allocatable buffer instead, allocated at the first
  call that needs it and again larger when too small, never freed (as the
  tapes are kept).

Sections are passed to explicit-shape dummies of the same size (sequence
association, no copy: the sections are contiguous), so nothing else
changes: callers call ``r_ret`` as before.  The sizes are evaluated on
entry to ``r_ret``, as Fortran evaluates the bounds of automatic arrays on
entry to the routine.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, IfBlock, IntrinsicCall, Literal,
    Node, Range, Reference, Routine, UnaryOperation)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, AutomaticInterface, DataSymbol, RoutineSymbol, ScalarType,
    StaticInterface)

from adfort import naming
from adfort.exprs import INTEGER_TYPE, int_literal
from adfort.prune import prune_symbols
from adfort.transformations.building import _declare_arguments_first, _own_types

# Elements of the fixed-size buffer (16 KiB of double precision): what
# column routines of a few hundred levels need, small for any stack
# (OpenMP threads included).
STACK_ELEMENTS = 2048

_POOLED = (ScalarType.Intrinsic.REAL, ScalarType.Intrinsic.INTEGER,
           ScalarType.Intrinsic.BOOLEAN)


def pool_work_arrays(routine, taken):
    """`routine`, or ``[body, wrapper]`` when it has automatic arrays.

    :param routine: a generated subroutine (detached, or the caller's to
        place); when split, it becomes the body (renamed) in place.
    :param taken: lower-case routine names already used in the output (the
        body's name is added).
    :returns: the list of routines to place, in output order.
    """
    if routine.return_symbol is not None or routine.walk(Routine)[1:]:
        return [routine]    # (a function, or internal procedures: left alone)
    groups = _groups(automatic_arrays(routine))
    if not groups:
        return [routine]
    name = routine.name
    body_name = naming.unique_name(naming.work_body(name), taken)
    taken.add(body_name.lower())

    statements = routine.pop_all_children()
    wrapper = routine.copy()
    for stmt in statements:
        routine.addchild(stmt)
    _own_types(wrapper)

    # The body: the arrays become its last dummy arguments.
    arrays = [a for group in groups for a in group]
    table = routine.symbol_table
    arguments = table.argument_list + arrays
    for symbol in arrays:
        symbol.interface = ArgumentInterface(ArgumentInterface.Access.UNKNOWN)
    table.specify_argument_list(arguments)
    _declare_arguments_first(table)
    routine.name = body_name
    if routine.name != body_name:
        routine._symbol._name = body_name

    _fill_wrapper(wrapper, [[a.name for a in group] for group in groups], body_name)
    return [routine, wrapper]


def automatic_arrays(routine):
    """The local arrays of `routine` whose bounds are only known on entry
    (not arguments, not allocatable, pointer, saved or initialised; of an
    intrinsic type; bounds naming no other such array)."""
    found = []
    for symbol in routine.symbol_table.datasymbols:
        if symbol.is_argument or not isinstance(symbol.interface, AutomaticInterface):
            continue
        if symbol.is_constant or symbol.initial_value is not None:
            continue
        datatype = symbol.datatype
        if type(datatype) is not ArrayType or not isinstance(datatype.elemental_type, ScalarType):
            continue    # (UnsupportedFortranType: pointer, target, save…)
        if datatype.intrinsic not in _POOLED:
            continue
        try:
            shape = datatype.shape
        except AttributeError:  # PSyclone cannot check a bound (cfg%nl of a module)
            continue
        if not all(isinstance(dim, ArrayType.ArrayBounds) for dim in shape):
            continue
        bounds = [b for dim in datatype.shape for b in (dim.lower, dim.upper)]
        if all(_constant(b) for b in bounds):
            continue
        if any(isinstance(call, Call) and not isinstance(call, IntrinsicCall)
               for b in bounds for call in b.walk(Call)):
            continue    # (a user function in a bound: evaluated once only)
        found.append(symbol)
    names = {s.name.lower() for s in found}
    return [s for s in found
            if not any(ref.symbol.name.lower() in names for dim in s.datatype.shape
                       for b in (dim.lower, dim.upper) for ref in b.walk(Reference))]


def _constant(expr):
    """Whether `expr` is a compile-time constant (literals and constants)."""
    return all(isinstance(ref.symbol, DataSymbol) and ref.symbol.is_constant
               for ref in expr.walk(Reference))


def _group_key(symbol):
    """Arrays that can share one buffer: same intrinsic type and kind."""
    precision = symbol.datatype.precision
    if isinstance(precision, Node):
        precision = precision.debug_string()
    return (symbol.datatype.intrinsic.name,
            str(getattr(precision, "name", precision)).lower())


def _groups(arrays):
    """`arrays` by type and kind, the groups of reals first, then by size."""
    groups = {}
    for symbol in arrays:
        groups.setdefault(_group_key(symbol), []).append(symbol)
    return sorted(groups.values(), key=lambda g: (
        g[0].datatype.intrinsic != ScalarType.Intrinsic.REAL, -len(g)))


def _fill_wrapper(wrapper, groups, body_name):
    """Make `wrapper` (a statement-less copy of the routine) pass the body
    sections of one buffer per group of arrays (names): on the stack when
    every group fits in :data:`STACK_ELEMENTS`, else allocated."""
    table = wrapper.symbol_table
    taken = set()
    extents = {}      # text of an extent expression -> (local, expression)

    def new_symbol(name, datatype):
        symbol = DataSymbol(naming.unique(table, name, taken), datatype)
        taken.add(symbol.name.lower())
        table.add(symbol)
        return symbol

    def size(array):
        """(integer factor, extent locals) of `array`: each extent that is
        not a literal is held in a local, shared by arrays of the same
        bounds (the usual case)."""
        factor, locals_ = 1, []
        for dim in array.datatype.shape:
            expr = _extent(dim)
            if isinstance(expr, int):
                factor *= expr
                continue
            key = expr.debug_string().lower()
            if key not in extents:
                extents[key] = (new_symbol(naming.WORK_EXTENT, INTEGER_TYPE), expr)
            locals_.append(extents[key][0])
        return factor, tuple(locals_)

    pools = []    # (sizes, stack buffer, heap buffer) per group
    for names in groups:
        arrays = [table.lookup(n) for n in names]
        element = arrays[0].datatype.elemental_type
        sizes = [size(a) for a in arrays]
        heap = new_symbol(naming.WORK_HEAP, ArrayType(
            element.copy(), [ArrayType.Extent.DEFERRED]))
        heap.interface = StaticInterface()
        pools.append((sizes, new_symbol(naming.WORK_STACK, ArrayType(
            element.copy(), [STACK_ELEMENTS])), heap))

    statements = [Assignment.create(Reference(local), IntrinsicCall.create(
        IntrinsicCall.Intrinsic.MAX, [int_literal(0), expr]))
        for local, expr in extents.values()]
    arguments = [Reference(a) for a in table.argument_list]

    def call(on_stack):
        sections = []
        for sizes, stack, heap in pools:
            for position, size_ in enumerate(sizes):
                before = sizes[:position]
                first = _sum(before + [(1, ())]) if before else int_literal(1)
                sections.append(ArrayReference.create(stack if on_stack else heap, [
                    Range.create(first, _sum(before + [size_]))]))
        return Call.create(RoutineSymbol(body_name), [a.copy() for a in arguments] + sections)

    fits, tested = None, set()
    allocations = []
    for sizes, _, heap in pools:
        fit = BinaryOperation.create(BinaryOperation.Operator.LE, _sum(sizes),
                                     int_literal(STACK_ELEMENTS))
        if fit.debug_string() not in tested:
            tested.add(fit.debug_string())
            fits = fit if fits is None else BinaryOperation.create(
                BinaryOperation.Operator.AND, fits, fit)
        allocations.extend(_grown(heap, _sum(sizes)))
    statements.append(IfBlock.create(fits, [call(True)], allocations + [call(False)]))
    for stmt in statements:
        wrapper.addchild(stmt)
    prune_symbols(wrapper)    # (the arrays, and what only the body uses)


def _grown(heap, need):
    """Statements making the saved buffer `heap` hold at least `need`
    elements: allocated on first use, again larger when too small, never
    freed.  An allocatable local freed at each return made glibc give the
    pages back and fault them in again at the next call (``mmap``, or a
    trimmed heap top): the sea-ice balance's adjoint ran at 2.9 times the
    primal instead of 1.5."""
    allocated = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATED, [Reference(heap)])
    small = BinaryOperation.create(
        BinaryOperation.Operator.LT,
        IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [Reference(heap)]), need.copy())
    return [
        IfBlock.create(allocated, [IfBlock.create(small, [IntrinsicCall.create(
            IntrinsicCall.Intrinsic.DEALLOCATE, [Reference(heap)])])]),
        IfBlock.create(UnaryOperation.create(UnaryOperation.Operator.NOT, allocated.copy()), [
            IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                ArrayReference.create(heap, [need.copy()])])])]


def _extent(dim):
    """The extent of one dimension: an int when both bounds are integer
    literals, else ``upper - lower + 1`` as a node (``upper`` when lower is
    1, ``upper + 1`` when it is 0)."""
    lower, upper = dim.lower, dim.upper
    low = _literal_int(lower)
    high = _literal_int(upper)
    if low is not None and high is not None:
        return max(0, high - low + 1)
    if low is None:
        return BinaryOperation.create(BinaryOperation.Operator.ADD, BinaryOperation.create(
            BinaryOperation.Operator.SUB, upper.copy(), lower.copy()), int_literal(1))
    return _plus(upper, 1 - low)


def _plus(expr, amount):
    """``expr + amount`` (`amount` an int), folded into a trailing literal
    of `expr` (``n + 1`` plus 1 is ``n + 2``)."""
    ops = BinaryOperation.Operator
    if isinstance(expr, BinaryOperation) and expr.operator in (ops.ADD, ops.SUB):
        last = _literal_int(expr.children[1])
        if last is not None:
            amount += last if expr.operator == ops.ADD else -last
            expr = expr.children[0]
    if amount == 0:
        return expr.copy()
    return BinaryOperation.create(ops.ADD if amount > 0 else ops.SUB, expr.copy(),
                                  int_literal(abs(amount)))


def _literal_int(expr):
    """The value of an integer literal, or None."""
    if isinstance(expr, Literal) and expr.value.isdigit():
        return int(expr.value)
    return None


def _sum(sizes):
    """Node of the sum of `sizes` ((integer factor, extent locals) pairs),
    like terms gathered: ``4 * work_extent + work_extent_1 + 1``."""
    totals = {}
    for factor, locals_ in sizes:
        totals[locals_] = totals.get(locals_, 0) + factor
    constant = totals.pop((), 0)
    terms = []
    for locals_, factor in totals.items():
        if factor == 0:
            continue
        node = Reference(locals_[0])
        for local in locals_[1:]:
            node = BinaryOperation.create(BinaryOperation.Operator.MUL, node, Reference(local))
        if factor != 1:
            node = BinaryOperation.create(BinaryOperation.Operator.MUL, int_literal(factor), node)
        terms.append(node)
    if constant or not terms:
        terms.append(int_literal(constant))
    total = terms[0]
    for term in terms[1:]:
        total = BinaryOperation.create(BinaryOperation.Operator.ADD, total, term)
    return total
