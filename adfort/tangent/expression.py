"""Tangents of expressions and assignments (tangent mode).

The tangent of an expression is built from the shared rules table
(:mod:`adfort.rules`): for an elementwise operation, the sum over its
arguments of the partial derivative times the argument's tangent; for an
operation with a pullback rule (``MATMUL``, ``SUM``…), that rule's tangent
form.  No derivative is written twice.
"""

from psyclone.psyir.nodes import (
    Assignment, BinaryOperation, Call, IntrinsicCall, Literal, Reference, UnaryOperation)
from psyclone.psyir.symbols import AutomaticInterface, DataSymbol

from adfort import naming, rules
from adfort.activity import argument_names, differentiable_args, operands, operation_name
from adfort.arrays import expr_rank
from adfort.derived import is_derived, is_derived_value, is_real_value, is_variable
from adfort.errors import AdfortError, where
from adfort.exprs import E, real_kind, real_literal
from adfort.intrinsics import argument_names as standard_names
from adfort.simplify import simplify_statements
from adfort.transformations.assignment import adjoint_reference
from adfort.transformations.operation import carries_derivative

_OPERATIONS = (BinaryOperation, UnaryOperation, IntrinsicCall)


class TangentContext:
    """The tangent variables of one routine.

    :param table: the symbol table of the working copy of the routine.
    :param active: lower-case names of its variables that carry tangents.
    :param taken: further names generated names must avoid.
    :param filename: the source file, for messages.
    :param module_tangents: {name: DataSymbol} of the tangents of active
        module variables (declared in the generated module).
    :param options: the checked options (``simplify``, ``simplify_n_times``).
    """

    def __init__(self, table, active, taken=(), filename=None, module_tangents=None,
                 options=None):
        self.table = table
        self.options = dict(options or {})
        self.filename = filename
        self.taken = set(taken)
        self.tangents = dict(module_tangents or {})
        self.module_tangents = set(self.tangents)
        for name in sorted(set(active) - self.module_tangents):
            primal = table.lookup(name)
            if is_derived(primal.datatype):
                raise AdfortError(
                    f"'{primal.name}' is of a derived type and carries derivatives: "
                    "tangent mode does not differentiate derived-type variables yet; "
                    "use reverse mode, or pass its real components as arguments",
                    where(table.node, filename) if table.node is not None else filename)
            symbol = DataSymbol(naming.unique(table, naming.tangent(primal.name), self.taken),
                                primal.datatype.copy(), interface=AutomaticInterface())
            table.add(symbol)
            self.tangents[name] = symbol

    def tangent_symbol(self, symbol):
        """The tangent DataSymbol of primal `symbol`, or None if passive."""
        return self.tangents.get(symbol.name.lower())

    def is_active(self, reference):
        """Whether `reference` denotes a value carrying a tangent."""
        return (isinstance(reference, Reference)
                and reference.symbol.name.lower() in self.tangents
                and is_real_value(reference))

    def tangent_reference(self, reference):
        """The tangent of the value `reference` denotes (same indices)."""
        return adjoint_reference(reference, self.tangent_symbol(reference.symbol))

    def kind_of(self, reference):
        return real_kind(reference.symbol)


def _times(partial, tangent):
    """``partial * tangent``, without the product by a constant 1 or -1."""
    if isinstance(partial, int):
        if partial == 1:
            return tangent
        if partial == -1:
            return -tangent
    return partial * tangent if isinstance(partial, E) else tangent * partial


def expression_tangent(expr, ctx, where_node=None):
    """The tangent of the value of `expr`, as an :class:`E`, or None when
    it carries none.

    :param where_node: the statement, for messages.
    :raises AdfortError: for an operation tangent mode cannot differentiate.
    """
    if isinstance(expr, Literal):
        return None
    if is_variable(expr):
        if not ctx.is_active(expr):
            return None
        if is_derived_value(expr):
            raise AdfortError(f"the derived-type value '{expr.debug_string()}' carries "
                              "derivatives: not supported in tangent mode yet",
                              where(where_node or expr, ctx.filename))
        return E(ctx.tangent_reference(expr), ctx.kind_of(expr))
    if not carries_derivative(expr, ctx):
        return None
    if isinstance(expr, Call) and not isinstance(expr, IntrinsicCall):
        raise AdfortError(f"the call '{expr.debug_string()}' inside an expression carries "
                          "derivatives: not supported in tangent mode",
                          where(where_node or expr, ctx.filename))
    if not isinstance(expr, _OPERATIONS):
        raise AdfortError(f"'{expr.debug_string()}' carries derivatives and is not an "
                          "operation tangent mode knows", where(where_node or expr,
                                                                ctx.filename))
    name = operation_name(expr)
    args = operands(expr)
    names = argument_names(expr)
    wanted = [i for i in differentiable_args(expr) if carries_derivative(args[i], ctx)]
    tangents = {i: expression_tangent(args[i], ctx, where_node) for i in wanted}
    wanted = [i for i in wanted if tangents[i] is not None]
    if not wanted:
        return None
    if name not in rules.RULES:
        raise AdfortError(rules.unsupported(name, [E(a) for a in args], names) or
                          f"no derivative rule for {name}",
                          where(where_node or expr, ctx.filename))
    rule = rules.RULES[name]
    if isinstance(rule, rules.Pullback):
        standard = standard_names(name, list(names) if names else [None] * len(args))
        d = {standard[i]: tangents[i] for i in wanted}
        return rule.tangent(d, **{n: E(a) for n, a in zip(standard, args)})
    partials = rules.partials(name, [E(a) for a in args], wanted, names)
    terms = [_times(partials[i], tangents[i]) for i in wanted if partials[i] is not None]
    if not terms:
        return None
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def assignment_tangent(assign, ctx):
    """The statements setting the tangent of the target of `assign`, to
    run just before it (the right-hand side's old values).

    :returns: a list of statements (empty when the target is passive).
    :raises AdfortError: for what tangent mode cannot differentiate.
    """
    if assign.is_pointer:
        return pointer_tangent(assign, ctx)
    lhs = assign.lhs
    target = ctx.tangent_symbol(lhs.symbol)
    if target is None or not is_real_value(lhs):
        return []
    if is_derived_value(lhs):
        raise AdfortError(f"the derived-type value '{lhs.debug_string()}' carries "
                          "derivatives: not supported in tangent mode yet",
                          where(assign, ctx.filename))
    kind = ctx.kind_of(lhs)
    value = expression_tangent(assign.rhs, ctx, assign)
    if value is None:
        rhs = real_literal(0, kind)
    else:
        rhs = value.copy()
        if expr_rank(rhs) > expr_rank(lhs):
            raise AdfortError("an array value assigned to a scalar: not valid Fortran",
                              where(assign, ctx.filename))
    statements = [Assignment.create(ctx.tangent_reference(lhs), rhs)]
    if ctx.options.get("simplify", True):
        simplify_statements(statements, ctx.options.get("simplify_n_times", 5))
    return statements


def pointer_tangent(assign, ctx):
    """``p => t`` for an active pointer: its tangent points at the tangent
    of the same target (``p_d => t_d``), which is declared TARGET like ``t``."""
    lhs_active = ctx.tangent_symbol(assign.lhs.symbol) is not None
    rhs = assign.rhs
    rhs_active = is_variable(rhs) and ctx.tangent_symbol(rhs.symbol) is not None
    if not lhs_active and not rhs_active:
        return []
    if not (lhs_active and rhs_active) or is_derived_value(rhs) or \
            is_derived_value(assign.lhs):
        raise AdfortError("this pointer assignment joins a variable carrying derivatives "
                          "to one that carries none (or of a derived type): not supported "
                          "in tangent mode", where(assign, ctx.filename))
    return [Assignment.create(ctx.tangent_reference(assign.lhs),
                              ctx.tangent_reference(rhs), is_pointer=True)]
