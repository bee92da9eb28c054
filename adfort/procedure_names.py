"""User procedures named as intrinsics (a module function ``erf``, a
generic interface ``scale`` of one argument).

Fortran calls the user's procedure wherever one of that name is visible:
a module procedure or generic interface of the host module or of a module
used (with or without ONLY, through a module it uses in turn), an
interface body, an ``EXTERNAL`` declaration, a procedure declaration, a
dummy procedure.  An external procedure of an intrinsic's name is not
visible by itself: a caller without an explicit interface or ``EXTERNAL``
calls the intrinsic (gfortran's ``-Wintrinsic-shadow``).  Internal
procedures are hoisted under new names before the parse, their calls
renamed with them.

fparser reads a name it knows as an intrinsic as the intrinsic wherever
no variable of that name is declared, and rejects such a reference with
another number of arguments as a syntax error (``scale(x)``).  While a
source is read, :func:`reading_as_procedures` makes it read the names of
the procedures the source declares (:func:`declared_procedures`) or the
modules of other files it uses hold (:func:`used_module_procedures`) as
plain function references; :func:`user_procedure_visible` then tells,
scope by scope, which of those calls are the user's
(:func:`adfort.frontend.recognise_intrinsics` makes the others intrinsic).
Which procedure of a generic interface of an intrinsic's name a call
invokes, or whether it is the intrinsic the interface extends, is decided
with the call graph (:meth:`adfort.program.Program.intrinsic_extension`).
"""

import contextlib
import re

from fparser.two import Fortran2003
from fparser.two.Fortran2008 import intrinsics_f08
from psyclone.psyir.nodes import Container, FileContainer, IntrinsicCall, Routine, ScopingNode
from psyclone.psyir.symbols import (
    DataSymbol, RoutineSymbol, Symbol, UnresolvedInterface, UnsupportedFortranType)

from adfort import units

# Every name an intrinsic may be read under: fparser's (generic and F77
# specific names) and PSyclone's.
INTRINSIC_NAMES = frozenset(
    {name.lower() for name in intrinsics_f08.Intrinsic_Name.function_names}
    | {i.name.lower() for i in IntrinsicCall.Intrinsic} | {"dcmplx", "dfloat"})

_HEADER = re.compile(r"^(?:module\s+)?(?:(?:recursive|pure|elemental|impure|non_recursive"
                     r"|module)\s+|" + units._TYPE_PREFIX + r")*"
                     r"(?:subroutine|function)\s+(?P<name>[a-z_]\w*)")
# ``procedure(iface) :: f``, ``real(8), external :: f``, ``external f``
_DECLARED = re.compile(r"^(?:procedure\b[^:]*::|[^:!=]*\bexternal\b\s*(?:::)?)\s*(?P<names>.*)$")
_USE_ONLY = re.compile(r"^use\b[^:]*?,\s*only\s*:(?P<names>.*)$")
_USE_RENAMES = re.compile(r"^use\b\s*(?:,\s*(?:non_)?intrinsic\s*::)?\s*(?:::)?\s*\w+\s*,"
                          r"(?P<names>.*=>.*)$")

# What a statement declaring a procedure or bringing names holds.
_KEYWORDS = ("function", "subroutine", "interface", "procedure", "external", "use")

_shadowed = frozenset()     # the names fparser reads as user procedures now


def declared_procedures(source, fixed_form):
    """Lower-case intrinsic names `source` declares as procedures: its
    SUBROUTINE and FUNCTION statements (interface bodies too), generic
    INTERFACE names, procedure declarations, EXTERNAL statements and
    attributes, and the names USE statements bring by name."""
    names = set()
    for _, _, statement in units.statements(source, fixed_form):
        if statement.startswith("end") or not any(k in statement for k in _KEYWORDS):
            continue
        match = _HEADER.match(statement)
        if match:
            names.add(match.group("name"))
            continue
        match = units.GENERIC.match(statement)
        if match:
            names.add(match.group("name"))
            continue
        match = (_DECLARED.match(statement) if "::" in statement or
                 statement.startswith("external") else None)
        if match and (statement.startswith(("procedure", "external"))
                      or re.search(r",\s*external\b", statement.split("::")[0])):
            names |= {part.split("=")[0].strip() for part in
                      units.split_top_level(match.group("names"))}
            continue
        match = _USE_ONLY.match(statement) or _USE_RENAMES.match(statement)
        if match:
            names |= {part.split("=>")[0].strip() for part in
                      units.split_top_level(match.group("names"))}
    return names & INTRINSIC_NAMES


def used_module_procedures(source, modules):
    """Lower-case intrinsic names of the procedures and generic interfaces
    of the modules of other files `source` uses (and the modules they
    use), as ``modules(name)`` (:meth:`adfort.reading.ReadPlan.module_scan`)
    shows them."""
    if modules is None:
        return set()
    own = {m.lower() for m in _MODULE.findall(source)}
    used = {m.lower() for m in _USE.findall(source)} - own
    names, seen = set(), set()
    while used:
        name = used.pop()
        seen.add(name)
        scanned = modules(name)
        if scanned is None:
            continue
        unit, procedures = scanned
        names |= set(procedures) | unit.generics
        used |= unit.uses - seen - own
    return names & INTRINSIC_NAMES


_MODULE = re.compile(r"^[ \t]*module[ \t]+(\w+)[ \t]*(?:!.*)?$", re.IGNORECASE | re.MULTILINE)
_USE = re.compile(r"^[ \t]*use\b[ \t]*(?:,[ \t]*non_intrinsic[ \t]*)?(?:::)?[ \t]*(\w+)",
                  re.IGNORECASE | re.MULTILINE)


@contextlib.contextmanager
def reading_as_procedures(names):
    """Make fparser read references of the intrinsic names `names` as
    function references (calls of user procedures) while in the block."""
    global _shadowed
    _install()
    before, _shadowed = _shadowed, frozenset(n.lower() for n in names)
    try:
        yield
    finally:
        _shadowed = before


_FIRST_NAME = re.compile(r"\s*([a-z_]\w*)\s*\(", re.IGNORECASE)
_installed = False


def _install():
    global _installed
    if _installed:
        return
    _installed = True
    original = Fortran2003.Intrinsic_Function_Reference.match.__func__

    def match(cls, string):
        if _shadowed:
            found = _FIRST_NAME.match(string)
            if found and found.group(1).lower() in _shadowed:
                return None     # a user procedure: a function reference
        return original(cls, string)

    match.__doc__ = original.__doc__
    Fortran2003.Intrinsic_Function_Reference.match = classmethod(match)


def user_procedure_visible(node, name, modules=None):
    """Whether a user procedure (or variable) `name` is visible where
    `node` is, so that a reference of that name there is not the
    intrinsic's.

    :param modules: ``modules(name)`` for modules not in `node`'s tree
        (see :func:`used_module_procedures`), or None.
    """
    name = name.lower()
    for scope in _scopes(node):
        table = scope.symbol_table
        symbol = table.lookup(name, otherwise=None, scope_limit=scope)
        if symbol is not None and not _placeholder(symbol):
            return True
        if _interface_body_declares(table, name):
            return True
        if isinstance(scope, Container) and not isinstance(scope, FileContainer) and any(
                isinstance(r, Routine) and r.name.lower() == name for r in scope.children):
            return True
        for container in table.containersymbols:
            if container.wildcard_import and _exports(node.root, container.name, name,
                                                      modules, set()):
                return True
    return False


def _scopes(node):
    """The scopes of `node`, innermost first.  A file's table is not one:
    PSyclone declares the external procedures of the file there, which a
    Fortran scope does not see without an interface or EXTERNAL."""
    scope = node if isinstance(node, ScopingNode) else node.ancestor(ScopingNode)
    while scope is not None and not isinstance(scope, FileContainer):
        yield scope
        scope = scope.ancestor(ScopingNode)


def _placeholder(symbol):
    """Whether `symbol` is what PSyclone made for a name it could not
    resolve (a call of an undeclared name)."""
    return not symbol.is_import and not isinstance(symbol, DataSymbol) and (
        type(symbol) is Symbol or isinstance(symbol, RoutineSymbol)
        and isinstance(symbol.interface, UnresolvedInterface)
        and not isinstance(symbol.datatype, UnsupportedFortranType))


def _interface_body_declares(table, name):
    """Whether an interface block `table` keeps as text declares `name`."""
    pattern = re.compile(rf"^\s*(?:[\w(),*=\s]*\s)?(?:subroutine|function)\s+{name}\b",
                         re.IGNORECASE | re.MULTILINE)
    for symbol in table.symbols:
        datatype = getattr(symbol, "datatype", None)
        if isinstance(datatype, UnsupportedFortranType) and re.match(
                r"\s*(?:abstract\s+)?interface\b", datatype.declaration, re.IGNORECASE) \
                and pattern.search(datatype.declaration):
            return True
    return False


def _exports(root, module_name, name, modules, seen):
    """Whether module `module_name` gives `name` to a USE without ONLY."""
    module_name = module_name.lower()
    if module_name in seen:
        return False
    seen.add(module_name)
    module = next((c for c in root.walk(Container) if not isinstance(c, FileContainer)
                   and c.name.lower() == module_name), None) if root is not None else None
    if module is not None:
        table = module.symbol_table
        symbol = table.lookup(name, otherwise=None, scope_limit=module)
        if symbol is not None and not _placeholder(symbol):
            return symbol.visibility != Symbol.Visibility.PRIVATE
        if _interface_body_declares(table, name) or any(
                isinstance(r, Routine) and r.name.lower() == name for r in module.children):
            return True
        return any(_exports(root, c.name, name, modules, seen)
                   for c in table.containersymbols if c.wildcard_import)
    scanned = modules(module_name) if modules is not None else None
    if scanned is None:
        return False
    unit, procedures = scanned
    if name in unit.private or unit.default_private and name not in unit.public:
        return False
    return name in procedures or name in unit.generics or any(
        _exports(root, used, name, modules, seen) for used in unit.uses)
