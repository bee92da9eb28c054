"""Random expressions with sound value intervals.

:class:`ExprGen` builds scalar and array expressions from the variables in
scope, mapping every argument of a partial function into its domain (see
:mod:`adfort.testing.intervals`), so that generated programs never produce
NaN, infinities or divisions by zero and are smooth enough for central
finite differences.
"""

import dataclasses
import math
from typing import Optional, Tuple

from adfort.testing import intervals as iv
from adfort.testing.model import Bound

# Operator precedences for parenthesisation.
ATOM, POW, MULT, ADDP = 10, 8, 5, 4

UNARY = ["sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos",
         "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
         "erfc", "abs"]
# FORTRAN 77 specific names of the double precision intrinsics.
F77_NAMES = {"sqrt": "dsqrt", "exp": "dexp", "log": "dlog", "log10": "dlog10",
             "sin": "dsin", "cos": "dcos", "tan": "dtan", "asin": "dasin",
             "acos": "dacos", "atan": "datan", "sinh": "dsinh",
             "cosh": "dcosh", "tanh": "dtanh", "abs": "dabs",
             "atan2": "datan2", "sign": "dsign", "mod": "dmod",
             "dim": "ddim", "max": "dmax1", "min": "dmin1"}
DOMAIN_OF = {"sqrt": "sqrt", "log": "log", "log10": "log10", "asin": "asin",
             "acos": "acos", "atanh": "atanh", "acosh": "acosh", "exp": "exp",
             "sinh": "sinh", "cosh": "cosh", "tan": "tan", "erf": "erf",
             "erfc": "erf"}


@dataclasses.dataclass
class Expr:
    """Fortran text, value interval, precedence and shape (None: scalar;
    else a tuple of (size symbol, offset) extent keys)."""

    text: str
    iv: Tuple[float, float]
    prec: int = ATOM
    shape: Optional[tuple] = None

    def wrap(self, prec):
        """Text usable as an operand needing precedence > prec."""
        return self.text if self.prec > prec else f"({self.text})"


class ExprGen:
    """Expressions over a :class:`Scope` (see generator.py)."""

    def __init__(self, gen, scope):
        self.g = gen              # the program generator (rng, case, flags)
        self.s = scope
        self.rng = gen.rng
        self.allow_fcall = True

    # -- literals ----------------------------------------------------------
    def lit(self, value, digits=3):
        """A real literal in the case's style."""
        case = self.g.case
        if value == 0:
            text = "0.0"
        else:
            text = f"{value:.{digits}g}"
            if "e" in text:
                mant, exp = text.split("e")
                text = (mant if "." in mant else mant + ".0") + \
                    ("d" if case.literal_suffix == "d0" else "e") + \
                    str(int(exp))
                if case.literal_suffix != "d0":
                    text += "_" + case.literal_suffix.lstrip("_")
                return Expr(text, (value, value), ATOM if value > 0 else ADDP)
            if "." not in text:
                text += ".0"
        text += case.literal_suffix if case.literal_suffix == "d0" \
            else "_" + case.literal_suffix
        return Expr(text, (value, value), ATOM if value >= 0 else ADDP)

    def rand_const(self, lo, hi):
        return iv.nice(self.rng.uniform(lo, hi), down=False)

    # -- fitting into domains ---------------------------------------------
    def fit(self, e, target):
        """e, or ``c0 + c1*(e)`` with values inside target."""
        if iv.inside(e.iv, target):
            return e
        c0, c1 = iv.affine_fit(e.iv, target)
        body = e
        if c1 != 1.0:
            body = Expr(f"{self.lit(c1).text} * {e.wrap(MULT)}",
                        iv.scale(e.iv, c1), MULT, e.shape)
        if c0 == 0.0:
            return body
        c = self.lit(abs(c0))
        if c0 > 0:
            text = f"{c.text} + {body.wrap(ADDP)}"
        else:
            text = f"{body.wrap(ADDP - 1)} - {c.text}"
        return Expr(text, iv.add((c0, c0), body.iv), ADDP, e.shape)

    def fit_domain(self, e, name):
        return self.fit(e, iv.DOMAINS[name])

    # -- leaves --------------------------------------------------------------
    def scalar_leaf(self):
        choices = []
        sc = [v for v in self.s.readable() if v.kind == "real" and
              not v.is_array]
        arr = [v for v in self.s.readable() if v.kind == "real" and
               v.is_array]
        if sc:
            choices += [("var", 6)]
        if arr:
            choices += [("elem", 5)]
        if arr and self.g.flag("array_intrinsics"):
            choices += [("reduce", 2)]
        if self.s.loops:
            choices += [("index", 1)]
        choices += [("lit", 2)]
        kind = self.g.pick_weighted(choices)
        if kind == "var":
            v = self.rng.choice(sc)
            return Expr(v.name, v.interval)
        if kind == "elem":
            v = self.rng.choice(arr)
            return Expr(self.element(v), v.interval)
        if kind == "reduce":
            return self.reduction(self.rng.choice(arr))
        if kind == "index":
            name, (lo, hi) = self.rng.choice(list(self.s.loops.items()))
            return Expr(self.to_real(name), (float(lo), float(hi)))
        return self.lit(self.rand_const(-2.0, 2.0))

    def to_real(self, int_text):
        case = self.g.case
        r = self.rng.random()
        if case.literal_suffix == "d0" and r < 0.4:
            return f"dble({int_text})"
        kind = "8" if case.literal_suffix == "d0" else case.literal_suffix
        return f"real({int_text}, {kind})"

    def element(self, v):
        """An element reference valid wherever it is evaluated."""
        return f"{v.name}({', '.join(self.index(v, k) for k in range(len(v.dims)))})"

    def index(self, v, k):
        """Index text for dimension k of v: a loop index (with an offset)
        whose whole range fits, else a bound or constant."""
        dim = v.dims[k]
        if v.decl == "assumed_size" and k == len(v.dims) - 1:
            hi = v.dims[k].hi.value(self.s.env)
        else:
            hi = dim.hi.value(self.s.env)
        lo = dim.lo.value(self.s.env)
        fits = []
        for name, (a, b) in self.s.loops.items():
            for d in (0, 0, 0, -1, 1):
                if lo <= a + d and b + d <= hi and self.s.loop_sym.get(
                        name) in (dim.hi.sym, None):
                    fits.append((name, d + self.s.offset_for(name, dim)))
        fits = [(n, d) for n, d in fits
                if lo <= self.s.loops[n][0] + d and self.s.loops[n][1] + d <= hi]
        if fits and self.rng.random() < 0.9:
            name, d = self.rng.choice(fits)
            return name if d == 0 else f"{name} {'+' if d > 0 else '-'} {abs(d)}"
        r = self.rng.random()
        if r < 0.3:
            return dim.lo.text()
        if r < 0.5 and not (v.decl == "assumed_size" and k == len(v.dims) - 1):
            return dim.hi.text()
        off = self.rng.randint(0, max(0, min(2, hi - lo)))
        return dim.lo.plus(off).text()

    def reduction(self, v):
        """SUM/MAXVAL/MINVAL/PRODUCT/NORM2/SIZE/DOT_PRODUCT of an array."""
        env = self.s.env
        if v.decl == "assumed_size":
            return Expr(self.element(v), v.interval)
        n = v.size(env)
        ops = ["sum", "sum", "maxval", "minval", "dot_product", "product",
               "size"]
        if self.g.flag("extra_intrinsics"):
            ops += ["norm2", "pack", "reshape"]
        if len(v.dims) == 2:
            ops += ["matmul", "shape"]
        op = self.rng.choice(ops)
        if op == "matmul":
            t = self.rng.choice([f"matmul(transpose({v.name}), {v.name})",
                                 f"matmul({v.name}, transpose({v.name}))"])
            m = v.dims[1].hi.value(env) - v.dims[1].lo.value(env) + 1
            k = n // m
            terms = n * (m if t.startswith("matmul(t") else k)
            return Expr(f"sum({t})", iv.times(iv.mul(v.interval, v.interval),
                                              terms))
        if op == "shape":
            return Expr(self.to_real(f"product(shape({v.name}))"), (n, n))
        arg = self.array_operand(v)
        text = arg.text
        if op == "sum":
            return Expr(f"sum({text})", iv.times(arg.iv, arg_n(arg, env, n)))
        if op in ("maxval", "minval"):
            return Expr(f"{op}({text})", arg.iv)
        if op == "product":
            e = self.fit(arg, (0.8, 1.2))
            return Expr(f"product({e.text})",
                        iv.product(e.iv, arg_n(arg, env, n)))
        if op == "norm2":
            a = iv.unary("abs", arg.iv)
            return Expr(f"norm2({text})", (0.0, a[1] * math.sqrt(
                arg_n(arg, env, n)) * 1.01))
        if op == "pack":
            lo, hi = arg.iv
            t = self.lit(iv.nice(lo + (hi - lo) * self.rng.uniform(0.2, 0.8),
                                 False))
            return Expr(f"sum(pack({text}, {text} > {t.text}))",
                        iv.times(iv.union(arg.iv, (0.0, 0.0)),
                                 arg_n(arg, env, n)))
        if op == "reshape":
            return Expr(f"sum(reshape({v.name}, [size({v.name})]) * "
                        f"{self.lit(0.5).text})",
                        iv.times(iv.scale(v.interval, 0.5), n))
        if op == "size":
            return Expr(self.to_real(f"size({v.name})"), (n, n))
        # dot_product with another array of the same shape
        if len(v.dims) != 1:
            return Expr(f"sum({text})", iv.times(arg.iv, arg_n(arg, env, n)))
        other = self.array_of_shape(arg.shape)
        if other.shape is None:
            return Expr(f"sum({text})", iv.times(arg.iv, arg_n(arg, env, n)))
        return Expr(f"dot_product({text}, {other.text})",
                    iv.times(iv.mul(arg.iv, other.iv), arg_n(arg, env, n)))

    def array_operand(self, v):
        """The whole array v, ``v(:)`` or a section of it."""
        keys = tuple(self.s.extent_key(d) for d in v.dims)
        r = self.rng.random()
        if len(v.dims) == 1 and r < 0.35 and v.decl != "assumed_size":
            sec = self.section(v, shrink=self.rng.choice([0, 1]))
            if sec:
                return sec
        if r < 0.5 and v.decl != "assumed_size":
            return Expr(f"{v.name}({', '.join(':' for _ in v.dims)})",
                        v.interval, ATOM, keys)
        return Expr(v.name, v.interval, ATOM, keys)

    def section(self, v, shrink=0, key=None):
        """A 1-D section ``v(a:b)`` of extent key `key` (default: v's
        extent minus `shrink`); None if v cannot provide one."""
        dim = v.dims[0]
        full = self.s.extent_key(dim)
        if full is None:
            return None
        if key is None:
            key = (full[0], full[1] - shrink)
        if key[0] != full[0] or key[1] > full[1]:
            return None
        slack = full[1] - key[1]
        o = self.rng.randint(0, slack)
        lo = dim.lo.plus(o)
        hi = dim.hi.plus(-(slack - o))
        if self.s.env_value(hi) - self.s.env_value(lo) + 1 < 1:
            return None
        return Expr(f"{v.name}({lo.text()}:{hi.text()})", v.interval, ATOM,
                    (key,))

    def array_of_shape(self, shape):
        """An array operand (whole or section) of the given shape."""
        cands = []
        for v in self.s.readable():
            if v.kind != "real" or not v.is_array or v.decl == "assumed_size":
                continue
            keys = tuple(self.s.extent_key(d) for d in v.dims)
            if keys == shape:
                cands.append(("whole", v))
            elif len(shape) == 1 and len(v.dims) == 1 and keys[0] and \
                    keys[0][0] == shape[0][0] and keys[0][1] >= shape[0][1]:
                cands.append(("sec", v))
            elif len(shape) == 1 and len(v.dims) == 2 and self.s.loops:
                # a column a(:, j) inside a loop over j
                if keys[0] == shape[0]:
                    for name, (a, b) in self.s.loops.items():
                        dim = v.dims[1]
                        off = self.s.offset_for(name, dim)
                        lo, hi = dim.lo.value(self.s.env), dim.hi.value(
                            self.s.env)
                        if lo <= a + off and b + off <= hi:
                            cands.append(("col", (v, name, off)))
        if not cands:
            return self.lit(self.rand_const(0.5, 1.5))
        kind, what = self.rng.choice(cands)
        if kind == "whole":
            v = what
            text = v.name if self.rng.random() < 0.6 else \
                f"{v.name}({', '.join(':' for _ in v.dims)})"
            return Expr(text, v.interval, ATOM, shape)
        if kind == "sec":
            return self.section(what, key=shape[0])
        v, name, off = what
        idx = name if off == 0 else f"{name} {'+' if off > 0 else '-'} {abs(off)}"
        return Expr(f"{v.name}(:, {idx})", v.interval, ATOM, shape)

    # -- composite expressions ----------------------------------------------
    def expr(self, depth=2, shape=None):
        """A random real expression (scalar, or of the given array shape:
        scalars then broadcast)."""
        if depth <= 0 or self.rng.random() < 0.2:
            if shape is not None and self.rng.random() < 0.85:
                return self.array_of_shape(shape)
            return self.scalar_leaf()
        choices = [("unary", 5), ("binop", 8), ("power", 3), ("binfun", 3),
                   ("maxmin", 2), ("conv", 1)]
        if self.g.flag("merge"):
            choices.append(("merge", 1))
        if self.g.functions and self.allow_fcall and \
                self.g.flag("functions"):
            choices.append(("fcall", 3))
        if shape is not None and self.g.flag("array_intrinsics"):
            choices.append(("arrayfun", 2))
        choices.append(("inquiry", 1))
        kind = self.g.pick_weighted(choices)
        sub = lambda: self.expr(depth - 1, shape)
        return getattr(self, "_" + kind)(sub, depth, shape)

    def _unary(self, sub, depth, shape):
        name = self.rng.choice(UNARY)
        a = sub()
        if name in DOMAIN_OF:
            a = self.fit_domain(a, DOMAIN_OF[name])
        elif name in ("sin", "cos", "atan", "tanh", "asinh", "abs"):
            a = self.fit_domain(a, "generic")
        spelled = self.g.f77_name(name)
        return Expr(f"{spelled}({a.text})", iv.unary(name, a.iv), ATOM,
                    a.shape)

    def _binop(self, sub, depth, shape):
        a, b = sub(), sub()
        op = self.rng.choice("+-*/")
        if op == "+":
            return Expr(f"{a.wrap(ADDP - 1)} + {b.wrap(ADDP)}",
                        iv.add(a.iv, b.iv), ADDP, a.shape or b.shape)
        if op == "-":
            return Expr(f"{a.wrap(ADDP - 1)} - {b.wrap(ADDP)}",
                        iv.sub(a.iv, b.iv), ADDP, a.shape or b.shape)
        if op == "*":
            return Expr(f"{a.wrap(MULT - 1)} * {b.wrap(MULT)}",
                        iv.mul(a.iv, b.iv), MULT, a.shape or b.shape)
        b = self.fit_domain(b, "divisor")
        if self.rng.random() < 0.3:
            b = Expr(f"-{b.wrap(MULT)}", iv.neg(b.iv), ADDP, b.shape)
        return Expr(f"{a.wrap(MULT - 1)} / {b.wrap(MULT)}",
                    iv.div(a.iv, b.iv), MULT, a.shape or b.shape)

    def _power(self, sub, depth, shape):
        r = self.rng.random()
        a = sub()
        if r < 0.45:
            n = self.rng.choice([2, 2, 3, 4])
            a = self.fit(a, (-2.0, 2.0))
            text = f"{a.wrap(POW)}**{n}"
            return Expr(text, iv.ipow(a.iv, n), POW, a.shape)
        a = self.fit_domain(a, "pow_base")
        if r < 0.7:
            p = self.rng.choice([0.5, 1.5, 2.5, -0.5, -1.5, 1.0 / 3.0])
            pe = self.lit(p, 4) if p != 1.0 / 3.0 else Expr(
                f"{self.lit(1.0).text}/3", (p, p), MULT)
            text = f"{a.wrap(POW)}**{pe.wrap(POW - 1) if pe.prec > POW else '(' + pe.text + ')'}"
            return Expr(text, iv.rpow(a.iv, (p, p)), POW, a.shape)
        b = self.fit_domain(sub(), "pow_expo")
        # b may itself be a power: x**y**2 is x**(y**2)
        btext = b.text if b.prec >= POW else f"({b.text})"
        return Expr(f"{a.wrap(POW)}**{btext}", iv.rpow(a.iv, b.iv), POW,
                    a.shape or b.shape)

    def _binfun(self, sub, depth, shape):
        name = self.rng.choice(["atan2", "hypot", "sign", "dim", "mod",
                                "modulo"])
        a, b = sub(), sub()
        sp = self.g.f77_name(name)
        shp = a.shape or b.shape
        if name == "atan2":
            b = self.fit_domain(b, "atan2_x")
            return Expr(f"{sp}({a.text}, {b.text})", iv.atan2(a.iv, b.iv),
                        ATOM, shp)
        if name == "hypot":
            return Expr(f"hypot({a.text}, {b.text})", iv.hypot(a.iv, b.iv),
                        ATOM, shp)
        if name == "sign":
            return Expr(f"{sp}({a.text}, {b.text})", iv.sign(a.iv, b.iv),
                        ATOM, shp)
        if name == "dim":
            return Expr(f"{sp}({a.text}, {b.text})", iv.dim(a.iv, b.iv),
                        ATOM, shp)
        p = self.rng.choice([0.7, 1.3, 2.1])
        pl = self.lit(p)
        fn = iv.mod if name == "mod" else iv.modulo
        return Expr(f"{sp if name == 'mod' else 'modulo'}({a.text}, {pl.text})",
                    fn(a.iv, p), ATOM, a.shape)

    def _maxmin(self, sub, depth, shape):
        k = self.rng.choice([2, 2, 3, 4])
        args = [sub() for _ in range(k)]
        name = self.rng.choice(["max", "min"])
        fn = iv.vmax if name == "max" else iv.vmin
        sp = self.g.f77_name(name)
        shp = next((a.shape for a in args if a.shape), None)
        return Expr(f"{sp}({', '.join(a.text for a in args)})",
                    fn(*[a.iv for a in args]), ATOM, shp)

    def _merge(self, sub, depth, shape):
        a, b = sub(), sub()
        # an array mask would make the result an array
        c = self.condition(shape=shape if a.shape or b.shape else None)
        return Expr(f"merge({a.text}, {b.text}, {c})", iv.union(a.iv, b.iv),
                    ATOM, a.shape or b.shape)

    def _conv(self, sub, depth, shape):
        a = sub()
        r = self.rng.random()
        case = self.g.case
        kind = "8" if case.literal_suffix == "d0" else case.literal_suffix
        if r < 0.35:
            return Expr(f"dble({a.text})", a.iv, ATOM, a.shape)
        if r < 0.7:
            return Expr(f"real({a.text}, {kind})", a.iv, ATOM, a.shape)
        name = self.rng.choice(["aint", "anint", "int", "nint", "floor",
                                "ceiling"])
        a = self.fit(a, (-3.0, 3.0))
        if name in ("aint", "anint"):
            return Expr(f"{name}({a.text})", iv.unary(name, a.iv), ATOM,
                        a.shape)
        # integer-valued, converted back: piecewise constant
        return Expr(self.to_real(f"{name}({a.text})"), iv.unary("aint", a.iv),
                    ATOM, a.shape)

    def _inquiry(self, sub, depth, shape):
        a = sub()
        name = self.rng.choice(["epsilon", "tiny", "huge", "digits",
                                "precision", "range", "kind"])
        if name in ("epsilon", "tiny"):
            # a + epsilon(a): a constant shift
            return Expr(f"{a.wrap(ADDP - 1)} + {name}({a.text})",
                        iv.add(a.iv, (0.0, 2.3e-16)), ADDP, a.shape)
        if name == "huge":
            return Expr(f"min({a.text}, huge({a.text}))", a.iv, ATOM,
                        a.shape)
        # integer inquiries scale a by a known constant
        val = {"digits": 53, "precision": 15, "range": 307, "kind": 8}[name]
        first = a.text if a.shape is None else a.text.split("(")[0]
        if a.shape is not None:
            first = a.text
        return Expr(f"{a.wrap(MULT - 1)} * {self.to_real(f'{name}({first})')}"
                    f" / {val}", iv.scale(a.iv, 1.0), MULT, a.shape)

    def _fcall(self, sub, depth, shape):
        f = self.rng.choice(self.g.functions)
        if shape is not None and not f.elemental:
            return sub()
        if shape is None and f.array_args:
            return self.g.function_call_arrays(self, f)
        args = []
        for d in f.dummies:
            a = sub()
            args.append(self.fit(a, d.interval))
        shp = next((a.shape for a in args if a.shape), None)
        return Expr(f"{f.name}({', '.join(a.text for a in args)})",
                    f.result_iv, ATOM, shp if f.elemental else None)

    def _arrayfun(self, sub, depth, shape):
        env = self.s.env
        if len(shape) == 1:
            mats = [v for v in self.s.readable() if v.kind == "real" and
                    v.is_array and len(v.dims) == 2 and
                    v.decl != "assumed_size"]
            opts = ["cshift", "cshift"]
            if self.g.flag("extra_intrinsics"):
                opts += ["eoshift"]
            for m in mats:
                k0, k1 = (self.s.extent_key(d) for d in m.dims)
                if k0 == shape[0] and k1:
                    opts.append(("matmul", m))
                if k1 == shape[0] and k0:
                    opts.append(("matmul_t", m))
                    opts.append(("sumdim", m))
            op = self.rng.choice(opts)
            if op in ("cshift", "eoshift"):
                a = sub()
                if a.shape is None:
                    a = self.array_of_shape(shape)
                if a.shape is None:
                    return sub()
                s = self.rng.choice([1, -1, 2])
                if op == "eoshift":
                    return Expr(f"eoshift({a.text}, {s})", iv.union(
                        a.iv, (0.0, 0.0)), ATOM, shape)
                text = f"cshift({a.text}, {s})" if self.rng.random() < 0.6 \
                    else f"cshift({a.text}, shift={s})"
                return Expr(text, a.iv, ATOM, shape)
            kind, m = op
            k0, k1 = (self.s.extent_key(d) for d in m.dims)
            if kind == "matmul":
                w = self.array_of_shape((k1,))
                if w.shape is None:
                    return sub()
                n = m.dims[1].hi.value(env) - m.dims[1].lo.value(env) + 1
                return Expr(f"matmul({m.name}, {w.text})",
                            iv.times(iv.mul(m.interval, w.iv), n), ATOM, shape)
            n = m.dims[0].hi.value(env) - m.dims[0].lo.value(env) + 1
            if kind == "sumdim":
                return Expr(f"sum({m.name}, dim=1)", iv.times(m.interval, n),
                            ATOM, shape)
            w = self.array_of_shape((k0,))
            if w.shape is None:
                return sub()
            if self.rng.random() < 0.5:
                return Expr(f"matmul(transpose({m.name}), {w.text})",
                            iv.times(iv.mul(m.interval, w.iv), n), ATOM, shape)
            return Expr(f"matmul({w.text}, {m.name})",
                        iv.times(iv.mul(m.interval, w.iv), n), ATOM, shape)
        # rank 2: spread of a vector, transpose, matmul of matrices
        k0, k1 = shape
        r = self.rng.random()
        if r < 0.5:
            dim, keep = (2, k0) if self.rng.random() < 0.5 else (1, k1)
            v = self.array_of_shape((keep,))
            ncopies = self.s.key_value(k1 if dim == 2 else k0)
            ntext = self.s.key_text(k1 if dim == 2 else k0)
            if v.shape is None:
                return sub()
            return Expr(f"spread({v.text}, {dim}, {ntext})", v.iv, ATOM, shape)
        t = self.array_of_shape((k1, k0))
        if t.shape is None:
            return sub()
        return Expr(f"transpose({t.text})", t.iv, ATOM, shape)

    # -- conditions -----------------------------------------------------------
    def condition(self, shape=None, depth=1):
        """A logical expression comparing values with thresholds inside their
        ranges (both outcomes possible)."""
        r = self.rng.random()
        if depth > 0 and r < 0.2:
            a = self.condition(shape, depth - 1)
            b = self.condition(shape, depth - 1)
            return f"({a}) {self.rng.choice(['.and.', '.or.'])} ({b})"
        if depth > 0 and r < 0.25:
            return f".not. ({self.condition(shape, depth - 1)})"
        if shape is None and self.s.loops and r < 0.4:
            name, (lo, hi) = self.rng.choice(list(self.s.loops.items()))
            k = self.rng.randint(lo, max(lo, hi))
            return self.rng.choice([f"mod({name}, 2) == 0", f"{name} > {k}",
                                    f"{name} /= {k}", f"{name} <= {k}"])
        e = self.expr(1, shape)
        lo, hi = e.iv
        if hi - lo < 1e-9:
            t = lo + 0.5
        else:
            t = lo + (hi - lo) * self.rng.uniform(0.3, 0.7)
        op = self.rng.choice([">", "<", ">=", "<=", ".gt.", ".lt."])
        return f"{e.text} {op} {self.lit(iv.nice(t, False)).text}"


def arg_n(arg, env, n):
    """Number of elements of an array operand (sections are smaller)."""
    if arg.shape and len(arg.shape) == 1 and arg.shape[0] is not None:
        sym, c = arg.shape[0]
        return (env[sym] if sym else 0) + c
    return n


def bound_text(b: Bound):
    return b.text()
