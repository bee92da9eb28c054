"""Building the generated routines from a working copy: arguments,
intents, declarations in an order Fortran accepts, and the names they
import."""

import re

from psyclone.psyir.nodes import Call, DataNode, Literal, Reference, Routine, ScopingNode
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, AutomaticInterface, DataSymbol, ContainerSymbol,
    ImportInterface, ScalarType, Symbol, NoType, RoutineSymbol, UnsupportedFortranType)

from adfort.extents import is_assumed_size
from adfort import naming
from adfort.arrays import is_assumed_extent
from adfort.derived import is_derived
from adfort.pointers import restore_attributes
from adfort.symbols import constant_copy
from adfort.optional import declare_optional, optional_names
from adfort.exprs import INTEGER_TYPE
from adfort.prune import _datatype_references, literal_kind_references, prune_symbols
from adfort.writer import Writer

_IN = ArgumentInterface.Access.READ
_OUT = ArgumentInterface.Access.WRITE
_INOUT = ArgumentInterface.Access.READWRITE


def _argument_symbols(table):
    return list(table.argument_list)


def _make_routine(work, name, body, arguments, intents, origin=None, attributes=None):
    """Return a new Routine: `work` with `body`, `arguments` and `intents`.

    The routine is a copy of the working routine, so it keeps its
    declarations (kinds, parameters, imports); unused ones are pruned.

    :param work: the working copy of the original routine.
    :param str name: the new routine's name.
    :param body: the statements (detached nodes using `work`'s symbols).
    :param arguments: the argument symbols of `work`, in order.
    :param intents: argument name (lower case) -> access.
    :param origin: ``origin(name)`` gives (module, DataSymbol) of a module
        variable the body refers to.
    :param attributes: {lower-case name: "POINTER"/"TARGET"} to declare.
    """
    routine = _with_body(work, body)
    _own_types(routine)
    routine.name = name
    if routine.name != name:
        # A function's name is also its result variable's, which PSyclone
        # will not rename; the routine's own symbol is a private copy.
        routine._symbol._name = name
    routine._return_symbol = None  # a function's motions are subroutines
    routine._symbol.datatype = NoType()
    # Motions push onto module tapes: they cannot be pure or elemental.
    routine._symbol.is_pure = False
    routine._symbol.is_elemental = False
    # The motions of a private routine are public in the generated module:
    # its callers' motions and the user call them.
    routine._symbol.visibility = Symbol.Visibility.PUBLIC
    work.pop_all_children()
    table = routine.symbol_table
    new_args = [table.lookup(sym.name) for sym in arguments]
    for sym in table.datasymbols:
        if sym.is_argument and sym not in new_args:
            sym.interface = AutomaticInterface()
        if sym not in new_args and _assumed_shape(sym):
            # A local cannot take its shape from an actual argument: it is
            # allocated (or assigned) instead.
            sym.datatype = _deferred(sym.datatype)
    for sym in new_args:
        sym.interface = ArgumentInterface(intents[sym.name.lower()])
    table.specify_argument_list(new_args)
    prune_symbols(routine)
    _declare_arguments_first(table)
    _standard_kinds(table)
    _restore_assumed_size(table)
    restore_attributes(table, attributes or {})
    _name_outer_symbols(routine, origin)
    declare_optional(table, optional_names(work))
    return routine


def _with_body(work, body):
    """A copy of `work` holding the statements of `body` (which it takes).

    What ``work.copy()`` with `body` as its children makes, without copying
    the statements (they were made for this routine and nothing else keeps
    them): the declarations are copied, then the statements moved in and
    pointed at the copied symbols by name, as the copy does.  Statements
    holding scopes with their own symbols are copied as before.
    """
    work.pop_all_children()
    statements = [stmt.detach() if stmt.parent is not None else stmt for stmt in body]
    if any(not scope.symbol_table.is_empty() for stmt in statements
           for scope in stmt.walk(ScopingNode)):
        for stmt in statements:
            work.addchild(stmt)
        return work.copy()
    routine = work.copy()
    for stmt in statements:
        routine.addchild(stmt)
    routine.replace_symbols_using(routine.symbol_table)
    return routine


def _name_outer_symbols(routine, origin=None):
    """Point references to variables declared elsewhere (module variables
    the analysis resolved to their modules' symbols) at symbols of the
    routine's own scope: an import from their module when `origin(name)`
    names it (PSyclone's copy would otherwise bring a foreign declaration in
    with a shape that uses it, jacobian(1, size(v))), else a plain name the
    generated module imports.

    :param origin: ``origin(name)`` gives (module name, DataSymbol) or None;
        ``origin(name, symbol)`` the module declaring the constant `symbol`
        the routine does not see by its name.
    """
    table = routine.symbol_table
    names = {}
    # (also the kinds of literals, 5.0_kp: still the working copy's symbols)
    references = routine.walk(Reference) + literal_kind_references(routine)
    for symbol in table.datasymbols:
        references += _datatype_references(symbol)
    own = {id(s) for s in table.symbols}
    for ref in references:
        symbol = ref.symbol
        # (by identity: an equal symbol of the working copy is not this one)
        if id(symbol) in own or not isinstance(symbol, DataSymbol):
            continue
        local = table.lookup(symbol.name, otherwise=None)
        if local is not None:
            ref.symbol = local
            continue
        key = symbol.name.lower()
        if key not in names:
            found = origin(symbol.name) if origin is not None else None
            if found is None and origin is not None:
                # A constant the routine does not see by its name (the kind
                # of another module's constant, 1.0_wp), or a callee's
                # module variable a caller saves around a call (GFS
                # funcphys tables set by gpvsl): from its module.
                found = origin(symbol.name, symbol)
                if found is not None and symbol.is_constant and \
                        found[1].visibility == Symbol.Visibility.PRIVATE:
                    # Private there: a copy of its own, never an import.
                    names[key] = constant_copy(found[1])
                    table.add(names[key])
                    references += _datatype_references(names[key])
                    ref.symbol = names[key]
                    continue
            if found is not None and found[1].visibility == Symbol.Visibility.PRIVATE:
                # A private constant cannot be imported: the generated
                # module declares its own copy, the name resolves to it.
                found = None
            if found is not None and not isinstance(
                    table.lookup(found[0], otherwise=None), (ContainerSymbol, type(None))):
                # The routine has a variable named like the module (a dummy
                # 'm' in module m): it cannot USE it; the name comes from
                # the generated module's own USE of the module.
                found = None
            if found is not None:
                container = table.lookup(found[0], otherwise=None)
                if container is None:
                    container = ContainerSymbol(found[0])
                    table.add(container)
                # (use m, only: local => original, as the routine named it)
                names[key] = Symbol(symbol.name, interface=ImportInterface(
                    container, found[1].name if found[1].name.lower() != key else None))
                table.add(names[key])
            else:
                names[key] = Symbol(symbol.name)
        ref.symbol = names[key]


def bind_module_names(module):
    """Point what the routines of a generated module name outside
    themselves at the module's own symbols (its imports, its copies of
    private constants), by name: the copies of the user's routines it holds
    (hoisted internal procedures, private routines) still refer to the
    original declarations, which PSyclone cannot match with the imports of
    the same names ('not of the same type as the original dependency')."""
    table = module.symbol_table
    for routine in module.children:
        if not isinstance(routine, Routine):
            continue
        _own_types(routine)
        symbols = [routine.symbol] + list(routine.symbol_table.symbols)
        references = routine.walk(Reference) + literal_kind_references(routine)
        for symbol in symbols:
            if isinstance(symbol, RoutineSymbol) and isinstance(
                    symbol.datatype, (ScalarType, ArrayType)):  # a function's result type
                symbol.datatype = symbol.datatype.copy()
            references += _datatype_references(symbol)
        own = {id(s) for s in routine.symbol_table.symbols}
        for ref in references:
            if id(ref.symbol) in own or isinstance(ref.symbol, RoutineSymbol):
                continue
            found = table.lookup(ref.symbol.name, otherwise=None, scope_limit=module)
            if found is not None:
                ref.symbol = found


def _own_types(routine):
    """Give each symbol and literal of `routine` a type of its own: PSyIR
    copies share scalar types (and literals' types), so pointing the kind
    of ``real(kind=kp)`` or ``5.0_kp`` at this routine's ``kp`` would point
    every motion made from the same working copy at it (and PSyclone then
    cannot order the parameter declarations)."""
    nodes = [routine]
    for symbol in routine.symbol_table.datasymbols:
        if isinstance(symbol.datatype, (ScalarType, ArrayType)):  # (not a type symbol)
            symbol.datatype = symbol.datatype.copy()
        nodes += [getattr(symbol, "initial_value", None)]
        datatype = symbol.datatype
        # (an ArrayType's shape checks itself on every read: it was checked)
        shape = datatype._shape if datatype.__class__ is ArrayType else \
            getattr(datatype, "shape", None)
        for dim in shape or []:
            nodes += [getattr(dim, "lower", None), getattr(dim, "upper", None)]
    for node in nodes:
        for literal in node.walk(Literal) if hasattr(node, "walk") else ():
            # (A type without a kind or length expression names nothing
            # that could be pointed elsewhere: it may stay shared.)
            datatype = literal.datatype
            if isinstance(getattr(datatype, "precision", None), DataNode) or \
                    isinstance(getattr(datatype, "_length", None), DataNode):
                literal._datatype = datatype.copy()


def _restore_assumed_size(table):
    """Declare assumed-size arrays with their ``*`` again."""
    writer = Writer()
    for symbol in table.datasymbols:
        shape = getattr(symbol.datatype, "shape", [])
        if any(naming.ASSUMED_SIZE in str(getattr(e, "upper", "")) for e in shape):
            text = writer.gen_vardecl(symbol).strip()
            # x(1:*) is written x(*); other lower bounds stay (x(-1:*)).
            text = re.sub(r"([(,]\s*)1:" + naming.ASSUMED_SIZE + r"\b", r"\1*", text)
            text = re.sub(r"\b" + naming.ASSUMED_SIZE + r"\b", "*", text)
            symbol.datatype = UnsupportedFortranType(text)


def _standard_kinds(table):
    """Declare ``real*8``-style types as ``real(kind=8)``: generated code
    must compile with ``-std=f2008``, which rejects the byte-size form."""
    for symbol in table.datasymbols:
        dtype = symbol.datatype
        element = getattr(dtype, "elemental_type", dtype)  # element type of an array
        if isinstance(getattr(element, "precision", None), int):
            fixed = ScalarType(element.intrinsic, Literal(str(element.precision),
                                                          INTEGER_TYPE))
            if isinstance(dtype, ArrayType):
                symbol.datatype = ArrayType(fixed, dtype.shape)
            else:
                symbol.datatype = fixed


def _declare_arguments_first(table):
    """Order declarations as a person would: arguments in order, then locals.

    PSyIR keeps symbols in insertion order and the writer follows it (after
    the parameters), so adjoints added late would otherwise trail.  An
    argument whose bounds name a later argument (``fjac(ldfjac, n)`` before
    ``ldfjac``, the MINPACK order) comes after that one: standard Fortran
    wants a variable typed before a specification uses it.
    """
    symbols = table._symbols
    arguments = [table._normalize(a.name) for a in table.argument_list]
    order = []

    def place(key, visiting=()):
        if key in order or key in visiting:
            return
        for ref in _datatype_references(symbols[key]):
            name = table._normalize(ref.symbol.name)
            if name in arguments:
                place(name, visiting + (key,))
        order.append(key)

    for key in arguments:
        place(key)
    rest = [key for key in symbols if key not in order]
    reordered = {key: symbols[key] for key in order + rest}
    symbols.clear()
    symbols.update(reordered)


def _call(name, references):
    return Call.create(RoutineSymbol(name), references)

def _deferred(dtype):
    """An allocatable array type of `dtype`'s element type and rank."""
    element = dtype.elemental_type
    if not is_derived(dtype):
        element = ScalarType(dtype.intrinsic, dtype.precision)
    return ArrayType(element, [ArrayType.Extent.DEFERRED] * len(dtype.shape))


def _assumed_shape(symbol):
    dtype = symbol.datatype
    return isinstance(dtype, ArrayType) and any(
        is_assumed_extent(extent) for extent in dtype.shape)


# (One test of assumed size for the motions and the tangent mode.)
_assumed_size = is_assumed_size
