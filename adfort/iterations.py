"""Scalars each iteration of a DO loop computes afresh from its indices
and from values the loop does not change (neighbour indices ``im1 = i -
1; if (im1 < 1) im1 = im1 + n``, level pointers ``kp = min(k + 1, nz)``,
differences of inputs ``dc = c(i+1) - c(i)``): the returning motion computes
them again at the start of each reversed iteration instead of taping them.

Cost model: taping such a variable costs a push per overwrite in the
recording, a pop in the returning motion and tape room; computing it again
costs the operations of its statements once per reversed iteration.  Those
are cheap (no function of the user, only cheap intrinsics; a real value's
formula at most a few operations), so computing again wins.

A variable ``v`` (an integer or real scalar local, without SAVE or an
initial value) of loop ``L`` qualifies when

- every write of ``v`` is an assignment in ``L``'s body, at its top level
  or in IF blocks at its top level that hold only such assignments (no
  call, no I/O, no nested loop sets it), and ``v`` is named nowhere outside
  ``L`` but in other loops where it qualifies too (``im``/``ip`` set afresh
  in each of a routine's loops): no loop then reads a value another one
  left, and each reversed loop computes its own;
- the first statement of the body naming ``v`` sets it on every path
  without reading it (its value is not carried from one iteration to the
  next);
- those statements (and the conditions of their IF blocks) read only
  literals, the indices of ``L`` and of the loops around it, other
  qualifying variables set before, and locals and arguments ``L`` never
  writes (nor a call in it: ``diff = u(ip) - 2*u(i) + u(im)`` in a time
  step's space loop, ``u`` set after it), or module variables the routine
  never writes and no callee can;
- every other statement of the body naming ``v`` comes after the last
  statement setting it, so the value computed again is the one each of
  them read.

A local array set whole (``qs = epsr*es/(p(:, k) - (1 - epsr)*es)``,
``rh = (qv(:, k) + qc(:, k))/qs`` in a GCM's loop over levels) qualifies the
same way, each write of it an assignment to the whole array; besides, its
formula may read arrays the iteration sets before it and not after (``es``):
those hold at the end of the iteration, hence at the start of its reversal,
the values it read (the taping plan puts them back for the statements
reading the array).  A power with a real exponent (``(p/p0)**(rd/cpd)``)
is not cheap: such an array is taped.

Only primal values are computed again; an active variable's adjoint is
untouched.  Where the adjoint of a statement read ``v``, it now reads what
``v``'s statements read: the taping plan sees those reads, so a variable
changed after ``L`` is put back before ``L`` is reversed.
"""

import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, DataNode, IfBlock,
    IntrinsicCall, Literal, Loop, Reference, UnaryOperation, WhileLoop)
from psyclone.psyir.symbols import (
    ArrayType, AutomaticInterface, CommonBlockInterface, DataSymbol, ScalarType)

from adfort.fresh_elements import earlier_elements
from adfort.recompute import condition_reads

# A real value computed again costs its operations once per reversed
# iteration, a taped one a push and a pop: only short formulas are
# computed again (a difference, a ratio, a clipped value); each
# assignment's right-hand side counts (an IF block runs one branch).
_MAX_REAL_NODES = 16
# Within a loop, per reversed iteration: a van Albada limiter's value
# (13 operations, cheap intrinsics) is computed again, not pushed.
_MAX_REAL_OPERATIONS = 16
from adfort.tape import written_names
from adfort.transformations.reverser import enclosing_loop_indices


def recomputed_in_loops(routine, alias, call_writes=None, cheap_calls=frozenset(),
                        fresh=None, constant=None):
    """{id(Loop): (names, statements)}: the variables each loop's reversed
    iterations compute again, and the top-level statements of its body
    (assignments and IF blocks, in order) that compute them, to be copied.

    :param routine: the working copy of the routine (structured).
    :param alias: {pointer: target} of the routine (nothing is computed
        again when a pointer may write anything).
    :param call_writes: {id(call statement): names the call may change}
        (from the callees' summaries); a variable only given to a callee
        that does not change it is read there, not set.
    :param cheap_calls: ids of the calls to short functions
        (:func:`cheap_function`): ``v = f(r)`` may be computed again.
    :param fresh: {id(Assignment): id(Loop)} of the fresh element writes
        (:mod:`adfort.fresh_elements`): an element an earlier iteration
        set may be read.
    :param constant: whether a name the routine's own table does not hold
        is a named constant of a module (``eps`` in a limiter's test).
    """
    if alias:
        return {}
    written = written_names(routine.children)
    opaque = " ".join(str(n).lower() for block in routine.walk(CodeBlock)
                      for n in block.parse_tree_nodes)
    calls = any(not isinstance(c, IntrinsicCall) for c in routine.walk(Call))
    calls = (call_writes or {}) if calls else None
    loops = routine.walk(Loop)
    inside = {id(loop): {id(r) for r in loop.walk(Reference)} for loop in loops}
    mentions = {}   # name: ids of the references naming it
    for ref in routine.walk(Reference):
        mentions.setdefault(ref.symbol.name.lower(), set()).add(id(ref))
    banned = set()
    while True:
        found = {}
        for loop in loops:
            names, statements = _loop_recomputed(routine, loop, written, opaque, calls,
                                                 cheap_calls, fresh or {}, banned,
                                                 constant or (lambda name: False))
            if names:
                found[id(loop)] = (names, statements)
        # A name qualifies only if every mention of it is in a loop where it
        # qualifies: no value of it then passes from one loop to another.
        covered = {}
        for key, (names, _) in found.items():
            for name in names:
                covered.setdefault(name, set()).update(inside[key])
        stray = {name for name, ids in covered.items() if mentions.get(name, set()) - ids}
        if not stray:
            return found
        banned |= stray


def keep_needed(found, reads, conditions, routine, cheap_calls=frozenset()):
    """`found` with only the variables some adjoint (or IF condition
    evaluated again) in their loop reads, and those their statements read:
    computing again a value nobody reads would be wasted work."""
    kept = {}
    for loop in routine.walk(Loop):
        if id(loop) not in found:
            continue
        names, statements = found[id(loop)]
        needed = set()
        for node in loop.loop_body.walk((Assignment, Call, IfBlock, Loop, WhileLoop)):
            needed |= set(reads.get(id(node), ())) & names
            needed |= set(conditions.get(id(node), ())) & names
        while True:  # what the statements setting the needed ones read
            more = {n for s in statements if (_setters(s, names) or set()) & needed
                    for n in (_cheap_reads(s, cheap_calls, [
                        a for a in s.walk(Assignment) if a.lhs.symbol.name.lower() in names])
                        or set()) & names} - needed
            if not more:
                break
            needed |= more
        statements = [s for s in statements if (_setters(s, names) or set()) & needed]
        if statements:
            found_names = {n for s in statements for n in _setters(s, names)}
            kept[id(loop)] = (found_names, [_filtered(s, found_names) for s in statements])
    return kept


def strip_reads(reads, routine, found, cheap_calls=frozenset()):
    """`reads` ({id(statement): names}) without the variables of `found`
    read inside their loops: those are computed again, not taped."""
    stripped = dict(reads)
    # Inner loops first: what an inner loop's copies read (``q(i, jm)``)
    # may be computed again by an outer loop (``jm``), stripped after.
    for loop in reversed(routine.walk(Loop)):
        if id(loop) not in found:
            continue
        names = found[id(loop)][0]
        extra = _extra_reads(loop, found[id(loop)], cheap_calls)
        for node in loop.loop_body.walk((Assignment, Call, IfBlock, Loop, WhileLoop)):
            if id(node) in stripped and names & set(stripped[id(node)]):
                stripped[id(node)] = (set(stripped[id(node)]) - names) | extra
    return stripped


def _extra_reads(loop, recomputed, cheap_calls=frozenset()):
    """What computing `recomputed` again reads besides itself and the loop
    indices: it reads those where the computed values were read, so they
    must have there the values they had in the forward iteration."""
    names, statements = recomputed
    read = set()
    for stmt in statements:
        read |= _cheap_reads(stmt, cheap_calls) or set()
    return read - names - enclosing_loop_indices(loop)


def strip_conditions(conditions, routine, found, cheap_calls=frozenset()):
    """The same for the IF conditions and loop bounds evaluated again
    ({id(IfBlock or Loop): names}, see :mod:`adfort.recompute`)."""
    stripped = dict(conditions)
    for loop in reversed(routine.walk(Loop)):   # (inner loops first)
        if id(loop) not in found:
            continue
        names = found[id(loop)][0]
        extra = _extra_reads(loop, found[id(loop)], cheap_calls)
        for block in loop.loop_body.walk((IfBlock, Loop)):
            if id(block) in stripped and names & set(stripped[id(block)]):
                stripped[id(block)] = (set(stripped[id(block)]) - names) | extra
    return stripped


def formula_operations(expr):
    """The operations of `expr` (arithmetic, intrinsic calls) but those of
    subscripts: ``s(i+1, j-1) - s(i, j-1)`` is one (its index arithmetic
    is integer work the compiler shares with the neighbouring elements')."""
    count, todo = 0, [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, (BinaryOperation, UnaryOperation, IntrinsicCall)):
            count += 1
        if not isinstance(node, ArrayReference):
            todo.extend(c for c in node.children if isinstance(c, DataNode))
    return count


def _local_scalar(symbol):
    return (isinstance(symbol, DataSymbol) and isinstance(symbol.interface, AutomaticInterface)
            and isinstance(symbol.datatype, ScalarType)
            and symbol.datatype.intrinsic in (ScalarType.Intrinsic.INTEGER,
                                              ScalarType.Intrinsic.REAL)
            and symbol.initial_value is None and not symbol.is_constant)


def _local_array(symbol):
    """A local array of integers or reals of a fixed or automatic shape (no
    allocatable: assigned whole, it may be allocated again), no SAVE."""
    return (isinstance(symbol, DataSymbol) and isinstance(symbol.interface, AutomaticInterface)
            and type(symbol.datatype) is ArrayType
            and getattr(symbol.datatype.intrinsic, "name", None) in ("INTEGER", "REAL")
            and all(isinstance(dim, ArrayType.ArrayBounds) for dim in symbol.datatype.shape)
            and symbol.initial_value is None and not symbol.is_constant)


def _real_power(expr):
    """Whether `expr` raises to a power other than an integer literal (a
    logarithm and an exponential each time)."""
    for node in expr.walk(BinaryOperation):
        if node.operator == BinaryOperation.Operator.POW:
            exponent = node.children[1]
            if isinstance(exponent, UnaryOperation):
                exponent = exponent.children[0]
            if not (isinstance(exponent, Literal) and exponent.value.isdigit()):
                return True
    return False


def _defines(stmt, name):
    """Whether `stmt` sets `name` on every path without reading it first:
    an assignment not reading it, or an IF block with an ELSE each branch
    of which does so before any other use of `name`."""
    if isinstance(stmt, Assignment):
        return (type(stmt.lhs) is Reference and stmt.lhs.symbol.name.lower() == name
                and name not in _named(stmt.rhs))
    if not isinstance(stmt, IfBlock) or stmt.else_body is None or \
            name in _named(stmt.condition):
        return False
    for branch in (stmt.if_body.children, stmt.else_body.children):
        first = next((s for s in branch if name in _named(s)), None)
        if first is None or not _defines(first, name):
            return False
    return True


def _set_before_use(stmt, name):
    """Whether IF block `stmt` (naming `name`, which nothing after it in
    the iteration names) sets `name` before any use on every path that
    names it (a limiter's ratio computed in the upwind branch only): an
    iteration taking another path reads no value of it."""
    if isinstance(stmt, Assignment):
        return _defines(stmt, name)
    if not isinstance(stmt, IfBlock) or name in _named(stmt.condition):
        return False
    branches = [stmt.if_body.children] + (
        [stmt.else_body.children] if stmt.else_body is not None else [])
    for branch in branches:
        naming = [s for s in branch if name in _named(s)]
        if not naming or _defines(naming[0], name):
            continue
        # Set on some paths of a nested block only: nothing after it reads.
        if len(naming) > 1 or not _set_before_use(naming[0], name):
            return False
    return True


def _named(node):
    return {r.symbol.name.lower() for r in node.walk(Reference)}


def _setting_block(stmt):
    """Whether `stmt` is an IF block holding only assignments (and such IF
    blocks): a copy of it holding those to the variables computed again
    (:func:`_filtered`) computes them again."""
    if not isinstance(stmt, IfBlock):
        return False
    body = list(stmt.if_body.children) + (
        list(stmt.else_body.children) if stmt.else_body is not None else [])
    return all((isinstance(s, Assignment) and not s.is_pointer) or _setting_block(s)
               for s in body)


def _setters(stmt, names):
    """Names among `names` that top-level statement `stmt` sets, if it is
    one that can be copied (an assignment or a setting IF block), else None."""
    if isinstance(stmt, Assignment):
        if type(stmt.lhs) is Reference and stmt.lhs.symbol.name.lower() in names:
            return {stmt.lhs.symbol.name.lower()}
        return None
    if _setting_block(stmt):
        found = {a.lhs.symbol.name.lower() for a in stmt.walk(Assignment)} & set(names)
        return found or None
    return None


def _blocks_around(node, top):
    """The IF blocks from `node` up to `top` (included)."""
    found = []
    while node is not None:
        if isinstance(node, IfBlock):
            found.append(node)
        if node is top:
            break
        node = node.parent
    return found


def _filtered(stmt, names):
    """A copy of setting statement `stmt` holding only the assignments to
    `names` (an IF block's others, a limiter's flux in the upwind branch
    say, are left out: the returning motion must not change them)."""
    copy = stmt.copy()
    if isinstance(copy, Assignment):
        return copy
    for assign in copy.walk(Assignment):
        if assign.lhs.symbol.name.lower() not in names:
            assign.detach()
    for block in reversed(copy.walk(IfBlock)):
        if block.else_body is not None and not block.else_body.children:
            block.children[2].detach()   # an empty ELSE
        if not block.if_body.children and block.else_body is None and block is not copy:
            block.detach()
    return copy


def _cheap_reads(stmt, cheap_calls=frozenset(), only=None):
    """Names the expressions of setting statement `stmt` read, or None if
    one is not cheap (a call to a short function, whole right-hand side
    of an assignment, reads what its arguments read).

    :param only: None, or the assignments of `stmt` to count (with the
        conditions of the IF blocks around them)."""
    if only is None:
        exprs = [a.rhs for a in stmt.walk(Assignment)] + [
            b.condition for b in stmt.walk(IfBlock)]
    else:
        exprs = [a.rhs for a in only]
        blocks = {id(b): b for a in only for b in _blocks_around(a, stmt)}
        exprs += [b.condition for b in blocks.values()]
    names = set()
    for expr in exprs:
        parts = expr.arguments if id(expr) in cheap_calls else [expr]
        for part in parts:
            read = condition_reads(part, sections=True)
            if read is None:
                return None
            names |= read
    return names


def _loop_recomputed(routine, loop, written, opaque, calls, cheap_calls, fresh, banned,
                     constant):
    """The names `loop` computes again and their statements (`banned`:
    names mentioned outside the loops where they qualify)."""
    table = routine.symbol_table
    body = list(loop.loop_body.children)
    candidates = set()
    for assign in loop.loop_body.walk(Assignment):
        if type(assign.lhs) is not Reference:
            continue
        name = assign.lhs.symbol.name.lower()
        symbol = table.lookup(name, otherwise=None)
        if ((_local_scalar(symbol) or _local_array(symbol)) and name not in banned
                and not re.search(r"\b%s\b" % re.escape(name), opaque)):
            candidates.add(name)
    indices = enclosing_loop_indices(loop)
    written_here = written_names(body)
    while candidates:
        dropped = set()
        for name in candidates:
            if not _qualifies(name, body, candidates, indices, written, written_here,
                              table, calls, (cheap_calls, loop, fresh, constant)):
                dropped.add(name)
        if not dropped:
            break
        candidates -= dropped
    if not candidates:
        return set(), []
    statements = [s for s in body if _setters(s, candidates)]
    return candidates, statements


def _may_set(call, name, call_writes):
    """Whether `call` (a user routine) may change `name`, given to it."""
    if isinstance(call, IntrinsicCall) or name not in _named(call):
        return False
    statement = call if id(call) in (call_writes or {}) else call.parent
    writes = (call_writes or {}).get(id(statement))
    return writes is None or name in writes


def _qualifies(name, body, candidates, indices, written, written_here, table, calls,
               context):
    cheap_calls, loop, fresh, constant = context
    setters, others = [], []
    for position, stmt in enumerate(body):
        if name not in _named(stmt):
            continue
        sets = _setters(stmt, candidates)
        if sets is not None and name in sets:
            setters.append(position)
            continue
        if any(a.lhs.symbol.name.lower() == name for a in stmt.walk(Assignment)):
            return False  # set in a nested loop or a mixed IF block
        if any(_may_set(c, name, calls) for c in stmt.walk(Call)):
            return False  # a callee may set it
        others.append(position)
    if not setters:
        return False
    if not (_defines(body[setters[0]], name) or (
            len(setters) == 1 and not others and _set_before_use(body[setters[0]], name))) \
            or (others and min(others) < setters[0]):
        return False  # carried from the iteration before
    if others and min(others) < setters[-1]:
        return False  # read between two of its settings
    symbol = table.lookup(name)
    real = symbol.datatype.intrinsic == ScalarType.Intrinsic.REAL
    array = isinstance(symbol.datatype, ArrayType)
    # What the statements from its first setting on may change.
    changed_after = written_names(body[setters[0]:], calls) if array else set()
    for position in setters:
        # Its own formulas and the conditions around them (the copy's other
        # assignments are checked with their own variables).
        own = [a for a in body[position].walk(Assignment) if a.lhs.symbol.name.lower() == name]
        reads = _cheap_reads(body[position], cheap_calls, own)
        if reads is None or (real and any(formula_operations(a.rhs) > _MAX_REAL_OPERATIONS
                                          for a in own)):
            return False
        if array and any(_real_power(a.rhs) for a in own):
            return False
        for read in reads - {name} - indices:
            if read in candidates:
                continue
            symbol = table.lookup(read, otherwise=None)
            if read in written_here and earlier_elements(loop, body[position], read, fresh):
                continue  # cp(k-1), set by the iteration before and kept
            if array and read in written_here and read not in changed_after and \
                    _local_array(symbol):
                continue  # es, set earlier in the iteration: put back for its readers
            if symbol is None and read not in written and constant(read):
                continue   # a module's named constant
            if read in written_here or not isinstance(symbol, DataSymbol):
                return False
            if isinstance(symbol.interface, AutomaticInterface) or symbol.is_argument:
                continue  # unchanged in L; restored for L's reversal if changed after
            if isinstance(symbol.interface, CommonBlockInterface) and read not in written \
                    and calls is None:
                continue  # a COMMON constant of the grid (DX, EPSL) set by a caller
            if not symbol.is_constant and (read in written or calls is not None
                                           or not symbol.is_import):
                return False
    return True


def cheap_function(unit):
    """Whether function `unit` computes its result by one short formula of
    its arguments (a limiter ``max(0, min(2*r, 1), min(r, 2))``): only
    assignments to its result and local scalars, each a cheap expression
    (:func:`adfort.recompute.condition_reads`) of its arguments, locals and
    constants, at most ``_MAX_REAL_NODES`` nodes in all; it changes no
    argument.  Such a call is computed again like a short formula.
    Memoised on the unit: its body is emptied once its motions exist."""
    memo = unit.__dict__
    if "_cheap_function" not in memo:
        memo["_cheap_function"] = _cheap_function(unit)
    return memo["_cheap_function"]


def _cheap_function(unit):
    if getattr(unit, "opaque", False) or unit.result is None:
        return False
    if any(unit.writes_formal(f) for f in unit.formals if f is not unit.result):
        return False
    table = unit.work.symbol_table
    statements = list(unit.work.children)
    nodes = 0
    for stmt in statements:
        if not isinstance(stmt, Assignment) or type(stmt.lhs) is not Reference:
            return False
        target = table.lookup(stmt.lhs.symbol.name, otherwise=None)
        if target is not unit.result and not _local_scalar(target):
            return False
        reads = condition_reads(stmt.rhs)
        if reads is None:
            return False
        for name in reads:
            symbol = table.lookup(name, otherwise=None)
            if not (symbol is unit.result or _local_scalar(symbol)
                    or getattr(symbol, "is_argument", False)
                    or getattr(symbol, "is_constant", False)):
                return False   # a module variable may change meanwhile
        nodes += len(stmt.rhs.walk(DataNode))
    return bool(statements) and nodes <= _MAX_REAL_NODES
