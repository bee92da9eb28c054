"""Branch conditions (and DO loop bounds) the returning motion evaluates
again instead of reading the branch taken (the trip count) from the
control tape.

The returning motion reaches an IF after reversing everything after it.
If no statement of the IF's branches changes what its condition reads, the
condition's inputs then hold, once the later overwrites of them are undone,
the values the condition was evaluated with: evaluating it again gives the
branch the recording took.  The later overwrites are undone only if the
taping plan counts the condition as read there, which may cost taping.

Cost model: a condition is evaluated again when it is cheap (variables,
array elements, arithmetic, comparisons and cheap intrinsics; no function
of the user, nothing transcendental) and counting it as read tapes nothing
more than the plan without it (a few locals' final values excepted, pushed
once per call): then the push and pop of its branch, once per execution of
the IF, are saved for an evaluation of a few operations.

A DO loop with a literal step runs all its iterations (one with an EXIT
is a DO WHILE by now): when its body changes nothing its bounds read, they
hold at the loop's end what they held at its entry, and the reversed loop
runs from its last index value (the upper bound for a unit step) back to
the first with no trip count on the tape, under the same cost model.
"""

from psyclone.psyir.nodes import (
    ArrayReference, BinaryOperation, Call, CodeBlock, IfBlock, IntrinsicCall, Literal, Loop, Node,
    Range, Reference, UnaryOperation)
from psyclone.psyir.symbols import DataSymbol, ScalarType

from adfort.tape import written_names
from adfort.transformations.reverser import enclosing_loop_indices

# Intrinsics cheap enough to evaluate again rather than tape.
CHEAP_INTRINSICS = {"ABS", "MIN", "MAX", "MOD", "MODULO", "SIGN", "INT", "NINT", "REAL", "DBLE",
                    "FLOOR", "CEILING", "SIZE", "LBOUND", "UBOUND", "PRESENT", "AINT", "ANINT"}
_CHEAP = CHEAP_INTRINSICS
_NUMERIC = (ScalarType.Intrinsic.INTEGER, ScalarType.Intrinsic.REAL)
_MAX_NODES = 40
# Beyond this many candidates, try them together only (planning cost).
_MAX_TRIED = 60


def _plain_variable(symbol):
    """A numeric variable, not allocatable and not a pointer (its values,
    not its allocation status, are what the tapes restore)."""
    if not isinstance(symbol, DataSymbol):
        return False
    dtype = symbol.datatype
    element = getattr(dtype, "elemental_type", dtype)
    if getattr(element, "intrinsic", None) not in _NUMERIC:
        return False
    if getattr(dtype, "is_allocatable", False):
        return False
    return "pointer" not in str(dtype).lower()


def condition_reads(condition, cheap=_CHEAP, sections=False):
    """Names the condition reads, or None when it is not cheap to evaluate
    again.

    :param cheap: the names of the intrinsics counted as cheap.
    :param sections: whether array sections (``p(:, k)``) may be read: the
        right-hand side of a whole-array assignment computed again."""
    nodes = condition.walk(Node)
    if len(nodes) > _MAX_NODES:
        return None
    names = set()
    for node in nodes:
        if isinstance(node, IntrinsicCall):
            if node.intrinsic.name not in cheap:
                return None
        elif isinstance(node, (Call, CodeBlock)):
            return None
        elif isinstance(node, Reference):
            parent = node.parent
            if isinstance(parent, Call) and node is parent.routine:
                continue
            if not _plain_variable(node.symbol):
                return None
            names.add(node.symbol.name.lower())
        elif sections and isinstance(node, Range) and isinstance(node.parent, ArrayReference):
            continue   # its bounds are walked as the subscripts they are
        elif not isinstance(node, (Literal, BinaryOperation, UnaryOperation)):
            return None  # an array section, a structure…
    return names


def candidates(routine, alias):
    """{id(IfBlock): names its condition reads} for the IFs whose condition
    could be evaluated again in the returning motion."""
    if alias:
        return {}  # a write through a pointer may change the condition
    found = {}
    for block in routine.walk(IfBlock):
        names = condition_reads(block.condition)
        if names is None:
            continue
        body = list(block.if_body.children) + (
            list(block.else_body.children) if block.else_body is not None else [])
        if any(not isinstance(c, IntrinsicCall) for s in body for c in s.walk(Call)) or \
                any(s.walk(CodeBlock) for s in body):
            continue  # a call or an I/O statement may change what it reads
        if names & written_names(body):
            continue
        found[id(block)] = names - enclosing_loop_indices(block)
    return found


def loop_candidates(routine, alias, call_writes=None):
    """{id(Loop): names its bounds read} for the DO loops whose reversal
    could evaluate their bounds again instead of popping the trip count:
    a literal step (no EXIT: a loop with one is a DO WHILE by now),
    cheap bounds that nothing in the body changes (so they hold at the
    loop's end what they held at its entry).  Evaluated where the loop is
    reversed, that is at its end, like an IF's condition.

    :param call_writes: {id(call statement): names the call may change}.
    """
    if alias:
        return {}
    found = {}
    for loop in routine.walk(Loop):
        if not literal_step(loop):
            continue
        start, stop = condition_reads(loop.start_expr), condition_reads(loop.stop_expr)
        if start is None or stop is None:
            continue
        body = loop.loop_body.children
        if any(s.walk(CodeBlock) for s in body):
            continue  # an opaque statement may change what the bounds read
        if (start | stop) & (written_names(body, call_writes) | {loop.variable.name.lower()}):
            continue
        found[id(loop)] = (start | stop) - enclosing_loop_indices(loop.parent)
    return found


def literal_step(loop):
    """The step of DO loop `loop` when it is a nonzero integer literal
    (``3``, ``-2``), else None."""
    step, sign = loop.step_expr, 1
    if isinstance(step, UnaryOperation) and step.operator == UnaryOperation.Operator.MINUS:
        step, sign = step.children[0], -1
    if isinstance(step, Literal) and step.value.isdigit() and int(step.value):
        return sign * int(step.value)
    return None


def _same_taping(plan, base):
    return (plan.taped == base.taped and plan.taped_calls == base.taped_calls
            and plan.taped_arrays == base.taped_arrays
            and plan.loop_indices == base.loop_indices
            and {k: set(v) for k, v in plan.loop_snapshots.items()}
            == {k: set(v) for k, v in base.loop_snapshots.items()})


def choose(found, make_plan):
    """The taping plan with the conditions of `found` worth evaluating again.

    :param found: see :func:`candidates`.
    :param make_plan: ``make_plan(reevaluate)`` plans the taping with the
        conditions of ``{id(IfBlock): names}`` counted as read.
    :returns: the plan; its ``reevaluated`` holds the chosen IfBlock ids.
    """
    base = make_plan({})
    if not found:
        return base
    together = make_plan(found)
    if _same_taping(together, base):
        return together
    chosen = {}
    for key in list(found)[:_MAX_TRIED]:
        if _same_taping(make_plan({key: found[key]}), base):
            chosen[key] = found[key]
    return make_plan(chosen) if chosen else base
