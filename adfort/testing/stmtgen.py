"""Random statements of a generated routine (see generator.py).

:class:`StmtGen` writes assignments, accumulations, element and array
assignments, table look-ups, IF chains, DO loops over array dimensions
(stencils, reverse and strided), DO WHILE, EXIT/CYCLE, SELECT CASE, WHERE
and calls, keeping every value inside its variable's invariant interval
(:mod:`adfort.testing.intervals`).
"""

import re

from adfort.testing import intervals as iv
from adfort.testing.exprgen import ADDP, MULT, Expr, ExprGen
from adfort.testing.model import Bound, Dim, Node, Var

SCALAR_NAMES = ["tmp", "acc", "flux", "rho", "vel", "temp", "press", "grad",
                "coef", "q", "dq", "cost", "sig", "zeta", "wgt", "beta",
                "gam", "dens", "eta", "phi", "theta", "psi", "alpha", "rate",
                "frac", "hgt", "emis", "visc", "cfl", "area"]
ARRAY_NAMES = ["u", "v", "h", "work", "field", "diffu", "qv", "tend", "fx",
               "res", "salt", "tr", "pp", "ww", "zz", "src"]
MATRIX_NAMES = ["amat", "cmat", "tab", "wk2", "coefs", "kmat"]


F77_NAMES = {"sqrt": "dsqrt", "exp": "dexp", "log": "dlog", "log10": "dlog10",
        "sin": "dsin", "cos": "dcos", "tan": "dtan", "asin": "dasin",
        "acos": "dacos", "atan": "datan", "sinh": "dsinh", "cosh": "dcosh",
        "tanh": "dtanh", "abs": "dabs", "atan2": "datan2", "sign": "dsign",
        "mod": "dmod", "dim": "ddim", "max": "dmax1", "min": "dmin1"}



class StmtGen:
    """Statements of one routine."""

    def __init__(self, gen, routine, scope, allow_calls=True,
                 scalars_only=False):
        self.g = gen
        self.r = routine
        self.s = scope
        self.rng = gen.rng
        self.eg = ExprGen(gen, scope)
        self.allow_calls = allow_calls
        self.scalars_only = scalars_only

    def block(self, n, depth):
        out = []
        for _ in range(n):
            node = self.stmt(depth)
            out += node if isinstance(node, list) else [node]
        return out

    def stmt(self, depth):
        f = self.g.flags
        choices = [("assign", 5), ("accum", 4)]
        arrays_w = [v for v in self.s.writable() if v.is_array]
        if arrays_w and not self.scalars_only:
            choices += [("elem_assign", 3)]
            if f["sections"]:
                choices += [("array_assign", 2)]
        if depth > 0:
            if f["ifs"]:
                choices += [("if", 3), ("if1", 1)]
            if f["loops"] and not self.scalars_only:
                choices += [("do", 5)]
            if f["loops"] and self.scalars_only:
                choices += [("do_small", 1)]
            if f["while_loops"]:
                choices += [("while", 1)]
            if f["select"]:
                choices += [("select", 1)]
            if f["where"] and arrays_w and not self.scalars_only:
                choices += [("where", 1)]
        if f["lookup"] and not self.scalars_only and any(
                v.is_array and v.decl != "assumed_size"
                for v in self.s.readable()):
            choices += [("lookup", 1)]
            if f.get("self_lookup") and any(
                    v.is_array and v.decl != "assumed_size" and len(v.dims) == 1
                    for v in self.s.writable()):
                choices += [("self_lookup", 1)]
        if self.s.loops and f["exit_cycle"] and self.s.in_loop:
            choices += [("exitcycle", 1)]
        if self.allow_calls and self.g.subroutines and f["calls"]:
            choices += [("call", 4)]
        kind = self.g.pick_weighted(choices)
        node = getattr(self, "_" + kind)(depth)
        self.g.features.add(kind)
        return node

    # -- simple statements ---------------------------------------------------
    def scalar_target(self):
        cands = [v for v in self.s.writable() if not v.is_array]
        if not cands:
            return None
        return self.rng.choice(cands)

    def _assign(self, depth):
        t = self.scalar_target()
        if t is None:
            return self._elem_assign(depth)
        e = self.eg.fit(self.eg.expr(self.rng.randint(1, 3)), t.interval)
        return Node(f"{t.name} = {e.text}")

    def _accum(self, depth):
        t = self.scalar_target()
        if t is None:
            return self._assign(depth)
        e = self.eg.expr(self.rng.randint(1, 2))
        op = self.rng.choice(["+", "+", "-", "*"])
        if op == "*":
            e = self.eg.fit(e, (0.5, 1.2))
            full = Expr(f"{t.name} * {e.wrap(MULT)}",
                        iv.mul(t.interval, e.iv), MULT)
        else:
            fn = iv.add if op == "+" else iv.sub
            full = Expr(f"{t.name} {op} {e.wrap(ADDP)}",
                        fn(t.interval, e.iv), ADDP)
        return Node(f"{t.name} = {self.eg.fit(full, t.interval).text}")

    def _elem_assign(self, depth):
        cands = [v for v in self.s.writable() if v.is_array]
        if not cands:
            return self._assign(depth)
        v = self.rng.choice(cands)
        target = self.eg.element(v)
        e = self.eg.expr(self.rng.randint(1, 2))
        if self.rng.random() < 0.4:
            e = Expr(f"{target} + {e.wrap(ADDP)}", iv.add(v.interval, e.iv),
                     ADDP)
        return Node(f"{target} = {self.eg.fit(e, v.interval).text}")

    def _array_assign(self, depth):
        cands = [v for v in self.s.writable() if v.is_array and
                 v.decl != "assumed_size"]
        if not cands:
            return self._assign(depth)
        v = self.rng.choice(cands)
        if len(v.dims) == 1 and self.rng.random() < 0.5:
            tgt = self.eg.section(v, shrink=self.rng.choice([0, 1, 2]))
            if tgt is None or self.s.key_value(tgt.shape[0]) < 1:
                tgt = self.eg.array_operand(v)
        else:
            tgt = self.eg.array_operand(v)
            if "(" in tgt.text and ":" in tgt.text and len(v.dims) == 1:
                pass
        shape = tgt.shape
        e = self.eg.expr(self.rng.randint(1, 3), shape)
        if self.rng.random() < 0.3:
            e = Expr(f"{tgt.text} + {e.wrap(ADDP)}", iv.add(v.interval, e.iv),
                     ADDP, shape)
        self.g.features.add("array_expression")
        return Node(f"{tgt.text} = {self.eg.fit(e, v.interval).text}")

    def _lookup(self, depth):
        arrs = [v for v in self.s.readable() if v.is_array and
                v.decl != "assumed_size" and len(v.dims) == 1]
        t = self.scalar_target()
        if not arrs or t is None:
            return self._assign(depth)
        v = self.rng.choice(arrs)
        lo, hi = (b.value(self.s.env) for b in (v.dims[0].lo, v.dims[0].hi))
        e = self.eg.fit(self.eg.expr(1), (0.0, float(hi - lo) + 0.9))
        conv = self.rng.choice(["int", "nint", "floor", "ceiling"])
        lo_t, hi_t = v.dims[0].lo.text(), v.dims[0].hi.text()
        kvar = "ik"
        self.r.vars.setdefault(kvar, Var(kvar, "int"))
        idx = f"max({lo_t}, min({hi_t}, {lo_t} + {conv}({e.text})))"
        w = self.eg.expr(1)
        rhs = Expr(f"{v.name}({kvar}) * {w.wrap(MULT)}",
                   iv.mul(v.interval, w.iv), MULT)
        self.g.features.add("lookup_" + conv)
        return Node(f"{kvar} = {idx}\n{t.name} = "
                    f"{self.eg.fit(rhs, t.interval).text}")

    def _self_lookup(self, depth):
        """``v(k(v)) = v(k(v))*w``: an element chosen by a subscript that
        reads the array the statement assigns (the assignment may change
        what the subscript reads)."""
        arrs = [v for v in self.s.writable() if v.is_array and
                v.decl != "assumed_size" and len(v.dims) == 1]
        if not arrs:
            return self._assign(depth)
        v = self.rng.choice(arrs)
        lo_t, hi_t = v.dims[0].lo.text(), v.dims[0].hi.text()
        conv = self.rng.choice(["int", "nint", "floor"])
        idx = f"max({lo_t}, min({hi_t}, {lo_t} + {conv}(abs({v.name}({lo_t}))*{self.eg.lit(3.0).text})))"
        w = self.eg.fit(self.eg.expr(1), (0.5, 1.5))
        rhs = Expr(f"{v.name}({idx}) * {w.wrap(MULT)}", iv.mul(v.interval, w.iv), MULT)
        self.g.features.add("self_lookup")
        return Node(f"{v.name}({idx}) = {self.eg.fit(rhs, v.interval).text}")

    def _exitcycle(self, depth):
        word = self.rng.choice(["exit", "cycle"])
        self.g.features.add(word)
        return Node(f"if ({self.eg.condition()}) {word}")

    def _call(self, depth):
        sub = self.rng.choice(self.g.subroutines)
        # Written actuals first, each a different variable (no aliasing).
        order = sorted(range(len(sub.dummies)),
                       key=lambda k: sub.dummies[k].intent == "in")
        actuals = [None] * len(sub.dummies)
        written = set()
        for k in order:
            d = sub.dummies[k]
            text = self.actual(d, written)
            if text is None:
                return self._assign(depth)
            base = text.split("(")[0].strip()
            if d.kind == "real" and d.intent != "in":
                written.add(base)
            elif base in written or base in self.module_names():
                # referenced through another dummy or by the callee itself:
                # pass a copy (an expression)
                text = f"({text})"
            actuals[k] = text
        if sub.name not in self.r.calls:
            self.r.calls.append(sub.name)
        return Node(f"call {sub.name}({', '.join(actuals)})")

    def module_names(self):
        """Globals (module or COMMON variables): never written actuals."""
        out = set(self.g.data.vars) if self.g.data is not None else set()
        return out | set(self.g.case.common)

    def actual(self, d, written=()):
        """Actual argument text for dummy d (None: none possible)."""
        eg = self.eg
        if d.kind == "int" and "n" not in self.s.vars and any(
                x.is_array for x in self.s.vars.values()):
            return None
        if d.kind == "int":
            return "n" if "n" in self.s.vars else str(self.s.env["n"])
        if not d.is_array:
            if d.intent == "in":
                r = self.rng.random()
                if r < 0.25:
                    self.g.features.add("literal_actual")
                    return eg.lit(eg.rand_const(*d.interval)).text
                e = eg.expr(self.rng.choice([0, 0, 1]))
                if e.prec < 10:
                    self.g.features.add("expression_actual")
                return eg.fit(e, d.interval).text
            # written: a variable or element with a compatible invariant
            cands = []
            for v in self.s.writable():
                if v.name in written or v.name in self.module_names():
                    continue
                ok = v.interval == d.interval if d.intent != "out" else \
                    iv.inside(d.interval, v.interval)
                if ok:
                    cands.append(v.name if not v.is_array else
                                 eg.element(v))
            if not cands:
                v = self.g.add_local(self.r, self.s, SCALAR_NAMES,
                                     interval=d.interval)
                cands = [v.name]
            return self.rng.choice(cands)
        # arrays: same extent (n), compatible invariant
        shape = (("n", 0),)
        if "n" not in self.s.vars:
            return None
        cands = []
        for v in self.s.vars.values():
            if v.kind != "real" or not v.is_array or v.decl == "assumed_size":
                continue
            if v.name in written or (d.intent != "in" and
                                     v.name in self.module_names()):
                continue
            if d.intent == "in":
                ok = iv.inside(v.interval, d.interval)
            elif d.intent == "out":
                ok = iv.inside(d.interval, v.interval)
            else:
                ok = v.interval == d.interval
            if d.intent != "in" and v.name not in self.s.writable_names:
                ok = False
            if ok and len(v.dims) == 1 and self.s.extent_key(v.dims[0]) and \
                    self.s.extent_key(v.dims[0])[0] == "n" and \
                    self.s.extent_key(v.dims[0])[1] >= 0:
                cands.append(v)
        if not cands:
            v = self.g.add_local(self.r, self.s, ARRAY_NAMES,
                                 [Dim(Bound(None, 1), Bound("n", 0))],
                                 interval=d.interval)
            cands = [v]
        v = self.rng.choice(cands)
        key = self.s.extent_key(v.dims[0])
        if d.decl in ("explicit", "assumed_size") and self.rng.random() < 0.25 and \
                v.decl != "assumed_shape":
            # sequence association: the element the dummy's n elements
            # start at (F77 style, call dscal(n, t, a(k), 1))
            start = v.dims[0].lo.plus(self.rng.randint(0, key[1]))
            self.g.features.add("element_actual_for_array")
            return f"{v.name}({start.text()})"
        if key == ("n", 0):
            if d.intent == "in" and self.rng.random() < 0.2:
                self.g.features.add("array_expression_actual")
                return eg.fit(Expr(f"{eg.lit(0.5).text} * {v.name}",
                                   iv.scale(v.interval, 0.5), MULT, shape),
                              d.interval).text
            return v.name
        sec = eg.section(v, key=("n", 0))
        self.g.features.add("section_actual")
        return sec.text

    # -- constructs ------------------------------------------------------------
    def _if1(self, depth):
        t = self.scalar_target()
        if t is None:
            return self._assign(depth)
        e = self.eg.fit(self.eg.expr(1), t.interval)
        return Node(f"if ({self.eg.condition()}) {t.name} = {e.text}")

    def _if(self, depth):
        nb = self.rng.choice([1, 2, 2, 3])
        blocks = [(f"if ({self.eg.condition()}) then",
                   self.block(self.rng.randint(1, 3), depth - 1))]
        for _ in range(nb - 1):
            blocks.append((f"else if ({self.eg.condition()}) then",
                           self.block(self.rng.randint(1, 2), depth - 1)))
        if self.rng.random() < 0.6:
            blocks.append(("else", self.block(self.rng.randint(1, 2),
                                              depth - 1)))
        return Node(blocks=blocks, tail="end if")

    def loop_var(self):
        for name in ["i", "j", "k", "l", "jk", "ii"]:
            if name not in self.s.loops:
                self.r.vars.setdefault(name, Var(name, "int"))
                return name
        return None

    def _do(self, depth):
        arrs = [v for v in self.s.vars.values() if v.is_array and
                v.kind == "real"]
        name = self.loop_var()
        if not arrs or name is None:
            return self._assign(depth)
        v = self.rng.choice(arrs)
        k = self.rng.randrange(len(v.dims))
        dim = v.dims[k]
        if v.decl == "assumed_size" and k == len(v.dims) - 1:
            return self._assign(depth)
        a = self.rng.choice([0, 0, 1])
        b = self.rng.choice([0, 0, 1])
        lo_b, hi_b = dim.lo.plus(a), dim.hi.plus(-b)
        env = self.s.env
        lo, hi = lo_b.value(env), hi_b.value(env)
        if hi < lo:
            lo_b, hi_b, lo, hi = dim.lo, dim.hi, dim.lo.value(env), \
                dim.hi.value(env)
        lo_t, hi_t = lo_b.text(), hi_b.text()
        r = self.rng.random()
        if r < 0.15 and v.decl != "assumed_size" and a == 0 and b == 0:
            lo_t = f"lbound({v.name}, {k + 1})" if self.rng.random() < 0.5 \
                else lo_t
            hi_t = f"ubound({v.name}, {k + 1})" if dim.lo.c != 1 or \
                dim.lo.sym else f"size({v.name}, {k + 1})"
            self.g.features.add("bound_inquiry_loop")
        step = ""
        header = f"do {name} = {lo_t}, {hi_t}"
        r = self.rng.random()
        if r < 0.15:
            header = f"do {name} = {hi_t}, {lo_t}, -1"
            self.g.features.add("reverse_loop")
        elif r < 0.25:
            header = f"do {name} = {lo_t}, {hi_t}, 2"
            self.g.features.add("strided_loop")
        self.s.loops[name] = (lo, hi)
        self.s.loop_sym[name] = dim.hi.sym
        self.s.loop_base[name] = dim.lo.value(env)
        self.s.in_loop += 1
        body = self.block(self.rng.randint(1, 4), depth - 1)
        self.s.in_loop -= 1
        del self.s.loops[name]
        tail = "end do"
        if self.g.case.fixed_form and self.rng.random() < 0.5:
            self.g.label += 10
            lab = self.g.label
            header = header.replace("do ", f"do {lab} ", 1)
            tail = f"{lab} continue"
            self.g.features.add("labelled_do")
        return Node(blocks=[(header, body)], tail=tail)

    def _do_small(self, depth):
        name = self.loop_var()
        if name is None:
            return self._assign(depth)
        trips = self.rng.randint(2, 4)
        self.s.loops[name] = (1, trips)
        self.s.in_loop += 1
        body = self.block(self.rng.randint(1, 2), depth - 1)
        self.s.in_loop -= 1
        del self.s.loops[name]
        return Node(blocks=[(f"do {name} = 1, {trips}", body)], tail="end do")

    def _while(self, depth):
        cnt = "it"
        self.r.vars.setdefault(cnt, Var(cnt, "int"))
        if cnt in self.s.loops or any(
                "do while" in h for h, _ in getattr(self, "_open", [])):
            return self._assign(depth)
        kmax = self.rng.randint(2, 5)
        self._open = [("do while", None)]
        self.s.in_loop += 1
        body = self.block(self.rng.randint(1, 3), depth - 1)
        self.s.in_loop -= 1
        self._open = []
        cond = self.eg.condition(depth=0)
        init = Node(f"{cnt} = 0", keep=True)
        loop = Node(blocks=[(f"do while ({cnt} < {kmax} .and. {cond})",
                             [Node(f"{cnt} = {cnt} + 1", keep=True)] + body)],
                    tail="end do")
        return [init, loop]

    def _select(self, depth):
        if self.s.loops and self.rng.random() < 0.5:
            name = self.rng.choice(list(self.s.loops))
            sel = f"mod({name}, 3)"
        else:
            e = self.eg.fit(self.eg.expr(1), (0.0, 2.4))
            sel = f"nint({e.text})"
        blocks = [(f"select case ({sel})", []),
                  ("case (0)", self.block(self.rng.randint(1, 2), depth - 1)),
                  ("case (1:2)", self.block(self.rng.randint(1, 2), depth - 1))]
        if self.rng.random() < 0.5:
            blocks.append(("case default",
                           self.block(1, depth - 1)))
        return Node(blocks=blocks, tail="end select")

    def _where(self, depth):
        cands = [v for v in self.s.writable() if v.is_array and
                 v.decl != "assumed_size"]
        v = self.rng.choice(cands)
        tgt = self.eg.array_operand(v)
        shape = tgt.shape
        m = self.eg.expr(1, shape)
        if m.shape is None:
            m = tgt
        lo, hi = m.iv
        thr = iv.nice(lo + (hi - lo) * self.rng.uniform(0.3, 0.7), False)
        op = self.rng.choice([">", "<", ">=", "<="])
        mask = f"{m.text} {op} {self.eg.lit(thr).text}"
        blocks = []

        def value(depth):
            # Not reading an element of the target: compilers disagree on
            # its value there (adfort rejects it, see where.py).
            for _ in range(8):
                e = self.eg.fit(self.eg.expr(depth, shape), v.interval)
                if not _reads_element(e.text, v.name):
                    break
            return e
        e1 = value(2)
        blocks.append((f"where ({mask})", [Node(f"{tgt.text} = {e1.text}")]))
        if self.rng.random() < 0.6:
            e2 = value(1)
            blocks.append(("elsewhere", [Node(f"{tgt.text} = {e2.text}")]))
        return Node(blocks=blocks, tail="end where")

    # -- dependents get their final values ----------------------------------
    def finalise(self, dep, indep):
        """Statements making every dependent depend on an independent."""
        out = []
        eg = self.eg
        ind_terms = []
        for v in indep:
            if v.is_array:
                ind_terms.append((f"sum({v.name})" if v.decl != "assumed_size"
                                  else eg.element(v),
                                  iv.times(v.interval, v.size(self.s.env)),
                                  None))
            else:
                ind_terms.append((v.name, v.interval, None))
        for v in dep:
            term, tiv, _ = self.rng.choice(ind_terms)
            if v.is_array and v.decl != "assumed_size":
                tgt = eg.array_operand(v)
                e = eg.expr(1, tgt.shape)
                full = Expr(f"{tgt.text} + {e.wrap(ADDP)} + {term}",
                            iv.add(iv.add(v.interval, e.iv), tiv), ADDP,
                            tgt.shape)
                out.append(Node(f"{tgt.text} = {eg.fit(full, v.interval).text}"))
            elif not v.is_array:
                e = eg.expr(1)
                full = Expr(f"{v.name} + {e.wrap(ADDP)} * {term}",
                            iv.add(v.interval, iv.mul(e.iv, tiv)), ADDP)
                out.append(Node(f"{v.name} = {eg.fit(full, v.interval).text}"))
        return out


def _reads_element(text, name):
    """Whether the Fortran expression `text` reads an element (subscripts
    without a colon) of the array `name`."""
    for match in re.finditer(r"\b%s\s*\(" % re.escape(name), text, re.IGNORECASE):
        depth, start = 1, match.end()
        pos = start
        while pos < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[pos], 0)
            pos += 1
        inner, level, colon = text[start:pos - 1], 0, False
        for char in inner:
            level += {"(": 1, ")": -1}.get(char, 0)
            colon |= char == ":" and level == 0
        if not colon:
            return True
    return False
