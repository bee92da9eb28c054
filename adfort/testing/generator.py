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
   module variables read and written (also as dependents/independents),
   literals, expressions and passive variables as actual arguments;
4. everything, with ``--jacobian`` half of the time.
"""

import random

from adfort.testing import intervals as iv
from adfort.testing.exprgen import ADDP, MULT, Expr, ExprGen
from adfort.testing.model import Bound, Case, Dim, Module, Node, Routine, Var

PALETTE = [(-1.0, 1.0), (0.5, 1.5), (0.2, 2.0), (1.0, 3.0), (-2.0, -0.5)]

BASE = dict(arrays=False, loops=False, ifs=False, while_loops=False,
            exit_cycle=False, select=False, where=False, sections=False,
            array_intrinsics=False, lookup=False, merge=True, calls=False,
            functions=False, elemental=False, modvars=False,
            modvar_roles=False, externals=True, jacobian=0.0,
            fixed_form=0.15, wp=0.25, f77_names=0.3, both=0.15,
            extra_intrinsics=0.25, capital_names=0.1, assumed=0.3,
            allocatable=0.2, two_d=0.3, common=0.6)

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

SCALAR_NAMES = ["tmp", "acc", "flux", "rho", "vel", "temp", "press", "grad",
                "coef", "q", "dq", "cost", "sig", "zeta", "wgt", "beta",
                "gam", "dens", "eta", "phi", "theta", "psi", "alpha", "rate",
                "frac", "hgt", "emis", "visc", "cfl", "area"]
ARRAY_NAMES = ["u", "v", "h", "work", "field", "diffu", "qv", "tend", "fx",
               "res", "salt", "tr", "pp", "ww", "zz", "src"]
MATRIX_NAMES = ["amat", "cmat", "tab", "wk2", "coefs", "kmat"]


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
        if self.case.literal_suffix == "d0" and name in _F77 and \
                self.rng.random() < self.flags["f77_names"]:
            return _F77[name]
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
        for a in args:
            if a.kind == "real" and a.intent == "out":
                eg = ExprGen(self, scope)
                mid = (a.interval[0] + a.interval[1]) / 2
                r.init_nodes.append(Node(
                    f"{a.name} = {eg.lit(iv.nice(mid, False)).text}",
                    keep=True))
        sg = StmtGen(self, r, scope)
        body = sg.block(rng.randint(3, 7 if self.level == 1 else 6), 2)
        fin = sg.finalise(dep, indep)
        r.body = r.init_nodes + body + fin + r.final_nodes
        return r

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
        for a in args:
            if a.kind == "real" and a.intent == "out":
                eg = ExprGen(self, scope)
                mid = (a.interval[0] + a.interval[1]) / 2
                r.init_nodes.append(Node(
                    f"{a.name} = {eg.lit(iv.nice(mid, False)).text}",
                    keep=True))
        if self.data is not None and "ncalls" in self.data.vars and \
                rng.random() < 0.5:
            r.init_nodes.append(Node("ncalls = ncalls + 1", keep=True))
        sg = StmtGen(self, r, scope)
        r.body = r.init_nodes + sg.block(rng.randint(1, 4), 1) + r.final_nodes
        self.features.add("subroutine")
        return SubInfo(r, args)


_F77 = {"sqrt": "dsqrt", "exp": "dexp", "log": "dlog", "log10": "dlog10",
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
        e1 = self.eg.fit(self.eg.expr(2, shape), v.interval)
        blocks.append((f"where ({mask})", [Node(f"{tgt.text} = {e1.text}")]))
        if self.rng.random() < 0.6:
            e2 = self.eg.fit(self.eg.expr(1, shape), v.interval)
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


def generate(seed, level, flags=None):
    """The case of (seed, level); ``flags`` override the level's features."""
    gen = Generator(seed, level, flags)
    gen.features = set()
    return gen.generate()
