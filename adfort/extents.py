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
    ArrayReference, Assignment, BinaryOperation, IntrinsicCall, Literal, Range, Reference)
from adfort import naming
from adfort.errors import AdfortError, where
from adfort.exprs import INTEGER_TYPE, int_literal
from adfort.symbols import new_local


def is_assumed_size(symbol):
    """Whether `symbol` is an assumed-size array (``x(*)``, ``x(1)`` of F77)."""
    return any(naming.ASSUMED_SIZE in str(getattr(e, "upper", ""))
               for e in getattr(symbol.datatype, "shape", []))


def measured_arguments(arguments, names, writes_elsewhere, routine, filename):
    """The assumed-size arguments among `names` (lower case) whose extent
    the recording motion measures.

    :param writes_elsewhere: {lower-case name: what else writes it (text)}
        for arguments changed by a call or a READ, which cannot be measured.
    :raises AdfortError: for such an argument.
    """
    found = []
    for symbol in arguments:
        name = symbol.name.lower()
        if name not in names or not is_assumed_size(symbol):
            continue
        if name in writes_elsewhere:
            raise AdfortError(
                f"'{symbol.name}' is an assumed-size array ({symbol.name}(*)) that "
                f"{writes_elsewhere[name]} overwrites: adfort must copy what the routine "
                "changes to keep the calling convention but cannot tell how far that "
                f"reaches; declare it with explicit bounds (e.g. {symbol.name}(n))",
                where(routine, filename) or filename)
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
        parent = stmt.parent
        if parent is None:
            body.insert(next(i for i, s in enumerate(body) if s is stmt), keep)
        else:
            parent.children.insert(stmt.position, keep)
    body.insert(0, start)


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
