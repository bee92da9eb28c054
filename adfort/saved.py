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
"""

from psyclone.psyir.nodes import Assignment, CodeBlock, IfBlock, Loop, Reference
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
    state, or in conditions of IFs that only print, stop or update it."""
    candidates = written_saved_locals(routine)
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
