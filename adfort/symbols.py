"""Declaring the variables generated code needs."""

import re

from psyclone.psyir.nodes import Literal, Reference
from psyclone.psyir.symbols import (
    ArrayType, AutomaticInterface, ContainerSymbol, DataSymbol, ImportInterface,
    RoutineSymbol, ScalarType, StaticInterface, Symbol, UnsupportedFortranType)

from adfort import naming
from adfort.prune import _datatype_references


def new_local(table, base, datatype, taken=()):
    """Declare a local variable named after `base` (made unique) in `table`.

    :param datatype: its PSyIR datatype (copied).
    :returns: the new DataSymbol.
    """
    name = naming.unique(table, base, taken)
    datatype = datatype.copy()
    declaration = getattr(datatype, "declaration", None)
    if declaration and re.match(r"\s*(?:COMPLEX|DOUBLE\s*COMPLEX)\b", declaration,
                                re.IGNORECASE):
        # PSyIR keeps a complex declaration as text, naming its variable.
        datatype = UnsupportedFortranType(_local_declaration(declaration, name))
    symbol = DataSymbol(name, datatype, interface=AutomaticInterface())
    table.add(symbol)
    return symbol


def _local_declaration(text, name):
    """The declaration `text` of one variable (``COMPLEX(KIND = dp),
    INTENT(INOUT) :: zph(nf)``) as that of a local `name` of the same type
    and shape: no dummy's or constant's attributes, no initial value, an
    assumed shape made allocatable."""
    head, _, entity = text.partition("::")
    attributes, depth, start = [], 0, 0
    for i, char in enumerate(head + ","):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            attributes.append(head[start:i].strip())
            start = i + 1
    attributes = [a for a in attributes if a and not re.match(
        r"(?:INTENT|OPTIONAL|VALUE|SAVE|PARAMETER|TARGET|CONTIGUOUS|PROTECTED)\b", a,
        re.IGNORECASE)]
    entity = entity.split("=")[0].strip()
    match = re.match(r"\w+\s*(\(.*\))?\s*$", entity)
    shape = match.group(1) if match and match.group(1) else ""
    dimension = next((a for a in attributes if re.match(r"DIMENSION\b", a, re.IGNORECASE)),
                     None)
    dims = shape or (dimension[dimension.index("("):] if dimension else "")
    if dims and re.fullmatch(r"\(\s*:\s*(?:,\s*:\s*)*\)", dims) and not any(
            re.match(r"(?:ALLOCATABLE|POINTER)\b", a, re.IGNORECASE) for a in attributes):
        attributes.append("ALLOCATABLE")
    return f"{', '.join(attributes)} :: {name}{shape}"


def nameable_type(table, datatype, callee_origin, caller_origin, taken=()):
    """A copy of `datatype`, declared in a callee (its function result),
    whose kind the routine of `table` (a caller declaring a temporary of
    that type) can name.

    A kind the caller sees as the same constant keeps its name; a public
    constant of a module is imported from it (under a free name); a
    PARAMETER local to the callee (GSW's ``r14 = selected_real_kind(14)``)
    or private to its module is copied, with what its value names.

    :param callee_origin: ``callee_origin(name)`` gives (module, DataSymbol)
        of a name the callee takes from a module, None for its own.
    :param caller_origin: the same, for names as the caller sees them.
    :param taken: further names a new one must avoid.
    """
    dtype = datatype.copy()
    precision = getattr(getattr(dtype, "elemental_type", dtype), "precision", None)
    if hasattr(precision, "walk"):
        _name_references(table, precision.walk(Reference), callee_origin, caller_origin,
                         taken)
    return dtype


def _name_references(table, references, callee_origin, caller_origin, taken):
    for ref in references:
        if not isinstance(ref.symbol, RoutineSymbol):  # (an intrinsic's name)
            ref.symbol = _nameable(table, ref.symbol, callee_origin, caller_origin, taken)


def _nameable(table, symbol, callee_origin, caller_origin, taken):
    """The symbol of `table`'s scope naming the callee's constant `symbol`."""
    local = table.lookup(symbol.name, otherwise=None)
    if local is symbol:
        return symbol
    found = callee_origin(symbol.name)
    seen = caller_origin(symbol.name)
    if found is not None and seen is not None and found[1] is seen[1]:
        return local if local is not None else symbol  # the same constant
    if found is not None and found[1].visibility != Symbol.Visibility.PRIVATE:
        module, declared = found
        container = table.lookup(module, scope_limit=table.node, otherwise=None)
        if container is None:
            container = ContainerSymbol(module)
            table.add(container)
        if isinstance(container, ContainerSymbol):
            name = naming.unique(table, declared.name, taken)
            # (use m, only: r8_1 => r8 where the caller has another r8)
            imported = Symbol(name, interface=ImportInterface(
                container, declared.name if name != declared.name else None))
            table.add(imported)
            return imported
    declared = found[1] if found is not None else symbol
    if not (isinstance(declared, DataSymbol) and declared.is_constant
            and declared.initial_value is not None):
        return symbol
    if (isinstance(local, DataSymbol) and local.is_constant and local.initial_value is not None
            and local.datatype == declared.datatype
            and local.initial_value.debug_string() == declared.initial_value.debug_string()):
        return local  # the caller's own copy of it
    copy = constant_copy(declared, naming.unique(table, declared.name, taken))
    _name_references(table, _datatype_references(copy), callee_origin, caller_origin,
                     taken)
    table.add(copy)
    return copy


def constant_copy(symbol, name=None):
    """A copy of the named constant `symbol` to declare in another scope
    (under `name`), with a type and value of its own: PSyIR's copy shares
    them, and pointing their kinds at the new scope's symbols would change
    the original's."""
    copy = symbol.copy()
    if name is not None:
        copy._name = name
    if isinstance(copy.datatype, (ScalarType, ArrayType)):
        copy.datatype = copy.datatype.copy()
    for literal in copy.initial_value.walk(Literal) if copy.initial_value is not None else ():
        literal._datatype = literal.datatype.copy()
    copy.interface = StaticInterface()
    copy.visibility = Symbol.Visibility.PUBLIC
    return copy
