"""Short functions inlined into their callers' working copies.

A limiter ``max(0, min(2*r, 1), min(r, 2))``, a ``minmod`` or a saturation
humidity called for every grid point costs the adjoint one call per point
in the returning motion: gfortran -O2 inlines the recording (a formula)
but not the function's returning motion (its partials make it too long for
the compiler's heuristics), and across the call the caller's adjoint
arrays stay in memory instead of registers.  On the advection benchmark
that call was 18 % of the adjoint's time.  So before any analysis adfort
puts the statements of such a function in place of each call in the
caller's working copy; the caller's motions then hold the function's
adjoint statements, which the compiler schedules with the rest, and the
analyses (activity, what to tape, what to compute again) see through it.
The user's code and the function itself are left as they are.

A function qualifies (:func:`inlinable`) when its body is at most
``_MAX_STATEMENTS`` assignments and IF blocks of at most ``_MAX_NODES``
expression nodes in all, assigning only its result and local scalars,
calling only intrinsics and none of the costly ones (:func:`_costly`),
changing no argument (a subroutine: only its scalar arguments), with
scalar arguments that
are not OPTIONAL, and reading nothing else but named constants and
variables of its module that the caller sees under the same name.  A call
is inlined when its actual arguments are variables or constants of the
dummies' types (after :func:`adfort.normalise.hoist_calls` an expression
argument is a local already), and the callee was read from the same
source as the caller (so that messages name the right line).
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, IfBlock, IntrinsicCall,
    Literal, Node, Reference, Schedule, UnaryOperation)
from psyclone.psyir.symbols import (
    ArgumentInterface, AutomaticInterface, ContainerSymbol, DataSymbol, RoutineSymbol, ScalarType, Symbol)

from adfort import naming
from adfort.derived import is_variable
from adfort.optional import callee_formals, matched_formals, optional_names
from adfort.recompute import CHEAP_INTRINSICS
from adfort.symbols import constant_copy, new_local

_MAX_STATEMENTS = 16
_MAX_NODES = 160
_TYPES = (ScalarType.Intrinsic.REAL, ScalarType.Intrinsic.INTEGER,
          ScalarType.Intrinsic.BOOLEAN)
_EXPRESSION_NODES = (Reference, Literal, BinaryOperation, UnaryOperation, IntrinsicCall)


def inline_functions(unit, taken=(), schedule=None):
    """Put the statements of every short function `unit` calls in place of
    the call (``limiter_value = limiter(r)`` becomes the limiter's formula
    assigned to ``limiter_value``).  Run after
    :func:`adfort.normalise.hoist_calls`, with the callees' working copies
    normalised (and their own calls inlined) already.

    :param unit: the caller (:class:`adfort.interprocedural.Unit`).
    :param taken: names new locals must avoid.
    :param schedule: the reversal schedule: a link it names (``--link``, a
        directive) keeps its calls, reversed as asked.
    """
    for call in list(unit.work.walk(Call)):
        if isinstance(call, IntrinsicCall):
            continue
        statement = call.parent
        callee = unit.calls.get(id(call))
        if callee is None or id(call) in unit.passive or not inlinable(callee) \
                or callee.original.root is not unit.original.root:
            continue
        if schedule is not None and schedule.names(unit.name, callee.name):
            continue
        if getattr(statement.parent, "adfort_checkpoint", None) is not None:
            continue   # a checkpointed or fixed-point loop's step: reversed as such
        if callee.result is not None:
            if not (isinstance(statement, Assignment) and statement.rhs is call):
                continue
        elif not isinstance(statement, Schedule):
            continue
        actuals = _actuals(unit, call, callee)
        if actuals is None:
            continue
        plan = _plan(unit, callee)
        if plan is None or _written_is_read(callee, actuals, plan):
            continue
        _inline(unit, call, callee, actuals, plan, taken)
        unit.calls.pop(id(call), None)


def inlinable(callee):
    """Whether function unit `callee` is short and free of side effects
    enough to be inlined (see the module's docstring).  Memoised: its body
    is emptied once its motions exist."""
    memo = callee.__dict__
    if "_inlinable" not in memo:
        memo["_inlinable"] = _inlinable(callee)
    return memo["_inlinable"]


def _inlinable(callee):
    if getattr(callee, "opaque", False) or optional_names(callee.original):
        return False
    function = callee.result is not None
    if function and not _plain_scalar(callee.result.datatype):
        return False
    formals = [f for f in callee.formals if f is not callee.result]
    if any(not _plain_scalar(f.datatype) for f in formals):
        return False
    if function and any(callee.writes_formal(f) for f in formals):
        return False
    expressions, statements = [], [0]
    if not _body_fits(list(callee.work.children), callee, expressions, statements):
        return False
    nodes = 0
    for expr in expressions:
        for node in expr.walk(object):
            nodes += 1
            if not isinstance(node, _EXPRESSION_NODES) or _costly(node):
                return False
            if isinstance(node, Call) and not isinstance(node, IntrinsicCall):
                return False
            if type(node) not in (Reference, ArrayReference) and isinstance(node, Reference):
                return False   # a structure component
    return bool(expressions) and statements[0] <= _MAX_STATEMENTS and nodes <= _MAX_NODES


def _costly(node):
    """Whether `node` is a costly operation (EXP, SQRT, a real power…).
    A routine computing such values stays a call: its returning motion
    computes them again, where inlined they would be taped per call (or the
    whole call deferred, :mod:`adfort.deferral`, would run forward)."""
    if isinstance(node, IntrinsicCall):
        return node.intrinsic.name not in CHEAP_INTRINSICS
    if isinstance(node, BinaryOperation) and node.operator == BinaryOperation.Operator.POW:
        exponent = node.children[1]
        return not (isinstance(exponent, Literal)
                    and exponent.datatype.intrinsic == ScalarType.Intrinsic.INTEGER)
    return False


def _body_fits(children, callee, expressions, statements):
    """Whether `children` are assignments to the result or local scalars
    (a subroutine's: to local scalars and its arguments) and IF blocks of
    such, collecting their expressions."""
    table = callee.work.symbol_table
    formals = [] if callee.result is not None else callee.formals
    for stmt in children:
        statements[0] += 1
        if isinstance(stmt, Assignment):
            if type(stmt.lhs) is not Reference:
                return False
            target = table.lookup(stmt.lhs.symbol.name, otherwise=None)
            if target is not callee.result and target not in formals \
                    and not _own_scalar(callee, target):
                return False
            expressions.append(stmt.rhs)
        elif isinstance(stmt, IfBlock):
            expressions.append(stmt.condition)
            if not _body_fits(list(stmt.if_body.children), callee, expressions, statements):
                return False
            if stmt.else_body is not None and not _body_fits(
                    list(stmt.else_body.children), callee, expressions, statements):
                return False
        else:
            return False
    return True


def _plain_scalar(datatype):
    return isinstance(datatype, ScalarType) and datatype.intrinsic in _TYPES


def _own_scalar(callee, symbol):
    """Whether `symbol` is a local scalar of `callee` (not saved)."""
    return (isinstance(symbol, DataSymbol) and isinstance(symbol.interface, AutomaticInterface)
            and _plain_scalar(symbol.datatype) and symbol.initial_value is None
            and not symbol.is_constant and callee.owns(symbol))


def _type_key(datatype, unit):
    """(intrinsic, kind) of a scalar or array datatype as `unit` sees it,
    None when unknown.  A kind named by a constant is the constant where
    it is declared, whatever name a routine gives it (``use consts, only:
    dp => r8``)."""
    intrinsic = getattr(datatype, "intrinsic", None)
    precision = getattr(datatype, "precision", None)
    if intrinsic is None or precision is None:
        return None
    if isinstance(precision, Node):
        if type(precision) is not Reference:    # an expression
            return intrinsic, precision.debug_string().lower()
        precision = precision.symbol
    if isinstance(precision, Symbol):
        found = unit.module_variable(precision.name, precision)
        if found is not None:
            return intrinsic, id(found[1])
        if isinstance(precision, DataSymbol) and precision.is_constant \
                and precision.initial_value is not None:
            return intrinsic, precision.initial_value.debug_string().lower()
        return intrinsic, precision.name.lower()
    return intrinsic, precision


def _actuals(unit, call, callee):
    """{formal name: actual} when every actual argument is a variable or a
    literal of its dummy's type, else None."""
    formals = matched_formals(call, callee_formals(callee))
    found = {}
    for actual, formal in zip(call.arguments, formals):
        if formal is None:
            return None
        if isinstance(actual, Literal):
            kind = _type_key(actual.datatype, unit)
        elif is_variable(actual) and type(actual) in (Reference, ArrayReference) \
                and isinstance(actual.symbol, DataSymbol):
            if type(actual) is Reference and not isinstance(actual.symbol.datatype, ScalarType):
                return None   # a whole array
            kind = _type_key(actual.symbol.datatype, unit)
        else:
            return None
        if kind is None or kind != _type_key(formal.datatype, callee):
            return None
        if callee.result is None and callee.writes_formal(formal) and not (
                is_variable(actual) and not actual.symbol.is_constant
                and not _intent_in(actual.symbol)):
            return None   # (a changed intent(in) argument is refused later)
        found[formal.name.lower()] = actual
    if len(found) != len([f for f in callee.formals if f is not callee.result]):
        return None
    # A variable the subroutine changes must be named by no other argument
    # (nor in the indices of its own): in the call each actual's element
    # is chosen once, inlined it is chosen at every use.
    for formal in callee.formals:
        actual = found.get(formal.name.lower())
        if actual is None or callee.result is not None or not callee.writes_formal(formal):
            continue
        name = actual.symbol.name.lower()
        for other in found.values():
            names = {r.symbol.name.lower() for r in other.walk(Reference)}
            if (other is not actual and name in names) or (
                    other is actual and name in {r.symbol.name.lower()
                                                 for r in other.walk(Reference)[1:]}):
                return None
        for index in actual.walk(Reference)[1:]:
            if any(index.symbol.name.lower() == a.symbol.name.lower()
                   for f, a in found.items() if _writes(callee, f) and is_variable(a)):
                return None
    return found


def _intent_in(symbol):
    interface = symbol.interface
    return isinstance(interface, ArgumentInterface) and \
        interface.access == ArgumentInterface.Access.READ


def _writes(callee, name):
    formal = next(f for f in callee.formals if f.name.lower() == name)
    return callee.result is None and callee.writes_formal(formal)


def _written_is_read(callee, actuals, plan):
    """Whether a variable a subroutine changes through an argument is a
    module variable its body reads by name too."""
    written = {a.symbol.name.lower() for f, a in actuals.items()
               if _writes(callee, f) and is_variable(a)}
    return any(role == "module" and symbol.name.lower() in written
               for role, symbol in plan.values())


def _plan(unit, callee):
    """{lower-case name: (role, symbol)} of every name the callee's body
    mentions, role 'formal', 'result', 'local', 'constant' (with the symbol
    declaring it) or 'module' (with the caller's symbol); None when a name,
    or a kind of a value or variable, cannot be reached from the caller."""
    table = callee.work.symbol_table
    formals = {f.name.lower() for f in callee.formals if f is not callee.result}
    plan = {}
    for ref in callee.work.walk(Reference):
        symbol = ref.symbol
        name = symbol.name.lower()
        if isinstance(symbol, RoutineSymbol) or name in plan:
            continue
        own = table.lookup(name, scope_limit=callee.work, otherwise=None)
        if name in formals:
            plan[name] = ("formal", None)
        elif own is not None and callee.result is not None \
                and own.name.lower() == callee.result.name.lower():
            plan[name] = ("result", callee.result)
        elif own is not None and _own_scalar(callee, own):
            plan[name] = ("local", own)
        else:
            entry = _module_variable(unit, callee, name, symbol)
            if entry is None:
                return None
            plan[name] = entry
    types = [s.datatype for role, s in plan.values() if role == "local"]
    if callee.result is not None:
        types.append(callee.result.datatype)
    types += [literal.datatype for literal in callee.work.walk(Literal)]
    for role, symbol in plan.values():
        if role == "constant" and _seen_symbol(unit, symbol) is None:
            if not _copyable(symbol):
                return None
            types += [symbol.datatype] + [literal.datatype
                                          for literal in symbol.initial_value.walk(Literal)]
    if any(_caller_type(unit, callee, datatype) is None for datatype in types):
        return None
    return plan


def _module_variable(unit, callee, name, symbol):
    """('constant', declaring symbol) of a named constant, ('module', the
    caller's symbol) of a variable of a module that both routines see as
    the same one (not a COMMON member); None otherwise."""
    program = unit.program
    if program is not None and (program.commons.member(name, callee.work) is not None
                                or program.commons.member(name, unit.work) is not None):
        return None
    theirs = callee.module_variable(name, symbol if isinstance(symbol, DataSymbol) else None)
    declared = theirs[1] if theirs is not None else symbol
    if not isinstance(declared, DataSymbol):
        return None
    if declared.is_constant:
        return ("constant", declared)
    ours = unit.module_variable(name)
    if theirs is None or ours is None or ours[1] is not theirs[1]:
        return None
    local = unit.work.symbol_table.lookup(name, scope_limit=unit.work, otherwise=None)
    if local is not None and unit.owns(local):
        return None
    return ("module", unit.seen_as(name, ours))


def _copyable(constant):
    """Whether a constant the caller cannot name can be declared in it
    again: a value of literals and operations only."""
    value = constant.initial_value
    return (value is not None and _plain_scalar(constant.datatype)
            and all(isinstance(n, (Literal, BinaryOperation, UnaryOperation))
                    for n in value.walk(Node)))


def _inline(unit, call, callee, actuals, plan, taken):
    table = unit.work.symbol_table
    assign = call.parent if callee.result is not None else None
    result = _result_target(unit, assign, call, callee) if assign is not None else None
    if result is None and assign is not None:
        result = new_local(table, naming.function_value(callee.name),
                           _caller_type(unit, callee, callee.result.datatype), taken)
    symbols = {}
    for name, (role, symbol) in plan.items():
        if role == "result":
            symbols[name] = result
        elif role == "local":
            symbols[name] = new_local(
                table, naming.inlined_local(callee.name, symbol.name),
                _caller_type(unit, callee, symbol.datatype), taken)
        elif role == "constant":
            symbols[name] = _seen_symbol(unit, symbol) or _constant_copy(
                unit, callee, symbol, taken)
        elif role == "module":
            symbols[name] = symbol
    statements = [stmt.copy() for stmt in callee.work.children]
    for stmt in statements:
        for ref in stmt.walk(Reference):
            if isinstance(ref.symbol, RoutineSymbol):
                continue
            name = ref.symbol.name.lower()
            if plan[name][0] == "formal":
                ref.replace_with(actuals[name].copy())
            else:
                ref.symbol = symbols[name]
        _retype_literals(unit, callee, stmt)
    statement = assign if assign is not None else call
    parent, position = statement.parent, statement.position
    for offset, stmt in enumerate(statements):
        parent.addchild(stmt, position + offset)
    if assign is None or result is assign.lhs.symbol:
        statement.detach()
    else:
        call.replace_with(Reference(result))


def _retype_literals(unit, callee, node):
    for literal in node.walk(Literal):
        literal._datatype = _caller_type(unit, callee, literal.datatype)


def _constant_copy(unit, callee, declared, taken):
    """A named constant declared in the caller with the value of the
    callee's `declared`, which the caller cannot name; one per caller."""
    copies = unit.__dict__.setdefault("_constant_copies", {})
    if id(declared) not in copies:
        table = unit.work.symbol_table
        copy = constant_copy(declared, naming.unique(table, declared.name, taken))
        copy.datatype = _caller_type(unit, callee, declared.datatype)
        _retype_literals(unit, callee, copy.initial_value)
        table.add(copy)
        copies[id(declared)] = copy
    return copies[id(declared)]


def _caller_type(unit, callee, datatype):
    """Scalar `datatype` of the callee with a kind the caller names (``dp``
    for the callee's ``r8`` when the caller has ``use consts, only: dp =>
    r8``), or None when the caller sees that kind under no name."""
    if not isinstance(datatype, ScalarType):
        return None
    precision = datatype.precision
    if isinstance(precision, (int, ScalarType.Precision)):
        return datatype.copy()
    if type(precision) is not Reference:
        return None
    found = callee.module_variable(precision.symbol.name, precision.symbol)
    seen = _seen_symbol(unit, found[1] if found is not None else precision.symbol)
    return ScalarType(datatype.intrinsic, Reference(seen)) if seen is not None else None


def _seen_symbol(unit, declared):
    """The symbol by which `unit` names the module constant `declared`
    (whatever name it gives it), or None."""
    names = unit.__dict__.setdefault("_seen_symbols", {})
    if id(declared) in names:
        return names[id(declared)]
    names[id(declared)] = None
    table = unit.original.symbol_table
    while table is not None and names[id(declared)] is None:
        for symbol in table.symbols:
            if isinstance(symbol, (RoutineSymbol, ContainerSymbol)):
                continue
            if symbol is not declared:
                seen = unit.module_variable(symbol.name, symbol)
                if seen is None or seen[1] is not declared:
                    continue
            if unit.work.symbol_table.lookup(symbol.name, otherwise=None) in (None, symbol):
                names[id(declared)] = symbol
                break
        table = table.parent_symbol_table()
    return names[id(declared)]


def _result_target(unit, assign, call, callee):
    """The caller's local scalar the call's value goes to, when the inlined
    statements may assign it directly: of the result's type and given to
    the function in no argument."""
    lhs = assign.lhs
    if type(lhs) is not Reference or not isinstance(lhs.symbol, DataSymbol):
        return None
    symbol = lhs.symbol
    if not (isinstance(symbol.interface, AutomaticInterface) and unit.owns(symbol)
            and _plain_scalar(symbol.datatype) and not symbol.is_constant
            and symbol.initial_value is None):
        return None
    if _type_key(symbol.datatype, unit) != _type_key(callee.result.datatype, callee):
        return None
    if any(getattr(r, "symbol", None) is symbol for r in call.walk(Reference)):
        return None
    return symbol
