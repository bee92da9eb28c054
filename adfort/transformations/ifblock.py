"""Adjoint of an IF block (ELSE IF chains and lowered SELECT CASE included).

The recording motion pushes which branch it took on the control tape
(after the branch's own pushes); the
returning motion pops it and reverses that same branch, so the path is the
recorded one even if the condition's inputs have changed since.  When the
taping plan keeps the condition's inputs (:mod:`adfort.recompute`), the
returning motion evaluates the condition again instead.
"""

from psyclone.psyir.nodes import BinaryOperation, IfBlock, Literal, Reference

from adfort.exprs import INTEGER_TYPE
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.reverser import statement_text


def reverse_ifblock(node, reverser):
    """Return (recording, returning) statements for IfBlock `node`."""
    text = "IF (" + statement_text(node.condition) + ") THEN"
    condition = node.condition.copy()
    pushes_before = reverser.tapes.pushes_made()
    then_rec, then_ret = reverser.block(node.if_body.children)
    else_rec, else_ret = ([], [])
    if node.else_body is not None:
        else_rec, else_ret = reverser.block(node.else_body.children)
    if not then_ret and not else_ret and reverser.tapes.pushes_made() == pushes_before:
        # Nothing inside needs reversing: the IF is passive.
        return [_if(condition, then_rec, else_rec)], []
    if id(node) in reverser.plan.reevaluated:
        # Its inputs hold the values it was evaluated with (recompute.py).
        ret = [_if(condition.copy(), then_ret, else_ret)]
        reverser.comment(ret, text)
        return [_if(condition, then_rec, else_rec)], ret
    if reverser.tapes.dynamic:
        # One bit (adfort/branch_tape.py), pushed last, so that it is the
        # first thing the returning motion pops, before the branch's own
        # values.
        bits = reverser.tapes.branches
        rec = [_if(condition, then_rec + bits.push_bit(1), else_rec + bits.push_bit(0))]
        flag = reverser.branch_flag()
        test = BinaryOperation.create(BinaryOperation.Operator.EQ, Reference(flag),
                                      Literal("1", INTEGER_TYPE))
        ret = bits.pop_bit(flag) + [_if(test, then_ret, else_ret)]
        reverser.comment(ret, text)
        return rec, ret
    control = reverser.tapes.control
    (taken, not_taken), token = control.push_branch([1, 0])
    rec = [_if(condition, then_rec + taken, else_rec + not_taken)]
    pops, (branch,) = control.pop(token)
    test = BinaryOperation.create(BinaryOperation.Operator.EQ, branch,
                                  Literal("1", INTEGER_TYPE))
    ret = pops + [_if(test, then_ret, else_ret)]
    reverser.comment(ret, text)
    return rec, ret


def _if(condition, body, else_body):
    for stmt in body + else_body:
        if stmt.parent is not None:
            stmt.detach()
    return IfBlock.create(condition, body, else_body or None)


class ADReverseIfBlockTrans(ADReverseTrans):
    """Adjoint of an IF block."""

    node_type = IfBlock

    def reverse(self, node, reverser):
        """Return the (recording, returning) statements of `node`."""
        self.validate(node)
        return reverse_ifblock(node, reverser)
