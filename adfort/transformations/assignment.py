"""Adjoint of an assignment ``v = e`` (scalars, array elements, sections,
whole arrays)."""

import bisect

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, IntrinsicCall, Literal, Reference,
    UnaryOperation)

from adfort.final_writes import tag_overwrite
from adfort.arrays import expr_rank
from adfort.derived import (
    STRUCTURE_REFERENCES, is_derived_value, is_real_value, leaf_references, may_overlap,
    value_kind, value_type)
from adfort.exprs import E, real_literal
from adfort.simplify import simplify_statements
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.operation import operation_adjoint
from adfort.transformations.reverser import statement_text, tag_not_rerun


def _sum(terms):
    """The sum of the :class:`E` `terms`, made of their nodes (fresh ones,
    nothing else holds them): ``E.__add__`` would copy the sum so far at
    every term."""
    total = terms[0]
    for term in terms[1:]:
        kind = total.kind if total.kind is not None else term.kind
        total = E(BinaryOperation.create(BinaryOperation.Operator.ADD, total.node, term.node),
                  kind)
    return total


def _trivial(expr):
    """Whether `expr` costs nothing to repeat (a variable, a constant, or
    the negation of one)."""
    if isinstance(expr, UnaryOperation):
        expr = expr.children[0]
    return isinstance(expr, Literal) or type(expr) is Reference


def adjoint_reference(reference, adjoint_symbol):
    """The adjoint of the value `reference` denotes: same indices, adjoint
    variable (``u(i-1)`` → ``u_adj(i-1)``)."""
    if type(reference) in STRUCTURE_REFERENCES:
        adjoint = reference.copy()
        adjoint.symbol = adjoint_symbol  # same components, adjoint type
    elif isinstance(reference, ArrayReference):
        adjoint = ArrayReference.create(adjoint_symbol,
                                        [i.copy() for i in reference.indices])
    else:
        return Reference(adjoint_symbol)
    # ``u(:, k)`` is held as u(LBOUND(u, 1):UBOUND(u, 1), k): the adjoint has
    # the same bounds, so ``u_adj(:, k)`` reads better.
    for call in adjoint.walk(IntrinsicCall):
        first = call.arguments[0] if call.arguments else None
        if call.intrinsic.name in ("LBOUND", "UBOUND") and isinstance(first, Reference) \
                and first.symbol is reference.symbol:
            first.symbol = adjoint_symbol
    return adjoint


def inline_single_use(statements, temporaries):
    """Substitute each temporary used once or holding a trivial value.

    :param statements: list of statements; modified and returned.
    :param temporaries: the temporary DataSymbols that may be inlined.
    """
    statements = list(statements)
    # The references to each temporary, with the position of their statement
    # (kept up to date as values are put in: walking the statements after
    # each temporary again was quadratic in long formulas' adjoints).
    found = {}
    for position, stmt in enumerate(statements):
        for ref in stmt.walk(Reference):
            if ref.symbol in temporaries:
                found.setdefault(id(ref.symbol), []).append((position, ref))
    # Where each variable is assigned (statements keep what they assign:
    # only right-hand sides take values in), for the check below.
    written_at = {}
    for position, stmt in enumerate(statements):
        for key in _writes(stmt, temporaries):
            written_at.setdefault(key, []).append(position)
    gone = set()      # ids of the references replaced
    removed = set()
    for position, stmt in enumerate(statements):
        if not (isinstance(stmt, Assignment) and stmt.lhs.symbol in temporaries):
            continue
        uses = [(at, ref) for at, ref in found.get(id(stmt.lhs.symbol), ())
                if at > position and id(ref) not in gone]
        if not (len(uses) == 1 or _trivial(stmt.rhs)):
            continue
        # The value may move to a use only where what it reads is unchanged.
        reads = {_key(r.symbol, temporaries) for r in stmt.rhs.walk(Reference)}
        last = max((at for at, _ in uses), default=0)
        if any(_written_between(written_at.get(key, ()), position, last, removed)
               for key in reads):
            continue
        for at, use in uses:
            value = stmt.rhs.copy()
            use.replace_with(value)
            gone.add(id(use))
            for ref in value.walk(Reference):
                if ref.symbol in temporaries:
                    found.setdefault(id(ref.symbol), []).append((at, ref))
        removed.add(position)
    return [stmt for position, stmt in enumerate(statements) if position not in removed]


def _written_between(positions, first, last, removed):
    """Whether one of the sorted `positions` (of a variable's assignments)
    lies strictly between `first` and `last`, its statement not removed."""
    start = bisect.bisect_right(positions, first)
    for position in positions[start:]:
        if position >= last:
            return False
        if position not in removed:
            return True
    return False


def _writes(stmt, temporaries):
    """The variables `stmt` assigns (see :func:`_key`)."""
    return {_key(a.lhs.symbol, temporaries) for a in stmt.walk(Assignment)}


def _key(symbol, temporaries):
    """A temporary's identity (they share one name until named), another
    variable's lower-case name."""
    return id(symbol) if symbol in temporaries else symbol.name.lower()


def _through_pointer(ref, lhs, ctx):
    """Whether `ref` and the target `lhs`, other variables, may share
    storage through a pointer (``p => w(2:n)`` then ``p = p*w(1:n-1)``):
    one is a pointer, the other a pointer or a target."""
    attributes = getattr(ctx, "attributes", None) or {}
    found = (attributes.get(ref.symbol.name.lower()), attributes.get(lhs.symbol.name.lower()))
    return ref.symbol is not lhs.symbol and all(found) and "POINTER" in found


def _shape_inquiry(ref):
    """Whether `ref` is the array of a bounds inquiry (``u(:)`` is held as
    u(LBOUND(u, 1):UBOUND(u, 1))): it reads no value."""
    parent = ref.parent
    return (isinstance(parent, IntrinsicCall) and parent.arguments
            and parent.arguments[0] is ref
            and parent.intrinsic.name in ("LBOUND", "UBOUND", "SIZE", "SHAPE"))


def _increment(target, increment):
    """``target = target + increment``, summing an array-valued increment
    that flows into a scalar (a scalar broadcast into an array expression)."""
    value = increment.copy()
    if expr_rank(value) > expr_rank(target):
        value = IntrinsicCall.create(IntrinsicCall.Intrinsic.SUM, [value])
    return value


def assignment_adjoint(assign, ctx):
    """Return the returning-motion statements for `assign` (no taping).

    Contributions to each right-hand-side reference are summed into one
    increment.  When the assigned variable also appears on the right with
    the same indices (``f = 2*f + x``, ``u(i) = u(i) + …``) its adjoint is
    assigned last, from its own terms, instead of being zeroed.  When it
    appears with other indices (``u(2:n) = u(1:n-1)``), which may overlap
    the target, the target's adjoint is first moved to a temporary.

    :param assign: the Assignment (in the working copy of the routine).
    :param ctx: the :class:`adfort.context.ADContext`.
    """
    lhs_adj = ctx.adjoint_symbol(assign.lhs.symbol)
    if assign.is_pointer:
        return []  # re-associated where its lifetime is reversed (reverser)
    if lhs_adj is None or not is_real_value(assign.lhs):
        return []  # (an integer component of an active derived-type variable)
    if ctx.passive_component(assign.lhs):
        return []  # (a grid spacing in an active state: its adjoint is never read)
    if is_derived_value(assign.lhs):
        return derived_copy_adjoint(assign, ctx)
    ctx.start_statement()
    target = adjoint_reference(assign.lhs, lhs_adj)
    kind = value_kind(assign.lhs) if type(assign.lhs) in STRUCTURE_REFERENCES \
        else ctx.kind_of(lhs_adj)
    statements = []
    own_text = assign.lhs.debug_string().lower()
    aliased = any((ref.symbol is assign.lhs.symbol and ref.debug_string().lower() != own_text
                   and may_overlap(ref, assign.lhs) or _through_pointer(ref, assign.lhs, ctx))
                  and not _shape_inquiry(ref)
                  for ref in assign.rhs.walk(Reference))
    if aliased:
        held = ctx.scratch_operation_adjoint(kind, expr_rank(assign.lhs))
        statements.append(Assignment.create(Reference(held), target.copy()))
        statements.append(Assignment.create(target.copy(), real_literal(0, kind)))
        seed = E(Reference(held), kind)
        scratch = {held}
    else:
        seed = E(target.copy(), kind)
        scratch = set()
    temporaries, contributions = operation_adjoint(assign.rhs, seed, ctx)
    scratch |= {t.lhs.symbol for t in temporaries}

    terms, targets = {}, {}
    for ref, increment in contributions:
        key = (ref.symbol.name.lower(), ref.debug_string().lower())
        terms.setdefault(key, []).append(increment)
        targets[key] = adjoint_reference(ref, ctx.adjoint_symbol(ref.symbol))
    own_key = (assign.lhs.symbol.name.lower(), own_text)
    own_terms = None if aliased else terms.pop(own_key, None)

    statements.extend(temporaries)
    for key, increments in terms.items():
        adj = targets[key]
        total = _sum([E(_increment(adj, i.node), kind) for i in increments])
        # (adj + total, taking total's fresh node)
        statements.append(Assignment.create(adj.copy(), BinaryOperation.create(
            BinaryOperation.Operator.ADD, adj.copy(), total.node)))
    if not aliased:
        if own_terms:
            update = _sum([E(_increment(target, i.node), kind) for i in own_terms]).node
        else:
            update = real_literal(0, kind)
        statements.append(Assignment.create(target.copy(), update))

    simplify = ctx.options["simplify"]
    if simplify:
        simplify_statements(statements, ctx.options["simplify_n_times"])
    if ctx.options["inline_operation_adjoints"]:
        statements = inline_single_use(statements, scratch - ({held} if aliased else set()))
        if simplify:
            # Substitution creates new chances (e.g. a negated temporary).
            simplify_statements(statements, ctx.options["simplify_n_times"])
    ctx.name_operation_adjoints(statements, scratch)
    # An accumulation (s = s + …) leaves its own adjoint unchanged.
    return [s for s in statements if not _assigns_itself(s)]


def _assigns_itself(statement):
    """Whether `statement` is ``v = v`` (the same text on both sides)."""
    if not isinstance(statement, Assignment):
        return False
    # (An operation or a literal is never written like a variable: no
    # need to write it to know.)
    if isinstance(statement.rhs, (Literal, BinaryOperation, UnaryOperation)):
        return False
    return statement.lhs.debug_string() == statement.rhs.debug_string()


def derived_copy_adjoint(assign, ctx):
    """Adjoint of ``a = b`` for derived-type values: component by component,
    ``b_adj%c = b_adj%c + a_adj%c; a_adj%c = 0`` for every real ``c``
    (the fence lets only a variable, or part of one, stand on the right)."""
    rhs = assign.rhs
    dtype = value_type(assign.lhs)
    statements = []
    rhs_adj = ctx.adjoint_symbol(rhs.symbol) if ctx.is_active(rhs) else None
    lhs_leaves = leaf_references(adjoint_reference(assign.lhs, ctx.adjoint_symbol(
        assign.lhs.symbol)), dtype)
    rhs_leaves = leaf_references(adjoint_reference(rhs, rhs_adj), dtype) \
        if rhs_adj is not None else [None] * len(lhs_leaves)
    for (target, kind), source in zip(lhs_leaves, rhs_leaves):
        if source is not None:
            statements.append(Assignment.create(source[0].copy(), (
                E(source[0].copy(), kind) + E(target.copy(), kind)).copy()))
        statements.append(Assignment.create(target.copy(), real_literal(0, kind)))
    return statements


def reverse_assignment(stmt, reverser):
    """Return (recording, returning) statements for Assignment `stmt`."""
    rec, ret, restore = [], [], []
    if stmt.is_pointer:
        # The returning motion re-associates it where the statements of its
        # lifetime start being reversed (Reverser.block).
        return [stmt.detach() if stmt.parent is not None else stmt], []
    if id(stmt) in reverser.plan.taped:
        save, restore = reverser.tapes.save(stmt.lhs)
        tag_overwrite(stmt, save + restore)
        rec.extend(save)
        ret.extend(restore)
    ret.extend(reverser.adjoints.get(id(stmt), []))
    reverser.comment(ret, statement_text(stmt))
    rec.append(stmt.detach() if stmt.parent is not None else stmt)
    if id(stmt) in reverser.dead:
        tag_not_rerun(rec + restore)
    return rec, ret


class ADReverseAssignmentTrans(ADReverseTrans):
    """Adjoint of an assignment statement."""

    node_type = Assignment

    def apply(self, node, ctx):
        """Return the returning-motion adjoint statements of `node`."""
        self.validate(node, ctx)
        return assignment_adjoint(node, ctx)

    def reverse(self, node, reverser):
        """Return the (recording, returning) statements of `node`."""
        self.validate(node)
        return reverse_assignment(node, reverser)
