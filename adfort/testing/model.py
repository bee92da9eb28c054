"""The model of a generated program: what the generator builds, the checker
reads (every argument's type, shape, intent and role) and the shrinker
edits (statement trees), and its rendering as Fortran source.
"""

import copy
import dataclasses
from typing import Dict, List, Optional, Tuple

# --------------------------------------------------------------------------
# bounds and variables
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Bound:
    """An array bound ``sym + c`` (``sym`` an integer argument or module
    parameter such as ``n``, or None for a constant)."""

    sym: Optional[str]
    c: int

    def text(self):
        if self.sym is None:
            return str(self.c)
        if self.c == 0:
            return self.sym
        return f"{self.sym} {'+' if self.c > 0 else '-'} {abs(self.c)}"

    def value(self, env):
        return (env[self.sym] if self.sym else 0) + self.c

    def plus(self, d):
        return Bound(self.sym, self.c + d)


@dataclasses.dataclass
class Dim:
    lo: Bound
    hi: Bound

    def extent_key(self):
        """Arrays whose dims have equal keys conform."""
        return (self.hi.sym, self.hi.c - self.lo.c) if self.lo.sym is None \
            else None

    def text(self):
        if self.lo.sym is None and self.lo.c == 1:
            return self.hi.text()
        return f"{self.lo.text()}:{self.hi.text()}"


@dataclasses.dataclass
class Var:
    """A variable of a routine or module.

    :param kind: ``real`` or ``int``.
    :param dims: list of :class:`Dim`, None for a scalar.
    :param interval: invariant of a real variable's values.
    :param intent: ``in``/``out``/``inout``/``""`` for arguments, None
        for locals and module variables.
    :param decl: ``explicit``, ``assumed_shape``, ``assumed_size``,
        ``allocatable`` (locals) or ``param`` (named constants).
    :param value: value of an integer argument or parameter.
    """

    name: str
    kind: str = "real"
    dims: Optional[List[Dim]] = None
    interval: Tuple[float, float] = (-1.0, 1.0)
    intent: Optional[str] = None
    decl: str = "explicit"
    value: Optional[int] = None

    @property
    def is_array(self):
        return self.dims is not None

    def bounds(self, env):
        return [(d.lo.value(env), d.hi.value(env)) for d in self.dims]

    def size(self, env):
        out = 1
        for lo, hi in self.bounds(env):
            out *= hi - lo + 1
        return out


# --------------------------------------------------------------------------
# statements
# --------------------------------------------------------------------------


@dataclasses.dataclass
class Node:
    """A statement: a leaf (``text``, one or more lines) or a construct
    (``blocks``: (header line, body) pairs, then ``tail``).

    ``keep`` marks statements the shrinker must not drop (initialisations
    that keep every variable defined).
    """

    text: str = ""
    blocks: List[Tuple[str, List["Node"]]] = dataclasses.field(
        default_factory=list)
    tail: str = ""
    keep: bool = False

    def lines(self, indent=0, step=2):
        pad = " " * indent
        if not self.blocks:
            return [pad + t for t in self.text.split("\n") if t]
        out = []
        for k, (head, body) in enumerate(self.blocks):
            # select case: the case lines sit one level in.
            out.append(pad + head)
            for node in body:
                out += node.lines(indent + step, step)
        if self.tail:
            out.append(pad + self.tail)
        return out


def walk_bodies(nodes):
    """Yield every statement list in a tree (the top list first)."""
    yield nodes
    for node in nodes:
        for _, body in node.blocks:
            yield from walk_bodies(body)


# --------------------------------------------------------------------------
# routines, modules, cases
# --------------------------------------------------------------------------


@dataclasses.dataclass
class Routine:
    """A subroutine or function of the generated file."""

    name: str
    args: List[str]
    vars: Dict[str, Var]
    body: List[Node] = dataclasses.field(default_factory=list)
    function: bool = False
    result: Optional[str] = None       # result variable of a function
    result_clause: bool = True         # ``result(r)`` or the function name
    elemental: bool = False
    uses: List[str] = dataclasses.field(default_factory=list)
    externals: List[str] = dataclasses.field(default_factory=list)
    calls: List[str] = dataclasses.field(default_factory=list)
    common: bool = False                # declares the case's COMMON block


@dataclasses.dataclass
class Module:
    name: str
    vars: Dict[str, Var] = dataclasses.field(default_factory=dict)
    routines: List[Routine] = dataclasses.field(default_factory=list)
    uses: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Case:
    """One generated test case: source, what to differentiate, how."""

    seed: int
    level: int
    modules: List[Module]
    externals: List[Routine]
    top: str
    dep: List[str]
    indep: List[str]
    schedule: str = "split"
    jacobian: bool = False
    fixed_form: bool = False
    real_type: str = "real(8)"        # declaration of reals
    literal_suffix: str = "d0"
    features: List[str] = dataclasses.field(default_factory=list)
    # Variables of a COMMON block shared by the external routines that
    # declare ``Routine.common``.
    common: Dict[str, Var] = dataclasses.field(default_factory=dict)
    common_name: str = "fuzzblk"
    # Concrete values of the size parameters (n, m, module parameters).
    env: Dict[str, int] = dataclasses.field(default_factory=dict)

    # -- lookups ---------------------------------------------------------
    def routines(self):
        for mod in self.modules:
            yield from mod.routines
        yield from self.externals

    def routine(self, name):
        for r in self.routines():
            if r.name == name:
                return r
        raise KeyError(name)

    def top_routine(self):
        return self.routine(self.top)

    def top_module(self):
        for mod in self.modules:
            if any(r.name == self.top for r in mod.routines):
                return mod.name
        return None

    def module_vars(self):
        """(module name, Var) of every module variable (not parameters)."""
        for mod in self.modules:
            for var in mod.vars.values():
                if var.decl != "param":
                    yield mod.name, var

    def copy(self):
        return copy.deepcopy(self)

    @property
    def filename(self):
        return "case.f" if self.fixed_form else "case.f90"

    def command(self, path=None):
        """The adfort command line reproducing this case."""
        path = path or self.filename
        parts = ["adfort", "diff", path, "--dep", ",".join(self.dep),
                 "--indep", ",".join(self.indep), "--routine", self.top,
                 "--schedule", self.schedule]
        if self.jacobian:
            parts.append("--jacobian")
        return " ".join(parts)

    # -- rendering -------------------------------------------------------
    def source(self):
        lines = [f"! adfort fuzz case: level {self.level}, seed {self.seed}",
                 f"! {self.command()}"]
        for mod in self.modules:
            lines += render_module(self, mod)
        for r in self.externals:
            lines += render_routine(self, r, 0)
        if self.fixed_form:
            return to_fixed_form(lines)
        return "\n".join(w for line in lines for w in wrap_free(line)) + "\n"


def type_text(case, var):
    return "integer" if var.kind == "int" else case.real_type


def decl_line(case, var, routine=None):
    attrs = [type_text(case, var)]
    if var.decl == "param":
        return f"{attrs[0]}, parameter :: {var.name} = {var.value}"
    if var.intent:
        attrs.append(f"intent({var.intent})")
    if var.decl == "allocatable":
        attrs.append("allocatable")
    shape = ""
    if var.is_array:
        if var.decl == "assumed_shape":
            shape = "(" + ", ".join(
                ":" if d.lo.sym is None and d.lo.c == 1 else f"{d.lo.text()}:"
                for d in var.dims) + ")"
        elif var.decl == "assumed_size":
            dims = [d.text() for d in var.dims]
            lo = var.dims[-1].lo
            dims[-1] = "*" if lo.sym is None and lo.c == 1 else f"{lo.text()}:*"
            shape = "(" + ", ".join(dims) + ")"
        elif var.decl == "allocatable":
            shape = "(" + ", ".join(":" for _ in var.dims) + ")"
        else:
            shape = "(" + ", ".join(d.text() for d in var.dims) + ")"
    if case.fixed_form and not var.intent and var.decl != "allocatable":
        return f"{attrs[0]} {var.name}{shape}"
    return f"{', '.join(attrs)} :: {var.name}{shape}"


def render_module(case, mod):
    out = [f"module {mod.name}"]
    out += ["  " + u for u in mod.uses]
    out.append("  implicit none")
    for var in mod.vars.values():
        out.append("  " + decl_line(case, var))
    if mod.routines:
        out.append("contains")
        for r in mod.routines:
            out += render_routine(case, r, 2)
    out.append(f"end module {mod.name}")
    return out


def render_routine(case, r, indent):
    pad = " " * indent
    step = 2
    inner = pad + " " * step
    args = ", ".join(r.args)
    if r.function:
        prefix = "elemental " if r.elemental else ""
        if r.result_clause:
            head = f"{prefix}function {r.name}({args}) result({r.result})"
        else:
            head = (f"{prefix}{type_text(case, r.vars[r.result])} "
                    f"function {r.name}({args})")
        tail = f"end function {r.name}"
    else:
        head = f"subroutine {r.name}({args})"
        tail = f"end subroutine {r.name}"
    out = [pad + head]
    out += [inner + u for u in r.uses]
    out.append(inner + "implicit none")
    # Integer arguments first: array bounds refer to them.
    names = [a for a in r.args if r.vars[a].kind == "int"] + \
        [a for a in r.args if r.vars[a].kind != "int"] + \
        [v for v in r.vars if v not in r.args]
    for name in names:
        var = r.vars[name]
        if r.function and name == r.result and not r.result_clause:
            continue
        out.append(inner + decl_line(case, var, r))
    if r.common and case.common:
        for var in case.common.values():
            out.append(inner + decl_line(case, var, r))
        out.append(inner + f"common /{case.common_name}/ "
                   + ", ".join(case.common))
    for ext in r.externals:
        out.append(inner + ext)
    if r.body:
        out.append("")
    for node in r.body:
        out += node.lines(len(inner), step)
    out.append(pad + tail)
    return out


def _breaks(text, start, width):
    """Positions after which `text` may be broken (after a blank outside
    parentheses-insensitive tokens), the last one before `width`."""
    cut = -1
    for k in range(start, min(len(text), width)):
        if text[k] == " " and k > start:
            cut = k
    return cut


def wrap_free(line, width=100):
    """Free-form continuation lines (``&``) for long statements."""
    if len(line) <= width or line.lstrip().startswith("!"):
        return [line]
    indent = len(line) - len(line.lstrip())
    out, rest, first = [], line, True
    while len(rest) > width:
        cut = _breaks(rest, indent + 8, width - 2)
        if cut < 0:
            break
        out.append(rest[:cut] + " &")
        rest = " " * (indent + 4) + rest[cut + 1:]
        first = False
    out.append(rest)
    return out


def to_fixed_form(lines):
    """Free-form lines (no continuation) to fixed form: statements from
    column 7, labels in columns 1-5, continuation in column 6, comments
    with C."""
    out = []
    for line in lines:
        text = line.strip()
        if not text:
            out.append("")
            continue
        if text.startswith("!"):
            out.append("C" + text[1:])
            continue
        label = ""
        head = text.split(" ", 1)
        if head[0].isdigit() and len(head) > 1:
            label, text = head[0], head[1]
        indent = len(line) - len(line.lstrip())
        rest = " " * min(indent, 20) + text
        prefix = f"{label:<5} "
        while len(prefix) + len(rest) > 72:
            cut = _breaks(rest, 4, 72 - len(prefix))
            if cut < 0:
                cut = 72 - len(prefix)
            out.append(prefix + rest[:cut])
            rest = "   " + rest[cut:]
            prefix = "     &"
        out.append(prefix + rest)
    return "\n".join(out) + "\n"
