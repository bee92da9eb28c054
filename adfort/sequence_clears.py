"""The elements an array element given as the start of an array dummy
(sequence association, ``call fill(n, a(k))``) loses the derivatives of,
when the callee overwrites the dummy with values that carry none.

The dummy's declared extents, written in the call's actual arguments
(:func:`adfort.extents.declared_elements`), count the elements it spans:
``a(k:k+n-1)`` for a vector ``a``, whose adjoints the reversal of the call
clears.  Where they cannot be counted (an assumed-size dummy, bounds from
other variables) or may change during the call, there is no answer and the
caller reports the call.
"""

from psyclone.psyir.nodes import ArrayReference, BinaryOperation, Literal, Range, Reference
from psyclone.psyir.symbols import DataSymbol

from adfort.exprs import int_literal
from adfort.extents import declared_elements


def cleared_reach(call, actual, formal, formals, may_write):
    """The section of `actual`'s array the dummy `formal` spans, or None.

    :param call: the call giving `actual` (an element of a vector).
    :param formals: the call's dummies, matched to its arguments.
    :param may_write: ``may_write(dummy)``: whether the callee may change
        the argument given for `dummy` (a subscript or an extent read from
        it would not hold its value at the call).
    """
    if not isinstance(actual, ArrayReference) or len(actual.indices) != 1:
        return None
    by_name = {f.name.lower(): a for a, f in zip(call.arguments, formals) if f is not None}
    count = declared_elements(formal, by_name)
    if count is None:
        return None
    first = actual.indices[0]
    names = {r.symbol.name.lower() for node in (first, count) for r in node.walk(Reference)}
    for argument, dummy in zip(call.arguments, formals):
        if dummy is not None and isinstance(argument, Reference) and \
                argument.symbol.name.lower() in names and may_write(dummy):
            return None
    for node in (first, count):
        for ref in node.walk(Reference):
            symbol = ref.symbol
            # A module or COMMON variable the callee might change: no answer.
            if not isinstance(symbol, DataSymbol) or symbol.is_unresolved or \
                    not (symbol.is_argument or symbol.is_automatic or symbol.is_constant):
                return None
    value = _integer_value(count)
    if value is None:
        last = BinaryOperation.create(
            BinaryOperation.Operator.SUB,
            BinaryOperation.create(BinaryOperation.Operator.ADD, first.copy(), count.copy()),
            int_literal(1))
    elif value == 1:
        last = first.copy()
    else:
        last = BinaryOperation.create(BinaryOperation.Operator.ADD, first.copy(),
                                      int_literal(value - 1))
    return ArrayReference.create(actual.symbol, [Range.create(first.copy(), last)])


_FOLD = {BinaryOperation.Operator.ADD: lambda a, b: a + b,
         BinaryOperation.Operator.SUB: lambda a, b: a - b,
         BinaryOperation.Operator.MUL: lambda a, b: a * b}


def _integer_value(node):
    """The value of an integer expression of literals (``2 - 1 + 1``), or None."""
    if isinstance(node, Literal):
        return int(node.value) if node.value.isdigit() else None
    if isinstance(node, BinaryOperation) and node.operator in _FOLD:
        left, right = (_integer_value(child) for child in node.children)
        if left is not None and right is not None:
            return _FOLD[node.operator](left, right)
    return None
