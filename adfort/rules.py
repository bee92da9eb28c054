"""The derivative rules: every operator's and intrinsic's partial derivatives.

One entry per operation, keyed by the PSyIR operator or intrinsic name:

- a callable ``f(x)``: a function of one argument, ``f`` its derivative;
- a tuple with one entry per argument: each a callable taking *all* the
  arguments and returning the partial derivative with respect to that
  argument, or ``None`` where the argument is not differentiable (a kind,
  a mask, a piecewise-constant dependence);
- ``None``: the result does not depend differentiably on any argument
  (``INT``, ``NINT``…), so no adjoint flows through it;
- :class:`Variadic`: a function of the argument list returning one partial
  per argument (``MAX``/``MIN`` take any number of arguments);
- :class:`Pullback`: for operations that are not elementwise (``MATMUL``,
  ``SUM``…), a function of the result's adjoint and the arguments
  returning each argument's adjoint directly.

Partials are built with :mod:`adfort.exprs` and may return the numbers
``1``/``-1`` for constant partials (the simplifier folds them away).
Adding an intrinsic is one entry here and one row in ``tests/test_rules.py``.
"""

from psyclone.psyir.nodes import DataNode, Literal, UnaryOperation
from psyclone.psyir.symbols import ScalarType

from adfort.arrays import expr_rank
from adfort.exprs import (
    E, int_literal, real_literal,
    all_of, aint, asum, call, cos, cosh, count, cshift, exp, indicator, log,
    matmul, merge, maxval, minval, product, sign, sin, sinh, size, spread, sqrt, tan,
    tanh, transpose)


class Variadic:
    """A rule for an operation taking any number of arguments.

    :param partials: ``partials(*args)`` returns one partial per argument.
    """

    def __init__(self, partials):
        self.partials = partials


class Pullback:
    """A rule giving arguments' adjoints from the result's adjoint.

    :param adjoints: ``adjoints(g, *args)`` returns one adjoint (or None)
        per argument, `g` being the adjoint of the result.
    """

    def __init__(self, adjoints):
        self.adjoints = adjoints


def _matmul(g, a, b):
    """MATMUL of matrix·matrix, matrix·vector or vector·matrix."""
    ra, rb = expr_rank(a.node), expr_rank(b.node)
    if ra == 2 and rb == 2:
        return [matmul(g, transpose(b)), matmul(transpose(a), g)]
    if ra == 2:   # A(m,n) x(n): outer product for A, A^T g for x
        return [spread(g, 2, size(b)) * spread(b, 1, size(g)), matmul(g, a)]
    # x(m) B(m,n): B g for x, outer product for B
    return [matmul(b, g), spread(a, 2, size(g)) * spread(g, 1, size(a))]


def _extremum(value):
    """MAXVAL/MINVAL: the adjoint is shared by the elements attaining the
    extremum (one element but for ties, where this averages the one-sided
    derivatives)."""
    def adjoints(g, x):
        hit = x.eq(value(x))
        return [g * indicator(hit, x) / count(hit)]
    return Pullback(adjoints)


def _sum(g, x, *dim):
    if dim:
        return [spread(g, dim[0], size(x, dim=dim[0]))]
    return [g]


def _max_partials(*args):
    return _pick(args, lambda a, b: a > b, lambda a, b: a >= b)


def _min_partials(*args):
    return _pick(args, lambda a, b: a < b, lambda a, b: a <= b)


def _pick(args, strictly_better, at_least_as_good):
    """Indicator partials: argument i wins if strictly better than those
    before it and at least as good as those after it (first one wins ties)."""
    partials = []
    for i, a in enumerate(args):
        conds = [strictly_better(a, b) for b in args[:i]]
        conds += [at_least_as_good(a, b) for b in args[i + 1:]]
        partials.append(indicator(all_of(conds), a))
    return partials


def _pow_base_partial(x, y):
    """d(x**y)/dx = y*x**(y-1).  For an integer variable exponent equal to
    0 the partial is 0 whatever x is; the exponent is then nudged to 0 so
    that x = 0 does not give 0*x**(-1) = NaN (``t**k`` summed from k = 0)."""
    if _is_literal(y) or y.kind is not None:
        return y * x ** (y - 1)
    return y * x ** (y - 1 + merge(E(int_literal(1)), E(int_literal(0)), y.eq(0)))


def _pow_exponent_partial(x, y):
    """d(x**y)/dy = x**y*log(x), with log(x) taken as 0 at x = 0, where
    x**y is 0 for every y > 0 (the true partial) but log(x) is -Inf."""
    if _is_literal(x):
        return x ** y * log(_as_real(x, y))
    safe = merge(x.one() if x.kind is not None else E(int_literal(1)), x, x.eq(0))
    return x ** y * log(_as_real(safe, y))


def _is_literal(e):
    node = e.node
    if isinstance(node, UnaryOperation):
        node = node.children[0]
    return isinstance(node, Literal)


def _as_real(x, like):
    """`x` as a real of `like`'s kind when it is an integer (LOG needs a real)."""
    if x.kind is not None:
        return x
    node = x.node
    if isinstance(node, Literal):
        return E(real_literal(node.value, like.kind), like.kind)
    kind = like.kind
    if kind == ScalarType.Precision.DOUBLE:
        return call("DBLE", x)
    if isinstance(kind, int):
        return call("REAL", x, kind=kind)
    if isinstance(kind, DataNode):
        return call("REAL", x, kind=E(kind.copy()))
    return call("REAL", x)


def _pi(x):
    return call("ACOS", -x.one())


RULES = {
    # Operators.
    "PLUS": lambda x: 1,
    "MINUS": lambda x: -1,
    "ADD": (lambda x, y: 1, lambda x, y: 1),
    "SUB": (lambda x, y: 1, lambda x, y: -1),
    "MUL": (lambda x, y: y, lambda x, y: x),
    # x.one(): the divisor may be an integer (x / n), and 1 / n would be
    # integer division.
    "DIV": (lambda x, y: x.one() / y, lambda x, y: -x / y ** 2),
    "POW": (_pow_base_partial, _pow_exponent_partial),
    # Elementary functions.
    "SQRT": lambda x: 1 / (2 * sqrt(x)),
    "EXP": lambda x: exp(x),
    "LOG": lambda x: 1 / x,
    "LOG10": lambda x: 1 / (x * log(x.const(10))),
    "SIN": lambda x: cos(x),
    "COS": lambda x: -sin(x),
    "TAN": lambda x: 1 + tan(x) ** 2,
    "ASIN": lambda x: 1 / sqrt(1 - x ** 2),
    "ACOS": lambda x: -1 / sqrt(1 - x ** 2),
    "ATAN": lambda x: 1 / (1 + x ** 2),
    "ATAN2": (lambda y, x: x / (x ** 2 + y ** 2),
              lambda y, x: -y / (x ** 2 + y ** 2)),
    "SINH": lambda x: cosh(x),
    "COSH": lambda x: sinh(x),
    "TANH": lambda x: 1 - tanh(x) ** 2,
    "ASINH": lambda x: 1 / sqrt(x ** 2 + 1),
    "ACOSH": lambda x: 1 / sqrt(x ** 2 - 1),
    "ATANH": lambda x: 1 / (1 - x ** 2),
    "ERF": lambda x: 2 / sqrt(_pi(x)) * exp(-x ** 2),
    "ERFC": lambda x: -2 / sqrt(_pi(x)) * exp(-x ** 2),
    "HYPOT": (lambda x, y: x / call("HYPOT", x, y),
              lambda x, y: y / call("HYPOT", x, y)),
    # Piecewise functions: derivatives valid away from the switching points.
    "ABS": lambda x: sign(x.one(), x),
    "SIGN": (lambda a, b: sign(a.one(), a) * sign(b.one(), b), None),
    "DIM": (lambda x, y: indicator(x > y, x), lambda x, y: -indicator(x > y, x)),
    "MOD": (lambda a, p: 1, lambda a, p: -aint(a / p)),
    "MODULO": (lambda a, p: 1, lambda a, p: -call("FLOOR", a / p)),
    "MERGE": (lambda a, b, mask: indicator(mask, a),
              lambda a, b, mask: 1 - indicator(mask, b), None),
    "MAX": Variadic(_max_partials),
    # Array operations.
    "SUM": Pullback(_sum),
    "PRODUCT": Pullback(lambda g, x: [g * product(x) / x]),
    "DOT_PRODUCT": Pullback(lambda g, a, b: [g * b, g * a]),
    "MATMUL": Pullback(_matmul),
    "TRANSPOSE": Pullback(lambda g, a: [transpose(g)]),
    "MAXVAL": _extremum(maxval),
    "MINVAL": _extremum(minval),
    "CSHIFT": Pullback(lambda g, x, shift, *dim: [cshift(g, -shift, *dim), None] + [None] * len(dim)),
    "SPREAD": Pullback(lambda g, x, dim, n: [asum(g, dim=dim), None, None]),
    "SIZE": None,
    "LBOUND": None,
    "UBOUND": None,
    "SHAPE": None,
    "MIN": Variadic(_min_partials),
    # Conversions: REAL(x, kind) and DBLE(x) pass the derivative through.
    "REAL": (lambda x, *kind: 1, None),
    "DBLE": lambda x: 1,
    # Piecewise-constant: the derivative is zero wherever it exists.
    "AINT": None,
    "ANINT": None,
    "INT": None,
    "NINT": None,
    "FLOOR": None,
    "CEILING": None,
    # Inquiries: the value depends on the argument's type, not its value.
    "EPSILON": None,
    "HUGE": None,
    "TINY": None,
    "KIND": None,
    "PRECISION": None,
    "DIGITS": None,
    "RANGE": None,
}


def has_rule(name):
    """Whether operation `name` has an entry in the rules table."""
    return name in RULES


def partials(name, args, wanted=None):
    """Return the partial derivatives of operation `name` at `args`.

    :param str name: operator or intrinsic name (``"MUL"``, ``"SIN"``…).
    :param args: the arguments, as :class:`adfort.exprs.E`.
    :param wanted: indices of the arguments whose partials are needed
        (all when None); the others come back as None.
    :returns: one entry per argument: an ``E``, a number, or ``None``.
    :raises KeyError: if there is no rule for `name`.
    """
    rule = RULES[name]
    wanted = set(range(len(args)) if wanted is None else wanted)
    if rule is None:
        return [None] * len(args)
    if isinstance(rule, Variadic):
        return [p if i in wanted else None
                for i, p in enumerate(rule.partials(*args))]
    if isinstance(rule, Pullback):
        raise TypeError(f"{name} has a pullback rule, not partials")
    if callable(rule):
        rule = (rule,)
    out = []
    for i in range(len(args)):
        fn = rule[i] if i < len(rule) else None
        out.append(fn(*args) if fn is not None and i in wanted else None)
    return out


def argument_adjoints(name, adjoint, args, wanted=None):
    """Return the adjoint of each argument of operation `name`.

    :param adjoint: an :class:`E` for the adjoint of the operation's result.
    :param args: the arguments, as :class:`E`.
    :param wanted: indices of the arguments whose adjoints are needed.
    :returns: one :class:`E` (or None) per argument.
    """
    rule = RULES[name]
    if isinstance(rule, Pullback):
        wanted = set(range(len(args)) if wanted is None else wanted)
        results = list(rule.adjoints(adjoint, *args))
        results += [None] * (len(args) - len(results))
        return [r if i in wanted else None for i, r in enumerate(results)]
    return [adjoint * p if p is not None else None
            for p in partials(name, args, wanted)]
