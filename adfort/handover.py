"""Locals the returning motion computes again instead of receiving them
from the recording motion on the tape.

The returning motion has its own locals: a value it reads after the last
write of its variable is handed over at the end of the recording (a push
per call, kept until the call is reversed, for the whole run under the
split schedule).  A scalar set once, at the top level of the routine, by a
cheap formula (:func:`adfort.recompute.condition_reads`, at most
``_MAX_REAL_NODES`` nodes: ``tc = t - t0c``, ``rh = e/es``) of arguments the
routine never changes, constants and other such scalars or handed-over
scalars set once before it, holds that value from its statement to the
end: the returning motion computes it again at its start, after the pops
of the values still handed over, for the cost of a few operations per
call.  A square root counts as cheap here (a flux routine's wave speeds);
other costly values (EXP, LOG, powers: :mod:`adfort.stored_values`) stay
on the tape.

Local arrays one top-level loop sets from cheap formulas are computed again
too (:func:`arrays_computed_again`): at the returning motion's start when
what they read never changes, else (MUSCL slopes of the state a step then
updates) just before the reversal of their last reader, when no statement
from the loop to it changes what they read: the taping plan then counts
that reader as reading the inputs, so the returning motion has them back.
"""

import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, DataNode, IfBlock,
    IntrinsicCall, Literal, Loop, Node, Reference, Schedule)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, AutomaticInterface, DataSymbol, ScalarType)

from adfort.fresh_elements import unit_step
from adfort.iterations import _MAX_REAL_NODES, _local_scalar
from adfort.recompute import CHEAP_INTRINSICS, condition_reads
from adfort.tape import written_names


# A hand-over costs a push per call, kept on the tape for the whole run
# under the split schedule; a square root costs about a division: computed
# again.  EXP, LOG and real powers stay on the tape.
_HANDOVER_CHEAP = CHEAP_INTRINSICS | {"SQRT"}


def computed_again(routine, finals, written, call_writes, alias, constant=None,
                   cheap_calls=frozenset(), received=()):
    """(names, statements): the handed-over locals of `finals` computed
    again, and the top-level statements of `routine` (in order, to be
    copied) computing them and the locals they read.

    :param written: lower-case names of the variables the routine may
        change (assignments, loops, calls).
    :param call_writes: {id(statement): names a call or kept statement may
        change}.
    :param constant: ``constant(name)``: whether the module variable
        `name` the routine sees is a named constant.
    :param cheap_calls: ids of the calls to short functions
        (:func:`adfort.iterations.cheap_function`): ``v = f(r)`` (a
        limiter's value) is computed again like a formula.
    :param received: lower-case names of the scalars the returning motion
        is given as the recording motion left them (its arguments, a
        function's result): a costly local ``v`` whose value one of them
        takes whole (``esat = exp_value``, set nowhere else) is copied
        back from it (``exp_value = esat``), not handed over.
    """
    if alias or not finals:
        return set(), []
    table = routine.symbol_table
    opaque = " ".join(str(n).lower() for b in routine.walk(CodeBlock)
                      for n in b.parse_tree_nodes)
    # (A short function's value: its target is the call's only write.)
    by_calls = set().union(*(names for key, names in call_writes.items()
                             if key not in cheap_targets(routine, cheap_calls))) \
        if call_writes else set()
    loops = {loop.variable.name.lower() for loop in routine.walk(Loop)}
    # ALLOCATE(…, stat=ierr), intrinsic subroutines: writes too.
    loops |= {r.symbol.name.lower() for c in routine.walk(IntrinsicCall)
              if isinstance(c.parent, Schedule) for r in c.walk(Reference)}
    setters = {}
    for assign in routine.walk(Assignment):
        name = assign.lhs.symbol.name.lower()
        setters.setdefault(name, []).append(assign)
    once = {}   # name -> (position, statement) of the single top-level setter
    for name, assigns in setters.items():
        stmt = assigns[0]
        if (len(assigns) == 1 and stmt.parent is routine and type(stmt.lhs) is Reference
                and (id(stmt) not in call_writes or id(stmt.rhs) in cheap_calls)
                and name not in by_calls
                and name not in loops and _local_value(table.lookup(name, otherwise=None))
                and not re.search(r"\b%s\b" % re.escape(name), opaque)):
            once[name] = (stmt.position, stmt)
    copied = _copied_back(routine, setters, once, set(received), by_calls | loops, opaque)
    candidates = {n for n, (_, s) in once.items() if n in copied or _cheap(s, cheap_calls)}
    for name, copy in copied.items():
        once[name] = (once[name][0], copy)
    while True:
        dropped = {n for n in candidates if n not in copied and
                   not _reads_available(once[n], once, candidates, finals, written, table,
                                        constant or (lambda name: False), cheap_calls)}
        if not dropped:
            break
        candidates -= dropped
    needed = set(finals) & candidates
    while True:   # the candidates the needed ones read
        more = {r for n in needed if n not in copied
                for r in _formula_reads(once[n][1], cheap_calls)} & candidates
        if more <= needed:
            break
        needed |= more
    statements = [s for _, s in sorted(once[n] for n in needed)]
    return needed, statements


def _copied_back(routine, setters, once, received, other_writes, opaque):
    """{name: ``name = o``}: the locals set once at the top level whose
    value later top-level copies give whole, alone, to a scalar `o` the
    returning motion receives (``exp_value`` of ``x = exp_value; e = x``,
    see :func:`computed_again`), each copy the only write of its target."""
    copy_to = {}   # v -> the target of the copy o = v that alone sets o
    for target, assigns in setters.items():
        stmt = assigns[0]
        if len(assigns) != 1 or target in other_writes or stmt.parent is not routine or \
                type(stmt.lhs) is not Reference or type(stmt.rhs) is not Reference or \
                not isinstance(stmt.lhs.symbol.datatype, ScalarType) or \
                stmt.lhs.symbol.datatype != stmt.rhs.symbol.datatype or \
                re.search(r"\b%s\b" % re.escape(target), opaque):
            continue
        source = stmt.rhs.symbol.name.lower()
        if source in once and once[source][0] < stmt.position:
            copy_to[source] = stmt.lhs.symbol
    copied = {}
    for name in once:
        end, seen = name, {name}
        while end in copy_to and copy_to[end].name.lower() not in seen:
            end = copy_to[end].name.lower()
            seen.add(end)
        if end != name and end in received:
            copied[name] = Assignment.create(Reference(once[name][1].lhs.symbol),
                                             Reference(routine.symbol_table.lookup(end)))
    return copied


def _local_value(symbol):
    """A local scalar (:func:`adfort.iterations._local_scalar`) or a local
    array of fixed or automatic extents (``s = bed + h``: its whole value,
    set by one statement, is computed again as a scalar is)."""
    if _local_scalar(symbol):
        return True
    return (_local_array(symbol) and type(symbol.datatype) is ArrayType
            and not symbol.is_constant
            and symbol.datatype.intrinsic in (ScalarType.Intrinsic.INTEGER,
                                              ScalarType.Intrinsic.REAL)
            and all(isinstance(dim, ArrayType.ArrayBounds) for dim in symbol.datatype.shape))


def cheap_targets(routine, cheap_calls):
    """ids of the assignments ``v = f(…)`` of short functions."""
    return {id(a) for a in routine.walk(Assignment) if id(a.rhs) in cheap_calls}


def _formula_reads(stmt, cheap_calls):
    """Names the right-hand side of `stmt` reads (a short function's
    call: what its arguments read), or None when it is not cheap."""
    if id(stmt.rhs) in cheap_calls:
        names = set()
        for argument in stmt.rhs.arguments:
            read = condition_reads(argument)
            if read is None:
                return None
            names |= read
        return names
    return condition_reads(stmt.rhs, _HANDOVER_CHEAP)


def _cheap(stmt, cheap_calls=frozenset()):
    """A short formula without a real power (an EXP and a LOG), or a
    short function of such."""
    reads = _formula_reads(stmt, cheap_calls)
    return reads is not None and len(stmt.rhs.walk(DataNode)) <= _MAX_REAL_NODES and all(
        isinstance(op.children[1], Literal) and op.children[1].value.isdigit()
        for op in stmt.rhs.walk(BinaryOperation) if op.operator == BinaryOperation.Operator.POW)


def _reads_available(setter, once, candidates, finals, written, table, constant,
                     cheap_calls=frozenset()):
    """Whether what statement `setter` reads holds, at the returning
    motion's start, the value it had at the statement."""
    position, stmt = setter
    for name in _formula_reads(stmt, cheap_calls):
        symbol = table.lookup(name, otherwise=None)
        if getattr(symbol, "is_constant", False) or constant(name):
            continue
        if getattr(symbol, "is_argument", False) and name not in written:
            continue   # passed to the returning motion as the recording had it
        if name in once and once[name][0] < position and (name in candidates
                                                          or name in finals):
            continue   # set once before: computed again first, or handed over
        return False
    return True


def arrays_computed_again(routine, finals, again, written, call_writes, alias, constant=None,
                          reads=None):
    """(names, statements): the handed-over local arrays of `finals` that
    one top-level DO loop sets from cheap formulas, computed again at the
    returning motion's start (by copies of their statements: the element
    writes before the loop, then the loop holding only theirs) instead of
    being handed over whole.

    An array qualifies when every write of it is ``a(i) = formula`` in that
    loop (``i`` its index; unit step; IFs allowed) or an element write at
    the top level before it (``cp(1) = c(1)/b(1)``), no call, pointer or
    I/O statement reaches it, and each formula, condition and bound reads
    only the index, constants, arguments the routine never changes, scalars
    set once before and computed again or handed over (`again`, `finals`),
    other such arrays and scalars only the loop sets by such formulas
    (``den = b(k) - a(k)*cp(k-1)``): a column's tridiagonal coefficients and
    the Thomas algorithm's forward sweep.

    :param again: names of the scalars :func:`computed_again` computes again.
    :param reads: None, or {id(node): names} of what the adjoints (and the
        conditions evaluated again) read: then the arrays whose formulas
        read values later statements change (MUSCL slopes of the state a
        time step updates) are the ones looked for, computed again where
        the returning motion has those values back (see
        :func:`_placed_late`).
    :returns: (set of names, list of statement copies in source order);
        with `reads`, (set of names, {id(top-level statement T): statement
        copies to run before T is reversed}, {id(node): names read instead}).
    """
    late, adjoint_reads = reads is not None, reads
    if alias or not finals:
        return (set(), {}, {}) if late else (set(), [])
    table = routine.symbol_table
    constant = constant or (lambda name: False)
    opaque = " ".join(str(n).lower() for b in routine.walk(CodeBlock)
                      for n in b.parse_tree_nodes)
    by_calls = set().union(*call_writes.values()) if call_writes else set()
    loop_indices = {loop.variable.name.lower() for loop in routine.walk(Loop)}
    count = {}
    for assign in routine.walk(Assignment):
        name = assign.lhs.symbol.name.lower()
        count[name] = count.get(name, 0) + 1
    # Scalars set once, at the top level: their value holds from there on.
    once = {}
    for stmt in routine.children:
        if isinstance(stmt, Assignment) and type(stmt.lhs) is Reference:
            name = stmt.lhs.symbol.name.lower()
            if count[name] == 1 and name not in by_calls and name not in loop_indices:
                once[name] = stmt.position
    found, copies, instead = set(), ({} if late else []), {}
    for loop in routine.children:
        # (Its index is set by the copy: not if the returning motion
        # receives its value.)
        if not _plain_loop(loop) or loop.variable.name.lower() in finals:
            continue
        index = loop.variable.name.lower()
        inside, ahead = {}, {}
        for assign in loop.loop_body.walk(Assignment):
            inside.setdefault(assign.lhs.symbol.name.lower(), []).append(assign)
        # Element writes at the top level around the loop (``cp(1) = …``
        # before it, ``ke(nlev) = 0`` after it): computed again in order.
        for stmt in routine.children:
            if stmt is not loop and isinstance(stmt, Assignment) and \
                    isinstance(stmt.lhs, ArrayReference) and (not late or
                                                              stmt.position < loop.position):
                ahead.setdefault(stmt.lhs.symbol.name.lower(), []).append(stmt)

        def eligible(name):
            return name not in by_calls and name not in opaque and name != index
        arrays = {n for n, assigns in inside.items()
                  if n in finals and eligible(n)
                  and _local_array(table.lookup(n, otherwise=None))
                  and all(_indexed_by(a, index) for a in assigns)
                  and count[n] == len(assigns) + len(ahead.get(n, ()))}
        temporaries = {n for n, assigns in inside.items()
                       if eligible(n) and _local_scalar(table.lookup(n, otherwise=None))
                       and count[n] == len(assigns)
                       and all(type(a.lhs) is Reference for a in assigns)}
        # Scalars other loops set too, each iteration setting them first
        # (im = i - 1): the copy sets its own (renamed) ones.
        shared = {n for n, assigns in inside.items()
                  if n not in temporaries and eligible(n)
                  and _local_scalar(table.lookup(n, otherwise=None))
                  and all(type(a.lhs) is Reference for a in assigns)
                  and _set_first(loop, n)}
        temporaries |= shared
        chosen = arrays | temporaries
        given = set() if late else _given_arrays(routine, loop, inside, finals, count, table,
                                                 eligible, by_calls)

        loop_writes = written_names([loop], call_writes)
        inputs = set()

        def available(name, position):
            symbol = table.lookup(name, otherwise=None)
            if name == index or name in chosen or name in given \
                    or getattr(symbol, "is_constant", False) or constant(name):
                return True
            if getattr(symbol, "is_argument", False) and name not in written:
                return True
            if (name in again or name in finals) and once.get(name, position) < position:
                return True
            if late and isinstance(symbol, DataSymbol) and name not in loop_writes and \
                    isinstance(symbol.interface, (ArgumentInterface, AutomaticInterface)):
                # An argument or local: the taping plan puts it back for the
                # reader (module and COMMON variables are the callers').
                inputs.add(name)
                return True
            return False

        def reads_of(stmt):
            reads = condition_reads(stmt.rhs)
            lhs = {r.symbol.name.lower() for r in stmt.lhs.walk(Reference) if r is not stmt.lhs}
            guards = _guard_reads(stmt, loop) if stmt.parent is not routine else set()
            if reads is None or guards is None or (stmt.parent is routine and not all(
                    condition_reads(i) is not None for i in stmt.lhs.indices)):
                return None
            return reads | guards | lhs

        bounds = [loop.start_expr, loop.stop_expr]
        if any(condition_reads(b) is None or not all(available(n, loop.position)
                                                     for n in condition_reads(b))
               for b in bounds):
            continue
        while chosen:   # drop what reads what is not there
            dropped = set()
            for name in chosen:
                for stmt in inside[name] + ahead.get(name, []):
                    position = stmt.position if stmt.parent is routine else loop.position
                    reads = reads_of(stmt)
                    if reads is None or not all(available(n, position) for n in reads):
                        dropped.add(name)
                        break
            if not dropped:
                break
            chosen -= dropped
        arrays &= chosen
        if late:
            placed = _placed_late(routine, loop, arrays, inputs, adjoint_reads, call_writes) \
                if arrays and inputs and not any(ahead.get(n) for n in arrays) else None
            if placed is not None:
                target, replaced = placed
                copy = _only(loop, chosen)
                copy.adfort_renamed = temporaries & chosen   # its own scalars
                copies.setdefault(id(target), []).append(copy)
                instead.update(replaced)
                adjoint_reads = {**adjoint_reads, **replaced}
                found |= arrays
        elif arrays:
            around = [s for s in routine.children if s is not loop
                      and isinstance(s, Assignment) and isinstance(s.lhs, ArrayReference)
                      and s.lhs.symbol.name.lower() in arrays]
            copies += [s.copy() for s in around if s.position < loop.position]
            copy = _only(loop, chosen)
            copy.adfort_renamed = shared & chosen   # (their values are the other loops')
            copies.append(copy)
            copies += [s.copy() for s in around if s.position > loop.position]
            found |= arrays
    return (found, copies, instead) if late else (found, copies)


def _given_arrays(routine, loop, inside, finals, count, table, eligible, by_calls):
    """Handed-over local arrays each iteration of a copy of `loop` finds,
    in the array the returning motion is handed, as the recording's
    iteration read them: those only top-level statements before `loop`
    set (``rhs(k) = t(k)`` in a loop of their own), and those that `loop`
    alone sets, element `i` at the top level of its body, and that its
    statements after those read only at element `i`.  (The copy of the
    loop leaves their statements out: it does not set them.)"""
    index = loop.variable.name.lower()
    body = loop.loop_body.children
    given = set()
    for name in finals:
        if name in inside or name in by_calls or not eligible(name) or \
                not _local_array(table.lookup(name, otherwise=None)):
            continue
        setters = [a for stmt in routine.children[:loop.position]
                   for a in stmt.walk(Assignment) if a.lhs.symbol.name.lower() == name]
        if setters and len(setters) == count.get(name, 0):
            given.add(name)
    for name, assigns in inside.items():
        if name not in finals or not eligible(name) or count[name] != len(assigns) \
                or not _local_array(table.lookup(name, otherwise=None)) \
                or not all(a.parent is loop.loop_body and _indexed_by(a, index)
                           for a in assigns):
            continue
        last = max(a.position for a in assigns)
        lhs = {id(a.lhs) for a in assigns}
        if all(stmt.position > last and type(ref) is ArrayReference
               and _indexed_by_ref(ref, index)
               for stmt in body for ref in stmt.walk(Reference)
               if ref.symbol.name.lower() == name and id(ref) not in lhs) \
                and not any(r.symbol.name.lower() == name for stmt in body
                            for r in stmt.walk(Reference) if stmt.position < last
                            and id(r) not in lhs):
            given.add(name)
    return given


def _indexed_by_ref(ref, index):
    return len(ref.indices) == 1 and type(ref.indices[0]) is Reference \
        and ref.indices[0].symbol.name.lower() == index


def _set_first(loop, name):
    """Whether each iteration of `loop` sets scalar `name` first: the
    first statement of its body naming it assigns it unconditionally from
    a formula not reading it."""
    for stmt in loop.loop_body.children:
        if name not in {r.symbol.name.lower() for r in stmt.walk(Reference)}:
            continue
        return isinstance(stmt, Assignment) and type(stmt.lhs) is Reference and \
            stmt.lhs.symbol.name.lower() == name and \
            name not in {r.symbol.name.lower() for r in stmt.rhs.walk(Reference)}
    return False


def _placed_late(routine, loop, arrays, inputs, reads, call_writes):
    """(T, {id(node): names read instead}) for local `arrays` that `loop`
    sets from `inputs`, some of which later statements change: computed
    again just before the reversal of T, the last top-level statement
    whose adjoint reads them, when no statement from `loop` to T changes
    an input and nothing up to `loop` reads the arrays; the reads of the
    arrays become reads of the inputs (so the taping plan puts the inputs
    back by then).  None otherwise."""
    last = None
    for stmt in routine.children:
        nodes = [stmt] + stmt.walk(Node)
        if not any(arrays & set(reads.get(id(n), ())) for n in nodes):
            continue
        if stmt.position <= loop.position:
            return None
        last = stmt
    if last is None:
        return None
    if inputs & written_names(routine.children[loop.position + 1:last.position + 1],
                              call_writes):
        return None
    replaced = {}
    for stmt in routine.children[loop.position + 1:last.position + 1]:
        for node in [stmt] + stmt.walk(Node):
            names = set(reads.get(id(node), ()))
            if names & arrays:
                replaced[id(node)] = (names - arrays) | inputs
    return last, replaced


def _plain_loop(node):
    """A DO loop of unit step holding only assignments and IFs (intrinsic
    calls only: the formulas' own check keeps the cheap ones)."""
    if not isinstance(node, Loop) or unit_step(node) != 1:
        return False
    return all(isinstance(s, (Assignment, IfBlock)) and not s.walk((CodeBlock, Loop))
               and all(isinstance(c, IntrinsicCall) for c in s.walk(Call))
               for s in node.loop_body.children)


def _local_array(symbol):
    return (isinstance(symbol, DataSymbol) and isinstance(symbol.interface, AutomaticInterface)
            and isinstance(symbol.datatype, ArrayType) and symbol.initial_value is None
            and not getattr(symbol.datatype, "is_allocatable", False))


def _indexed_by(assign, index):
    """``a(i) = …`` with `i` the loop's index, not through a pointer."""
    lhs = assign.lhs
    return (isinstance(lhs, ArrayReference) and len(lhs.indices) == 1
            and type(lhs.indices[0]) is Reference
            and lhs.indices[0].symbol.name.lower() == index and not assign.is_pointer)


def _guard_reads(assign, loop):
    """Names the IF conditions around `assign` inside `loop` read (None if
    one is not cheap)."""
    names, node = set(), assign.parent
    while node is not None and node is not loop:
        if isinstance(node, IfBlock):
            reads = condition_reads(node.condition)
            if reads is None:
                return None
            names |= reads
        node = node.parent
    return names


def _only(loop, arrays):
    """A copy of `loop` holding only the statements that set `arrays` (and
    the IFs around them)."""
    copy = loop.copy()
    for assign in copy.loop_body.walk(Assignment):
        if assign.lhs.symbol.name.lower() not in arrays:
            assign.detach()
    for block in reversed(copy.loop_body.walk(IfBlock)):
        if block.else_body is not None and not block.else_body.children:
            block.children[2].detach()   # an empty ELSE
        if not block.if_body.children and block.else_body is None:
            block.detach()
    return copy
