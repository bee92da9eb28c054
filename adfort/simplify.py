'''Algebraic simplification of PSyIR expressions.

The adjoint generator produces many expressions such as ``x*1.0_wp + 0``
or ``a - (-b)``.  This module tidies them while keeping Fortran semantics:
the type, kind and (up to signed zeros / NaN propagation) the value of
every rewritten expression is unchanged.

Design
------
* One small function per rule.  A rule receives a node that is still
  attached to its tree (so it can look at its context) and returns either
  ``None`` (does not apply) or a *new, detached* replacement node built
  from copies.  Rules never modify the tree themselves.
* :func:`simplify` walks the tree bottom-up (post-order).  At every node
  the first matching rule of :data:`RULES` is applied; the replacement is
  not revisited in the same pass.  Up to ``n_times`` passes are made and
  the walk stops early when a pass changes nothing.

Type safety
-----------
* A rule that drops a literal (``x*1``, ``x+0``, ``x**1``, ...) only fires
  when that literal cannot change the type or kind of the result.  When
  the type of ``x`` is unknown only default-kind integer literals are
  dropped (a default integer never promotes ``x`` in mixed arithmetic).
* A rule that replaces an expression by a new constant (``0*x``,
  ``x**0``) builds the constant with the type of the expression it
  replaces.  When that type is unknown it only fires on the direct
  right-hand side of an assignment (where Fortran converts anyway).
  A scalar constant replaces an array expression only when the value
  flows through elemental operations into an assignment.
* Operands containing calls to user (non-intrinsic) functions are never
  discarded, and an argument of a user call is never rewritten into a
  bare variable (that would turn pass-by-value-of-expression into
  pass-by-reference).
* Constant folding uses exact rational arithmetic (``fractions``).
  Integers use Fortran truncating division and are only folded when the
  result fits the kind.  Reals are folded only when both operands and the
  exact result are exactly representable in the (smallest plausible)
  binary format of the kind, so the folded literal is bit-identical to
  what the compiled program would compute; e.g. ``0.5*3.0`` folds to
  ``1.5`` but ``0.1+0.2`` is left alone.  Two reals must have the same
  kind; a real and an integer fold to the real's kind.
'''

from fractions import Fraction
from typing import Callable, Iterable, List, Optional, Tuple, Union

from psyclone.psyir.nodes import (
    Assignment, BinaryOperation, Call, DataNode, IntrinsicCall, Literal,
    Node, Operation, Reference, UnaryOperation)
from psyclone.psyir.symbols import ArrayType, DataSymbol, ScalarType

from adfort.constants import (
    fits, is_literal_value, kind_number, make_constant, numeric_constant)
from adfort.indicators import merge_conversions

__all__ = ["simplify", "simplify_statements", "RULES"]

BOp = BinaryOperation.Operator
UOp = UnaryOperation.Operator
INTEGER = ScalarType.Intrinsic.INTEGER
REAL = ScalarType.Intrinsic.REAL
UNDEFINED = ScalarType.Precision.UNDEFINED
SINGLE = ScalarType.Precision.SINGLE
DOUBLE = ScalarType.Precision.DOUBLE

#: The arithmetic operators the rules know about.
_ARITH = (BOp.ADD, BOp.SUB, BOp.MUL, BOp.DIV, BOp.POW)
#: Largest exponent for which ``**`` of two constants is folded.
_MAX_FOLD_EXPONENT = 64


# ---------------------------------------------------------------------------
# Type helpers
# ---------------------------------------------------------------------------

def _dtype(node: Node):
    '''The PSyIR datatype of node, or None if PSyclone cannot tell.'''
    try:
        return node.datatype
    except Exception:  # pylint: disable=broad-except
        return None


def _scalar_type(dtype) -> Optional[ScalarType]:
    '''The numeric (integer/real) element type of dtype, or None.'''
    partial = getattr(dtype, "partial_datatype", None)
    if partial is not None:
        dtype = partial
    if isinstance(dtype, ScalarType):
        stype = dtype
    elif isinstance(getattr(dtype, "elemental_type", None), ScalarType):
        stype = dtype.elemental_type
    else:
        return None
    return stype if stype.intrinsic in (INTEGER, REAL) else None


def _is_array(dtype) -> bool:
    '''Whether dtype is (or may be) an array type.'''
    partial = getattr(dtype, "partial_datatype", None)
    if partial is not None:
        dtype = partial
    return not isinstance(dtype, ScalarType)


def _array_value(node: Node) -> bool:
    '''Whether the value of expression node is an array, as adfort's rank
    rules tell (where PSyclone's types cannot).'''
    from adfort.arrays import expr_rank   # (late: arrays' imports reach adfort.simplify)
    try:
        return expr_rank(node) > 0
    except Exception:  # pylint: disable=broad-except
        return False


def _node_type(node: Node) -> Optional[ScalarType]:
    '''The numeric element type of the expression node, or None.'''
    return _scalar_type(_dtype(node))


def _precision_name(prec) -> Optional[str]:
    '''Lower-case name of a named kind (Reference or DataSymbol), or None.'''
    if isinstance(prec, Reference):
        return prec.symbol.name.lower()
    if isinstance(prec, DataSymbol):
        return prec.name.lower()
    return None


def _same_precision(prec1, prec2, intrinsic) -> bool:
    '''Whether two precisions denote the same kind.'''
    name1, name2 = _precision_name(prec1), _precision_name(prec2)
    if name1 is not None or name2 is not None:
        return name1 == name2
    if intrinsic == REAL:
        # Default real: PSyclone uses UNDEFINED for "1.0" and SINGLE for
        # "1.0e0", but both are the default real kind in Fortran.
        default = (UNDEFINED, SINGLE)
        if prec1 in default and prec2 in default:
            return True
    return prec1 == prec2


def _same_type(type1: ScalarType, type2: ScalarType) -> bool:
    return (type1.intrinsic == type2.intrinsic and
            _same_precision(type1.precision, type2.precision,
                            type1.intrinsic))


def _promote(type1: Optional[ScalarType],
             type2: Optional[ScalarType]) -> Optional[ScalarType]:
    '''Element type of ``a op b`` for numeric operands of the given types
    (Fortran 2008, 7.1.9.3), or None when it cannot be decided.'''
    if type1 is None or type2 is None:
        return None
    if type1.intrinsic != type2.intrinsic:
        return type1 if type1.intrinsic == REAL else type2
    if _same_type(type1, type2):
        return type1
    if type1.intrinsic == INTEGER:
        # A default-kind integer combined with an explicit integer kind
        # gives the explicit kind unless it may be narrower than default.
        for default, other in ((type1, type2), (type2, type1)):
            if (default.precision == UNDEFINED and
                    kind_number(other.precision) not in (1, 2)):
                return other
    else:
        # Double precision is guaranteed to be wider than default real.
        for double, other in ((type1, type2), (type2, type1)):
            if (double.precision == DOUBLE and
                    other.precision in (UNDEFINED, SINGLE)):
                return double
    return None


def _literal_keeps_type(kept: Node, literal: Literal) -> bool:
    '''Whether combining ``kept`` with ``literal`` (arithmetically) gives a
    result of exactly the type and kind of ``kept``, so that the literal can
    be dropped.'''
    lit_type = literal.datatype
    kept_type = _node_type(kept)
    if kept_type is None:
        # Unknown type: only a default integer is harmless in Fortran mixed
        # arithmetic (it never promotes the other operand).
        return (lit_type.intrinsic == INTEGER and
                lit_type.precision == UNDEFINED)
    result = _promote(kept_type, lit_type)
    return result is not None and _same_type(result, kept_type)


def _copy_precision(prec):
    return prec.copy() if isinstance(prec, DataNode) else prec


def _new_type(stype: ScalarType) -> ScalarType:
    return ScalarType(stype.intrinsic, _copy_precision(stype.precision))


# ---------------------------------------------------------------------------
# Context helpers
# ---------------------------------------------------------------------------

def _is_assignment_rhs(node: Node) -> bool:
    parent = node.parent
    return isinstance(parent, Assignment) and parent.rhs is node


def _flows_elementally_to_assignment(node: Node) -> bool:
    '''Whether the value of node only passes through (elemental) operations
    before being assigned, so an array may be replaced by a scalar (not
    where the assignment gives a deferred-shape array its shape: an
    allocatable temporary, whose uses need an array).'''
    while isinstance(node.parent, Operation):
        node = node.parent
    return _is_assignment_rhs(node) and not _shaped_by(node)


def _shaped_by(rhs: Node) -> bool:
    '''Whether the assignment of `rhs` gives a deferred-shape array its
    shape.'''
    shape = getattr(_dtype(rhs.parent.lhs), "shape", None) or ()
    return any(extent is ArrayType.Extent.DEFERRED for extent in shape)


def _is_user_call_argument(node: Node) -> bool:
    parent = node.parent
    return isinstance(parent, Call) and not isinstance(parent, IntrinsicCall)


def _has_side_effects(node: Node) -> bool:
    '''Whether node contains a call to a non-intrinsic function.'''
    return any(not isinstance(call, IntrinsicCall)
               for call in node.walk(Call))


def _typed_constant_for(node: Node, operands: Tuple[Node, Node],
                        fallback: ScalarType, value: int) -> Optional[Node]:
    '''A literal ``value`` (0 or 1) with the type of the expression ``node``
    whose operands are given, or None if that cannot be done safely.

    :param fallback: type to use where the exact type does not matter (the
        direct right-hand side of an assignment).
    '''
    types = [_node_type(opnd) for opnd in operands]
    result = _promote(*types)
    # (PSyclone cannot tell the type of an array intrinsic's result: MATMUL,
    # SPREAD, SUM(…, dim) are arrays too, and a scalar zero in their place
    # made SPREAD(0.0, 2, n) and MATMUL(0.0, a), which do not compile.)
    arrays = any(_is_array(_dtype(opnd)) or _array_value(opnd) for opnd in operands
                 if not isinstance(opnd, Literal))
    if result is not None:
        if arrays and not _flows_elementally_to_assignment(node):
            return None
        return make_constant(Fraction(value), result)
    if _is_assignment_rhs(node) and not (arrays and _shaped_by(node)):
        return make_constant(Fraction(value), fallback)
    return None


# ---------------------------------------------------------------------------
# Building helpers
# ---------------------------------------------------------------------------

def _binary(operator, lhs: Node, rhs: Node, like: BinaryOperation) -> Node:
    '''New BinaryOperation on copies of lhs/rhs, keeping like's grouping.'''
    return BinaryOperation.create(operator, lhs.copy(), rhs.copy(),
                                  like.has_explicit_grouping)


def _negate(node: Node) -> Node:
    return UnaryOperation.create(UOp.MINUS, node)


def _is_negation(node: Node) -> bool:
    return isinstance(node, UnaryOperation) and node.operator == UOp.MINUS


def _is_binary(node: Node, *operators) -> bool:
    return isinstance(node, BinaryOperation) and node.operator in operators


# ---------------------------------------------------------------------------
# Rules: each takes an attached node, returns a detached replacement or None
# ---------------------------------------------------------------------------

def _integer_quotient(num: int, den: int) -> int:
    '''Fortran integer division: truncation towards zero.'''
    quotient = abs(num) // abs(den)
    return quotient if (num >= 0) == (den > 0) else -quotient


def fold_constants(node: Node) -> Optional[Node]:
    '''``c1 op c2`` for numeric constants and op in + - * / ** .'''
    if not _is_binary(node, *_ARITH):
        return None
    left, right = numeric_constant(node.children[0]), numeric_constant(node.children[1])
    if left is None or right is None:
        return None
    (lval, ltype), (rval, rtype) = left, right
    if node.operator == BOp.POW:
        return _fold_power(lval, ltype, rval, rtype)
    if ltype.intrinsic == rtype.intrinsic:
        if not _same_precision(ltype.precision, rtype.precision,
                               ltype.intrinsic):
            return None
        result_type = ltype
    else:
        result_type = ltype if ltype.intrinsic == REAL else rtype
    # Both operands must be exact in the result kind (int -> real
    # conversion, decimal -> binary literal conversion).
    if not (fits(lval, result_type) and fits(rval, result_type)):
        return None
    if node.operator == BOp.ADD:
        value = lval + rval
    elif node.operator == BOp.SUB:
        value = lval - rval
    elif node.operator == BOp.MUL:
        value = lval * rval
    else:
        if rval == 0:
            return None
        if result_type.intrinsic == INTEGER:
            value = Fraction(_integer_quotient(int(lval), int(rval)))
        else:
            value = lval / rval
    return make_constant(value, result_type)


def _fold_power(base: Fraction, btype: ScalarType, expo: Fraction,
                etype: ScalarType) -> Optional[Node]:
    '''``b ** n`` with a small non-negative integer constant exponent.'''
    if etype.intrinsic != INTEGER or not 0 <= expo <= _MAX_FOLD_EXPONENT:
        return None
    if base == 0 and expo == 0:
        return None                      # 0**0 is processor dependent
    result_type = btype if btype.intrinsic == REAL else _promote(btype,
                                                                  etype)
    if result_type is None or not fits(base, result_type):
        return None
    return make_constant(base ** int(expo), result_type)


def remove_double_negation(node: Node) -> Optional[Node]:
    '''``-(-x)`` -> ``x``.'''
    if _is_negation(node) and _is_negation(node.operand):
        return node.operand.operand.copy()
    return None


def remove_unary_plus(node: Node) -> Optional[Node]:
    '''``+x`` -> ``x``.'''
    if isinstance(node, UnaryOperation) and node.operator == UOp.PLUS:
        return node.operand.copy()
    return None


def negate_zero(node: Node) -> Optional[Node]:
    '''``-(0)`` -> ``0``.'''
    if _is_negation(node) and is_literal_value(node.operand, 0):
        return node.operand.copy()
    return None


def combine_integer_offsets(node: Node) -> Optional[Node]:
    '''``(x + c1) + c2``, ``(x - c1) + c2``… -> ``x + c`` (or ``x``) for
    integer constants and an integer ``x`` (trip counts: ``n - 1 + 1``).
    Integers only: with reals the grouping changes the rounding.'''
    if not _is_binary(node, BOp.ADD, BOp.SUB):
        return None
    inner, outer = node.children
    if not _is_binary(inner, BOp.ADD, BOp.SUB):
        return None
    x, first = inner.children
    c1, c2 = numeric_constant(first), numeric_constant(outer)
    if c1 is None or c2 is None or c1[1].intrinsic != INTEGER or \
            c2[1].intrinsic != INTEGER or not _same_type(c1[1], c2[1]):
        return None
    xtype = _node_type(x)
    if xtype is None or xtype.intrinsic != INTEGER or \
            not _same_precision(xtype.precision, c1[1].precision, INTEGER):
        return None
    value = (c1[0] if inner.operator == BOp.ADD else -c1[0]) + \
        (c2[0] if node.operator == BOp.ADD else -c2[0])
    if value == 0:
        return x.copy()
    constant = make_constant(abs(value), c1[1])
    if constant is None:
        return None
    return _binary(BOp.ADD if value > 0 else BOp.SUB, x, constant, node)


def remove_additive_zero(node: Node) -> Optional[Node]:
    '''``x+0``, ``0+x``, ``x-0`` -> ``x``.'''
    if not _is_binary(node, BOp.ADD, BOp.SUB):
        return None
    lhs, rhs = node.children
    if is_literal_value(rhs, 0) and _literal_keeps_type(lhs, rhs):
        return lhs.copy()
    if (node.operator == BOp.ADD and is_literal_value(lhs, 0) and
            _literal_keeps_type(rhs, lhs)):
        return rhs.copy()
    return None


def zero_minus(node: Node) -> Optional[Node]:
    '''``0-x`` -> ``-x``.'''
    if not _is_binary(node, BOp.SUB):
        return None
    lhs, rhs = node.children
    if is_literal_value(lhs, 0) and _literal_keeps_type(rhs, lhs):
        return _negate(rhs.copy())
    return None


def remove_multiplicative_one(node: Node) -> Optional[Node]:
    '''``x*1``, ``1*x``, ``x/1``, ``x**1`` -> ``x``.'''
    if not _is_binary(node, BOp.MUL, BOp.DIV, BOp.POW):
        return None
    lhs, rhs = node.children
    if is_literal_value(rhs, 1) and _literal_keeps_type(lhs, rhs):
        return lhs.copy()
    if (node.operator == BOp.MUL and is_literal_value(lhs, 1) and
            _literal_keeps_type(rhs, lhs)):
        return rhs.copy()
    return None


def multiply_by_zero(node: Node) -> Optional[Node]:
    '''``0*x``, ``x*0``, ``0/x`` -> ``0`` of the type of the expression.'''
    if not _is_binary(node, BOp.MUL, BOp.DIV):
        return None
    lhs, rhs = node.children
    if is_literal_value(lhs, 0):
        zero, other = lhs, rhs
    elif node.operator == BOp.MUL and is_literal_value(rhs, 0):
        zero, other = rhs, lhs
    else:
        return None
    if _has_side_effects(other):
        return None
    return _typed_constant_for(node, (lhs, rhs), zero.datatype, 0)


def power_zero(node: Node) -> Optional[Node]:
    '''``x**0`` -> ``1`` of the type of the expression.'''
    if not _is_binary(node, BOp.POW):
        return None
    base, expo = node.children
    if not is_literal_value(expo, 0) or _has_side_effects(base):
        return None
    if is_literal_value(base, 0):
        return None                      # 0**0 is processor dependent
    fallback = ScalarType(INTEGER, UNDEFINED)
    return _typed_constant_for(node, (base, expo), fallback, 1)


def add_negation(node: Node) -> Optional[Node]:
    '''``a + (-b)`` -> ``a - b`` and ``a - (-b)`` -> ``a + b``.'''
    if not _is_binary(node, BOp.ADD, BOp.SUB):
        return None
    lhs, rhs = node.children
    if not _is_negation(rhs):
        return None
    operator = BOp.SUB if node.operator == BOp.ADD else BOp.ADD
    return _binary(operator, lhs, rhs.operand, node)


def hoist_negation(node: Node) -> Optional[Node]:
    '''``(-a)*b``, ``a*(-b)`` -> ``-(a*b)``; ``(-a)*(-b)`` -> ``a*b``;
    likewise for ``/`` (exact, also for truncating integer division).'''
    if not _is_binary(node, BOp.MUL, BOp.DIV):
        return None
    lhs, rhs = node.children
    negations = 0
    if _is_negation(lhs):
        lhs, negations = lhs.operand, negations + 1
    if _is_negation(rhs):
        rhs, negations = rhs.operand, negations + 1
    if negations == 0:
        return None
    product = _binary(node.operator, lhs, rhs, node)
    return _negate(product) if negations == 1 else product


#: Rules in the order they are tried at each node (each rewrites a
#: BinaryOperation or UnaryOperation only: _rewrite skips other nodes).
RULES: List[Callable[[Node], Optional[Node]]] = [
    fold_constants,
    remove_double_negation,
    remove_unary_plus,
    negate_zero,
    multiply_by_zero,
    power_zero,
    remove_multiplicative_one,
    remove_additive_zero,
    combine_integer_offsets,
    zero_minus,
    add_negation,
    hoist_negation,
    merge_conversions,
]


#: What one operand of a binary operation is when a rule applies to it (a
#: constant, possibly negated, or a negation; an indicator's conversion).
_RULE_OPERANDS = (Literal, UnaryOperation, IntrinsicCall)
#: The rules that may apply to a binary operation with neither a literal
#: nor a unary operation as an operand (``n + SIZE(a)``: most of a long
#: routine's tape reserves): every other rule needs a constant or a
#: negation operand.
_CALL_OPERAND_RULES = [merge_conversions]


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def _replace(old: Node, new: Node) -> Node:
    if old.parent is not None:
        old.replace_with(new)
    return new


def _rewrite(node: Node) -> Optional[Node]:
    '''Apply the first applicable rule at node; return the replacement.'''
    if not isinstance(node, (BinaryOperation, UnaryOperation)):
        return None     # every rule rewrites an operation (most nodes are not)
    rules = RULES
    if isinstance(node, BinaryOperation):
        if not any(isinstance(operand, _RULE_OPERANDS) for operand in node.children):
            return None     # every rule on a binary one needs a constant, negation or call
        if not any(isinstance(operand, (Literal, UnaryOperation))
                   for operand in node.children):
            rules = _CALL_OPERAND_RULES
    for rule in rules:
        new = rule(node)
        if new is None:
            continue
        if isinstance(new, Reference) and _is_user_call_argument(node):
            continue
        return _replace(node, new)
    return None


def _pass(node: Node) -> Tuple[Node, bool]:
    '''One bottom-up pass; returns (node now at this position, changed).'''
    changed = False
    children = node._children
    for index in range(len(children)):
        child = children[index]
        if not child._children and not isinstance(child, UnaryOperation):
            continue    # (a leaf: no rule rewrites it, nothing below it)
        _, child_changed = _pass(child)
        changed = changed or child_changed
    new = _rewrite(node)
    if new is not None:
        return new, True
    return node, changed


def simplify(expr: Node, n_times: int = 5) -> Node:
    '''Algebraically simplify the expression ``expr``.

    If ``expr`` has a parent it is replaced in place.

    :param expr: the PSyIR expression to simplify.
    :param n_times: maximum number of bottom-up passes (stops earlier when
        a pass changes nothing).

    :returns: the simplified expression (possibly ``expr`` itself).
    '''
    for _ in range(n_times):
        expr, changed = _pass(expr)
        if not changed:
            break
    return expr


def _expression_roots(statement: Node) -> List[DataNode]:
    '''Outermost expressions within statement (RHS and LHS of assignments,
    loop bounds, conditions, call arguments, ...).'''
    return [node for node in statement.walk(DataNode)
            if not isinstance(node.parent, DataNode)]


def simplify_statements(nodes: Union[Node, Iterable[Node]],
                        n_times: int = 5) -> None:
    '''Simplify, in place, every expression in the given statement(s)
    (and in the statements nested inside them).'''
    if isinstance(nodes, Node):
        nodes = [nodes]
    for statement in list(nodes):
        if isinstance(statement, DataNode) and not isinstance(statement,
                                                              Call):
            roots = [statement]
        else:
            roots = _expression_roots(statement)
        for root in roots:
            simplify(root, n_times)
