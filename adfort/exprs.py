"""A small algebra over PSyIR expressions, so rules read like formulas.

``E`` wraps a PSyIR expression node; Python operators build new PSyIR
operations from copies of their operands, so one ``E`` may be used many
times.  Python numbers become literals: ``int`` an integer literal, ``float``
a real literal of the kind the expression carries (``E.kind``), so that
``log(10.0)`` in a rule for a ``real(wp)`` argument is written ``LOG(10.0_wp)``.
"""

import re
from decimal import Decimal

from psyclone.psyir.nodes import (
    BinaryOperation, DataNode, IntrinsicCall, Literal, Reference, UnaryOperation)
from psyclone.psyir.symbols import DataSymbol, ScalarType

from adfort import intrinsics

INTEGER_TYPE = ScalarType(ScalarType.Intrinsic.INTEGER, ScalarType.Precision.UNDEFINED)
BinOp = BinaryOperation.Operator
UnOp = UnaryOperation.Operator
Intrinsic = IntrinsicCall.Intrinsic


def real_kind(node):
    """Return the precision of `node`'s real value: that of its first real
    leaf of a kind other than the default, else of its first real leaf,
    or None.  (A mixed expression takes the larger kind: ``1.0 + ck*x``
    with ``ck``, ``x`` of kind ``kind_noahmp`` is of that kind, and
    literals made for it, as MERGE's arguments, must be too.)

    :param node: a PSyIR expression (or a DataSymbol).
    """
    if isinstance(node, DataSymbol):
        dtype = node.datatype
        if isinstance(dtype, ScalarType) or hasattr(dtype, "intrinsic"):
            if getattr(dtype, "intrinsic", None) == ScalarType.Intrinsic.REAL:
                return getattr(dtype, "precision", None)
        return None
    first = double = None
    for leaf in _kind_leaves(node):
        kind = None
        if isinstance(leaf, _Converted):
            kind = leaf.kind
        elif isinstance(leaf, Literal):
            if leaf.datatype.intrinsic == ScalarType.Intrinsic.REAL:
                kind = leaf.datatype.precision
        elif hasattr(leaf, "member"):  # a component: its own type's kind
            from adfort.derived import value_kind, value_type
            element = getattr(value_type(leaf), "elemental_type", value_type(leaf))
            if getattr(element, "intrinsic", None) == ScalarType.Intrinsic.REAL:
                kind = value_kind(leaf)
        elif isinstance(leaf.symbol, DataSymbol):
            kind = real_kind(leaf.symbol)
        if kind is None:
            continue
        if kind == ScalarType.Precision.DOUBLE and isinstance(leaf, _Converted):
            # DBLE(t) next to t's real(wp): the named kind, of the same size
            double = kind
            continue
        if not _is_default_kind(kind):
            return kind
        if first is None:
            first = kind
    return double if double is not None else first


class _Converted:
    """The value of a conversion intrinsic, of the kind it names."""

    def __init__(self, kind):
        self.kind = kind


# Intrinsics whose value is not real whatever their arguments are: those
# passive by nature (integer, logical, character results, inquiries) and
# the integer (and complex) results of ones with a rule.
_NOT_REAL = intrinsics.PASSIVE | frozenset((
    "INT", "NINT", "FLOOR", "CEILING", "SIZE", "LBOUND", "UBOUND", "SHAPE", "KIND",
    "CMPLX"))
# Conversions to a real of the kind they name (the front end writes the
# specific names, SNGL, DFLOAT, as these).
_CONVERSIONS = ("REAL", "DBLE", "FLOAT")


def _kind_leaves(node):
    """The Literals and References of `node` in order, a conversion
    intrinsic (``REAL(x, 4)``, ``DBLE(i)``) as one :class:`_Converted`
    leaf of the kind it gives (not its argument's), and no leaf of an
    intrinsic whose value is not real (``INT(x, 8)``, ``SIZE(a)``)."""
    if isinstance(node, IntrinsicCall):
        name = node.intrinsic.name
        if name in _CONVERSIONS and node.arguments:
            yield _Converted(_converted_kind(node))
            return
        if name in _NOT_REAL:
            return
    if isinstance(node, (Reference, Literal)):
        yield node
    for child in node.children:
        yield from _kind_leaves(child)


def _converted_kind(call):
    """The real kind of a conversion intrinsic's value."""
    name = call.intrinsic.name
    if name == "DBLE":
        return ScalarType.Precision.DOUBLE
    if name == "REAL":
        given = [a for a, keyword in zip(call.arguments[1:], call.argument_names[1:])
                 if keyword in (None, "") or keyword.lower() == "kind"]
        if given:
            if isinstance(given[0], Literal) and given[0].value.isdigit():
                return int(given[0].value)
            return given[0].copy()
        # REAL(z) of a complex z has z's kind (PSyIR keeps COMPLEX
        # declarations as text; the front end writes DOUBLE COMPLEX as
        # complex(8)).
        argument = call.arguments[0] if call.arguments else None
        declaration = getattr(getattr(getattr(argument, "symbol", None), "datatype", None),
                              "declaration", None) or ""
        text = " ".join(declaration.upper().split())
        match = re.match(r"COMPLEX\s*(?:\*\s*(\d+)|\(\s*(?:KIND\s*=\s*)?(\w+)\s*\))", text)
        if match and match.group(1):
            return int(match.group(1)) // 2      # COMPLEX*16: two reals of 8 bytes
        if match and match.group(2):
            kind = match.group(2)
            if kind.isdigit():
                return int(kind)
            symbol = call.scope.symbol_table.lookup(kind, otherwise=None)
            if symbol is not None:
                return Reference(symbol)
    return ScalarType.Precision.UNDEFINED


def _is_default_kind(kind):
    return kind in (ScalarType.Precision.UNDEFINED, ScalarType.Precision.SINGLE)


def kind_key(kind):
    """A comparable key of a real kind: a named constant by its name, a
    number by its value, DOUBLE PRECISION as 8 (gfortran's kind of 1.0d0;
    options promoting reals, -freal-8-real-16, promote both alike)."""
    if isinstance(kind, Literal):
        kind = kind.value
    if kind == ScalarType.Precision.DOUBLE:
        return "8"
    if isinstance(kind, Reference):
        kind = kind.symbol
    name = getattr(kind, "name", None)
    return name.lower() if isinstance(name, str) else str(kind).strip().lower()


def real_type(kind):
    """Return the scalar real datatype of precision `kind` (default if None)."""
    if kind is None:
        kind = ScalarType.Precision.UNDEFINED
    if isinstance(kind, DataNode):
        kind = kind.copy()
    return ScalarType(ScalarType.Intrinsic.REAL, kind)


def real_literal(value, kind=None):
    """Return a real PSyIR literal for the non-negative number `value`."""
    text = format(Decimal(repr(float(value))) if isinstance(value, float)
                  else Decimal(value), "f")
    if "." not in text:
        text += ".0"
    if kind == ScalarType.Precision.DOUBLE:
        text += "e0"  # the writer prints DOUBLE literals with a 'd' exponent only if present
    return Literal(text, real_type(kind))


def int_literal(value):
    """Return an integer PSyIR literal for the non-negative int `value`."""
    return Literal(str(value), INTEGER_TYPE)


def constant_integer(expr, _depth=0):
    """The value of integer expression `expr` when it reads only integer
    literals and named constants of such values (``nzm*2 + 1``), else
    None."""
    if _depth > 20:
        return None
    if isinstance(expr, Literal):
        dtype = expr.datatype
        if isinstance(dtype, ScalarType) and dtype.intrinsic == ScalarType.Intrinsic.INTEGER \
                and expr.value.isdigit():
            return int(expr.value)
        return None
    if type(expr) is Reference:
        symbol = expr.symbol
        if isinstance(symbol, DataSymbol) and symbol.is_constant:
            return constant_integer(symbol.initial_value, _depth + 1)
        return None
    if isinstance(expr, UnaryOperation) and expr.operator in (UnOp.MINUS, UnOp.PLUS):
        value = constant_integer(expr.children[0], _depth + 1)
        return None if value is None else (-value if expr.operator == UnOp.MINUS else value)
    if isinstance(expr, BinaryOperation):
        left, right = (constant_integer(c, _depth + 1) for c in expr.children)
        if left is None or right is None:
            return None
        if expr.operator == BinOp.ADD:
            return left + right
        if expr.operator == BinOp.SUB:
            return left - right
        if expr.operator == BinOp.MUL:
            return left * right
        if expr.operator == BinOp.DIV and right != 0:
            return abs(left) // abs(right) * (1 if (left >= 0) == (right >= 0) else -1)
    return None


class E:
    """A PSyIR expression with arithmetic operators.

    :param node: the PSyIR node (not copied; the caller hands it over).
    :param kind: the real precision for float constants combined with it.
    """

    def __init__(self, node, kind=None):
        self.node = node
        self.kind = kind if kind is not None else real_kind(node)

    def copy(self):
        """Return a fresh copy of the wrapped node."""
        return self.node.copy()

    def _lift(self, other):
        if isinstance(other, E):
            return other
        if isinstance(other, bool):
            raise TypeError("booleans are not expressions")
        if isinstance(other, int):
            node = int_literal(abs(other))
        elif isinstance(other, float):
            node = real_literal(abs(other), self.kind)
        else:
            return E(other)
        if other < 0:
            node = UnaryOperation.create(UnOp.MINUS, node)
        return E(node, self.kind)

    def _binary(self, op, other, reflected=False):
        other = self._lift(other)
        left, right = (other, self) if reflected else (self, other)
        kind = self.kind if self.kind is not None else other.kind
        return E(BinaryOperation.create(op, left.copy(), right.copy()), kind)

    def __add__(self, o): return self._binary(BinOp.ADD, o)
    def __radd__(self, o): return self._binary(BinOp.ADD, o, True)
    def __sub__(self, o): return self._binary(BinOp.SUB, o)
    def __rsub__(self, o): return self._binary(BinOp.SUB, o, True)
    def __mul__(self, o): return self._binary(BinOp.MUL, o)
    def __rmul__(self, o): return self._binary(BinOp.MUL, o, True)
    def __truediv__(self, o): return self._binary(BinOp.DIV, o)
    def __rtruediv__(self, o): return self._binary(BinOp.DIV, o, True)
    def __pow__(self, o): return self._binary(BinOp.POW, o)
    def __gt__(self, o): return self._binary(BinOp.GT, o)
    def __ge__(self, o): return self._binary(BinOp.GE, o)
    def __lt__(self, o): return self._binary(BinOp.LT, o)
    def __le__(self, o): return self._binary(BinOp.LE, o)

    def __neg__(self):
        return E(UnaryOperation.create(UnOp.MINUS, self.copy()), self.kind)

    def __and__(self, o):
        return self._binary(BinOp.AND, o)

    def eq(self, o):
        """``self == o`` as a Fortran comparison (``==`` stays Python's)."""
        return self._binary(BinOp.EQ, o)

    def const(self, value):
        """The real literal `value` (>= 0) in this expression's kind."""
        return E(real_literal(value, self.kind), self.kind)

    def one(self):
        """The real literal 1 of this expression's kind."""
        return self.const(1)

    def zero(self):
        """The real literal 0 of this expression's kind."""
        return self.const(0)


def intrinsic_call(name, arguments):
    """An IntrinsicCall of `name` with `arguments` (nodes or (name, node)).

    PSyclone's argument-type check is stricter than Fortran for a few
    intrinsics (RESHAPE wants a variable as its shape); such calls are
    built without it.
    """
    intrinsic = Intrinsic[name]
    try:
        return IntrinsicCall.create(intrinsic, arguments)
    except (TypeError, NotImplementedError):
        # (NotImplementedError: PSyclone cannot tell the argument set of
        # FINDLOC(a, v, d) given positionally; the node keeps them as given.)
        node = IntrinsicCall(intrinsic)
        # (The failed create may have taken the arguments already: they
        # leave it last first, which its child checks allow.)
        for argument in reversed(arguments):
            argument = argument[1] if isinstance(argument, tuple) else argument
            if argument.parent is not None:
                argument.detach()
        node._add_args(node, arguments)
        try:
            node.compute_argument_names()
        except (ValueError, NotImplementedError):
            pass
        return node


def call(name, *args, **named):
    """Return ``E`` of the intrinsic `name` applied to `args` (and the
    keyword arguments `named`, e.g. ``dim=``)."""
    args = [E(int_literal(a)) if isinstance(a, int) and not isinstance(a, bool) and a >= 0
            else a for a in args]
    if not all(isinstance(a, E) for a in args):
        raise TypeError(f"{name}: arguments must be expressions; write "
                        "constants as x.const(value) to give them x's kind")
    lifted = list(args)
    kind = next((a.kind for a in lifted if a.kind is not None), None)
    arguments = [a.copy() for a in lifted]
    for key, value in named.items():
        value = E(int_literal(value)) if isinstance(value, int) else value
        arguments.append((key, value.copy()))
    node = intrinsic_call(name, arguments)
    return E(node, kind)


def _intrinsic(name):
    def function(*args, **named):
        return call(name, *args, **named)
    function.__name__ = name.lower()
    return function


sqrt, exp, log, cos, sin, tan = map(_intrinsic, ("SQRT", "EXP", "LOG", "COS", "SIN", "TAN"))
cosh, sinh, tanh, aint = map(_intrinsic, ("COSH", "SINH", "TANH", "AINT"))
sign, merge, atan2 = map(_intrinsic, ("SIGN", "MERGE", "ATAN2"))
spread, transpose, matmul, count = map(_intrinsic, ("SPREAD", "TRANSPOSE", "MATMUL", "COUNT"))
maxval, minval, product, size = map(_intrinsic, ("MAXVAL", "MINVAL", "PRODUCT", "SIZE"))
cshift, eoshift, asum = map(_intrinsic, ("CSHIFT", "EOSHIFT", "SUM"))


def indicator(condition, like):
    """1 where `condition` holds, else 0, in the kind of `like`;
    `condition` may be a list of conditions that must all hold.  Written
    ``REAL(MERGE(1, 0, c1) * MERGE(1, 0, c2), kind)``: see
    :mod:`adfort.indicators`."""
    conditions = condition if isinstance(condition, list) else [condition]
    chosen = None
    for cond in conditions:
        one = merge(1, 0, cond).node
        chosen = one if chosen is None else BinaryOperation.create(BinOp.MUL, chosen, one)
    kind = like.kind
    if kind == ScalarType.Precision.DOUBLE:
        node = intrinsic_call("DBLE", [chosen])
    elif isinstance(kind, int):
        node = intrinsic_call("REAL", [chosen, ("kind", int_literal(kind))])
    elif isinstance(kind, DataNode):
        node = intrinsic_call("REAL", [chosen, ("kind", kind.copy())])
    else:
        node = intrinsic_call("REAL", [chosen])
    return E(node, kind)
