"""Drop declarations a generated routine does not use.

Generated routines start as copies of the original, so they inherit every
declaration; ``-Wall -Werror=unused-variable`` builds must not see the
ones a motion no longer needs.
"""

import re

from psyclone.psyir.nodes import CodeBlock, DataNode, Literal, Loop, Reference, ScopingNode
from psyclone.psyir.symbols import (
    ArrayType, ContainerSymbol, DataSymbol, DataTypeSymbol, UnsupportedFortranType)

# PSyclone keeps each DATA statement as a symbol of this name (plus a
# suffix) whose type is the statement's text; nothing refers to it.
_DATA_PREFIX = "_psyclone_internal_data_stmt"
_DATA_VALUES = re.compile(r"/[^/]*/")
_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def data_statement_names(symbol):
    """Lower-case names a DATA statement symbol mentions outside its value
    lists (the variables it initialises, implied-DO indices), or None if
    `symbol` is not a DATA statement."""
    if not symbol.name.lower().startswith(_DATA_PREFIX):
        return None
    dtype = getattr(symbol, "datatype", None)
    if not isinstance(dtype, UnsupportedFortranType):
        return None
    text = dtype.declaration.strip()
    objects = _DATA_VALUES.sub(" ", text[len("data"):].lower())
    return set(_NAME.findall(objects))


def _datatype_references(symbol):
    """References inside `symbol`'s declaration (kind, extents, value)."""
    nodes = []
    dtype = getattr(symbol, "datatype", None)
    precision = getattr(dtype, "precision", None)
    if isinstance(precision, Reference):
        nodes.append(precision)
    if isinstance(dtype, ArrayType):
        # (an ArrayType's shape checks itself on every read: it was checked)
        for dim in dtype._shape if dtype.__class__ is ArrayType else dtype.shape:
            for bound in (getattr(dim, "lower", None), getattr(dim, "upper", None)):
                if bound is not None and hasattr(bound, "walk"):
                    nodes.append(bound)
    init = getattr(symbol, "initial_value", None)
    if init is not None:
        nodes.append(init)
    refs = []
    for node in nodes:
        refs.extend(node.walk(Reference))
        refs.extend(literal_kind_references(node))
    return refs


def literal_kind_references(node):
    """References naming the kinds of the literals under `node` (``5.0_kp``):
    PSyIR keeps them in the literals' types, not among the children."""
    refs = []
    for literal in node.walk(Literal):
        precision = getattr(literal.datatype, "precision", None)
        if isinstance(precision, DataNode):
            refs.extend(precision.walk(Reference))
    return refs


def type_names(datatype):
    """Lower-case names of the derived types `datatype` mentions directly."""
    from adfort.derived import type_names as names_of
    return names_of(datatype)


def used_names(routine):
    """Lower-case names a routine's body and kept declarations refer to."""
    table = routine.symbol_table
    names = set()
    for node in routine.walk((Reference, Literal, CodeBlock, Loop)):   # one walk
        if isinstance(node, Reference):
            names.add(node.symbol.name.lower())
        elif isinstance(node, Literal):
            precision = getattr(node.datatype, "precision", None)
            if isinstance(precision, DataNode):
                names |= {ref.symbol.name.lower() for ref in precision.walk(Reference)}
        elif isinstance(node, CodeBlock):
            # Kept I/O statements and character expressions name their
            # variables only in their text.
            names |= {name.lower() for name in node.get_symbol_names()}
        else:
            names.add(node.variable.name.lower())
    names |= {s.name.lower() for s in table.argument_list}
    pending = list(names)
    while pending:
        name = pending.pop()
        symbol = table.lookup(name, otherwise=None) if hasattr(table, "lookup") else None
        if symbol is None:
            continue
        for ref in _datatype_references(symbol):
            ref_name = ref.symbol.name.lower()
            if ref_name not in names:
                names.add(ref_name)
                pending.append(ref_name)
        # The derived type it is declared with (its definition or import).
        names |= type_names(getattr(symbol, "datatype", None))
    return names


def prune_symbols(routine):
    """Remove the unused data symbols and imports of `routine`, in place."""
    table = routine.symbol_table
    keep = used_names(routine)
    from adfort.commons import common_statements, parse_common
    for statement in common_statements(table):
        # A COMMON statement names all its members: all stay, or none.
        members = {m for _, names in parse_common(statement.datatype.declaration)
                   for m in names}
        if members & keep:
            keep |= members | {statement.name.lower()}
            for member in members:
                symbol = table.lookup(member, otherwise=None)
                keep |= {r.symbol.name.lower() for r in _datatype_references(symbol)} \
                    if symbol is not None else set()
    for symbol in list(table.symbols):
        # A DATA statement stays with the variables it initialises (their
        # values would otherwise be silently lost), and keeps them all.
        names = data_statement_names(symbol)
        if names is not None and names & keep:
            keep |= names | {symbol.name.lower()}
    for symbol in list(table.symbols):
        if isinstance(symbol, ContainerSymbol) or symbol.is_argument:
            continue
        if symbol.is_unresolved:
            _drop(table, symbol)  # see drop_unresolved
            continue
        if symbol.name.lower() in keep:
            continue
        if isinstance(symbol, (DataSymbol, DataTypeSymbol)) or symbol.is_import:
            _drop(table, symbol)
    for container in list(table.containersymbols):
        if not container.wildcard_import and not table.symbols_imported_from(container):
            table.remove(container)
    # Scopes inside it: the index PSyclone's reading of a WHERE declared in
    # the loop it made (``widx1``), unused once adfort lowered the WHERE
    # itself; the writer would declare it in the routine.
    for scope in routine.walk(ScopingNode)[1:]:
        inner = scope.symbol_table
        for symbol in list(inner.symbols):
            if isinstance(symbol, DataSymbol) and not symbol.is_argument \
                    and symbol.name.lower() not in keep:
                _drop(inner, symbol)


def drop_unresolved(routine):
    """Remove from `routine`'s own table the symbols PSyclone left
    unresolved there, in place.

    They are names seen through a wildcard ``use`` of the enclosing module.
    A routine placed in a generated module gets them from the ``use`` its
    module is given (where each is declared); kept in the routine, they
    would hide that import and the writer would refuse them.
    """
    table = routine.symbol_table
    for symbol in list(table.symbols):
        if symbol.is_unresolved and not symbol.is_argument:
            _drop(table, symbol)


def _drop(table, symbol):
    # SymbolTable.remove() refuses DataSymbols (it cannot check for uses);
    # we have just checked there are none.
    table._symbols.pop(table._normalize(symbol.name))
