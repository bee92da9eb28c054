"""Run-time extents of the assumed-size arguments a routine overwrites.

``r_rev`` keeps copies of what ``r`` overwrites: the outputs of arguments
the returning motion puts back, and the incoming adjoints of independents
whose values ``r`` changes (see :mod:`adfort.transformations.reversing`).
An assumed-size dummy (``x(*)``, ``a(lda, *)``, F77's ``x(1)``) has no size
to copy, and LAPACK- or SLATEC-style routines overwrite theirs in place.

The recording motion of the routine differentiated therefore measures
what it assigns: before each assignment to such an argument it keeps
``x_extent = MAX(x_extent, i)`` of the last subscript ``i`` (the upper
bound of a section), starting from the last dimension's lower bound minus
one, and hands the value back in an extra ``intent(out)`` argument after
its tapes.  ``r_rev`` then copies ``x(…, lo:x_extent)``: every element the
returning motion may touch, and never one past what the routine itself
assigned.  Writes adfort cannot measure (a call or a READ changing the
argument) keep the error asking for explicit bounds.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, DataNode, IfBlock, IntrinsicCall,
    Literal, Range, Reference, Schedule)
from psyclone.psyir.symbols import ArrayType

from adfort import naming
from adfort.errors import AdfortError, where
from adfort.exprs import INTEGER_TYPE, int_literal
from adfort.optional import callee_formals, matched_formals
from adfort.program import user_calls
from adfort.symbols import new_local


def is_assumed_size(symbol):
    """Whether `symbol` is an assumed-size array (``x(*)``, ``x(1)`` of F77)."""
    return any(naming.ASSUMED_SIZE in str(getattr(e, "upper", ""))
               for e in getattr(symbol.datatype, "shape", []))


def measured_arguments(arguments, names, writes_elsewhere, routine, filename):
    """The assumed-size arguments among `names` (lower case) whose extent
    the recording motion measures.

    :param writes_elsewhere: {lower-case name: the statement} for
        arguments changed by a call or an I/O statement, which cannot be
        measured.
    :raises AdfortError: for such an argument, at that statement.
    """
    found = []
    for symbol in arguments:
        name = symbol.name.lower()
        if name not in names or not is_assumed_size(symbol):
            continue
        if name in writes_elsewhere:
            stmt = writes_elsewhere[name]
            raise AdfortError(
                f"'{symbol.name}' is an assumed-size array ({symbol.name}(*)) that this "
                "statement may overwrite: adfort must copy what the routine changes to "
                "keep the calling convention but cannot tell how far that reaches "
                "(only a differentiated callee's vector dummy given the array or an "
                "element of it is measured); declare it with explicit bounds (e.g. "
                f"{symbol.name}(n))",
                (where(stmt, filename) if stmt is not None else None)
                or where(routine, filename) or filename)
        found.append(symbol)
    return found


def extent_argument(table, symbol, taken):
    """A new integer DataSymbol for the extent of `symbol` (an
    ``intent(out)`` argument of the recording motion)."""
    return new_local(table, naming.extent(symbol.name), INTEGER_TYPE.copy(), taken)


def _lower(symbol):
    return symbol.datatype.shape[-1].lower


def measure(body, symbol, extent, filename=None):
    """Statements of the recording motion `body` (a list, changed in place)
    keeping in `extent` the largest last subscript assigned in `symbol`."""
    start = Assignment.create(Reference(extent), _minus_one(_lower(symbol).copy()))
    for stmt in [s for top in body for s in top.walk(Assignment)]:
        if stmt.lhs.symbol is not symbol and stmt.lhs.symbol.name.lower() != \
                symbol.name.lower():
            continue
        if not isinstance(stmt.lhs, ArrayReference):
            continue
        last = stmt.lhs.indices[-1]
        if isinstance(last, Range):
            step = last.step
            if not (isinstance(step, Literal) and step.value == "1"):
                raise AdfortError(
                    f"'{stmt.lhs.debug_string()}' assigns a strided section of the "
                    f"assumed-size array '{symbol.name}': adfort cannot tell the last "
                    "element it reaches; declare the array with explicit bounds",
                    where(stmt, filename))
            last = last.stop
        keep = Assignment.create(Reference(extent), IntrinsicCall.create(
            IntrinsicCall.Intrinsic.MAX, [Reference(extent), last.copy()]))
        _insert(body, stmt, keep, after=False)
    for call in [c for top in body for c in top.walk(Call)]:
        for actual, count, guard in getattr(call, "adfort_extents", ()):
            if actual.symbol.name.lower() != symbol.name.lower():
                continue
            # A callee's dummy starting at `actual` that it assigns `count`
            # elements of at most (when `guard` holds).
            keep = Assignment.create(Reference(extent), IntrinsicCall.create(
                IntrinsicCall.Intrinsic.MAX, [Reference(extent), _last_reached(
                    symbol, actual, count, filename)]))
            if guard is not None:
                keep = IfBlock.create(guard.copy(), [keep])
            _insert(body, _statement(call), keep, after=True)
    body.insert(0, start)


def reached_any(formal, extent):
    """Whether `extent` shows an assignment to the vector dummy `formal`."""
    return BinaryOperation.create(BinaryOperation.Operator.GE, Reference(extent),
                                  _lower(formal).copy())


def declared_elements(formal, actuals):
    """The number of elements of the explicit-shape dummy `formal` as an
    expression of the call's `actuals` ({lower-case dummy name: actual}),
    or None when its bounds need more than literals and other dummies."""
    shape = getattr(formal.datatype, "shape", None)
    if not shape or is_assumed_size(formal):
        return None
    return _product(shape, actuals)


def measured_elements(formal, extent, actuals):
    """The number of elements of the assumed-size dummy `formal` up to
    the last subscript held in `extent` (whole leading columns: ``a(lda,
    *)`` reaches ``lda*(extent - lo + 1)`` elements), as an expression of
    the call's `actuals`; None when a leading bound needs more than
    literals and other dummies."""
    shape = formal.datatype.shape
    last = _caller_terms(_sub(Reference(extent), shape[-1].lower.copy()), actuals,
                         keep=extent)
    if last is None:
        return None
    last = _add(last, int_literal(1))
    if len(shape) == 1:
        return last
    leading = _product(shape[:-1], actuals)
    return None if leading is None else BinaryOperation.create(
        BinaryOperation.Operator.MUL, leading, last)


def _product(dims, actuals):
    count = None
    for dim in dims:
        if not isinstance(dim, ArrayType.ArrayBounds) or not all(
                isinstance(bound, DataNode) for bound in (dim.lower, dim.upper)):
            return None     # (an assumed shape with a lower bound: h(0:))
        extent = _caller_terms(_add(_sub(dim.upper.copy(), dim.lower.copy()),
                                    int_literal(1)), actuals)
        if extent is None:
            return None
        count = extent if count is None else BinaryOperation.create(
            BinaryOperation.Operator.MUL, count, extent)
    return count


def _caller_terms(expr, actuals, keep=None):
    """`expr` (a new expression in the callee's terms) with each dummy
    replaced by its actual; None when it names anything else (but
    `keep`)."""
    for ref in expr.walk(Reference):
        if ref.symbol is keep:
            continue
        actual = actuals.get(ref.symbol.name.lower())
        if actual is None or not ref.symbol.is_argument:
            return None
        if ref is expr:
            return actual.copy()
        ref.replace_with(actual.copy())
    return expr


def _statement(node):
    """The statement holding `node` (a function call's assignment)."""
    while node.parent is not None and not isinstance(node.parent, Schedule):
        node = node.parent
    return node


def _insert(body, stmt, new, after):
    """Put `new` before or after the statement `stmt` of `body`."""
    parent = stmt.parent
    if parent is None:
        body.insert(next(i for i, s in enumerate(body) if s is stmt) + after, new)
    else:
        parent.children.insert(stmt.position + after, new)


def _sub(a, b):
    return BinaryOperation.create(BinaryOperation.Operator.SUB, a, b)


def _add(a, b):
    return BinaryOperation.create(BinaryOperation.Operator.ADD, a, b)


def _last_reached(symbol, actual, count, filename):
    """The last subscript of `symbol` a callee reaches through `actual`
    (the array, or an element starting its dummy) when it assigns `count`
    elements from there: by array element order."""
    dims = symbol.datatype.shape
    offset = None     # elements of `symbol` before the actual's first
    stride = None     # elements per step of the last subscript
    for position, dim in enumerate(dims):
        extent = None if position == len(dims) - 1 else _add(
            _sub(dim.upper.copy(), dim.lower.copy()), int_literal(1))
        if isinstance(actual, ArrayReference):
            index = actual.indices[position]
            if isinstance(index, Range):
                raise AdfortError(
                    f"'{actual.debug_string()}': a section of the assumed-size array "
                    f"'{symbol.name}' given to a routine that assigns it: adfort cannot "
                    "tell how far that reaches; pass its first element, or declare the "
                    "array with explicit bounds", where(actual, filename))
            term = _sub(index.copy(), dim.lower.copy())
            if stride is not None:
                term = BinaryOperation.create(BinaryOperation.Operator.MUL, term,
                                              stride.copy())
            offset = term if offset is None else _add(offset, term)
        if extent is not None:
            stride = extent if stride is None else BinaryOperation.create(
                BinaryOperation.Operator.MUL, stride, extent)
    last = _sub(count.copy(), int_literal(1))
    if offset is not None:
        last = _add(offset, last)
    if stride is not None:
        last = BinaryOperation.create(BinaryOperation.Operator.DIV, last, stride)
    return _add(_lower(symbol).copy(), last)


def _minus_one(expr):
    if isinstance(expr, Literal) and expr.value.lstrip("-").isdigit():
        return int_literal(int(expr.value) - 1)
    return BinaryOperation.create(BinaryOperation.Operator.SUB, expr, int_literal(1))


def section(symbol, of, extent):
    """``of(l1:u1, …, lo:extent)``: the part of the array `of` (`symbol`
    or its adjoint, of the same shape) up to `extent` in the last
    dimension."""
    indices = [Range.create(dim.lower.copy(), dim.upper.copy())
               for dim in symbol.datatype.shape[:-1]]
    indices.append(Range.create(_lower(symbol).copy(), Reference(extent)))
    return ArrayReference.create(of, indices)


def measured_links(unit, chosen, schedule):
    """(caller, callee) names of `unit`'s joint links that must be
    reversed split: calls giving an assumed-size array of `unit` (whole, or
    an element starting the callee's array) to a dummy the callee
    overwrites and reads on entry.

    A joint reversal would put that array back before ``f_rev``, copying
    what the callee overwrites, which nothing bounds; the split reversal's
    ``f_rec`` measures how far it writes instead (see the module
    docstring).  A link the user names keeps what was asked (and the
    joint reversal's error, :func:`adfort.transformations.call._sequence_base`).

    :param chosen: the routines differentiated (the callees considered).
    :param schedule: the reversal schedule so far.
    """
    links = set()
    for call in user_calls(unit.work):
        callee = unit.calls.get(id(call))
        if callee is None or callee not in chosen or getattr(callee, "opaque", False):
            continue
        if schedule.is_split(unit.name, callee.name) or schedule.names(unit.name, callee.name):
            continue
        formals = matched_formals(call, callee_formals(callee))
        for actual, formal in zip(call.arguments, formals):
            if formal is None or not isinstance(actual, Reference) or \
                    not is_assumed_size(actual.symbol):
                continue
            if isinstance(actual, ArrayReference) and (
                    not getattr(formal.datatype, "shape", None)
                    or any(isinstance(i, Range) for i in actual.indices)):
                continue    # one element, or a section with its bounds
            if callee.writes_formal(formal) and callee.reads_on_entry(formal):
                links.add((unit.name, callee.name))
                break
    return links
