"""Elemental procedures applied to arrays, rewritten as loops over elements.

A reference to an elemental function or subroutine with array actual
arguments means the procedure applied to each element in array element
order (Fortran 2008, 12.8).  adfort reverses calls one scalar call at a
time, so the working copy spells that order out: a loop nest whose
innermost loop runs over the first dimension.  A function's values go to
an array of the shape of its arguments first, as the elemental reference
is evaluated whole before the expression that uses it.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, IntrinsicCall, Literal, Loop, Member,
    Range, Reference, StructureMember, StructureReference, UnaryOperation, WhileLoop)
from psyclone.psyir.symbols import ArrayType, ScalarType

from adfort import naming
from adfort.arrays import expr_rank, symbol_rank
from adfort.exprs import INTEGER_TYPE, intrinsic_call
from adfort.optional import callee_formals, matched_formals
from adfort.symbols import new_local

BinOp = BinaryOperation.Operator


def expand_elemental(call, statement, datatype, callee, table, taken, calls,
                     function_type=None):
    """Apply the elemental procedure of `call` element by element when it
    is given arrays.  ``y = 2*f(x)`` with ``x`` of rank 2 becomes
    ``allocate(f_value(size(x, 1), size(x, 2)))``, a loop nest setting
    ``f_value(i, j) = f(x(lbound(x, 1) + i - 1, lbound(x, 2) + j - 1))``,
    ``y = 2*f_value`` and ``deallocate(f_value)``; ``call s(a, b)`` becomes
    the loop nest calling ``s`` on elements.

    :param datatype: the function's result type, None for a subroutine.
    :param calls: {id(Call): callee}, given the new element calls.
    :param function_type: ``function_type(call)``, the result type of a
        function of the user (for a statement holding several).
    :returns: the new call on elements, or None when `call` is not an
        elemental reference on arrays or one adfort cannot index.
    """
    subroutine = call is statement
    if callee is None or isinstance(statement, WhileLoop):
        return None
    if not subroutine and datatype is None:
        return None
    arguments = list(call.arguments)
    formals = matched_formals(call, callee_formals(callee))
    if not any(expr_rank(a) > 0 and f is not None and symbol_rank(f) == 0
               for a, f in zip(arguments, formals)):
        return None
    arrays = [a for a in arguments if expr_rank(a) > 0]
    rank = expr_rank(arrays[0])
    if any(expr_rank(a) != rank for a in arrays) or any(f is None for f in formals):
        return None
    indices = [new_local(table, naming.ELEMENT_INDEX, INTEGER_TYPE, taken)
               for _ in range(rank)]
    elements = [element(a, indices) for a in arguments]
    if any(e is None for e in elements):
        for index in indices:
            table._symbols.pop(table._normalize(index.name))
        return None
    element_call = Call.create(call.routine.copy(), [
        (name, part) if name else part for name, part in zip(call.argument_names, elements)])
    calls[id(element_call)] = callee
    # The extents come from a variable where there is one: SIZE of an
    # expression would evaluate it.
    extent_of = next((a for a in arrays if isinstance(a, Reference)), arrays[0])
    counts = [IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [
        extent_of.copy(), ("dim", Literal(str(d + 1), INTEGER_TYPE))]) for d in range(rank)]
    parent, position = statement.parent, statement.position
    if subroutine:
        statement.replace_with(_nest(indices, counts, element_call))
        return element_call
    whole = _whole_statement(statement, indices, counts, table, taken, calls,
                             function_type) if function_type is not None else None
    if whole is not None:
        return whole
    scalar = getattr(datatype, "elemental_type", datatype)
    temp = new_local(table, naming.function_value(call.routine.name),
                     ArrayType(scalar, [ArrayType.Extent.DEFERRED] * rank), taken)
    store = Assignment.create(
        ArrayReference.create(temp, [Reference(i) for i in indices]), element_call)
    allocate = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
        ArrayReference.create(temp, [c.copy() for c in counts])])
    call.replace_with(Reference(temp))
    parent.addchild(allocate, position)
    parent.addchild(_nest(indices, counts, store), position + 1)
    parent.addchild(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE,
                                         [Reference(temp)]), position + 3)
    return element_call


def _elementwise_position(call, top):
    """Whether every intrinsic between `call` and `top` is elemental: its
    value at an element is then needed at that element only (not under
    CSHIFT or SUM, which read the function's values at others)."""
    node = call.parent
    while node is not None and node is not top.parent:
        if isinstance(node, IntrinsicCall) and not node.intrinsic.is_elemental:
            return False
        if node is top:
            break
        node = node.parent
    return True


def _whole_statement(statement, indices, counts, table, taken, calls, function_type):
    """``es = (1 - fice)*esat_liq(t(:, k)) + fice*esat_ice(t(:, k))``, an
    array assignment whose right-hand side is elementwise and holds only
    elemental functions of the user, as one loop nest over its elements:
    each function's value to a scalar local, then the element assigned
    (no allocated temporary per function and call, one pass over the
    data).  Only when the target, a local or argument array, is named
    nowhere on the right (each element is then computed from values the
    assignment leaves alone).

    :returns: the first new element call, or None when the statement is
        not of that form (the caller stores each function's values whole).
    """
    if not isinstance(statement, Assignment) or expr_rank(statement.lhs) != len(indices):
        return None
    target = statement.lhs.symbol
    local = table.lookup(target.name, scope_limit=table.node, otherwise=None)
    if local is None or not (local.is_automatic or local.is_argument) or any(
            r.symbol is target for r in statement.rhs.walk(Reference)):
        return None
    lhs = element(statement.lhs, indices)
    user_calls = [c for c in statement.rhs.walk(Call) if not isinstance(c, IntrinsicCall)]
    if lhs is None or not user_calls or any(
            calls.get(id(c)) is None or any(c2 is not c for c2 in c.walk(Call)
                                            if not isinstance(c2, IntrinsicCall))
            or not _elementwise_position(c, statement.rhs)
            for c in user_calls):
        return None   # (a function of a function's value: stored whole first)
    rhs = statement.rhs.copy()
    body, first = [], None
    for original, copy in zip(statement.rhs.walk(Call), rhs.walk(Call)):
        if isinstance(original, IntrinsicCall):
            continue
        parts = [element(a, indices) for a in original.arguments]
        callee = calls[id(original)]
        formals = matched_formals(original, callee_formals(callee))
        scalar = function_type(original)
        if any(p is None for p in parts) or any(f is None for f in formals) or \
                not isinstance(scalar, ScalarType):
            return None
        element_call = Call.create(original.routine.copy(), [
            (name, part) if name else part for name, part in zip(original.argument_names, parts)])
        value = new_local(table, naming.function_value(original.routine.name), scalar.copy(),
                          taken)
        body.append(Assignment.create(Reference(value), element_call))
        calls[id(element_call)] = callee
        first = first or element_call
        if copy is rhs:
            rhs = Reference(value)
        else:
            copy.replace_with(Reference(value))
    right = element(rhs, indices)
    if right is None:
        return None
    body.append(Assignment.create(lhs, right))
    nest = _nest(indices, counts, body[0])
    innermost = nest.walk(Loop)[-1]
    for stmt in body[1:]:
        innermost.loop_body.addchild(stmt)
    statement.replace_with(nest)
    return first


def _nest(indices, counts, body):
    """Loops over ``1..counts[d]`` for each index, the first innermost."""
    one = Literal("1", INTEGER_TYPE)
    for index, count in zip(indices, counts):
        body = Loop.create(index, one.copy(), count.copy(), one.copy(), [body])
    return body


def _lower_bound(symbol, dim):
    """The lower bound of dimension `dim` (0-based) of the array `symbol`:
    the declared one where the declaration gives it (explicit or assumed
    shape), else ``LBOUND``."""
    shape = getattr(symbol.datatype, "shape", None) or []
    if dim < len(shape) and not getattr(symbol.datatype, "is_allocatable", False):
        bounds = shape[dim]
        lower = getattr(bounds, "lower", None)
        if isinstance(lower, Literal):
            return lower.copy()
    return IntrinsicCall.create(IntrinsicCall.Intrinsic.LBOUND, [
        Reference(symbol), ("dim", Literal(str(dim + 1), INTEGER_TYPE))])


def element(array, indices):
    """The element of the array value `array` at the 1-based position
    `indices` (one index symbol per dimension): a whole array, a section,
    or an elementwise expression of them (operators, elemental
    intrinsics); a scalar is itself.  None for anything else."""
    if expr_rank(array) == 0:
        return array.copy()
    if isinstance(array, (BinaryOperation, UnaryOperation)):
        parts = [element(child, indices) for child in array.children]
        if any(p is None for p in parts):
            return None
        if isinstance(array, BinaryOperation):
            return BinaryOperation.create(array.operator, *parts)
        return UnaryOperation.create(array.operator, parts[0])
    if isinstance(array, IntrinsicCall):
        if not array.intrinsic.is_elemental:
            return None
        parts = [element(arg, indices) for arg in array.arguments]
        if any(p is None for p in parts):
            return None
        try:
            # (Built without PSyclone's argument-type check where it is
            # stricter than Fortran: REAL(NINT(u), 8).)
            return intrinsic_call(array.intrinsic.name, [
                (name, part) if name else part
                for name, part in zip(array.argument_names, parts)])
        except (TypeError, ValueError):  # an argument form PSyclone refuses
            return None

    def offset(start, step, index):
        if step is None and isinstance(start, Literal) and start.value == "1":
            return Reference(index)
        moved = BinaryOperation.create(BinOp.SUB, Reference(index), Literal("1", INTEGER_TYPE))
        if step is not None:
            moved = BinaryOperation.create(BinOp.MUL, moved, step)
        return BinaryOperation.create(BinOp.ADD, start, moved)

    if type(array) is Reference:
        if len(indices) != symbol_rank(array.symbol):
            return None
        return ArrayReference.create(array.symbol, [
            offset(_lower_bound(array.symbol, d), None, index)
            for d, index in enumerate(indices)])
    if type(array) is ArrayReference:
        ranges = iter(indices)
        subscripts = []
        for item in array.indices:
            if isinstance(item, Range):
                step = item.step.copy()
                if isinstance(step, Literal) and step.value == "1":
                    step = None
                index = next(ranges, None)
                if index is None:
                    return None
                subscripts.append(offset(item.start.copy(), step, index))
            elif expr_rank(item) > 0:
                return None   # a vector subscript
            else:
                subscripts.append(item.copy())
        return ArrayReference.create(array.symbol, subscripts)
    if type(array) is StructureReference:
        return _component_element(array, indices, offset)
    return None


def _component_element(array, indices, offset):
    """The element of a whole array component (``c%t``, ``s%atm%t``) at
    `indices`, from its LBOUNDs; None for a component with subscripts on
    the way (``cols(i)%t``, ``c%t(2:)``)."""
    names, node = [], array.member
    while node is not None:
        if type(node) not in (Member, StructureMember):
            return None
        names.append(node.name)
        node = getattr(node, "member", None) if isinstance(node, StructureMember) else None
    if len(indices) != expr_rank(array):
        return None
    subscripts = [offset(IntrinsicCall.create(IntrinsicCall.Intrinsic.LBOUND, [
        array.copy(), ("dim", Literal(str(d + 1), INTEGER_TYPE))]), None, index)
        for d, index in enumerate(indices)]
    return StructureReference.create(array.symbol, names[:-1] + [(names[-1], subscripts)])
