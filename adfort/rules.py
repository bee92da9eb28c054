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
  ``SUM``…), a function of the result's adjoint and the arguments, passed
  by their names in the Fortran standard (``array=``, ``dim=``, ``mask=``),
  returning the differentiable arguments' adjoints by name; next to it,
  declared once with it, its tangent form: a function of the arguments'
  tangents and the arguments, returning the result's tangent (the
  pushforward, for tangent mode).

Positional rules see an intrinsic's arguments in the standard's order
whatever order the call names them in.  Partials are built with
:mod:`adfort.exprs` and may return the numbers ``1``/``-1`` for constant
partials (the simplifier folds them away).  Intrinsics without an entry
are classified in :mod:`adfort.intrinsics`.  Adding an intrinsic is one
entry here and one row in ``tests/test_rules.py``.
"""

from psyclone.psyir.nodes import ArrayConstructor, DataNode, Literal, UnaryOperation
from psyclone.psyir.symbols import ScalarType

from adfort import intrinsics
from adfort.arrays import expr_rank
from adfort.helpers import digamma_call
from adfort.exprs import (
    E, aint, asum, call, cos, cosh, count, cshift, eoshift, exp,
    indicator, int_literal, kind_key, log, matmul, maxval, merge, minval, product, real_literal,
    sign, sin, sinh, size, spread, sqrt, tan, tanh, transpose)


class Variadic:
    """A rule for an operation taking any number of arguments.

    :param partials: ``partials(*args)`` returns one partial per argument.
    """

    def __init__(self, partials):
        self.partials = partials


class Pullback:
    """A rule giving arguments' adjoints from the result's adjoint.

    :param adjoints: ``adjoints(g, **args)`` returns {name: adjoint} for
        the differentiable arguments present, `g` being the adjoint of the
        result and `args` the arguments by their standard names.
    :param differentiable: names of the arguments derivatives flow through.
    :param check: ``check(**args)`` returns why this form of the call is
        not supported (the fence reports it), or None.
    :param tangent: ``tangent(d, **args)`` returns the tangent of the
        result, `d` being {name: tangent} of the differentiable arguments
        that carry one (at least one does) and `args` the arguments by
        their standard names.
    :param tangent_check: as `check`, for the tangent form (default: `check`).
    """

    def __init__(self, adjoints, differentiable, check=None, tangent=None,
                 tangent_check=None):
        self.adjoints = adjoints
        self.differentiable = tuple(differentiable)
        self.check = check
        self.tangent = tangent
        self.tangent_check = tangent_check if tangent_check is not None else check


def _matmul(g, matrix_a, matrix_b):
    """MATMUL of matrix·matrix, matrix·vector or vector·matrix."""
    a, b = matrix_a, matrix_b
    ra, rb = expr_rank(a.node), expr_rank(b.node)
    g = _full(g, ([size(a, dim=1)] if ra == 2 else []) + ([size(b, dim=2)] if rb == 2 else []))
    if ra == 2 and rb == 2:
        return {"matrix_a": matmul(g, transpose(b)), "matrix_b": matmul(transpose(a), g)}
    if ra == 2:   # A(m,n) x(n): outer product for A, A^T g for x
        return {"matrix_a": spread(g, 2, size(b)) * spread(b, 1, size(g)),
                "matrix_b": matmul(g, a)}
    # x(m) B(m,n): B g for x, outer product for B
    return {"matrix_a": matmul(b, g), "matrix_b": spread(a, 2, size(g)) * spread(g, 1, size(a))}


def _scalar(g):
    return expr_rank(g.node) == 0


def _full(g, extents):
    """`g` as an array of the given extents: an adjoint may be a scalar
    standing for every element (``SUM(RESHAPE(x, s)) * w``), which the
    transformational intrinsics cannot take."""
    if not _scalar(g):
        return g
    for dim, extent in enumerate(extents, start=1):
        g = spread(g, dim, extent)
    return g


def _extents(array):
    return [size(array, dim=d) for d in range(1, expr_rank(array.node) + 1)]


def _broadcast(g, array, dim):
    """The reduction's adjoint `g` back on the shape of `array`: along
    `dim` when the reduction had one, else (or for a scalar) itself,
    which elementwise operations broadcast."""
    return g if dim is None or _scalar(g) else spread(g, dim, size(array, dim=dim))


def _masked(value, mask, like):
    """`value` where `mask` holds, zero elsewhere (no mask: `value`)."""
    return value if mask is None else merge(value, like.zero(), mask)


def _reduction_args(dim, mask):
    named = {}
    if dim is not None:
        named["dim"] = dim
    if mask is not None:
        named["mask"] = mask
    return named


def _sum(g, array, dim=None, mask=None):
    return {"array": _masked(_broadcast(g, array, dim), mask, array)}


def _product(g, array, dim=None, mask=None):
    """Each factor's partial is the product of the others: the product of
    the non-zero factors over its own value when none is zero, that
    product for the one zero factor when exactly one is, zero otherwise
    (never 0/0)."""
    zero = array.eq(array.zero())
    others = _broadcast(product(merge(array.one(), array, zero),
                                **_reduction_args(dim, mask)), array, dim)
    counted = zero if mask is None else zero & mask
    zeros = _broadcast(count(counted, **({"dim": dim} if dim is not None else {})),
                       array, dim)
    safe = merge(array.one(), array, zero)
    partial = merge(others / safe, array.zero(), zeros.eq(0)) + \
        merge(others, array.zero(), zeros.eq(1) & zero)
    return {"array": _masked(_broadcast(g, array, dim) * partial, mask, array)}


def _extremum(value):
    """MAXVAL/MINVAL: the adjoint is shared by the elements attaining the
    extremum (one element but for ties, where this averages the one-sided
    derivatives); a reduction over no element passes nothing back."""
    def adjoints(g, array, dim=None, mask=None):
        hit = array.eq(_broadcast(value(array, **_reduction_args(dim, mask)), array, dim))
        if mask is not None:
            hit = hit & mask
        hits = call("MAX", count(hit, **_reduction_args(dim, None)), 1)
        return {"array": _broadcast(g / hits, array, dim) * indicator(hit, array)}

    def tangent(d, array, dim=None, mask=None):
        # The mean tangent of the elements attaining the extremum.
        partial = adjoints(array.one(), array, dim, mask)["array"]
        return call("SUM", partial * d["array"], **({"dim": dim} if dim is not None else {}))
    return Pullback(adjoints, ("array",), tangent=tangent)


def _nonzero(norm):
    """`norm` kept off zero: where a Euclidean norm is 0 its derivative
    does not exist, and x/norm then gives the subgradient 0, not 0/0."""
    return call("MAX", norm, call("TINY", norm))


def _norm2(g, x, dim=None):
    norm = call("NORM2", x, **({"dim": dim} if dim is not None else {}))
    # x/norm first: where x is 0, g/norm would overflow (norm kept at TINY).
    return {"x": _broadcast(g, x, dim) * (x / _broadcast(_nonzero(norm), x, dim))}


def _spread(g, source, dim, ncopies):
    if _scalar(g):
        return {"source": g * ncopies}
    return {"source": asum(g, dim=dim)}


def _zero_pad(like):
    """``[0.0]`` in the kind of `like`: a RESHAPE pad."""
    return E(ArrayConstructor.create([real_literal(0, like.kind)]), like.kind)


def _reshape(g, source, shape, pad=None, order=None):
    # The result takes the first SIZE(g) elements of source in order; the
    # rest of source (when the result is smaller) gets no adjoint.
    g = _full(g, [call("PRODUCT", shape)])
    return {"source": call("RESHAPE", g, call("SHAPE", source), pad=_zero_pad(g))}


def _reshape_check(source, shape, pad=None, order=None):
    if pad is not None or order is not None:
        return "RESHAPE with PAD= or ORDER= of an active array is not supported"
    return None


def _pack(g, array, mask, vector=None):
    if expr_rank(mask.node) == 0:
        # PACK(a, .true.) flattens a: the scalar mask spread over a's shape.
        mask = spread(mask, 1, size(array))
        if expr_rank(array.node) > 1:
            mask = call("RESHAPE", mask, call("SHAPE", array))
    packed = count(mask)
    g = _full(g, [size(vector) if vector is not None else packed])
    adjoints = {"array": call("UNPACK", g, mask, array.zero())}
    if vector is not None:
        # The elements past COUNT(mask) come from vector.
        adjoints["vector"] = eoshift(eoshift(g, packed), -packed)
    return adjoints


def _unpack(g, vector, mask, field):
    return {"vector": call("PACK", _full(g, _extents(mask)), mask,
                           vector=spread(g.zero(), 1, size(vector))),
            "field": merge(g.zero(), g, mask)}


def _eoshift(g, array, shift, boundary=None, dim=None):
    along = {"dim": dim} if dim is not None else {}
    g = _full(g, _extents(array))
    adjoints = {"array": eoshift(g, -shift, **along)}
    if boundary is not None:
        # The elements filled from boundary: g less what came from array.
        filled = g - eoshift(eoshift(g, -shift, **along), shift, **along)
        if 0 < expr_rank(boundary.node) < expr_rank(array.node):
            filled = asum(filled, dim=dim if dim is not None else 1)
        adjoints["boundary"] = filled
    return adjoints


def _cshift(g, array, shift, dim=None):
    if _scalar(g):
        return {"array": g}   # a shifted constant is the constant
    return {"array": cshift(g, -shift, **({"dim": dim} if dim is not None else {}))}


def _bessel_n(name):
    """BESSEL_JN/YN(n, x): d/dx B_n = (n/x) B_n - B_{n+1}."""
    def adjoints(g, n=None, x=None, n1=None, n2=None):
        return {"x": g * (n / x * call(name, n, x) - call(name, n + 1, x))}

    def check(n=None, x=None, n1=None, n2=None):
        if n1 is not None:
            return f"the array form {name}(n1, n2, x) is not supported: call it per order"
        return None
    return Pullback(adjoints, ("x",), check, tangent=_bessel_n_tangent(name))


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
        partials.append(indicator(conds, a))
    return partials


def _pow_base_partial(x, y):
    """d(x**y)/dx = y*x**(y-1).  For an integer variable exponent equal to
    0 the partial is 0 whatever x is; the exponent is then nudged to 0 so
    that x = 0 does not give 0*x**(-1) = NaN (``t**k`` summed from k = 0).

    A real exponent of x's kind: y*(x**y)/x, the value x**y the statement
    computes anyway (one power, not two; adfort/stored_values.py keeps it
    from the forward run); at x = 0 the partial is taken as 1 if y = 1, else
    0 (as SQRT's: finite where the true one is infinite)."""
    if y.kind is not None and x.kind is not None and not _is_integer_literal(y) \
            and _same_kind(x.kind, y.kind):
        zero = x.eq(x.zero())
        at_zero = merge(x.one(), x.zero(), y.eq(1))
        return y * merge(at_zero, x ** y / merge(x.one(), x, zero), zero)
    if _is_literal(y) or y.kind is not None:
        return y * x ** (y - 1)
    return y * x ** (y - 1 + merge(E(int_literal(1)), E(int_literal(0)), y.eq(0)))


def _pow_exponent_partial(x, y):
    """d(x**y)/dy = x**y*log(x), with log(x) taken as 0 at x = 0, where
    x**y is 0 for every y > 0 (the true partial) but log(x) is -Inf."""
    if _is_literal(x):
        return x ** y * log(_as_real(x, y))
    # x + (1 if x == 0 else 0): of x's own type and kind whatever they are
    # (DBLE(i) has a kind adfort may not know; MERGE needs equal kinds).
    safe = x + merge(E(int_literal(1)), E(int_literal(0)), x.eq(0))
    return x ** y * log(_as_real(safe, y))


def _is_integer_literal(e):
    node = e.node
    if isinstance(node, UnaryOperation):
        node = node.children[0]
    return isinstance(node, Literal) and node.datatype.intrinsic == ScalarType.Intrinsic.INTEGER


def _same_kind(a, b):
    return kind_key(a) == kind_key(b)


def _sqrt_partial(x):
    """d(sqrt(x))/dx = 1/(2*sqrt(x)), infinite at x = 0: taken as zero
    there, as what multiplies it (a clipped argument, ``sqrt(max(q, 0))``)
    is then zero too; sqrt(x) is replaced by 1 where x is zero so that no
    1/0 is ever evaluated, and written whole so that the value the statement
    computes is used again."""
    zero = x.eq(x.zero())
    return merge(x.zero(), 1 / (2 * merge(x.one(), sqrt(x), zero)), zero)


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


def _digamma(x):
    """ψ(x) = Γ'(x)/Γ(x), computed in double precision by the generated
    helper (:mod:`adfort.helpers`) and given `x`'s kind back."""
    kind = x.kind
    double = kind == ScalarType.Precision.DOUBLE or kind == 8
    argument = x if double else call("DBLE", x)
    psi = E(digamma_call(argument.node.copy()), ScalarType.Precision.DOUBLE)
    if double:
        return psi
    if isinstance(kind, int):
        return E(call("REAL", psi, kind=kind).node, kind)
    if isinstance(kind, DataNode):
        return E(call("REAL", psi, kind=E(kind.copy())).node, kind)
    return E(call("REAL", psi).node, kind)


# -- tangent forms of the pullbacks (tangent mode) ----------------------------
# Each takes d = {argument name: its tangent} (the differentiable arguments
# that carry one) and the arguments, and returns the result's tangent.

def _zeros_like(array):
    """An array of zeros of `array`'s shape and kind (a passive operand of
    an operation whose other operand carries a tangent)."""
    return _full(array.zero(), _extents(array))


def _tangent_or_zero(d, name, like):
    return d[name] if d.get(name) is not None else _zeros_like(like)


def _plus(terms):
    terms = [t for t in terms if t is not None]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def _sum_tangent(d, array, dim=None, mask=None):
    return call("SUM", d["array"], **_reduction_args(dim, mask))


def _product_tangent(d, array, dim=None, mask=None):
    # Each factor's partial (the product of the others) as _product gives it.
    partial = _product(array.one(), array, dim, mask)["array"]
    return call("SUM", partial * d["array"], **({"dim": dim} if dim is not None else {}))


def _matmul_tangent(d, matrix_a, matrix_b):
    return _plus([matmul(d["matrix_a"], matrix_b) if d.get("matrix_a") is not None else None,
                  matmul(matrix_a, d["matrix_b"]) if d.get("matrix_b") is not None else None])


def _dot_tangent(d, vector_a, vector_b):
    return _plus([call("DOT_PRODUCT", d["vector_a"], vector_b)
                  if d.get("vector_a") is not None else None,
                  call("DOT_PRODUCT", vector_a, d["vector_b"])
                  if d.get("vector_b") is not None else None])


def _norm2_tangent(d, x, dim=None):
    along = {"dim": dim} if dim is not None else {}
    return call("SUM", x * d["x"], **along) / _nonzero(call("NORM2", x, **along))


def _shift_tangent(name):
    def tangent(d, array, shift, dim=None):
        if _scalar(d["array"]):
            return d["array"]   # a shifted constant is the constant
        return call(name, d["array"], shift, **({"dim": dim} if dim is not None else {}))
    return tangent


def _eoshift_tangent(d, array, shift, boundary=None, dim=None):
    named = {"dim": dim} if dim is not None else {}
    if d.get("boundary") is not None:
        named["boundary"] = d["boundary"]
    # Without BOUNDARY= the vacated elements are zero: a passive boundary's tangent.
    # A scalar tangent stands for every element: EOSHIFT takes an array.
    return call("EOSHIFT", _full(_tangent_or_zero(d, "array", array), _extents(array)),
                shift, **named)


def _spread_tangent(d, source, dim, ncopies):
    return spread(d["source"], dim, ncopies)


def _reshape_tangent(d, source, shape, pad=None, order=None):
    named = {"pad": _zeros_like(pad)} if pad is not None else {}
    if order is not None:
        named["order"] = order
    return call("RESHAPE", d["source"], shape, **named)


def _reshape_tangent_check(source, shape, pad=None, order=None):
    from psyclone.psyir.nodes import Reference
    if pad is not None and pad.node.walk(Reference):
        return "RESHAPE with a PAD= of variables of an active array is not supported"
    return None


def _pack_tangent(d, array, mask, vector=None):
    named = {}
    if vector is not None:
        named["vector"] = _tangent_or_zero(d, "vector", vector)
    return call("PACK", _tangent_or_zero(d, "array", array), mask, **named)


def _unpack_tangent(d, vector, mask, field):
    return call("UNPACK", _tangent_or_zero(d, "vector", vector), mask,
                d["field"] if d.get("field") is not None else field.zero())


def _bessel_n_tangent(name):
    def tangent(d, n=None, x=None, n1=None, n2=None):
        return d["x"] * (n / x * call(name, n, x) - call(name, n + 1, x))
    return tangent


RULES = {
    # Operators.
    "PLUS": lambda x: 1,
    "MINUS": lambda x: -1,
    "ADD": (lambda x, y: 1, lambda x, y: 1),
    "SUB": (lambda x, y: 1, lambda x, y: -1),
    "MUL": (lambda x, y: y, lambda x, y: x),
    # x.one(): the divisor may be an integer (x / n), and 1 / n would be
    # integer division.
    # (-(x * (1/y)) * (1/y), not -x / y**2: y**2 overflows, or underflows to
    # 0, where the quotient and its derivative are fine: optically thick
    # layers.  1/y is the other partial too: the compiler divides once.)
    "DIV": (lambda x, y: x.one() / y, lambda x, y: -(x * (x.one() / y)) * (x.one() / y)),
    "POW": (_pow_base_partial, _pow_exponent_partial),
    # Elementary functions.
    "SQRT": _sqrt_partial,
    "EXP": lambda x: exp(x),
    "LOG": lambda x: 1 / x,
    "LOG10": lambda x: 1 / (x * log(x.const(10))),
    "SIN": lambda x: cos(x),
    "COS": lambda x: -sin(x),
    "TAN": lambda x: 1 + tan(x) ** 2,
    "ASIN": lambda x: 1 / sqrt(1 - x ** 2),
    "ACOS": lambda x: -1 / sqrt(1 - x ** 2),
    # (fparser reads no ATAN(y, x): that form never gets here.)
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
    "GAMMA": lambda x: call("GAMMA", x) * _digamma(x),
    "LOG_GAMMA": _digamma,
    "ERFC_SCALED": lambda x: 2 * x * call("ERFC_SCALED", x) - 2 / sqrt(_pi(x)),
    "HYPOT": (lambda x, y: x / _nonzero(call("HYPOT", x, y)),
              lambda x, y: y / _nonzero(call("HYPOT", x, y))),
    "DPROD": (lambda x, y: y, lambda x, y: x),
    "BESSEL_J0": lambda x: -call("BESSEL_J1", x),
    "BESSEL_J1": lambda x: call("BESSEL_J0", x) - call("BESSEL_J1", x) / x,
    "BESSEL_Y0": lambda x: -call("BESSEL_Y1", x),
    "BESSEL_Y1": lambda x: call("BESSEL_Y0", x) - call("BESSEL_Y1", x) / x,
    "BESSEL_JN": _bessel_n("BESSEL_JN"),
    "BESSEL_YN": _bessel_n("BESSEL_YN"),
    # Floating-point representation: x = FRACTION(x) * 2**EXPONENT(x).
    "SCALE": (lambda x, i: call("SCALE", x.one(), i), None),
    "FRACTION": lambda x: call("SCALE", x.one(), -call("EXPONENT", x)),
    "SET_EXPONENT": (lambda x, i: call("SCALE", x.one(), i - call("EXPONENT", x)), None),
    "RRSPACING": lambda x: sign(x.one(), x) * call("SCALE", x.one(), call("DIGITS", x)
                                                  - call("EXPONENT", x)),
    # The neighbouring number moves with x (a step function at the scale
    # of one ulp, like the rounding of every operation).
    "NEAREST": (lambda x, s: 1, None),
    "SPACING": None,
    # Piecewise functions: derivatives valid away from the switching points.
    "ABS": lambda x: sign(x.one(), x),
    # SIGN's arguments have one kind: take the constant's from A, which is
    # real wherever a derivative flows (B may be REAL(i, 8) of an integer).
    "SIGN": (lambda a, b: sign(a.one(), a) * sign(a.one(), b), None),
    "DIM": (lambda x, y: indicator(x > y, x), lambda x, y: -indicator(x > y, x)),
    "MOD": (lambda a, p: 1, lambda a, p: -aint(a / p)),
    "MODULO": (lambda a, p: 1, lambda a, p: -call("FLOOR", a / p)),
    "MERGE": (lambda a, b, mask: indicator(mask, a),
              lambda a, b, mask: 1 - indicator(mask, b), None),
    "MAX": Variadic(_max_partials),
    # Array operations.
    "SUM": Pullback(_sum, ("array",), tangent=_sum_tangent),
    "PRODUCT": Pullback(_product, ("array",), tangent=_product_tangent),
    "DOT_PRODUCT": Pullback(lambda g, vector_a, vector_b: {
        "vector_a": g * vector_b, "vector_b": g * vector_a}, ("vector_a", "vector_b"),
        tangent=_dot_tangent),
    "MATMUL": Pullback(_matmul, ("matrix_a", "matrix_b"), tangent=_matmul_tangent),
    "TRANSPOSE": Pullback(lambda g, matrix: {"matrix": g if _scalar(g) else transpose(g)},
                          ("matrix",), tangent=lambda d, matrix: transpose(d["matrix"])),
    "MAXVAL": _extremum(maxval),
    "MINVAL": _extremum(minval),
    "NORM2": Pullback(_norm2, ("x",), tangent=_norm2_tangent),
    "CSHIFT": Pullback(_cshift, ("array",), tangent=_shift_tangent("CSHIFT")),
    "EOSHIFT": Pullback(_eoshift, ("array", "boundary"), tangent=_eoshift_tangent),
    "SPREAD": Pullback(_spread, ("source",), tangent=_spread_tangent),
    "RESHAPE": Pullback(_reshape, ("source",), _reshape_check, tangent=_reshape_tangent,
                        tangent_check=_reshape_tangent_check),
    "PACK": Pullback(_pack, ("array", "vector"), tangent=_pack_tangent),
    "UNPACK": Pullback(_unpack, ("vector", "field"), tangent=_unpack_tangent),
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


def _names(name, count, names):
    """The standard names of `count` arguments (positional when not given)."""
    return intrinsics.argument_names(name, list(names) if names else [None] * count)


def _standard_order(name, count, names):
    """Indices of the arguments in the order the rule takes them."""
    if not names:
        return list(range(count))
    return intrinsics.canonical_order(name, _names(name, count, names))


def differentiable_indices(name, count, names=None):
    """The indices of the arguments derivatives flow through.

    An operation without an entry (and not passive by nature) passes them
    all: activity then over-approximates, and the fence reports it.

    :param str name: operator or intrinsic name.
    :param int count: the number of arguments.
    :param names: the names the call gives its arguments (None for
        positional ones), if any.
    """
    if name in intrinsics.PASSIVE:
        return []
    if name not in RULES:
        return list(range(count))
    rule = RULES[name]
    if rule is None:
        return []
    if isinstance(rule, Variadic):
        return list(range(count))
    if isinstance(rule, Pullback):
        return [i for i, n in enumerate(_names(name, count, names))
                if n in rule.differentiable]
    order = _standard_order(name, count, names)
    rule = (rule,) if callable(rule) else rule
    return sorted(order[j] for j in range(count) if j < len(rule) and rule[j] is not None)


def unsupported(name, args, names=None, tangent=False):
    """Why operation `name` at `args` cannot be differentiated, or None.

    :param args: the arguments, as :class:`E`.
    :param tangent: in tangent mode (a pullback's tangent form may take
        what its adjoint cannot).
    :returns: a message for the fence, or None when a rule applies.
    """
    if name in RULES:
        rule = RULES[name]
        check = (rule.tangent_check if tangent else rule.check) \
            if isinstance(rule, Pullback) else None
        if check is not None:
            return check(**dict(zip(_names(name, len(args), names), args)))
        return None
    if name in intrinsics.PASSIVE:
        return None
    if name in intrinsics.UNSUPPORTED:
        return f"{name} of an active value: {intrinsics.UNSUPPORTED[name]}"
    return (f"no derivative rule for {name}: add it to adfort's rules table, "
            "or make its arguments passive")


def partials(name, args, wanted=None, names=None):
    """Return the partial derivatives of operation `name` at `args`.

    :param str name: operator or intrinsic name (``"MUL"``, ``"SIN"``…).
    :param args: the arguments, as :class:`adfort.exprs.E`.
    :param wanted: indices of the arguments whose partials are needed
        (all when None); the others come back as None.
    :param names: the names the call gives its arguments, if any.
    :returns: one entry per argument: an ``E``, a number, or ``None``.
    :raises KeyError: if there is no rule for `name`.
    """
    rule = RULES[name]
    wanted = set(range(len(args)) if wanted is None else wanted)
    if isinstance(rule, Pullback):
        raise TypeError(f"{name} has a pullback rule, not partials")
    out = [None] * len(args)
    if rule is None:
        return out
    order = _standard_order(name, len(args), names)
    ordered = [args[i] for i in order]
    if isinstance(rule, Variadic):
        for j, p in enumerate(rule.partials(*ordered)):
            out[order[j]] = p if order[j] in wanted else None
        return out
    rule = (rule,) if callable(rule) else rule
    for j, i in enumerate(order):
        fn = rule[j] if j < len(rule) else None
        if fn is not None and i in wanted:
            out[i] = fn(*ordered)
    return out


def argument_adjoints(name, adjoint, args, wanted=None, names=None):
    """Return the adjoint of each argument of operation `name`.

    :param adjoint: an :class:`E` for the adjoint of the operation's result.
    :param args: the arguments, as :class:`E`.
    :param wanted: indices of the arguments whose adjoints are needed.
    :param names: the names the call gives its arguments, if any.
    :returns: one :class:`E` (or None) per argument.
    """
    rule = RULES[name]
    if isinstance(rule, Pullback):
        wanted = set(range(len(args)) if wanted is None else wanted)
        standard = _names(name, len(args), names)
        results = rule.adjoints(adjoint, **dict(zip(standard, args)))
        return [results.get(n) if i in wanted else None for i, n in enumerate(standard)]
    return [adjoint * p if p is not None else None
            for p in partials(name, args, wanted, names)]
