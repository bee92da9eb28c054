"""Activity across routines: which variables of which routine carry
derivatives, following values through call arguments, function results and
module variables.

Every variable is a node: a routine's local or argument, a function's
result, or a module variable (shared by all routines that use it).  An
assignment links the variables its right-hand side depends on
differentiably to its target; a call links each actual argument to its
formal argument in the directions the formal's intent allows.  Variables
reachable from an independent are *varied*, those a dependent is reachable
from are *useful*; the active ones are both.  Like the single-routine
analysis it is flow- and context-insensitive: it may make a variable active
that need not be, never the reverse.
"""

import re
from collections import defaultdict

from psyclone.psyir.nodes import (
    ArrayConstructor, Assignment, BinaryOperation, Call, CodeBlock, IntrinsicCall, Literal,
    Loop, Reference, UnaryOperation)
from psyclone.psyir.symbols import ArgumentInterface, CommonBlockInterface, DataSymbol, Symbol

from adfort.activity import carries_derivative, differentiable_args, is_real, operands
from adfort.derived import is_derived, is_variable
from adfort.forward_only import io_flows, is_forward_only, written_names
from adfort.mpi_rules import BUFFERS, OUTPUTS, is_mpi_name, rule as mpi_rule
from adfort.opaque import block_reads, block_writes, opaque_blocks
from adfort.optional import callee_formals, matched_formals

_IN = ArgumentInterface.Access.READ
_OUT = ArgumentInterface.Access.WRITE


class Unit:
    """A routine taking part in the differentiation.

    :param work: its working copy (normalised; this is what is analysed and
        transformed).
    :param original: the routine as read (for names visible around it).
    :param module: the name of its module, or None for an external routine.
    """

    def __init__(self, work, original, module, program):
        self.work = work
        self.original = original
        self.module = module
        self.program = program
        self.calls = {}  # id(Call in work) -> Unit or None (no source)
        self.passive = {}  # id(Call in work) -> Routine (or None) declared passive

    @property
    def name(self):
        return self.work.name

    @property
    def formals(self):
        """The formal arguments, in order (a function's result last)."""
        return list(self.work.symbol_table.argument_list)

    @property
    def result(self):
        """A function's result symbol, or None for a subroutine."""
        return self.work.return_symbol

    def writes_formal(self, formal, _seen=None):
        """Whether the routine may change its argument `formal`: by its
        declared intent, or, without one (FORTRAN 77), when it assigns it or
        passes it on to a routine that may (so that constants and inputs
        passed to F77 routines are not taken for outputs)."""
        access = formal.interface.access
        if access in (_IN, _OUT) or access == ArgumentInterface.Access.READWRITE \
                or getattr(self, "opaque", False):
            return access != _IN
        # Known once the body has been looked at: the generated motions
        # empty the working copy afterwards.
        memo = self.__dict__.setdefault("_writes", {})
        if formal.name.lower() in memo:
            return memo[formal.name.lower()]
        memo[formal.name.lower()] = self._writes_formal(formal, _seen)
        return memo[formal.name.lower()]

    def _writes_formal(self, formal, _seen=None):
        seen = _seen if _seen is not None else set()
        if (id(self), formal.name.lower()) in seen:
            return False
        seen.add((id(self), formal.name.lower()))
        name = formal.name.lower()
        for assign in self.work.walk(Assignment):
            if assign.lhs.symbol.name.lower() == name:
                return True
        for loop in self.work.walk(Loop):
            if loop.variable.name.lower() == name:
                return True
        table = self.work.symbol_table
        for block in self.work.walk(CodeBlock):
            # READ into it, an internal WRITE, IOSTAT=…
            if is_forward_only(block) and name in written_names(block, table):
                return True
        if any(name in block_writes(block) for block in opaque_blocks(self.work)):
            return True
        for call in self.work.walk(Call):
            if isinstance(call, IntrinsicCall):
                if getattr(getattr(call.routine.symbol, "intrinsic", None), "name",
                           None) in ("ALLOCATE", "DEALLOCATE") and any(
                        getattr(a, "symbol", None) is not None
                        and a.symbol.name.lower() == name for a in call.arguments):
                    return True
                continue
            if self.written_actuals(call, seen, name):
                return True
        return False

    def written_actuals(self, call, _seen=None, name=None):
        """The variables given to the (non-intrinsic) `call` of the
        routine's body that the call may change: those its callee's
        dummies may change, all of them for a callee without source (but
        an MPI routine's inputs).

        :param name: only the variables of this (lower-case) name."""
        callee = self.calls.get(id(call))
        formals = matched_formals(call, callee_formals(callee)) \
            if callee is not None else [None] * len(call.arguments)
        which = mpi_rule(call.routine.name) \
            if callee is None and is_mpi_name(call.routine.name) else None
        found = []
        for position, (actual, formal) in enumerate(zip(call.arguments, formals)):
            if not is_variable(actual) or (
                    name is not None and actual.symbol.name.lower() != name):
                continue
            if which is not None and position < len(which.roles) and \
                    which.roles[position] not in OUTPUTS:
                continue    # (an MPI routine's input: a communicator, a count…)
            if formal is None or callee.writes_formal(formal, _seen):
                found.append(actual)
        return found

    def reads_on_entry(self, formal, _seen=None):
        """Whether the routine may read the value its argument `formal` has
        when it is called.  Conservative: False only for a real, non-derived
        argument (no pointer, target or allocatable) named nowhere but as
        the target of assignments, in shape inquiries, or given to callees
        that do not read it on entry either (``dxdt(i) = …`` of a tendency
        routine): a joint caller needs not put such an argument back."""
        if getattr(self, "opaque", False):
            return True
        memo = self.__dict__.setdefault("_reads", {})
        name = formal.name.lower()
        if name not in memo:
            memo[name] = self._reads_on_entry(formal, _seen)
        return memo[name]

    def _reads_on_entry(self, formal, _seen=None):
        seen = _seen if _seen is not None else set()
        name = formal.name.lower()
        if (id(self), name) in seen:
            return False  # a cycle adds no read of its own
        seen.add((id(self), name))
        dtype = formal.datatype
        if not is_real(formal) or is_derived(dtype) or \
                getattr(dtype, "is_allocatable", False) or \
                name in (getattr(self, "attributes", None) or {}):
            return True
        for block in self.work.walk(CodeBlock):
            text = " ".join(str(n).lower() for n in block.parse_tree_nodes)
            if re.search(r"\b%s\b" % re.escape(name), text):
                return True
        if self._assigned_first(name):
            return False
        for ref in self.work.walk(Reference):
            if ref.symbol.name.lower() != name:
                continue
            parent = ref.parent
            if isinstance(parent, Assignment) and ref is parent.lhs and not parent.is_pointer:
                continue
            if (isinstance(parent, IntrinsicCall) and parent.arguments
                    and ref is parent.arguments[0]
                    # (an intrinsic subroutine PSyclone keeps unnamed, which
                    # the fence reports, has no intrinsic)
                    and getattr(getattr(parent.routine.symbol, "intrinsic", None), "name",
                                None) in ("SIZE", "LBOUND", "UBOUND", "SHAPE")):
                continue
            if isinstance(parent, Call) and not isinstance(parent, IntrinsicCall) and \
                    ref is not parent.routine and is_variable(ref):
                callee = self.calls.get(id(parent))
                formals = [f for f in callee.formals if f is not callee.result] \
                    if callee is not None else []
                position = next((p for p, a in enumerate(parent.arguments) if a is ref),
                                None)
                if (position is not None and position < len(formals)
                        and parent.argument_names[position] is None
                        and (formals[position].interface.access == _OUT
                             or not callee.reads_on_entry(formals[position], seen))):
                    continue
            return True
        return False

    def _assigned_first(self, name):
        """Whether the routine's first statement naming `name` assigns all
        of it without reading it (``misfit = 0`` before ``misfit = misfit +
        …`` in a loop): the value on entry is never read.  Statements run in
        order at the top level; one that names it in any other way (in a
        loop, a condition, a call, a subscript) ends the search."""
        for stmt in self.work.children:
            refs = [r for r in stmt.walk(Reference) if r.symbol.name.lower() == name]
            if not refs:
                continue
            return (isinstance(stmt, Assignment) and not stmt.is_pointer
                    and type(stmt.lhs) is Reference and stmt.lhs.symbol.name.lower() == name
                    and all(r is stmt.lhs for r in refs))
        return False

    def key(self, symbol):
        """The analysis node of a variable of this routine."""
        name = symbol.name.lower()
        if self.owns(symbol):
            return ("local", id(self), name)
        found = self.module_variable(name)
        # (by the module's name for it: the routine may rename it on import)
        return ("module", found[0], found[1].name.lower()) if found \
            else ("local", id(self), name)

    def owns(self, symbol):
        """Whether `symbol` is a variable of the routine itself (declared
        there, and not in a COMMON block: those are module variables of
        their layout modules, see :mod:`adfort.commons`)."""
        local = self.work.symbol_table.lookup(symbol.name, otherwise=None,
                                              scope_limit=self.work)
        return (local is not None and not local.is_import
                and not local.is_unresolved
                and not isinstance(local.interface, CommonBlockInterface))

    def name_key(self, name):
        """(analysis node, DataSymbol) of the variable this routine calls
        `name`, or None when it has none (a routine, an intrinsic…)."""
        symbol = self.work.symbol_table.lookup(name, otherwise=None)
        if isinstance(symbol, DataSymbol) and self.owns(symbol):
            return self.key(symbol), symbol
        found = self.module_variable(name)
        if found is not None and isinstance(found[1], DataSymbol):
            return ("module", found[0], found[1].name.lower()), found[1]
        return None

    def seen_as(self, name, found):
        """The symbol this routine's references to the module variable
        `found` ((module, DataSymbol) of `name`) use: the module's own, or
        for one imported under another name (``use m, only: lwd => alv``)
        a copy of its declaration under the routine's name."""
        symbol = found[1]
        if symbol.name.lower() == name.lower():
            return symbol
        renamed = self.__dict__.setdefault("_renamed", {})
        if name.lower() not in renamed:
            renamed[name.lower()] = symbol.copy()
            renamed[name.lower()]._name = name
        return renamed[name.lower()]

    def renamed_module_variables(self):
        """{name: (module, declared name)} of the module variables the
        routine uses under another name than their module's."""
        found = {}
        for ref in self.work.walk(Reference):
            if self.owns(ref.symbol):
                continue
            origin = self.module_variable(ref.symbol.name)
            if origin is not None and origin[1].name.lower() != ref.symbol.name.lower():
                found[ref.symbol.name.lower()] = (origin[0], origin[1].name.lower())
        return found

    def module_variable(self, name, symbol=None):
        """(module name, DataSymbol) of the module variable `name` seen from
        this routine (a COMMON member: of its layout module), or None.

        :param symbol: a named constant the routine may not see by its name
            (the kind of another module's constant it uses, ``1.0_wp``):
            then found where it is declared.
        """
        if self.program is not None:
            member = self.program.commons.member(name, self.work)
            if member is not None:
                return member
        found = resolve_module_variable(self.program, self.original, name)
        if found is None and symbol is not None and self.program is not None:
            found = declaring_module(self.program, symbol)
        return found


def resolve_module_variable(program, routine, name, kinds=(DataSymbol,), _seen=None):
    """(module name, DataSymbol) of the module variable `name` visible in
    `routine` (declared in its module, imported, or from a wildcard use,
    also of a module that has it from a wildcard use itself).

    :param kinds: the symbol classes accepted (add RoutineSymbol to find
        module procedures too).
    """
    seen = _seen if _seen is not None else set()
    symbol = routine.symbol_table.lookup(name, otherwise=None)
    if symbol is not None and symbol.is_import:
        module = program.module(symbol.interface.container_symbol.name)
        # (use m, only: local => original: the module's name for it)
        name = symbol.interface.orig_name or name
        found = module.symbol_table.lookup(name, otherwise=None) if module else None
        if isinstance(found, kinds) and not found.is_import:
            return module.name.lower(), found
        if module is not None and (found is None or found.is_import or found.is_unresolved) \
                and module.name.lower() not in seen:
            # (Imported there in turn, also through a wildcard use: cconst's
            # ``use cbase`` giving sigma_sb.)
            seen.add(module.name.lower())
            return resolve_module_variable(program, module, name, kinds, seen)
        return None
    if symbol is not None and not symbol.is_unresolved:
        owner = symbol.find_symbol_table(routine)
        node = owner.node if owner is not None else None
        if node is not None and node is not routine and isinstance(symbol, kinds):
            return node.name.lower(), symbol
        return None
    # A wildcard ``use``: the first used module declaring it.
    scope = routine
    while scope is not None:
        table = getattr(scope, "_symbol_table", None)
        own = table.lookup(name, otherwise=None, scope_limit=scope) \
            if table is not None and scope is not routine else None
        if own is not None and not own.is_unresolved:
            # Declared by a host the routine's own wildcard use did not
            # hide (PSyclone left the name unresolved in the routine).
            if own.is_import:
                return resolve_module_variable(program, scope, name, kinds, seen)
            return (scope.name.lower(), own) if isinstance(own, kinds) else None
        if table is not None:
            for container in table.containersymbols:
                if container.wildcard_import:
                    module = program.module(container.name)
                    if module is None:
                        continue
                    found = module.symbol_table.lookup(name, otherwise=None,
                                                       scope_limit=module)
                    if found is not None and found.visibility == Symbol.Visibility.PRIVATE:
                        continue  # not brought by the use
                    if isinstance(found, kinds) and not found.is_import:
                        return module.name.lower(), found
                    if module.name.lower() not in seen and (
                            found is None or found.is_import or found.is_unresolved):
                        # module m uses module k that uses the module declaring it
                        seen.add(module.name.lower())
                        deeper = resolve_module_variable(program, module, name, kinds, seen)
                        if deeper is not None:
                            return deeper
        scope = scope.parent
    return None


def declaring_module(program, symbol):
    """(module name, `symbol`) when a module declares that very symbol."""
    for name, module in program.modules().items():
        if module.symbol_table.lookup(symbol.name, otherwise=None, scope_limit=module) \
                is symbol:
            return name, symbol
    return None


def _leaves(expr):
    """The references and user calls a derivative can flow from in `expr`."""
    if isinstance(expr, Literal):
        return
    if isinstance(expr, Call) and not isinstance(expr, IntrinsicCall):
        yield expr
        return
    if is_variable(expr):
        yield expr
        return
    if isinstance(expr, (BinaryOperation, UnaryOperation, IntrinsicCall)):
        args = operands(expr)
        for i in differentiable_args(expr):
            yield from _leaves(args[i])
    elif isinstance(expr, ArrayConstructor):
        for element in expr.children:   # (the fence rejects an active one)
            yield from _leaves(element)


class Activity:
    """The activity of all units, from the dependents and independents of
    the routine being differentiated.

    :param units: the :class:`Unit` objects (callees first).
    :param dependents: analysis nodes of the dependents.
    :param independents: analysis nodes of the independents.
    """

    def __init__(self, units, dependents, independents):
        self.units = units
        self.real = set()
        forward = defaultdict(set)
        backward = defaultdict(set)

        def link(source, target):
            forward[source].add(target)
            backward[target].add(source)

        for unit in units:
            self._note_types(unit)
            if getattr(unit, "opaque", False):
                # No source: every input may influence every output.
                formals = unit.formals
                for source in formals:
                    if source.interface.access == _OUT:
                        continue
                    for target in formals:
                        if target.interface.access != _IN:
                            link(unit.key(source), unit.key(target))
            for assign in unit.work.walk(Assignment):
                target = unit.key(assign.lhs.symbol)
                for leaf in _leaves(assign.rhs):
                    link(self._source(unit, leaf, link), target)
                    if assign.is_pointer:  # an alias: writes through it
                        link(target, self._source(unit, leaf, link))
            for block in opaque_blocks(unit.work):
                self._link_opaque(unit, block, link)
            for block in unit.work.walk(CodeBlock):
                if is_forward_only(block):
                    self._link_io(unit, block, link)
            for call in unit.work.walk(Call):
                if isinstance(call, IntrinsicCall):
                    self._link_allocation(unit, call, link)
                    continue
                if unit.calls.get(id(call)) is None:
                    self._link_unknown(unit, call, link)
                    continue
                self._link_arguments(unit, call, link)
        self.varied = _reach(independents, forward)
        self.useful = _reach(dependents, backward)
        self.active = {k for k in self.varied & self.useful if k in self.real}
        self.active |= set(dependents) | set(independents)

    def _link_allocation(self, unit, call, link):
        """MOVE_ALLOC(from, to) and ALLOCATE(a, SOURCE=e) give values (tangent
        mode's fence lets them through; reverse mode's generated code has
        the second)."""
        name = call.routine.name.upper()
        if name == "MOVE_ALLOC" and len(call.arguments) == 2:
            link(unit.key(call.arguments[0].symbol), unit.key(call.arguments[1].symbol))
        elif name == "ALLOCATE":
            named = list(zip(call.argument_names, call.arguments))
            sources = [arg for key, arg in named if key and key.lower() == "source"]
            for source in sources:
                for leaf in _leaves(source):
                    for key, target in named:
                        if key is None and hasattr(target, "symbol"):
                            link(self._source(unit, leaf, link), unit.key(target.symbol))

    def _note_types(self, unit):
        for symbol in unit.work.symbol_table.datasymbols:
            if carries_derivative(symbol):
                self.real.add(unit.key(symbol))
        if unit.result is not None and carries_derivative(unit.result):
            self.real.add(("result", id(unit)))
        for ref in unit.work.walk(Reference):
            if not unit.owns(ref.symbol):
                resolved = unit.module_variable(ref.symbol.name)
                if resolved is not None and carries_derivative(resolved[1]):
                    self.real.add(unit.key(ref.symbol))

    def _source(self, unit, leaf, link):
        if isinstance(leaf, Call):
            callee = unit.calls.get(id(leaf))
            if callee is None:
                return self._link_unknown(unit, leaf, link)
            self._link_arguments(unit, leaf, link)
            return ("result", id(callee))
        return unit.key(leaf.symbol)

    def _link_unknown(self, unit, call, link):
        """Link a call to a routine adfort cannot see as if every input
        influenced every output, so that activity tells whether a
        derivative would have to flow through it.

        :returns: the call's node (its function value, and what it writes).
        """
        if unit.program is not None and unit.program.is_passive(call.routine.name):
            return ("passive",)  # the user says no derivative flows through it
        if is_mpi_name(call.routine.name):
            return self._link_mpi(unit, call, link)
        node = unknown_call_node(call)
        self.real.add(node)
        for actual in call.arguments:
            for leaf in _leaves(actual):
                source = unit.key(leaf.symbol) if not isinstance(leaf, Call) \
                    else self._source(unit, leaf, link)
                link(source, node)
            if is_variable(actual):
                link(node, unit.key(actual.symbol))
        return node

    def _link_mpi(self, unit, call, link):
        """Link an MPI call: the data it sends may end up in any buffer
        another rank receives into, running the same code.  Every real
        buffer of a communication is linked both ways to one node standing
        for all messages: if derivatives flow through communication at all,
        every real buffer is active, so that each send of an adjoint meets
        its receive on the other rank.  Passive MPI routines link nothing;
        one adfort does not know links its real arguments likewise (the
        fence rejects it when they are active)."""
        which = mpi_rule(call.routine.name)
        if which is not None and which.passive:
            return ("passive",)
        positions = which.positions(*BUFFERS) if which is not None \
            else range(len(call.arguments))
        self.real.add(MPI_NODE)
        for position in positions:
            if position >= len(call.arguments):
                continue
            actual = call.arguments[position]
            if is_variable(actual):
                key = unit.key(actual.symbol)
                link(key, MPI_NODE)
                link(MPI_NODE, key)
        return MPI_NODE

    def _link_opaque(self, unit, block, link):
        """Link a statement PSyclone keeps opaque (in a routine adfort only
        runs) as if everything it mentions influenced everything it may
        write: if a derivative would have to flow through it, its routine
        becomes active, and the fence rejects the statement."""
        node = ("opaque", id(block))
        self.real.add(node)
        for name in block_reads(block):
            found = unit.name_key(name)
            if found is not None:
                if carries_derivative(found[1]):
                    self.real.add(found[0])
                link(found[0], node)
        for name in block_writes(block):
            found = unit.name_key(name)
            if found is not None:
                link(node, found[0])

    def _link_io(self, unit, block, link):
        """Link what an I/O statement writes to the file it writes, and a
        file to what a READ reads from it (:func:`adfort.forward_only.io_flows`):
        a value read back from where an active one was written is varied
        (the fence then rejects the READ)."""
        def key(item):
            if isinstance(item, tuple):
                self.real.add(("io",) + item)
                return ("io",) + item     # a unit: one node for every routine
            found = unit.name_key(item)
            if found is None:
                return None
            if carries_derivative(found[1]):
                self.real.add(found[0])
            return found[0]
        for sources, sinks in io_flows(block, unit.work.symbol_table):
            for source in filter(None, map(key, sources)):
                for sink in filter(None, map(key, sinks)):
                    link(source, sink)

    def _link_arguments(self, unit, call, link):
        callee = unit.calls.get(id(call))
        if callee is None:
            return
        for actual, formal in zip(call.arguments,
                                  matched_formals(call, callee_formals(callee))):
            if formal is None:
                continue
            access = formal.interface.access
            formal_key = callee.key(formal)
            sources = [unit.key(l.symbol) if not isinstance(l, Call)
                       else self._source(unit, l, link) for l in _leaves(actual)]
            if access != _OUT:
                for source in sources:
                    link(source, formal_key)
            if is_variable(actual) and callee.writes_formal(formal):
                link(formal_key, unit.key(actual.symbol))
        if callee.result is not None:
            link(callee.key(callee.result), ("result", id(callee)))

    def active_locals(self, unit):
        """Lower-case names of `unit`'s own active variables."""
        return {k[2] for k in self.active if k[0] == "local" and k[1] == id(unit)}

    def active_modules(self):
        """(module, name) of the active module variables."""
        return {(k[1], k[2]) for k in self.active if k[0] == "module"}

    def is_active(self, unit, symbol):
        """Whether variable `symbol` of `unit` is active."""
        return unit.key(symbol) in self.active

    def result_active(self, unit):
        """Whether function `unit`'s result is active."""
        return ("result", id(unit)) in self.active


#: The analysis node of every message passed between ranks.
MPI_NODE = ("mpi",)


def unknown_call_node(call):
    """The analysis node of a call to a routine without source (or one
    the user declared passive)."""
    return ("unknown", id(call))


def _reach(starts, edges):
    seen = set(starts)
    stack = list(starts)
    while stack:
        node = stack.pop()
        for nxt in edges.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen
