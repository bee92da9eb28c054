"""Derived types: where their definitions are, which of their components
carry derivatives, and the *adjoint types* that hold those components'
adjoints.

A variable of a derived type holding real components (directly or in
nested types) can be active as a whole: its adjoint is a variable of the
adjoint type, which has the same real components under the same names
(nested types replaced by their adjoint types) and none of the passive
ones (integers, logicals, characters).  ``state%t(i, k)`` has the adjoint
``state_adj%t(i, k)``.

The working copies of the differentiated routines get their derived types
resolved (:meth:`TypeRegistry.resolve_routine`): each variable's type
becomes a copy of its definition, wherever it is declared (the routine's
module, a module it uses, a wildcard ``use``), so that the analyses can
tell the type of every component reference without looking further.
"""

from psyclone.psyir.nodes import (
    ArrayOfStructuresReference, ArrayReference, Assignment, BinaryOperation, Container,
    IntrinsicCall, Literal, Loop, Range, Reference, Routine, StructureReference)
from psyclone.psyir.symbols import (
    ArrayType, DataSymbol, DataTypeSymbol, ScalarType, StructureType, UnresolvedType,
    UnsupportedFortranType)

from adfort import naming
from adfort.exprs import INTEGER_TYPE, real_literal

STRUCTURE_REFERENCES = (StructureReference, ArrayOfStructuresReference)
# Every node that names (part of) a variable's storage.
VARIABLE_REFERENCES = (Reference, ArrayReference) + STRUCTURE_REFERENCES


def is_variable(node):
    """Whether `node` names a variable or part of one (not an expression)."""
    return type(node) in VARIABLE_REFERENCES


def structure_of(datatype):
    """The StructureType behind `datatype` (a resolved derived type, or an
    array of one), or None."""
    if isinstance(datatype, ArrayType):
        datatype = datatype.elemental_type
    if isinstance(datatype, DataTypeSymbol) and isinstance(datatype.datatype, StructureType):
        return datatype.datatype
    return None


def is_derived(datatype):
    """Whether `datatype` is a derived type (or an array of one)."""
    if isinstance(datatype, ArrayType):
        datatype = datatype.elemental_type
    return isinstance(datatype, DataTypeSymbol)


def holds_reals(datatype, _seen=()):
    """Whether a value of `datatype` holds real numbers (a real, or a
    derived type with real components at any depth)."""
    if isinstance(datatype, ArrayType):
        datatype = datatype.elemental_type
    if isinstance(datatype, ScalarType):
        return datatype.intrinsic == ScalarType.Intrinsic.REAL
    structure = structure_of(datatype)
    if structure is None or id(structure) in _seen:
        return False
    return any(holds_reals(c.datatype, _seen + (id(structure),))
               for c in structure.components.values())


def value_type(reference):
    """The datatype of the value `reference` names: the variable's type for
    a plain reference, the last component's for ``a%b(i)%c``."""
    if type(reference) in STRUCTURE_REFERENCES:
        try:
            return reference.datatype
        except Exception:  # pylint: disable=broad-except
            return UnresolvedType()
    return getattr(reference.symbol, "datatype", None)


def is_real_value(reference):
    """Whether `reference` names values that carry derivatives: reals (a
    real variable, element or component) or derived-type values holding
    real components."""
    if type(reference) in STRUCTURE_REFERENCES:
        return holds_reals(value_type(reference))
    return holds_reals(getattr(reference.symbol, "datatype", None))


def value_kind(reference):
    """The real kind of the values `reference` names (None: default)."""
    dtype = value_type(reference)
    element = dtype.elemental_type if isinstance(dtype, ArrayType) else dtype
    return _kind(getattr(element, "precision", None))


def is_derived_value(reference):
    """Whether `reference` names a derived-type value (not a component of
    intrinsic type)."""
    return is_derived(value_type(reference))


def reference_rank(reference):
    """Number of dimensions of the value a structure reference names
    (``cols(:)%area`` and ``state%t(:, k)`` have one, ``state%t`` the
    component's rank)."""
    from psyclone.psyir.nodes.array_mixin import ArrayMixin
    rank = 0
    dtype = reference.symbol.datatype
    part = reference
    while part is not None:
        if isinstance(part, ArrayMixin):
            rank += sum(1 for index in part.indices if isinstance(index, Range))
        elif isinstance(dtype, ArrayType):
            rank += len(dtype.shape)
        member = getattr(part, "member", None)
        if member is None:
            break
        component = find_component(dtype, member.name)
        if component is None:
            break
        dtype = component.datatype
        part = member
    return rank


def storage_path(reference):
    """The variable and component names `reference` goes through, without
    subscripts (``state%t(i, k)`` → ``('state', 't')``): two references
    can share storage only if one path starts the other."""
    names = [reference.symbol.name.lower()]
    node = reference
    while type(node) in STRUCTURE_REFERENCES or hasattr(node, "member"):
        node = getattr(node, "member", None)
        if node is None:
            break
        names.append(node.name.lower())
    return tuple(names)


def may_overlap(first, second):
    """Whether references `first` and `second` may name the same storage."""
    a, b = storage_path(first), storage_path(second)
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def find_component(datatype, name):
    """The ComponentType `name` (any case) of derived `datatype`, or None."""
    structure = structure_of(datatype)
    if structure is None:
        return None
    for key, component in structure.components.items():
        if key.lower() == name.lower():
            return component
    return None


def real_leaves(datatype, path=()):
    """The real components of a derived `datatype`, at any depth: a list of
    (component names from the top, the component's datatype)."""
    structure = structure_of(datatype)
    leaves = []
    for component in structure.components.values():
        dtype = component.datatype
        if not holds_reals(dtype):
            continue
        if structure_of(dtype) is not None:
            if isinstance(dtype, ArrayType):
                leaves.append((path + (component.name,), dtype))  # kept whole
            else:
                leaves.extend(real_leaves(dtype, path + (component.name,)))
        else:
            leaves.append((path + (component.name,), dtype))
    return leaves


def _member_chain(reference):
    """(base indices or None, [member specs for ``create``]) of a reference."""
    from psyclone.psyir.nodes.array_mixin import ArrayMixin
    base = [i.copy() for i in reference.indices] if isinstance(reference, ArrayMixin) \
        else None
    chain = []
    part = getattr(reference, "member", None)
    while part is not None:
        if isinstance(part, ArrayMixin):
            chain.append((part.name, [i.copy() for i in part.indices]))
        else:
            chain.append(part.name)
        part = getattr(part, "member", None)
    return base, chain


def extend_reference(reference, path):
    """`reference` (to a derived-type value) followed by ``%a%b`` for
    `path` = ('a', 'b')."""
    base, chain = _member_chain(reference)
    if base is not None:
        return ArrayOfStructuresReference.create(reference.symbol, base, chain + list(path))
    return StructureReference.create(reference.symbol, chain + list(path))


def leaf_references(reference, datatype, kinds=("real",)):
    """[(reference to a leaf component, its kind)] of the derived value
    `reference` of type `datatype`: its real components at any depth (with
    ``kinds`` including ``"integer"``, its integer ones too).

    :raises ValueError: for an array of derived values whose leaves are
        arrays (``cols%dz`` is not Fortran).
    """
    from adfort.arrays import expr_rank
    leaves = real_leaves(datatype) if kinds == ("real",) else \
        _leaves(datatype, kinds)
    found = []
    for path, leaf in leaves:
        if expr_rank(reference) > 0 and (isinstance(leaf, ArrayType)
                                         or structure_of(leaf) is not None):
            raise ValueError(f"{reference.debug_string()}%{'%'.join(path)}")
        element = leaf.elemental_type if isinstance(leaf, ArrayType) else leaf
        found.append((extend_reference(reference, path),
                      _kind(getattr(element, "precision", None))))
    return found


def leaf_paths(datatype, kinds=("real",)):
    """Component paths (tuples of names) of the leaf components of derived
    `datatype` of the intrinsic types in `kinds`, at any depth."""
    return [tuple(path) for path, _ in _leaves(datatype, kinds)]


def _leaves(datatype, kinds, path=()):
    """Leaf components of intrinsic types named in `kinds` ("real",
    "integer"), at any depth."""
    intrinsics = {"real": ScalarType.Intrinsic.REAL,
                  "integer": ScalarType.Intrinsic.INTEGER}
    wanted = {intrinsics[k] for k in kinds}
    found = []
    for component in structure_of(datatype).components.values():
        dtype = component.datatype
        element = dtype.elemental_type if isinstance(dtype, ArrayType) else dtype
        if structure_of(dtype) is not None and not isinstance(dtype, ArrayType):
            found.extend(_leaves(dtype, kinds, path + (component.name,)))
        elif structure_of(dtype) is not None:
            found.append((path + (component.name,), dtype))
        elif getattr(element, "intrinsic", None) in wanted:
            found.append((path + (component.name,), dtype))
    return found


def component_reference(symbol, path, indices=None):
    """``symbol%a%b`` (``symbol(indices)%a%b`` with `indices`)."""
    if indices is not None:
        return ArrayOfStructuresReference.create(symbol, [i.copy() for i in indices],
                                                 list(path))
    return StructureReference.create(symbol, list(path))


class TypeRegistry:
    """The derived types of one differentiation, resolved, and their
    adjoint types.

    :param program: the :class:`adfort.program.Program` (to find modules).
    """

    def __init__(self, program):
        self.program = program
        self._resolved = {}     # (module, type) -> resolved DataTypeSymbol
        self._origin = {}       # type name (lower case) -> (module, type)
        self._adjoints = {}     # (module, type) -> adjoint DataTypeSymbol
        self.adjoint_modules = {}  # adjoint type name (lower case) -> module
        # adfort.passive_components.PassiveComponents of the call tree, or None
        self.passive_components = None

    # -- finding definitions ---------------------------------------------
    def _find(self, name, scope):
        """(module name or None, the defining DataTypeSymbol) of type `name`
        seen from `scope` (a Routine or a Container), or None."""
        from adfort.interprocedural import resolve_module_variable
        symbol = scope.symbol_table.lookup(name, otherwise=None)
        if isinstance(symbol, DataTypeSymbol) and isinstance(symbol.datatype, StructureType) \
                and not symbol.is_import:
            owner = symbol.find_symbol_table(scope).node
            if isinstance(owner, Container):
                return owner.name.lower(), symbol
            return None, symbol  # defined inside a routine
        if self.program is None:
            return None
        found = resolve_module_variable(self.program, scope, name, (DataTypeSymbol,))
        if found is None or not isinstance(found[1].datatype, StructureType):
            return None
        return found

    def definition(self, name, scope):
        """(module name or None, DataTypeSymbol) defining type `name` as
        `scope` sees it, or None."""
        return self._find(name, scope)

    def resolve(self, name, scope):
        """The resolved DataTypeSymbol of type `name` seen from `scope`
        (a copy whose components' types are resolved too), or None."""
        found = self._find(name, scope)
        if found is None:
            return None
        module, original = found
        key = (module, original.name.lower())
        if key in self._resolved:
            return self._resolved[key]
        resolved = DataTypeSymbol(original.name, UnresolvedType())
        self._resolved[key] = resolved
        self._origin[original.name.lower()] = key
        home = self.program.module(module) if module is not None and self.program \
            else scope
        structure = StructureType()
        for component in original.datatype.components.values():
            structure.add(component.name, self._resolve_type(component.datatype, home),
                          component.visibility, component.initial_value)
        resolved.datatype = structure
        return resolved

    def _resolve_type(self, datatype, scope):
        if isinstance(datatype, DataTypeSymbol):
            return self.resolve(datatype.name, scope) or datatype
        if isinstance(datatype, ArrayType) and isinstance(datatype.elemental_type,
                                                          DataTypeSymbol):
            element = self.resolve(datatype.elemental_type.name, scope) or \
                datatype.elemental_type
            return ArrayType(element, datatype.shape)
        return datatype

    def resolve_routine(self, work, original):
        """Give the variables of the working copy `work` resolved types.

        The routine's own type symbols (imports, wildcard-imported names)
        get the definitions too: copies of the routine re-link its
        variables to them.

        :param original: the routine as read (for the names around it).
        """
        table = work.symbol_table
        for symbol in table.symbols:
            if isinstance(symbol, DataTypeSymbol) and \
                    not isinstance(symbol.datatype, StructureType):
                resolved = self.resolve(symbol.name, original)
                if resolved is not None:
                    symbol.datatype = resolved.datatype
        for symbol in table.datasymbols:
            if is_derived(symbol.datatype):
                element = symbol.datatype.elemental_type \
                    if isinstance(symbol.datatype, ArrayType) else symbol.datatype
                own = table.lookup(element.name, otherwise=None, scope_limit=work)
                if not isinstance(own, DataTypeSymbol):
                    own = self.resolve(element.name, original) or element
                if isinstance(symbol.datatype, ArrayType):
                    symbol.datatype = ArrayType(own, symbol.datatype.shape)
                else:
                    symbol.datatype = own

    def origin(self, datatype):
        """(module, type name) where the derived `datatype` is defined."""
        if isinstance(datatype, ArrayType):
            datatype = datatype.elemental_type
        return self._origin.get(datatype.name.lower()) \
            if isinstance(datatype, DataTypeSymbol) else None

    # -- adjoint types -----------------------------------------------------
    def adjoint_datatype(self, datatype):
        """The datatype of the adjoint of a variable of `datatype`: the same
        for reals, the adjoint type for a derived type (arrays alike)."""
        if isinstance(datatype, ArrayType) and is_derived(datatype):
            return ArrayType(self.adjoint_type(datatype.elemental_type), datatype.shape)
        if isinstance(datatype, DataTypeSymbol):
            return self.adjoint_type(datatype)
        return datatype.copy()

    def adjoint_type(self, type_symbol):
        """The adjoint DataTypeSymbol of resolved derived type `type_symbol`."""
        key = self._origin[type_symbol.name.lower()]
        if key in self._adjoints:
            return self._adjoints[key]
        module = key[0]
        name = naming.adjoint_type(type_symbol.name)
        home = self.program.module(module) if module is not None and self.program else None
        if home is not None:
            name = naming.unique(home.symbol_table, name)
        adjoint = DataTypeSymbol(name, UnresolvedType())
        self._adjoints[key] = adjoint
        self.adjoint_modules[name.lower()] = module
        structure = StructureType()
        for component in type_symbol.datatype.components.values():
            if holds_reals(component.datatype):
                structure.add(component.name, self.adjoint_datatype(component.datatype),
                              component.visibility, None)
        adjoint.datatype = structure
        return adjoint

    def adjoint_types(self):
        """{module (lower case): [adjoint DataTypeSymbols]}, each after the
        adjoint types its components use (Fortran wants them defined first)."""
        ordered, seen = [], set()

        def visit(adjoint):
            if id(adjoint) in seen:
                return
            seen.add(id(adjoint))
            for component in adjoint.datatype.components.values():
                dtype = component.datatype
                element = dtype.elemental_type if isinstance(dtype, ArrayType) else dtype
                if isinstance(element, DataTypeSymbol):
                    visit(element)
            ordered.append(adjoint)
        for adjoint in self._adjoints.values():
            visit(adjoint)
        found = {}
        for adjoint in ordered:
            found.setdefault(self.adjoint_modules[adjoint.name.lower()], []).append(adjoint)
        return found


def type_names(datatype):
    """Lower-case names of the derived types `datatype` mentions directly."""
    if isinstance(datatype, ArrayType):
        datatype = datatype.elemental_type
    return {datatype.name.lower()} if isinstance(datatype, DataTypeSymbol) else set()


def component_names(type_symbol):
    """Lower-case names a type definition refers to: its components' kinds,
    extents and types."""
    from adfort.prune import _datatype_references
    names = set()
    for component in type_symbol.datatype.components.values():
        holder = DataSymbol("component", component.datatype)
        names |= {r.symbol.name.lower() for r in _datatype_references(holder)}
        names |= type_names(component.datatype)
    return names


# -- whole-variable statements for derived types ---------------------------

def _element_loops(symbol, table, taken, make_body):
    """Loops over every element of the array of derived type `symbol`:
    ``make_body(indices)`` gives the statements for one element."""
    from adfort.symbols import new_local
    rank = len(symbol.datatype.shape)
    indices = [new_local(table, naming.ELEMENT_INDEX, INTEGER_TYPE, taken)
               for _ in range(rank)]
    taken = set(taken) | {i.name for i in indices}
    body = make_body([Reference(i) for i in indices])
    for dim, index in reversed(list(enumerate(indices, start=1))):
        bounds = [IntrinsicCall.create(getattr(IntrinsicCall.Intrinsic, which), [
            Reference(symbol), ("dim", Literal(str(dim), INTEGER_TYPE))])
            for which in ("LBOUND", "UBOUND")]
        body = [Loop.create(index, bounds[0], bounds[1], Literal("1", INTEGER_TYPE), body)]
    return body


def _leaf_statements(symbol, make, table=None, taken=()):
    """One statement per real leaf component of the derived variable
    `symbol`: ``make(leaf_reference, path)``."""
    dtype = symbol.datatype
    leaves = real_leaves(dtype)
    if not isinstance(dtype, ArrayType):
        return [make(lambda s=None, p=path: component_reference(s or symbol, p), path)
                for path, _ in leaves]
    scalar_leaves = all(not isinstance(leaf, ArrayType) for _, leaf in leaves)
    if scalar_leaves or table is None:
        # symbol%c is an array of the elements' components.
        return [make(lambda s=None, p=path: component_reference(s or symbol, p), path)
                for path, _ in leaves]
    return _element_loops(symbol, table, taken, lambda indices: [
        make(lambda s=None, p=path: component_reference(s or symbol, p, indices), path)
        for path, _ in leaves])


def default_initialisation(symbol, table, taken=()):
    """Statements giving the real components of the derived variable
    `symbol` (a scalar or an array of a derived type) that its TYPE
    initialises by default (``real(8) :: s = 0d0``, at any depth) their
    default values, as an ``intent(out)`` dummy gets them on entry.

    :raises ValueError: naming a component that cannot be set so (a
        default-initialised one inside an array component, an element of
        an assumed-size array)."""
    defaults = _real_defaults(symbol.datatype)
    if not defaults:
        return []
    if not isinstance(symbol.datatype, ArrayType):
        return [Assignment.create(component_reference(symbol, path), value.copy())
                for path, value in defaults]
    if getattr(symbol, "adfort_assumed_size", False):
        raise ValueError(f"{symbol.name}(*)")
    return _element_loops(symbol, table, taken, lambda indices: [
        Assignment.create(component_reference(symbol, path, indices), value.copy())
        for path, value in defaults])


def _real_defaults(datatype, path=()):
    """(component names from the top, default value) of the real
    components of derived `datatype` its TYPE initialises by default."""
    structure = structure_of(datatype)
    found = []
    for component in structure.components.values() if structure is not None else ():
        dtype = component.datatype
        if not holds_reals(dtype):
            continue
        if component.initial_value is not None:
            found.append((path + (component.name,), component.initial_value))
        elif structure_of(dtype) is not None and not getattr(dtype, "is_allocatable", False):
            inner = _real_defaults(dtype, path + (component.name,))
            if inner and isinstance(dtype, ArrayType):
                raise ValueError("%".join(inner[0][0]))
            found.extend(inner)
    return found


def zero_statements(adjoint, table=None, taken=(), skip=()):
    """Statements setting every real of the adjoint variable `adjoint` (a
    DataSymbol, real or of an adjoint type) to zero.

    :param skip: component paths (tuples of names) left alone with what
        they hold (allocatable components, zeroed where allocated)."""
    if not is_derived(adjoint.datatype):
        kind = getattr(getattr(adjoint.datatype, "elemental_type", adjoint.datatype),
                       "precision", None)
        return [Assignment.create(Reference(adjoint), real_literal(0, _kind(kind)))]

    def zero(leaf, path):
        if any(tuple(path[:len(p)]) == tuple(p) for p in skip):
            return None
        kind = _leaf_kind(adjoint.datatype, path)
        return Assignment.create(leaf(), real_literal(0, kind))
    return [s for s in _leaf_statements(adjoint, zero, table, taken) if s is not None]


def zero_reference(reference, datatype):
    """Statements zeroing every real of the derived value `reference` (of
    type `datatype`)."""
    return [Assignment.create(leaf, real_literal(0, kind))
            for leaf, kind in leaf_references(reference, datatype)]


def add_statements(target, source, table=None, taken=()):
    """Statements ``target = target + source`` for every real of two
    variables of the same type."""
    if not is_derived(target.datatype):
        return [Assignment.create(Reference(target), BinaryOperation.create(
            BinaryOperation.Operator.ADD, Reference(target), Reference(source)))]

    def add(leaf, path):
        return Assignment.create(leaf(), BinaryOperation.create(
            BinaryOperation.Operator.ADD, leaf(), leaf(source)))
    return _leaf_statements(target, add, table, taken)


def _kind(precision):
    if precision is None or isinstance(precision, ScalarType.Precision) and \
            precision == ScalarType.Precision.UNDEFINED:
        return None
    return precision


def _leaf_kind(datatype, path):
    dtype = datatype
    for name in path:
        dtype = structure_of(dtype).components[name].datatype
    element = dtype.elemental_type if isinstance(dtype, ArrayType) else dtype
    return _kind(getattr(element, "precision", None))


def unsupported_declaration(symbol):
    """Why a derived-type variable cannot be differentiated, or None:
    polymorphic ``class(…)`` variables (PSyIR keeps their declarations
    as text)."""
    dtype = getattr(symbol, "datatype", None)
    if isinstance(dtype, UnsupportedFortranType):
        text = " ".join(dtype.declaration.upper().split())
        if text.startswith("CLASS"):
            return "a polymorphic CLASS(…) variable"
    return None


def defined_in_routine(type_symbol):
    """Whether a DataTypeSymbol is defined inside a routine (its adjoint
    type would have nowhere to live)."""
    table = getattr(type_symbol, "_table", None)
    return isinstance(getattr(table, "node", None), Routine)


def check_derived(routine, active, filename, types):
    """Reject what adfort cannot do with derived types in `routine` (the
    routine as read), naming file:line.

    :param active: lower-case names of the routine's active variables.
    """
    from adfort.errors import AdfortError, where
    table = routine.symbol_table
    for symbol in table.datasymbols:
        if symbol.name.lower() not in active or not is_derived(symbol.datatype):
            continue
        dtype = types._resolve_type(symbol.datatype, routine)
        origin = types.origin(dtype)
        if origin is not None and origin[0] is None:
            raise AdfortError(
                f"'{symbol.name}' carries derivatives and its type is defined inside "
                f"'{routine.name}': define the type in a module, where its adjoint type "
                "can be defined too", where(routine, filename))
        leaves = real_leaves(dtype)
        if isinstance(dtype, ArrayType) and any(
                isinstance(leaf, ArrayType) or structure_of(leaf) is not None
                for _, leaf in leaves):
            raise AdfortError(
                f"'{symbol.name}' is an array of derived-type values with array or "
                "derived-type components and carries derivatives: not supported yet; "
                "use a derived type holding arrays instead", where(routine, filename))
        if not symbol.is_argument and (isinstance(dtype, ArrayType) or getattr(
                symbol.datatype, "is_allocatable", False)) and any(
                getattr(leaf, "is_allocatable", False) for _, leaf in leaves):
            raise AdfortError(
                f"the local variable '{symbol.name}' carries derivatives and is an array "
                "or allocatable of a type with allocatable components: not supported yet "
                "(the adjoint's components would have to follow each element's "
                "allocations); use a scalar of the type, or pass it as an argument",
                where(routine, filename))
    for assign in routine.walk(Assignment):
        lhs = assign.lhs
        if lhs.symbol.name.lower() not in active or not is_derived(
                getattr(lhs.symbol, "datatype", None)):
            continue
        if type(lhs) is Reference or (isinstance(lhs, ArrayReference)
                                      and type(lhs) not in STRUCTURE_REFERENCES):
            whole = True
        else:
            whole = False
        if whole and not is_variable(assign.rhs):
            raise AdfortError(
                f"'{assign.debug_string().strip()}' assigns a derived-type value that is not "
                "a variable (a structure constructor or a function): assign its "
                "components one by one", where(assign, filename))
    for ref in routine.walk(Reference):
        if type(ref) not in STRUCTURE_REFERENCES:
            continue
        dtype = types._resolve_type(getattr(ref.symbol, "datatype", None), routine)
        part = ref
        while getattr(part, "member", None) is not None and structure_of(dtype) is not None:
            part = part.member
            component = find_component(dtype, part.name)
            if component is None:
                break
            dtype = component.datatype
            if isinstance(dtype, UnsupportedFortranType):
                raise AdfortError(
                    f"'{ref.debug_string()}': the component '{part.name}' is declared "
                    f"'{dtype.declaration.strip()}' (a pointer or polymorphic component): "
                    "not supported; use an allocatable component", where(ref, filename))
