"""What ``adfort check`` needs to know about the routine under test.

The routine's arguments (a function's result last), the module variables
and COMMON members it may touch, each with the Fortran type the driver
declares, its shape written in the driver's names, its intent and its
role (dependent, independent), and the values the command line gives:
``--size`` (integer arguments, extents of assumed-shape and assumed-size
arrays, of allocatable module arrays) and ``--range`` (real inputs).

The sources are read with adfort's own front end (preprocessing, INCLUDE
lines, implicit typing: the types a compiler gives), so the driver's
declarations match the routine's.
"""

import dataclasses
import re
from typing import List, Optional, Tuple

from psyclone.psyir.backend.fortran import FortranWriter
from psyclone.psyir.nodes import Container, FileContainer, Reference
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, DataSymbol, ImportInterface, ScalarType, Symbol,
    UnsupportedFortranType)

from adfort.errors import AdfortError, where

DEFAULT_RANGE = (0.5, 1.5)
_ASSUMED_SIZE = "adfort_assumed_size"
_INTENTS = {ArgumentInterface.Access.READ: "in", ArgumentInterface.Access.WRITE: "out",
            ArgumentInterface.Access.READWRITE: "inout"}
_BASE = {"REAL": "real", "INTEGER": "integer", "BOOLEAN": "logical"}


@dataclasses.dataclass
class Var:
    """An argument, a function result or a global (module or COMMON)
    variable, as the driver sees it.

    :ivar key: how the user and the messages name it (``x``,
        ``ocean::kdiff``, ``/state/z``).
    :ivar tag: the stem of the driver's variables for it (``adf_a2``).
    :ivar local: its name in its own scope (its module for a global).
    :ivar module: the module of a global (a COMMON block's layout module
        ``<block>_common``), None for an argument.
    :ivar dims: (lower, upper) per dimension in the driver's names, None
        for a scalar; only known extents (assumed shapes come from
        ``--size``).
    """

    key: str
    tag: str
    local: str
    intrinsic: str
    type_text: str
    dims: Optional[List[Tuple[str, str]]] = None
    intent: str = ""
    module: Optional[str] = None
    position: Optional[int] = None
    allocatable: bool = False
    initialised: bool = False
    roles: set = dataclasses.field(default_factory=set)
    range: Optional[Tuple[float, float]] = None
    value: Optional[str] = None
    #: the `--size` extents of an assumed-shape argument or an allocatable
    #: global, else None
    allocate: Optional[List[str]] = None
    assumed_shape: bool = False
    #: an F77 integer argument without intent nor --size (an output like INFO)
    missing: bool = False

    @property
    def is_real(self):
        return self.intrinsic == "REAL"

    @property
    def is_array(self):
        return self.dims is not None

    @property
    def is_global(self):
        return self.module is not None

    @property
    def active(self):
        return bool(self.roles)

    @property
    def rank(self):
        return len(self.dims or ())


@dataclasses.dataclass
class Problem:
    """The routine under test and every variable the driver handles."""

    path: str
    routine: str
    module: Optional[str]
    function: bool
    args: List[Var]
    globals: List[Var]
    dependents: List[Var]
    independents: List[Var]
    use_lines: List[str]
    decl_lines: List[str]
    #: ``file:line`` of the routine, for messages
    location: str = ""
    notes: List[str] = dataclasses.field(default_factory=list)

    @property
    def variables(self):
        return self.args + self.globals

    @property
    def perturbed(self):
        """Inputs the tests move: the independents, and the dependents that
        come in with a value (their adjoint out is that value's)."""
        return [v for v in self.variables if v.active and v.is_real and not (
            v.roles == {"dep"} and not v.is_global and v.intent == "out")]

    @property
    def presettable(self):
        """Independents whose adjoints must be incremented (a variable that
        is also dependent carries its seed in instead)."""
        return [v for v in self.independents if "dep" not in v.roles]


def parse_assignments(values, option):
    """``NAME=VALUE`` options as {name: value} (names lower case).

    :raises AdfortError: on a value without '='."""
    found = {}
    for value in values:
        for item in _split_top(value):
            name, eq, text = item.partition("=")
            if not eq or not name.strip() or not text.strip():
                raise AdfortError(f"{option} '{item}': write NAME=VALUE "
                                  f"(e.g. {option} n=100)")
            found[_norm(name)] = text.strip()
    return found


def parse_range(text, name):
    """``lo:hi`` or a single value: (lo, hi) floats.

    :raises AdfortError: on anything else."""
    try:
        if ":" in text:
            lo, hi = (float(t.replace("d", "e").replace("D", "e")) for t in text.split(":"))
        else:
            lo = hi = float(text.replace("d", "e").replace("D", "e"))
    except ValueError:
        raise AdfortError(f"--range {name}={text}: write LO:HI or a single value "
                          "(e.g. --range x=0:1)") from None
    if lo > hi:
        raise AdfortError(f"--range {name}={text}: the lower end is above the upper")
    return lo, hi


def _split_top(text):
    """Split at commas outside parentheses (``x=n,m`` stays for sizes given
    as ``--size x=10,20``: only a comma followed by ``name=`` separates)."""
    parts, depth, start = [], 0, 0
    for k, char in enumerate(text):
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0 and re.match(r"\s*[\w:/]+\s*=", text[k + 1:]):
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _norm(name):
    """A variable's key in lower case without blanks."""
    return re.sub(r"\s+", "", name).lower()


class _Names:
    """The names declarations and bounds need, made visible in the driver:
    ``use`` lines for what a module makes public, copied declarations for
    named constants it keeps private or a routine declares."""

    def __init__(self):
        self.writer = FortranWriter()
        self.use_lines: List[str] = []
        self.decl_lines: List[str] = []
        self._done = set()

    def need(self, name, table, path):
        """Make `name`, as `table`'s scope sees it, visible in the driver."""
        symbol = table.lookup(name, otherwise=None)
        if symbol is None or not isinstance(symbol, DataSymbol):
            return  # an intrinsic (kind, selected_real_kind, size…)
        # One entity per name in the driver: the same PARAMETER may come from
        # an INCLUDE in the routine and from a COMMON block's layout module.
        if name.lower() in self._done:
            return
        self._done.add(name.lower())
        owner = symbol.find_symbol_table(table.node)
        if isinstance(symbol.interface, ImportInterface):
            orig = symbol.interface.orig_name or symbol.name
            rename = symbol.name if orig.lower() == symbol.name.lower() else \
                f"{symbol.name} => {orig}"
            self._use(f"use {symbol.interface.container_symbol.name}, only: {rename}")
            return
        if symbol.is_unresolved:
            scope = table
            while scope is not None:
                wild = [c.name for c in scope.containersymbols if c.wildcard_import]
                if wild:
                    for module in wild:
                        self._use(f"use {module}")
                    return
                scope = scope.parent_symbol_table()
            return
        scope = owner or table
        node = scope.node if hasattr(scope, "node") else None
        if isinstance(node, Container) and not isinstance(node, FileContainer) and \
                symbol.visibility == Symbol.Visibility.PUBLIC:
            self._use(f"use {node.name}, only: {symbol.name}")
            return
        if symbol.is_constant and symbol.initial_value is not None:
            for ref in symbol.initial_value.walk(Reference):
                self.need(ref.symbol.name, scope, path)
            if isinstance(symbol.datatype, ScalarType) and hasattr(
                    symbol.datatype.precision, "walk"):
                for ref in symbol.datatype.precision.walk(Reference):
                    self.need(ref.symbol.name, scope, path)
            self.decl_lines.append(self.writer.gen_vardecl(symbol).strip())
            return
        if isinstance(node, Container) and not isinstance(node, FileContainer):
            raise AdfortError(
                f"'{symbol.name}' (a bound or kind of a variable adfort check declares) "
                f"is private to module '{node.name}': make it public", path)

    def _use(self, line):
        if line.lower() not in (u.lower() for u in self.use_lines):
            self.use_lines.append(line)

    def text(self, expr, table, path, rename):
        """Fortran text of `expr` in the driver: names in `rename` replaced,
        the others made visible."""
        text = self.writer(expr)
        for ref in expr.walk(Reference):
            if ref.symbol.name.lower() not in rename:
                self.need(ref.symbol.name, table, path)
        return _substitute(text, rename)


def _substitute(text, rename):
    return re.sub(r"(?<![%\w])([A-Za-z]\w*)",
                  lambda m: rename.get(m.group(1).lower(), m.group(1)), text)


def scalar_type(dtype, names, table, path):
    """(intrinsic, declaration type text) of a scalar type, or None for a
    type adfort check cannot make values of."""
    intrinsic = dtype.intrinsic.name
    if intrinsic not in _BASE:
        return None
    base = _BASE[intrinsic]
    precision = dtype.precision
    if precision == ScalarType.Precision.DOUBLE:
        return intrinsic, "double precision" if intrinsic == "REAL" else base
    if isinstance(precision, ScalarType.Precision):
        return intrinsic, base
    if isinstance(precision, int):
        return intrinsic, f"{base}(kind={precision})"
    return intrinsic, f"{base}(kind={names.text(precision, table, path, {})})"


def shape(dtype, names, table, path, rename):
    """(dims, allocatable, assumed) of an ArrayType: dims in driver names,
    None per dimension whose extent must come from ``--size``."""
    dims, allocatable, assumed = [], False, False
    for extent in dtype.shape:
        if extent == ArrayType.Extent.DEFERRED:
            dims.append(None)
            allocatable = True
            continue
        if extent == ArrayType.Extent.ATTRIBUTE:
            dims.append(None)
            assumed = True
            continue
        lower, upper = extent.lower, extent.upper
        if isinstance(upper, ArrayType.Extent) or (
                isinstance(upper, Reference) and upper.symbol.name.lower() == _ASSUMED_SIZE):
            dims.append(None if isinstance(upper, ArrayType.Extent) else
                        (names.text(lower, table, path, rename), None))
            assumed = True
            continue
        dims.append((names.text(lower, table, path, rename),
                     names.text(upper, table, path, rename)))
    return dims, allocatable, assumed


def _extents(text, key, rank, rename, names, table, path, sizes, used):
    """The extents of a ``--size KEY=E1,E2`` in the driver's names."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != rank:
        raise AdfortError(f"--size {key}={text}: {key} has rank {rank}: give "
                          f"{rank} extent{'s' if rank > 1 else ''} "
                          f"(e.g. --size {key}={','.join(['10'] * rank)})")
    out = []
    for part in parts:
        for name in re.findall(r"[A-Za-z]\w*", part):
            low = name.lower()
            if low in rename:
                continue
            if low in sizes and re.fullmatch(r"[+-]?\d+", sizes[low]):
                # a name given only for the extents: --size n=100,x=n
                part = re.sub(rf"(?<![%\w]){name}(?!\w)", f"({sizes[low]})", part)
                used.add(low)
            else:
                names.need(name, table, path)
        out.append(_substitute(part, rename))
    return out


def describe(path, routine, module_trees, dependents, independents, sizes, ranges):
    """The :class:`Problem` of `routine` (a PSyIR Routine read from `path`).

    :param module_trees: PSyIR trees whose modules hold global variables
        (the sources read, the layout modules of COMMON blocks).
    :param dependents: the ``--dep`` names as given.
    :param independents: the ``--indep`` names.
    :param sizes: {name: text} of ``--size``.
    :param ranges: {name: text} of ``--range``.
    :raises AdfortError: for a variable or option adfort check cannot use.
    """
    names = _Names()
    table = routine.symbol_table
    parent = routine.parent
    module = parent.name if isinstance(parent, Container) and \
        not isinstance(parent, FileContainer) else None
    location = where(routine, path)
    formals = list(table.argument_list)
    result = routine.return_symbol
    if result is not None:
        formals.append(result)
    rename = {s.name.lower(): f"adf_a{k}" for k, s in enumerate(formals, start=1)}
    used = set()
    args = []
    for k, symbol in enumerate(formals, start=1):
        var = _argument(symbol, k, symbol is result, names, table, path, location,
                        rename, sizes, used)
        if module is None and var.assumed_shape:
            raise AdfortError(
                f"'{routine.name}' is outside any module and its argument "
                f"'{symbol.name}' is assumed-shape: the check program would need an "
                "interface block for it; put the routine in a module to check it",
                location)
        args.append(var)
    notes = []
    for var in args:
        if not var.missing:
            continue
        if any(re.search(rf"\b{var.tag}\b", f"{lo}:{hi}") for other in args
               for lo, hi in (other.dims or ()) if hi is not None):
            raise AdfortError(f"integer argument '{var.local}' gives array bounds and needs "
                              f"a value: give it with --size {var.key}=100", location)
        notes.append(f"integer argument {var.local} (no intent, no --size) starts at 0")
    from adfort.check.modulevars import common_aliases, module_variables, set_values
    globals_ = module_variables(module_trees, path, names)
    by_key = {v.key: v for v in args}
    for var in globals_:
        by_key.setdefault(var.key, var)
    for alias, canonical in common_aliases(module_trees).items():
        if canonical in by_key:
            by_key.setdefault(alias, by_key[canonical])
    for roles, given in (("dep", dependents), ("indep", independents)):
        for name in given:
            var = _lookup(by_key, name, routine.name, path)
            if not var.is_real:
                raise AdfortError(f"'{name}' is not real: only real variables can be "
                                  "dependent or independent", location)
            var.roles.add(roles)
    for var in globals_:
        set_values(var, sizes, used)
    for name, text in ranges.items():
        var = _lookup(by_key, name, routine.name, path, "--range")
        if not var.is_real:
            raise AdfortError(f"--range {name}: '{var.key}' is not real (give integers "
                              "with --size)")
        var.range = parse_range(text, name)
        used.add(("range", name))
    for var in args + globals_:
        if var.is_real and var.range is None and (var.is_global and var.active or
                                                  not var.is_global):
            var.range = DEFAULT_RANGE
    unknown = [k for k in sizes if k not in used]
    if unknown:
        listing = ", ".join(v.key for v in args if not v.is_real) or "none"
        raise AdfortError(f"--size {unknown[0]}: no integer argument, assumed-shape "
                          f"array or allocatable module array of '{routine.name}' is "
                          f"named so (integer arguments: {listing})", location)
    dependents_ = [_lookup(by_key, n, routine.name, path) for n in dependents]
    independents_ = [_lookup(by_key, n, routine.name, path) for n in independents]
    return Problem(path, routine.name, module, result is not None, args, globals_,
                   _unique(dependents_), _unique(independents_), names.use_lines,
                   names.decl_lines, location, notes)


def _unique(items):
    out = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _lookup(by_key, name, routine, path, option=None):
    key = _norm(name)
    if key.startswith("/"):
        block, _, member = key[1:].partition("/")
        key = f"{block}_common::{member}"
    if key in by_key:
        return by_key[key]
    if "::" not in key:
        matches = [v for v in by_key.values() if v.is_global and v.local == key]
        if len(matches) == 1 and option:
            return matches[0]
    what = f"{option} {name}: " if option else ""
    module, colons, _ = key.partition("::")
    members = sorted(v.local for v in by_key.values() if v.is_global and v.module == module)
    if colons and members:
        raise AdfortError(f"{what}module '{module}' has no variable '{key}' adfort check "
                          f"can set (public variables: {', '.join(members)}); a COMMON "
                          "member is named as the differentiated routine names it", path)
    raise AdfortError(f"{what}'{name}' is neither an argument of '{routine}' nor a module "
                      "variable or COMMON member adfort check can see (name module "
                      "variables module::name, COMMON members /block/name)", path)


def _argument(symbol, k, is_result, names, table, path, location, rename, sizes, used):
    dtype = symbol.datatype
    key = symbol.name.lower()
    if isinstance(dtype, UnsupportedFortranType) and isinstance(
            dtype.partial_datatype, (ScalarType, ArrayType)) and not re.search(
                r"\b(pointer|allocatable)\b", dtype.declaration.split("::")[0], re.I):
        dtype = dtype.partial_datatype     # (TARGET, VOLATILE… dummies)
    if isinstance(dtype, ScalarType) and dtype.intrinsic.name == "CHARACTER":
        return _character(symbol, dtype, k, table, path, location, sizes, used)
    if isinstance(dtype, UnsupportedFortranType):
        raise AdfortError(f"argument '{symbol.name}' ({dtype.declaration.strip()}): "
                          "adfort check makes values for real, integer and logical "
                          "arguments and explicit-shape, assumed-shape or assumed-size "
                          "arrays of them, not for this one", location)
    intent = "out" if is_result else _INTENTS.get(getattr(symbol.interface, "access", None), "")
    elem = dtype if isinstance(dtype, ScalarType) else getattr(dtype, "datatype", None) \
        if isinstance(dtype, ArrayType) else None
    if isinstance(dtype, ArrayType):
        elem = ScalarType(dtype.intrinsic, dtype.precision)
    typed = scalar_type(elem, names, table, path) if isinstance(elem, ScalarType) else None
    if typed is None:
        kind = f"type({dtype.name})" if isinstance(getattr(dtype, "name", None), str) \
            else getattr(getattr(dtype, "intrinsic", None), "name", dtype)
        raise AdfortError(f"argument '{symbol.name}' is of type {kind}: adfort check "
                          "makes values for real, integer and logical arguments only",
                          location)
    intrinsic, type_text = typed
    var = Var(key, f"adf_a{k}", key, intrinsic, type_text, intent=intent, position=k)
    if isinstance(dtype, ArrayType):
        dims, allocatable, assumed = shape(dtype, names, table, path, rename)
        if allocatable:
            raise AdfortError(f"argument '{symbol.name}' is allocatable: adfort check "
                              "passes ordinary arrays only", location)
        if assumed:
            var.assumed_shape = any(d is None for d in dims)
            if key not in sizes:
                example = ",".join(["100"] * len(dims))
                raise AdfortError(
                    f"argument '{symbol.name}' is assumed-shape or assumed-size: give its "
                    f"extents with --size {key}={example} (numbers or expressions of the "
                    "integer arguments, e.g. --size "
                    f"{key}={','.join(['n'] * len(dims))})", location)
            extents = _extents(sizes[key], key, len(dims), rename, names, table, path,
                               sizes, used)
            used.add(key)
            out = []
            for declared, extent in zip(dims, extents):
                lower = declared[0] if declared is not None else "1"
                out.append((lower, f"{lower} + ({extent}) - 1" if lower != "1" else extent))
            var.dims = out
            var.allocate = extents
        else:
            if key in sizes:
                raise AdfortError(f"--size {key}: '{symbol.name}' has explicit bounds "
                                  "(they come from its declaration); give the integer "
                                  "arguments they name instead", location)
            var.dims = dims
    if intrinsic == "REAL" and key in sizes and not var.is_array:
        raise AdfortError(f"--size {key}: '{symbol.name}' is real: give its values with "
                          f"--range {key}=LO:HI (or --range {key}={sizes[key]})", location)
    if intrinsic in ("INTEGER", "BOOLEAN") and intent != "out":
        if var.is_array:
            raise AdfortError(f"argument '{symbol.name}' is an {intrinsic.lower()} array "
                              "that the routine reads: adfort check cannot invent its "
                              "values", location)
        if key not in sizes and intent == "" and intrinsic == "INTEGER":
            var.value = "0"      # (an F77 output such as INFO: see describe)
            var.missing = True
            return var
        if key not in sizes:
            example = "100" if intrinsic == "INTEGER" else ".true."
            raise AdfortError(f"integer or logical argument '{symbol.name}' needs a value: "
                              f"give it with --size {key}={example}", location)
        var.value = _value(sizes[key], intrinsic, key)
        used.add(key)
    return var


def _character(symbol, dtype, k, table, path, location, sizes, used):
    """A character argument: its value from ``--size NAME=TEXT``."""
    key = symbol.name.lower()
    length = getattr(dtype, "length", None)
    declared = None
    if hasattr(length, "value") and str(getattr(length, "value", "")).isdigit():
        declared = int(length.value)
    if key not in sizes:
        raise AdfortError(f"character argument '{symbol.name}' needs a value: give it with "
                          f"--size {key}=TEXT", location)
    text = sizes[key].strip("'\"")
    used.add(key)
    var = Var(key, f"adf_a{k}", key, "CHARACTER",
              f"character(len={declared or max(1, len(text))})",
              intent=_INTENTS.get(getattr(symbol.interface, "access", None), ""), position=k)
    var.value = "'" + text.replace("'", "''") + "'"
    return var


def _value(text, intrinsic, key):
    if intrinsic == "INTEGER":
        if not re.fullmatch(r"[+-]?\d+", text):
            raise AdfortError(f"--size {key}={text}: give an integer")
        return text
    low = text.lower().strip(".")
    if low in ("true", "t"):
        return ".true."
    if low in ("false", "f"):
        return ".false."
    raise AdfortError(f"--size {key}={text}: give true or false")
