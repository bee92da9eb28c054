"""Adjoint liveness: the part of a recording motion its returning motion
needs.

A callee reversed joint runs forward twice: once as itself, where its
caller runs it, and once more inside ``f_rev``, recording for ``f_ret``.
The second run need not produce the callee's results (its caller has them
already, and puts back from its own tape what it needs of the values
before): it must only push what ``f_ret`` pops and leave what ``f_ret``
reads on entry.  A backward liveness pass over the recording keeps

- the roots: tape pushes and tape-top moves, calls (they may push, read or
  write anything not local), intrinsic statements (ALLOCATE…), jumps
  (EXIT, CYCLE, RETURN) and statements calling a user function;
- every assignment to a variable a kept statement reads later, or that the
  returning motion reads on entry (the exit reads), or that outlives the
  call (module, COMMON and SAVE'd variables);
- the IF blocks and loops around kept statements, with what their
  conditions and bounds read, and a loop whose index is read after it.

Everything else (the callee's results, intermediate values only they
need) is dropped from ``f_rev``'s recording: the flux a routine returns,
the final formula of a thermodynamic function.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, CodeBlock, IfBlock, IntrinsicCall, Loop, Range, Reference,
    Schedule, Statement, WhileLoop)
from psyclone.psyir.symbols import AutomaticInterface, DataSymbol

from adfort.reserves import drop_covered_reserves


def lean_recording(statements, table, exit_reads, tapes, reserves=None, pure=()):
    """Drop from `statements` (a recording motion's body, modified in
    place) what neither its pushes nor the returning motion need.

    :param statements: the body's top-level statements (a list).
    :param table: the symbol table of the routine the body belongs to.
    :param exit_reads: lower-case names the returning motion reads on
        entry.
    :param tapes: lower-case names of the tapes and their tops.
    :param reserves: {lower-case name of a tape's reserve routine: the
        names pushing on it} (see :func:`drop_idle_reserves`): room is not
        made on a tape nothing is pushed on.
    :param pure: lower-case names of user functions that change nothing
        but their result (a limiter): a statement calling one is kept only
        if its value is needed.
    :returns: the statements kept (a new list).
    """
    if any(s.walk(CodeBlock) for s in statements):
        return statements  # what an I/O statement reads is not known here
    names = {r.symbol.name.lower() for s in statements for r in s.walk(Reference)}
    symbols = {n: table.lookup(n, otherwise=None) for n in names}
    # Arguments: the caller has the results of the first run already.
    arguments = {n for n, sym in symbols.items() if getattr(sym, "is_argument", False)}
    lasting = {n for n, sym in symbols.items() if not _local(sym)} - arguments
    pass_ = _Liveness(tapes, lasting | arguments, pure)
    pass_.block(statements, set(exit_reads) | lasting)
    kept = _prune(statements, pass_.kept)
    lean = drop_idle_reserves(kept, reserves or {})
    if any(not lp.loop_body.children for s in lean for lp in s.walk(Loop)):
        # A loop kept only for a reserve call it no longer holds: once more.
        pass_ = _Liveness(tapes, lasting | arguments, pure)
        pass_.block(lean, set(exit_reads) | lasting)
        lean = _prune(lean, pass_.kept)
    return lean


def lean_returning(statements, table, outlive=()):
    """Drop from a returning motion (`statements`, a list changed in place)
    the stores of the routine's own locals that nothing reads after them:
    an adjoint zeroed after its last increment (``diff_adj = 0``), a
    restored value no adjoint reads.  Everything that outlives the call
    (arguments, module, COMMON and SAVE'd variables) is read at the end.

    :param statements: the returning motion's top-level statements.
    :param table: the symbol table of the routine they belong to.
    :param outlive: lower-case names that outlive the call although the
        table has them as locals (the adjoints that become arguments).
    :returns: the statements kept (a new list).
    """
    if any(s.walk(CodeBlock) for s in statements):
        return statements  # where a jump goes is not followed here
    names = {r.symbol.name.lower() for s in statements for r in s.walk(Reference)}
    own = {sym.name.lower(): sym for sym in table.symbols}
    lasting = {n for n in names if n not in own or not _local(own[n])} | set(outlive)
    pass_ = _Liveness(set(), lasting)
    pass_.block(statements, set(lasting))
    return _prune(statements, pass_.kept)


def drop_idle_reserves(statements, reserves):
    """`statements` without the reserve calls of tapes they push nothing
    on (and the IF blocks left empty).

    :param reserves: {lower-case name of a tape's reserve routine: the
        lower-case names whose assignment or call pushes on the tape (the
        tape, the routine copying arrays onto it)}."""
    pushed = {a.lhs.symbol.name.lower() for s in statements for a in s.walk(Assignment)}
    pushed |= {c.routine.name.lower() for s in statements for c in s.walk(Call)
               if not isinstance(c, IntrinsicCall)}
    idle = {name for name, pushes in reserves.items() if not set(pushes) & pushed}
    if not idle:
        return drop_covered_reserves(statements, reserves)
    for stmt in statements:
        for call in stmt.walk(Call):
            if not isinstance(call, IntrinsicCall) and call.routine.name.lower() in idle:
                call.detach()
        for block in reversed(stmt.walk(IfBlock)):
            if block.parent is not None and not block.if_body.children and (
                    block.else_body is None or not block.else_body.children):
                block.detach()
    kept = [s for s in statements
            if not (isinstance(s, Call) and not isinstance(s, IntrinsicCall)
                    and s.routine.name.lower() in idle)
            and not (isinstance(s, IfBlock) and not s.if_body.children
                     and (s.else_body is None or not s.else_body.children))]
    return drop_covered_reserves(kept, reserves)


def _local(symbol):
    """An automatic local of the routine: its value dies with the call."""
    return (isinstance(symbol, DataSymbol) and isinstance(symbol.interface, AutomaticInterface)
            and symbol.initial_value is None and not symbol.is_constant)


def _names(node):
    return {r.symbol.name.lower() for r in node.walk(Reference)}


def _user_call(node, pure=()):
    return any(not isinstance(c, IntrinsicCall) and c.routine.name.lower() not in pure
               for c in node.walk(Call))


class _Liveness:
    """The backward pass; ``kept`` collects the ids of the statements kept.

    :param lasting: what a call may read besides its arguments (module,
        COMMON, SAVE'd variables, the routine's own arguments: an internal
        procedure sees its host's)."""

    def __init__(self, tapes, lasting, pure=()):
        self.pure = frozenset(pure)
        self.tapes = tapes
        self.lasting = lasting
        self.kept = set()

    def block(self, statements, live):
        """Live names before `statements`, given those live after."""
        for stmt in reversed(list(statements)):
            live = self.statement(stmt, live)
        return live

    def statement(self, stmt, live):
        if isinstance(stmt, Assignment) and not stmt.is_pointer and \
                not _user_call(stmt, self.pure):
            target = stmt.lhs.symbol.name.lower()
            if target not in self.tapes and target not in live:
                return live
            self.kept.add(id(stmt))
            live = set(live)
            if type(stmt.lhs) is Reference:
                live.discard(target)
            # Subscripts of the target, and what the value reads.
            live |= {r.symbol.name.lower() for r in stmt.lhs.walk(Reference)
                     if r is not stmt.lhs}
            return live | _names(stmt.rhs)
        if isinstance(stmt, IfBlock):
            after_if = self.block(stmt.if_body.children, live)
            after_else = self.block(stmt.else_body.children, live) \
                if stmt.else_body is not None else live
            if not self._holds_kept(stmt):
                return live
            self.kept.add(id(stmt))
            return set(after_if) | set(after_else) | _names(stmt.condition)
        if isinstance(stmt, (Loop, WhileLoop)):
            return self.loop(stmt, live)
        # Calls, intrinsic statements, jumps, pointer assignments: kept, and
        # a call may read anything that outlives it.
        self.kept.add(id(stmt))
        live = set(live) | _names(stmt)
        if _user_call(stmt) and not (isinstance(stmt, Call)
                                     and stmt.routine.name.lower() in self.tapes):
            live |= self.lasting   # (a tape's routine reads its own variables only)
        return live

    def _holds_kept(self, node):
        return any(id(s) in self.kept for s in node.walk(Statement) if s is not node)

    def loop(self, stmt, live):
        body = stmt.loop_body.children
        # A DO WHILE tests its condition after every iteration: what it
        # reads is live at the end of the body (else the loop may not end).
        inside = _names(stmt.condition) if isinstance(stmt, WhileLoop) else set()
        # An array the body names only at the iteration's own element is
        # not read by a later iteration where this one left it.
        own = _own_element_arrays(stmt) if isinstance(stmt, Loop) else set()
        while True:  # until what the body needs at its start is stable
            before = self.block(body, set(live) | inside)
            if before - own <= inside:
                break
            inside |= before - own
        inside |= before
        index = stmt.variable.name.lower() if isinstance(stmt, Loop) else None
        if not self._holds_kept(stmt) and index not in live:
            return live
        self.kept.add(id(stmt))
        live = set(live) | inside
        if isinstance(stmt, Loop):
            live.discard(index)
            for expr in (stmt.start_expr, stmt.stop_expr, stmt.step_expr):
                live |= _names(expr)
        else:
            live |= _names(stmt.condition)
        return live


def _own_element_arrays(loop):
    """Lower-case names of the arrays `loop`'s body names only as elements
    with the loop's index as the same subscript (the index not assigned in
    the body, no call or code block naming them): each iteration its own."""
    body = loop.loop_body
    if body.walk(CodeBlock):
        return set()
    index = loop.variable.name.lower()
    if any(a.lhs.symbol.name.lower() == index for a in body.walk(Assignment)) \
            or any(inner.variable.name.lower() == index for inner in body.walk(Loop)):
        return set()
    positions, other = {}, set()
    for ref in body.walk(Reference):
        name = ref.symbol.name.lower()
        if type(ref) is ArrayReference and not any(isinstance(i, Range) for i in ref.indices) \
                and not in_user_call(ref, body):
            # Where the index stands alone: the same place in every mention.
            at = {k for k, i in enumerate(ref.indices)
                  if type(i) is Reference and i.symbol.name.lower() == index}
            positions[name] = positions.get(name, at) & at
        else:
            other.add(name)
    return {name for name, at in positions.items() if at} - other


def in_user_call(node, top):
    """Whether `node` is inside an argument of a call of a procedure (not an
    intrinsic) below `top`."""
    parent = node.parent
    while parent is not None and parent is not top:
        if isinstance(parent, Call) and not isinstance(parent, IntrinsicCall):
            return True
        parent = parent.parent
    return False


def _prune(statements, kept):
    """Detach every statement not in `kept` (ids), at every depth; drop
    ELSE branches left empty."""
    for stmt in statements:
        for inner in stmt.walk(Statement):
            if inner is not stmt and isinstance(inner.parent, Schedule) and \
                    id(inner) not in kept and inner.parent is not None:
                inner.detach()
        for block in stmt.walk(IfBlock):
            if block.else_body is not None and not block.else_body.children:
                block.children[2].detach()
    return [s for s in statements if id(s) in kept]
