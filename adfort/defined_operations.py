"""Defined assignments and defined operations, as calls of their procedures.

Fortran gives ``y = x`` the meaning ``call assign_pt(y, (x))`` when a
defined assignment takes the two sides: a specific procedure of an
``interface assignment(=)`` the statement's scope sees, or of the
``generic :: assignment(=)`` of a type.  Likewise ``a .dot. b``, and
``a + b`` on derived-type values, are references to the function of an
``interface operator(…)`` (or a type's ``generic :: operator(…)``) whose
dummy arguments take the operands.  PSyIR reads the assignment as an
intrinsic one (a component copy), the operation on derived types as an
intrinsic operation, and a defined operator as an opaque code block.

Each routine of the call graph gets them rewritten before anything looks
at its calls (:class:`DefinedOperations`): the assignment becomes the CALL,
the operation the function reference, chosen among the specific
procedures as adfort chooses in a generic interface (the number, ranks,
types and real kinds of the arguments).  They are then calls like any
other, differentiated through the procedure's own motions.  One adfort
cannot tell is an error naming it and the procedures it considered.
"""

import re

from fparser.two import Fortran2003
from fparser.two.utils import Base, walk
from psyclone.psyir.frontend.fortran import FortranReader
from psyclone.psyir.nodes import (
    ArrayOfStructuresReference, ArrayReference, Assignment, BinaryOperation, Call, CodeBlock,
    ArrayMember, Container, FileContainer, IntrinsicCall, Literal, Member, Range, Reference,
    Routine, Schedule, StructureReference, UnaryOperation)
from psyclone.psyir.nodes.array_mixin import ArrayMixin
from psyclone.psyir.symbols import (
    ArrayType, ContainerSymbol, DataSymbol, DataTypeSymbol, ImportInterface, NoType,
    RoutineSymbol, ScalarType, Symbol, UnsupportedFortranType)

from adfort import naming
from adfort.arrays import expr_rank, symbol_rank
from adfort.derived import (
    STRUCTURE_REFERENCES, TypeRegistry, find_component, is_variable, structure_of)
from adfort.errors import AdfortError, source_name, where
from adfort.parentheses import keep_parenthesised_arguments, read_component_keyword_arguments
from adfort.statements import split_statements

BinOp = BinaryOperation.Operator
UnOp = UnaryOperation.Operator

ASSIGNMENT = "assignment(=)"
# Operators with two spellings name one generic (Fortran 2008, 12.4.3.4.2).
_SYNONYMS = {".eq.": "==", ".ne.": "/=", ".lt.": "<", ".le.": "<=", ".gt.": ">",
             ".ge.": ">="}
_BINARY = {BinOp.ADD: "+", BinOp.SUB: "-", BinOp.MUL: "*", BinOp.DIV: "/", BinOp.POW: "**",
           BinOp.EQ: "==", BinOp.NE: "/=", BinOp.LT: "<", BinOp.LE: "<=", BinOp.GT: ">",
           BinOp.GE: ">=", BinOp.AND: ".and.", BinOp.OR: ".or.", BinOp.EQV: ".eqv.",
           BinOp.NEQV: ".neqv."}
_UNARY = {UnOp.MINUS: "-", UnOp.PLUS: "+", UnOp.NOT: ".not."}
_DEFINED_OP = re.compile(r"^\.[a-z]+\.$", re.IGNORECASE)
# Intrinsics whose value is of the type of their first argument, whatever it is.
_ARRAY_VALUED = {"MERGE", "RESHAPE", "TRANSPOSE", "SPREAD", "PACK", "UNPACK", "CSHIFT",
                 "EOSHIFT"}


def generic_key(spec):
    """A generic spec as one string: ``operator(.dot.)``, ``operator(==)``
    (also for ``.EQ.``), ``assignment(=)``."""
    text = re.sub(r"\s+", "", spec).lower()
    match = re.fullmatch(r"operator\((.+)\)", text)
    if match:
        return f"operator({_SYNONYMS.get(match.group(1), match.group(1))})"
    return text


def _operator_key(op):
    return generic_key(f"operator({op})")


# -- what the source declares ------------------------------------------------
_INTERFACE_HEAD = re.compile(r"^\s*interface\s*((?:operator|assignment)\s*\(.*\))\s*$",
                             re.IGNORECASE)


def interface_specifics(declaration):
    """(generic key, [specific names]) of the text of an interface block
    for a defined operator or assignment, or None for any other text.  The
    specifics are its ``module procedure`` names and the names of its
    interface bodies (external procedures)."""
    lines = declaration.splitlines()
    head = _INTERFACE_HEAD.match(lines[0]) if lines else None
    if head is None:
        return None
    names, depth = [], 0
    for line in lines[1:]:
        code = line.split("!")[0].strip().lower()
        if re.match(r"end\s*(?:function|subroutine)\b", code):
            depth -= 1
            continue
        listed = re.match(r"(?:module\s+)?procedure\s*(?:::)?\s*(.*)$", code)
        if depth == 0 and listed:
            names += [n.strip() for n in listed.group(1).split(",") if n.strip()]
            continue
        body = re.search(r"\b(?:function|subroutine)\s+([a-z_]\w*)", code)
        if body and not code.startswith("end"):
            if depth == 0:
                names.append(body.group(1))
            depth += 1
    return generic_key(head.group(1)), names


_MODULE = re.compile(r"^\s*module\s+(?!procedure\b)([a-z_]\w*)\s*$", re.IGNORECASE)
_END_MODULE = re.compile(r"^\s*end\s*module\b", re.IGNORECASE)
_TYPE = re.compile(r"^\s*type\s*(?P<attrs>,[^:]*)?(?:::)?\s*(?P<name>[a-z_]\w*)\s*$",
                   re.IGNORECASE)
_END_TYPE = re.compile(r"^\s*end\s*type\b", re.IGNORECASE)
_BINDING = re.compile(r"^\s*procedure\s*(?:\([^)]*\))?\s*(?P<attrs>,[^:]*)?(?:::)?\s*(?P<list>.*)$",
                      re.IGNORECASE)
_GENERIC = re.compile(r"^\s*generic\s*(?:,[^:]*)?::\s*(?P<spec>.*?)\s*=>\s*(?P<list>.*)$",
                      re.IGNORECASE)


class TypeBindings:
    """What a derived-type definition says about defined operations: its
    parent type, its bindings (binding name -> procedure name) and its
    generic operator and assignment bindings (key -> binding names)."""

    def __init__(self, parent=None):
        self.parent = parent
        self.bindings = {}
        self.generics = {}
        # binding name -> None (the object is the first argument), the name
        # of the dummy it is (PASS(arg)), or False (NOPASS)
        self.passing = {}


def type_bindings(source, fixed_form):
    """{(module, type): TypeBindings} (lower-case names; module None outside
    one) of the derived types `source` defines, read before the front end
    drops their CONTAINS parts (:mod:`adfort.declarations`)."""
    found, module, current, bound = {}, None, None, False
    for statement in split_statements(source, fixed_form):
        text = statement.text
        if current is None:
            heading = _MODULE.match(text)
            if heading:
                module = heading.group(1).lower()
            elif _END_MODULE.match(text):
                module = None
            else:
                typed = _TYPE.match(text)
                if typed:
                    parent = re.search(r"extends\s*\(\s*([a-z_]\w*)\s*\)",
                                       typed.group("attrs") or "", re.IGNORECASE)
                    current = TypeBindings(parent.group(1).lower() if parent else None)
                    found[(module, typed.group("name").lower())] = current
                    bound = False
            continue
        if _END_TYPE.match(text):
            current = None
        elif re.match(r"^\s*contains\s*$", text, re.IGNORECASE):
            bound = True
        elif bound and _GENERIC.match(text):
            generic = _GENERIC.match(text)
            current.generics.setdefault(generic_key(generic.group("spec")), []).extend(
                n.strip().lower() for n in generic.group("list").split(",") if n.strip())
        elif bound and _BINDING.match(text):
            attrs = (_BINDING.match(text).group("attrs") or "").lower()
            named = re.search(r"\bpass\s*\(\s*(\w+)\s*\)", attrs)
            passing = False if re.search(r"\bnopass\b", attrs) else \
                (named.group(1) if named else None)
            for item in _BINDING.match(text).group("list").split(","):
                binding, _, procedure = item.partition("=>")
                if binding.strip():
                    current.bindings[binding.strip().lower()] = \
                        (procedure.strip() or binding.strip()).lower()
                    current.passing[binding.strip().lower()] = passing
    return found


# -- types of values ---------------------------------------------------------
def _type_name(datatype):
    """The lower-case name of the derived type of values of `datatype`
    (``type(pt)``, ``class(pt)``, arrays of them), or None."""
    if isinstance(datatype, ArrayType):
        datatype = datatype.elemental_type
    if isinstance(datatype, DataTypeSymbol):
        original = getattr(datatype.interface, "orig_name", None) \
            if datatype.is_import else None
        return (original or datatype.name).lower()
    if isinstance(datatype, UnsupportedFortranType):
        match = re.match(r"\s*(?:type|class)\s*\(\s*([a-z_]\w*)\s*\)", datatype.declaration,
                         re.IGNORECASE)
        return match.group(1).lower() if match else None
    return None


def _is_intrinsic_type(datatype):
    if isinstance(datatype, ArrayType):
        datatype = datatype.elemental_type
    return isinstance(datatype, ScalarType)


class DefinedOperations:
    """Rewrites the defined assignments and operations of routines.

    :param program: the :class:`adfort.program.Program`.
    :param filename: the main file, for messages about nodes without one.
    """

    def __init__(self, program, filename=None):
        self.program = program
        self.filename = filename
        self.types = TypeRegistry(program)
        self._results = {}      # id(Call made here) -> the function's result type
        self._exported = {}     # module name -> {key: [(module, name)]}
        self._declared = {}     # (id(routine), name) -> symbol of a wildcard USE
        reader = FortranReader()
        keep_parenthesised_arguments(reader)
        read_component_keyword_arguments(reader)
        self._reader = reader._processor

    def lower(self, routine):
        """Rewrite `routine` (as read) in place.

        :raises AdfortError: for a defined operation or assignment whose
            procedure adfort cannot tell.
        """
        visible = None
        made = []
        for block in routine.walk(CodeBlock):
            nodes = block.parse_tree_nodes
            if block.structure != CodeBlock.Structure.EXPRESSION or len(nodes) != 1 or \
                    not _holds_defined_operator(nodes[0]):
                continue
            visible = visible if visible is not None else self._visible(routine)
            block.replace_with(self._convert(nodes[0], block, routine, visible, made))
        # Inner operations first: an operand's type is then known.
        for operation in reversed(routine.walk((BinaryOperation, UnaryOperation))):
            operands = list(operation.children)
            if operation.operator == UnOp.PLUS and is_variable(operands[0]):
                continue    # (``(v)``: a copy, see adfort.parentheses)
            if not any(_type_name(self._type_of(o, routine, operation=False))
                       for o in operands):
                continue
            names = _BINARY if isinstance(operation, BinaryOperation) else _UNARY
            visible = visible if visible is not None else self._visible(routine)
            call = self._operation(names[operation.operator], operands, operation, routine,
                                   visible, made, defined=False)
            operation.replace_with(call)
            for operand in operands:
                call.addchild(operand.detach())
        for call in routine.walk(Call):
            if not isinstance(call, IntrinsicCall) and type(call.routine) in (
                    StructureReference, ArrayOfStructuresReference):
                self._bound_call(call, routine, made)
        # ``s%lim(x)`` in an expression reads as a component: a function
        # binding of s's type (no component of that name) is a reference to
        # its function.
        for reference in routine.walk((StructureReference, ArrayOfStructuresReference)):
            if isinstance(reference.parent, Call) and reference.parent.routine is reference:
                continue
            self._bound_function(reference, routine, made)
        for assign in routine.walk(Assignment):
            if assign.is_pointer:
                continue
            lhs_type = self._type_of(assign.lhs, routine)
            # (An intrinsic operation has no derived-type value: one on
            # such values is a call by now.)
            rhs_type = self._type_of(assign.rhs, routine,
                                     operation=_type_name(lhs_type) is not None)
            if _type_name(lhs_type) is None and _type_name(rhs_type) is None:
                continue    # (no defined assignment between intrinsic types)
            visible = visible if visible is not None else self._visible(routine)
            self._assignment(assign, lhs_type, rhs_type, routine, visible, made)
        for call, procedure in made:
            self._name_procedure(call, procedure, routine)

    # -- the rewrites --------------------------------------------------------
    def _assignment(self, assign, lhs_type, rhs_type, routine, visible, made):
        operands = [assign.lhs, assign.rhs]
        lhs_name, rhs_name = _type_name(lhs_type), _type_name(rhs_type)
        # Only two values of one type have an intrinsic assignment; without
        # a defined one taking them, the types must be known to differ to
        # be an error (a structure constructor's is not known).
        known = (lhs_name is not None or _is_intrinsic_type(lhs_type)) and \
            (rhs_name is not None or _is_intrinsic_type(rhs_type))
        procedure = self._choose(ASSIGNMENT, operands, assign, routine, visible,
                                 required=known and lhs_name != rhs_name)
        if procedure is None:
            component = self._bound_component(lhs_type, routine) \
                if lhs_name is not None else None
            if component is not None:
                raise AdfortError(
                    f"'{_text(assign)}' assigns a value whose component "
                    f"{assign.lhs.symbol.name}{component} has a type-bound defined assignment, "
                    "which Fortran calls for it: adfort does not differentiate that; assign "
                    "the components one by one", where(assign, source_name(assign) or
                                                       self.filename))
            return      # an intrinsic assignment
        if is_variable(assign.rhs) and _may_overlap(assign.rhs, assign.lhs):
            # The right-hand side is passed as if parenthesised (F2008,
            # 12.4.3.4.3): a copy, which adfort makes of reals (``(x)``,
            # stored in a local), not of derived-type values.
            if rhs_name is not None:
                raise AdfortError(
                    f"{_describe(ASSIGNMENT, False)} in '{_text(assign)}': its right-hand "
                    f"side may be the variable it assigns, which Fortran passes to "
                    f"'{procedure.name}' as a copy; adfort does not copy derived-type "
                    "values: assign from another variable",
                    where(assign, source_name(assign) or self.filename))
            assign.rhs.replace_with(UnaryOperation.create(UnOp.PLUS, assign.rhs.copy()))
        rhs = assign.rhs.detach()
        lhs = assign.lhs.detach()
        call = Call.create(RoutineSymbol(procedure.name), [lhs, rhs])
        call.ast = assign.ast
        assign.replace_with(call)
        made.append((call, procedure))

    def _operation(self, op, operands, node, routine, visible, made, defined=True):
        """The function reference for operator `op` applied to `operands`
        (PSyIR nodes, not yet placed): a Call without children but its
        routine when the operands are still in place."""
        procedure = self._choose(_operator_key(op), operands, node, routine, visible,
                                 required=True, defined=defined)
        result = procedure.return_symbol
        symbol = RoutineSymbol(procedure.name, result.datatype if result is not None
                               else NoType())
        call = Call.create(symbol, [o for o in operands if o.parent is None])
        self._results[id(call)] = result.datatype if result is not None else None
        made.append((call, procedure))
        return call

    def _convert(self, parsed, block, routine, visible, made):
        """PSyIR of the fparser expression `parsed` (part of `block`), its
        defined operations as function references."""
        if _is_defined_operation(parsed):
            if type(parsed) is Fortran2003.Expr:
                op, parts = parsed.items[1], [parsed.items[0], parsed.items[2]]
            else:
                op, parts = parsed.items[0], [parsed.items[1]]
            operands = [self._convert(p, block, routine, visible, made) for p in parts]
            return self._operation(str(op), operands, block, routine, visible, made)
        if isinstance(parsed, Fortran2003.Parenthesis):
            return self._convert(parsed.items[1], block, routine, visible, made)
        if not _holds_defined_operator(parsed):
            return self._read(parsed, block)
        # A construct around defined operations (a function reference or an
        # intrinsic operation PSyclone gave up on as a whole): read with a
        # placeholder variable for each, then put them in.
        table = block.scope.symbol_table
        swapped = []
        _swap_operations(parsed, table, swapped)
        try:
            value = self._read(parsed, block)
        finally:
            for holder, items, _, symbol in swapped:
                holder.items = items
                table._symbols.pop(table._normalize(symbol.name))
        for _, _, inner, symbol in swapped:
            converted = self._convert(inner, block, routine, visible, made)
            for ref in value.walk(Reference):
                if ref.symbol is symbol:
                    if ref is value:
                        value = converted
                    else:
                        ref.replace_with(converted)
        return value

    def _read(self, parsed, block):
        """PSyIR of a plain fparser expression, its names seen from `block`
        (as PSyclone's ``psyir_from_expression`` reads one)."""
        holder = Schedule()
        holder._symbol_table = block.scope.symbol_table
        holder.addchild(Assignment())
        self._reader.process_nodes(holder[0], [parsed])
        return holder[0].children[0].detach()

    # -- choosing the procedure ----------------------------------------------
    def _choose(self, key, operands, node, routine, visible, required, defined=False):
        """The procedure of generic `key` taking `operands`; None when none
        does and `required` is False (an intrinsic assignment).

        :raises AdfortError: when none or several do, or some cannot be read.
        """
        candidates = list(visible.get(key, []))
        for operand in operands:
            candidates += self._bound(key, self._type_of(operand, routine), routine)
        procedures, unseen, seen = [], [], set()
        for home, name in candidates:
            procedure = self._procedure(home, name)
            if procedure is None:
                unseen.append(name)
            elif id(procedure) not in seen:
                seen.add(id(procedure))
                procedures.append(procedure)
        fitting = [p for p in procedures if self._fits(p, operands, routine)]
        if len(fitting) == 1:
            return fitting[0]
        if not fitting and not required and not unseen:
            return None
        what = _describe(key, defined)
        text = _text(node)
        names = ", ".join(sorted({p.name for p in procedures} | set(unseen)))
        place = where(node, source_name(node) or self.filename)
        if len(fitting) > 1:
            raise AdfortError(
                f"{what} in '{text}': several of its procedures ({names}) take these "
                "operands and adfort cannot tell which one Fortran calls; call the one "
                "meant by its name", place)
        if unseen:
            raise AdfortError(
                f"{what} in '{text}': adfort has no source for its procedures "
                f"{', '.join(sorted(set(unseen)))}: add the files defining them (or call "
                "the procedure meant by its name)", place)
        if not candidates:
            raise AdfortError(
                f"{what} in '{text}': adfort sees no interface {key} here that "
                f"takes these operands (nor a type-bound generic {key}); call the "
                "procedure meant by its name", place)
        raise AdfortError(
            f"{what} in '{text}': none of its procedures ({names}) takes these "
            "operands as adfort reads their types; call the procedure meant by its name",
            place)

    def _fits(self, procedure, operands, routine):
        """Whether `procedure`'s dummy arguments take `operands` (their
        number, ranks, types and real kinds; True where adfort cannot tell)."""
        from adfort.program import _same_type
        formals = procedure.symbol_table.argument_list
        if len(formals) != len(operands):
            return False
        elemental = procedure.symbol.is_elemental
        for formal, operand in zip(formals, operands):
            if not elemental and self._rank(operand, routine) != symbol_rank(formal):
                return False
            have_type = self._type_of(operand, routine)
            want, have = _type_name(formal.datatype), _type_name(have_type)
            if want is not None:
                if have is not None and have != want and not (
                        self._extends(have, want) and _is_class(formal)):
                    return False
                if have is None and _is_intrinsic_type(have_type):
                    return False
            elif have is not None or not _same_type(formal, operand, self.program):
                return False
        return True

    def _rank(self, node, routine):
        """The rank of the value of `node` (a function's, from its result)."""
        if id(node) in self._results or (isinstance(node, Call)
                                         and not isinstance(node, IntrinsicCall)):
            shape = getattr(self._type_of(node, routine), "shape", None)
            return len(shape) if shape else 0
        return expr_rank(node)

    def _type_of(self, node, routine, operation=True):
        """The datatype of the value of `node`, or None when adfort cannot
        tell (a component of a type it cannot resolve, an expression).

        :param operation: whether to work out the type of an intrinsic
            operation or function too (not needed where its operands have
            been looked at already, and costly on long expressions).
        """
        if id(node) in self._results:
            return self._results[id(node)]
        if isinstance(node, Literal):
            return node.datatype
        if isinstance(node, Reference):
            symbol = node.symbol
            if not isinstance(symbol, DataSymbol):
                # (a module variable of a wildcard USE: PSyclone leaves it
                # unresolved)
                symbol = self._module_variable(routine, symbol)
            datatype = getattr(symbol, "datatype", None)
            if type(node) not in STRUCTURE_REFERENCES:
                return datatype
            datatype = self.types._resolve_type(datatype, routine)
            part = node
            while getattr(part, "member", None) is not None:
                part = part.member
                component = find_component(datatype, part.name)
                if component is None:
                    return None
                datatype = component.datatype
            return datatype
        if isinstance(node, Call) and not isinstance(node, IntrinsicCall):
            function = self.program.resolve(node) if node.ancestor(Routine) else None
            result = getattr(function, "return_symbol", None)
            return result.datatype if result is not None else None
        if isinstance(node, IntrinsicCall) and node.intrinsic.name in _ARRAY_VALUED and \
                node.arguments:
            # (of the type of the array or value they take: MERGE(v, w, m))
            return self._type_of(node.arguments[0], routine, operation)
        if not operation:
            return None
        try:
            return node.datatype
        except Exception:  # pylint: disable=broad-except  (PSyclone cannot tell)
            return None

    def _module_variable(self, routine, symbol):
        """The declared symbol of the unresolved `symbol` of `routine`
        (itself when adfort cannot find it)."""
        from adfort.interprocedural import resolve_module_variable
        key = (id(routine), symbol.name.lower())
        if key not in self._declared:
            found = resolve_module_variable(self.program, routine, symbol.name)
            self._declared[key] = found[1] if found is not None else symbol
        return self._declared[key]

    def _bound_component(self, datatype, routine, seen=()):
        """The path (``'%c%d'``) of a component of derived `datatype`, at any
        depth, whose type has a type-bound defined assignment, or None: an
        intrinsic assignment of the whole value calls it (F2008, 7.2.1.3)."""
        structure = structure_of(self.types._resolve_type(datatype, routine))
        if structure is None or id(structure) in seen:
            return None
        for component in structure.components.values():
            if _type_name(component.datatype) is None or "POINTER" in str(
                    getattr(component.datatype, "declaration", "")).upper():
                continue
            if self._bound(ASSIGNMENT, component.datatype, routine):
                return f"%{component.name}"
            inner = self._bound_component(component.datatype, routine, seen + (id(structure),))
            if inner is not None:
                return f"%{component.name}{inner}"
        return None

    # -- where procedures are --------------------------------------------------
    def _visible(self, routine):
        """{generic key: [(scope, specific name)]} of the interfaces for
        defined operations and assignments `routine` sees: its own, its
        module's, and those of the modules they use (whole, or the ones
        named in ONLY lists)."""
        found = {}
        node = routine
        while node is not None and not isinstance(node, FileContainer):
            if isinstance(node, (Routine, Container)):
                table = node.symbol_table
                for key, names in _own_interfaces(table):
                    found.setdefault(key, []).extend((node, n) for n in names)
                for key, entries in self._imported(table).items():
                    found.setdefault(key, []).extend(entries)
            node = node.parent
        return found

    def _imported(self, table, seen=()):
        """{key: [(scope, name)]} of the interfaces the USE statements of
        `table` bring."""
        found = {}
        for container in table.containersymbols:
            module = self.program.module(container.name)
            if module is None or module.name.lower() in seen:
                continue
            named = None if container.wildcard_import else {
                generic_key(s.name) for s in table.symbols
                if s.is_import and s.interface.container_symbol is container}
            for key, entries in self._exports(module, seen).items():
                if named is None or key in named:
                    found.setdefault(key, []).extend(entries)
        return found

    def _exports(self, module, seen=()):
        """{key: [(scope, name)]} of the public interfaces of `module`
        (declared there or brought by its own USE statements)."""
        name = module.name.lower()
        if name in self._exported:
            return self._exported[name]
        table = module.symbol_table
        access = {generic_key(s.name): s.visibility for s in table.symbols
                  if re.match(r"\s*(?:operator|assignment)\s*\(", s.name, re.IGNORECASE)}
        public = Symbol.Visibility.PUBLIC
        found = {}
        for symbol in table.symbols:
            spec = _interface_of(symbol)
            if spec is not None and access.get(spec[0], symbol.visibility) == public:
                found.setdefault(spec[0], []).extend((module, n) for n in spec[1])
        for key, entries in self._imported(table, tuple(seen) + (name,)).items():
            if access.get(key, table.default_visibility) == public:
                found.setdefault(key, []).extend(entries)
        self._exported[name] = found
        return found

    def _bound(self, key, datatype, routine):
        """[(module, procedure name)] of the type-bound generic `key` of the
        derived type of `datatype` (and the types it extends)."""
        name, scope = _type_name(datatype), routine
        bindings, chain = {}, []
        while name is not None:
            definition = self.types.definition(name, scope)
            entry = self._type_entry(definition[0] if definition is not None else None, name)
            if entry is None:
                break
            chain.append(entry)
            home, described = entry
            for binding, procedure in described.bindings.items():
                # (a type's own binding overrides its parent's)
                bindings.setdefault(binding, (home, procedure))
            name, scope = described.parent, home
        return [bindings[binding] for _, described in chain
                for binding in described.generics.get(key, []) if binding in bindings]

    def _bound_call(self, call, routine, made):
        """``call obj%binding(args)`` as the call of the binding's procedure
        (``call proc(obj, args)``), when `obj` is a variable (or element) of
        a type adfort knows, not polymorphic (a CLASS variable dispatches at
        run time: the call stays, and the fence refuses it)."""
        reference = call.routine
        member = reference.member
        if type(member) is not Member:
            return      # (a binding of a component: obj%c%binding)
        if isinstance(reference, ArrayOfStructuresReference):
            obj = ArrayReference.create(reference.symbol,
                                        [i.copy() for i in reference.indices])
        else:
            obj = Reference(reference.symbol)
        found = self._binding(member.name.lower(), self._type_of(obj, routine), routine)
        if found is None:
            return
        home, name, passing = found
        procedure = self._procedure(home, name)
        if procedure is None:
            return
        arguments = [(n, a.detach()) for n, a in zip(call.argument_names, list(call.arguments))]
        if passing is None:
            arguments.insert(0, (None, obj))
        elif passing is not False:
            arguments.append((passing, obj))
        new = Call.create(RoutineSymbol(procedure.name), [
            (n, a) if n else a for n, a in arguments])
        new.ast = call.ast
        call.replace_with(new)
        made.append((new, procedure))

    def _bound_function(self, reference, routine, made):
        """``obj%binding(args)`` read as a component reference, where the
        binding names no component of obj's type: the function reference
        ``proc(obj, args)``."""
        member = reference.member
        if type(member) not in (Member, ArrayMember) or \
                any(isinstance(i, Range) for i in getattr(member, "indices", ())):
            self._check_components(reference, routine)
            return
        if isinstance(reference, ArrayOfStructuresReference):
            obj = ArrayReference.create(reference.symbol,
                                        [i.copy() for i in reference.indices])
        else:
            obj = Reference(reference.symbol)
        datatype = self._type_of(obj, routine)
        if find_component(self.types._resolve_type(datatype, routine), member.name) \
                is not None:
            return      # a component
        found = self._binding(member.name.lower(), datatype, routine)
        procedure = self._procedure(found[0], found[1]) if found is not None else None
        if procedure is None:
            self._check_components(reference, routine)
            return
        passing = found[2]
        arguments = [a.copy() for a in getattr(member, "indices", ())]
        if passing is None:
            arguments.insert(0, obj)
        elif passing is not False:
            arguments.append((passing, obj))
        result = procedure.return_symbol
        call = Call.create(RoutineSymbol(procedure.name, result.datatype if result is not None
                                         else NoType()), arguments)
        self._results[id(call)] = result.datatype if result is not None else None
        reference.replace_with(call)
        made.append((call, procedure))

    def _check_components(self, reference, routine):
        """Every member of `reference` must be a component of the type
        adfort sees there: anything else (a type-bound function of a
        component, ``s%c%f(x)``) would be differentiated as a component.

        :raises AdfortError: at the reference, naming the member.
        """
        datatype = self.types._resolve_type(self._type_of(Reference(reference.symbol), routine),
                                            routine)
        node = reference.member
        while node is not None and structure_of(datatype) is not None:
            entry = self._type_entry(None, _type_name(datatype))
            if entry is not None and entry[1].parent is not None:
                return      # (an extension's components include its parent's)
            component = find_component(datatype, node.name)
            if component is None:
                raise AdfortError(
                    f"'{_text(reference)}': '{node.name}' is no component of type "
                    f"'{_type_name(datatype)}' (a type-bound function of it?): adfort reads "
                    "it as a component; call the function by its own name",
                    where(reference, source_name(reference) or self.filename))
            datatype = self.types._resolve_type(component.datatype, routine)
            node = getattr(node, "member", None)

    def _binding(self, binding, datatype, routine):
        """(module Container, procedure name, passing) of `binding` of the
        derived type of `datatype` (or a type it extends), or None."""
        name, scope = _type_name(datatype), routine
        while name is not None:
            definition = self.types.definition(name, scope)
            entry = self._type_entry(definition[0] if definition is not None else None, name)
            if entry is None:
                return None
            home, described = entry
            if binding in described.bindings:
                return home, described.bindings[binding], described.passing.get(binding)
            name, scope = described.parent, home
        return None

    def _type_entry(self, module, name):
        """(the module Container, TypeBindings) of type `name` defined in
        `module` (or, for a parent type, in any file read), or None."""
        for tree in self.program.trees:
            table = getattr(tree, "adfort_type_bindings", {})
            for (owner, type_name), entry in table.items():
                if type_name == name and (module is None or owner == module):
                    home = self.program.module(owner) if owner is not None else None
                    if home is not None:
                        return home, entry
        return None

    def _extends(self, name, ancestor):
        """Whether derived type `name` extends type `ancestor`."""
        while name is not None:
            entry = self._type_entry(None, name)
            name = entry[1].parent if entry is not None else None
            if name == ancestor:
                return True
        return False

    def _procedure(self, scope, name):
        """The Routine `name` seen from `scope` (a module or routine holding
        the interface), or None when adfort has no source for it."""
        from adfort.interprocedural import resolve_module_variable
        from adfort.program import _routine_in
        if isinstance(scope, Container):
            found = _routine_in(scope, name.lower())
            if found is not None:
                return found
        located = resolve_module_variable(self.program, scope, name, (RoutineSymbol,))
        if located is not None:
            found = _routine_in(self.program.module(located[0]), located[1].name.lower())
            if found is not None:
                return found
        return self.program.externals().get(name.lower())

    def _name_procedure(self, call, procedure, routine):
        """Give `call` (now in `routine`) a symbol the caller resolves to
        `procedure`: the one it sees under that name, else an import of it
        from its module (under another local name if that one is taken)."""
        table = routine.symbol_table
        seen = table.lookup(procedure.name, otherwise=None)
        if isinstance(seen, RoutineSymbol):
            call.routine.symbol = seen
            if self.program.resolve(call) is procedure:
                return
        module = procedure.parent if isinstance(procedure.parent, Container) and \
            not isinstance(procedure.parent, FileContainer) else None
        if module is None:
            if seen is None:
                table.add(call.routine.symbol)
            return
        container = _container_symbol(routine, module.name)
        if container is None:
            container = ContainerSymbol(module.name)
            table.add(container)
        local = procedure.name if seen is None else naming.unique(table, procedure.name)
        result = procedure.return_symbol
        symbol = RoutineSymbol(
            local, result.datatype.copy() if result is not None else NoType(),
            interface=ImportInterface(container, orig_name=None if local == procedure.name
                                      else procedure.name))
        table.add(symbol)
        call.routine.symbol = symbol


def _may_overlap(one, other):
    """Whether variables `one` and `other` may share storage: the same
    variable, its components or elements not told apart (``r(i)`` and
    ``r(i + 1)``, ``s%a`` and ``s%b`` are apart)."""
    if one.symbol is not other.symbol:
        return False
    parts = [one, other]
    while all(p is not None for p in parts):
        if all(isinstance(p, ArrayMixin) for p in parts) and any(
                _apart(a, b) for a, b in zip(parts[0].indices, parts[1].indices)):
            return False
        members = [getattr(p, "member", None) for p in parts]
        if all(m is not None for m in members) and \
                members[0].name.lower() != members[1].name.lower():
            return False
        parts = members
    return True


def _apart(one, other):
    """Whether two scalar subscripts surely differ: two integer literals,
    or ``i`` and ``i`` plus or minus a literal."""
    if isinstance(one, Range) or isinstance(other, Range):
        return False
    if isinstance(one, Literal) and isinstance(other, Literal):
        return one.value != other.value
    for a, b in ((one, other), (other, one)):
        if isinstance(a, BinaryOperation) and a.operator in (BinOp.ADD, BinOp.SUB) and \
                isinstance(a.children[1], Literal) and a.children[1].value.isdigit() and \
                int(a.children[1].value) != 0 and a.children[0] == b:
            return True
    return False


def _describe(key, defined):
    if key == ASSIGNMENT:
        return "defined assignment (interface assignment(=))"
    op = key[len("operator("):-1]
    if defined:
        return f"defined operator {op}"
    return f"operator {op} on derived-type values (interface operator({op}))"


def _text(node):
    try:
        if isinstance(node, CodeBlock):
            return str(node.parse_tree_nodes[0]).strip()
        return node.debug_string().strip()
    except Exception:  # pylint: disable=broad-except
        return type(node).__name__


def _is_class(formal):
    declaration = getattr(formal.datatype, "declaration", "") or ""
    return re.match(r"\s*class\s*\(", declaration, re.IGNORECASE) is not None


def _interface_of(symbol):
    """(key, names) of a symbol PSyclone made of an interface block for a
    defined operation, or None."""
    datatype = getattr(symbol, "datatype", None)
    if not isinstance(symbol, RoutineSymbol) or not isinstance(datatype,
                                                               UnsupportedFortranType):
        return None
    return interface_specifics(datatype.declaration)


def _own_interfaces(table):
    return [spec for spec in (_interface_of(s) for s in table.symbols) if spec is not None]


def _container_symbol(routine, name):
    """The ContainerSymbol of module `name` in the scopes of `routine`."""
    node = routine
    while node is not None:
        table = getattr(node, "_symbol_table", None)
        if table is not None:
            for container in table.containersymbols:
                if container.name.lower() == name.lower():
                    return container
        node = node.parent
    return None


def _is_defined_operation(parsed):
    """Whether the fparser node `parsed` applies a defined operator."""
    if type(parsed) is Fortran2003.Expr:
        return _DEFINED_OP.match(str(parsed.items[1])) is not None
    if type(parsed) is Fortran2003.Level_1_Expr:
        return _DEFINED_OP.match(str(parsed.items[0])) is not None
    return False


def _holds_defined_operator(parsed):
    return any(_is_defined_operation(n)
               for n in walk(parsed, (Fortran2003.Expr, Fortran2003.Level_1_Expr)))


def _swap_operations(parsed, table, swapped):
    """Put a placeholder name (declared in `table`) in place of each
    outermost defined operation (or parenthesised one) under `parsed`.

    :param swapped: gets (holder, its items before, the operation, the
        placeholder's symbol) for each."""
    items = list(parsed.items)
    changed = False
    for position, item in enumerate(items):
        if not isinstance(item, Base) or not _holds_defined_operator(item):
            continue
        if _is_defined_operation(item) or isinstance(item, Fortran2003.Parenthesis):
            symbol = DataSymbol(naming.unique(table, "adfort_operation"),
                                ScalarType(ScalarType.Intrinsic.REAL,
                                           ScalarType.Precision.UNDEFINED))
            table.add(symbol)
            swapped.append((parsed, tuple(parsed.items), item, symbol))
            items[position] = Fortran2003.Name(symbol.name)
            changed = True
        else:
            _swap_operations(item, table, swapped)
    if changed:
        parsed.items = tuple(items)     # (restored by the caller from `swapped`)
