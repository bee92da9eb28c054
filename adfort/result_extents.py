"""The bounds of a function's array result as a caller sees them.

A result declared ``w(n)`` or ``w(size(v))`` has the extents its dummy
arguments give at each call: ``f(n-1, x(2:n))`` returns n-1 values.  A
temporary the caller keeps the value in is sized from the actual
arguments (``n - 1``, ``SIZE(x(2:n))``), at the call, since they may
change between calls (a loop index).
"""

from psyclone.psyir.nodes import BinaryOperation, IntrinsicCall, Literal, Reference
from psyclone.psyir.symbols import ArgumentInterface, ArrayType, ScalarType

from adfort.errors import AdfortError, where
from adfort.exprs import INTEGER_TYPE
from adfort.optional import callee_formals, matched_formals

BinOp = BinaryOperation.Operator
_INQUIRIES = ("SIZE", "LBOUND", "UBOUND")


class _Inexpressible(Exception):
    """A bound names a dummy argument in a way the caller cannot restate."""


def result_bounds(call, callee, datatype, filename=None):
    """[(lower, upper)] of each dimension of the result `datatype` of
    `callee` at `call`, with each dummy argument replaced by its actual;
    None when the declared shape names no dummy argument (it serves the
    caller as it is).

    None too when the restated bounds are the declared ones and fixed in
    the caller (``f(n, x)`` with its own unchanging ``n``).

    :raises AdfortError: for a bound adfort cannot restate (an element of
        an array dummy, an optional argument left out).
    """
    shape = getattr(datatype, "shape", None)
    if not shape or callee is None or not hasattr(callee, "formals"):
        return None
    formals = {f.name.lower(): f for f in callee_formals(callee)}
    bounds = [(d.lower, d.upper) for d in shape if isinstance(d, ArrayType.ArrayBounds)]
    if len(bounds) != len(shape) or not any(
            isinstance(r, Reference) and r.symbol.name.lower() in formals
            for pair in bounds for b in pair if hasattr(b, "walk") for r in b.walk(Reference)):
        return None
    actuals = {f.name.lower(): a for a, f in zip(call.arguments, matched_formals(
        call, callee_formals(callee))) if f is not None}
    try:
        restated = [tuple(_restated(b, formals, actuals) for b in pair) for pair in bounds]
    except _Inexpressible as err:
        raise AdfortError(
            f"the extent of the result of function '{call.routine.name}' depends on "
            f"its argument '{err}' in a way adfort cannot restate at the call: store "
            "the result in an array the caller declares (t = f(...)) and use that",
            where(call, filename)) from None
    if all(_same(new, old) for pair, pair_old in zip(restated, bounds)
           for new, old in zip(pair, pair_old)) and _fixed(restated, call):
        return None   # f(n, x) with the caller's own, unchanging n
    return restated


def result_length(call, callee, datatype):
    """`datatype` of a CHARACTER result whose length names the callee's
    dummies (``character(len=len(s)) :: r``) with them replaced by the
    call's actuals (``len(opt)``), for a temporary of the caller; None
    when nothing needs restating.

    :raises AdfortError: for a length adfort cannot restate."""
    if not isinstance(datatype, ScalarType) or \
            datatype.intrinsic != ScalarType.Intrinsic.CHARACTER or \
            callee is None or not hasattr(callee, "formals"):
        return None
    length = datatype.length
    formals = {f.name.lower(): f for f in callee_formals(callee)}
    if not hasattr(length, "walk") or not any(
            r.symbol.name.lower() in formals for r in length.walk(Reference)):
        return None
    actuals = {f.name.lower(): a for a, f in zip(call.arguments, matched_formals(
        call, callee_formals(callee))) if f is not None}
    try:
        restated = _substitute(length.copy(), formals, actuals)
    except _Inexpressible as err:
        raise AdfortError(
            f"the length of the result of function '{call.routine.name}' depends on its "
            f"argument '{err}' in a way adfort cannot restate at the call: store the "
            "result in a variable the caller declares (s = f(...)) and use that",
            where(call)) from None
    new = datatype.copy()
    new.length = restated
    return new


def _same(new, old):
    text = getattr(old, "debug_string", None)
    return text is not None and new.debug_string().lower() == text().lower()


def _fixed(bounds, call):
    """Whether `bounds` may size a local of the routine `call` is in: they
    name only its arguments and constants, none of which it changes."""
    from psyclone.psyir.nodes import CodeBlock, Routine
    from adfort.tape import invariant, written_names
    routine = call.ancestor(Routine)
    if routine is None or routine.walk(CodeBlock):
        return False
    table = routine.symbol_table
    # (an INTENT(IN) argument cannot change; others may where written or
    # given to a call)
    written = written_names(routine.children)
    for pair in bounds:
        for bound in pair:
            for ref in bound.walk(Reference):
                if isinstance(ref.parent, IntrinsicCall) and ref is ref.parent.routine:
                    continue
                symbol = table.lookup(ref.symbol.name, otherwise=None)
                if getattr(symbol, "is_constant", False) or getattr(symbol, "is_argument", False) \
                        and symbol.interface.access == ArgumentInterface.Access.READ:
                    continue
                if not getattr(symbol, "is_argument", False) \
                        or not invariant(Reference(symbol), written):
                    return False
    return True


def _restated(bound, formals, actuals):
    if not hasattr(bound, "walk"):
        return Literal(str(bound), INTEGER_TYPE)
    return _substitute(bound.copy(), formals, actuals)


def _substitute(expr, formals, actuals):
    """`expr` (detached or not) with the dummies replaced by the actuals."""
    if (isinstance(expr, IntrinsicCall) and expr.intrinsic.name in _INQUIRIES
            and expr.arguments and type(expr.arguments[0]) is Reference
            and expr.arguments[0].symbol.name.lower() in formals):
        return _inquiry(expr, formals, actuals)
    if isinstance(expr, Reference):
        name = expr.symbol.name.lower()
        if name not in formals:
            return expr
        if type(expr) is not Reference or isinstance(formals[name].datatype, ArrayType) \
                or actuals.get(name) is None:
            raise _Inexpressible(formals[name].name)
        return actuals[name].copy()
    for child in list(expr.children):
        new = _substitute(child, formals, actuals)
        if new is not child:
            child.replace_with(new.detach() if new.parent is not None else new)
    return expr


def _inquiry(call, formals, actuals):
    """SIZE, LBOUND or UBOUND of an array dummy, in the caller's terms:
    from its declared bounds where it has them, else from its actual."""
    name = call.arguments[0].symbol.name.lower()
    formal, actual = formals[name], actuals.get(name)
    shape = formal.datatype.shape if isinstance(formal.datatype, ArrayType) else None
    dims = call.arguments[1:]
    if actual is None or shape is None or len(dims) > 1 or (
            dims and not (isinstance(dims[0], Literal) and dims[0].value.isdigit())):
        raise _Inexpressible(formal.name)
    which = call.intrinsic.name
    if not dims:
        if which != "SIZE" or len(shape) > 1 and not all(_explicit(d) for d in shape):
            raise _Inexpressible(formal.name)
        if not _explicit(shape[0]):
            return IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [actual.copy()])
        product = None
        for dim in shape:
            extent = _extent(dim, formals, actuals)
            product = extent if product is None else BinaryOperation.create(
                BinOp.MUL, product, extent)
        return product
    k = int(dims[0].value)
    if not 0 < k <= len(shape):
        raise _Inexpressible(formal.name)
    dim = shape[k - 1]
    if _explicit(dim):
        if which == "SIZE":
            return _extent(dim, formals, actuals)
        return _restated(dim.lower if which == "LBOUND" else dim.upper, formals, actuals)
    if dim == ArrayType.Extent.DEFERRED:
        # (an allocatable or pointer dummy: the actual's own bounds)
        return IntrinsicCall.create(call.intrinsic, [actual.copy(), ("dim", _int(k))])
    size = IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [actual.copy(), ("dim", _int(k))])
    lower = _restated(dim.lower, formals, actuals) \
        if isinstance(dim, ArrayType.ArrayBounds) else _int(1)
    if which == "SIZE":
        return size
    if which == "LBOUND":
        return lower
    return BinaryOperation.create(BinOp.SUB, BinaryOperation.create(BinOp.ADD, lower, size),
                                  _int(1))


def _explicit(dim):
    return isinstance(dim, ArrayType.ArrayBounds) and hasattr(dim.upper, "walk")


def _extent(dim, formals, actuals):
    upper = _restated(dim.upper, formals, actuals)
    if isinstance(dim.lower, Literal) and dim.lower.value == "1":
        return upper
    lower = _restated(dim.lower, formals, actuals)
    return BinaryOperation.create(BinOp.ADD, BinaryOperation.create(BinOp.SUB, upper, lower),
                                  _int(1))


def _int(value):
    return Literal(str(value), INTEGER_TYPE)
