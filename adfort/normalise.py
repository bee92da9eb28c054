"""Rewrite EXIT and CYCLE into structured code before differentiation.

PSyIR keeps EXIT and CYCLE as opaque code blocks, and a reversed loop must
know which statements of an iteration ran.  Both become a logical flag
set where the jump was and tested before the statements that follow it; a
DO loop with an EXIT becomes a DO WHILE loop over its index, so its trip
count is counted like any DO WHILE's.  The rewrite works on adfort's
working copy only.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, IfBlock, IntrinsicCall,
    Literal, Loop, Range, Reference, Schedule, StructureReference, UnaryOperation, WhileLoop)
from psyclone.psyir.nodes.array_mixin import ArrayMixin
from psyclone.psyir.symbols import ArgumentInterface, ArrayType, DataSymbol, ScalarType

from adfort import naming
from adfort.exprs import INTEGER_TYPE
from adfort.arrays import expr_rank, is_shape_inquiry
from adfort.derived import is_variable
from adfort.elemental import element, expand_elemental
from adfort.optional import callee_formals, matched_formals, optional_names
from adfort.result_extents import result_bounds, result_length
from adfort.symbols import new_local

BinOp = BinaryOperation.Operator
_LOGICAL = ScalarType(ScalarType.Intrinsic.BOOLEAN, ScalarType.Precision.UNDEFINED)


def jump_kind(node):
    """'EXIT' or 'CYCLE' for a CodeBlock holding an unnamed one, else None."""
    if not isinstance(node, CodeBlock) or len(node.parse_tree_nodes) != 1:
        return None
    ast = node.parse_tree_nodes[0]
    kind = type(ast).__name__
    text = str(ast).strip().upper()
    if kind == "Exit_Stmt" and text == "EXIT":
        return "EXIT"
    if kind == "Cycle_Stmt" and text == "CYCLE":
        return "CYCLE"
    return None


def _own_jumps(loop, kind):
    """The jumps of `kind` that belong to `loop` (not to a nested loop)."""
    found = []
    for node in loop.loop_body.walk(CodeBlock):
        if jump_kind(node) == kind and node.ancestor((Loop, WhileLoop)) is loop:
            found.append(node)
    return found


def _flag(table, base, taken):
    return new_local(table, base, _LOGICAL, taken)


def _logical(value):
    return Literal("true" if value else "false", _LOGICAL.copy())


def _is_jump(stmt, flag):
    """Whether `stmt` is a rewritten jump (``flag = .true.``)."""
    return (isinstance(stmt, Assignment) and stmt.lhs.symbol is flag
            and isinstance(stmt.rhs, Literal) and stmt.rhs.value == "true")


def _sets(node, flag):
    return any(_is_jump(a, flag) for a in node.walk(Assignment))


def _guard(statements, flag):
    """Statements with those after a flag-setting one run only if the flag
    is still false."""
    out = []
    for index, stmt in enumerate(statements):
        if _is_jump(stmt, flag):
            out.append(stmt)
            return out  # what follows a jump in its block never runs
        if isinstance(stmt, IfBlock) and _sets(stmt, flag):
            _guard_schedule(stmt.if_body, flag)
            if stmt.else_body is not None:
                _guard_schedule(stmt.else_body, flag)
            out.append(stmt)
            rest = [s.detach() for s in statements[index + 1:]]
            if rest:
                test = UnaryOperation.create(UnaryOperation.Operator.NOT, Reference(flag))
                out.append(IfBlock.create(test, _guard(rest, flag)))
            return out
        out.append(stmt)
    return out


def _guard_schedule(schedule, flag):
    statements = [s.detach() for s in list(schedule.children)]
    for stmt in _guard(statements, flag):
        schedule.addchild(stmt)


def normalise_jumps(routine, taken=()):
    """Rewrite the EXIT and CYCLE statements of `routine` in place."""
    table = routine.symbol_table
    for loop in reversed(routine.walk((Loop, WhileLoop))):
        for kind, base in (("CYCLE", naming.CYCLE_FLAG), ("EXIT", naming.EXIT_FLAG)):
            jumps = _own_jumps(loop, kind)
            if not jumps:
                continue
            flag = _flag(table, base, taken)
            for jump in jumps:
                jump.replace_with(Assignment.create(Reference(flag), _logical(True)))
            reset = Assignment.create(Reference(flag), _logical(False))
            if kind == "CYCLE":
                loop.loop_body.addchild(reset, 0)
                _guard_schedule(loop.loop_body, flag)
            else:
                _guard_schedule(loop.loop_body, flag)
                _exit_to_while(loop, flag, reset, table, taken)


def _exit_to_while(loop, flag, reset, table, taken):
    """Turn `loop`, which may leave early through `flag`, into a DO WHILE."""
    not_exiting = UnaryOperation.create(UnaryOperation.Operator.NOT, Reference(flag))
    before = [reset]
    if isinstance(loop, WhileLoop):
        condition = BinaryOperation.create(BinOp.AND, not_exiting, loop.condition.copy())
        loop.condition.replace_with(condition)
        loop.parent.addchild(reset, loop.position)
        return
    index = loop.variable
    start, stop, step = loop.start_expr.copy(), loop.stop_expr.copy(), loop.step_expr.copy()
    # DO semantics: the bounds are evaluated once, at entry.
    kept = []
    for label, expr in (("stop", stop), ("step", step)):
        if isinstance(expr, Literal) or (isinstance(expr, UnaryOperation)
                                         and isinstance(expr.children[0], Literal)):
            kept.append(expr)
        else:
            local = new_local(table, naming.loop_bound(label), INTEGER_TYPE, taken)
            before.append(Assignment.create(Reference(local), expr))
            kept.append(Reference(local))
    stop, step = kept
    before.insert(0, Assignment.create(Reference(index), start))
    upward = BinaryOperation.create(BinOp.LE, Reference(index), stop.copy())
    downward = BinaryOperation.create(BinOp.GE, Reference(index), stop.copy())
    if isinstance(step, Literal):
        in_range = upward
    elif isinstance(step, UnaryOperation):
        in_range = downward
    else:
        positive = BinaryOperation.create(BinOp.GT, step.copy(), Literal("0", INTEGER_TYPE))
        negative = BinaryOperation.create(BinOp.LT, step.copy(), Literal("0", INTEGER_TYPE))
        in_range = BinaryOperation.create(
            BinOp.OR, BinaryOperation.create(BinOp.AND, positive, upward),
            BinaryOperation.create(BinOp.AND, negative, downward))
    condition = BinaryOperation.create(BinOp.AND, not_exiting, in_range)
    advance = IfBlock.create(
        UnaryOperation.create(UnaryOperation.Operator.NOT, Reference(flag)),
        [Assignment.create(Reference(index), BinaryOperation.create(
            BinOp.ADD, Reference(index), step.copy()))])
    body = [s.detach() for s in list(loop.loop_body.children)] + [advance]
    while_loop = WhileLoop.create(condition, body)
    parent, position = loop.parent, loop.position
    loop.detach()
    for offset, stmt in enumerate(before + [while_loop]):
        parent.addchild(stmt, position + offset)


def hoist_self_subscripts(routine, taken=()):
    """Give each subscript of an assigned array element that reads the
    array itself a local set just before the assignment: ``h(nint(h(2)))
    = 2*h(nint(h(2)))`` becomes ``h_at = nint(h(2)); h(h_at) = 2*h(nint(h(2)))``.

    The assignment may change what such a subscript reads (here ``h(2)``
    when it is the element assigned), and the returning motion, which puts
    the element back after the assignment, would work the subscript out
    again from the changed value: the old value restored into, and the
    adjoint sent to, another element.  A local keeps the element the
    assignment wrote (the taping plan keeps it as any integer local).
    """
    table = routine.symbol_table
    for assign in routine.walk(Assignment):
        lhs = assign.lhs
        if assign.is_pointer or not isinstance(assign.parent, Schedule):
            continue
        name = lhs.symbol.name.lower()
        written = _member_path(lhs)
        for node in _designator_chain(lhs):
            for index in list(node.indices):
                parts = [index.start, index.stop, index.step] if isinstance(index, Range) \
                    else [index]
                for part in parts:
                    if not any(r.symbol.name.lower() == name and not is_shape_inquiry(r)
                               and _overlap(_member_path(r), written)
                               for r in part.walk(Reference)):
                        continue
                    temp = new_local(table, naming.assigned_element(lhs.symbol.name),
                                     INTEGER_TYPE.copy(), taken)
                    part.replace_with(Reference(temp))
                    assign.parent.addchild(Assignment.create(Reference(temp), part),
                                           assign.position)


def _member_path(ref):
    """The component names of `ref` (``st%kv(k)``: ``['kv']``)."""
    path, node = [], getattr(ref, "member", None)
    while node is not None:
        path.append(node.name.lower())
        node = getattr(node, "member", None)
    return path


def _overlap(read, written):
    """Whether component paths `read` and `written` of one variable may
    name the same storage (one is the other's start: ``st%nz`` does not
    overlap ``st%kv``)."""
    return read[:len(written)] == written[:len(read)]


def _designator_chain(ref):
    """The parts of `ref` that carry its own subscripts (``a(i)%b(j)``:
    ``a(i)`` and ``b(j)``), not the arrays named inside them."""
    chain, node = [], ref
    while node is not None:
        if isinstance(node, ArrayMixin):
            chain.append(node)
        node = getattr(node, "member", None)
    return chain


def deallocate_at_end(routine):
    """Make the implicit deallocation of local allocatable arrays at the
    end of `routine` explicit, so that the returning motion, which mirrors
    the lifetimes, starts by allocating them again.  The allocatable
    components of local derived-type variables (a Noah-MP driver's
    ``type(noahmp_type) :: noahmp`` with ``noahmp%water%param%…`` allocated
    in the routine) are deallocated likewise."""
    from adfort.components import allocatable_components
    arrays = [s for s in routine.symbol_table.datasymbols
              if not s.is_argument and getattr(s.datatype, "is_allocatable", False)
              and s.is_automatic]
    for symbol in arrays:
        test = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATED, [Reference(symbol)])
        free = IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [Reference(symbol)])
        routine.addchild(IfBlock.create(test, [free]))
    for symbol in routine.symbol_table.datasymbols:
        if symbol.is_argument or not symbol.is_automatic:
            continue
        for path in allocatable_components(symbol.datatype):
            test = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATED, [
                StructureReference.create(symbol, list(path))])
            free = IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [
                StructureReference.create(symbol, list(path))])
            routine.addchild(IfBlock.create(test, [free]))


def initialise_intent_out(routine, taken=(), filename=None):
    """Make explicit the default initialisation an ``intent(out)`` dummy
    of a derived type gets on entry (the components its TYPE gives a
    value, ``real(8) :: s = 0d0``): assignments at the top of `routine`.
    The value the caller passed is lost there, so the returning motion
    must zero those components' adjoints there, which the reversal of the
    assignments does.

    :raises AdfortError: for a default-initialised component adfort cannot
        set so (inside an array component, in an assumed-size array)."""
    from adfort.derived import default_initialisation, is_derived
    from adfort.errors import AdfortError, where
    statements = []
    for symbol in routine.symbol_table.argument_list:
        if symbol.interface.access != ArgumentInterface.Access.WRITE or \
                not is_derived(symbol.datatype):
            continue
        try:
            found = default_initialisation(symbol, routine.symbol_table, taken)
        except ValueError as err:
            raise AdfortError(
                f"the intent(out) dummy '{symbol.name}' is given the default values of its "
                f"type on entry, which adfort cannot make explicit for '{err}': declare it "
                "intent(inout) and assign the components the routine needs reset",
                where(routine, filename)) from None
        if found and symbol.name.lower() in optional_names(routine):
            found = [IfBlock.create(IntrinsicCall.create(
                IntrinsicCall.Intrinsic.PRESENT, [Reference(symbol)]), found)]
        statements += found
    for statement in reversed(statements):
        routine.children.insert(0, statement)


def hoist_case_selectors(routine, function_type, calls, taken=()):
    """Evaluate once the selector of a SELECT CASE that calls a user
    function: PSyclone reads the construct as an IF chain comparing a copy
    of the selector with each case value (two for a range), and each copy
    would call the function again (a random-number draw, a counter: other
    values than the one the construct selects on).  The selector is
    assigned to a local before the chain, which compares that.

    :param function_type: as for :func:`hoist_calls`.
    :param calls: {id(Call): callee}, kept up to date.
    """
    table = routine.symbol_table
    for block in routine.walk(IfBlock):
        if "was_case" not in block.annotations or _case_inner(block):
            continue
        chain = [block]
        while len(chain[-1].else_body.children if chain[-1].else_body else []) == 1 and \
                _case_inner(chain[-1].else_body.children[0]):
            chain.append(chain[-1].else_body.children[0])
        selector = _case_selector(block.condition)
        if selector is None or not any(not isinstance(c, IntrinsicCall)
                                       for c in selector.walk(Call)):
            continue
        if isinstance(selector, Call) and not isinstance(selector, IntrinsicCall):
            datatype = function_type(selector)
            datatype = result_length(selector, calls.get(id(selector)), datatype) or datatype
        else:
            try:
                datatype = selector.datatype
            except Exception:  # PSyclone cannot tell
                datatype = None
            datatype = datatype if isinstance(datatype, ScalarType) else None
        if datatype is None:
            continue
        label = selector.routine.name if isinstance(selector, Call) else "case"
        temp = new_local(table, naming.function_value(label), datatype, taken)
        copies = [op.children[0] for item in chain for op in item.condition.walk(BinaryOperation)
                  if op.operator in (BinOp.EQ, BinOp.GE, BinOp.LE, BinOp.EQV)
                  and op.children[0] is not selector and op.children[0] == selector]
        selector.replace_with(Reference(temp))
        for copy in copies:
            for call in copy.walk(Call):
                calls.pop(id(call), None)
            copy.replace_with(Reference(temp))
        block.parent.addchild(Assignment.create(Reference(temp), selector), block.position)


def _case_inner(block):
    """Whether `block` is a later case of a SELECT CASE chain (not the
    first IfBlock of a SELECT CASE nested in a CASE DEFAULT: PSyclone
    gives that one the construct's parse tree, a later case its clause's
    first statement)."""
    from fparser.two.Fortran2003 import Case_Construct
    parent = block.parent
    return isinstance(block, IfBlock) and "was_case" in block.annotations and \
        isinstance(parent, Schedule) and isinstance(parent.parent, IfBlock) and \
        "was_case" in parent.parent.annotations and parent is parent.parent.else_body \
        and len(parent.children) == 1 and not isinstance(block.ast, Case_Construct)


def _case_selector(condition):
    """The selector of a SELECT CASE chain's first comparison."""
    node = condition
    while isinstance(node, BinaryOperation) and node.operator in (BinOp.AND, BinOp.OR):
        node = node.children[0]
    if isinstance(node, BinaryOperation) and node.operator in (
            BinOp.EQ, BinOp.GE, BinOp.LE, BinOp.EQV):
        return node.children[0]
    return None


def hoist_calls(routine, function_type, calls, taken=(), filename=None, aliased=()):
    """Give every user function call in an expression, and every expression
    passed to a user routine, a statement of its own, assigning a new local:
    ``y = 2*f(x)`` becomes ``f_value = f(x); y = 2*f_value``.  Calls then sit
    where their adjoints can be placed, and arguments have adjoints.

    :param function_type: ``function_type(call)`` gives the result datatype
        of a function with source, None for a call left in place.
    :param calls: {id(Call): callee}, kept up to date for moved calls.
    :param filename: the source file, for messages.
    :param aliased: lower-case names of the routine's pointers and targets
        (which may share storage with one another).
    """
    table = routine.symbol_table
    # Innermost first, and left to right among the calls of one expression,
    # as gfortran evaluates them (a function with side effects: a cache,
    # a counter, gives what the compiled original gives).
    for call in _calls_inner_first(routine):
        if isinstance(call, IntrinsicCall):
            continue
        statement = _statement_of(call)
        if statement is None:
            continue
        # Arguments first, while the call is still where it was: in a DO
        # WHILE condition they are evaluated again at the end of each trip.
        _hoist_expression_arguments(call, table, taken, calls)
        if call is statement:
            _store_overlapping_arguments(call, table, taken, calls, aliased, filename)
        direct = isinstance(statement, Assignment) and call is statement.rhs
        if direct and function_type(call) is not None:
            from adfort.arrays import expr_rank
            # A scalar result broadcast into an array (v = f(x)) is stored
            # in a scalar first: the motions' result argument is a scalar.
            direct = expr_rank(statement.lhs) == _type_rank(function_type(call))
        if direct and _may_alias_result(statement.lhs, call, table):
            direct = False
        _store_unindexable_arguments(call, statement, table, taken, calls)
        element_call = expand_elemental(call, statement, function_type(call),
                                        calls.get(id(call)), table, taken, calls, function_type)
        if element_call is not None:
            _hoist_expression_arguments(element_call, table, taken, calls)
            continue
        if call is not statement and not direct:
            datatype = function_type(call)
            if datatype is None:
                continue
            bounds = result_bounds(call, calls.get(id(call)), datatype, filename)
            datatype = result_length(call, calls.get(id(call)), datatype) or datatype
            if bounds is None:
                temp = new_local(table, naming.function_value(call.routine.name), datatype,
                                 taken)
                call.replace_with(Reference(temp))
                _place_before(statement, Assignment.create(Reference(temp), call), calls)
            else:
                _allocated_result(call, statement, datatype, bounds, table, taken, calls)


def _calls_inner_first(routine):
    """The calls under `routine`, each after the calls in its arguments,
    left to right within a statement; statements in reverse order (as
    before: a later statement's hoisting moves nothing of an earlier one)."""
    order = []

    def visit(node):
        for child in node.children:
            if not isinstance(child, Schedule):     # (other statements' calls)
                visit(child)
        if isinstance(node, Call):
            order.append(node)
    statements, seen = [], set()
    for node in routine.walk(Call):
        statement = _statement_of(node)
        if statement is not None and id(statement) not in seen:
            seen.add(id(statement))
            statements.append(statement)
    found = []
    for statement in reversed(statements):
        order = []
        visit(statement)
        found.extend(c for c in order if not isinstance(c, IntrinsicCall))
    return found


def _allocated_result(call, statement, datatype, bounds, table, taken, calls):
    """Keep the value of `call`, whose result's extents its arguments give
    (``w(n)`` of ``f(n-1, v)``), in an allocatable local allocated with them
    just before the call and deallocated after `statement`: a local of the
    declared shape would be sized by the caller's own ``n`` (at entry)."""
    scalar = getattr(datatype, "elemental_type", datatype)
    temp = new_local(table, naming.function_value(call.routine.name),
                     ArrayType(scalar, [ArrayType.Extent.DEFERRED] * len(bounds)), taken)
    allocate = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [ArrayReference.create(
        temp, [Range.create(lower, upper) for lower, upper in bounds])])
    call.replace_with(Reference(temp))
    _place_before(statement, allocate, calls)
    _place_before(statement, Assignment.create(Reference(temp), call), calls)
    free = IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [Reference(temp)])
    if isinstance(statement, WhileLoop):
        # (allocated again at the end of each trip, for the condition)
        statement.loop_body.addchild(free.copy(), 0)
    statement.parent.addchild(free, statement.position + 1)


def _may_alias_result(lhs, call, table):
    """Whether `lhs`, about to receive `call`'s result through the result
    argument of the function's motions, may also be what the function reads:
    an actual argument of it (``x = f(x)``) or a variable of a module or
    COMMON block, which the function may use by association.  Fortran
    forbids such aliasing of an argument the callee writes, so the result
    goes through a local first."""
    symbol = lhs.symbol
    if any(isinstance(r, Reference) and r.symbol is symbol for r in call.walk(Reference)):
        return True
    local = table.lookup(symbol.name, scope_limit=table.node, otherwise=None)
    return local is None or not (local.is_automatic or local.is_argument)


def _type_rank(datatype):
    shape = getattr(datatype, "shape", None)
    return len(shape) if shape else 0


def _hoist_expression_arguments(call, table, taken, calls):
    """Store the expression arguments of a call in locals, and the named
    constants given where the callee may change its argument: its motions
    would otherwise restore (assign) the constant."""
    statement = _statement_of(call)
    callee = calls.get(id(call))
    formals = matched_formals(call, callee_formals(callee)) \
        if callee is not None and hasattr(callee, "writes_formal") \
        else [None] * len(call.arguments)
    for arg, formal in zip(list(call.arguments), formals):
        if is_variable(arg):
            if not (_is_constant(arg) and formal is not None
                    and callee.writes_formal(formal)):
                continue
            datatype = _constant_type(arg)
        else:
            datatype = _expression_type(arg)
            original = getattr(callee, "original", None)
            if datatype is None and formal is not None and expr_rank(arg) > 0 and \
                    original is not None and not original.symbol.is_elemental:
                _array_argument_first(call, statement, arg, table, taken, calls)
                continue
        if datatype is None:
            continue
        temp = new_local(table, naming.call_argument(call.routine.name), datatype, taken)
        arg.replace_with(Reference(temp))
        if isinstance(arg, UnaryOperation) and arg.operator == UnaryOperation.Operator.PLUS:
            arg = arg.children[0].detach()  # (x): a copy of x (see parentheses.py)
        _place_before(statement, Assignment.create(Reference(temp), arg), calls)


def _store_overlapping_arguments(call, table, taken, calls, aliased=(), filename=None):
    """Evaluate into an array, before the call, each array expression given
    to an elemental subroutine that reads what another actual argument of
    the call may change: ``call relax(t(2:n), 0.5*(t(1:n-1) + t(3:n+1)))``.
    Fortran evaluates the expression whole before the call, as compilers
    do (into a temporary); the loop over elements that stands for the call
    (:func:`adfort.elemental.expand_elemental`) would read elements the
    calls on earlier elements have changed.  A variable or section given
    for both is not an expression: the standard forbids that overlap.

    :raises AdfortError: for such an expression whose type adfort cannot tell.
    """
    callee = calls.get(id(call))
    original = getattr(callee, "original", None)
    if original is None or not original.symbol.is_elemental or \
            not hasattr(callee, "writes_formal"):
        return
    formals = matched_formals(call, callee_formals(callee))
    written = [a for a, f in zip(call.arguments, formals)
               if f is not None and is_variable(a) and callee.writes_formal(f)]
    for arg in list(call.arguments):
        if is_variable(arg) or expr_rank(arg) == 0 or not any(
                _may_share(ref, other, aliased) for ref in arg.walk(Reference)
                if not is_shape_inquiry(ref) for other in written):
            continue
        rank = expr_rank(arg)
        datatype = _element_type(arg)
        if datatype is None:
            from adfort.errors import AdfortError, where
            raise AdfortError(
                f"'{arg.debug_string()}' is given to the elemental subroutine "
                f"'{call.routine.name}', reads what another argument of the call changes, "
                "and adfort cannot tell its type to evaluate it first: store it in a "
                "local array before the call and pass that", where(call, filename))
        _evaluate_first(call, call, arg, datatype, _shape_source(call, arg, rank),
                        table, taken, calls)


def _evaluate_first(call, statement, arg, datatype, shape, table, taken, calls):
    """Replace the array expression `arg`, an argument of `call`, by an
    array local set to it before `statement` (allocated with the extents of
    `shape`, deallocated after `statement`)."""
    rank = expr_rank(arg)
    temp = new_local(table, naming.call_argument(call.routine.name),
                     ArrayType(datatype, [ArrayType.Extent.DEFERRED] * rank), taken)
    allocate = IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
        ArrayReference.create(temp, [IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [
            shape.copy(), ("dim", Literal(str(d + 1), INTEGER_TYPE))])
            for d in range(rank)])])
    arg.replace_with(Reference(temp))
    _place_before(statement, allocate, calls)
    _place_before(statement, Assignment.create(Reference(temp), arg), calls)
    statement.parent.addchild(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE,
                                                   [Reference(temp)]), statement.position + 1)


def _array_argument_first(call, statement, arg, table, taken, calls):
    """Evaluate the array expression `arg` given to an array dummy into an
    allocated array before `statement`, when no whole array of explicit
    shape gives its shape (``0.55d0 + 0.5d0*v`` with ``v(:)`` assumed-shape):
    its extents are those of an array or section it combines elementwise
    (``t(2:) - t(:n-1)``: those of ``t(2:)``).  (The
    adjoint of the call needs a variable to hold the dummy's adjoint.)"""
    rank = expr_rank(arg)
    datatype = _element_type(arg)
    shape = next((ref for ref in arg.walk(Reference)
                  if type(ref) in (Reference, ArrayReference) and expr_rank(ref) == rank
                  and _gives_shape(ref, arg)), None)
    if datatype is None or shape is None or \
            not isinstance(statement, (Assignment, Call, IfBlock)):
        return  # (the reversal says the expression needs a variable)
    _evaluate_first(call, statement, arg, datatype, shape, table, taken, calls)


def _store_unindexable_arguments(call, statement, table, taken, calls):
    """Evaluate into an array, before `statement`, each array expression
    given to an elemental procedure that is no elementwise expression of
    variables (``ramp(1.1d0 + eoshift(v, -1), w)``: EOSHIFT's element i is
    not EOSHIFT of element i), so that the loop over elements standing for
    the reference (:func:`adfort.elemental.expand_elemental`) can index it.
    Fortran evaluates actual arguments before the reference: the same
    values."""
    callee = calls.get(id(call))
    original = getattr(callee, "original", None)
    if original is None or not original.symbol.is_elemental or \
            not isinstance(statement, (Assignment, Call)):
        return
    probe = DataSymbol("element_probe", INTEGER_TYPE)
    for arg in list(call.arguments):
        rank = expr_rank(arg)
        if rank == 0 or is_variable(arg) or element(arg, [probe] * rank) is not None:
            continue
        datatype = _element_type(arg)
        if datatype is None:
            continue  # (left to the message about elemental references)
        shape = next((other for other in call.arguments
                      if other is not arg and is_variable(other) and expr_rank(other) == rank),
                     arg)
        _evaluate_first(call, statement, arg, datatype, shape, table, taken, calls)


def _may_share(read, written, aliased):
    """Whether the reference `read` may name storage the variable
    `written` names: the same variable (overlapping components), or two
    pointers or targets."""
    if read.symbol.name.lower() == written.symbol.name.lower():
        return _overlap(_member_path(read), _member_path(written))
    return read.symbol.name.lower() in aliased and written.symbol.name.lower() in aliased


def _element_type(expr):
    """The scalar datatype of the elements of array expression `expr`, or
    None when adfort cannot tell."""
    from adfort.exprs import real_kind, real_type
    try:
        datatype = expr.datatype
    except Exception:  # PSyclone cannot tell: judge by the real leaves
        datatype = None
    element = getattr(datatype, "elemental_type", datatype)
    intrinsic = getattr(element, "intrinsic", None)
    if intrinsic is None or intrinsic == ScalarType.Intrinsic.REAL:
        kind = real_kind(expr)
        return real_type(kind) if kind is not None else None
    return element if isinstance(element, ScalarType) else None


def _shape_source(call, arg, rank):
    """An array variable given to the elemental `call` besides `arg`, whose
    shape `arg`'s is (the arrays of an elemental reference conform; one the
    call changes is a variable): SIZE of the expression would evaluate it."""
    return next(other for other in call.arguments
                if other is not arg and is_variable(other) and expr_rank(other) == rank)


def _is_constant(reference):
    """Whether `reference` names a PARAMETER (or an element of one)."""
    return bool(getattr(reference.symbol, "is_constant", False))


def _constant_type(reference):
    """The datatype of a local to hold the constant `reference` (a scalar,
    an element of an array constant, or a whole one of explicit shape)."""
    from psyclone.psyir.symbols import ArrayType
    from adfort.arrays import expr_rank
    dtype = reference.symbol.datatype
    if not isinstance(dtype, (ScalarType, ArrayType)):
        return None
    if isinstance(dtype, ArrayType):
        if type(reference) is Reference and all(
                isinstance(e, ArrayType.ArrayBounds) for e in dtype.shape):
            return dtype
        if expr_rank(reference) > 0:
            return None   # a section of a constant: rare, left as it is
        return dtype.elemental_type
    return dtype


def _expression_type(expr):
    """The datatype of a local to hold `expr`: a scalar of its kind, or for
    an array expression the declared type of a whole array it combines
    (``x + dt*k1`` is stored like ``x``); None when adfort cannot tell."""
    from adfort.arrays import expr_rank
    from adfort.exprs import real_kind, real_type
    from psyclone.psyir.symbols import ArrayType
    try:
        intrinsic = getattr(expr.datatype, "intrinsic", None)
    except Exception:  # PSyclone cannot tell: judge by the real leaves
        intrinsic = None
    if intrinsic is not None and intrinsic != ScalarType.Intrinsic.REAL:
        return None  # an integer or logical value carries no derivative
    kind = real_kind(expr)
    if kind is None:
        return None
    rank = expr_rank(expr)
    if rank == 0:
        return real_type(kind)
    for ref in expr.walk(Reference):
        dtype = getattr(ref.symbol, "datatype", None)
        if (type(ref) is Reference and isinstance(dtype, ArrayType)
                and len(dtype.shape) == rank and not dtype.is_allocatable
                and all(isinstance(e, ArrayType.ArrayBounds) for e in dtype.shape)
                and _gives_shape(ref, expr)):
            if dtype.intrinsic == ScalarType.Intrinsic.REAL:
                return dtype
            return ArrayType(real_type(kind), dtype.shape)  # real(n) of integers n
    return None


def _gives_shape(ref, expr):
    """Whether whole array `ref` gives `expr` its shape: only elementwise
    operations lie between them (not ``sum(q)``, an argument of a user
    function or a subscript, where its shape may not be the result's)."""
    node = ref
    while node is not expr:
        parent = node.parent
        if isinstance(parent, IntrinsicCall):
            # An array argument of an elemental intrinsic conforms with its result.
            if not parent.intrinsic.is_elemental or \
                    not any(a is node for a in parent.arguments):
                return False
        elif not isinstance(parent, (BinaryOperation, UnaryOperation)):
            return False
        node = parent
    return True


def _statement_of(node):
    """The statement (a child of a Schedule) `node` belongs to."""
    while node is not None and not isinstance(node.parent, Schedule):
        node = node.parent
    return node


def _place_before(statement, new, calls):
    """Insert `new` so that it runs every time `statement` needs it: before
    it, and for a DO WHILE condition also at the end of each iteration."""
    parent = statement.parent
    parent.addchild(new, statement.position)
    if isinstance(statement, WhileLoop):
        again = new.copy()
        for old, copy in zip(new.walk(Call), again.walk(Call)):
            if id(old) in calls:
                calls[id(copy)] = calls[id(old)]
        statement.loop_body.addchild(again)
