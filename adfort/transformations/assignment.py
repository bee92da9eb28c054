"""Adjoint of an assignment ``v = e``."""

from psyclone.psyir.nodes import Assignment, Literal, Reference, UnaryOperation

from adfort.exprs import E, real_literal
from adfort.simplify import simplify_statements
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.operation import operation_adjoint


def _sum(terms):
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def _trivial(expr):
    """Whether `expr` costs nothing to repeat (a variable, a constant, or
    the negation of one)."""
    if isinstance(expr, UnaryOperation):
        expr = expr.children[0]
    return isinstance(expr, Literal) or type(expr) is Reference


def inline_single_use(statements, temporaries):
    """Substitute each temporary used once or holding a trivial value.

    :param statements: list of statements; modified and returned.
    :param temporaries: the temporary DataSymbols that may be inlined.
    """
    result = list(statements)
    for stmt in list(result):
        if not (isinstance(stmt, Assignment) and stmt.lhs.symbol in temporaries):
            continue
        later = result[result.index(stmt) + 1:]
        uses = [ref for s in later for ref in s.walk(Reference)
                if ref.symbol is stmt.lhs.symbol]
        if len(uses) == 1 or _trivial(stmt.rhs):
            for use in uses:
                use.replace_with(stmt.rhs.copy())
            result.remove(stmt)
    return result


def assignment_adjoint(assign, ctx):
    """Return the returning-motion statements for `assign` (no taping).

    Contributions to each right-hand-side variable are summed into one
    increment.  When the assigned variable also appears on the right
    (``f = 2*f + x``) its adjoint is assigned last, from its own terms,
    instead of being zeroed.

    :param assign: the Assignment (in the working copy of the routine).
    :param ctx: the :class:`adfort.context.ADContext`.
    """
    lhs_adj = ctx.adjoint_symbol(assign.lhs.symbol)
    if lhs_adj is None:
        return []
    ctx.start_statement()
    seed = E(Reference(lhs_adj))
    temporaries, contributions = operation_adjoint(assign.rhs, seed, ctx)

    terms = {}  # adjoint symbol -> [E], in order of first appearance
    for ref, increment in contributions:
        terms.setdefault(ctx.adjoint_symbol(ref.symbol), []).append(increment)
    own_terms = terms.pop(lhs_adj, None)

    statements = list(temporaries)
    for adj, increments in terms.items():
        statements.append(Assignment.create(
            Reference(adj), _sum([E(Reference(adj))] + increments).copy()))
    if own_terms:
        update = _sum(own_terms).copy()
    else:
        update = real_literal(0, seed.kind)
    statements.append(Assignment.create(Reference(lhs_adj), update))

    scratch = {t.lhs.symbol for t in temporaries}
    simplify = ctx.options["simplify"]
    if simplify:
        simplify_statements(statements, ctx.options["simplify_n_times"])
    if ctx.options["inline_operation_adjoints"]:
        statements = inline_single_use(statements, scratch)
        if simplify:
            # Substitution creates new chances (e.g. a negated temporary).
            simplify_statements(statements, ctx.options["simplify_n_times"])
    ctx.name_operation_adjoints(statements, scratch)
    return statements


class ADReverseAssignmentTrans(ADReverseTrans):
    """Adjoint of an assignment statement."""

    node_type = Assignment

    def apply(self, node, ctx):
        """Return the returning-motion statements for `node`."""
        self.validate(node, ctx)
        return assignment_adjoint(node, ctx)
