"""Sections of the elements a loop writes, kept within the array's
declared bounds.

The section a write ``a(i + c)`` in a DO loop over ``i = first, last``
covers, ``a(first+c : last+c)``, is taken from the loop bounds: right
when every iteration writes.  A loop may run over a wider range than the
array, an IF (a CYCLE, an EXIT, an F77 ``IF … GOTO``) keeping the write
inside it, as the sea-ice loop whose ``n = 0`` is open water:

    do n = 0, ncat
      if (n == 0) then
        g0 = …
      else
        g(n) = …          ! real(8) :: g(ncat)
      end if
    end do

writes ``g(1:ncat)``, not ``g(0:ncat)``.  A save, restore, hand-over or
zeroing of the latter reaches outside ``g``: an index error under
``-fcheck``, otherwise another array's element (pooled work arrays lie side
by side) and a wrong gradient.

:func:`surely_written` tells whether a write runs whenever its loop
iterates (whenever its routine runs, for a write of one element): nothing
between it and the routine is an IF or a DO WHILE, nor a DO loop whose
number of iterations a loop around it may change (``do j = 1, i`` in a
loop over ``i``: some iterations of the outer loop run none), and
nothing in the loops around it leaves an iteration early (EXIT, CYCLE,
GO TO, STOP: code blocks; RETURN).  A write that surely runs is within
the bounds in a valid program: its own loop running no iteration gives an
empty range.  (A loop around it of a fixed number of iterations, running
none, writes nothing; the section then reaches outside only where the
write would, had the loop run: such a loop is not taken for a guard.)
The section of any other write is clamped to the declared bounds by
:func:`clamped`: ``MAX(lo, first+c)`` and ``MIN(hi, last+c)``, folded
where both sides differ by a constant (``do n = 0, ncat`` on ``g(ncat)``:
``g(1:ncat)``) and left as is where the loop bound is provably inside
(``do i = 1, n`` on ``x(n)``).  An assumed-size array (``x(*)``) has no
upper bound to clamp to: the caller passes a bound of None.
"""

import re

from psyclone.psyir.nodes import (
    Assignment, Call, CodeBlock, IfBlock, IntrinsicCall, Literal, Loop, Reference, Return,
    Routine, UnaryOperation, WhileLoop)

_LEAVES = re.compile(r"\b(exit|cycle|stop|go\s*to|return)\b")


def surely_written(ref, covering=()):
    """Whether the statement writing `ref` runs whenever the loops in
    `covering` iterate (those giving the section its ranges), the routine
    running: see the module docstring.

    :param covering: the DO loops whose bounds give the section's ranges.
    """
    covering = {id(loop) for loop in covering}
    node = ref.parent
    while node is not None and not isinstance(node, Routine):
        if isinstance(node, (IfBlock, WhileLoop)):
            return False
        if isinstance(node, Loop):
            if _leaves_early(node.loop_body) or (
                    id(node) not in covering and _trips_vary(node)):
                return False
        node = node.parent
    return node is None or not node.walk(Return)


def _trips_vary(loop):
    """Whether the number of iterations of DO loop `loop` may differ from
    one iteration of a loop around it to the next (``do j = 1, i`` in a
    loop over ``i``): some may then run none, skipping what it holds.  A
    loop whose bounds nothing around it changes runs its body every time
    or never (then nothing is written at all)."""
    read = {r.symbol.name.lower() for e in (loop.start_expr, loop.stop_expr, loop.step_expr)
            for r in e.walk(Reference)}
    outer = loop.ancestor((Loop, WhileLoop))
    while outer is not None:
        if isinstance(outer, Loop) and outer.variable.name.lower() in read:
            return True
        body = outer.loop_body
        if read & {a.lhs.symbol.name.lower() for a in body.walk(Assignment)}:
            return True
        for call in body.walk(Call):
            if not isinstance(call, IntrinsicCall) and read & {
                    r.symbol.name.lower() for a in call.arguments for r in a.walk(Reference)}:
                return True   # (a call may change what it is given)
        if body.walk(CodeBlock):
            return True       # (a READ…)
        outer = outer.ancestor((Loop, WhileLoop))
    return False


def _leaves_early(body):
    """Whether `body` holds a statement that may leave an iteration early."""
    for block in body.walk(CodeBlock):
        text = " ".join(str(n) for n in block.parse_tree_nodes).lower()
        if _LEAVES.search(text):
            return True
    return bool(body.walk(Return))


def clamped(lower, upper, least, greatest):
    """(`lower`, `upper`) kept within the declared bounds `least` and
    `greatest` (PSyIR expressions, copied where used; `greatest` None for
    an assumed-size dimension, `least` None when not known): a bound
    provably inside is kept, one provably outside is the declared bound,
    any other is ``MAX(least, lower)`` or ``MIN(greatest, upper)``."""
    if least is not None:
        lower = _extreme(lower, least, IntrinsicCall.Intrinsic.MAX)
    if greatest is not None:
        upper = _extreme(upper, greatest, IntrinsicCall.Intrinsic.MIN)
    return lower, upper


def _extreme(bound, declared, intrinsic):
    """`bound` kept on the inner side of `declared` by `intrinsic` (MAX
    for a lower bound, MIN for an upper one): compared where both are one
    expression plus different constants."""
    from adfort.known_zero import structural_key
    base, constant = _split(bound)
    dbase, dconstant = _split(declared)
    same = (base is None and dbase is None) or (
        base is not None and dbase is not None and
        structural_key(base) == structural_key(dbase))
    if same:
        inside = constant >= dconstant if intrinsic == IntrinsicCall.Intrinsic.MAX \
            else constant <= dconstant
        return bound if inside else declared.copy()
    if isinstance(bound, IntrinsicCall) and bound.intrinsic == intrinsic and any(
            structural_key(a) == structural_key(declared) for a in bound.arguments):
        return bound   # clamped already
    return IntrinsicCall.create(intrinsic, [declared.copy(), bound])


def _split(expr):
    """(base, c) with `expr` = base + c (base None for a constant, ``-1``
    read as a minus and a literal)."""
    from adfort.reach import _split_constant
    if isinstance(expr, UnaryOperation) and expr.operator == UnaryOperation.Operator.MINUS \
            and isinstance(expr.children[0], Literal) and expr.children[0].value.isdigit():
        return None, -int(expr.children[0].value)
    return _split_constant(expr)
