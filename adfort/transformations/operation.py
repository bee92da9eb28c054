"""Adjoints of expressions: propagate an adjoint down an operation tree."""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, IntrinsicCall, Literal, Reference,
    UnaryOperation)

from adfort import rules
from adfort.activity import (
    argument_names, differentiable_args, operands, operation_name)
from adfort.arrays import expr_rank
from adfort.derived import is_variable
from adfort.exprs import E, asum
from adfort.transformations.base import ADReverseTrans

_OPERATIONS = (BinaryOperation, UnaryOperation, IntrinsicCall)


def carries_derivative(node, ctx, memo=None):
    """Whether a derivative can flow from `node` to an active variable.

    :param memo: {id(node): answer} shared by the calls on the subtrees of
        one expression that does not change meanwhile: asked at every level
        of a flat sum of n terms (a tree n deep), the answers cost O(n), not
        O(n**2).
    """
    if memo is not None:
        known = memo.get(id(node))
        if known is not None:
            return known
    if isinstance(node, Literal):
        found = False
    elif is_variable(node):
        found = ctx.is_active(node)
    elif isinstance(node, _OPERATIONS):
        args = operands(node)
        found = any(carries_derivative(args[i], ctx, memo) for i in differentiable_args(node))
    else:
        found = False
    if memo is not None:
        memo[id(node)] = found
    return found


def operation_adjoint(expr, adjoint, ctx):
    """Propagate `adjoint`, the adjoint of `expr`, to the variables in it.

    Every operation below the root gets an ``op_adj`` temporary holding its
    own adjoint (so operands sharing it do not recompute it).

    :param expr: the PSyIR expression (not modified).
    :param adjoint: an :class:`E` for the adjoint of `expr`'s value.
    :param ctx: the :class:`adfort.context.ADContext`.
    :returns: (temporary assignments, contributions) where contributions
        is a list of (Reference in `expr`, :class:`E` adjoint increment).
    """
    temporaries, contributions = [], []
    _propagate(expr, adjoint, ctx, temporaries, contributions, root=True, memo={})
    return temporaries, contributions


def _propagate(node, adjoint, ctx, temporaries, contributions, root, memo):
    # (`memo`: carries_derivative's answers for `expr`'s subtrees, which
    # stay in place until the propagation is over.)
    if expr_rank(adjoint.node) > 0 and expr_rank(node) == 0:
        # A scalar broadcast into an array expression: its adjoint is the
        # sum of the elementwise adjoints.
        adjoint = asum(adjoint)
    if is_variable(node):
        if ctx.is_active(node):
            contributions.append((node, adjoint))
        return
    if not carries_derivative(node, ctx, memo):
        return
    if not root:
        # Adjoints flow in the precision of the assigned variable's adjoint.
        # The temporary holds the adjoint's value: a scalar when an array
        # operand receives a broadcast adjoint (SUM's), an array otherwise.
        temp = ctx.scratch_operation_adjoint(adjoint.kind, expr_rank(adjoint.node))
        temporaries.append(Assignment.create(Reference(temp), adjoint.copy()))
        adjoint = E(Reference(temp), adjoint.kind)
    args = operands(node)
    wanted = [i for i in differentiable_args(node) if carries_derivative(args[i], ctx, memo)]
    adjoints = rules.argument_adjoints(operation_name(node), adjoint,
                                       [E(a) for a in args], wanted, argument_names(node))
    for i in wanted:
        if adjoints[i] is not None:
            _propagate(args[i], adjoints[i], ctx, temporaries, contributions, root=False,
                       memo=memo)


class ADReverseOperationTrans(ADReverseTrans):
    """Adjoint of an operation (operator or intrinsic call) in an expression."""

    node_type = _OPERATIONS + (Reference, Literal)

    def apply(self, node, ctx, adjoint=None):
        """Return (temporaries, contributions), see :func:`operation_adjoint`."""
        self.validate(node, ctx)
        return operation_adjoint(node, adjoint, ctx)
