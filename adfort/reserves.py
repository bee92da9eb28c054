"""Room checks on the tapes that no push needs.

The recording motion tests the room on a dynamic tape before each loop and
after each call whose recording pushes onto the same tapes (the callee may
have used the room the enclosing loops counted on).  Every such check makes
room for all that is pushed until the next check, so a check followed, on
every path, by another check of the same tape before any push onto it
guards nothing: a limiter call in a loop whose own values are computed
again in the reversed loop leaves the check after the call idle, tested
once per iteration.  :func:`drop_covered_reserves` removes those checks.

A call of the user's is neutral here: its recording makes room for what it
pushes itself, and what the caller pushes after it is checked again after
it.  The unconditional reserve at a routine's entry stays: it allocates the
tape on first use.
"""

from psyclone.psyir.nodes import Assignment, ArrayReference, Call, IfBlock, Loop, WhileLoop


def drop_covered_reserves(statements, reserves):
    """`statements` (a list; nested blocks changed in place) without the
    checked reserves that no push follows before the next reserve.

    :param reserves: {lower-case name of a tape's reserve routine: (the
        tape's name, the name of the routine copying arrays onto it)}.
    :returns: the statements kept (a new list).
    """
    if not reserves:
        return statements
    scan = _Scan(reserves)
    scan.block(statements, frozenset(), True)
    if not scan.idle:
        return statements
    for stmt in statements:
        for block in stmt.walk(IfBlock):
            if id(block) in scan.idle and block.parent is not None:
                block.detach()
    return [s for s in statements if id(s) not in scan.idle]


class _Scan:
    """Backward pass: the tapes on which a push comes before the next
    reserve (``need``); ``idle`` collects the checks found idle."""

    def __init__(self, reserves):
        self.reserve_of = {name: tape for name, (tape, _) in reserves.items()}
        self.put_of = {put: tape for tape, put in reserves.values() if put}
        self.tapes = {tape for tape, _ in reserves.values()}
        self.idle = set()

    def block(self, statements, need, mark):
        for stmt in reversed(list(statements)):
            need = self.statement(stmt, need, mark)
        return need

    def statement(self, stmt, need, mark):
        tape = self._checked_reserve(stmt)
        if tape is not None:
            if mark and tape not in need:
                self.idle.add(id(stmt))
            return need - {tape}
        if isinstance(stmt, Call):
            name = stmt.routine.name.lower()
            if name in self.reserve_of:
                return need - {self.reserve_of[name]}
            if name in self.put_of:
                return need | {self.put_of[name]}
            return need
        if isinstance(stmt, Assignment):
            lhs = stmt.lhs
            if isinstance(lhs, ArrayReference) and lhs.symbol.name.lower() in self.tapes:
                return need | {lhs.symbol.name.lower()}
            return need
        if isinstance(stmt, IfBlock):
            before = self.block(stmt.if_body.children, need, mark)
            other = (self.block(stmt.else_body.children, need, mark)
                     if stmt.else_body is not None else need)
            return before | other
        if isinstance(stmt, (Loop, WhileLoop)):
            body = stmt.loop_body.children
            start = frozenset()
            while True:   # the body's end flows into its start
                again = self.block(body, need | start, False)
                if again == start:
                    break
                start = again
            if mark:
                self.block(body, need | start, True)
            return need | start
        return need

    def _checked_reserve(self, stmt):
        """The tape whose room `stmt` tests (``if (top + n > size(tape))
        call tape_reserve(n)``), else None."""
        if not isinstance(stmt, IfBlock) or stmt.else_body is not None:
            return None
        body = stmt.if_body.children
        if len(body) != 1 or not isinstance(body[0], Call):
            return None
        return self.reserve_of.get(body[0].routine.name.lower())
