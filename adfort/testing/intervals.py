"""Interval arithmetic for the random-program generator.

Every real variable of a generated program keeps its value inside a fixed
interval (its *invariant*), and every expression carries a sound interval
of its values.  The generator uses them to keep programs valid for finite
differences: arguments of SQRT, LOG, ASIN… are mapped into their domains
with a margin, divisors away from zero, EXP arguments small, and the value
assigned to a variable back into the variable's invariant (by an affine map
``c0 + c1*(e)``, which reads like a scaling in model code).
"""

import math

# Domains (with margins) the generator maps arguments into.
DOMAINS = {
    "sqrt": (0.2, 4.0), "log": (0.3, 4.0), "log10": (0.3, 4.0),
    "asin": (-0.85, 0.85), "acos": (-0.85, 0.85), "atanh": (-0.8, 0.8),
    "acosh": (1.2, 3.5), "exp": (-2.0, 2.0), "sinh": (-2.0, 2.0),
    "cosh": (-2.0, 2.0), "tan": (-1.2, 1.2), "divisor": (0.4, 3.0),
    "pow_base": (0.3, 2.5), "pow_expo": (-2.0, 2.0), "atan2_x": (0.3, 3.0),
    "erf": (-2.5, 2.5), "generic": (-3.0, 3.0),
}


def _out(lo, hi):
    """Widen slightly outward: rounding of the generated constants."""
    pad = 1e-9 * max(1.0, abs(lo), abs(hi))
    return (lo - pad, hi + pad)


def add(a, b):
    return _out(a[0] + b[0], a[1] + b[1])


def sub(a, b):
    return _out(a[0] - b[1], a[1] - b[0])


def mul(a, b):
    ps = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return _out(min(ps), max(ps))


def div(a, b):
    if b[0] <= 0.0 <= b[1]:
        raise ValueError("divisor interval contains zero")
    return mul(a, (1.0 / b[1], 1.0 / b[0]))


def neg(a):
    return (-a[1], -a[0])


def scale(a, c):
    return mul(a, (c, c))


def union(a, b):
    return (min(a[0], b[0]), max(a[1], b[1]))


def ipow(a, n):
    """x**n for an integer n >= 1."""
    lo, hi = a[0] ** n, a[1] ** n
    if n % 2 == 0:
        if a[0] <= 0.0 <= a[1]:
            return _out(0.0, max(lo, hi))
        return _out(min(lo, hi), max(lo, hi))
    return _out(lo, hi)


def rpow(a, b):
    """x**y for x > 0 (monotone in each argument: corners suffice)."""
    if a[0] <= 0.0:
        raise ValueError("real power of a non-positive base")
    vs = [x ** y for x in a for y in b]
    return _out(min(vs), max(vs))


def monotone(fn, a, increasing=True):
    lo, hi = fn(a[0]), fn(a[1])
    return _out(lo, hi) if increasing else _out(hi, lo)


def unary(name, a):
    """Interval of intrinsic `name` applied to interval `a` (assumed inside
    the intrinsic's domain)."""
    inc = {"sqrt": math.sqrt, "exp": math.exp, "log": math.log,
           "log10": math.log10, "asin": math.asin, "atan": math.atan,
           "sinh": math.sinh, "tanh": math.tanh, "asinh": math.asinh,
           "acosh": math.acosh, "atanh": math.atanh, "erf": math.erf,
           "tan": math.tan}
    if name in inc:
        return monotone(inc[name], a)
    if name == "acos":
        return monotone(math.acos, a, False)
    if name == "erfc":
        return monotone(math.erfc, a, False)
    if name == "cosh":
        m = max(abs(a[0]), abs(a[1]))
        lo = 0.0 if a[0] <= 0.0 <= a[1] else min(abs(a[0]), abs(a[1]))
        return _out(math.cosh(lo), math.cosh(m))
    if name in ("sin", "cos"):
        fn = math.sin if name == "sin" else math.cos
        if a[1] - a[0] < 1.0:
            pts = [a[0] + (a[1] - a[0]) * k / 64 for k in range(65)]
            vs = [fn(p) for p in pts]
            return _out(max(-1.0, min(vs) - 0.01), min(1.0, max(vs) + 0.01))
        return (-1.0, 1.0)
    if name == "abs":
        if a[0] >= 0:
            return a
        if a[1] <= 0:
            return neg(a)
        return (0.0, max(-a[0], a[1]))
    if name in ("aint", "anint"):
        return _out(math.floor(a[0]) - 1.0, math.ceil(a[1]) + 1.0)
    raise KeyError(name)


def hypot(a, b):
    xa, xb = unary("abs", a), unary("abs", b)
    return _out(math.hypot(xa[0], xb[0]), math.hypot(xa[1], xb[1]))


def atan2(y, x):
    """ATAN2(y, x) for x > 0: monotone in each argument."""
    vs = [math.atan2(p, q) for p in y for q in x]
    return _out(min(vs), max(vs))


def sign(a, b):
    m = max(abs(a[0]), abs(a[1]))
    mag = unary("abs", a)
    if b[0] > 0:
        return mag
    if b[1] < 0:
        return neg(mag)
    return (-m, m)


def dim(a, b):
    return (max(0.0, a[0] - b[1]), max(0.0, a[1] - b[0]))


def mod(a, p):
    """MOD(a, p) for a constant p > 0 (sign of a)."""
    if a[0] >= 0:
        return (0.0, min(a[1], p))
    if a[1] <= 0:
        return (max(a[0], -p), 0.0)
    return (-p, p)


def modulo(a, p):
    if a[0] >= 0 and a[1] < p:
        return a
    return (0.0, p)


def vmax(*xs):
    return (max(x[0] for x in xs), max(x[1] for x in xs))


def vmin(*xs):
    return (min(x[0] for x in xs), min(x[1] for x in xs))


def times(a, n):
    """Sum of n values each in a."""
    return _out(n * a[0], n * a[1]) if n > 0 else (0.0, 0.0)


def product(a, n):
    out = (1.0, 1.0)
    for _ in range(n):
        out = mul(out, a)
    return out


def inside(a, target):
    return target[0] <= a[0] and a[1] <= target[1]


def width(a):
    return a[1] - a[0]


def nice(x, down=True):
    """A short decimal near x (3 significant digits), rounded toward 0 when
    `down` (scale factors) so the fitted interval stays inside."""
    if x == 0:
        return 0.0
    e = math.floor(math.log10(abs(x))) - 2
    q = abs(x) / 10 ** e
    q = math.floor(q) if down else round(q)
    return math.copysign(q * 10 ** e, x)


def affine_fit(a, target):
    """(c0, c1) with c0 + c1*[a] inside target, c1 > 0 as large as allowed
    (but at most 1): the map the generator writes as ``c0 + c1*(e)``."""
    lo, hi = target
    span = hi - lo
    w = width(a)
    c1 = 1.0 if w <= 0 else min(1.0, 0.9 * span / w)
    c1 = nice(c1)
    if c1 <= 0:
        c1 = 1e-3
    # Centre the image in the target.
    c0 = (lo + hi) / 2 - c1 * (a[0] + a[1]) / 2
    c0 = nice(c0, down=False) if abs(c0) > 1e-3 else 0.0
    img = (c0 + c1 * a[0], c0 + c1 * a[1])
    if not inside(img, target):
        # Rounding of c0 pushed it out: use the exact centre.
        c0 = round((lo + hi) / 2 - c1 * (a[0] + a[1]) / 2, 6)
    return c0, c1
