"""Activity analysis: which variables carry derivatives.

A variable is *varied* when its value depends differentiably on an
independent, *useful* when a dependent depends differentiably on it.  Only
variables that are both (plus the dependents and independents themselves,
whose adjoints are arguments) get an adjoint.  The analysis is
flow-insensitive, so it over-approximates: an extra adjoint costs a little
work, a missing one a wrong derivative.
"""

from psyclone.psyir.nodes import (
    ArrayConstructor, ArrayReference, Assignment, BinaryOperation, Call, CodeBlock,
    IntrinsicCall, Literal, Reference, UnaryOperation)
from psyclone.psyir.symbols import DataSymbol, ScalarType

from adfort import rules
from adfort.derived import holds_reals, is_derived, is_real_value, is_variable, value_type

_DIFFERENTIABLE_BINARY = {"ADD", "SUB", "MUL", "DIV", "POW"}
_DIFFERENTIABLE_UNARY = {"MINUS", "PLUS"}


def operation_name(node):
    """The rules-table key of an operation node (``"MUL"``, ``"SIN"``…)."""
    if isinstance(node, (BinaryOperation, UnaryOperation)):
        return node.operator.name
    if isinstance(node, IntrinsicCall):
        return node.intrinsic.name
    return None


def operands(node):
    """The argument expressions of an operation node, in order."""
    if isinstance(node, IntrinsicCall):
        return list(node.arguments)
    return list(node.children)


def is_real(symbol):
    """Whether `symbol` is a variable that can carry derivatives: a real
    (floating-point) one, or one of a derived type with real components."""
    dtype = getattr(symbol, "datatype", None)
    if not isinstance(symbol, DataSymbol):
        return False
    if is_derived(dtype):
        return holds_reals(dtype)
    return getattr(dtype, "intrinsic", None) == ScalarType.Intrinsic.REAL


def is_complex(symbol):
    """Whether `symbol` is declared COMPLEX (PSyIR keeps such declarations
    as unsupported text)."""
    declaration = getattr(getattr(symbol, "datatype", None), "declaration", None) or ""
    return " ".join(declaration.upper().split()).startswith(("COMPLEX", "DOUBLE COMPLEX"))


# Intrinsics whose value is never complex, whatever their arguments are
# (REAL(z), ABS(z), AIMAG(z): the real parts and modulus of a complex).
_NEVER_COMPLEX = frozenset((
    "REAL", "DBLE", "FLOAT", "AIMAG", "ABS", "INT", "NINT", "FLOOR", "CEILING", "ANINT",
    "AINT", "SIZE", "SHAPE", "LBOUND", "UBOUND", "KIND", "PRECISION", "RANGE", "DIGITS",
    "EPSILON", "HUGE", "TINY", "MAXVAL", "MINVAL", "MAX", "MIN", "ATAN2", "HYPOT",
    "NORM2", "SIGN", "MOD", "MODULO", "DIM"))
# Intrinsics whose value is complex whatever their arguments are.
_ALWAYS_COMPLEX = frozenset(("CMPLX", "CONJG"))


def is_complex_literal(node):
    """Whether `node` is a complex literal constant ``(0.3d0, 0.4d0)``
    (PSyIR keeps it as an expression CodeBlock)."""
    return isinstance(node, CodeBlock) and \
        [type(n).__name__ for n in node.parse_tree_nodes] == ["Complex_Literal_Constant"]


def is_complex_value(expr, symbol_of=None, memo=None):
    """Whether the value of expression `expr` is complex: a complex
    variable, literal or function result, or an operation taking one that
    does not return a real part or modulus of it.

    :param symbol_of: ``symbol_of(reference)``: the symbol whose
        declaration gives the type of a reference (a module variable seen
        through a USE); the reference's own symbol when None.
    :param memo: {id(node): answer} of the operations already asked.
    """
    if memo is not None and isinstance(expr, _OPERATION_NODES):
        found = memo.get(id(expr))
        if found is None:
            found = memo[id(expr)] = _is_complex_value(expr, symbol_of, memo)
        return found
    return _is_complex_value(expr, symbol_of, memo)


def _is_complex_value(expr, symbol_of, memo):
    from adfort.intrinsics import PASSIVE
    if is_complex_literal(expr):
        return True
    if isinstance(expr, Literal):
        return False
    if is_variable(expr):
        symbol = symbol_of(expr) if symbol_of is not None else expr.symbol
        if type(expr) is not Reference and not isinstance(expr, ArrayReference):
            declaration = getattr(value_type(expr), "declaration", None) or ""
            return " ".join(declaration.upper().split()).startswith(
                ("COMPLEX", "DOUBLE COMPLEX"))
        return is_complex(symbol)
    if isinstance(expr, IntrinsicCall):
        name = expr.intrinsic.name
        if name in _ALWAYS_COMPLEX:
            return True
        if name in _NEVER_COMPLEX or name in PASSIVE:
            return False
        return any(is_complex_value(a, symbol_of, memo) for a in expr.arguments)
    if isinstance(expr, BinaryOperation):
        return expr.operator.name in _DIFFERENTIABLE_BINARY and any(
            is_complex_value(c, symbol_of, memo) for c in expr.children)
    if isinstance(expr, UnaryOperation):
        return expr.operator.name in _DIFFERENTIABLE_UNARY and \
            is_complex_value(expr.children[0], symbol_of, memo)
    if isinstance(expr, Call):
        # A user function: its result's declaration.
        return is_complex(getattr(expr.routine, "symbol", None))
    if isinstance(expr, ArrayConstructor):
        return any(is_complex_value(c, symbol_of, memo) for c in expr.children)
    return False


_OPERATION_NODES = (BinaryOperation, UnaryOperation, IntrinsicCall, ArrayConstructor)


def carries_derivative(symbol):
    """Whether a derivative can flow through `symbol`: a real variable, or a
    complex one (adfort differentiates no complex value, but must see one
    become active to say so)."""
    return is_real(symbol) or is_complex(symbol)


def argument_names(node):
    """The names an intrinsic call gives its arguments (None for
    positional ones); None for operators."""
    if isinstance(node, IntrinsicCall):
        return list(node.argument_names)
    return None


def differentiable_args(node):
    """The indices of `node`'s operands through which derivatives flow.

    Comparisons and logical operators pass none; an intrinsic without a
    rule passes all (so activity over-approximates) and the fence reports
    it when an active value reaches it.
    """
    name = operation_name(node)
    if isinstance(node, BinaryOperation) and name not in _DIFFERENTIABLE_BINARY:
        return []
    if isinstance(node, UnaryOperation) and name not in _DIFFERENTIABLE_UNARY:
        return []
    return rules.differentiable_indices(name, len(operands(node)), argument_names(node))


def differentiable_references(expr):
    """Yield the References in `expr` through which a derivative can flow.

    Array indices, kind arguments and arguments of piecewise-constant
    intrinsics are skipped.
    """
    if isinstance(expr, Literal):
        return
    if is_variable(expr):
        if (is_real(expr.symbol) and is_real_value(expr)) or is_complex(expr.symbol):
            yield expr
        return
    if isinstance(expr, (BinaryOperation, UnaryOperation, IntrinsicCall)):
        args = operands(expr)
        for i in differentiable_args(expr):
            yield from differentiable_references(args[i])
    elif isinstance(expr, ArrayConstructor):
        # (Seen so that activity is right; the fence rejects an active one.)
        for element in expr.children:
            yield from differentiable_references(element)


def active_variables(routine, dependents, independents):
    """Return the lower-case names of the variables that need an adjoint.

    :param routine: the PSyIR Routine.
    :param dependents: names of the dependent variables.
    :param independents: names of the independent variables.
    """
    assignments = [a for a in routine.walk(Assignment)]
    edges = []  # (target name, source names)
    for assign in assignments:
        if not ((is_real(assign.lhs.symbol) and is_real_value(assign.lhs))
                or is_complex(assign.lhs.symbol)):
            continue
        sources = {r.symbol.name.lower() for r in differentiable_references(assign.rhs)}
        edges.append((assign.lhs.symbol.name.lower(), sources))
        if assign.is_pointer:  # an alias: writes through it change its target
            for source in sources:
                edges.append((source, {assign.lhs.symbol.name.lower()}))

    varied = {n.lower() for n in independents}
    useful = {n.lower() for n in dependents}
    changed = True
    while changed:
        changed = False
        for target, sources in edges:
            if target not in varied and sources & varied:
                varied.add(target)
                changed = True
            if target in useful and not sources <= useful:
                useful |= sources
                changed = True
    return (varied & useful) | {n.lower() for n in dependents} | \
        {n.lower() for n in independents}
