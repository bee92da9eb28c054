"""Reverse a block of statements: the recording and returning motions.

The :class:`Reverser` walks structured statements; each construct has its
transformation (assignment, IF, DO, DO WHILE) returning the statements it
contributes to the recording motion and to the returning motion.  The
returning code of a block is its statements' returning code in reverse
order.
"""

from psyclone.psyir.backend.fortran import FortranWriter
from psyclone.psyir.nodes import Assignment, IfBlock, Loop, WhileLoop

from adfort.errors import AdfortError, where


def statement_text(stmt):
    """One-line Fortran text of a statement, for ``! adjoint of:`` comments."""
    text = FortranWriter()(stmt).strip().splitlines()
    return text[0] if text else ""


class Reverser:
    """Builds the two motions of a routine body.

    :param ctx: the :class:`adfort.context.ADContext`.
    :param tapes: the routine's :class:`adfort.tape.TapeSet`.
    :param plan: the :class:`adfort.taping.TapingPlan`.
    :param adjoints: dict id(Assignment) -> its adjoint statements.
    """

    def __init__(self, ctx, tapes, plan, adjoints):
        self.ctx = ctx
        self.tapes = tapes
        self.plan = plan
        self.adjoints = adjoints
        self.pushes = 0  # number of pushes made so far, to spot passive code

    def block(self, statements):
        """Return (recording statements, returning statements) of a block."""
        rec, ret_blocks = [], []
        for stmt in list(statements):
            stmt_rec, stmt_ret = self.statement(stmt)
            rec.extend(stmt_rec)
            ret_blocks.append(stmt_ret)
        ret = [s for blk in reversed(ret_blocks) for s in blk]
        return rec, ret

    def statement(self, stmt):
        """Dispatch `stmt` to the transformation of its construct."""
        # Imported here: the construct modules use this module's helpers.
        from adfort.transformations.assignment import ADReverseAssignmentTrans
        from adfort.transformations.ifblock import ADReverseIfBlockTrans
        from adfort.transformations.loop import (
            ADReverseLoopTrans, ADReverseWhileLoopTrans)
        from adfort.transformations.allocation import (
            ADReverseAllocationTrans, is_allocation)
        if is_allocation(stmt):
            return ADReverseAllocationTrans().reverse(stmt, self)
        for node_type, trans in ((Assignment, ADReverseAssignmentTrans),
                                 (IfBlock, ADReverseIfBlockTrans),
                                 (Loop, ADReverseLoopTrans),
                                 (WhileLoop, ADReverseWhileLoopTrans)):
            if isinstance(stmt, node_type):
                return trans().reverse(stmt, self)
        raise AdfortError(f"cannot reverse a {type(stmt).__name__}",
                          where(stmt, self.ctx.filename))

    def comment(self, statements, original):
        """Label the first returning statement with what it reverses."""
        if statements and self.ctx.options["verbose"]:
            statements[0].preceding_comment = "adjoint of: " + original
