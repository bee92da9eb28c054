"""Increments of one adjoint element, gathered into one.

The returning motion increments an adjoint element once per use of its
primal value: an upwind stencil's body increments ``u_adj(i)`` three times,
``u_adj(ip)`` and ``u_adj(im)`` in between.  gfortran must assume ``ip``
may equal ``i``, so it loads, adds and stores the element each time, each
increment waiting for the store of the one before.  Increments commute, so
an increment may move down to the next increment of the same element and
the two become one (``u_adj(i) = u_adj(i) + (a - b)``), when nothing in
between

- names that adjoint other than by incrementing it (an assignment first,
  ``u_adj(i) = a``, may not move past any mention of it),
- writes what the moved increment reads (its value, its subscripts),
- calls a procedure or holds a code block (a jump).

An adjoint that is an argument or a module variable may share storage with
another such adjoint (``call f(a, a)``): for those, the same holds of every
such adjoint named in between.

Before an IF, an increment of an element that a branch of the IF
increments too moves into every branch, and merges there.  A temporary of
one statement's adjoint (``op_adj``) that a later statement's adjoint
reuses in between is renamed from that reuse on, when nothing after reads
the first value.

All of this changes the values computed only by rounding (the order of the
additions).
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, IfBlock, IntrinsicCall,
    Loop, Range, Reference, Schedule, UnaryOperation, WhileLoop)

from adfort.known_zero import increment_parts, is_zero_literal, structural_key

# How far a move looks (statements): bounds the cost on long blocks.
_REACH = 64
_ADD = BinaryOperation.Operator.ADD
_SUB = BinaryOperation.Operator.SUB


def merge_increments(statements, shared, temporaries, fresh):
    """Gather the increments of each adjoint element in `statements`.

    :param statements: the returning motion's statements (a list, changed
        in place; nested blocks are changed in place too).
    :param shared: lower-case names of the adjoints that may share storage
        with another (arguments' and module variables' adjoints).
    :param temporaries: lower-case names of the scalar temporaries of one
        statement's adjoint (each set before it is read, within that
        statement's adjoint).
    :param fresh: ``fresh(symbol, avoid)``: a temporary of `symbol`'s type
        whose lower-case name is not in `avoid`.
    :returns: the statements (a new list).
    """
    if any(a.is_pointer for s in statements for a in s.walk(Assignment)) \
            or any(s.walk(CodeBlock) for s in statements):
        return statements
    merger = _Merger(shared, temporaries, fresh, statements)
    return merger.block(list(statements), [])


def _element(stmt):
    """The key of `stmt`'s target when it assigns one array element (no
    section, no call in the subscripts), else None."""
    if not isinstance(stmt, Assignment) or stmt.is_pointer:
        return None
    lhs = stmt.lhs
    if type(lhs) is not ArrayReference:
        return None
    if any(isinstance(i, Range) or i.walk(Call) for i in lhs.indices):
        return None
    return structural_key(lhs)


def _names(node):
    return {r.symbol.name.lower() for r in node.walk(Reference)}


def _user_call(node):
    return any(not isinstance(c, IntrinsicCall) for c in node.walk(Call))


class _Moved:
    """An increment (or assignment) on its way down to the next increment
    of its element."""

    def __init__(self, stmt, shared):
        self.stmt = stmt
        self.key = _element(stmt)
        self.base = stmt.lhs.symbol.name.lower()
        self.parts = increment_parts(stmt)
        self.plain = self.parts is None
        # What its value and subscripts read: nothing in between may write it.
        value = stmt.rhs if self.plain else self.parts[0]
        self.reads = _names(value) | {n for i in stmt.lhs.indices for n in _names(i)}
        self.guarded = {self.base}
        if self.base in shared:
            self.guarded |= shared

    def valid(self):
        if self.key is None or _user_call(self.stmt):
            return False
        return not self.plain or self.base not in _names(self.stmt.rhs)

    def blocked_by(self, stmt, facts=None):
        """Names written by `stmt` that the move needs unchanged (a set,
        maybe empty), or None when `stmt` cannot be crossed at all.

        :param facts: `stmt`'s :class:`_Facts` (made here when None).
        """
        facts = facts if facts is not None else _Facts(stmt)
        if facts.opaque:
            return None
        if facts.names & self.guarded:
            allowed = set()
            for name, parts, ids in facts.assigns:
                if name in self.guarded:
                    if parts is None or self.plain:
                        return None
                    allowed.update(ids)
            for name, ref in facts.refs:
                if name in self.guarded and ref not in allowed:
                    return None
        return facts.written & self.reads


    def merge_into(self, later):
        """Make `later` (an increment of the same element) do both."""
        other, negated = increment_parts(later)
        other = other.detach()
        if self.plain:
            first = self.stmt.rhs.detach()
            if is_zero_literal(first):
                value = UnaryOperation.create(UnaryOperation.Operator.MINUS, other) \
                    if negated else other
            else:
                value = BinaryOperation.create(_SUB if negated else _ADD, first, other)
            later.rhs.replace_with(value)
            return
        mine, mine_negated = self.parts
        mine = mine.detach()
        if mine_negated and negated:
            op, inner = _SUB, BinaryOperation.create(_ADD, mine, other)
        elif mine_negated:
            op, inner = _ADD, BinaryOperation.create(_SUB, other, mine)
        else:
            op, inner = _ADD, BinaryOperation.create(_SUB if negated else _ADD, mine, other)
        later.rhs.replace_with(BinaryOperation.create(op, later.lhs.copy(), inner))


class _Facts:
    """What the moves ask of a statement, found once (a move looks at each
    of the next statements: long blocks of straight-line code, as
    generated chemistry, ask the same of each statement many times)."""

    def __init__(self, stmt):
        self.stmt = stmt
        self.key = _element(stmt)
        self.increment = self.key is not None and increment_parts(stmt) is not None
        assignments = stmt.walk(Assignment)
        self.opaque = bool(stmt.walk(CodeBlock)) or _user_call(stmt) \
            or any(a.is_pointer for a in assignments)
        self.written = {a.lhs.symbol.name.lower() for a in assignments}
        self.written |= {lp.variable.name.lower() for lp in stmt.walk(Loop)}
        # (name, increment parts or None, ids of the references an increment
        # of a guarded name may hold) of each assignment; (name, id) of each
        # reference.
        self.assigns = []
        for assign in assignments:
            parts = increment_parts(assign)
            ids = set()
            if parts is not None:
                ids.add(id(assign.lhs))
                ids.update(id(c) for c in assign.rhs.children if c is not parts[0])
            self.assigns.append((assign.lhs.symbol.name.lower(), parts, ids))
        self.refs = [(r.symbol.name.lower(), id(r)) for r in stmt.walk(Reference)]
        self.names = {name for name, _ in self.refs}


class _Merger:
    """The pass over nested blocks.  `follow` (a list of statement lists)
    is what may run after a block, in order: the rest of each enclosing
    block, and an enclosing loop's body again."""

    def __init__(self, shared, temporaries, fresh, statements):
        self.shared = set(shared)
        self.temporaries = set(temporaries)
        self.fresh = fresh
        self.used = {n for s in statements for n in _names(s)}
        self.facts = {}     # id(statement): _Facts, while merge() runs

    def block(self, stmts, follow):
        self.sink(stmts)
        for pos, stmt in enumerate(stmts):
            rest = [stmts[pos + 1:]] + follow
            if isinstance(stmt, IfBlock):
                for branch in (stmt.if_body, stmt.else_body):
                    if branch is not None:
                        self.nested(branch, rest)
            elif isinstance(stmt, (Loop, WhileLoop)):
                self.nested(stmt.loop_body, [list(stmt.loop_body.children)] + rest)
        self.merge(stmts, follow)
        return stmts

    def nested(self, schedule, follow):
        stmts = [s.detach() for s in list(schedule.children)]
        for stmt in self.block(stmts, follow):
            schedule.addchild(stmt)

    def merge(self, stmts, follow):
        """Merge each increment of `stmts` into the next one of its element."""
        self.facts = {}
        pos = 0
        while pos < len(stmts):
            moved = _Moved(stmts[pos], self.shared) if self._facts(stmts[pos]).key else None
            target = self.next_increment(stmts, pos, moved, follow) \
                if moved is not None and moved.valid() else None
            if target is None:
                pos += 1
                continue
            moved.merge_into(stmts[target])
            self.facts.pop(id(stmts[target]), None)
            del stmts[pos]
        self.facts = {}

    def _facts(self, stmt):
        """`stmt`'s :class:`_Facts`, made once while it is unchanged."""
        found = self.facts.get(id(stmt))
        if found is None or found.stmt is not stmt:
            found = self.facts[id(stmt)] = _Facts(stmt)
        return found

    def next_increment(self, stmts, pos, moved, follow):
        """The index of the next increment of `moved`'s element that it can
        move to, renaming temporaries on the way; else None."""
        for later in range(pos + 1, min(len(stmts), pos + 1 + _REACH)):
            stmt = stmts[later]
            facts = self._facts(stmt)
            if facts.key == moved.key and facts.increment:
                return later
            blocking = moved.blocked_by(stmt, facts)
            if blocking and not self.rename(stmts, later, blocking, follow):
                return None
            if blocking is None:
                return None
        return None

    def rename(self, stmts, at, names, follow):
        """Give the temporaries `names`, set by ``stmts[at]``, new names from
        there to the end of `stmts`, if that is safe; whether done."""
        stmt = stmts[at]
        if not (isinstance(stmt, Assignment) and type(stmt.lhs) is Reference
                and names == {stmt.lhs.symbol.name.lower()}):
            return False
        name = stmt.lhs.symbol.name.lower()
        if name not in self.temporaries or not _set_before_read(follow, name):
            return False
        new = self.fresh(stmt.lhs.symbol, self.used)
        self.used.add(new.name.lower())
        self.temporaries.add(new.name.lower())
        stmt.lhs.symbol = new
        self.facts.pop(id(stmt), None)
        for later in stmts[at + 1:]:
            for ref in later.walk(Reference):
                if ref.symbol.name.lower() == name:
                    ref.symbol = new
            self.facts.pop(id(later), None)
        return True

    def sink(self, stmts):
        """Move increments before an IF into its branches when a branch
        increments the same element."""
        pos = 0
        while pos < len(stmts):
            stmt = stmts[pos]
            if not isinstance(stmt, IfBlock) or _user_call(stmt.condition):
                pos += 1
                continue
            movers = []
            for earlier in range(pos - 1, max(-1, pos - 1 - _REACH), -1):
                if _element(stmts[earlier]) is None:
                    continue
                moved = _Moved(stmts[earlier], self.shared)
                if moved.plain or not moved.valid():
                    continue
                between = stmts[earlier + 1:pos]
                if any(moved.blocked_by(s) != set() for s in between):
                    continue
                if moved.guarded & _names(stmt.condition):
                    continue
                if any(self.reaches(moved, branch) for branch in (stmt.if_body, stmt.else_body)
                       if branch is not None):
                    movers.append(earlier)
            if not movers:
                pos += 1
                continue
            moving = [stmts[i] for i in sorted(movers)]
            for i in sorted(movers, reverse=True):
                del stmts[i]
            if stmt.else_body is None:
                stmt.addchild(Schedule())
            for branch in (stmt.if_body, stmt.else_body):
                for offset, inc in enumerate(moving):
                    branch.addchild(inc.copy(), offset)
            pos = stmts.index(stmt) + 1

    def reaches(self, moved, branch):
        """Whether `moved` could merge with an increment at the top level of
        `branch` (nothing before it blocks, temporaries aside)."""
        for stmt in branch.children:
            if _element(stmt) == moved.key and increment_parts(stmt) is not None:
                return True
            blocking = moved.blocked_by(stmt)
            if blocking is None:
                return False
            if blocking and not (blocking <= self.temporaries and isinstance(stmt, Assignment)):
                return False
        return False


def _set_before_read(follow, name):
    """Whether, in what may run next (`follow`), `name` is assigned whole
    before anything reads it (or is never named)."""
    for stmts in follow:
        found = _first_use(stmts, name)
        if found is not None:
            return found == "set"
    return True


def _first_use(stmts, name):
    """``"set"`` if `stmts` assign `name` whole on every path before any
    read of it, ``"read"`` if some path may read it first, None if neither
    (not named, or set on some paths only)."""
    for stmt in stmts:
        if name not in _names(stmt):
            continue
        if isinstance(stmt, Assignment):
            if name in _names(stmt.rhs) or type(stmt.lhs) is not Reference \
                    or stmt.lhs.symbol.name.lower() != name:
                return "read"
            return "set"
        if isinstance(stmt, IfBlock):
            if name in _names(stmt.condition):
                return "read"
            found = [_first_use(b.children, name) for b in (stmt.if_body, stmt.else_body)
                     if b is not None]
            if "read" in found:
                return "read"
            if stmt.else_body is not None and found == ["set", "set"]:
                return "set"
            continue
        if isinstance(stmt, Loop) and not any(
                name in _names(e) for e in (stmt.start_expr, stmt.stop_expr, stmt.step_expr)):
            if _first_use(stmt.loop_body.children, name) == "read":
                return "read"
            continue
        return "read"
    return None
