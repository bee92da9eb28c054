"""Which overwritten values the returning motion needs back.

A forward data-flow pass over the structured statements tracks, for each
variable, whether the adjoint code of some statement since the variable's
last overwrite reads it.  A write that finds its variable so marked must
tape the value it destroys: the returning motion reaches that adjoint only
after reversing the write, so it needs the value restored.  Branches merge
by union; loop bodies are visited until the marks are stable, since a
later iteration's write follows an earlier iteration's read.
"""

import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, CodeBlock, IfBlock, IntrinsicCall, Loop, Range, Reference,
    Schedule, WhileLoop)

from psyclone.psyir.symbols import ArrayType, ScalarType

from adfort.derived import STRUCTURE_REFERENCES
from adfort.loop_snapshots import snapshot_candidates
from adfort.transformations.allocation import (
    allocation_arguments, is_allocation, status_variables)


class TapingPlan:
    """The taping decisions for one routine.

    :ivar taped: ids of the Assignments whose overwritten value is taped.
    :ivar loop_indices: ids of the Loops whose index value before the loop
        is taped (the adjoint before the loop reads it).
    :ivar finals: names of locals whose value at the end of the recording
        motion is taped (the returning motion has its own locals).
    :ivar exit_reads: names of the variables whose values at the end of
        the recording motion the returning motion reads.
    """

    def __init__(self):
        self.taped = set()
        self.taped_arrays = set()  # (id(DEALLOCATE), array name)
        self.taped_calls = set()   # (id(call statement), variable name)
        # {(id(call statement), name): name of the copy a split link's
        # returning motion puts it back from instead of a tape}
        self.copied_back = {}
        self.loop_indices = set()
        self.finals = []
        self.exit_reads = set()
        # ids of the IfBlocks (Loops) whose condition (bounds) is evaluated again
        self.reevaluated = set()


def _kills(assign, alias=None):
    """Whether `assign` overwrites the whole of its target variable (not
    through a pointer, which may select part of it): ``t = …`` or ``t(:,
    :) = …``."""
    name = assign.lhs.symbol.name.lower()
    return (type(assign.lhs) is Reference or whole_section(assign.lhs)) \
        and name not in (alias or {}) and name not in (alias or {}).values()


def whole_section(ref):
    """Whether `ref` is an array section of every element of its array
    (``t(:)``, ``a(:, :)``), not of a structure's component."""
    return type(ref) is ArrayReference and all(
        isinstance(index, Range) and ref.is_full_range(position)
        for position, index in enumerate(ref.indices))


def _target(assign, alias):
    from adfort.pointers import canonical
    return canonical(assign.lhs.symbol.name.lower(), alias)


def plan_taping(statements, reads, locals_written, call_writes=None, alias=None,
                reevaluate=None, call_restores=None, reads_after=(), fresh=None,
                entry_reads=(), skipped=(), whole_saves=None):
    """Plan the taping of a routine's statements.

    :param statements: the routine's top-level statements.
    :param reads: dict id(statement) -> names its adjoint code reads
        (including the indices its restore would use).
    :param locals_written: names of local variables the routine writes.
    :param call_writes: dict id(call statement) -> names the call may
        overwrite (its arguments for non-``intent(in)`` formals).
    :param alias: {pointer name: name of its target}: a write through a
        pointer overwrites (part of) its target.
    :param reevaluate: {id(IfBlock or Loop): names its condition or bounds
        read} for the IFs whose condition and the DO loops whose bounds the
        returning motion evaluates again (after reversing what follows
        them: read at their end).
    :param call_restores: {id(call statement): names the callee's returning
        motion itself puts back as they were before the call} (split
        links): the caller does not save them around the call.
    :param reads_after: ids of the calls whose adjoint reads the values
        the call leaves (split links): their reads count after their
        writes (the value before the call is saved only if an earlier
        statement's adjoint needs it).
    :param fresh: {id(Assignment): id(Loop)} of the writes of fresh
        elements (:mod:`adfort.fresh_elements`): taped only if their array
        is needed as it was when their loop started.
    :param entry_reads: names whose values at entry the returning motion
        must put back (every write of them is taped).
    :param skipped: ids of the assignments and call statements that do not
        run (a joint re-run leaves them out, :mod:`adfort.rerun`): their
        adjoints read, they write nothing.
    :param whole_saves: {id(call statement): names a save around the call
        saves whole} (:func:`adfort.transformations.reverser.whole_saves`).
    :rtype: :class:`TapingPlan`
    """
    plan = TapingPlan()
    plan.fresh = fresh or {}
    plan.loop_entry = {}
    plan.call_writes = call_writes or {}
    plan.call_restores = call_restores or {}
    plan.reads_after = set(reads_after)
    plan.alias = alias or {}
    plan.reevaluate = reevaluate or {}
    plan.reevaluated = set(plan.reevaluate)
    plan.skipped = set(skipped)
    plan.whole_saves = whole_saves or {}
    # Arrays saved once before a loop that overwrites them several times
    # per iteration (adfort.loop_snapshots): {id(Loop): {name: …}}.
    plan.snapshot_candidates = snapshot_candidates(statements, reads, plan.reevaluate,
                                                   plan.call_writes, plan.alias)
    plan.snapshot_writes = {w for chosen in plan.snapshot_candidates.values()
                            for _, _, ids in chosen.values() for w in ids}
    plan.loop_snapshots = {}   # id(Loop): {name: section reference}
    used = _walk(statements, reads, {name: True for name in entry_reads}, plan)
    plan.finals = sorted(n for n, flag in used.items() if flag and n in locals_written)
    plan.exit_reads = {n for n, flag in used.items() if flag}
    return plan


def _merge(*states):
    merged = {}
    for state in states:
        for name, flag in state.items():
            merged[name] = merged.get(name, False) or flag
    return merged


def _walk(statements, reads, used, plan):
    used = dict(used)
    previous = None
    for stmt in statements:
        before, previous = previous, stmt
        if id(stmt) in plan.skipped:
            for name in reads.get(id(stmt), ()):
                used[name] = True
            continue
        if id(stmt) in plan.call_writes:
            # A call may or may not overwrite each variable it is given:
            # its old value is saved if needed, but it is not a sure kill.
            after = id(stmt) in plan.reads_after
            if not after:
                for name in reads.get(id(stmt), ()):
                    used[name] = True
            restores = plan.call_restores.get(id(stmt), ())
            whole = plan.whole_saves.get(id(stmt), ())
            for name in plan.call_writes[id(stmt)]:
                if used.get(name) and name not in restores:
                    plan.taped_calls.add((id(stmt), name))
                    copy = _copy_before(before, stmt, name, reads, plan)
                    if copy is not None:
                        plan.copied_back[(id(stmt), name)] = copy
                    if name in whole:
                        # Saved whole here: the adjoints before the call
                        # get their values back whatever follows.
                        used[name] = False
            if isinstance(stmt, Assignment) and _kills(stmt, plan.alias):
                target = _target(stmt, plan.alias)
                if used.get(target):
                    plan.taped.add(id(stmt))
                used[target] = False
            if after:
                for name in reads.get(id(stmt), ()):
                    used[name] = True
        elif isinstance(stmt, Assignment) and stmt.is_pointer:
            for name in reads.get(id(stmt), ()):
                used[name] = True  # its subscripts, to re-associate it
        elif isinstance(stmt, Assignment):
            for name in reads.get(id(stmt), ()):
                used[name] = True
            target = _target(stmt, plan.alias)
            needed = used
            if id(stmt) in plan.fresh:
                needed = plan.loop_entry.get(plan.fresh[id(stmt)], used)
            if needed.get(target) and id(stmt) not in plan.snapshot_writes:
                plan.taped.add(id(stmt))
            if _kills(stmt, plan.alias):
                used[target] = False
        elif is_allocation(stmt):
            for arg in allocation_arguments(stmt):
                name = arg.symbol.name.lower()
                if stmt.intrinsic.name == "DEALLOCATE" and used.get(name):
                    plan.taped_arrays.add((id(stmt), name))
                if type(arg) not in STRUCTURE_REFERENCES:
                    # (A component's allocation leaves the rest of the
                    # variable as it was.)
                    used[name] = False
            for name in status_variables(stmt):
                # stat= and errmsg= are always set: saved like a call's result.
                if used.get(name):
                    plan.taped_calls.add((id(stmt), name))
                used[name] = False
        elif isinstance(stmt, IfBlock):
            branches = [_walk(stmt.if_body.children, reads, used, plan)]
            if stmt.else_body is not None:
                branches.append(_walk(stmt.else_body.children, reads, used, plan))
            else:
                branches.append(used)
            used = _merge(*branches)
            for name in plan.reevaluate.get(id(stmt), ()):
                used[name] = True
        elif isinstance(stmt, (Loop, WhileLoop)):
            plan.loop_entry[id(stmt)] = dict(used)
            for name, (section, bounds, _) in plan.snapshot_candidates.get(
                    id(stmt), {}).items():
                if used.get(name):
                    plan.loop_snapshots.setdefault(id(stmt), {})[name] = section
            body = stmt.loop_body.children
            once = _walk(body, reads, used, plan)
            again = _walk(body, reads, _merge(used, once), plan)
            used = _merge(used, once, again)
            if isinstance(stmt, Loop):
                index = stmt.variable.name.lower()
                if used.get(index):
                    plan.loop_indices.add(id(stmt))
                used[index] = False
            for name in plan.reevaluate.get(id(stmt), ()):
                used[name] = True  # bounds evaluated again, where it is reversed
            for chosen in plan.loop_snapshots.get(id(stmt), {}):
                for name in plan.snapshot_candidates[id(stmt)][chosen][1]:
                    used[name] = True  # the section restored where it is reversed
    return used


def _copy_before(before, call, name, reads, plan):
    """The copy ``c = name`` statement `before` makes just before `call`
    overwrites `name` (``rhs = th; call tridiag(a, b, c, rhs, th)``), or
    None: where the call is reversed, ``c`` holds that value again when the
    call's reversal reads it and the call does not change it, so ``name``
    is put back from ``c`` instead of the tape (both whole variables of one
    intrinsic type, neither allocatable nor aliased by a pointer)."""
    if not isinstance(call, Call) or isinstance(call, IntrinsicCall) or \
            not isinstance(before, Assignment) or before.is_pointer or \
            id(before) in plan.skipped or \
            type(before.lhs) is not Reference or type(before.rhs) is not Reference:
        return None
    copy = before.lhs.symbol.name.lower()
    if before.rhs.symbol.name.lower() != name or copy == name or \
            copy in plan.call_writes.get(id(call), ()) or \
            copy not in reads.get(id(call), ()):
        return None
    aliased = set(plan.alias) | set(plan.alias.values())
    if name in aliased or copy in aliased:
        return None
    types = [_plain_type(before.lhs.symbol), _plain_type(before.rhs.symbol)]
    if None in types or types[0] != types[1]:
        return None
    return copy


def _plain_type(symbol):
    """(intrinsic, precision, rank) of a real, integer or logical variable
    of fixed shape, else None."""
    datatype = getattr(symbol, "datatype", None)
    rank = 0
    if isinstance(datatype, ArrayType):
        if any(extent == ArrayType.Extent.DEFERRED for extent in datatype.shape):
            return None  # allocatable: the copy may have another shape
        rank = len(datatype.shape)
        datatype = ScalarType(datatype.intrinsic, datatype.precision)
    if not isinstance(datatype, ScalarType) or datatype.intrinsic not in (
            ScalarType.Intrinsic.REAL, ScalarType.Intrinsic.INTEGER,
            ScalarType.Intrinsic.BOOLEAN):
        return None
    return (datatype.intrinsic, str(datatype.precision), rank)


def restored_on_return(routine, plan, formals, skipped=None):
    """Names among `formals` that the returning motion leaves as they were
    when the recording motion started: every write of each (assignments,
    calls, kept statements) has its overwritten value put back, by this
    routine's tape or by a split callee's own returning motion.  A caller
    linking this routine split needs not save them around the call.

    Conservative: a variable also written otherwise (a DO variable, an
    allocation, an intrinsic subroutine, an opaque statement, through a
    pointer) is not counted.

    :param routine: the working copy the plan was made for.
    :param plan: its :class:`TapingPlan`.
    :param formals: lower-case names of its dummy arguments.
    :param skipped: None, or (for ``f_rev``) ids of the statements its
        re-run leaves out (:mod:`adfort.rerun`): their assignments do not
        count, and a call's writes count as put back only when this routine
        saves them around it (``f_rev`` reverses its calls by their
        ``f_rev``, even those its re-run leaves out, not by the returning
        motions that put back what they change).
    :rtype: set of str
    """
    candidates = set(formals) - set(plan.alias) - set(plan.alias.values())
    if skipped:
        def runs(node):
            while node is not None:
                if id(node) in skipped:
                    return False
                node = node.parent
            return True
    else:
        def runs(node):
            return True
    for loop in routine.walk(Loop):
        candidates.discard(loop.variable.name.lower())
    calls = set(plan.call_writes)
    for node in routine.walk((Call, CodeBlock)):
        if isinstance(node, CodeBlock):
            if id(node) not in calls:
                text = " ".join(str(a).lower() for a in node.parse_tree_nodes)
                candidates = {n for n in candidates
                              if not _names_word(text, n)}
            continue
        statement = isinstance(node.parent, Schedule)
        if statement and (isinstance(node, IntrinsicCall) or id(node) not in calls):
            # ALLOCATE, intrinsic subroutines: writes not put back here.
            for ref in node.walk(Reference):
                candidates.discard(ref.symbol.name.lower())
    snapshot = {w for key, names in plan.loop_snapshots.items() for name in names
                for w in plan.snapshot_candidates[key][name][2]}
    first_whole = _first_whole_taped_writes(routine, plan, candidates, runs)
    for assign in routine.walk(Assignment):
        name = assign.lhs.symbol.name.lower()
        if name not in candidates or not runs(assign) or name in first_whole:
            continue
        if id(assign) in plan.call_writes:
            continue  # a function call's target: checked with the calls
        if assign.is_pointer or (id(assign) not in plan.taped and id(assign) not in snapshot):
            candidates.discard(name)
    targets = {id(a): a.lhs.symbol.name.lower() for a in routine.walk(Assignment)
               if id(a) in plan.call_writes and id(a) in plan.taped}
    # (A call the re-run leaves out is still reversed, by its f_rev, which
    # may change what it writes.)
    for key, names in plan.call_writes.items():
        restores = plan.call_restores.get(key, ()) if skipped is None else ()
        for name in (names & candidates) - first_whole:
            if (key, name) not in plan.taped_calls and name not in restores \
                    and targets.get(key) != name:
                candidates.discard(name)
    return candidates


def _first_whole_taped_writes(routine, plan, candidates, runs):
    """Names among `candidates` whose first write in the routine is a taped
    assignment of the whole variable among its top-level statements (calling
    no user function, which might change the variable first): its
    restore, the last of the returning motion's, puts back the value at
    entry, whatever the writes after it leave (those need no tape of their
    own unless an adjoint reads what they overwrite)."""
    found, written = set(), set()
    for stmt in routine.children:
        if isinstance(stmt, Assignment) and not stmt.is_pointer and runs(stmt) \
                and id(stmt) in plan.taped and id(stmt) not in plan.call_writes \
                and _kills(stmt, plan.alias) and not any(
                    not isinstance(call, IntrinsicCall) for call in stmt.walk(Call)):
            name = stmt.lhs.symbol.name.lower()
            if name in candidates and name not in written:
                found.add(name)
        written |= _may_write(stmt, candidates)
    return found


def _may_write(stmt, candidates):
    """Lower-case names `stmt` may write (over-approximated: every name a
    call, an opaque statement or an allocation mentions)."""
    names = set()
    for node in stmt.walk((Assignment, Call, CodeBlock, Loop)):
        if isinstance(node, Assignment):
            names.add(node.lhs.symbol.name.lower())
        elif isinstance(node, Loop):
            names.add(node.variable.name.lower())
        elif isinstance(node, CodeBlock):
            text = " ".join(str(a).lower() for a in node.parse_tree_nodes)
            names |= {n for n in candidates if _names_word(text, n)}
        elif not (isinstance(node, IntrinsicCall) and not isinstance(node.parent, Schedule)):
            # (An intrinsic function in an expression writes nothing.)
            names |= {ref.symbol.name.lower() for ref in node.walk(Reference)}
    return names


def _names_word(text, name):
    return re.search(r"\b%s\b" % re.escape(name), text) is not None
