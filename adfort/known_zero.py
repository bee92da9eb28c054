"""Adjoints known to be zero in the returning motion.

The returning motion zeroes the adjoints of the routine's own variables on
entry, then mostly increments them (``k1_adj(i) = k1_adj(i) + op_adj``).
Where an adjoint is known to be zero, the increment is an assignment
(``k1_adj(i) = op_adj``: a load saved; gfortran cannot drop ``0 + x``, which
is not ``x`` for x = -0), and a zeroing that a loop overwrites element by
element before anything reads it is not needed at all (on Lorenz-96's RK4
step, four array passes of the five it made per step).

A forward pass over the statements keeps, for each local adjoint, whether
it is zero everywhere (``"all"``) or on the section its zeroing named
(``":n"``), else nothing.  Facts come only from zeroings (``a_adj = 0``,
``a_adj(:n) = 0``) and from loops that zero each element they visit last;
any other write, and any call or code block naming the adjoint, forgets
them.  Inside a loop:

- the whole-variable facts holding at the loop's head are those holding on
  entry and after the body (iterated to a fixed point);
- element ``a_adj(i)`` (``i`` the loop's index) of an adjoint zero on entry
  over the loop's range is still zero at the first statement of an
  iteration that writes ``a_adj``, when the loop names ``a_adj`` only as
  ``a_adj(i)`` and that statement is not in an inner loop: earlier
  iterations wrote other elements.

Every rewrite leaves the values computed unchanged (up to the sign of a
zero).
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, IfBlock, IntrinsicCall,
    Literal, Loop, Range, Reference, UnaryOperation, WhileLoop)

from adfort.constants import is_literal_value
from adfort.liveness import in_user_call

ALL = "all"


def simplify_known_zero(zeroings, statements, local):
    """Rewrite increments of adjoints known to be zero, and drop zeroings a
    loop overwrites before any read.

    :param zeroings: the zeroing statements of the local adjoints (and
        what else starts the returning motion), in order.
    :param statements: the statements that follow them.
    :param local: lower-case names of the adjoints of the routine's own
        variables (no call can change them without naming them).
    :returns: (zeroings kept, statements), both lists; statements are
        changed in place.
    """
    if any(a.is_pointer for s in statements for a in s.walk(Assignment)):
        return zeroings, statements    # (a pointer may alias an adjoint)
    tracked = {}
    for stmt in zeroings:
        region = _zeroing(stmt)
        if region is not None and stmt.lhs.symbol.name.lower() in local:
            tracked[stmt.lhs.symbol.name.lower()] = (region, stmt)
    if not tracked:
        return zeroings, statements
    names = set(tracked)
    state = {name: region for name, (region, _) in tracked.items()}
    _Pass(names, rewrite=True).block(statements, state)
    dead = _dead_zeroings(tracked, statements)
    return [z for z in zeroings if id(z) not in dead], statements


def _zeroing(stmt):
    """The region ``a_adj = 0`` / ``a_adj(:n) = 0`` zeroes (ALL, or the
    section's text), else None."""
    if not isinstance(stmt, Assignment) or not is_zero_literal(stmt.rhs):
        return None
    lhs = stmt.lhs
    if type(lhs) is Reference:
        return ALL
    if type(lhs) is ArrayReference and len(lhs.indices) == 1 \
            and isinstance(lhs.indices[0], Range):
        return _section_text(lhs.indices[0], lhs.symbol)
    return None


def _section_text(section, symbol):
    """``lower:upper`` of a step-1 Range of `symbol` (an implicit bound
    written as declared), or None."""
    if not (isinstance(section.step, Literal) and section.step.value == "1"):
        return None
    shape = getattr(symbol.datatype, "shape", None)
    texts = []
    for bound, inquiry, which in ((section.start, "LBOUND", "lower"),
                                  (section.stop, "UBOUND", "upper")):
        if isinstance(bound, IntrinsicCall) and bound.intrinsic.name == inquiry:
            if not shape or not hasattr(shape[0], which):
                return None
            bound = getattr(shape[0], which)
        texts.append(structural_key(bound))
    return ":".join(texts)


def is_zero_literal(node):
    """Whether `node` is an integer or real literal of value zero."""
    return is_literal_value(node, 0)


def structural_key(node):
    """A key of `node`'s structure (names, values, operators): equal keys,
    the same expression.  Not the writer's text: the statements of the
    returning motion are not in a tree yet, and the writer compares ranges
    through their scope."""
    if isinstance(node, Literal):
        return node.value.lower()
    name = node.symbol.name.lower() if isinstance(node, Reference) else ""
    if not node.children:
        return name or type(node).__name__
    head = getattr(node, "operator", None) or getattr(node, "intrinsic", None)
    head = getattr(head, "name", "") if head is not None else ""
    return f"{type(node).__name__}:{name}{head}(" + ",".join(
        structural_key(child) for child in node.children) + ")"


def _meet(first, second):
    """Facts holding in both states."""
    met = {}
    for name, region in first.items():
        other = second.get(name)
        if other is None:
            continue
        if region == other or other == ALL:
            met[name] = region
        elif region == ALL:
            met[name] = other
    return met


def increment_parts(stmt):
    """(t, whether negated) of ``v = v + t``, ``v = t + v`` or ``v = v -
    t`` (t not naming v's variable), else None."""
    rhs = stmt.rhs
    if not isinstance(rhs, BinaryOperation) or rhs.operator not in (
            BinaryOperation.Operator.ADD, BinaryOperation.Operator.SUB):
        return None
    target = structural_key(stmt.lhs)
    left, right = rhs.children
    name = stmt.lhs.symbol.name.lower()
    for same, other, negated in ((left, right, rhs.operator == BinaryOperation.Operator.SUB),
                                 (right, left, None)):
        if negated is None and rhs.operator != BinaryOperation.Operator.ADD:
            continue
        if isinstance(same, Reference) and same.symbol.name.lower() == name \
                and structural_key(same) == target \
                and not any(r.symbol.name.lower() == name for r in other.walk(Reference)):
            return other, bool(negated)
    return None


def _assign_increment(stmt, found):
    """Make ``v = v + t`` (``v - t``) the assignment ``v = t`` (``-t``)."""
    other, negated = found
    value = other.detach()
    if negated:
        value = UnaryOperation.create(UnaryOperation.Operator.MINUS, value)
    stmt.rhs.replace_with(value)


def _names(node, names):
    """The tracked names `node` refers to."""
    return {r.symbol.name.lower() for r in node.walk(Reference)} & names


class _Pass:
    """The forward pass: :meth:`block` updates a state {name: region}
    through statements, rewriting increments when `rewrite` is set."""

    def __init__(self, names, rewrite):
        self.names = names
        self.rewrite = rewrite
        self.first_writes = set()   # ids of element increments known zero

    def block(self, statements, state):
        for stmt in statements:
            self.statement(stmt, state)
        return state

    def statement(self, stmt, state):
        if isinstance(stmt, Assignment):
            self.assignment(stmt, state)
        elif isinstance(stmt, Loop):
            self.loop(stmt, state)
        elif isinstance(stmt, WhileLoop):
            self.while_loop(stmt, state)
        elif isinstance(stmt, IfBlock):
            branches = [stmt.if_body.children]
            if stmt.else_body is not None:
                branches.append(stmt.else_body.children)
            after = [self.block(list(b), dict(state)) for b in branches]
            if stmt.else_body is None:
                after.append(dict(state))
            merged = after[0]
            for other in after[1:]:
                merged = _meet(merged, other)
            state.clear()
            state.update(merged)
        else:
            # A call, a code block, anything else: what it names is forgotten.
            for name in _names(stmt, self.names):
                state.pop(name, None)

    def assignment(self, stmt, state):
        lhs = stmt.lhs
        name = lhs.symbol.name.lower()
        if name not in self.names:
            return
        if any(isinstance(n, Call) and not isinstance(n, IntrinsicCall)
               for n in stmt.rhs.walk(Call)):
            state.pop(name, None)
            return
        region = _zeroing(stmt)
        if region is not None:
            state[name] = region if region == ALL or state.get(name) != ALL else ALL
            return
        if type(lhs) is ArrayReference and is_zero_literal(stmt.rhs):
            return      # one element zeroed: the facts still hold
        found = increment_parts(stmt)
        if self.rewrite and found is not None and (
                (type(lhs) is Reference and state.get(name) == ALL)
                or (type(lhs) is ArrayReference and state.get(name) == ALL
                    and not any(isinstance(i, Range) for i in lhs.indices))
                or id(stmt) in self.first_writes):
            _assign_increment(stmt, found)
        state.pop(name, None)

    def loop(self, loop, state):
        entry = dict(state)
        head = self.head(loop.loop_body, entry)
        if self.rewrite and not loop.loop_body.walk(CodeBlock):
            index = _LoopIndex(loop)
            self.first_writes |= _first_element_writes(loop, entry, self.names, index)
            self.first_writes |= _nest_first_writes(loop, entry, self.names, index)
        after = self.block(list(loop.loop_body.children), dict(head))
        exit_ = _meet(head, after) if not loop.loop_body.walk(CodeBlock) else head
        # (Indexed again: the block's rewrites took references out.)
        index = _LoopIndex(loop)
        for name in self.names & index.writes.keys():
            if _zeroes_each_element(loop, name, index):
                exit_[name] = ALL
        state.clear()
        state.update(exit_)

    def while_loop(self, loop, state):
        head = self.head(loop.loop_body, dict(state))
        after = self.block(list(loop.loop_body.children), dict(head))
        state.clear()
        state.update(_meet(head, after) if not loop.loop_body.walk(CodeBlock) else head)

    def head(self, body, entry):
        """The facts holding at every iteration's start: a fixed point of
        entry ∩ (facts after the body).  A body holding a code block (an
        EXIT or CYCLE leaving it midway): only the facts about what it
        never names."""
        if body.walk(CodeBlock):
            named = _names(body, self.names)
            return {n: r for n, r in entry.items() if n not in named}
        body = body.children
        analysis = _Pass(self.names, rewrite=False)
        head = dict(entry)
        for _ in range(len(self.names) + 1):
            after = analysis.block(list(body), dict(head))
            new = _meet(entry, after)
            if new == head:
                break
            head = new
        return head


def _loop_range(loop):
    """The set of indices `loop` visits, as ``low:high`` text (step ±1),
    or None."""
    step = loop.step_expr
    if isinstance(step, Literal) and step.value == "1":
        return f"{structural_key(loop.start_expr)}:{structural_key(loop.stop_expr)}"
    if isinstance(step, UnaryOperation) and isinstance(step.children[0], Literal) \
            and step.children[0].value == "1":
        return f"{structural_key(loop.stop_expr)}:{structural_key(loop.start_expr)}"
    if isinstance(step, Literal) and step.value == "-1":
        return f"{structural_key(loop.stop_expr)}:{structural_key(loop.start_expr)}"
    return None


class _LoopIndex:
    """The mentions of each name in a loop, found in one walk each: asking
    each tracked adjoint's question of each loop by walking it was
    quadratic (the adjoints and the loops both grow with the routine).

    - ``refs``: {name: the loop's references to it, in walk order};
    - ``body_refs``: the same, in its body only (not its bounds);
    - ``writes``: {name: the assignments to it in the body, in order};
    - ``code_block``: whether the body holds a code block.

    An index describes the loop as it was when made.
    """

    def __init__(self, loop):
        self.refs = _by_name(loop.walk(Reference), lambda r: r)
        self.body_refs = _by_name(loop.loop_body.walk(Reference), lambda r: r)
        self.writes = _by_name(loop.loop_body.walk(Assignment), lambda a: a.lhs)
        self.code_block = bool(loop.loop_body.walk(CodeBlock))


def _by_name(nodes, reference):
    """{lower-case name of `reference`(node): [nodes]}, in order."""
    found = {}
    for node in nodes:
        found.setdefault(reference(node).symbol.name.lower(), []).append(node)
    return found


def _only_own_elements(loop, name, index):
    """Whether `loop` names adjoint `name` only as ``name(i)``, ``i`` its
    index (never assigned in it), outside calls and code blocks.

    :param index: the loop's :class:`_LoopIndex`.
    """
    variable = loop.variable.name.lower()
    body = loop.loop_body
    if index.code_block or variable in index.writes:
        return False
    for ref in index.body_refs.get(name, ()):
        if type(ref) is not ArrayReference or len(ref.indices) != 1:
            return False
        only = ref.indices[0]
        if type(only) is not Reference or only.symbol.name.lower() != variable:
            return False
        if in_user_call(ref, body):
            return False
    return True


def _covers(loop, region, symbol=None):
    """Whether `loop`'s indices are the elements of `region`."""
    visited = _loop_range(loop)
    if visited is None:
        return False
    if region == ALL:
        shape = getattr(getattr(symbol, "datatype", None), "shape", None)
        if not shape or len(shape) != 1 or not hasattr(shape[0], "lower"):
            return False
        region = f"{structural_key(shape[0].lower)}:{structural_key(shape[0].upper)}"
    return visited == region


def _nest_covers(nest, symbol):
    """Whether the loops of `nest` ([(loop, subscript position)]) visit
    every element of array `symbol`: one loop per dimension, each over its
    declared bounds."""
    shape = getattr(getattr(symbol, "datatype", None), "shape", None)
    if not shape or len(shape) != len(nest) or \
            sorted(at for _, at in nest) != list(range(len(shape))):
        return False
    for lp, at in nest:
        if not hasattr(shape[at], "lower") or _loop_range(lp) != \
                f"{structural_key(shape[at].lower)}:{structural_key(shape[at].upper)}":
            return False
    return True


def _within(loop, region):
    """Whether every index `loop` visits is in `region`."""
    return region == ALL or _covers(loop, region)


def _first_element_writes(loop, entry, names, index):
    """Ids of the increments of ``a_adj(i)`` that are the first write of an
    iteration to an adjoint zero over the loop's range on entry.

    :param index: the loop's :class:`_LoopIndex`.
    """
    found = set()
    body = loop.loop_body
    for name in names & index.writes.keys():
        region = entry.get(name)
        if region is None or not _within(loop, region) or \
                not _only_own_elements(loop, name, index):
            continue
        first = index.writes[name][0]
        # Not in a loop inside this one (its second trip would see it set).
        parent = first.parent
        while parent is not body:
            if isinstance(parent, (Loop, WhileLoop)):
                break
            parent = parent.parent
        else:
            found.add(id(first))
    return found


def _zeroes_each_element(loop, name, index):
    """Whether `loop` names `name` only as ``name(i)``, its last write in
    an iteration is ``name(i) = 0`` at the body's top level, and its
    indices cover `name`'s declared extent: `name` is zero after it.

    :param index: the loop's :class:`_LoopIndex`.
    """
    body = loop.loop_body
    writes = index.writes.get(name)
    if not writes or writes[-1].parent is not body or not is_zero_literal(writes[-1].rhs):
        return False
    if not _only_own_elements(loop, name, index):
        return False
    return _covers(loop, ALL, writes[-1].lhs.symbol)


def _own_nest(loop, name, index):
    """[(loop, subscript position of its index)] from `loop` down to the
    innermost one, when every mention of `name` in `loop` is an element in
    that innermost loop's body whose subscripts hold each of the nest's
    indices, alone, at one place (the same in every mention; no index
    assigned, no call or code block): each iteration of the nest has
    elements of its own.  Else None.

    :param index: the loop's :class:`_LoopIndex`.
    """
    if index.code_block:
        return None
    chain, places = None, {}
    for ref in index.refs.get(name, ()):
        if type(ref) is not ArrayReference or any(isinstance(i, Range) for i in ref.indices) \
                or in_user_call(ref, loop):
            return None
        enclosing, node = [], ref.parent
        while node is not None:
            if isinstance(node, (Loop, WhileLoop)):
                enclosing.insert(0, node)
            if node is loop:
                break
            node = node.parent
        if chain is None:
            chain = enclosing
        if len(enclosing) != len(chain) or any(a is not b for a, b in zip(enclosing, chain)) \
                or any(not isinstance(lp, Loop) for lp in chain):
            return None
        for lp in chain:
            variable = lp.variable.name.lower()
            at = {k for k, i in enumerate(ref.indices)
                  if type(i) is Reference and i.symbol.name.lower() == variable}
            places[id(lp)] = places.get(id(lp), at) & at
            if not places[id(lp)]:
                return None
    if not chain:
        return None
    indices = {lp.variable.name.lower() for lp in chain}
    if indices & index.writes.keys():
        return None
    return [(lp, min(places[id(lp)])) for lp in chain]


def _nest_first_writes(loop, entry, names, index):
    """Ids of the first writes of ``a_adj(i, j…)`` in the innermost body of
    a loop nest whose iterations each have elements of their own
    (:func:`_own_nest`), `a_adj` zero whole on entry: the first write of
    an element in the whole nest.  (One loop: :func:`_first_element_writes`.)

    :param index: the loop's :class:`_LoopIndex`.
    """
    found = set()
    for name in names & index.refs.keys():
        if entry.get(name) != ALL:
            continue
        chain = _own_nest(loop, name, index)
        if chain is None or len(chain) < 2:
            continue
        innermost = chain[-1][0].loop_body
        writes = [a for a in innermost.walk(Assignment) if a.lhs.symbol.name.lower() == name]
        if writes:
            found.add(id(writes[0]))
    return found


def _dead_zeroings(tracked, statements):
    """Ids of zeroings whose values no statement reads: the first statement
    naming the adjoint is a loop (or a nest, :func:`_own_nest`) covering
    the zeroed region whose (innermost) first statement naming it assigns
    ``a_adj(i)`` from values not naming it, at the body's top level, the
    loop naming nothing else of it."""
    names = set(tracked)
    # Where each name is first named and first assigned, found in one walk
    # of each statement (not one per adjoint); loops indexed once.
    first_named, first_assigned = {}, {}
    for position, stmt in enumerate(statements):
        for name in _names(stmt, names):
            first_named.setdefault(name, position)
        for assign in stmt.walk(Assignment):
            first_assigned.setdefault(assign.lhs.symbol.name.lower(), position)
    indexes, namings = {}, {}
    dead = set()
    for name, (region, zeroing) in tracked.items():
        at = first_named.get(name)
        first = statements[at] if at is not None else None
        if not isinstance(first, Loop):
            continue
        index = indexes.get(id(first)) or indexes.setdefault(id(first), _LoopIndex(first))
        nest = [(first, 0)] if _only_own_elements(first, name, index) else \
            _own_nest(first, name, index) if region == ALL else None
        if nest is None or not (_covers(first, region, zeroing.lhs.symbol) if len(nest) == 1
                                else _nest_covers(nest, zeroing.lhs.symbol)):
            continue
        bounds = {r.symbol.name.lower() for lp, _ in nest
                  for expr in (lp.start_expr, lp.stop_expr) for r in expr.walk(Reference)}
        if any(first_assigned.get(bound, at + 1) <= at for bound in bounds):
            continue
        body = nest[-1][0].loop_body
        if id(body) not in namings:
            namings[id(body)] = _first_naming(body, names)
        naming = namings[id(body)].get(name)
        if not isinstance(naming, Assignment) or naming.parent is not body \
                or naming.lhs.symbol.name.lower() != name \
                or name in _names(naming.rhs, {name}):
            continue
        dead.add(id(zeroing))
    return dead


def _first_naming(body, names):
    """{name of `names`: the first statement in `body` (at any depth, in
    walk order) naming it}."""
    found = {}
    for stmt in body.walk((Assignment, Call, IfBlock, Loop, WhileLoop)):
        for name in _names(stmt, names):
            found.setdefault(name, stmt)
    return found
