"""Adjoint liveness before taping: the statements a joint callee's re-run
need not execute.

``f_rev`` of a callee reversed joint runs ``f``'s statements again, only
so that its returning part finds the values it reads.  A statement none of
whose results is read later — by a statement that runs, by the adjoint of
any later statement, by a call's reversal, by a branch or loop bound — and
that sets nothing outliving the call, need not run there: ``step_rev`` of
a time step need not update the state (its caller has the updated state
already, and the adjoint of ``c = c - k*(f(i) - f(i-1))`` reads no ``c``),
nor, then, call the flux routine whose result only that update read.

Taping is planned for ``f_rec`` with every statement running; such a
statement's pushes and pops are dropped from ``f_rev`` with it.  That is
right only if the plan with the statements left out
(:func:`adfort.taping.plan_taping` with ``skipped``) tapes nothing the
full plan does not: a later write may then have to save what the left-out
statement no longer overwrites.  :func:`not_rerun` shrinks its answer until
that holds.

Whole variables are tracked (an array element read keeps every write of
the array); pointers and statements calling user functions that are not
reversed joint are always run.
"""

from psyclone.psyir.nodes import (
    Assignment, Call, IfBlock, IntrinsicCall, Loop, Reference, WhileLoop)
from psyclone.psyir.nodes.array_mixin import ArrayMixin

from adfort.liveness import _local, _names


def _subscript_names(node):
    """Names read by the subscripts in `node`: the adjoint of a statement
    names the same elements."""
    names = set()
    for ref in node.walk(ArrayMixin):
        for index in ref.indices:
            names |= _names(index)
    return names


def _control_reads(statements):
    """Names read by any IF condition, DO bounds or DO WHILE condition."""
    names = set()
    for stmt in statements:
        for node in stmt.walk((IfBlock, Loop, WhileLoop)):
            if isinstance(node, Loop):
                for expr in (node.start_expr, node.stop_expr, node.step_expr):
                    names |= _names(expr)
                names.add(node.variable.name.lower())
            else:
                names |= _names(node.condition)
    return names


class _Pass:
    """The backward pass.

    :param reads: {id(statement): names its adjoint (or its call's
        reversal) reads, as they were before it ran}.
    :param call_writes: {id(call statement): names the call may write}.
    :param droppable_calls: ids of the call statements whose reversal is
        self-contained (joint): they need not run forward.
    :param always: names always live (outliving the call, or read by
        control).
    """

    def __init__(self, reads, call_writes, droppable_calls, always):
        self.reads, self.call_writes = reads, call_writes
        self.droppable_calls, self.always = droppable_calls, always
        self.run = set()       # ids of the statements that must run
        self.candidates = set()  # ids of the statements that need not

    def block(self, statements, live):
        for stmt in reversed(list(statements)):
            live = self.statement(stmt, live)
        return live

    def _needed(self, writes, live):
        return bool(writes & (live | self.always))

    def statement(self, stmt, live):
        key = id(stmt)
        adjoint_reads = set(self.reads.get(key, ()))
        if key in self.call_writes:
            writes = set(self.call_writes[key])
            kills = set()
            if isinstance(stmt, Assignment):
                writes.add(stmt.lhs.symbol.name.lower())
                if type(stmt.lhs) is Reference:
                    kills.add(stmt.lhs.symbol.name.lower())
            if key in self.droppable_calls and not self._needed(writes, live):
                self.candidates.add(key)
                return set(live) | adjoint_reads | _subscript_names(stmt)
            self.run.add(key)
            return (set(live) - kills) | _names(stmt) | adjoint_reads
        if isinstance(stmt, Assignment) and not stmt.is_pointer and not any(
                not isinstance(c, IntrinsicCall) for c in stmt.walk(Call)):
            target = stmt.lhs.symbol.name.lower()
            if not self._needed({target}, live):
                self.candidates.add(key)
                return set(live) | adjoint_reads | _subscript_names(stmt)
            self.run.add(key)
            live = set(live)
            if type(stmt.lhs) is Reference:
                live.discard(target)
            live |= {r.symbol.name.lower() for r in stmt.lhs.walk(Reference)
                     if r is not stmt.lhs}
            return live | _names(stmt.rhs) | adjoint_reads
        if isinstance(stmt, IfBlock):
            after_if = self.block(stmt.if_body.children, live)
            after_else = self.block(stmt.else_body.children, live) \
                if stmt.else_body is not None else live
            return set(after_if) | set(after_else) | _names(stmt.condition) | adjoint_reads
        if isinstance(stmt, (Loop, WhileLoop)):
            body = stmt.loop_body.children
            inside = set(live)
            while True:  # what a later iteration needs is live at the body's end
                before = self.block(body, inside)
                if before <= inside:
                    break
                inside |= before
            live = set(live) | inside | adjoint_reads
            if isinstance(stmt, Loop):
                for expr in (stmt.start_expr, stmt.stop_expr, stmt.step_expr):
                    live |= _names(expr)
            else:
                live |= _names(stmt.condition)
            return live
        # Anything else runs, and may read what it is given.
        self.run.add(key)
        return set(live) | _names(stmt) | adjoint_reads


def dead_statements(statements, table, reads, call_writes, droppable_calls, outputs=()):
    """Ids of the assignments and call statements of `statements` (a
    routine's top-level statements, at every depth) that a joint re-run
    need not execute.

    :param table: the routine's symbol table.
    :param reads: {id(statement): names its adjoint reads}.
    :param call_writes: {id(call statement): names the call may write}.
    :param droppable_calls: ids of the call statements reversed joint.
    :param outputs: names of results the re-run must deliver too.
    """
    names = set()
    for stmt in statements:
        names |= _names(stmt)
    for written in call_writes.values():
        names |= set(written)
    lasting = {n for n in names
               if not _local(table.lookup(n, otherwise=None))
               and not getattr(table.lookup(n, otherwise=None), "is_argument", False)}
    always = lasting | _control_reads(statements) | set(outputs)
    run_pass = _Pass(reads, call_writes, droppable_calls, always)
    run_pass.block(statements, set())
    # A statement inside a loop is a candidate only if no visit needed it.
    return run_pass.candidates - run_pass.run


def not_rerun(statements, table, reads, call_writes, droppable_calls, plan, replan,
              outputs=()):
    """(ids of the statements a joint re-run leaves out, what the returning
    part then reads on entry), such that the taping plan with them left
    out (``replan(skipped)``) tapes nothing `plan` does not.

    :param plan: the :class:`adfort.taping.TapingPlan` of the full run.
    :param replan: ``replan(skipped)`` plans the taping with `skipped`
        (ids) left out.
    :param outputs: names of results the re-run must deliver too.
    """
    dead = dead_statements(statements, table, reads, call_writes, droppable_calls, outputs)
    by_id = {id(s): s for top in statements for s in top.walk((Assignment, Call))}
    for _ in range(4):
        if not dead:
            break
        other = replan(dead)
        extra = set()
        for key in other.taped - plan.taped:
            extra.add(by_id[key].lhs.symbol.name.lower())
        extra |= {name for _, name in other.taped_calls - plan.taped_calls}
        extra |= {name for _, name in other.taped_arrays - plan.taped_arrays}
        if other.loop_indices - plan.loop_indices:
            break
        if not extra:
            return dead, other.exit_reads
        # Keep running the statements that write what would need taping.
        dead = {key for key in dead if not _writes(by_id.get(key), call_writes.get(key, ()))
                & extra}
    return set(), set()


def _writes(stmt, call_writes):
    names = set(call_writes)
    if isinstance(stmt, Assignment):
        names.add(stmt.lhs.symbol.name.lower())
    return names
