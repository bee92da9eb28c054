"""Random, valid, realistic Fortran kernels for fuzzing adfort.

``generate(seed, level)`` returns a :class:`adfort.testing.model.Case`: a
program (modules, routines, statement trees) together with what to
differentiate (dependents, independents, schedule, ``--jacobian``) and
every argument's type, shape, intent and value range, which the checker
needs to write the driver.

Levels add features (``LEVELS``; each a dict of feature flags, so a
campaign can switch one off to isolate a bug):

1. straight-line code on scalars: every rule of the rules table, nested
   powers, F77 names, kinds (``real(8)``, ``double precision``, ``wp``),
   fixed form;
2. arrays (non-1 lower bounds, assumed shape/size, 2-D), DO loops with
   stencils, accumulations and temporaries, IF chains, DO WHILE,
   EXIT/CYCLE, SELECT CASE, WHERE, sections, array intrinsics, table
   look-ups;
3. calls: subroutines with every intent, scalar and elemental functions,
   in modules or external, module variables read and written (also as
   dependents/independents) or a COMMON block, literals, expressions,
   sections and passive variables as actual arguments;
4. everything, with ``--jacobian`` half of the time.
"""

import random

from adfort.testing import intervals as iv
from adfort.testing.exprgen import ADDP, MULT, Expr, ExprGen
from adfort.testing.model import Bound, Case, Dim, Module, Node, Routine, Var
from adfort.testing.stmtgen import (ARRAY_NAMES, F77_NAMES, MATRIX_NAMES,
                                    SCALAR_NAMES, StmtGen)

PALETTE = [(-1.0, 1.0), (0.5, 1.5), (0.2, 2.0), (1.0, 3.0), (-2.0, -0.5)]

BASE = dict(arrays=False, loops=False, ifs=False, while_loops=False,
            exit_cycle=False, select=False, where=False, sections=False,
            array_intrinsics=False, lookup=False, merge=True, calls=False,
            functions=False, elemental=False, modvars=False,
            modvar_roles=False, externals=True, jacobian=0.0,
            fixed_form=0.15, wp=0.25, f77_names=0.3, both=0.15,
            extra_intrinsics=0.25, capital_names=0.1, assumed=0.3,
            allocatable=0.2, two_d=0.3, common=0.6,
            # Off by default so that the fixed-seed CI cases keep their
            # programs; campaigns turn it on (--flag self_lookup=1).
            self_lookup=False)

LEVELS = {
    1: dict(BASE, ifs=False),
    2: dict(BASE, arrays=True, loops=True, ifs=True, while_loops=True,
            exit_cycle=True, select=True, where=True, sections=True,
            array_intrinsics=True, lookup=True),
    3: dict(BASE, arrays=True, loops=True, ifs=True, while_loops=True,
            exit_cycle=True, select=True, where=True, sections=True,
            array_intrinsics=True, lookup=True, calls=True, functions=True,
            elemental=True, modvars=True, modvar_roles=True),
}
LEVELS[4] = dict(LEVELS[3], jacobian=0.5)

class Scope:
    """What a statement may read and write at one point of a routine."""

    def __init__(self, routine, visible, env, writable):
        self.routine = routine
        self.vars = visible          # name -> Var (routine's and module's)
        self.env = env
        self.writable_names = writable
        self.loops = {}              # loop index -> (lo, hi) values
        self.loop_sym = {}           # loop index -> size symbol of bounds
        self.loop_base = {}          # loop index -> lower bound it maps to
        self.in_loop = 0

    def readable(self):
        return [v for v in self.vars.values() if v.decl != "param" and
                v.kind == "real"]

    def writable(self):
        return [self.vars[n] for n in self.writable_names if n in self.vars]

    def extent_key(self, dim):
        if dim.lo.sym is not None:
            return None
        return (dim.hi.sym, dim.hi.c - dim.lo.c + 1)

    def key_value(self, key):
        return (self.env[key[0]] if key[0] else 0) + key[1]

    def key_text(self, key):
        return Bound(key[0], key[1]).text()

    def env_value(self, bound):
        return bound.value(self.env)

    def offset_for(self, name, dim):
        return dim.lo.value(self.env) - self.loop_base.get(name, 0)


class SubInfo:
    """A generated subroutine or function others may call."""

    def __init__(self, routine, dummies, result_iv=None, elemental=False,
                 module=None):
        self.name = routine.name
        self.routine = routine
        self.dummies = dummies       # Vars in argument order
        self.result_iv = result_iv
        self.elemental = elemental
        self.array_args = False
        self.module = module


class Generator:
    """Builds one case."""

    def __init__(self, seed, level, flags=None):
        self.seed, self.level = seed, level
        self.rng = random.Random(seed * 7919 + level)
        self.flags = dict(LEVELS[level])
        self.flags.update(flags or {})
        self.functions = []
        self.subroutines = []
        self.names_used = set()
        self.case = None
        self.label = 100

    # -- small helpers -------------------------------------------------------
    def flag(self, name):
        val = self.flags.get(name, False)
        if isinstance(val, float):
            return self.rng.random() < val
        return bool(val)

    def pick_weighted(self, choices):
        total = sum(w for _, w in choices)
        r = self.rng.uniform(0, total)
        for item, w in choices:
            r -= w
            if r <= 0:
                return item
        return choices[-1][0]

    def f77_name(self, name):
        if self.case.literal_suffix == "d0" and name in F77_NAMES and \
                self.rng.random() < self.flags["f77_names"]:
            return F77_NAMES[name]
        return name

    def fresh(self, pool):
        for _ in range(50):
            name = self.rng.choice(pool)
            if name not in self.names_used:
                self.names_used.add(name)
                return name
        k = len(self.names_used)
        name = f"{pool[0]}{k}"
        self.names_used.add(name)
        return name

    def interval(self):
        return self.rng.choice(PALETTE)

    # -- the whole case ----------------------------------------------------
    def generate(self):
        rng = self.rng
        f = self.flags
        # drawn first: Jacobian cases use module variables as roles less
        # often (--jacobian with them is a separate, rarer combination)
        self.jacobian = self.flag("jacobian")
        wp = self.flag("wp")
        use_data = self.level >= 3 and f["modvars"] and rng.random() < 0.75
        in_module = rng.random() < 0.6
        use_common = self.level >= 3 and not use_data and not in_module \
            and self.flag("common")
        fixed = not (wp or use_data or in_module) and self.flag("fixed_form")
        if wp:
            real_type, suffix = "real(wp)", "wp"
        else:
            real_type = rng.choice(["real(8)", "real(kind=8)",
                                    "double precision", "real*8"])
            suffix = "d0"
        if fixed:
            real_type = rng.choice(["double precision", "real*8"])
        self.case = case = Case(
            seed=self.seed, level=self.level, modules=[], externals=[],
            top="", dep=[], indep=[], fixed_form=fixed, real_type=real_type,
            literal_suffix=suffix,
            schedule=rng.choice(["split", "joint"]))
        case.env = {"n": rng.randint(3, 7), "m": rng.randint(2, 4)}
        self.names_used |= {"n", "m", "nk", "i", "j", "k", "l", "it", "ik",
                            "jk", "wp", "kinds"}
        uses = []
        if wp:
            kinds = Module("kinds", {"wp": Var("wp", "int", decl="param",
                                                value="kind(1.0d0)")})
            if rng.random() < 0.5:
                kinds.vars["wp"].value = "selected_real_kind(15, 307)"
            case.modules.append(kinds)
            uses.append("use kinds, only: wp")
        self.base_uses = uses
        self.data = None
        self.use_common = use_common
        if use_common:
            self.make_common()
        if use_data:
            self.data = self.make_data_module(uses)
            case.modules.append(self.data)
        # helpers, then the top routine
        helper_mod = None
        if self.level >= 3 and (f["calls"] or f["functions"]):
            if in_module:
                where = rng.choice(["data", "own", "top"]) if self.data \
                    else rng.choice(["own", "top"])
                if where == "data":
                    helper_mod = self.data
                elif where == "own":
                    helper_mod = Module(self.modname("physics"), uses=list(uses))
                    case.modules.append(helper_mod)
            self.make_helpers(helper_mod, in_module)
        self.helper_mod = helper_mod
        top = self.make_top(in_module)
        if helper_mod is not None and helper_mod is not self.data:
            top.uses.append(f"use {helper_mod.name}")
        if in_module:
            if helper_mod is None and self.level >= 3 and \
                    (f["calls"] or f["functions"]):
                mod = Module(self.modname("model"), uses=list(uses))
                mod.routines = [s.routine for s in self.pending_helpers]
                mod.routines.append(top)
            else:
                mod = Module(self.modname("model"), uses=list(uses))
                mod.routines.append(top)
            case.modules.append(mod)
        else:
            case.externals.append(top)
        case.top = top.name
        if not in_module:
            self.declare_external_functions(case)
        case.jacobian = self.jacobian
        case.features = sorted(self.features)
        return case

    def declare_external_functions(self, case):
        """Callers of external functions declare their type."""
        import re
        for r in case.routines():
            text = "\n".join(line for n in r.body for line in n.lines())
            for f in self.functions:
                if f.name != r.name and re.search(rf"\b{f.name}\(", text):
                    if case.fixed_form:
                        r.externals += [f"{case.real_type} {f.name}",
                                        f"external {f.name}"]
                    elif self.rng.random() < 0.5:
                        r.externals.append(
                            f"{case.real_type}, external :: {f.name}")
                    else:
                        r.externals += [f"{case.real_type} :: {f.name}",
                                        f"external :: {f.name}"]

    def modname(self, base):
        names = {"physics": ["physics", "phys_core", "tendencies"],
                 "model": ["model", "dyn_core", "kernel_mod", "solver"],
                 "data": ["state", "ocean_state", "params", "fields"]}[base]
        name = self.fresh(names)
        if base != "data":
            name += "_mod" if not name.endswith("_mod") else ""
        if self.flag("capital_names"):
            name = "_".join(p.capitalize() for p in name.split("_"))
            self.features.add("capital_module_name")
        return name

    # -- module variables --------------------------------------------------
    def make_data_module(self, uses):
        mod = Module(self.modname("data"), uses=list(uses))
        self.case.env["nk"] = self.rng.randint(3, 6)
        mod.vars["nk"] = Var("nk", "int", decl="param",
                             value=self.case.env["nk"])
        for _ in range(self.rng.randint(1, 3)):
            name = self.fresh(SCALAR_NAMES)
            mod.vars[name] = Var(name, interval=self.interval())
        for _ in range(self.rng.randint(0, 2)):
            name = self.fresh(ARRAY_NAMES)
            mod.vars[name] = Var(name, dims=[Dim(Bound(None, 1),
                                                 Bound("nk", 0))],
                                 interval=self.interval())
        if self.rng.random() < 0.4:
            mod.vars["ncalls"] = Var("ncalls", "int")
        return mod

    def make_common(self):
        """A COMMON block of scalars and a fixed-size array (F77 globals)."""
        case = self.case
        case.common_name = self.rng.choice(["fuzzblk", "phys", "cgrid"])
        for _ in range(self.rng.randint(1, 3)):
            name = self.fresh(SCALAR_NAMES)
            case.common[name] = Var(name, interval=self.interval())
        if self.rng.random() < 0.5:
            name = self.fresh(ARRAY_NAMES)
            case.common[name] = Var(name, dims=[Dim(Bound(None, 1),
                                                    Bound(None, 4))],
                                    interval=self.interval())
        self.features.add("common_block")

    # -- routines ----------------------------------------------------------
    features = None

    def new_routine(self, name, args_vars, in_module, function=False):
        r = Routine(name=name, args=[v.name for v in args_vars],
                    vars={v.name: v for v in args_vars}, function=function)
        r.uses = list(self.base_uses)
        if self.data is not None and not (in_module is self.data):
            r.uses.append(f"use {self.data.name}")
        r.init_nodes = []
        r.final_nodes = []
        r.common = self.use_common and not function
        return r

    def scope_for(self, r, in_data_module_or_use=True):
        visible = dict(r.vars)
        writable = [n for n, v in r.vars.items()
                    if v.kind == "real" and v.intent != "in" and
                    v.decl != "param"]
        if self.data is not None:
            for name, v in self.data.vars.items():
                if name in visible or v.decl == "param":
                    continue
                visible[name] = v
                if v.kind == "real" and not r.function and \
                        self.rng.random() < 0.6:
                    writable.append(name)
        if r.common:
            for name, v in self.case.common.items():
                visible[name] = v
                if self.rng.random() < 0.6:
                    writable.append(name)
        env = dict(self.case.env)
        return Scope(r, visible, env, writable)

    def define_outputs(self, r, scope, args):
        """Give the real intent(out) arguments of `r` a value first."""
        for a in args:
            if a.kind == "real" and a.intent == "out":
                eg = ExprGen(self, scope)
                mid = (a.interval[0] + a.interval[1]) / 2
                r.init_nodes.append(Node(
                    f"{a.name} = {eg.lit(iv.nice(mid, False)).text}",
                    keep=True))

    def add_local(self, r, scope, name_pool, dims=None, interval=None,
                  decl="explicit"):
        name = self.fresh(name_pool)
        v = Var(name, dims=dims, interval=interval or self.interval(),
                decl=decl)
        r.vars[name] = v
        scope.vars[name] = v
        scope.writable_names.append(name)
        eg = ExprGen(self, scope)
        if decl == "allocatable":
            shape = ", ".join(d.text() for d in dims)
            r.init_nodes.append(Node(f"allocate({name}({shape}))", keep=True))
            r.final_nodes.append(Node(f"deallocate({name})", keep=True))
            self.features.add("allocatable")
        mid = (v.interval[0] + v.interval[1]) / 2
        r.init_nodes.append(Node(f"{name} = {eg.lit(iv.nice(mid, False)).text}",
                                 keep=True))
        return v

    def array_dims(self, sym="n", rank=1, lower=None):
        dims = []
        for k in range(rank):
            s = sym if k == 0 else "m"
            lo = lower if lower is not None else self.rng.choice(
                [1, 1, 1, 0, 0, -1, 2])
            ext = self.rng.choice([0, 0, 2]) if k == 0 else 0
            dims.append(Dim(Bound(None, lo), Bound(s, lo - 1 + ext)))
        return dims

    def make_signature(self, in_module, n_scalars, n_arrays, top):
        """Dummy arguments of a routine: integer sizes, real scalars and
        arrays with random intents and declarations."""
        args = []
        intents = [("in", 4), ("out", 3), ("inout", 3), ("", 1)]
        for _ in range(n_scalars):
            args.append(Var(self.fresh(SCALAR_NAMES), interval=self.interval(),
                            intent=self.pick_weighted(intents)))
        arrays = []
        for _ in range(n_arrays):
            rank = 2 if self.flag("two_d") else 1
            intent = self.pick_weighted(intents)
            v = Var(self.fresh(ARRAY_NAMES if rank == 1 else MATRIX_NAMES),
                    dims=self.array_dims(rank=rank), interval=self.interval(),
                    intent=intent)
            if in_module and self.flag("assumed"):
                v.decl = "assumed_shape"
                for d in v.dims:
                    d.hi = Bound(d.hi.sym, d.hi.c - d.lo.c + 1)
                    d.lo = Bound(None, 1)
                self.features.add("assumed_shape")
            elif rank == 1 and intent == "in" and self.flag("assumed"):
                v.decl = "assumed_size"
                self.features.add("assumed_size")
            arrays.append(v)
        ints = []
        if arrays:
            ints.append(Var("n", "int", intent="in", value=self.case.env["n"]))
            if any(len(a.dims) == 2 for a in arrays):
                ints.append(Var("m", "int", intent="in",
                                value=self.case.env["m"]))
        order = args + arrays
        self.rng.shuffle(order)
        if ints and self.rng.random() < 0.5:
            return ints + order
        return order + ints

    def make_top(self, in_module):
        f = self.flags
        rng = self.rng
        n_arrays = rng.randint(1, 3) if f["arrays"] else 0
        args = self.make_signature(in_module, rng.randint(1, 4), n_arrays,
                                   True)
        name = self.fresh(["compute", "step", "advance", "kernel", "update",
                           "physics_step", "tend"])
        r = self.new_routine(name, args, in_module)
        r.final_nodes = []
        scope = self.scope_for(r)
        # roles
        reals = [a for a in args if a.kind == "real"]
        deps = [a for a in reals if a.intent in ("out", "inout", "")]
        indeps = [a for a in reals if a.intent in ("in", "inout", "")]
        if not deps:
            v = Var(self.fresh(SCALAR_NAMES), interval=self.interval(),
                    intent="out")
            args.append(v)
            r.args.append(v.name)
            r.vars[v.name] = v
            scope.vars[v.name] = v
            scope.writable_names.append(v.name)
            deps = [v]
        if not indeps:
            v = Var(self.fresh(SCALAR_NAMES), interval=self.interval(),
                    intent="in")
            r.args.insert(0, v.name)
            r.vars[v.name] = v
            scope.vars[v.name] = v
            indeps = [v]
        dep = [d for d in deps if rng.random() < 0.7] or [deps[0]]
        indep = [d for d in indeps if d not in dep and rng.random() < 0.7]
        both = [d for d in dep if d.intent in ("inout", "") and
                self.flag("both")]
        if both:
            self.features.add("dep_and_indep")
        indep += both
        if not indep:
            cand = [d for d in indeps if d not in dep] or indeps
            indep = [cand[0]]
        if any(d.intent == "inout" and d not in indep for d in dep):
            self.features.add("inout_dependent")
        case = self.case
        case.dep = [d.name for d in dep]
        case.indep = [d.name for d in indep]
        if self.data is not None and f["modvar_roles"] and (
                not self.jacobian or rng.random() < 0.3):
            mvars = [v for v in self.data.vars.values()
                     if v.kind == "real" and v.decl != "param"]
            for v in mvars:
                r_ = rng.random()
                q = f"{self.data.name}::{v.name}"
                if r_ < 0.3 and v.name in scope.writable_names:
                    case.dep.append(q)
                    self.features.add("module_dependent")
                elif r_ < 0.6:
                    case.indep.append(q)
                    self.features.add("module_independent")
        # locals
        for _ in range(rng.randint(1, 3)):
            self.add_local(r, scope, SCALAR_NAMES)
        if f["arrays"]:
            for _ in range(rng.randint(0, 2)):
                decl = "allocatable" if self.flag("allocatable") else \
                    "explicit"
                self.add_local(r, scope, ARRAY_NAMES, self.array_dims(),
                               decl=decl)
            if "m" in r.vars and rng.random() < 0.5:
                self.add_local(r, scope, MATRIX_NAMES,
                               self.array_dims(rank=2))
        # intent(out) arguments are defined first
        self.define_outputs(r, scope, args)
        sg = StmtGen(self, r, scope)
        body = sg.block(rng.randint(3, 7 if self.level == 1 else 6), 2)
        fin = sg.finalise(dep, indep)
        point = self.point_loop(r, scope, dep)
        r.body = r.init_nodes + body + fin + r.final_nodes + point
        return r

    def point_loop(self, r, scope, dep):
        """Sometimes (levels 2-4) a last loop over the points of an array
        whose iterations share only a sum into a scalar dependent, the
        shape r_rev reverses one iteration at a time
        (adfort/iteration_reversal.py): a scalar local set first, maybe a
        call, then the sum.  Drawn from a generator of its own, so that the
        rest of a case is what it was before this existed.  Its chance is
        the ``point_loop`` flag (0.35)."""
        alt = random.Random(self.seed * 104729 + self.level)
        sums = [d for d in dep if not d.is_array]
        arrs = [v for v in scope.readable() if v.is_array and len(v.dims) == 1
                and v.decl != "assumed_size"]
        if self.level < 2 or not self.flags.get("loops") or not sums or not arrs \
                or alt.random() >= float(self.flags.get("point_loop", 0.35)):
            return []
        if any(v.decl == "allocatable" for v in r.vars.values()):
            return []  # deallocated at the end, after the loop
        saved = self.rng
        self.rng = alt
        try:
            sg = StmtGen(self, r, scope)
            name = sg.loop_var()
            if name is None:
                return []
            v = alt.choice(arrs)
            dim = v.dims[0]
            lo, hi = dim.lo.value(scope.env), dim.hi.value(scope.env)
            if hi < lo:
                return []
            target = alt.choice(sums)
            # The sum changes at every point: its terms do not read it
            # (their intervals assume the values they read stay put).
            hidden = scope.vars.pop(target.name)
            scope.loops[name] = (lo, hi)
            scope.loop_sym[name] = dim.hi.sym
            scope.loop_base[name] = lo
            scope.in_loop += 1
            try:
                eg = sg.eg
                value = eg.expr(2)
                private = self.add_local(r, scope, SCALAR_NAMES)
                body = [Node(f"{private.name} = {eg.fit(value, private.interval).text}")]
                if self.subroutines and self.flags.get("calls") and alt.random() < 0.4:
                    body += [sg._call(0)]
                term = eg.expr(1)
                full = Expr(f"{private.name} * {term.wrap(MULT)}",
                            iv.mul(private.interval, term.iv), MULT)
                term = eg.fit(full, (-0.5, 0.5))
                body.append(Node(f"{target.name} = {target.name} + {term.wrap(ADDP)}"))
            finally:
                scope.in_loop -= 1
                del scope.loops[name]
                scope.vars[target.name] = hidden
            self.features.add("point_loop")
            return [Node(blocks=[(f"do {name} = {dim.lo.text()}, {dim.hi.text()}", body)],
                         tail="end do")]
        finally:
            self.rng = saved

    # -- helpers (level 3) -----------------------------------------------------
    def make_helpers(self, module, in_module):
        """Functions and subroutines the top routine (and each other) call."""
        self.pending_helpers = []
        rng = self.rng
        k = rng.randint(1, 3)
        for idx in range(k):
            if self.flags["functions"] and rng.random() < 0.45:
                info = self.make_function(module, in_module)
                self.functions.append(info)
            else:
                info = self.make_subroutine(module, in_module)
                self.subroutines.append(info)
            if module is not None:
                module.routines.append(info.routine)
            elif in_module:
                self.pending_helpers.append(info)
            else:
                self.case.externals.append(info.routine)

    def make_function(self, module, in_module):
        rng = self.rng
        elemental = in_module and self.flag("elemental")
        dummies = [Var(self.fresh(SCALAR_NAMES), interval=self.interval(),
                       intent="in") for _ in range(rng.randint(1, 3))]
        name = self.fresh(["fdens", "fsat", "visc_of", "limiter", "blend",
                           "ramp", "fcorr"])
        r = self.new_routine(name, dummies, module if module else in_module,
                             function=True)
        r.final_nodes = []
        r.elemental = elemental
        r.result_clause = in_module and rng.random() < 0.6
        res = Var(self.fresh(["res", "val", "out"]) if r.result_clause
                  else name, interval=self.interval())
        r.result = res.name
        r.vars[res.name] = res
        scope = self.scope_for(r)
        scope.vars[res.name] = res
        scope.writable_names = [res.name]
        for _ in range(rng.randint(0, 2)):
            self.add_local(r, scope, SCALAR_NAMES)
        eg = ExprGen(self, scope)
        mid = (res.interval[0] + res.interval[1]) / 2
        r.init_nodes.insert(0, Node(
            f"{res.name} = {eg.lit(iv.nice(mid, False)).text}", keep=True))
        eg.allow_fcall = False
        sg = StmtGen(self, r, scope, allow_calls=False, scalars_only=True)
        sg.eg.allow_fcall = False
        body = sg.block(rng.randint(1, 3), 1)
        e = eg.fit(eg.expr(2), res.interval)
        body.append(Node(f"{res.name} = {e.text}", keep=True))
        r.body = r.init_nodes + body
        self.features.add("elemental_function" if elemental else "function")
        return SubInfo(r, dummies, res.interval, elemental)

    def make_subroutine(self, module, in_module):
        rng = self.rng
        n_arr = rng.randint(0, 2) if self.flags["arrays"] else 0
        args = self.make_signature(in_module, rng.randint(1, 3), n_arr, False)
        # helpers' arrays have extent n (the caller passes n-element arrays
        # or sections); 2-D ones would need m from the caller too
        for a in args:
            if a.is_array:
                lo = a.dims[0].lo
                a.dims = [Dim(lo, Bound("n", lo.c - 1))]
        args = [a for a in args if a.name != "m"]
        name = self.fresh(["diffuse", "relax", "advect", "smooth", "source",
                           "apply_bc", "mix", "integrate", "limit"])
        r = self.new_routine(name, args, module if module else in_module)
        r.final_nodes = []
        scope = self.scope_for(r)
        for _ in range(rng.randint(1, 2)):
            self.add_local(r, scope, SCALAR_NAMES)
        self.define_outputs(r, scope, args)
        if self.data is not None and "ncalls" in self.data.vars and \
                rng.random() < 0.5:
            r.init_nodes.append(Node("ncalls = ncalls + 1", keep=True))
        sg = StmtGen(self, r, scope)
        r.body = r.init_nodes + sg.block(rng.randint(1, 4), 1) + r.final_nodes
        self.features.add("subroutine")
        return SubInfo(r, args)


def generate(seed, level, flags=None):
    """The case of (seed, level); ``flags`` override the level's features."""
    gen = Generator(seed, level, flags)
    gen.features = set()
    return gen.generate()
