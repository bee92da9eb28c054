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
    Assignment, CodeBlock, IfBlock, Loop, Reference, WhileLoop)
from psyclone.psyir.symbols import StaticInterface

from adfort.errors import AdfortError, source_name, where
from adfort.forward_only import is_forward_only, written_names


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
    neutral = set(candidates)
    changed = True
    while changed:
        changed = False
        for name in sorted(neutral):
            if not _read_only_for_reports(routine, name, neutral):
                neutral.discard(name)
                changed = True
    return candidates - neutral


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


def check_saved_state(units, twice, filename, jacobian):
    """Reject SAVE'd state that changes derivatives in routines whose
    recording runs more than once per call.

    :param units: the differentiated units; :param twice: ids of those
        whose recording may run more than once.
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
        how = ("--jacobian reverses the routine once per row" if jacobian else
               "a call reversed joint runs it forward twice")
        fix = "" if jacobian else (
            f", or reverse the calls of '{unit.name}' split (--schedule split or "
            f"--link caller:{unit.name.lower()}=split)")
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
    leaves the rest to be read; a loop may run no iteration."""
    for stmt in statements:
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


def _whole(lhs):
    """Whether assignment target `lhs` is a whole variable (``v``, ``v(:)``)."""
    if type(lhs) is Reference:
        return True
    indices = getattr(lhs, "indices", None)
    return type(lhs).__name__ == "ArrayReference" and \
        all(lhs.is_full_range(i) for i in range(len(indices)))


def _first_named(expr, name):
    return next((r for r in expr.walk(Reference) if r.symbol.name.lower() == name), None)
