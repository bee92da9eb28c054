"""SAVE'd local variables a differentiated routine writes.

The generated routines are copies of the original, so each has its own copy
of the routine's SAVE'd locals (and of their initial values and DATA):

- ``r_rec`` runs the routine's statements once per call of ``r_rev``, so
  its copy evolves as ``r``'s own would over the same calls (the original
  ``r`` and the generated routines do not share it);
- ``r_ret`` never runs the routine's statements: the values its adjoint
  reads reach it through the tape like any other local's.

Running the recording more than once per call would advance that state
more than once: a callee reversed joint runs forward twice (``f`` while the
caller records, ``f_rev`` while it returns, in the opposite order across a
loop), and ``r_jacobian`` reverses once per row.  That is harmless for
state that cannot change a derivative (a call counter only printed), and
rejected otherwise.

A SAVE'd local whose value one call leaves for the next to read carries a
derivative from one call to the next when that value varies: the adjoint
of the read would have to reach the call that wrote it, but each
returning motion's adjoint of a local starts from zero and is dropped on
return.  That is rejected; a module variable, whose adjoint the generated
module keeps from one call to the next, holds such a value instead.
"""

from psyclone.psyir.nodes import (
    Assignment, BinaryOperation, Call, CodeBlock, IfBlock, IntrinsicCall, Literal, Loop,
    Reference, Return, UnaryOperation, WhileLoop)
from psyclone.psyir.symbols import StaticInterface

from adfort.errors import AdfortError, source_name, where
from adfort.forward_only import is_forward_only, rerun_advice, written_names


def written_saved_locals(routine):
    """Lower-case names of `routine`'s own SAVE'd (or initialised) variables
    that it writes."""
    table = routine.symbol_table
    written = {a.lhs.symbol.name.lower() for a in routine.walk(Assignment)}
    written |= {loop.variable.name.lower() for loop in routine.walk(Loop)}
    for block in routine.walk(CodeBlock):
        if is_forward_only(block):
            written |= written_names(block, table)
    found = set()
    for name in written:
        symbol = table.lookup(name, otherwise=None, scope_limit=routine)
        if symbol is not None and isinstance(symbol.interface, StaticInterface) \
                and not symbol.is_constant:
            found.add(name)
    return found


def _only_reports(statements, neutral):
    """Whether `statements` only print, stop or update `neutral` state
    (an I/O statement that sets a variable, an internal WRITE, may pass the
    state on: it does not count)."""
    for stmt in statements:
        if is_forward_only(stmt) and not (
                written_names(stmt, stmt.scope.symbol_table) - neutral):
            continue
        if isinstance(stmt, Assignment) and stmt.lhs.symbol.name.lower() in neutral:
            continue
        if isinstance(stmt, IfBlock):
            bodies = [stmt.if_body] + ([stmt.else_body] if stmt.else_body else [])
            if all(_only_reports(b.children, neutral) for b in bodies):
                continue
        return False
    return True


def state_affecting_derivatives(routine):
    """The written SAVE'd locals of `routine` whose values may change what
    the routine computes (not only what it prints): every one except those
    read only to update themselves (``ncall = ncall + 1``) or other such
    state, or in conditions of IFs that only print, stop or update it, and
    those every call sets before it reads them (running the routine again
    sets them again)."""
    candidates = {name for name in written_saved_locals(routine)
                  if read_on_entry(routine.children, name) not in (None, "set")}
    candidates -= first_call_state(routine)
    neutral = set(candidates)
    changed = True
    while changed:
        changed = False
        for name in sorted(neutral):
            if not _read_only_for_reports(routine, name, neutral):
                neutral.discard(name)
                changed = True
    return candidates - neutral


def first_call_state(routine):
    """SAVE'd variables of `routine` set only on its first call: in IF
    blocks on a SAVE'd logical flag (``IF (FIRST)``, ``IF (.NOT. INITED)``)
    whose body clears the flag at its top level and nothing else sets it
    (the table of a lookup built once, CCM style), and those flags.  A
    second run of the routine leaves them as the first left them, so a
    recording run again changes nothing through them."""
    table = routine.symbol_table
    writes = {}
    for assign in routine.walk(Assignment):
        writes.setdefault(assign.lhs.symbol.name.lower(), []).append(assign)
    for loop in routine.walk(Loop):
        writes.setdefault(loop.variable.name.lower(), []).append(loop)
    opaque = set()
    for block in routine.walk(CodeBlock):
        if is_forward_only(block):
            opaque |= written_names(block, table)
    settled = set()
    for block in routine.walk(IfBlock):
        flag, cleared = _flag_test(block.condition)
        key = None
        if flag is None:
            flag, key = _key_test(block.condition, writes, table, routine)
        if flag is None or flag in opaque or block.else_body:
            continue
        symbol = table.lookup(flag, otherwise=None, scope_limit=routine)
        if symbol is None or not isinstance(symbol.interface, StaticInterface):
            continue
        if key is None:
            clears = [s for s in block.if_body.children if isinstance(s, Assignment)
                      and s.lhs.symbol.name.lower() == flag and isinstance(s.rhs, Literal)
                      and s.rhs.value.lower() == cleared]
        else:
            # ``IF (N /= NOLD) … NOLD = N``: rebuilt only when the key
            # changes; a second run with the same key skips the block.
            clears = [s for s in block.if_body.children if isinstance(s, Assignment)
                      and type(s.lhs) is Reference and s.lhs.symbol.name.lower() == flag
                      and s.rhs.debug_string().lower() == key]
        if not clears or len(writes.get(flag, [])) != len(clears):
            continue
        inside = {name for name, stmts in writes.items()
                  if all(_in(stmt, block.if_body) for stmt in stmts)}
        settled |= {name for name in inside | {flag}
                    if name not in opaque and isinstance(getattr(table.lookup(
                        name, otherwise=None, scope_limit=routine), "interface", None),
                        StaticInterface)}
    return settled


def _key_test(condition, writes, table, routine):
    """(SAVE'd variable, lower-case text of the key) of ``IF (key /= saved)``
    or ``IF (saved /= key)``, the key reading nothing the routine writes
    nor any SAVE'd variable; else (None, None)."""
    if not (isinstance(condition, BinaryOperation)
            and condition.operator == BinaryOperation.Operator.NE):
        return None, None
    for saved, key in (condition.children, reversed(condition.children)):
        if type(saved) is not Reference:
            continue
        symbol = table.lookup(saved.symbol.name, otherwise=None, scope_limit=routine)
        if symbol is None or not isinstance(symbol.interface, StaticInterface):
            continue
        reads = [r.symbol.name.lower() for r in key.walk(Reference)]
        if any(name in writes or isinstance(getattr(table.lookup(
                name, otherwise=None, scope_limit=routine), "interface", None), StaticInterface)
               for name in reads):
            continue
        return saved.symbol.name.lower(), key.debug_string().lower()
    return None, None


def _flag_test(condition):
    """(flag name, the value clearing it) of ``IF (flag)`` (``'false'``)
    or ``IF (.NOT. flag)`` (``'true'``), else (None, None)."""
    if type(condition) is Reference:
        return condition.symbol.name.lower(), "false"
    if isinstance(condition, UnaryOperation) and \
            condition.operator == UnaryOperation.Operator.NOT and \
            type(condition.children[0]) is Reference:
        return condition.children[0].symbol.name.lower(), "true"
    return None, None


def _read_only_for_reports(routine, name, neutral):
    """Whether every reference to `name` updates neutral state or sits in
    the condition of an IF that only reports (I/O text is not walked: a
    value printed changes nothing)."""
    for ref in routine.walk(Reference):
        if ref.symbol.name.lower() != name:
            continue
        assign = ref.ancestor(Assignment)
        if assign is not None:
            if assign.lhs.symbol.name.lower() in neutral:
                continue
            return False
        block = ref.ancestor(IfBlock)
        if block is not None and _in(ref, block.condition):
            bodies = [block.if_body] + ([block.else_body] if block.else_body else [])
            if all(_only_reports(b.children, neutral) for b in bodies):
                continue
        return False
    # Printed (I/O text is not walked), or copied by an I/O statement into
    # a variable: then it may reach what the routine computes.
    table = routine.symbol_table
    for block in routine.walk(CodeBlock):
        if is_forward_only(block) and name in {n.lower() for n in block.get_symbol_names()} \
                and written_names(block, table) - neutral:
            return False
    return True


def _in(node, root):
    while node is not None:
        if node is root:
            return True
        node = node.parent
    return False


def check_saved_state(units, twice, filename, jacobian, why=None):
    """Reject SAVE'd state that changes derivatives in routines whose
    recording runs more than once per call.

    :param units: the differentiated units; :param twice: ids of those
        whose recording may run more than once.
    :param why: {id(unit): the joint links (caller, callee) that run it
        again}, named in the advice.
    :raises AdfortError: naming the variable.
    """
    for unit in units:
        if id(unit) not in twice:
            continue
        names = sorted(state_affecting_derivatives(unit.original))
        if not names:
            continue
        # (An active value one call leaves for the next is rejected before,
        # by check_carried_state: splitting would lose its derivative.)
        how, fix = rerun_advice((why or {}).get(id(unit), []), unit.name, jacobian)
        first = [a for a in unit.original.walk(Assignment)
                 if a.lhs.symbol.name.lower() == names[0]]
        raise AdfortError(
            f"'{names[0]}' is a SAVE'd variable of '{unit.name}' that it changes and "
            f"that changes what it computes: {how}, which would advance that state "
            f"more than once per call; make it an argument or a module variable{fix}",
            where(first[0] if first else unit.original,
                  source_name(unit.original) or filename))


def check_carried_state(units, activity, filename):
    """Reject a SAVE'd (or initialised) local that carries an active value
    from one call to the next: one a call may read before it sets it.
    A passive one (a table built on the first call, a first-call flag) is
    fine: no derivative flows through it.

    :param activity: the :class:`adfort.interprocedural.Activity`.
    :raises AdfortError: at the read, naming the variable.
    """
    for unit in units:
        routine = unit.original
        active = activity.active_locals(unit)
        table = routine.symbol_table
        for symbol in table.datasymbols:
            name = symbol.name.lower()
            if name not in active or not isinstance(symbol.interface, StaticInterface) \
                    or symbol.is_constant:
                continue
            found = read_on_entry(routine.children, name)
            if not isinstance(found, Reference):
                continue
            raise AdfortError(
                f"'{symbol.name}' is a SAVE'd (or initialised) variable of '{unit.name}' "
                "that carries a value depending on the independents from one call to "
                "the next (this reads the value an earlier call left): adfort cannot "
                "carry its derivative across calls; keep the value in a module variable "
                "(whose adjoint adfort carries from one call to the next) or pass it as "
                "an argument",
                where(found, source_name(routine) or filename))


def read_on_entry(statements, name):
    """Whether `statements`, run in order, may read the value variable
    `name` has before them: the first reference that may (a call given it,
    I/O naming it count as reads), "set" when they surely assign all of it
    first, None when they do neither.  An element or a section assigned
    leaves the rest to be read; a loop may run no iteration, but one
    reading only the elements a loop nest before it over the same ranges
    set (``do i = 1, n: w(i) = …`` then ``do i = 1, n: … w(i)``, F77 work
    arrays of a SAVE'd routine) reads none of the earlier call's."""
    filled = {}     # element patterns set by the loop nests so far: their bounds' names
    for stmt in statements:
        if filled and _changes(stmt, set().union(*filled.values())):
            filled.clear()  # (a bound changed: the ranges are others now)
        if isinstance(stmt, Loop) and stmt.variable.name.lower() == name:
            found = next((r for h in _heads(stmt) for r in h.walk(Reference)
                          if r.symbol.name.lower() == name), None)
            return found if found is not None else "set"   # (the DO sets it)
        if isinstance(stmt, Loop):
            key = _nest_key(stmt, name, filled)
            if key == "read":
                continue
            if key is not None:
                filled[key] = {bound[0] for low_high in key for bound in low_high} - {""}
                continue
        if isinstance(stmt, CodeBlock):
            if name in {n.lower() for n in stmt.get_symbol_names()}:
                return stmt
            continue
        named = [r for r in stmt.walk(Reference) if r.symbol.name.lower() == name]
        if not named:
            continue
        if isinstance(stmt, Assignment):
            reads = [r for r in named if r is not stmt.lhs]
            if reads:
                return reads[0]
            if not stmt.is_pointer and _whole(stmt.lhs):
                return "set"
            continue
        if isinstance(stmt, IfBlock):
            found = _first_named(stmt.condition, name)
            if found is not None:
                return found
            branches = [read_on_entry(stmt.if_body.children, name),
                        read_on_entry(stmt.else_body.children, name)
                        if stmt.else_body else None]
            for found in branches:
                if isinstance(found, Reference) or isinstance(found, CodeBlock):
                    return found
            if branches == ["set", "set"]:
                return "set"
            continue
        if isinstance(stmt, (Loop, WhileLoop)):
            heads = [stmt.condition] if isinstance(stmt, WhileLoop) else \
                [stmt.start_expr, stmt.stop_expr, stmt.step_expr]
            for head in heads:
                found = _first_named(head, name)
                if found is not None:
                    return found
            found = read_on_entry(stmt.loop_body.children, name)
            if found not in (None, "set"):
                return found
            continue
        return named[0]
    return None


def _heads(loop):
    return (loop.start_expr, loop.stop_expr, loop.step_expr)


def _changes(stmt, names):
    """Whether `stmt` may change a variable of `names` (assigns it, gives
    it to a routine, reads it in)."""
    for node in stmt.walk((Assignment, Call, CodeBlock)):
        if isinstance(node, Assignment):
            if node.lhs.symbol.name.lower() in names:
                return True
        elif isinstance(node, CodeBlock):
            if names & {n.lower() for n in node.get_symbol_names()}:
                return True
        elif not isinstance(node, IntrinsicCall) and any(
                r.symbol.name.lower() in names for a in node.arguments
                for r in a.walk(Reference)):
            return True
    return False


def _affine(expr):
    """(name or "", offset) of an integer expression ``n``, ``n ± 2``,
    ``3``; None for anything else."""
    if isinstance(expr, Literal):
        return ("", int(expr.value)) if expr.value.isdigit() else None
    if type(expr) is Reference:
        return expr.symbol.name.lower(), 0
    if isinstance(expr, BinaryOperation) and expr.operator in (
            BinaryOperation.Operator.ADD, BinaryOperation.Operator.SUB):
        left, right = (_affine(c) for c in expr.children)
        if left is None or right is None:
            return None
        sign = 1 if expr.operator == BinaryOperation.Operator.ADD else -1
        if right[0] == "":
            return left[0], left[1] + sign * right[1]
        if left[0] == "" and sign == 1:
            return right[0], right[1] + left[1]
    return None


def _interval(loop, offset):
    """((name, offset) low, high) of the values ``v + offset`` takes as
    `loop`'s DO variable v runs by steps of one either way; None when its
    bounds are not of that form."""
    start, stop = _affine(loop.start_expr), _affine(loop.stop_expr)
    step = loop.step_expr.debug_string().replace(" ", "")
    if start is None or stop is None or step not in ("1", "-1"):
        return None
    if step == "-1":
        start, stop = stop, start
    return (start[0], start[1] + offset), (stop[0], stop[1] + offset)


def _element_box(ref, top):
    """[(low, high)] per subscript of element `ref` subscripted by DO
    variables of loops within `top` (``w(i, k)``, ``w(i - 1)``), with the
    loops: None for any other subscript."""
    indices = getattr(ref, "indices", None)
    if type(ref).__name__ != "ArrayReference":
        return None
    enclosing, node = {}, ref.parent
    while node is not None and node is not top.parent:
        if isinstance(node, Loop):
            enclosing.setdefault(node.variable.name.lower(), node)
        node = node.parent
    box, loops = [], []
    for index in indices:
        form = _affine(index)
        if form is not None and form[0] == "":
            box.append((form, form))     # a constant subscript
            continue
        if form is None or form[0] not in enclosing:
            return None
        loop = enclosing[form[0]]
        interval = _interval(loop, form[1])
        if interval is None or any(lp is loop for lp in loops):
            return None
        box.append(interval)
        loops.append(loop)
    return box, loops


def _inside(box, filled):
    """Whether element box `box` lies within box `filled`: bounds of the
    same names, by offsets."""
    return len(box) == len(filled) and all(
        low[0] == flow[0] and low[1] >= flow[1] and high[0] == fhigh[0] and high[1] <= fhigh[1]
        for (low, high), (flow, fhigh) in zip(box, filled))


def _nest_key(loop, name, filled):
    """The element box a loop nest sets, or "read" when every reference to
    `name` in it is an element within a box of `filled`, else None.

    A box is the range of values of each subscript (the ranges of the
    loops whose DO variables subscript the array, shifted by offsets:
    ``w(i - 1)`` in ``do i = 2, n`` reads 1 … n-1); a perfect nest sets it
    when its innermost body's first statement naming the array assigns
    the element its DO variables subscript, unconditionally (``do k … do
    i …: w(i, k) = …``).  Neither the DO variables nor the bounds may
    change in the nest."""
    refs = [r for r in loop.walk(Reference) if r.symbol.name.lower() == name]
    if not refs:
        return None
    boxes = []
    for ref in refs:
        found = _element_box(ref, loop)
        if found is None:
            return None
        boxes.append(found)
    changed = {a.lhs.symbol.name.lower() for a in loop.walk(Assignment)}
    used = {lp.variable.name.lower() for _, loops in boxes for lp in loops}
    bounds = {r.symbol.name.lower() for _, loops in boxes for lp in loops
              for h in _heads(lp) for r in h.walk(Reference)}
    if changed & (used | bounds):
        return None
    if all(any(_inside(box, f) for f in filled) for box, _ in boxes):
        return "read"
    # Setting: a perfect nest whose innermost body assigns the element first
    # (and nothing leaves an iteration early: EXIT, CYCLE, RETURN…).
    if loop.walk((CodeBlock, Return)):
        return None
    nest = _nest(loop)
    first = next((c for c in nest[-1].loop_body.children if any(
        r.symbol.name.lower() == name for r in c.walk(Reference))), None)
    box, loops = boxes[0]
    if isinstance(first, Assignment) and first.lhs is refs[0] and \
            sorted(map(id, loops)) == sorted(map(id, nest)) and \
            all(type(i) is Reference for i in refs[0].indices) and not any(
                r.symbol.name.lower() == name for r in first.rhs.walk(Reference)):
        return tuple(box)
    return None


def _nest(loop):
    loops = [loop]
    while len(loops[-1].loop_body.children) == 1 and \
            isinstance(loops[-1].loop_body.children[0], Loop):
        loops.append(loops[-1].loop_body.children[0])
    return loops


def _whole(lhs):
    """Whether assignment target `lhs` is a whole variable (``v``, ``v(:)``)."""
    if type(lhs) is Reference:
        return True
    indices = getattr(lhs, "indices", None)
    return type(lhs).__name__ == "ArrayReference" and \
        all(lhs.is_full_range(i) for i in range(len(indices)))


def _first_named(expr, name):
    return next((r for r in expr.walk(Reference) if r.symbol.name.lower() == name), None)
