"""Shapes of expressions: how many dimensions a value has.

Adjoints flow elementwise through array expressions; where an array-valued
adjoint meets a scalar variable (a scalar broadcast into an array
expression) the contributions are summed.
"""

from psyclone.psyir.nodes import (
    ArrayConstructor, ArrayReference, BinaryOperation, IntrinsicCall, Literal,
    Member, Range, Reference, UnaryOperation)
from psyclone.psyir.nodes.array_mixin import ArrayMixin
from psyclone.psyir.symbols import ArrayType, ScalarType

from adfort.derived import STRUCTURE_REFERENCES, reference_rank

# Intrinsics whose result has the rank of their (first) array argument
# minus one per DIM argument, zero without it.
_REDUCTIONS = {"SUM", "PRODUCT", "MAXVAL", "MINVAL", "COUNT", "ANY", "ALL",
               "NORM2", "MAXLOC", "MINLOC"}
_SCALAR_RESULTS = {"DOT_PRODUCT", "SIZE", "ALLOCATED", "PRESENT", "KIND",
                   "EPSILON", "HUGE", "TINY", "DIGITS", "PRECISION", "RANGE"}
_RANK_ONE_RESULTS = {"PACK", "SHAPE"}


_INQUIRIES = frozenset({"LBOUND", "UBOUND", "SIZE", "SHAPE", "KIND"})


def is_shape_inquiry(ref):
    """Whether `ref` is the array a shape inquiry asks about (a section
    ``a(:)`` reads as ``a(LBOUND(a, 1):UBOUND(a, 1))``): it reads no value
    of it."""
    parent = ref.parent
    return (isinstance(parent, IntrinsicCall) and parent.intrinsic.name in _INQUIRIES
            and bool(parent.arguments) and parent.arguments[0] is ref)


def is_assumed_extent(extent):
    """Whether a dimension of an array type is assumed-shape: ``:`` or
    ``lb:`` (NEMO's ``DIMENSION(A2D_T(kttf))`` gives ``(ntsi-nn_hls-1)*kttf+1:``)."""
    if extent == ArrayType.Extent.ATTRIBUTE:
        return True
    return isinstance(extent, ArrayType.ArrayBounds) and \
        extent.upper == ArrayType.Extent.ATTRIBUTE


def symbol_rank(symbol):
    """Number of dimensions of `symbol`'s declared type (0 for scalars)."""
    dtype = getattr(symbol, "datatype", None)
    return len(dtype.shape) if isinstance(dtype, ArrayType) else 0


def is_substring(reference):
    """Whether `reference` ends with a substring range (PSyclone reads
    ``task(1:5)`` of a character scalar as an array section)."""
    dtype = getattr(reference.symbol, "datatype", None)
    element = getattr(dtype, "elemental_type", dtype)
    return (isinstance(reference, ArrayReference)
            and getattr(element, "intrinsic", None) == ScalarType.Intrinsic.CHARACTER
            and len(reference.indices) > symbol_rank(reference.symbol))


def vector_subscript(reference):
    """The first subscript of `reference` (or of one of its components,
    ``s%a(idx)``) that is an integer array, ``x(idx)``, ``x(n+1-idx)``, or
    None: a vector subscript, which selects elements in any order, possibly
    the same one twice."""
    node = reference
    while node is not None:
        if isinstance(node, ArrayMixin):
            for index in node.indices:
                if not isinstance(index, Range) and expr_rank(index) > 0:
                    return index
        node = getattr(node, "member", None) if isinstance(node, (Reference, Member)) \
            else None
    return None


def expr_rank(node):
    """Number of dimensions of the value of expression `node`."""
    if isinstance(node, Literal):
        return 0
    if type(node) in STRUCTURE_REFERENCES:
        return reference_rank(node)
    if isinstance(node, ArrayReference):
        indices = node.indices
        if is_substring(node):
            indices = indices[:-1]   # task(1:5) is a substring, not a section
        # A vector subscript (``w(idx)``) is a dimension too.
        return sum(1 for index in indices
                   if isinstance(index, Range) or expr_rank(index) > 0)
    if type(node) is Reference:
        return symbol_rank(node.symbol)
    if isinstance(node, (BinaryOperation, UnaryOperation)):
        return max((expr_rank(c) for c in node.children), default=0)
    if isinstance(node, IntrinsicCall):
        name = node.intrinsic.name
        args = list(node.arguments)
        names = [n.lower() if n else None for n in node.argument_names]
        if name in _SCALAR_RESULTS:
            return 0
        if name in _RANK_ONE_RESULTS:
            return 1
        if name in ("LBOUND", "UBOUND"):
            return 0 if len(args) > 1 else 1
        if name in _REDUCTIONS:
            has_dim = "dim" in names or (len(args) > 1 and names[1] is None
                                         and expr_rank(args[1]) == 0
                                         and name not in ("MAXLOC", "MINLOC"))
            return max(expr_rank(args[0]) - 1, 0) if has_dim else (
                1 if name in ("MAXLOC", "MINLOC") else 0)
        if name == "FINDLOC":
            # FINDLOC(array, value[, dim][, mask…]): a positional DIM is
            # the third argument, a scalar (MASK conforms with ARRAY).
            has_dim = "dim" in names or (len(args) > 2 and names[2] is None
                                         and expr_rank(args[2]) == 0)
            return max(expr_rank(args[0]) - 1, 0) if has_dim else 1
        if name == "MATMUL":
            return expr_rank(args[0]) + expr_rank(args[1]) - 2
        if name == "TRANSPOSE":
            return 2
        if name == "SPREAD":
            return expr_rank(args[0]) + 1
        if name == "RESHAPE":
            return _shape_length(args[names.index("shape")] if "shape" in names else args[1])
        return max((expr_rank(a) for a in args), default=0)  # elemental
    if isinstance(node, ArrayConstructor):
        return 1
    return 0


def _shape_length(shape):
    """The number of elements of a RESHAPE shape argument: the rank of the
    result (``[n, m]``, ``SHAPE(a)``, a named constant ``(/n, m/)``)."""
    if isinstance(shape, ArrayConstructor):
        return len(shape.children)
    if isinstance(shape, IntrinsicCall) and shape.intrinsic.name == "SHAPE":
        return expr_rank(shape.arguments[0])
    dtype = getattr(getattr(shape, "symbol", None), "datatype", None)
    if type(shape) is Reference and isinstance(dtype, ArrayType) and len(dtype.shape) == 1:
        upper = getattr(dtype.shape[0], "upper", None)
        lower = getattr(dtype.shape[0], "lower", None)
        if isinstance(upper, Literal) and isinstance(lower, Literal):
            return int(upper.value) - int(lower.value) + 1
    initial = getattr(getattr(shape, "symbol", None), "initial_value", None)
    if isinstance(initial, ArrayConstructor):
        return len(initial.children)
    return 1
