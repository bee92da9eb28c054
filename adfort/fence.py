"""The fence: reject what adfort cannot differentiate, before any work.

Every check names ``file:line``, the construct and what to do.  Nothing
unsupported reaches the transformations, so they never fail half-way.
"""

import re

from psyclone.psyir.nodes import (
    ArrayConstructor, ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, IfBlock,
    IntrinsicCall, Loop, Reference, Routine, Schedule, Statement, UnaryOperation, WhileLoop)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, DataSymbol, ScalarType, StaticInterface, UnresolvedType)

from adfort import naming, rules
from adfort.activity import (
    active_variables, argument_names, differentiable_args, is_complex, is_complex_literal, is_complex_value,
    is_real, operands, operation_name)
from adfort.arrays import (
    expr_rank, is_shape_inquiry, is_substring, symbol_rank, vector_subscript)
from adfort.derived import (
    STRUCTURE_REFERENCES, check_derived, holds_reals, is_derived, is_real_value, is_variable,
    unsupported_declaration)
from adfort.errors import AdfortError, where, where_statement
from adfort.extents import is_assumed_size
from adfort.pointers import check_pointers, declared_attribute, is_nullify
from adfort.exprs import E
from adfort.forward_only import (
    check_character_expression, check_forward_only, is_character_expression,
    is_forward_only, is_kept_statement)
from adfort.normalise import jump_kind
from adfort.transformations.allocation import allocation_arguments, is_allocation

_OPERATIONS = (BinaryOperation, UnaryOperation, IntrinsicCall)
_SUPPORTED_STATEMENTS = (Assignment, IfBlock, Loop, WhileLoop, Call)


# fparser class names of constructs PSyclone keeps opaque, as users know them.
_CONSTRUCTS = {
    "Block_Nonlabel_Do_Construct": "a named DO loop (or one PSyclone cannot read; "
                                   "drop the loop's name)",
    "Block_Label_Do_Construct": "a labelled DO loop PSyclone cannot read",
    "Where_Construct": "a WHERE construct PSyclone cannot turn into loops (a mask "
                       "or assignment with function calls: compute them into arrays "
                       "first)",
    "Computed_Goto_Stmt": "computed GO TO",
    "Arithmetic_If_Stmt": "arithmetic IF",
    "Return_Stmt": "RETURN",
    "Stop_Stmt": "STOP",
    "Forall_Stmt": "FORALL reading an array it assigns, or with a type-spec (DO loops "
                   "would see values it has not assigned yet: copy the array read "
                   "first, or write the loops yourself)",
    "Forall_Construct": "FORALL reading an array it assigns, or with a type-spec (DO "
                        "loops would see values it has not assigned yet: copy the array "
                        "read first, or write the loops yourself)",
    "Nullify_Stmt": "NULLIFY PSyclone cannot read (NULLIFY a plain pointer variable)",
}


def _check_declared_bounds(routine, filename):
    """An array whose declared bounds PSyclone cannot check (``w(cfg%nl)``,
    a component of a module variable): its copies cannot be made."""
    from psyclone.psyir.nodes import StructureReference
    for symbol in routine.symbol_table.datasymbols:
        if not isinstance(symbol.datatype, ArrayType):
            continue
        try:
            bounds = [b for dim in symbol.datatype.shape
                      if isinstance(dim, ArrayType.ArrayBounds) for b in (dim.lower, dim.upper)]
        except AttributeError:
            bounds = None
        if bounds is None or any(
                not getattr(ref.symbol, "is_argument", False)
                for b in bounds if hasattr(b, "walk") for ref in b.walk(StructureReference)):
            raise AdfortError(
                f"the bounds of '{symbol.name}' read a component of a variable adfort "
                "cannot resolve in a declaration (a module variable's component, "
                f"cfg%nl): make '{symbol.name}' allocatable and allocate it from that "
                "component, or pass the extent as an argument", where(routine, filename))


def _describe_codeblock(block, asts=None):
    """Name the Fortran statement an opaque CodeBlock holds (GOTO, WRITE…),
    or those of them in `asts`."""
    names = []
    for ast in block.parse_tree_nodes if asts is None else asts:
        text = str(ast).strip().splitlines()[0] if str(ast).strip() else ""
        kind = _CONSTRUCTS.get(type(ast).__name__,
                               type(ast).__name__.replace('_Stmt', '').upper())
        names.append(f"{kind} ('{text}')")
    return ", ".join(names) or "a statement PSyclone cannot represent"


def check_arguments(routine, dependents, independents, filename, allow_empty=False,
                    types=None):
    """Check the dependent and independent variables against `routine`.

    :raises AdfortError: for unknown, non-argument, non-real variables and
        for intents that contradict the role.
    """
    table = routine.symbol_table
    args = {a.name.lower(): a for a in table.argument_list}
    result = routine.return_symbol
    if result is not None:
        # A function's motions are subroutines taking its result last.
        args.setdefault(result.name.lower(), result)
    location = where(routine, filename)
    if not dependents and not allow_empty:
        raise AdfortError("no dependent variable: name at least one with --dep", location)
    if not independents and not allow_empty:
        raise AdfortError("no independent variable: name at least one with --indep", location)
    for role, names in (("dependent", dependents), ("independent", independents)):
        seen = set()
        for name in names:
            if "%" in name:
                base = name.split("%")[0].strip()
                raise AdfortError(
                    f"{role} variable '{name}' names a component: name the whole "
                    f"derived-type argument ('{base}'); its real components are then "
                    f"all {role}s, and '{naming.adjoint(base)}' of the adjoint type holds "
                    "their adjoints", location)
            if name.lower() in seen:
                raise AdfortError(f"{role} variable '{name}' is named twice", location)
            seen.add(name.lower())
            symbol = args.get(name.lower())
            if symbol is None:
                if name.lower() in table:
                    raise AdfortError(
                        f"{role} variable '{name}' is a local variable of "
                        f"'{routine.name}'; dependents and independents must be "
                        f"arguments ({', '.join(a.name for a in table.argument_list)})",
                        location)
                raise AdfortError(
                    f"unknown {role} variable '{name}': '{routine.name}' has "
                    f"arguments ({', '.join(a.name for a in table.argument_list)})",
                    location)
            if types is not None and is_derived(symbol.datatype):
                if holds_reals(types._resolve_type(symbol.datatype, routine)):
                    continue
                raise AdfortError(
                    f"{role} variable '{name}' is of a derived type with no real "
                    "components (or whose definition adfort cannot see): nothing in it "
                    "can be differentiated", location)
            if not is_real(symbol):
                raise AdfortError(
                    f"{role} variable '{name}' is not real (it is "
                    f"{_type_text(symbol)}): only real variables can be differentiated",
                    location)
            if symbol is result:
                if role == "independent":
                    raise AdfortError(
                        f"independent variable '{name}' is the result of function "
                        f"'{routine.name}': an independent must be an input", location)
                continue
            access = symbol.interface.access
            if role == "dependent" and access == ArgumentInterface.Access.READ:
                raise AdfortError(
                    f"dependent variable '{name}' is intent(in): a dependent "
                    f"must be computed by '{routine.name}' (intent out or inout)",
                    location)
            if role == "independent" and access == ArgumentInterface.Access.WRITE:
                raise AdfortError(
                    f"independent variable '{name}' is intent(out): an "
                    f"independent must be an input (intent in or inout)",
                    location)


def _type_text(symbol):
    if is_complex(symbol):
        return "complex: complex active values are not supported"
    dtype = symbol.datatype
    intrinsic = getattr(dtype, "intrinsic", None)
    if intrinsic is not None:
        return f"of type {intrinsic.name.lower()}"
    return f"of type {str(dtype)}"


def check_routine(routine, dependents, independents, filename, active=None,
                  callee=False, resolve=None, types=None, tangent=False):
    """Check that every construct of `routine` is supported.

    :param active: lower-case names of its active variables (found from
        the routine alone when None).
    :param bool callee: whether the routine is called by the one
        differentiated (a function is then fine).
    :param types: the :class:`adfort.derived.TypeRegistry` (derived types
        are rejected without it).
    :param tangent: for tangent mode, which reverses nothing: ALLOCATE of
        module and dummy arrays and MOVE_ALLOC are then fine.
    :raises AdfortError: at the first unsupported construct.
    """
    if active is None:
        active = active_variables(routine, dependents, independents)
    result = getattr(routine, "return_symbol", None)
    if not tangent and result is not None and getattr(result.datatype, "is_allocatable", False):
        # Its motions would take the result as an argument their replayed
        # ALLOCATE and DEALLOCATE cannot redefine, and free it on return.
        raise AdfortError(
            f"function '{routine.name}' has an ALLOCATABLE result '{result.name}': adfort "
            "cannot differentiate it yet; give the result bounds its arguments set "
            f"({result.name}(n), {result.name}(size(v))) or make the function a subroutine "
            "with an intent(out) array argument", where(routine, filename))
    _check_declared_bounds(routine, filename)
    for block in routine.walk(CodeBlock):
        if jump_kind(block) and block.ancestor((Loop, WhileLoop)) is not None:
            continue  # EXIT/CYCLE: rewritten into structured code
        if is_forward_only(block):
            # I/O and STOP: kept in the forward motions as they are.
            check_forward_only(block, active, filename, routine.symbol_table)
            continue
        if is_character_expression(block):
            check_character_expression(block, filename, routine.symbol_table)
            continue
        if is_nullify(block):
            continue    # of an alias pointer (check_pointers)
        if is_complex_literal(block):
            continue    # a complex constant: refused below if a derivative meets it
        kinds = {type(a).__name__ for a in block.parse_tree_nodes}
        mixed = re.match(r"\s*(max1|min1|amax0|amin0)\s*\(",
                         str(block.parse_tree_nodes[0]), re.IGNORECASE)
        if "Intrinsic_Function_Reference" in kinds and mixed:
            name = mixed.group(1).upper()
            generic = "MAX" if "MAX" in name else "MIN"
            conversion = "INT" if name.endswith("1") else "REAL"
            raise AdfortError(
                f"the FORTRAN 77 intrinsic {name} (a {generic} converted by {conversion}) is "
                f"not supported: write {conversion}({generic}(…)) instead",
                where(block, filename))
        if "Intrinsic_Function_Reference" in kinds:
            raise AdfortError(
                f"cannot tell which form of the intrinsic call "
                f"'{str(block.parse_tree_nodes[0]).strip()}' this is: name its optional "
                "arguments (e.g. SUM(c, dim=1), SIZE(a, dim=2))", where(block, filename))
        if kinds == {"Array_Constructor"}:
            raise AdfortError(
                f"this array constructor (an implied DO or a type spec: "
                f"'{str(block.parse_tree_nodes[0]).strip()}') is not supported: set "
                "the array's elements in a DO loop instead "
                "(do i = 1, n; w(i) = …; end do)", where(block, filename))
        if kinds == {"Pointer_Assignment_Stmt"} and "(" in str(
                block.parse_tree_nodes[0]).split("=>")[0]:
            text = str(block.parse_tree_nodes[0]).strip()
            spec = text.split("=>")[0]
            spec = spec[spec.index("(") + 1:spec.rindex(")")]
            if all(part.strip().endswith(":") for part in spec.split(",")):
                # p(0:) => t(:, 2): new lower bounds, same rank
                raise AdfortError(
                    f"'{text}' gives the pointer new lower bounds and adfort does not "
                    "differentiate that: point at the section as it is (p => t(:, 2)) "
                    "and shift the subscripts, or give the section to a routine whose "
                    "dummy has those bounds (p(0:))", where(block, filename))
            raise AdfortError(
                f"'{text}' remaps the pointer's bounds (rank remapping) and adfort does not "
                "differentiate that: give the target to a routine whose dummy has the "
                "shape wanted (an explicit-shape p(2, n/2) taking buf), or copy with "
                "RESHAPE", where(block, filename))
        # (PSyclone keeps neighbouring statements it cannot read in one
        # block: an I/O statement beside the one refused is not named.)
        refused = [a for a in block.parse_tree_nodes if not is_kept_statement(a)] or \
            block.parse_tree_nodes
        raise AdfortError(
            f"unsupported statement {_describe_codeblock(block, refused)}: adfort cannot "
            "differentiate it; remove it or move it out of the routine",
            where_statement(block, refused[0], filename))
    for stmt in routine.walk(Statement):
        if jump_kind(stmt) or is_forward_only(stmt) or is_nullify(stmt):
            continue
        if is_allocation(stmt) and isinstance(stmt.parent, Schedule):
            _check_allocation(stmt, filename, tangent)
            continue
        if isinstance(stmt.parent, Schedule) and not isinstance(stmt, _SUPPORTED_STATEMENTS):
            raise AdfortError(
                f"{_construct_name(stmt)} is not supported yet: rewrite this part "
                "without it", where(stmt, filename))
    for assign in routine.walk(Assignment):
        element = getattr(assign, "adfort_where_own_element", None)
        if element is not None:
            raise AdfortError(
                f"this WHERE assignment reads an element of the array it assigns "
                f"({element}): compilers disagree on its value (the standard reads it "
                "before any element is assigned, gfortran after the elements before it "
                "are), so no adjoint can match the compiled code; copy the element into "
                "a scalar before the WHERE and use that", where(assign, filename))
    for loop in routine.walk(Loop):
        if "was_where" in loop.annotations and not \
                ("was_where" in getattr(loop.parent.parent, "annotations", ())):
            _check_where(loop, filename)
    for block in routine.walk(IfBlock):
        if expr_rank(block.condition) > 0:
            raise AdfortError(
                "the mask of this WHERE applies an array operation (CSHIFT, MATMUL…) "
                "that PSyclone cannot take element by element: compute the mask into a "
                "logical array first and use that in the WHERE", where(block, filename))
    attributes = {s.name.lower(): declared_attribute(s)
                  for s in routine.symbol_table.datasymbols if declared_attribute(s)}
    check_pointers(routine, filename, attributes)
    for call in routine.walk(Call):
        if isinstance(call, IntrinsicCall):
            continue
        if type(call.routine) is not Reference:
            raise AdfortError(
                f"call of the type-bound procedure '{call.routine.debug_string()}': "
                "adfort does not differentiate type-bound procedures; call the "
                "procedure by its own name", where(call, filename))
        symbol = call.routine.symbol
        if getattr(symbol, "is_argument", False):
            raise AdfortError(
                f"call to '{call.routine.name}', a routine passed as an argument: "
                "adfort cannot know which routine runs; call it directly",
                where(call, filename))
    for ref in routine.walk(Reference):
        if not is_variable(ref):
            raise AdfortError(
                f"'{ref.debug_string()}' ({type(ref).__name__}) is not supported: "
                "only variables can be differentiated", where(ref, filename))
    _check_subscript_counts(routine, filename)
    if not tangent:     # (a tangent takes them elementwise, as the original does)
        _check_vector_subscripts(routine, active, filename)
    for constructor in routine.walk(ArrayConstructor):
        if any(_reaches_active(element, active) for element in constructor.children):
            raise AdfortError(
                f"the array constructor '{constructor.debug_string()}' holds values that "
                "carry derivatives: adfort does not differentiate array constructors yet; "
                "assign the elements one by one (w(1) = …, w(2:n) = …)",
                where(constructor, filename))
    _check_types(routine, filename, resolve, types, active)
    if types is not None:
        check_derived(routine, active, filename, types)
    _check_statement_functions(routine, filename)
    if active is None:
        active = active_variables(routine, dependents, independents)
    symbol_of = _declared_symbol(resolve)
    for assign in routine.walk(Assignment):
        _check_expression(assign.rhs, active, filename, tangent, symbol_of)
    for call in routine.walk(Call):
        if isinstance(call, IntrinsicCall):
            if isinstance(call.parent, Schedule) and not is_allocation(call) and not (
                    tangent and call.intrinsic.name == "MOVE_ALLOC"):
                _check_intrinsic_subroutine(call, filename)
        elif not (isinstance(call.parent, Assignment) and call is call.parent.rhs):
            # Arguments of subroutine calls and of functions inside
            # expressions (an assignment's right-hand side was checked).
            for arg in call.arguments:
                _check_expression(arg, active, filename, tangent, symbol_of)


def _declared_symbol(resolve):
    """``symbol_of(reference)``: the symbol whose declaration gives the
    type of `reference` (a module variable's, seen through a USE)."""
    def symbol_of(reference):
        symbol = reference.symbol
        if (not isinstance(symbol, DataSymbol) or symbol.is_unresolved
                or symbol.is_import and isinstance(symbol.datatype, UnresolvedType)) \
                and resolve:
            _, found = resolve(symbol.name) or (None, None)
            symbol = found or symbol
        return symbol
    return symbol_of


def check_polymorphic_dummies(unit, activity, filename):
    """Refuse a value carrying derivatives given to a polymorphic dummy
    (``class(col_t) :: self``) of a routine of the call tree: activity sees
    no real value in it, so the call would pass no derivative.

    :raises AdfortError: at the call, naming the dummy.
    """
    for call in unit.work.walk(Call):
        callee = unit.calls.get(id(call))
        if callee is None or getattr(callee, "opaque", False):
            continue
        for formal, actual in zip(callee.formals, call.arguments):
            if is_variable(actual) and unsupported_declaration(formal) and \
                    activity.is_active(unit, actual.symbol):
                # (The working copy's call may have lost its line.)
                text = call.debug_string().lower()
                call = next((c for c in unit.original.walk(Call)
                             if c.debug_string().lower() == text), call)
                raise AdfortError(
                    f"'{actual.debug_string()}' carries derivatives and is given to "
                    f"'{formal.name}' of '{callee.name}', {unsupported_declaration(formal)}: "
                    "polymorphism is not supported; declare the dummy with TYPE(…)",
                    where(call, filename))


def check_renamed_active(unit, activity, filename):
    """Refuse a module variable carrying derivatives that `unit` imports
    under another name (``use m, only: local => original``): its adjoint is
    known by the module's name only (constants and passive variables may be
    renamed).

    :raises AdfortError: at the routine, naming both names.
    """
    active = activity.active_modules()
    for name, (module, original) in sorted(unit.renamed_module_variables().items()):
        if (module, original) in active:
            raise AdfortError(
                f"the module variable '{module}::{original}' carries derivatives and "
                f"'{unit.name}' uses it under the name '{name}': adfort does not follow "
                f"this rename; use it as '{original}'", where(unit.original, filename))


def check_component_allocations(unit, activity, filename):
    """Refuse an active local of `unit` with allocatable components (its
    adjoint's components are allocated where the local's are, by the
    ALLOCATE and DEALLOCATE statements of `unit`) when something else
    allocates them: a whole assignment to it, or a callee (or what it
    calls) allocating or freeing components of one of its dummies.

    :raises AdfortError: at the statement, naming the variable.
    """
    from adfort.components import allocatable_components
    work = unit.work
    locals_ = {s.name.lower() for s in work.symbol_table.datasymbols
               if not s.is_argument and is_derived(s.datatype)
               and allocatable_components(s.datatype) and activity.is_active(unit, s)}
    if not locals_:
        return
    for assign in work.walk(Assignment):
        if type(assign.lhs) is Reference and assign.lhs.symbol.name.lower() in locals_:
            raise AdfortError(
                f"'{assign.debug_string().strip()}' assigns the whole of '{assign.lhs.name}', "
                "a local with allocatable components that carries derivatives: the "
                "assignment may allocate them, and adfort allocates the adjoint's only "
                "where ALLOCATE does; assign its components instead",
                where(assign, filename))
    for call in work.walk(Call):
        callee = unit.calls.get(id(call))
        if callee is None or not any(
                r.symbol.name.lower() in locals_ for a in call.arguments
                for r in a.walk(Reference)):
            continue
        allocating = _allocates_dummy_components(callee, set())
        if allocating is not None:
            raise AdfortError(
                f"the call to '{call.routine.name}' passes a local with allocatable "
                f"components that carries derivatives, and '{allocating}' allocates or "
                "frees components of its dummy: adfort allocates the adjoint's components "
                "only where the local's own routine does; allocate them there",
                where(call, filename))


def _allocates_dummy_components(unit, seen):
    """The name of a routine in `unit`'s call tree that allocates or frees
    a component of one of its dummies, or None."""
    if id(unit) in seen or getattr(unit, "work", None) is None:
        return None
    seen.add(id(unit))
    for node in unit.work.walk(IntrinsicCall):
        if node.intrinsic.name in ("ALLOCATE", "DEALLOCATE", "MOVE_ALLOC") and any(
                type(a) in STRUCTURE_REFERENCES and a.symbol.is_argument
                for a in node.arguments if isinstance(a, Reference)):
            return unit.name
    for callee in unit.calls.values():
        if callee is not None:
            found = _allocates_dummy_components(callee, seen)
            if found is not None:
                return found
    return None


def _check_where(loop, filename):
    """A WHERE is read as loops over its elements (PSyclone's lowering),
    which is the WHERE only if each element's values are taken element by
    element: no array it assigns may be read whole or at other elements
    (``ww = ww*sum(ww)``, ``a = cshift(a, 1)``), and every right-hand side
    must be indexable."""
    nested = next((inner for inner in loop.walk(Loop)[1:] if "was_where" in inner.annotations),
                  None)
    if nested is not None:
        # PSyclone reads it as a loop nest: the inner WHERE runs whole for
        # every element of the outer mask (y = y*v applied again and again;
        # r_rev's results and derivatives were silently wrong).
        raise AdfortError(
            "nested WHERE constructs are not supported: combine the masks into one "
            "WHERE (where (m1 .and. m2)), or write the loop over the elements",
            where(nested.walk(Assignment)[0] if nested.walk(Assignment) else nested,
                  filename))
    assigned = {}
    for assign in loop.walk(Assignment):
        assigned.setdefault(assign.lhs.symbol, assign.lhs.debug_string().lower())
    reads = [(a, a.rhs, expr_rank(a.rhs) > expr_rank(a.lhs)) for a in loop.walk(Assignment)]
    reads += [(b, b.condition, False) for b in loop.walk(IfBlock)]  # the masks
    for statement, expr, bad in reads:
        for call in expr.walk(IntrinsicCall):
            # An array argument PSyclone turned into an element.
            if not call.intrinsic.is_elemental and not call.intrinsic.is_inquiry and \
                    call.arguments and expr_rank(call.arguments[0]) == 0:
                bad = True
        for ref in expr.walk(Reference):
            if ref.symbol in assigned and ref.debug_string().lower() != assigned[ref.symbol]:
                bad = True
        if bad:
            raise AdfortError(
                "this WHERE assigns an array it also reads as a whole or at other "
                "elements, or takes an array operation (SUM, CSHIFT, EOSHIFT…) that "
                "cannot be done element by element: PSyclone's translation into loops "
                "would compute other values; assign the right-hand side to another "
                "array first", where(statement, filename))


def _check_allocation(stmt, filename, tangent=False):
    for name, arg in zip(stmt.argument_names, stmt.arguments):
        if name is None:
            continue
        if tangent and name.lower() in ("source", "mold"):
            continue    # tangent mode gives the tangent SOURCE='s tangent
        if name.lower() not in ("stat", "errmsg") or not is_variable(arg) or \
                is_real_value(arg):
            raise AdfortError(
                f"{stmt.intrinsic.name} with {name.lower()}= is not supported (only stat= and "
                "errmsg= with an integer or character variable): allocate plain arrays "
                "and assign their values after", where(stmt, filename))
    for arg in allocation_arguments(stmt):
        symbol = getattr(arg, "symbol", None)
        declaration = getattr(getattr(symbol, "datatype", None), "declaration", "") or ""
        if symbol is not None and not symbol.is_argument and \
                re.search(r",\s*target\b", declaration, re.IGNORECASE) and \
                declaration.lstrip().lower().startswith(("type", "class")):
            raise AdfortError(
                f"{stmt.intrinsic.name} of '{arg.debug_string()}': a derived-type local "
                f"declared TARGET ('{symbol.name}') is not supported when it has "
                "allocatable components; drop TARGET (point to a plain array instead)",
                where(stmt, filename))
        if symbol is None or (not tangent and (symbol.is_argument or not symbol.is_automatic)):
            raise AdfortError(
                f"{stmt.intrinsic.name} of '{arg.debug_string()}': only local "
                "allocatable arrays can be allocated in a differentiated routine",
                where(stmt, filename))


def _construct_name(stmt):
    if isinstance(stmt, IntrinsicCall):
        return f"{stmt.intrinsic.name} statement"
    names = {"Call": "CALL statement", "Return": "RETURN statement"}
    return names.get(type(stmt).__name__, type(stmt).__name__)


def _parameterized(type_symbol, routine):
    """Whether the type `type_symbol` names is defined with type parameters
    (``type pt(k)``) where `routine` sees it (PSyIR keeps it as text)."""
    node = routine
    while node is not None:
        table = getattr(node, "_symbol_table", None)
        found = table.lookup(type_symbol.name, otherwise=None, scope_limit=node) \
            if table is not None else None
        if found is not None:
            text = str(getattr(getattr(found, "datatype", None), "declaration", ""))
            return bool(re.match(r"\s*type\b[^:\n]*?(?:::)?\s*\w+\s*\(", text,
                                 re.IGNORECASE))
        node = node.parent
    return False


def _check_types(routine, filename, resolve=None, types=None, active=None):
    """Reject references whose type adfort cannot see (implicit typing…).

    :param resolve: ``resolve(name)`` gives (module name, DataSymbol) of a
        module variable the routine sees through a ``use`` (or None).
    """
    for ref in routine.walk(Reference):
        if isinstance(ref.parent, Call) and ref is ref.parent.routine:
            continue
        symbol, module = ref.symbol, None
        if (not isinstance(symbol, DataSymbol) or symbol.is_unresolved
                or symbol.is_import and isinstance(symbol.datatype, UnresolvedType)) \
                and resolve:
            # Seen through a USE: its module's declaration gives the type.
            module, found = resolve(symbol.name) or (None, None)
            symbol = found or symbol
        dtype = getattr(symbol, "datatype", None)
        declaration = getattr(dtype, "declaration", None)
        unreadable = declaration
        if unsupported_declaration(symbol):
            raise AdfortError(
                f"'{symbol.name}' is {unsupported_declaration(symbol)} "
                f"('{declaration.strip()}'): polymorphism is not supported; declare it "
                "with TYPE(…)", where(ref, filename))
        if declared_attribute(symbol):
            # POINTER/TARGET kept as text (a module's variable is not
            # lowered like the routine's own): the type is the partial one.
            dtype, unreadable = dtype.partial_datatype, None
        if types is not None and is_derived(dtype):
            element = dtype.elemental_type if isinstance(dtype, ArrayType) else dtype
            home = types.program.module(module) if module and types.program else None
            if types.resolve(element.name, routine) is None and (
                    home is None or types.resolve(element.name, home) is None):
                text = declaration or getattr(getattr(symbol, "datatype", None),
                                              "declaration", "") or ""
                if re.match(r"\s*type\s*\(\s*\w+\s*\(", text, re.IGNORECASE) or \
                        _parameterized(element, routine):
                    raise AdfortError(
                        f"'{symbol.name}' is of a parameterized derived type "
                        f"('{element.name}'): parameterized types are not supported; "
                        "give the type fixed kinds and lengths", where(ref, filename))
                raise AdfortError(
                    f"the definition of type '{element.name}' of '{symbol.name}' is not "
                    "in the files adfort reads: give the file of its module after the "
                    "main file, or its directory with -I", where(ref, filename))
            continue
        if is_complex(symbol) and active is not None and \
                symbol.name.lower() not in active:
            continue  # passive complex values are kept as they are
        if is_complex(symbol):
            raise AdfortError(
                f"'{symbol.name}' is complex ('{declaration.strip()}') and carries a "
                "derivative here: complex active values are not supported; hold real and "
                "imaginary parts in real variables",
                where(ref, filename))
        if unreadable and re.match(r"\s*character\s*\(\s*(?:len\s*=\s*)?:\s*\)",
                                   declaration, re.IGNORECASE):
            raise AdfortError(
                f"'{symbol.name}' is a character of deferred length ('{declaration.strip()}'): "
                "adfort cannot keep its values for the returning motion; give it a fixed "
                "length (character(len=256) :: …), or compute it outside the routine",
                where(ref, filename))
        if unreadable:
            raise AdfortError(
                f"'{symbol.name}' has a declaration adfort cannot differentiate "
                f"('{declaration.strip()}': pointers, derived types and other "
                "attributes are not supported); use a plain variable",
                where(ref, filename))
        if not isinstance(symbol, DataSymbol) or not hasattr(dtype, "intrinsic"):
            raise AdfortError(
                f"the type of '{symbol.name}' is unknown (implicitly typed or "
                "from a module adfort cannot see): declare it explicitly",
                where(ref, filename))
        if dtype.intrinsic not in (ScalarType.Intrinsic.REAL,
                                   ScalarType.Intrinsic.INTEGER,
                                   ScalarType.Intrinsic.BOOLEAN,
                                   ScalarType.Intrinsic.CHARACTER):
            raise AdfortError(
                f"'{symbol.name}' has type {dtype.intrinsic.name.lower()}, "
                "which adfort does not differentiate", where(ref, filename))


def _check_statement_functions(routine, filename):
    """Reject F77 statement functions (``f(t) = …``), which PSyIR reads as
    assignments to elements of a scalar: nothing would differentiate them."""
    for assign in routine.walk(Assignment):
        lhs = assign.lhs
        dtype = getattr(lhs.symbol, "datatype", None)
        if (isinstance(lhs, ArrayReference) and isinstance(dtype, ScalarType)
                and dtype.intrinsic != ScalarType.Intrinsic.CHARACTER):
            raise AdfortError(
                f"statement function '{assign.debug_string().strip()}': adfort does "
                "not differentiate statement functions; write the expression in "
                "place or make it a contained function", where(assign, filename))


_ARITHMETIC = ("ADD", "SUB", "MUL", "DIV", "POW", "MINUS", "PLUS")


def _check_expression(expr, active, filename, tangent=False, symbol_of=None, _memo=None):
    """Every operation a derivative flows through must have a rule, and
    every active value an intrinsic takes must be one it can pass on (in
    tangent mode when `tangent`); none may be complex or take a complex
    operand."""
    # (What each operand reaches or is, found once per node: asking it again
    # at every level of a long sum was quadratic in its terms.)
    memo = _memo if _memo is not None else ({}, {})
    if isinstance(expr, Call) and not isinstance(expr, IntrinsicCall):
        for arg in expr.arguments:   # a user function: its arguments
            _check_expression(arg, active, filename, tangent, symbol_of, memo)
        return
    if not isinstance(expr, _OPERATIONS):
        return
    name = operation_name(expr)
    args = operands(expr)
    indices = differentiable_args(expr)
    if (isinstance(expr, IntrinsicCall) or name in _ARITHMETIC) and \
            any(_reaches_active(args[i], active, memo[0]) for i in indices):
        problem = rules.unsupported(name, [E(a) for a in args], argument_names(expr),
                                    tangent)
        if problem:
            raise AdfortError(f"{problem} (in '{expr.debug_string()}')",
                              where(expr, filename))
        _check_complex(expr, args, indices, active, filename, symbol_of, memo)
    for i in indices:
        _check_expression(args[i], active, filename, tangent, symbol_of, memo)


def _check_complex(expr, args, indices, active, filename, symbol_of, memo):
    """An operation a derivative flows through whose value or one of whose
    operands is complex (``iu*x`` with a complex constant ``iu``,
    ``real(exp(zk*x))``, ``abs(x + iu*w)``): the rules are those of real
    values, so its derivative would be wrong."""
    reach, complex_ = memo
    carrier = next(args[i] for i in indices if _reaches_active(args[i], active, reach))
    if is_complex_value(expr, symbol_of, complex_):
        what = (f"'{expr.debug_string()}' is complex and carries a derivative (from "
                f"'{carrier.debug_string()}')")
    else:
        operand = next((a for a in args if is_complex_value(a, symbol_of, complex_)), None)
        if operand is None:
            return
        if _reaches_active(operand, active, reach):
            what = (f"'{operand.debug_string()}' is complex and carries a derivative "
                    f"(in '{expr.debug_string()}')")
        else:
            what = (f"'{expr.debug_string()}' combines '{carrier.debug_string()}', which "
                    f"carries a derivative, with the complex '{operand.debug_string()}'")
    raise AdfortError(
        f"{what}: complex active values are not supported; hold the real and imaginary "
        "parts in real variables and write the complex arithmetic with them",
        where(expr, filename))


def _reaches_active(expr, active, memo=None):
    """Whether a derivative can flow from an active variable into `expr`
    (an operation without a rule counts as passing it, a user function's
    result as active: it may depend on module variables).

    :param memo: {id(node): answer} of the nodes already asked.
    """
    if isinstance(expr, Call) and not isinstance(expr, IntrinsicCall):
        return True
    if is_variable(expr):
        # (Only real variables are active; an imported one may be unresolved here.)
        return expr.symbol.name.lower() in active
    if isinstance(expr, _OPERATIONS):
        if memo is not None and id(expr) in memo:
            return memo[id(expr)]
        args = operands(expr)
        found = any(_reaches_active(args[i], active, memo) for i in differentiable_args(expr))
        if memo is not None:
            memo[id(expr)] = found
        return found
    return False


def check_protected_writes(routine, protected, filename):
    """A module variable declared PROTECTED that `routine` (differentiated)
    assigns: its motions, in another module, could not.

    :param protected: lower-case names of the PROTECTED variables read.
    :raises AdfortError: at the assignment.
    """
    if not protected:
        return
    for assignment in routine.walk(Assignment):
        symbol = assignment.lhs.symbol
        if symbol.name.lower() not in protected:
            continue
        owner = symbol.find_symbol_table(assignment)
        if owner is not None and owner.node is not None and owner.node.ancestor(
                Routine, include_self=True) is not None and not symbol.is_import \
                and not symbol.is_unresolved:
            continue    # a local variable of the same name
        raise AdfortError(
            f"'{symbol.name}' is a PROTECTED module variable that this routine assigns: the "
            "routines adfort generates, in another module, cannot change it; drop PROTECTED "
            "from its declaration or set it outside the routine differentiated",
            where(assignment, filename))


def check_value_dummies(routine, names, filename, reads_only=None):
    """A VALUE dummy (whose attribute the front end dropped) that `routine`
    changes: by reference, the change would reach the caller.

    :param names: lower-case names of the routine's VALUE dummies.
    :param reads_only: ``reads_only(call, position)``: whether the dummy
        the actual argument at `position` of a user call goes to is only
        read (INTENT(IN), or VALUE itself); unknown calls change it.
    :raises AdfortError: at the statement changing one.
    """
    names = set(names) & {s.name.lower() for s in routine.symbol_table.argument_list}
    if not names:
        return
    changing = [(a, a.lhs.symbol.name) for a in routine.walk(Assignment)
                if a.lhs.symbol.name.lower() in names]
    changing += [(lp, lp.variable.name) for lp in routine.walk(Loop)
                 if lp.variable.name.lower() in names]
    for call in routine.walk(Call):
        if isinstance(call, IntrinsicCall):
            continue
        for position, actual in enumerate(call.arguments):
            if isinstance(actual, Reference) and actual.symbol.name.lower() in names and \
                    not (reads_only is not None and reads_only(call, position)):
                changing.append((call, actual.symbol.name))
    if changing:
        node, name = min(changing, key=lambda found: found[0].abs_position)
        raise AdfortError(
            f"the VALUE dummy '{name}' of '{routine.name}' may be changed here: adfort "
            "passes every argument by reference, so the change would reach the caller; "
            f"copy '{name}' into a local variable and change that", where(node, filename))


def check_active_workspaces(routine, dependents, independents, active, filename):
    """An assumed-size dummy of the routine differentiated that carries
    derivatives but is neither dependent nor independent (an F77
    workspace ``W(*)``): its adjoint would be a local array of unknown
    size.

    :raises AdfortError: at the routine, naming the dummy.
    """
    roles = {n.lower() for n in list(dependents) + list(independents)}
    for symbol in routine.symbol_table.argument_list:
        name = symbol.name.lower()
        if name in active and name not in roles and is_assumed_size(symbol):
            raise AdfortError(
                f"'{symbol.name}' is an assumed-size dummy ({_declared_shape(symbol)}) that "
                "carries derivatives (a workspace?) but is neither a dependent nor an "
                "independent: its adjoint would be a local array of unknown size; declare "
                f"it with explicit bounds (e.g. {_declared_shape(symbol).replace('*', 'n')}) "
                "or name it as a dependent or independent", where(routine, filename))


def _check_subscript_counts(routine, filename):
    """A variable given more subscripts than it has dimensions (``x(1)`` of
    a scalar ``x``; a substring range of a character excepted): gfortran
    rejects it, and an unknown function taken for a variable looks so.

    :raises AdfortError: at the reference.
    """
    for ref in routine.walk(ArrayReference):
        symbol = ref.symbol
        dtype = getattr(symbol, "datatype", None)
        if not isinstance(symbol, DataSymbol) or not isinstance(dtype, (ScalarType,
                                                                         ArrayType)):
            continue
        if len(ref.indices) <= symbol_rank(symbol) or is_substring(ref):
            continue
        rank = symbol_rank(symbol)
        shape = "a scalar" if rank == 0 else f"an array of rank {rank}"
        raise AdfortError(
            f"'{ref.debug_string()}' gives {len(ref.indices)} subscript"
            f"{'s' if len(ref.indices) > 1 else ''} to '{symbol.name}', declared as {shape} "
            "(gfortran rejects it): fix the subscripts, or if it is a function without a "
            "declaration adfort can see, declare it EXTERNAL or give its source",
            where(ref, filename))


def _declared_shape(symbol):
    """``a(lda, *)``: `symbol` with its declared bounds, for messages."""
    from adfort.writer import Writer
    declaration = Writer().gen_vardecl(symbol).strip()
    bounds = re.search(r"dimension\((.*?)\)\s*(?:,|::)", declaration, re.IGNORECASE)
    if bounds is None:
        return f"{symbol.name}(*)"
    return f"{symbol.name}({bounds.group(1).replace(naming.ASSUMED_SIZE, '*')})"


def _check_vector_subscripts(routine, active, filename):
    """An active array subscripted by an integer array (``x(idx)``): the
    transformations take such a reference for one element or a section, so
    its adjoint would go to the wrong elements (or not compile), and a
    repeated index would have to accumulate.  Passive arrays are fine, and
    so is an array element ``x(idx(i))``.

    :raises AdfortError: at the reference, suggesting a DO loop.
    """
    for ref in routine.walk(Reference):
        if ref.symbol.name.lower() not in active or is_shape_inquiry(ref):
            continue
        index = vector_subscript(ref)
        if index is None:
            continue
        text = index.debug_string()
        idx = text if type(index) is Reference else "idx"
        name = ref.symbol.name
        if isinstance(ref.parent, Call) and not isinstance(ref.parent, IntrinsicCall):
            fix = (f"copy the elements into a local array in a DO loop (do i = 1, "
                   f"size({idx}); t(i) = {name}({idx}(i)); end do), pass that, and copy "
                   "it back the same way if the callee changes it")
        else:
            fix = (f"write a DO loop over the index array that takes one element at a "
                   f"time (do i = 1, size({idx}); y(i) = {name}({idx}(i)); end do)")
        raise AdfortError(
            f"'{ref.debug_string()}' subscripts '{name}', which carries derivatives, with "
            f"the integer array '{text}' (a vector subscript): adfort does not "
            f"differentiate vector subscripts; {fix}", where(ref, filename))


def _check_intrinsic_subroutine(call, filename):
    """``CALL RANDOM_NUMBER(r)``, ``CALL CPU_TIME(t)`` and the like: not
    supported in a differentiated routine (PSyclone's copy of the routine,
    which adfort transforms, no longer knows them as intrinsics)."""
    raise AdfortError(
        f"CALL {call.intrinsic.name} (an intrinsic subroutine) is not supported "
        "in a differentiated routine: call it outside and pass its results in "
        "as arguments", where(call, filename))
