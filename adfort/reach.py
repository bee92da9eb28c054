"""The part of an actual array a callee can reach through an explicit-shape
dummy argument.

A whole array given to a dummy declared with explicit bounds (FORTRAN 77
work arrays, ``DOUBLE PRECISION X(NMAX)`` in the caller given to ``X(N)``)
is seen by the callee as its first ``N`` elements in array element order
(sequence association): the callee can neither read nor change the
others.  A caller saving what the call may change, or handing over a
local array on the tape, then needs only that leading section.

Only the simple, common case is recognised: a rank-1 actual array (its
whole name, a local or argument of the caller) and a dummy whose bounds
are literals and the callee's integer arguments, given plain integer
expressions at the call.  Anything else reaches the whole array.

Likewise a local work array of ``NMAX`` elements that a routine only ever
sets on ``1:n`` (:func:`written_section`) is handed over from the
recording to the returning motion on those elements only.
"""

import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, DataNode, IntrinsicCall,
    Literal, Loop, Range, Reference, Schedule)
from psyclone.psyir.symbols import ArrayType, DataSymbol, ScalarType

from adfort import naming
from adfort.exprs import INTEGER_TYPE

_BinOp = BinaryOperation.Operator


def reached(actual, formal, unit, call, written):
    """What a call to `unit` may reach through the whole array `actual`
    given for `formal`: its leading section when the dummy has explicit
    bounds whose size reads nothing the call changes (`written`: lower-case
    names), else None (the whole array)."""
    formals = [f for f in unit.formals if f is not unit.result]
    size = dummy_size(formal, formals, list(call.arguments))
    if size is None or any(r.symbol.name.lower() in written for r in size.walk(Reference)):
        return None
    return leading_section(actual, size)


def _int(value):
    return Literal(str(value), INTEGER_TYPE)


def _value(node):
    return int(node.value) if isinstance(node, Literal) and node.value.lstrip("-").isdigit() \
        else None


def _plus(expr, constant):
    """``expr + constant`` folded: ``n - 1 + 1`` is ``n``."""
    if constant == 0:
        return expr
    if _value(expr) is not None:
        return _int(_value(expr) + constant)
    if isinstance(expr, BinaryOperation) and expr.operator in (_BinOp.ADD, _BinOp.SUB) \
            and _value(expr.children[1]) is not None:
        inner = _value(expr.children[1]) * (1 if expr.operator == _BinOp.ADD else -1)
        return _plus(expr.children[0].copy(), inner + constant)
    operator = _BinOp.ADD if constant > 0 else _BinOp.SUB
    return BinaryOperation.create(operator, expr, _int(abs(constant)))


def _minus(left, right):
    """``left - right`` folded for a literal `right`."""
    if _value(right) is not None:
        return _plus(left, -_value(right))
    return BinaryOperation.create(_BinOp.SUB, left, right)


def _plain_integer(expr):
    """Whether `expr` is integer arithmetic on literals and scalar
    variables (no call, no array element): safe to evaluate again."""
    for node in expr.walk((Call, Reference)):
        if isinstance(node, Call):
            return False
        symbol = node.symbol
        dtype = getattr(symbol, "datatype", None)
        if not isinstance(symbol, DataSymbol) or not isinstance(dtype, ScalarType) \
                or dtype.intrinsic != ScalarType.Intrinsic.INTEGER:
            return False
    return True


def dummy_size(formal, formals, actuals):
    """The number of elements of explicit-shape dummy `formal`, written in
    the caller's terms (the callee's integer arguments replaced by the
    actual expressions given for them), or None.

    :param formals: the callee's formal symbols, in order.
    :param actuals: the actual argument expressions, in the same order.
    """
    dtype = formal.datatype
    if not isinstance(dtype, ArrayType) or \
            getattr(dtype, "is_allocatable", False):
        return None
    given = {f.name.lower(): a for f, a in zip(formals, actuals)}
    size = None
    for bounds in dtype.shape:
        if not isinstance(bounds, ArrayType.ArrayBounds):
            return None   # assumed shape or size: the whole actual
        lower = _in_caller(bounds.lower, given)
        upper = _in_caller(bounds.upper, given)
        if lower is None or upper is None:
            return None
        extent = _plus(_minus(upper, lower), 1)
        size = extent if size is None else BinaryOperation.create(_BinOp.MUL, size, extent)
    return size


def _in_caller(bound, given):
    """Bound expression `bound` of the callee in the caller's terms."""
    if isinstance(bound, Literal):
        return bound.copy()
    if not isinstance(bound, (Reference, BinaryOperation)):
        return None
    expr = bound.copy()
    for ref in expr.walk(Reference):
        actual = given.get(ref.symbol.name.lower())
        if actual is None or not _plain_integer(actual):
            return None   # a constant of the callee's module, a variable…
        replacement = actual.copy()
        if ref is expr:
            expr = replacement
        else:
            ref.replace_with(replacement)
    return expr


def leading_section(actual, size):
    """``a(lb:lb+size-1)`` for the whole rank-1 array `actual` (a
    Reference), with ``lb`` its declared lower bound (LBOUND otherwise),
    or None when `actual` is not such an array."""
    symbol = actual.symbol
    dtype = getattr(symbol, "datatype", None)
    if type(actual) is Reference and isinstance(dtype, ArrayType) and \
            len(dtype.shape) == 2 and size is not None:
        return _leading_columns(symbol, dtype, size)
    if type(actual) is not Reference or not isinstance(dtype, ArrayType) or \
            len(dtype.shape) != 1 or size is None:
        return None
    bounds = dtype.shape[0]
    if isinstance(bounds, ArrayType.ArrayBounds) and isinstance(bounds.lower, Literal) \
            and not getattr(dtype, "is_allocatable", False):
        lower = bounds.lower.copy()
    else:
        lower = IntrinsicCall.create(IntrinsicCall.Intrinsic.LBOUND, [
            Reference(symbol), ("dim", _int(1))])
    if isinstance(lower, Literal):
        upper = _plus(size, int(lower.value) - 1)
    else:
        upper = BinaryOperation.create(_BinOp.ADD, _plus(size, -1), lower.copy())
    if isinstance(bounds, ArrayType.ArrayBounds) and upper == bounds.upper and \
            lower == bounds.lower:
        return Reference(symbol)   # all of it
    return ArrayReference.create(symbol, [Range.create(lower, upper)])


def _leading_columns(symbol, dtype, size):
    """``a(:, lb:lb + (size - 1)/rows)``: the columns of the assumed-size
    matrix ``a(lda, *)`` holding its first `size` elements (it has no last
    bound to take the whole of), or None for another matrix (taken whole)
    or leading bounds that are not plain expressions."""
    from adfort.extents import is_assumed_size
    rows_bounds, columns = dtype.shape
    if not is_assumed_size(symbol) or not isinstance(rows_bounds, ArrayType.ArrayBounds) \
            or not all(isinstance(b, DataNode) for b in (rows_bounds.lower, rows_bounds.upper)):
        return None
    lower = columns.lower.copy() if isinstance(columns, ArrayType.ArrayBounds) and \
        isinstance(columns.lower, DataNode) else _int(1)
    rows = _plus(_minus(rows_bounds.upper.copy(), rows_bounds.lower.copy()), 1)
    last = BinaryOperation.create(_BinOp.ADD, lower.copy(), BinaryOperation.create(
        _BinOp.DIV, _plus(size, -1), rows))
    return ArrayReference.create(symbol, [
        Range.create(rows_bounds.lower.copy(), rows_bounds.upper.copy()),
        Range.create(lower, last)])


def written_section(routine, name, callees, call_writes):
    """The section of local array `name` that `routine` writes, or None
    (then take the whole array).

    Recognised: a rank-1 explicit-shape local, without SAVE or initial
    value, whose every write is ``a(i + c)`` in a DO loop over ``i`` (step
    1 or -1) or a whole ``a`` given to an explicit-shape dummy of a
    differentiated callee (the section it reaches), all of the same
    section, whose bounds read nothing the routine changes; a write that
    may be skipped covers no more than the declared bounds
    (:mod:`adfort.within_bounds`).  The other
    elements are never defined, so the returning motion never reads them:
    a local handed over on the tape needs only that section.

    :param callees: {id(Call): CalleeMotions, or None for a passive call}.
    :param call_writes: {id(call statement): names the call may change}.
    """
    from adfort.tape import written_names
    symbol = routine.symbol_table.lookup(name, otherwise=None)
    dtype = getattr(symbol, "datatype", None)
    if not isinstance(symbol, DataSymbol) or not isinstance(dtype, ArrayType) or \
            len(dtype.shape) != 1 or getattr(dtype, "is_allocatable", False) or \
            symbol.initial_value is not None or not symbol.is_automatic:
        return None
    for block in routine.walk(CodeBlock):
        text = " ".join(str(n).lower() for n in block.parse_tree_nodes)
        if re.search(r"\b%s\b" % re.escape(name), text):
            return None
    # Bounds the returning motion evaluates again: arguments (it gets
    # them as the recording did) and constants, that nothing changes.
    changed = written_names(routine.children, call_writes) | {
        s.name.lower() for s in routine.symbol_table.datasymbols
        if not s.is_argument and not s.is_constant}
    sections = []
    for ref in routine.walk(Reference):
        if ref.symbol is not symbol:
            continue
        parent = ref.parent
        if isinstance(parent, Assignment) and ref is parent.lhs:
            section = _element_write(ref, changed)
        elif isinstance(parent, Call) and not isinstance(parent, IntrinsicCall) \
                and ref is not parent.routine:
            section = _call_write(ref, parent, callees, changed)
        elif isinstance(parent, IntrinsicCall) and isinstance(parent.parent, Schedule):
            return None   # an intrinsic subroutine may write it
        else:
            continue      # read
        if section is None:
            return None
        if section is not False:
            sections.append(section)
    if not sections or any(not isinstance(s, ArrayReference) for s in sections):
        return None   # all of it (leading_section says so with the array)
    bounds = dtype.shape[0]
    if any(not (s == sections[0]) for s in sections[1:]):   # by structure
        return _hull(symbol, [s.indices[0] for s in sections], bounds)
    section = sections[0].indices[0]
    if isinstance(bounds, ArrayType.ArrayBounds) and section.start == bounds.lower \
            and section.stop == bounds.upper:
        return None   # all of it
    return sections[0]


def _hull(symbol, ranges, bounds):
    """The section ``a(lo:hi)`` from the least lower bound of `ranges` to
    the greatest upper one, or None (all of it).  Bounds differing by a
    constant compare (``k - 1``, ``k``); others are taken by MIN and MAX,
    within the declared bounds (a loop that runs no iteration may have
    bounds outside them)."""
    if not isinstance(bounds, ArrayType.ArrayBounds):
        return None
    lower = _extreme([r.start for r in ranges], min, IntrinsicCall.Intrinsic.MIN, bounds.lower)
    upper = _extreme([r.stop for r in ranges], max, IntrinsicCall.Intrinsic.MAX, bounds.upper)
    if lower is None or upper is None:
        return None
    if isinstance(lower, IntrinsicCall):
        lower = IntrinsicCall.create(IntrinsicCall.Intrinsic.MAX, [bounds.lower.copy(), lower])
    # (An assumed-size array has no upper bound to stay within: x(*).)
    if isinstance(upper, IntrinsicCall) and naming.ASSUMED_SIZE not in str(bounds.upper):
        upper = IntrinsicCall.create(IntrinsicCall.Intrinsic.MIN, [bounds.upper.copy(), upper])
    if lower == bounds.lower and upper == bounds.upper:
        return None
    return ArrayReference.create(symbol, [Range.create(lower, upper)])


def _extreme(exprs, pick, intrinsic, bound):
    """The least (`pick` min) or greatest of integer `exprs`: per base
    expression the extreme constant offset, then `intrinsic` of those left;
    the declared `bound` itself when one of them reaches it."""
    from adfort.known_zero import structural_key
    best = {}
    for expr in exprs:
        base, constant = _split_constant(expr)
        key = structural_key(base) if base is not None else None
        if key in best:
            constant = pick(constant, best[key][1])
        best[key] = (base, constant)
    base, constant = _split_constant(bound)
    key = structural_key(base) if base is not None else None
    if key in best and pick(best[key][1], constant) == best[key][1]:
        return bound.copy()
    terms = [_int(c) if base is None else _plus(base.copy(), c)
             for base, c in best.values()]
    if len(terms) == 1:
        return terms[0]
    if len(terms) > 4:
        return None
    return IntrinsicCall.create(intrinsic, terms)


def _split_constant(expr):
    """(base, c) with `expr` = base + c (base None for a constant)."""
    value = _value(expr)
    if value is not None:
        return None, value
    if isinstance(expr, BinaryOperation) and expr.operator in (_BinOp.ADD, _BinOp.SUB) \
            and _value(expr.children[1]) is not None:
        base, constant = _split_constant(expr.children[0])
        step = _value(expr.children[1])
        return base, constant + (step if expr.operator == _BinOp.ADD else -step)
    return expr, 0


def _element_write(ref, changed):
    """The section ``a(lo+c:hi+c)`` an element write ``a(i + c)`` in a DO
    loop over ``i`` covers, or None; kept within ``a``'s declared bounds
    when the write may be skipped (:mod:`adfort.within_bounds`: ``do n =
    0, ncat`` setting ``g(n)`` of ``g(ncat)`` under ``if (n > 0)`` covers
    ``g(1:ncat)``)."""
    from adfort.fresh_elements import _offset, unit_step
    from adfort.within_bounds import clamped, surely_written
    if type(ref) is not ArrayReference or len(ref.indices) != 1:
        return None
    loop = ref.ancestor(Loop)
    while loop is not None:
        offset = _offset(ref.indices[0], loop.variable.name.lower())
        if offset is not None:
            break
        loop = loop.ancestor(Loop)
    if loop is None:
        # One element at a subscript the returning motion evaluates again.
        index = ref.indices[0]
        if isinstance(index, Range) or not _plain_integer(index) or any(
                r.symbol.name.lower() in changed for r in index.walk(Reference)):
            return None
        lower, upper, covering = index.copy(), index.copy(), ()
    else:
        if unit_step(loop) is None:
            return None
        first, last = loop.start_expr, loop.stop_expr
        if unit_step(loop) < 0:
            first, last = last, first
        for bound in (first, last):
            if not _plain_integer(bound) or any(
                    r.symbol.name.lower() in changed for r in bound.walk(Reference)):
                return None
        lower, upper = _plus(first.copy(), offset), _plus(last.copy(), offset)
        covering = (loop,)
    if not surely_written(ref, covering):
        lower, upper = clamped(lower, upper, *declared_bounds(ref.symbol, changed))
    return ArrayReference.create(ref.symbol, [Range.create(lower, upper)])


def declared_bounds(symbol, changed=()):
    """The declared lower and upper bound of rank-1 array `symbol`: its
    declaration's expressions where they are plain integer arithmetic
    reading nothing in `changed` (lower-case names), else ``LBOUND(a, 1)``
    or ``UBOUND(a, 1)``; the upper one None for an assumed-size array."""
    dim = symbol.datatype.shape[0]
    found = []
    for which, intrinsic in (("lower", IntrinsicCall.Intrinsic.LBOUND),
                             ("upper", IntrinsicCall.Intrinsic.UBOUND)):
        bound = getattr(dim, which, None) if isinstance(dim, ArrayType.ArrayBounds) else None
        if which == "upper" and naming.ASSUMED_SIZE in str(bound):
            found.append(None)   # x(*): no upper bound to stay within
        elif isinstance(bound, (Literal, Reference, BinaryOperation)) and \
                _plain_integer(bound) and not any(
                    r.symbol.name.lower() in changed for r in bound.walk(Reference)):
            found.append(bound.copy())
        else:
            found.append(IntrinsicCall.create(intrinsic, [Reference(symbol), ("dim", _int(1))]))
    return found


def _call_write(ref, call, callees, changed):
    """The section a call may write through whole array `ref`: False when
    the callee does not change it, None when unknown."""
    info = callees.get(id(call))
    position = next((p for p, a in enumerate(call.arguments) if a is ref), None)
    if info is None or getattr(info, "opaque", False) or position is None or \
            type(ref) is not Reference or call.argument_names[position] is not None:
        return None
    formals = [f for f in info.unit.formals if f is not info.unit.result]
    if position >= len(formals):
        return None
    if not info.unit.writes_formal(formals[position]):
        return False
    return reached(ref, formals[position], info.unit, call, changed)
