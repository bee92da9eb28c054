"""Indicator factors of partial derivatives: 1 where a condition holds,
else 0 (MAX, MIN, DIM, MERGE…).

An indicator is written ``REAL(MERGE(1, 0, c1) * MERGE(1, 0, c2), kind)``:
a choice between integers and their product compile, at gfortran -O2 on
x86-64, to conditional moves, where ``MERGE(1.0, 0.0, c1 .AND. c2)`` (a
choice between reals, an ``.and.``) compiles to branches, mispredicted
whenever the condition follows the data (which regime of a flux limiter
a ratio falls in).  The chain rule multiplies the indicators of nested
operations (``max(0, min(2*r, 1), min(r, 2))``); :func:`merge_conversions`
(a rule of :mod:`adfort.simplify`) gathers them into one conversion, so
that no real factor is a lone 0-or-1 the compiler would branch on again.
On the advection benchmark the limiter's adjoint went from half of the
adjoint's time to a third.
"""

from psyclone.psyir.nodes import BinaryOperation, IntrinsicCall, Literal

from adfort.exprs import intrinsic_call

_MUL = BinaryOperation.Operator.MUL


def is_indicator_choice(node):
    """Whether `node` is ``MERGE(1, 0, c)`` or a product of such."""
    if isinstance(node, BinaryOperation) and node.operator == _MUL:
        return all(is_indicator_choice(child) for child in node.children)
    if not (isinstance(node, IntrinsicCall) and node.intrinsic.name == "MERGE"):
        return False
    args = node.arguments
    return (len(args) == 3 and isinstance(args[0], Literal) and args[0].value == "1"
            and isinstance(args[1], Literal) and args[1].value == "0")


def is_indicator(node):
    """Whether `node` is ``REAL(choice[, kind])`` or ``DBLE(choice)`` of an
    indicator choice (:func:`is_indicator_choice`)."""
    return (isinstance(node, IntrinsicCall) and node.intrinsic.name in ("REAL", "DBLE")
            and node.arguments and is_indicator_choice(node.arguments[0]))


def _kind_text(node):
    """What fixes an indicator's kind: the intrinsic and its kind argument."""
    kinds = [a.debug_string().lower() for a, name in zip(node.arguments, node.argument_names)
             if name is not None and name.lower() == "kind"]
    return (node.intrinsic.name, tuple(kinds))


def merge_conversions(node):
    """``REAL(a, k) * REAL(b, k)`` → ``REAL(a * b, k)`` for indicators, also
    across a product: ``(x * REAL(a, k)) * REAL(b, k)`` → ``x * REAL(a * b,
    k)`` (a simplification rule: the replacement, or None)."""
    if not (isinstance(node, BinaryOperation) and node.operator == _MUL):
        return None
    left, right = node.children
    if not is_indicator(right):
        return None
    if is_indicator(left):
        outer, other = None, left
    elif isinstance(left, BinaryOperation) and left.operator == _MUL \
            and is_indicator(left.children[1]):
        outer, other = left.children[0], left.children[1]
    else:
        return None
    if _kind_text(other) != _kind_text(right):
        return None
    product = BinaryOperation.create(_MUL, other.arguments[0].copy(),
                                     right.arguments[0].copy())
    arguments = [product] + [arg.copy() if name is None else (name, arg.copy())
                             for arg, name in zip(other.arguments[1:],
                                                  other.argument_names[1:])]
    merged = intrinsic_call(other.intrinsic.name, arguments)
    if outer is None:
        return merged
    return BinaryOperation.create(_MUL, outer.copy(), merged)
