"""The generated file: one module per host (a module's routines, or the
external routines with their tape module), the layout modules of COMMON
blocks, and the ``use`` statements every generated routine needs."""

import re

from psyclone.psyir.nodes import (
    Call, Container, FileContainer, IntrinsicCall, Literal, Reference, Routine)
from psyclone.psyir.symbols import (
    ArrayType, ContainerSymbol, DataSymbol, DataTypeSymbol, GenericInterfaceSymbol,
    ImportInterface, RoutineSymbol,
    ScalarType, StaticInterface, Symbol, SymbolTable, UnresolvedType, UnsupportedFortranType)

from adfort.optional import declare_optional, optional_names
from adfort.transformations.building import _restore_assumed_size, _standard_kinds
from adfort import naming
from adfort.mpi_rules import MODULES as MPI_MODULES, is_mpi_name
from adfort.arrays import is_assumed_extent
from adfort.derived import component_names, type_names
from adfort.errors import AdfortError, source_name, where, where_module
from adfort.exprs import INTEGER_TYPE
from adfort.frontend import enclosing_module
from adfort.helpers import called_helpers, check_free, helper_routines
from adfort.interprocedural import resolve_module_variable
from adfort.prune import _datatype_references, drop_unresolved, prune_symbols, used_names
from adfort.symbols import constant_copy
from adfort.tape import TapeSet
from adfort.transformations.building import bind_module_names
from adfort.transformations.work_arrays import pool_work_arrays
from adfort.writer import Writer, verbatim_routines


def _outer_names(routine):
    """Names a generated routine uses that it does not declare itself."""
    table = routine.symbol_table
    local = {s.name.lower() for s in table.symbols if not s.is_unresolved}
    return sorted(n for n in used_names(routine) if n not in local)


class Host:
    """Where the generated routines of one module (or of the external
    routines) go, with their tapes and module-variable adjoints."""

    def __init__(self, module, build):
        self.module = module
        self.build = build
        self.units = []
        self.motions = []
        self._tapes = None
        self._adjoints = {}

    @property
    def name(self):
        if self.module is None:
            return getattr(self.build, "tape_module", None) or \
                naming.tape_module(self.build.root.name)
        return self.build.module_output_name(self.module)

    def names(self, unit):
        taken = self.build._taken(unit)
        names = {"rec": naming.recording(unit.name), "ret": naming.returning(unit.name),
                 "rev": naming.reversing(unit.name), "jacobian": naming.jacobian(unit.name),
                 "ret_given": naming.returning_given(unit.name)}
        lowered = {t.lower() for t in taken}
        location = where(unit.original, self.build.filename)
        fixed = [("rec", "the recording routine"), ("ret", "the returning routine"),
                 ("rev", "the reversing routine")]
        if unit is self.build.top and self.build.options.get("jacobian"):
            fixed.append(("jacobian", "the Jacobian routine"))
        for key, what in fixed:
            naming.check_length(names[key], what, unit.name,
                                naming.MAX_NAME_LENGTH - max(
                                    len(names[k]) - len(unit.name) for k, _ in fixed),
                                location)
        for name in names.values():
            if name.lower() in lowered:
                raise AdfortError(
                    f"the generated routine name '{name}' is already used: rename the "
                    f"existing '{name}'", location)
        names["taken"] = taken | set(names.values()) | \
            self.build.visible_derivative_names(unit)
        return names

    def tapes(self, unit):
        if self._tapes is None:
            # Module variables of the generated module: seen in every
            # routine it holds, so free among their variables too.
            taken = set(self.build._taken(unit))
            for other in getattr(self.build, "order", ()):
                if other.module == self.module:
                    taken |= {s.name for s in other.work.symbol_table.symbols}
            self._tapes = TapeSet(unit.work.symbol_table, True, taken,
                                  self.build.options.get("tape_copy_routines", True))
        return self._tapes

    def module_adjoints(self, unit):
        """{name: adjoint symbol} of the active module variables `unit` uses."""
        found = {}
        for ref in unit.work.walk(Reference):
            if unit.owns(ref.symbol):
                continue
            resolved = unit.module_variable(ref.symbol.name)
            if resolved is None:
                continue
            module, symbol = resolved
            if (module, symbol.name.lower()) not in self.build.activity.active_modules():
                continue
            found[symbol.name.lower()] = self.build._module_adjoint(module,
                                                                   symbol.name.lower())
        return found

    def add(self, unit, motions):
        self.units.append(unit)
        self.motions.append(motions)


def assemble(hosts, build):
    """The output FileContainer: one module per host, callees first."""
    stem = _stem(build.filename, build.root.name)
    children = []
    generated_in = {}
    placed = _placed_routines(hosts, build)
    for host in hosts.values():
        for routine in placed[id(host)]:
            generated_in[routine.name.lower()] = host
    module_adjoint_hosts = {}
    for (module, name), symbol in build.module_adjoint_symbols.items():
        module_adjoint_hosts.setdefault(module, []).append(symbol)
    for module, symbols in module_adjoint_hosts.items():
        if module not in hosts:
            hosts[module] = Host(module, build)
    adjoint_types = build.types.adjoint_types()
    for module in adjoint_types:
        if module not in hosts:
            hosts[module] = Host(module, build)
    _check_module_names(hosts, build)
    for host in hosts.values():
        routines = placed.get(id(host), [])
        dynamic = any(m.dynamic for m in host.motions)
        tapes = host._tapes.tapes if host._tapes is not None else \
            [t for m in host.motions if m.dynamic for t in m.tapes]
        helpers = [name for name in called_helpers(routines)
                   if not _imported_helper(routines, name, build.program)]
        check_free(routines, helpers, build.filename)
        if host.module is None:
            if dynamic or helpers or host.name in [h.name for h in hosts.values() if h.module]:
                tape_host = Container.create(host.name, SymbolTable(), [])
                _host_tapes(tape_host, tapes, _routines(host, build),
                            called=_called(routines))
                _host_helpers(tape_host, helpers, private=False)
                for routine in routines:
                    use = ContainerSymbol(tape_host.name)
                    use.wildcard_import = True
                    routine.symbol_table.add(use)
                children.append(tape_host)
            for routine in routines:
                _use_generated(routine.symbol_table, routine, generated_in, host, hosts)
                _use_module_variables(routine, build, hosts)
            children.extend(routines)
            children.extend(_hoisted_copies(routines, build.program))
            children.extend(_private_imports(routines, build.program))
            continue
        out_module = Container.create(host.name, SymbolTable(), [])
        for routine in routines:
            out_module.addchild(routine)
        for routine in _hoisted_copies(routines, build.program) + \
                _private_imports(routines, build.program):
            drop_unresolved(routine)
            out_module.addchild(routine)
        module = build.program.modules().get(host.module)
        if dynamic and tapes:
            _host_tapes(out_module, tapes, _routines(host, build), module,
                        called=_called(routines))
        _host_helpers(out_module, helpers)
        for symbol in adjoint_types.get(host.module, []):
            out_module.symbol_table.add(symbol)
        for symbol in module_adjoint_hosts.get(host.module, []):
            out_module.symbol_table.add(symbol)
        _import_outer_symbols(out_module, module, build.filename, generated_in, hosts,
                              build.program)
        bind_module_names(out_module)
        children.append(out_module)
    _explicit_interfaces(children, build.program)
    layouts = [module.copy() for module in build.program.commons.layout_modules()]
    return FileContainer.create(stem, SymbolTable(), _used_first(layouts + children))


def _user_globals(program):
    """{lower-case name: node} of the user's modules and external routines
    (not the layout modules adfort makes of COMMON blocks)."""
    found = {}
    for tree in program.trees:
        if getattr(tree, "adfort_synthetic", False):
            continue
        for node in tree.children:
            if isinstance(node, (Container, Routine)) and not isinstance(node, FileContainer):
                found.setdefault(node.name.lower(), node)
    return found


def _check_module_names(hosts, build):
    """The generated modules' names must be free among the user's modules
    and external routines.  ``m_ad`` (for module ``m``), which the calling
    convention fixes, is an error naming both; the module of the tapes of
    routines outside any module, internal, takes a free name."""
    users = _user_globals(build.program)
    for host in hosts.values():
        if host.module is None:
            if getattr(build, "tape_module", None) is None and \
                    naming.tape_module(build.root.name).lower() in users:
                build.tape_module = naming.unique_name(
                    naming.tape_module(build.root.name),
                    set(users) | {h.name.lower() for h in hosts.values() if h.module})
            continue
        name = host.name
        module = build.program.module(host.module)
        base = module.name if module is not None else host.module
        naming.check_length(name, "the generated module", base,
                            naming.MAX_NAME_LENGTH - (len(name) - len(base)),
                            where_module(module, build.filename) if module is not None
                            else build.filename)
        clash = users.get(name.lower())
        own = module.symbol_table.lookup(name, otherwise=None, scope_limit=module) \
            if module is not None else None
        if clash is None and own is None:
            continue
        synthetic = module is not None and getattr(module.root, "adfort_synthetic", False)
        origin = f"COMMON block of the layout module '{module.name}'" if synthetic else \
            f"module '{module.name if module is not None else host.module}'"
        if clash is not None:
            kind = "module" if isinstance(clash, Container) else "routine"
            place = where_module(clash, build.filename) if kind == "module" else \
                where(clash, source_name(clash) or build.filename)
            raise AdfortError(
                f"the {kind} '{clash.name}' has the name of the module adfort generates for "
                f"the {origin} (the calling convention: '{name}' holds its generated "
                f"routines and the adjoints of its variables): rename the {kind} "
                f"'{clash.name}'", place)
        raise AdfortError(
            f"the {origin} declares '{own.name}', the name of the module adfort generates "
            f"for it (the calling convention: '{name}' holds its generated routines and the "
            f"adjoints of its variables, and uses the module whole): rename '{own.name}'",
            where_module(module, build.filename))


def _placed_routines(hosts, build):
    """{id(host): the generated routines it holds, in order}: each routine's
    motions, those with automatic arrays split into a body and a wrapper
    that hands it one buffer (:mod:`adfort.transformations.work_arrays`)."""
    pool = build.options.get("pool_work_arrays", True)
    taken = set()
    if pool:
        for host in hosts.values():
            for unit in host.units:
                taken |= {n.lower() for n in build._taken(unit)}
            taken |= {r.name.lower() for m in host.motions for r in m.routines}
    placed = {}
    for host in hosts.values():
        routines = [r for m in host.motions for r in m.routines]
        if pool:
            routines = [part for r in routines for part in pool_work_arrays(r, taken)]
        placed[id(host)] = routines
    return placed


def _hoisted_copies(routines, program):
    """Copies of the routines adfort made from internal procedures that
    `routines` call as they are (joint schedules, passive calls): the
    user's compiled sources do not have them."""
    made = {}
    for tree in program.trees:
        for routine in tree.walk(Routine):
            if routine.name.lower() in getattr(tree, "adfort_hoisted", ()):
                made[routine.name.lower()] = routine
    if not made:
        return []
    copies, todo = {}, list(routines)
    while todo:
        routine = todo.pop()
        for call in routine.walk(Call):
            name = call.routine.name.lower()
            if name in made and name not in copies:
                copies[name] = made[name].copy()
                declare_optional(copies[name].symbol_table, optional_names(made[name]))
                _standard_kinds(copies[name].symbol_table)
                _restore_assumed_size(copies[name].symbol_table)
                # (The indices a WHERE lowered to loops left unused.)
                prune_symbols(copies[name])
                todo.append(copies[name])
    return [copies[name] for name in sorted(copies)]


def _private_imports(routines, program):
    """Copies of the private procedures of other modules that `routines`
    import by name to call as they are (the procedure of a defined
    assignment or operator, :mod:`adfort.defined_operations`, run plainly
    under the joint schedule or as a passive call): ``use`` cannot reach
    them.  Each such import is dropped from the routine, which calls the
    private copy placed beside it instead."""
    copies, todo = {}, list(routines)
    while todo:
        routine = todo.pop()
        table = routine.symbol_table
        for symbol in list(table.symbols):
            if not isinstance(symbol, RoutineSymbol) or not symbol.is_import:
                continue
            module = program.module(symbol.interface.container_symbol.name)
            name = (symbol.interface.orig_name or symbol.name).lower()
            original = module.symbol_table.lookup(name, otherwise=None, scope_limit=module) \
                if module is not None else None
            procedure = next((r for r in module.children if isinstance(r, Routine)
                              and r.name.lower() == name), None) if module else None
            if procedure is None or original is None or \
                    original.visibility != Symbol.Visibility.PRIVATE:
                continue
            if symbol.name.lower() != name:
                raise AdfortError(
                    f"'{routine.name}' calls the private procedure '{name}' of module "
                    f"'{module.name}' under another name, '{symbol.name}': adfort copies "
                    "such a procedure under its own name; make it public", where(routine))
            table._symbols.pop(table._normalize(symbol.name))
            container = symbol.interface.container_symbol
            if container.name.lower() in table and not container.wildcard_import and not any(
                    s.is_import and s.interface.container_symbol is container
                    for s in table.symbols):
                table._symbols.pop(table._normalize(container.name))
            if name not in copies:
                copy = procedure.copy()
                copy.symbol.visibility = Symbol.Visibility.PRIVATE
                declare_optional(copy.symbol_table, optional_names(procedure))
                _standard_kinds(copy.symbol_table)
                _restore_assumed_size(copy.symbol_table)
                prune_symbols(copy)
                copies[name] = copy
                todo.append(copy)
    return [copies[name] for name in sorted(copies)]


def needs_interface(routine):
    """Whether calling `routine` needs an explicit interface: a dummy
    argument of assumed shape, allocatable, pointer, optional, VALUE…"""
    for argument in routine.symbol_table.argument_list:
        dtype = argument.datatype
        if isinstance(dtype, UnsupportedFortranType):
            head = dtype.declaration.split("::")[0]
            if re.search(r"\b(allocatable|pointer|optional|value|target)\b|\(\s*:",
                         head + dtype.declaration, re.IGNORECASE):
                return True
        elif any(extent == ArrayType.Extent.DEFERRED or is_assumed_extent(extent)
                 for extent in getattr(dtype, "shape", ())):
            return True
    return False


def _explicit_interfaces(children, program):
    """Give every generated routine an INTERFACE block for each routine
    outside any module it calls that needs one (generated motions of a
    routine with assumed-shape arguments, or the original routine itself
    under a joint schedule)."""
    externals = {name: routine for name, routine in program.externals().items()}
    for node in children:
        if isinstance(node, Routine):
            externals[node.name.lower()] = node
    wanted = {name: routine for name, routine in externals.items() if needs_interface(routine)}
    if not wanted:
        return
    texts = {}
    for node in children:
        for routine in ([node] if isinstance(node, Routine) else node.walk(Routine)):
            table = routine.symbol_table
            for name in sorted({c.routine.name.lower() for c in routine.walk(Call)}):
                if name not in wanted or name == routine.name.lower():
                    continue
                if _has_user_interface(table, name):
                    continue    # the routine declares it itself
                if name not in texts:
                    texts[name] = _interface_text(wanted[name])
                symbol = table.lookup(name, otherwise=None)
                if symbol is not None and symbol.find_symbol_table(routine) is table:
                    symbol.datatype = UnsupportedFortranType(texts[name])
                elif symbol is None:
                    table.add(RoutineSymbol(name, UnsupportedFortranType(texts[name])))


def _has_user_interface(table, name):
    """Whether an interface block of the user's, kept in `table` as text,
    declares routine `name` (a second one would be an error)."""
    pattern = re.compile(rf"^\s*(?:[\w(),*=\s]*\s)?(?:subroutine|function)\s+{name}\b",
                         re.IGNORECASE | re.MULTILINE)
    for symbol in table.symbols:
        datatype = getattr(symbol, "datatype", None)
        if isinstance(datatype, UnsupportedFortranType) and \
                re.match(r"\s*(?:abstract\s+)?interface\b", datatype.declaration, re.IGNORECASE) \
                and pattern.search(datatype.declaration):
            return True
    return False


def _interface_text(routine):
    """``interface … end interface`` declaring `routine`: its header and
    the declarations of its arguments (and of the kinds they use)."""
    stub = routine.copy()
    stub.pop_all_children()
    table = stub.symbol_table
    arguments = {a.name.lower() for a in table.argument_list}
    for symbol in list(table.symbols):
        if symbol.name.lower() in arguments or isinstance(symbol, ContainerSymbol) \
                or symbol.is_import or (isinstance(symbol, DataSymbol) and symbol.is_constant):
            continue
        if stub.return_symbol is not None and symbol is stub.return_symbol:
            continue
        try:
            table.remove(symbol)
        except Exception:  # still referenced (a bound): keep it declared
            continue
    for container in [s for s in table.symbols if isinstance(s, ContainerSymbol)]:
        if container.wildcard_import and not any(
                s.is_import and s.interface.container_symbol is container
                for s in table.symbols):
            try:
                table.remove(container)  # the tapes: not needed by arguments
            except Exception:
                continue
    lines = [line for line in Writer()(stub).splitlines() if line.strip()]
    # The first line takes the indentation of the declarations it joins.
    return "\n".join(["interface"] + ["    " + line for line in lines] + ["  end interface"])


def _common_layout(program, name):
    """The layout module of the COMMON block with canonical member `name`."""
    if program is None:
        return None
    for block in program.commons.blocks.values():
        if name in block.names:
            return block.module_name
    return None


def _use_module_variables(routine, build, hosts):
    """Import into an external routine the module-variable adjoints and
    COMMON members (by their canonical names) it uses without declaring."""
    table = routine.symbol_table
    for name in _outer_names(routine):
        origin = _module_adjoint_host(hosts, name) or _common_layout(build.program, name) \
            or _adjoint_type_host(hosts, name)
        if origin is None:
            continue
        container = table.lookup(origin, otherwise=None)
        if container is None:
            container = ContainerSymbol(origin)
            table.add(container)
        table.add(_imported(name, container, _derived_type_names(routine)))


def _used_first(children):
    """`children` with every generated module before those that use it
    (otherwise in the given order)."""
    modules = {c.name.lower(): c for c in children if isinstance(c, Container)}

    def uses(node):
        names = set()
        for scope in [node] + node.walk(Routine):
            names |= {c.name.lower() for c in scope.symbol_table.containersymbols}
        return [modules[n] for n in sorted(names) if n in modules and modules[n] is not node]


    ordered, seen = [], set()

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        for used in uses(node):
            visit(used)
        ordered.append(node)

    for child in children:
        visit(child)
    return ordered


def _use_generated(table, routine, generated_in, own, hosts):
    """Import into `table` the generated routines `routine` calls from
    other modules."""
    for call in routine.walk(Call):
        host = generated_in.get(call.routine.name.lower())
        if host is None or host is own or host.module is None:
            continue
        container = table.lookup(host.name, otherwise=None)
        if container is None:
            container = ContainerSymbol(host.name)
            table.add(container)
        if call.routine.name.lower() not in table:
            table.add(Symbol(call.routine.name, interface=ImportInterface(container)))


def _routines(host, build):
    """The routines (as read) whose tapes `host` declares."""
    return [unit.original for unit in host.units] or [build.root]


def _called(routines):
    """Lower-case names of the routines `routines` call."""
    return {c.routine.name.lower() for r in routines for c in r.walk(Call)
            if not isinstance(c, IntrinsicCall)}


def _host_tapes(host, tapes, routines, module=None, called=()):
    """Declare dynamic `tapes` in module `host`, with their reserve routines
    (and the routines copying arrays of rank > 1, when `called`).

    Kinds the tapes are declared with come from where the routines have
    them: the same ``use``, or a copy of a parameter declared in a routine
    (each kind from the routine it comes from: several share the tapes).

    :param module: the module of the routines (its own kinds are imported
        with its other names, see :func:`_import_outer_symbols`).
    """
    table = host.symbol_table
    writer = Writer()
    for tape in tapes:
        if isinstance(tape.datatype.precision, int):
            # real*8 values: declared real(kind=8), as -std=f2008 wants.
            tape.datatype = ScalarType(tape.datatype.intrinsic, Literal(
                str(tape.datatype.precision), INTEGER_TYPE))
            tape.symbol.datatype = ArrayType(tape.datatype.copy(),
                                             tape.symbol.datatype.shape)
        precision = tape.datatype.precision
        if isinstance(precision, Reference):
            _provide(table, precision.symbol, routines, module)
        table.add(DataSymbol(tape.symbol.name, tape.symbol.datatype.copy()))
        table.add(DataSymbol(tape.top.name, INTEGER_TYPE.copy(),
                             initial_value=Literal("0", INTEGER_TYPE),
                             interface=StaticInterface()))
        type_text = writer.gen_vardecl(DataSymbol("x", tape.datatype.copy())).split("::")[0]
        source = tape.reserve_routine_source(type_text.strip())
        if hasattr(tape, "routines_source"):   # the IF decisions' bits
            for symbol, dtype in ((tape.word, tape.datatype), (tape.count, INTEGER_TYPE)):
                table.add(DataSymbol(symbol.name, dtype.copy(),
                                     initial_value=Literal("0", INTEGER_TYPE),
                                     interface=StaticInterface()))
            source += tape.routines_source()
        if {tape.put_name.lower(), tape.get_name.lower()} & set(called):
            source += tape.copy_routines_source(type_text.strip())
        # Written out verbatim: parsing these fixed routines cost a tenth
        # of a small kernel's run.
        for routine in verbatim_routines(source):
            host.addchild(routine)


def _imported_helper(routines, name, program):
    """Whether the `routines` see helper `name` through a module they use
    whole that defines it publicly (the adjoint's tape module, when
    differentiated again for Hessian-vector products): defined again
    beside it, the name would be ambiguous."""
    modules = program.modules()
    for routine in routines:
        for symbol in routine.symbol_table.containersymbols:
            module = modules.get(symbol.name.lower()) if symbol.wildcard_import else None
            if module is None:
                continue
            defined = module.symbol_table.lookup(name, scope_limit=module, otherwise=None)
            if defined is not None and defined.visibility == Symbol.Visibility.PUBLIC and \
                    any(r.name.lower() == name for r in module.children
                        if isinstance(r, Routine)):
                return True
    return False


def _host_helpers(host, names, private=True):
    """Define the helper functions `names` (:mod:`adfort.helpers`) in
    module `host`: private to a generated module (several may each hold
    one, and a module using another must not see two); public in the tape
    module of routines outside any module, which use it."""
    for routine in helper_routines(names):
        host.addchild(routine)
        symbol = host.symbol_table.lookup(routine.name, scope_limit=host, otherwise=None)
        if symbol is not None and private:
            symbol.visibility = Symbol.Visibility.PRIVATE


def _provide(table, symbol, routines, module=None):
    """Make the kind `symbol` (a tape's) visible in `table` as the routines
    that declare values of that kind see it."""
    name = symbol.name
    if name.lower() in table:
        return
    if symbol.is_import:
        origin = symbol.interface.container_symbol.name
        container = table.lookup(origin, otherwise=None)
        if container is None:
            container = ContainerSymbol(origin)
            table.add(container)
        # (use m, only: local => original keeps its rename)
        table.add(Symbol(name, interface=ImportInterface(
            container, symbol.interface.orig_name)))
        return
    visible = module.symbol_table.lookup(name, scope_limit=module, otherwise=None) \
        if module is not None else None
    if visible is not None and visible is not symbol and visible.is_import:
        # The module imports a kind of that name (``use kinds, only: rk``):
        # the generated module, which uses the module whole, sees that one
        # (a copy beside it would clash: a function of kinds inlined here
        # brings kinds' own rk).
        _provide(table, visible, routines, module)
        return
    if _through_wildcard(name, routines, module, visible):
        # The module has it through a wildcard use of its own and exports
        # it: the generated module, which uses the module whole, sees it
        # (a copy beside it would clash).
        return
    if isinstance(symbol, DataSymbol) and symbol.is_constant and not symbol.is_unresolved \
            and symbol.initial_value is not None and not (
            module is not None
            and module.symbol_table.lookup(name, scope_limit=module, otherwise=None) is symbol):
        # A parameter of a routine (or one adfort gave a routine, see
        # adfort.symbols.nameable_type): a private copy, with what it names.
        copy = constant_copy(symbol)
        copy.visibility = Symbol.Visibility.PRIVATE
        table.add(copy)
        for ref in _datatype_references(copy):
            if not isinstance(ref.symbol, RoutineSymbol):
                _provide(table, ref.symbol, routines, module)
                ref.symbol = table.lookup(ref.symbol.name, otherwise=ref.symbol)
        return
    routine_table, seen = routines[0].symbol_table, None
    for routine in routines:
        seen = routine.symbol_table.lookup(name, otherwise=None, scope_limit=routine)
        if seen is not None:
            routine_table = routine.symbol_table
            break
    if seen is None or seen.is_unresolved:
        # Seen through a wildcard use: of the routine's own, the same use
        # (else of the enclosing module, which the host imports with it).
        for container in routine_table.containersymbols:
            if container.wildcard_import and container.name.lower() not in table:
                use = ContainerSymbol(container.name)
                use.wildcard_import = True
                table.add(use)
    elif seen.is_import:
        _provide(table, seen, routines, module)
    else:
        table.add(seen.copy())


def _unseen_wildcard_modules(program, module):
    """Names of the modules `module` uses whole that adfort has no source
    of."""
    return [c.name for c in module.symbol_table.containersymbols
            if c.wildcard_import and program.module(c.name) is None]


def _through_wildcard(name, routines, module, visible):
    """Whether `name`, which the routines of `module` see from neither
    themselves nor `module`'s own declarations, reaches `table` (their
    host, which uses `module` whole) through a wildcard use of `module`."""
    if module is None:
        return False
    if visible is not None and not visible.is_unresolved:
        return False
    for routine in routines:
        own = routine.symbol_table.lookup(name, scope_limit=routine, otherwise=None)
        if own is not None and not own.is_unresolved:
            return False
        if any(c.wildcard_import for c in routine.symbol_table.containersymbols):
            return False    # (it may come from the routine's own use)
    public = module.symbol_table.default_visibility == Symbol.Visibility.PUBLIC
    if visible is not None:
        public = visible.visibility == Symbol.Visibility.PUBLIC
    return public and any(c.wildcard_import for c in module.symbol_table.containersymbols)


def _library_module(hosts, name):
    """The module of a user-supplied adjoint called `name`, if in one."""
    for host in (hosts or {}).values():
        for unit in getattr(host.build, "opaque", []):
            rev = unit.user_adjoint
            if rev.name.lower() == name and enclosing_module(rev) is not None:
                return enclosing_module(rev).name
        return None
    return None


def _module_adjoint_host(hosts, name):
    if not hosts:
        return None
    for host in hosts.values():
        build = host.build
        for (module, _), symbol in build.module_adjoint_symbols.items():
            if symbol.name.lower() == name:
                return build.module_output_name(module)
        return None
    return None


def _derived_type_names(node):
    """Lower-case names of the derived types the variables declared in
    `node` and its routines have, and the components of types it defines."""
    names = set()
    for scope in [node] + node.walk(Routine):
        for symbol in scope.symbol_table.symbols:
            if isinstance(symbol, DataTypeSymbol) and hasattr(symbol.datatype, "components"):
                for component in symbol.datatype.components.values():
                    names |= type_names(component.datatype)
            names |= type_names(getattr(symbol, "datatype", None))
    return names


def _imported(name, container, types, original=None):
    """The symbol importing `name` (renamed from `original`, if given) from
    `container`: a type symbol for a derived type (variables of that type
    are linked to it by name)."""
    interface = ImportInterface(container, original)
    if name.lower() in types:
        return DataTypeSymbol(name, UnresolvedType(), interface=interface)
    return Symbol(name, interface=interface)


def _adjoint_type_host(hosts, name):
    """The generated module defining the adjoint type `name`, or None."""
    for host in (hosts or {}).values():
        build = host.build
        if name in build.types.adjoint_modules:
            return build.module_output_name(build.types.adjoint_modules[name])
        return None
    return None


def _stem(filename, fallback):
    import os
    return os.path.splitext(os.path.basename(filename))[0] + "_ad" if filename \
        else naming.module(fallback)


def _copy_private_routines(out_module, module):
    """Give `out_module` a private copy of each private routine of `module`
    its routines call as it is (a callee run plainly under the joint
    schedule, a passive call): ``use`` cannot reach it, and the name is free
    in the generated module since the original's is not imported.

    :returns: (the lower-case names copied, :func:`_outer_names` of all the
        routines of `out_module` then).
    """
    copied = set()
    while True:
        used = set()
        for generated in out_module.children:
            used.update(_outer_names(generated))
        wanted = used - ({s.name.lower() for s in out_module.symbol_table.symbols} | copied)
        found = []
        for name in sorted(wanted):
            symbol = module.symbol_table.lookup(name, otherwise=None, scope_limit=module)
            if (isinstance(symbol, RoutineSymbol) and not symbol.is_import
                    and symbol.visibility == Symbol.Visibility.PRIVATE):
                found += [r for r in module.children
                          if isinstance(r, Routine) and r.name.lower() == name]
        if not found:
            return copied, used
        for routine in found:
            copy = routine.copy()
            copy.symbol.visibility = Symbol.Visibility.PRIVATE
            # (PSyIR holds no OPTIONAL: adfort.optional keeps it aside.)
            declare_optional(copy.symbol_table, optional_names(routine))
            _standard_kinds(copy.symbol_table)
            _restore_assumed_size(copy.symbol_table)
            # Names of the module's wildcard uses: the generated module
            # imports them by name (it may not `use` the original whole).
            drop_unresolved(copy)
            # (And the indices a WHERE lowered to loops left unused.)
            prune_symbols(copy)
            out_module.addchild(copy)
            copied.add(routine.name.lower())


def _import_outer_symbols(out_module, module, filename, generated_in=None, hosts=None,
                          program=None):
    """Give `out_module` a ``use`` of what its routines take from `module`.

    A name the original module imports is used from where it comes; a
    private constant of the module is copied; a private variable cannot be
    reached and is reported.
    """
    table = out_module.symbol_table
    copied, wanted = _copy_private_routines(out_module, module)
    for symbol in table.datasymbols:  # module-level tapes: their kinds
        wanted.update(ref.symbol.name.lower() for ref in _datatype_references(symbol))
        wanted.update(type_names(symbol.datatype))
    for symbol in table.symbols:  # adjoint types: their components'
        if isinstance(symbol, DataTypeSymbol):
            wanted.update(component_names(symbol))
    wanted -= {s.name.lower() for s in table.symbols} | copied
    types = _derived_type_names(out_module)
    sources = {}
    users = set()   # lower-case names of the user's modules imported from
    own = table.node
    pending = sorted(wanted)
    seen = set()
    while pending:
        name = pending.pop(0)
        if name in seen:
            continue
        seen.add(name)
        host = (generated_in or {}).get(name)
        if host is not None:
            # External motions (of routines outside any module) need no
            # import: they are called through their implicit interface.
            if host.module is not None and host.name.lower() != own.name.lower():
                sources.setdefault(host.name, []).append(name)
            continue
        library = _library_module(hosts, name)
        if library is not None:
            sources.setdefault(library, []).append(name)
            continue
        adjoint_host = _module_adjoint_host(hosts, name) or _adjoint_type_host(hosts, name)
        if adjoint_host is not None:
            if adjoint_host.lower() != own.name.lower():
                sources.setdefault(adjoint_host, []).append(name)
            continue
        symbol = module.symbol_table.lookup(name, otherwise=None)
        layout = _common_layout(program, name)
        if (symbol is None or symbol.is_unresolved) and layout is not None:
            sources.setdefault(layout, []).append(name)
            continue
        if (symbol is None or symbol.is_unresolved) and program is not None:
            # Seen through a wildcard use: import it from where it is declared.
            found = resolve_module_variable(program, module, name,
                                            (DataSymbol, RoutineSymbol, DataTypeSymbol))
            if found is not None:
                sources.setdefault(found[0], []).append(found[1].name)
                users.add(found[0].lower())
                continue
            unseen = _unseen_wildcard_modules(program, module)
            if unseen and name.upper() not in IntrinsicCall.Intrinsic.__members__:
                # From a module adfort has no source of (omp_lib, a
                # library's): from it when it is the only such one, else
                # through the module, which passes it on.
                origin = unseen[0] if len(unseen) == 1 else module.name
                sources.setdefault(origin, []).append(
                    symbol.name if symbol is not None else name)
                users.add(origin.lower())
            continue
        if symbol is None:
            continue  # an intrinsic
        if isinstance(symbol, RoutineSymbol) and not symbol.is_import and \
                not isinstance(symbol, GenericInterfaceSymbol) and not any(
                    r.name.lower() == name for r in module.children if isinstance(r, Routine)):
            continue  # an external routine, called through its implicit interface
        if symbol.is_import:
            origin = symbol.interface.container_symbol.name
            # (a rename, use m, only: local => original, is kept)
            sources.setdefault(origin, []).append((symbol.name, symbol.interface.orig_name))
            users.add(origin.lower())
        elif symbol.visibility == Symbol.Visibility.PRIVATE:
            if isinstance(symbol, DataSymbol) and symbol.is_constant:
                table.add(symbol.copy())
                # Its kind and value may name other things of the module.
                wanted_more = {r.symbol.name.lower() for r in _datatype_references(symbol)}
                if symbol.initial_value is not None:
                    wanted_more |= {r.symbol.name.lower()
                                    for r in symbol.initial_value.walk(Reference)}
                pending.extend(sorted(wanted_more - seen - {s.name.lower()
                                                            for s in table.symbols}))
                continue
            raise AdfortError(
                f"'{symbol.name}' is private to module '{module.name}', so the "
                f"generated module '{out_module.name}' cannot use it: make it public",
                where(module, filename))
        else:
            sources.setdefault(module.name, []).append(symbol.name)
    for origin in sorted(sources, key=lambda n: (n.lower() != module.name.lower(), n)):
        # The module may be used already: for the tapes' kinds (a module
        # procedure repeating its host's 'use kinds').
        container = table.lookup(origin, otherwise=None)
        if container is None:
            container = ContainerSymbol(origin)
            table.add(container)
        for entry in sources[origin]:
            name, original = entry if isinstance(entry, tuple) else (entry, None)
            imported = _imported(name, container, types, original)
            if origin.lower() in users:
                # Not re-exported: a driver's own ``nx`` beside ``use
                # model_ad`` would clash with the grid's, which the
                # generated routines only need.
                imported.visibility = Symbol.Visibility.PRIVATE
            table.add(imported)
    if any(is_mpi_name(call.routine.name) for call in out_module.walk(Call)
           if not isinstance(call, IntrinsicCall)):
        # The MPI library's module whole, as the original used it: its
        # interfaces let the compiler take every kind of buffer.
        for name in MPI_MODULES:
            if program is not None and program.module(name) is not None:
                container = table.lookup(name, otherwise=None)
                if container is None:
                    container = ContainerSymbol(name)
                    table.add(container)
                for symbol in [s for s in table.symbols if s.is_import
                               and s.interface.container_symbol is container]:
                    table.remove(symbol)
                container.wildcard_import = True
    if module.name not in sources:
        # Keep the documented `use m` even when nothing is taken from it.
        if module.name.lower() not in table:
            table.add(ContainerSymbol(module.name))
            table.lookup(module.name).wildcard_import = True

