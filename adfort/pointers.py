"""Pointers used as aliases: ``p => a(:, k)`` then reading and writing ``p``.

PSyIR keeps ``POINTER`` and ``TARGET`` declarations as text; the working
copies of the differentiated routines get the plain types instead
(:func:`lower_declarations`) and the attributes come back on the generated
routines' declarations (:func:`restore_attributes`), the adjoints' too:
the adjoint of a target is a target, the adjoint of a pointer a pointer.

The adjoint of ``p => a(:, k)`` is ``p_adj => a_adj(:, k)``.  The returning
motion re-associates both pointers where the reversed statements of the
association's *lifetime* (the statements after it in its block, up to the
next association of the same pointer) begin, from the same subscripts: the
fence makes sure those subscripts do not change during the lifetime, and
that the pointer is used only inside lifetimes, so the association is
always the one the recording motion had.
"""

import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, CodeBlock, IntrinsicCall, Loop, Reference, Routine, Schedule)
from psyclone.psyir.symbols import UnsupportedFortranType

from adfort.errors import AdfortError, where
from adfort.units import split_top_level

_ATTRIBUTES = ("POINTER", "TARGET")


def declared_attribute(symbol):
    """``"POINTER"`` or ``"TARGET"`` for a variable declared with that
    attribute whose type is otherwise plain, else None."""
    dtype = getattr(symbol, "datatype", None)
    if not isinstance(dtype, UnsupportedFortranType) or dtype.partial_datatype is None:
        return None
    text = dtype.declaration.split("::")[0].upper()
    attributes = [a.strip() for a in split_top_level(text)[1:]]
    found = [a for a in attributes if a in _ATTRIBUTES]
    if len(found) != 1:
        return None
    return found[0]


def lower_declarations(work):
    """Give the pointers and targets of the working copy `work` their plain
    types; return {lower-case name: attribute}."""
    attributes = {}
    for symbol in work.symbol_table.datasymbols:
        attribute = declared_attribute(symbol)
        if attribute is not None:
            symbol.datatype = symbol.datatype.partial_datatype
            attributes[symbol.name.lower()] = attribute
    return attributes


def restore_attributes(table, attributes):
    """Declare the variables of `table` named in `attributes` with their
    attribute again (a pointer is never allocatable as well)."""
    from adfort.writer import Writer
    writer = Writer()
    for symbol in table.datasymbols:
        attribute = attributes.get(symbol.name.lower())
        if attribute is None or isinstance(symbol.datatype, UnsupportedFortranType):
            continue
        head, _, tail = writer.gen_vardecl(symbol).strip().partition("::")
        if attribute == "POINTER":
            head = re.sub(r",\s*allocatable\b", "", head, flags=re.IGNORECASE)
        text = f"{head.rstrip()}, {attribute.lower()} ::{tail}"
        symbol.datatype = UnsupportedFortranType(text, partial_datatype=symbol.datatype)


def aliases(routine):
    """{pointer name: name of the variable it points into} (lower case)."""
    found = {}
    for assign in routine.walk(Assignment):
        if assign.is_pointer and isinstance(assign.rhs, Reference):
            found[assign.lhs.symbol.name.lower()] = assign.rhs.symbol.name.lower()
    return found


def canonical(name, alias):
    """The name of the storage `name` refers to (through pointers)."""
    seen = set()
    while name in alias and name not in seen:
        seen.add(name)
        name = alias[name]
    return name


def target_reads(assign):
    """Lower-case names the target of a pointer assignment reads (its
    subscripts), which re-associating it in the returning motion needs."""
    names = set()
    if isinstance(assign.rhs, ArrayReference):
        for index in assign.rhs.indices:
            for ref in index.walk(Reference):
                parent = ref.parent
                if isinstance(parent, IntrinsicCall) and parent.arguments and \
                        parent.arguments[0] is ref and parent.intrinsic.name in (
                            "LBOUND", "UBOUND", "SIZE"):
                    continue
                names.add(ref.symbol.name.lower())
    return names


def lifetime_end(statements, position):
    """Index in `statements` of the last statement of the lifetime of the
    pointer assignment at `position`."""
    pointer = statements[position].lhs.symbol.name.lower()
    for later in range(position + 1, len(statements)):
        stmt = statements[later]
        if isinstance(stmt, Assignment) and stmt.is_pointer and \
                stmt.lhs.symbol.name.lower() == pointer:
            return later - 1
        if pointer in nullified(stmt):
            return later
    return len(statements) - 1


def is_nullify(node):
    """Whether `node` is a NULLIFY statement (PSyclone keeps it opaque)."""
    if isinstance(node, IntrinsicCall):
        return node.intrinsic.name == "NULLIFY"
    return isinstance(node, CodeBlock) and bool(node.parse_tree_nodes) and all(
        type(ast).__name__ == "Nullify_Stmt" for ast in node.parse_tree_nodes)


def nullified(node):
    """Lower-case names of the pointers a NULLIFY statement disassociates
    (none for any other statement; a component ``s%p`` is named whole)."""
    if not is_nullify(node):
        return set()
    if isinstance(node, IntrinsicCall):
        return {a.symbol.name.lower() for a in node.arguments if isinstance(a, Reference)}
    names = set()
    for ast in node.parse_tree_nodes:
        for item in str(ast).strip()[len("NULLIFY"):].strip().strip("()").split(","):
            names.add(item.strip().lower())
    return names


def check_pointers(routine, filename, attributes):
    """Reject the pointer uses adfort cannot reverse, naming file:line.

    :param attributes: {lower-case name: "POINTER"/"TARGET"} of the
        routine's variables.
    """
    pointers = {n for n, a in attributes.items() if a == "POINTER"}
    table = routine.symbol_table
    # A pointer dummy keeps the caller's association throughout (the routine
    # never re-associates it: checked below), so it reads and writes the
    # caller's target like an assumed-shape dummy; its adjoint is a pointer
    # dummy the caller associates with the target's adjoint.
    dummies = {n for n in pointers if table.lookup(n).is_argument}
    for assign in routine.walk(Assignment):
        if assign.is_pointer and assign.lhs.symbol.name.lower() in dummies:
            raise AdfortError(
                f"pointer dummy argument '{assign.lhs.symbol.name}' re-associated in "
                f"'{routine.name}': adfort differentiates pointer dummies that keep the "
                "caller's association; associate a local pointer instead",
                where(assign, filename))
    for block in routine.walk(CodeBlock):
        changed = sorted(nullified(block) & dummies)
        if changed:
            raise AdfortError(
                f"NULLIFY of the pointer dummy argument '{changed[0]}': adfort "
                "differentiates pointer dummies that keep the caller's association",
                where(block, filename))
    for call in routine.walk(IntrinsicCall):
        if call.intrinsic.name in ("ALLOCATE", "DEALLOCATE") and any(
                getattr(a, "symbol", None) is not None and a.symbol.name.lower() in pointers
                for a in call.arguments):
            raise AdfortError(
                f"{call.intrinsic.name} of a pointer: adfort differentiates pointers "
                "used as aliases of target variables only; allocate an allocatable "
                "array and point to it", where(call, filename))
    for block in routine.walk(CodeBlock):
        unknown = sorted(nullified(block) - pointers)
        if unknown:
            raise AdfortError(
                f"NULLIFY of '{unknown[0]}': adfort differentiates NULLIFY of pointer "
                "variables used as aliases only", where(block, filename))
    lifetimes = {}  # id(statement) -> pointers associated while it runs
    for assign in routine.walk(Assignment):
        if not assign.is_pointer:
            continue
        text = assign.debug_string().strip()
        block = assign.parent
        if not isinstance(block, Schedule) or not isinstance(block.parent, (Routine, Loop)) \
                and block is not routine:
            raise AdfortError(
                f"pointer assignment '{text}' inside an IF or DO WHILE: adfort cannot "
                "tell which association the reversed code needs; associate the pointer "
                "before the IF (or in the enclosing DO loop's body)",
                where(assign, filename))
        rhs = assign.rhs
        if type(rhs) not in (Reference, ArrayReference) or not (
                attributes.get(rhs.symbol.name.lower()) == "TARGET"
                or rhs.symbol.name.lower() in dummies):
            raise AdfortError(
                f"pointer assignment '{text}': the target must be a local variable or "
                "dummy argument of the routine declared TARGET (or a section of one) or a "
                "pointer dummy argument; pointers to module variables, local pointers, "
                "components and expressions are not supported (pass the module array as "
                "a TARGET argument)",
                where(assign, filename))
        statements = list(block.children)
        position = statements.index(assign)
        end = lifetime_end(statements, position)
        subscripts = target_reads(assign)
        for stmt in statements[position + 1:end + 1]:
            lifetimes.setdefault(id(stmt), set()).add(assign.lhs.symbol.name.lower())
            for node in stmt.walk(Assignment):
                if node.lhs.symbol.name.lower() in subscripts:
                    raise AdfortError(
                        f"'{node.lhs.symbol.name}' changes while the pointer of '{text}' "
                        "is associated with the section it selects: adfort re-associates "
                        "the pointer from that subscript in the reversed code; use "
                        "another variable", where(node, filename))
            for loop in stmt.walk(Loop):
                if loop.variable.name.lower() in subscripts:
                    raise AdfortError(
                        f"'{loop.variable.name}' changes while the pointer of '{text}' "
                        "is associated: re-associate the pointer inside the loop",
                        where(loop, filename))
    for ref in routine.walk(Reference):
        name = ref.symbol.name.lower()
        if name not in pointers or name in dummies:
            continue
        parent = ref.parent
        if isinstance(parent, Assignment) and parent.is_pointer and parent.lhs is ref:
            continue
        node, inside = ref, False
        while node is not None and not inside:
            inside = name in lifetimes.get(id(node), ())
            node = node.parent
        if not inside:
            raise AdfortError(
                f"the pointer '{ref.symbol.name}' is used where adfort cannot tell which "
                "association it has (before its association in the same block, or after "
                "the block that associates it): associate it in the block that uses it",
                where(ref, filename))
