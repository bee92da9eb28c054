"""The entry point: differentiate a routine of a (File)Container."""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, CodeBlock, Container, DataNode, FileContainer,
    IntrinsicCall, Literal, Reference, Routine, ScopingNode, Statement)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, AutomaticInterface, CommonBlockInterface, DataSymbol,
    RoutineSymbol, Symbol)

from adfort.exprs import INTEGER_TYPE
from adfort import naming, timing
from adfort.activity import is_real
from adfort.arrays import expr_rank, is_shape_inquiry, symbol_rank
from adfort.commons import common_statements, parse_common
from adfort.context import checked_options
from adfort.copy_forwarding import forward_copies
from adfort.sequence_clears import cleared_reach
from adfort.deferral import deferrable_calls
from adfort.passive_components import PassiveComponents
from adfort.derived import TypeRegistry, is_derived, is_variable
from adfort.pointers import lower_declarations
from adfort.errors import AdfortError, source_name, where, where_module
from adfort.fence import (
    check_active_workspaces, check_arguments, check_component_allocations,
    check_polymorphic_dummies, check_protected_writes, check_renamed_active, check_routine,
    check_value_dummies)
from adfort.forward_only import (
    check_repeated_input, is_forward_only, run_twice, written_names)
from adfort.saved import check_carried_state, check_saved_state, written_saved_locals
from adfort.sections import formal_sections, global_sections, sets_every_element
from adfort.tapeless import records_tape, tapeless_links
from adfort.frontend import (
    enclosing_module, find_routine, read_file, recognise_intrinsics)
from adfort.preprocess import Preprocessing
from adfort.opaque import block_reads, block_writes, opaque_blocks
from adfort.optional import (
    callee_formals, interface_intents, matched_formals, positional_arguments)
from adfort.iterations import cheap_function
from adfort.interprocedural import MPI_NODE, Activity, Unit, unknown_call_node
from adfort.inlining import inline_functions
from adfort.normalise import (
    deallocate_at_end, hoist_calls, hoist_case_selectors, hoist_self_subscripts,
    initialise_intent_out, normalise_jumps)
from adfort.program import Program, call_graph, user_calls
from adfort.schedules import ADReversalSchedule, LinkReversalSchedule
from adfort.extents import is_assumed_size, measured_links
from adfort.symbols import nameable_type
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.call import CalleeMotions
from adfort.mpi_analysis import (
    check_mpi_call, check_mpi_modules, mpi_call_rule, mpi_io, pair_requests, sequence_positions)
from adfort.mpi_rules import is_mpi_name
from adfort.transformations.reverser import enclosing_loop_indices
from adfort.transformations.assemble import Host, assemble
from adfort.checkpoint_loops import with_checkpoint_steps
from adfort.deep import room_for_deep_trees
from adfort.transformations.routine import UnitSpec, reverse_work
from adfort.shadows import check_no_hidden_intrinsics, rename_shadowing_locals
from adfort.where import lower_where


def _lower_bound(symbol, dim):
    """The declared lower bound of dimension `dim` (from 0) of `symbol`, or
    ``LBOUND(symbol, dim + 1)``."""
    bounds = symbol.datatype.shape[dim]
    lower = getattr(bounds, "lower", None)
    if isinstance(lower, DataNode):
        return lower.copy()
    return IntrinsicCall.create(IntrinsicCall.Intrinsic.LBOUND, [
        Reference(symbol), ("dim", Literal(str(dim + 1), INTEGER_TYPE))])


class ADReverseContainerTrans(ADReverseTrans):
    """Differentiate a routine of a Container in reverse mode, together with
    the routines it calls.

    ``apply`` returns a new FileContainer holding the recording, returning
    and reversing motions (and the Jacobian routine on request) of the
    routine and of every called routine that carries derivatives; the input
    tree is left unchanged.

    :param search_path: directories where modules named in ``use``
        statements are looked for.
    :param extra_files: further Fortran files holding called routines.
    :param adjoint_libraries: Fortran files with hand-written adjoints
        ``<name>_rev`` (following the calling convention) of routines that
        have no source; adfort calls them instead of differentiating.
    :param passive_routines: names of routines through which the user
        states no derivative flows (as ``!$adfort passive``): they are
        called as they are and never differentiated.
    :param defines: ``NAME[=VALUE]`` macros for preprocessed extra files and
        modules (``-D``); the search path is also the ``#include`` and
        INCLUDE path (``-I``).
    :param undefines: macro names (``-U``).
    :param cpp: preprocess every file read, whatever its suffix (``--cpp``).
    :param form: ``"free"`` or ``"fixed"``: the source form of every file
        read, whatever its suffix (``--free-form``/``--fixed-form``).
    """

    node_type = Container
    #: the class that differentiates the call graph (set below).
    build_class = None

    def __init__(self, search_path=(), extra_files=(), adjoint_libraries=(),
                 passive_routines=(), defines=(), undefines=(), cpp=False, form=None):
        self.search_path = list(search_path)
        self.preprocessing = Preprocessing(defines, undefines, self.search_path, cpp, form)
        self.extra_files = list(extra_files)
        self.adjoint_libraries = list(adjoint_libraries)
        self.passive_routines = list(passive_routines)
        self.tape_sizes = {}
        #: the :class:`adfort.reading.ReadPlan` for the files apply() reads
        #: (None: read them whole).
        self.plan = None
        #: the module of the tapes of routines outside any module (None:
        #: named after the differentiated routine); several heads share one.
        self.tape_module = None

    def validate(self, container, routine_name=None, dependent_vars=(),
                 independent_vars=(), reversal_schedule=None, options=None):
        """Check the request's types and options.

        The fence over the routines runs in :meth:`apply`, once the call
        graph is known, before anything is generated.

        :raises AdfortError: for anything adfort cannot do, with its place.
        :raises TypeError: for arguments of the wrong Python type.
        """
        super().validate(container)
        if not isinstance(routine_name, str):
            raise TypeError(f"routine_name must be a str, not {type(routine_name).__name__}")
        for label, names in (("dependent_vars", dependent_vars),
                             ("independent_vars", independent_vars)):
            if isinstance(names, str) or not all(isinstance(n, str) for n in names):
                raise TypeError(f"{label} must be a list of str")
        if not isinstance(reversal_schedule, ADReversalSchedule):
            raise TypeError("reversal_schedule must be an ADReversalSchedule "
                            "(SplitReversalSchedule(), JointReversalSchedule()…)")
        try:
            checked_options(options)
        except ValueError as err:
            raise AdfortError(str(err)) from None
        find_routine(container, routine_name)

    @room_for_deep_trees
    def apply(self, container, routine_name, dependent_vars, independent_vars,
              reversal_schedule, options=None):
        """Differentiate `routine_name` with respect to `independent_vars`.

        :param container: the (File)Container read from the source.
        :param str routine_name: the routine to differentiate.
        :param dependent_vars: names of the dependent variables (an argument,
            or ``module::variable``).
        :param independent_vars: names of the independent variables.
        :param reversal_schedule: an :class:`ADReversalSchedule`.
        :param options: dict of options: ``jacobian``, ``verbose``,
            ``simplify``, ``simplify_n_times``, ``inline_operation_adjoints``.
        :returns: a new FileContainer with the generated routines.
        """
        self.validate(container, routine_name, dependent_vars, independent_vars,
                      reversal_schedule, options)
        options = checked_options(options)
        filename = source_name(container)
        program = Program([container], self.search_path, self.passive_routines,
                          self.preprocessing, self.plan)
        for path in self.extra_files:
            program.add_file(path)
        root = find_routine(container, routine_name)
        # The steps of checkpointed loops are reversed split.
        reversal_schedule = with_checkpoint_steps(reversal_schedule, program.trees)
        dependents = list(dependent_vars)
        independents = list(independent_vars)
        arg_deps = [d for d in dependents if not _is_global(d)]
        arg_indeps = [i for i in independents if not _is_global(i)]
        check_arguments(root, arg_deps, arg_indeps, filename,
                        allow_empty=len(arg_deps) < len(dependents)
                        or len(arg_indeps) < len(independents),
                        types=TypeRegistry(program))
        build = self.build_class(program, root, dependents, independents,
                              reversal_schedule, options, filename,
                              _user_adjoints(self.adjoint_libraries,
                                             self.preprocessing))
        build.tape_module = self.tape_module
        result = build.run()
        self.tape_sizes = build.tape_sizes
        return result


def _flatten_scopes(routine):
    """Move the symbols PSyclone declares in inner scopes (the loop indices
    of a lowered WHERE inside a loop or an IF) to the routine's own table:
    the generated routines rebuild every block and keep only that one."""
    table = routine.symbol_table
    for scope in routine.walk(ScopingNode):
        if scope is routine:
            continue
        inner = scope.symbol_table
        for symbol in list(inner.symbols):
            inner._symbols.pop(inner._normalize(symbol.name))
            if symbol.name.lower() in table:
                symbol._name = naming.unique(table, symbol.name)
            table.add(symbol)


def _resolve_module_references(unit, node=None):
    """Point the references to module variables a routine sees through a
    wildcard ``use`` (unresolved symbols in its table) at their declared
    symbols, so that their types and shapes are known.

    :param node: where to look (default: the whole routine)."""
    node = unit.work if node is None else node
    for call in node.walk(Call):
        # PSyclone reads ``a(i)`` with `a` from a wildcard use as a call.
        if isinstance(call, IntrinsicCall) or unit.calls.get(id(call)) is not None:
            continue
        found = unit.module_variable(call.routine.name)
        if found is not None and isinstance(found[1], DataSymbol) and \
                isinstance(found[1].datatype, ArrayType) and not any(call.argument_names):
            call.replace_with(ArrayReference.create(
                unit.seen_as(call.routine.name, found),
                [a.detach() for a in list(call.arguments)]))
    for ref in node.walk(Reference):
        symbol = ref.symbol
        if isinstance(symbol, DataSymbol) and not symbol.is_unresolved:
            continue
        if isinstance(ref.parent, Call) and ref is ref.parent.routine:
            continue
        found = unit.module_variable(symbol.name)
        if found is not None and isinstance(found[1], DataSymbol):
            ref.symbol = unit.seen_as(symbol.name, found)


def _local_name(name):
    """The variable part of ``module::variable`` (a name as it is)."""
    return name.split("::", 1)[1].strip() if "::" in name else name


def _is_global(name):
    """Whether a dependent/independent names a module variable
    (``module::variable``) or a COMMON member (``/block/member``)."""
    return "::" in name or name.strip().startswith("/")


class _ProgramBuild:
    """One differentiation of a routine and its callees."""

    #: keyword arguments of :func:`adfort.fence.check_routine`
    fence_options = {}

    def __init__(self, program, root, dependents, independents, schedule, options,
                 filename, user_adjoints=None):
        self.user_adjoints = user_adjoints or {}
        self._opaque_units = {}
        self.opaque = []
        self.module_adjoint_symbols = {}  # (module, name) -> adjoint DataSymbol
        self.program = program
        self.types = TypeRegistry(program)
        self.root = root
        self.dependents = dependents
        self.independents = independents
        self.schedule = schedule
        self.options = options
        self.filename = filename
        self.tape_sizes = {}

    # -- analysis ------------------------------------------------------
    def run(self):
        order, targets, self.passive_targets = call_graph(self.program, self.root,
                                                          self.filename)
        self._check_links(order, targets)
        self.units = {}
        for routine in order:
            module = enclosing_module(routine)
            table = routine.symbol_table
            dummy = next((a for a in table.argument_list if isinstance(
                table.lookup(a.name, otherwise=a, scope_limit=routine), RoutineSymbol)),
                None)
            if dummy is not None:
                raise AdfortError(
                    f"'{routine.name}' takes the routine '{dummy.name}' passed as an "
                    "argument (a dummy procedure): "
                    "adfort differentiates a copy of such a routine for each external "
                    "routine a caller in its own scope passes by name (EXTERNAL "
                    "dummies; see the README); here it cannot know which routine runs",
                    where(routine, source_name(routine) or self.filename))
            work = routine.copy()
            # Modules are keyed by lower-case name: Fortran names are
            # case-insensitive.
            unit = Unit(work, routine, module.name.lower() if module else None,
                        self.program)
            originals = user_calls(routine)
            copies = user_calls(work)
            for original, copy in zip(originals, copies):
                callee = targets.get(id(original))
                if id(original) in self.passive_targets:
                    unit.calls[id(copy)] = None
                    unit.passive[id(copy)] = self.passive_targets[id(original)]
                elif callee is None:
                    unit.calls[id(copy)] = self._opaque(copy.routine.name)
                else:
                    unit.calls[id(copy)] = self.units.get(id(callee))
            self.units[id(routine)] = unit
        self.order = [self.units[id(r)] for r in order]
        for unit in reversed(self.order):
            # The differentiated routine first: its COMMON members' names are
            # the canonical ones.
            self.program.commons.canonicalise(
                unit.work, where(unit.original, source_name(unit.original) or self.filename))
        self.opaque = list(self._opaque_units.values())
        self.top = self.units[id(self.root)]
        self.dependents = [self._common_name(n) for n in self.dependents]
        self.independents = [self._common_name(n) for n in self.independents]
        for unit in self.order:
            _flatten_scopes(unit.work)
            self.types.resolve_routine(unit.work, unit.original)
            unit.attributes = lower_declarations(unit.work)
            _resolve_module_references(unit)
            # A WHERE on module arrays: their shapes are known only now.  The
            # fence reads the routine as read, the transformations the copy.
            for routine in (unit.original, unit.work):
                lower_where(routine, lambda node, unit=unit: (
                    recognise_intrinsics(unit.original.root, node, self._module_scan()),
                    _resolve_module_references(unit, node)))
            taken = self._taken(unit)
            rename_shadowing_locals(unit.work, taken)
            normalise_jumps(unit.work, taken)
            hoist_self_subscripts(unit.work, taken)
            deallocate_at_end(unit.work)
            initialise_intent_out(unit.work, taken,
                                  source_name(unit.original) or self.filename)
            positional_arguments(unit.work, unit.calls,
                                 source_name(unit.original) or self.filename)
            hoist_case_selectors(unit.work, self._function_type(unit), unit.calls, taken)
            hoist_calls(unit.work, self._function_type(unit), unit.calls, taken,
                        source_name(unit.original) or self.filename, set(unit.attributes))
            if self.options.get("inline", True):
                inline_functions(unit, taken, self.schedule)
            # Coefficients read from the copy of the state a solver overwrites.
            forward_copies(unit)
        # Dependents that come in with a value count as independents too:
        # their adjoints return the sensitivity to that value.
        self.activity = Activity(
            self.order + self.opaque, self._keys(self.dependents),
            self._keys(self._top_independents() + [
                n for n in self.independents + self.dependents if "::" in n]))
        # Components of derived types no value of which varies (a grid's
        # spacing in an active state): no adjoint terms for them.
        if self.options.get("passive_components", True):
            self.types.passive_components = PassiveComponents(self.order, self._seeds())
        for unit in self.order:
            check_renamed_active(unit, self.activity, source_name(unit.original) or self.filename)
            check_polymorphic_dummies(unit, self.activity,
                                      source_name(unit.original) or self.filename)
            check_component_allocations(unit, self.activity,
                                        source_name(unit.original) or self.filename)
        self.chosen = self._differentiated()
        # Before generation empties the working copies.
        own = {}    # id(unit): its own accesses, found once for all the callers
        self.access = {id(u): self._module_access(u, own=own)
                       for u in self.order + self.opaque}
        for unit in self.order:
            for formal in unit.formals:
                unit.writes_formal(formal)
        for key in self._keys([n for n in self.dependents + self.independents if "::" in n]):
            # The user seeds and reads these, whether or not code uses them.
            self._module_adjoint(key[1], key[2])
        self._split_sequence_calls()
        self._fence()
        for unit in self.order:
            # What the callers' analyses ask of a callee, once its body is
            # known to hold only what adfort differentiates.
            for formal in unit.formals:
                unit.reads_on_entry(formal)
                if symbol_rank(formal) > 0:
                    formal_sections(unit, formal)
                    sets_every_element(unit, formal)
            for name in sorted(self.access[id(unit)][1]):
                global_sections(unit, name)
            cheap_function(unit)
        with timing.phase("transform"):
            return self._generate()

    def _split_sequence_calls(self):
        """Reverse split the calls given an element of an assumed-size
        array as the start of an array dummy (LINPACK's ``daxpy(…, b(k+1),
        1)``), whatever the schedule: joint would have to save the elements
        the callee changes before the call, and how many there are is known
        only after it (the callee measures it, :mod:`adfort.extents`)."""
        links = set()
        for unit in self.chosen:
            for call in user_calls(unit.work):
                callee = unit.calls.get(id(call))
                if callee is None or callee not in self.chosen or \
                        self.schedule.is_split(unit.name, callee.name):
                    continue
                for position in self._sequence_positions(unit, call, callee):
                    actual = call.arguments[position]
                    if is_assumed_size(actual.symbol):
                        links.add((unit.name, callee.name))
        if links:
            self.schedule = LinkReversalSchedule(strong_links=links, default=self.schedule)

    def _check_links(self, order, targets):
        """Every --link must name a call that exists: a typo would otherwise
        silently fall back to the default schedule."""
        links = getattr(self.schedule, "strong_links", set()) | \
            getattr(self.schedule, "weak_links", set())
        if not links:
            return
        edges = set()
        for routine in order:
            for call in user_calls(routine):
                # A callee imported under another name is linked by its own.
                callee = targets.get(id(call))
                name = callee.name if callee is not None else call.routine.name
                edges.add((routine.name.lower(), name.lower()))
        unknown = sorted(links - edges)
        if unknown:
            listing = ", ".join(f"{a}:{b}" for a, b in sorted(edges)) or "none"
            raise AdfortError(
                f"--link {', '.join(f'{a}:{b}' for a, b in unknown)} names no call of the "
                f"differentiated routines (calls: {listing})", self.filename)

    def _common_name(self, name):
        """``/block/member`` as the module variable ``<block>_common::member``
        of the block's layout module (the member named as the differentiated
        routine declares it, or by its canonical name); other names as given."""
        if not name.startswith("/"):
            return name
        block, _, member = name[1:].partition("/")
        block, member = block.strip().lower(), member.strip().lower()
        known = self.program.commons.blocks.get(block)
        if known is None:
            raise AdfortError(f"'{name}': no COMMON block /{block}/ in the routines "
                              "differentiated", self.filename)
        if member not in known.names:
            # Named as one of the routines declares it: the same position.
            for unit in reversed(self.order):
                table = unit.original.symbol_table
                for statement in common_statements(table):
                    for found, members in parse_common(statement.datatype.declaration):
                        if found == block and member in members:
                            member = known.names[members.index(member)]
        if member not in known.names:
            raise AdfortError(f"'{name}': COMMON /{block}/ has no member '{member}' "
                              f"(members: {', '.join(known.names)})", self.filename)
        return f"{known.module_name}::{member}"

    def _opaque(self, name):
        """The stand-in for a routine without source with a user adjoint."""
        key = name.lower()
        if key not in self.user_adjoints:
            return None
        if key not in self._opaque_units:
            rev, stub, active = self.user_adjoints[key]
            unit = Unit(stub, stub, None, self.program)
            unit.opaque = True
            unit.user_adjoint = rev
            unit.user_active = active
            self._opaque_units[key] = unit
        return self._opaque_units[key]

    def _seeds(self):
        """The symbols of the dependents and independents (module variables
        included)."""
        seeds = []
        for name in self.dependents + self.independents:
            if "::" in name:
                module, variable = (part.strip().lower() for part in name.split("::", 1))
                found = self.program.module(module)
                seeds.append(found.symbol_table.lookup(variable, otherwise=None,
                                                       scope_limit=found) if found else None)
            else:
                seeds.append(self.top.work.symbol_table.lookup(name, otherwise=None))
        return seeds

    def _keys(self, names):
        keys = []
        for name in names:
            if "::" in name:
                module, variable = (part.strip().lower() for part in name.split("::", 1))
                found = self.program.module(module)
                symbol = found.symbol_table.lookup(variable, otherwise=None, scope_limit=found) \
                    if found is not None else None
                if symbol is None or not isinstance(symbol, DataSymbol):
                    raise AdfortError(f"no module variable '{name}' (module "
                                      f"'{module}' {'has no such variable' if found else 'not found: add its file or a -I path'})",
                                      self.filename)
                if not is_real(symbol):
                    raise AdfortError(f"module variable '{name}' is not real: only real "
                                      "variables can be differentiated", self.filename)
                keys.append(("module", module, variable))
            else:
                keys.append(self.top.key(self.top.work.symbol_table.lookup(name)))
        return keys

    def _function_type(self, unit):
        types = {}

        def function_type(call):
            callee = unit.calls.get(id(call))
            if callee is None or callee.result is None:
                return None
            if id(callee) not in types:
                # Temporaries of `unit` are declared with it: with a kind
                # `unit` can name (not one local to the function).
                types[id(callee)] = nameable_type(
                    unit.work.symbol_table, callee.result.datatype, callee.module_variable,
                    unit.module_variable, self._taken(unit))
            return types[id(callee)]
        return function_type

    def _module_scan(self):
        """``module_scan(name)`` of the run's read plan (the modules of
        other files, :mod:`adfort.procedure_names`), or None."""
        plan = self.program.plan
        return plan.module_scan if plan is not None else None

    def _taken(self, unit):
        module = self.program.modules().get(unit.module) if unit.module else None
        scope = module if module is not None else unit.original.root
        taken = {s.name for s in scope.symbol_table.symbols}
        taken |= {r.name for r in unit.original.root.walk(Routine)}
        # Routines of the file adfort did not need to read still own their names.
        taken |= getattr(unit.original.root, "adfort_dropped", set())
        return taken

    def _fence(self):
        for unit in self.order:
            check_mpi_modules(unit.original, source_name(unit.original) or self.filename)
        for unit in self.chosen:
            active = self.activity.active_locals(unit) | {
                name for _, name in self.activity.active_modules()}
            filename = source_name(unit.original) or self.filename
            try:
                check_routine(unit.original, [], [], filename, active=active,
                              callee=unit is not self.top, types=self.types,
                              resolve=unit.module_variable, **self.fence_options)
            except AdfortError as err:
                missing = self._missing_modules(unit)
                for module in missing:
                    # In a file read, but PSyclone could not represent it
                    # (EQUIVALENCE in KPP's kpp_Global): say why.
                    unreadable = self.program.unreadable(module)
                    if unreadable is not None and "is unknown" in err.message:
                        raise unreadable from None
                if missing and "is unknown" in err.message:
                    err.message += (f"; module {', '.join(missing)} was not found: give "
                                    "its file after the main file or its directory with -I")
                raise
            check_protected_writes(unit.original, self._protected(), filename)
            check_value_dummies(unit.original, self._by_value(unit.original.name), filename,
                                self._reads_only)
            if unit is self.top:
                check_active_workspaces(unit.original, self.dependents, self.independents,
                                        active, filename)
            _check_private_variables(unit, filename)
            self._check_where_functions(unit, filename)
            for call in user_calls(unit.work):
                callee = unit.calls.get(id(call))
                if callee is not None:
                    formals = matched_formals(call, callee_formals(callee))
                    for actual, formal in zip(call.arguments, formals):
                        if formal is not None and expr_rank(actual) > symbol_rank(formal) \
                                and symbol_rank(formal) > 0 and is_variable(actual) \
                                and type(actual) is Reference:
                            # A whole array given to an array dummy of lower
                            # rank (F77 sequence association: y(n, m) to
                            # b(n*m)): its first element starts the dummy.
                            first = ArrayReference.create(actual.symbol, [
                                _lower_bound(actual.symbol, d)
                                for d in range(len(actual.symbol.datatype.shape))])
                            actual.replace_with(first)
                            continue
                        if formal is not None and expr_rank(actual) > symbol_rank(formal):
                            raise AdfortError(
                                f"'{call.routine.name}' is called elementally on the array "
                                f"'{actual.debug_string()}': write the loop over its "
                                "elements explicitly", where(call, filename))
        self._fence_reversal()
        communicating = MPI_NODE in self.activity.active
        for unit in self.order:
            filename = source_name(unit.original) or self.filename
            for call in user_calls(unit.work):
                if unit.calls.get(id(call)) is None and is_mpi_name(call.routine.name) \
                        and not self.program.is_passive(call.routine.name):
                    self._check_mpi_call(call, filename, communicating)
                    continue
                if unknown_call_node(call) in self.activity.active:
                    name = call.routine.name
                    unreadable = self.program.unreadable(name)
                    if unreadable is not None and not self.program.is_passive(name):
                        raise unreadable
                    raise AdfortError(
                        f"'{name}' has no source adfort can see and derivatives flow "
                        "through this call: add its file (or a -I path to its module) so "
                        "that adfort can differentiate it, give its adjoint with "
                        f"--adjoint-lib, or, if no derivative flows through it, declare "
                        f"it passive (--passive {name}, or '!$adfort passive' before the "
                        "call)", where(call, filename))

    def _check_mpi_call(self, call, filename, communicating):
        """Reject an MPI call whose communication adfort cannot
        differentiate (:func:`adfort.mpi_analysis.check_mpi_call`)."""
        check_mpi_call(call, filename, communicating)

    def _fence_reversal(self):
        """What only reversal cannot do: run a routine twice when its inputs
        or saved state change in between."""
        check_carried_state(self.chosen, self.activity, self.filename)
        check_repeated_input(self.top, self.chosen, self.schedule,
                             self.options.get("jacobian"), self.filename)
        why = {}
        twice = run_twice(self.top, self.chosen, self.schedule, self.options.get("jacobian"),
                          why)
        check_saved_state(self.chosen, twice, self.filename, self.options.get("jacobian"), why)

    def _check_where_functions(self, unit, filename):
        """A WHERE assignment to a module array calling a function that reads
        that array through its module (``h = 0.1 + fsat(h)``, ``fsat``
        reading ``h(1)``): the standard evaluates the whole right-hand side
        first, gfortran reads the elements assigned before; no adjoint can
        match the compiled code.

        :raises AdfortError: at the assignment.
        """
        for assign in unit.original.walk(Assignment):
            target = assign.lhs.symbol.name.lower()
            for call in getattr(assign, "adfort_where_functions", ()):
                callee = self.program.resolve(call) if call.root is unit.original.root \
                    else None
                if callee is not None and unit.module_variable(target) \
                        and _reads_global(callee, target):
                    raise AdfortError(
                        f"this WHERE assignment to '{target}' calls '{callee.name}', which "
                        f"reads '{target}' through its module: compilers disagree on the "
                        "values it sees (the standard evaluates the right-hand side before "
                        "any element is assigned, gfortran after the elements before it "
                        "are), so no adjoint can match the compiled code; store the "
                        "function's values in an array before the WHERE and use that",
                        where(assign, filename))

    def _protected(self):
        """Lower-case names of the PROTECTED variables of the files read."""
        names = set()
        for tree in self.program.trees:
            names |= getattr(tree, "adfort_protected", set())
        return names

    def _by_value(self, routine):
        """Lower-case names of the VALUE dummies of routine `routine`."""
        name = routine.lower()
        return {dummy for tree in self.program.trees
                for owner, dummy in getattr(tree, "adfort_by_value", set()) if owner == name}

    def _reads_only(self, call, position):
        """Whether the dummy actual argument `position` of `call` goes to is
        only read: INTENT(IN) or VALUE (False: no source)."""
        callee = self.program.resolve(call)
        if callee is None:
            return False
        formals = list(callee.symbol_table.argument_list)
        name = call.argument_names[position]
        formal = next((f for f in formals if f.name.lower() == name.lower()), None) if name \
            else (formals[position] if position < len(formals) else None)
        if formal is None:
            return False
        access = getattr(formal.interface, "access", None)
        return getattr(access, "name", None) == "READ" or \
            formal.name.lower() in self._by_value(callee.name)

    def _missing_modules(self, unit):
        """Names of the modules `unit` uses that no file provides."""
        missing, scope = [], unit.original
        while scope is not None:
            table = getattr(scope, "_symbol_table", None)
            if table is not None:
                for container in table.containersymbols:
                    if self.program.module(container.name) is None:
                        missing.append(container.name)
            scope = scope.parent
        return sorted(set(missing))

    # -- generation ------------------------------------------------------
    def _differentiated(self):
        """Units whose motions are generated: the root, and callees through
        which derivatives flow."""
        chosen = []
        active_modules = {name for _, name in self.activity.active_modules()}
        called = {id(c) for u in self.order for c in u.calls.values() if c is not None}
        for unit in self.order:
            if unit is not self.top and id(unit) not in called:
                continue   # every call of it inlined (adfort.inlining)
            uses_active_module = any(
                ref.symbol.name.lower() in active_modules and not unit.owns(ref.symbol)
                for ref in unit.work.walk(Reference))
            if unit is self.top or self._active_formals(unit) or \
                    self.activity.active_locals(unit) or uses_active_module:
                chosen.append(unit)
        # A chosen routine's callers must be chosen too, to call its motions.
        changed = True
        while changed:
            changed = False
            for unit in self.order:
                if unit not in chosen and any(c in chosen for c in unit.calls.values()):
                    chosen.append(unit)
                    changed = True
        return [u for u in self.order if u in chosen]

    #: The name of a variable's derivative (its adjoint; a tangent build's
    #: is its tangent).
    derivative_name = staticmethod(naming.adjoint)

    def host_key(self, module):
        """The key of the host (generated module) of the routines and
        variables of module `module` (None: outside any module)."""
        return module

    def _module_adjoint(self, module, name):
        """The derivative DataSymbol of module variable `module::name`."""
        key = (self.host_key(module), name)
        if key not in self.module_adjoint_symbols:
            symbol = self.program.module(module).symbol_table.lookup(name)
            if is_derived(symbol.datatype):
                raise AdfortError(
                    f"the module variable '{module}::{name}' is of a derived type and "
                    "carries derivatives: not supported yet; pass it as an argument",
                    where(self.program.module(module), self.filename))
            planned = self._derivative_plan().get((module, name))
            self.module_adjoint_symbols[key] = DataSymbol(
                planned or self.derivative_name(symbol.name), symbol.datatype.copy())
        return self.module_adjoint_symbols[key]

    def _module_uses(self, unit):
        """(module, lower-case name) of the module variables and COMMON
        members `unit` refers to (found once, before generation)."""
        found = set()
        for ref in unit.work.walk(Reference):
            if unit.owns(ref.symbol):
                continue
            resolved = unit.module_variable(ref.symbol.name)
            if resolved is not None:
                found.add((resolved[0], resolved[1].name.lower()))
        return found

    def _derivative_plan(self):
        """{(module, name): the name of the derivative of active module
        variable (or COMMON member) `module::name`}, chosen once for all.

        Such a derivative is a variable of the generated module, seen by
        host association in its routines and imported by name elsewhere,
        so its name must be free among the names of the user's modules
        (the generated modules use them whole), the external routines, the
        generated routines, and the variables of the routines that use it
        (and of the top routine, which zeroes them all): a local of theirs
        would hide it.  An internal one is renamed (``coef_adj_1``); one
        the user seeds or reads (named with --dep/--indep) keeps the name
        the calling convention gives it, and a clash is an error.
        """
        if getattr(self, "_planned_derivatives", None) is not None:
            return self._planned_derivatives
        roles = {tuple(part.strip().lower() for part in n.split("::", 1))
                 for n in self.dependents + self.independents if "::" in n}
        keys = sorted(set(self.activity.active_modules()) | roles)
        self._uses = {id(unit): self._module_uses(unit) for unit in self.order}
        users = {}
        for unit in self.order:
            for key in self._uses[id(unit)]:
                users.setdefault(key, []).append(unit)
        outer = set(self.program.externals())
        for tree in self.program.trees:
            for node in tree.children:
                if isinstance(node, Container) and not isinstance(node, FileContainer):
                    outer.add(node.name.lower())
                    outer |= {s.name.lower() for s in node.symbol_table.symbols}
        for unit in self.order:
            outer |= {unit.name.lower(), naming.recording(unit.name).lower(),
                      naming.returning(unit.name).lower(),
                      naming.reversing(unit.name).lower(),
                      naming.returning_given(unit.name).lower()}
        plan = {}
        for module, name in keys:
            found = self.program.module(module)
            symbol = found.symbol_table.lookup(name, otherwise=None, scope_limit=found) \
                if found is not None else None
            if symbol is None:
                continue
            base = self.derivative_name(symbol.name)
            scopes = [self.top] + [u for u in users.get((module, name), [])
                                   if u is not self.top]
            if (module, name) in roles:
                self._check_fixed_derivative(module, symbol, base, scopes, found)
                plan[(module, name)] = base
                continue
            taken = set(outer)
            for unit in scopes:
                taken |= {s.name.lower() for s in unit.work.symbol_table.symbols}
            plan[(module, name)] = naming.unique_name(base, taken)
        self._planned_derivatives = plan
        return plan

    def _check_fixed_derivative(self, module, symbol, base, scopes, found):
        """The derivative `base` of `module::symbol`, a dependent or an
        independent, has the name the calling convention gives it: an
        error when that name is too long, or taken where it is seen."""
        common = getattr(getattr(found, "root", None), "adfort_synthetic", False)
        member = f"COMMON member '{symbol.name}'" if common else \
            f"module variable '{module}::{symbol.name}'"
        location = where(self.top.original, source_name(self.top.original) or self.filename) \
            if common else where_module(found, self.filename)
        out = self.module_output_name(module)
        suffix = len(base) - len(symbol.name)
        if len(base) > naming.MAX_NAME_LENGTH:
            raise AdfortError(
                f"the {member} ({len(symbol.name)} characters) is a dependent or "
                f"independent, and its derivative '{base}' in module '{out}' would have "
                f"{len(base)} characters, Fortran allows {naming.MAX_NAME_LENGTH}: rename "
                f"'{symbol.name}' to at most {naming.MAX_NAME_LENGTH - suffix} characters",
                location)
        for unit in scopes:
            own = unit.work.symbol_table.lookup(base, otherwise=None, scope_limit=unit.work)
            if own is not None and not own.is_import:
                raise AdfortError(
                    f"'{unit.name}' has a variable '{own.name}', the name the calling "
                    f"convention gives the derivative of the {member} (a dependent or "
                    f"independent), declared in the generated module '{out}': it would hide "
                    f"that derivative; rename the variable '{own.name}' of '{unit.name}'",
                    where(unit.original, source_name(unit.original) or self.filename))
        if not common:
            clash = found.symbol_table.lookup(base, otherwise=None, scope_limit=found)
            if clash is not None:
                raise AdfortError(
                    f"module '{found.name}' has '{clash.name}', the name the calling "
                    f"convention gives the derivative of its variable '{symbol.name}' (a "
                    f"dependent or independent), declared in the generated module '{out}', "
                    f"which uses '{found.name}': rename '{clash.name}'", location)

    def visible_derivative_names(self, unit):
        """Lower-case names of the derivatives of active module variables
        `unit`'s generated routines see (all of them for the top routine):
        no generated local of theirs may take one."""
        plan = self._derivative_plan()
        if unit is self.top:
            return {n.lower() for n in plan.values()}
        uses = self._uses.get(id(unit), set())
        return {n.lower() for key, n in plan.items() if key in uses}

    def _top_module_derivative(self, unit, module, name, held):
        """The derivative symbol of active module variable `module::name` in
        the top routine `unit`, recorded in `held` ({name: symbol}); an error
        if another module's variable or `unit`'s own takes the name."""
        symbol = self._module_adjoint(module, name)
        own = unit.work.symbol_table.lookup(name, otherwise=None, scope_limit=unit.work)
        if held.setdefault(name, symbol) is not symbol:
            other = next((m for (m, n), s in self.module_adjoint_symbols.items()
                          if n == name and s is held[name]), "another module")
            raise AdfortError(
                f"the module variables '{other}::{name}' and '{module}::{name}' both carry "
                f"derivatives in routines '{unit.name}' calls: adfort cannot yet hold two "
                f"adjoints named '{naming.adjoint(name)}' in one routine; rename one of the "
                "variables",
                where(unit.original, self.filename))
        if own is not None and unit.owns(own):
            raise AdfortError(
                f"the module variable '{module}::{name}' carries derivatives in routines "
                f"'{unit.name}' calls, but '{unit.name}' has its own '{name}': rename one "
                "of them", where(unit.original, self.filename))
        return symbol

    def module_output_name(self, module):
        """The generated module's name for module `module` (any case), spelt
        after the original's declaration."""
        found = self.program.module(module)
        return naming.module(found.name if found is not None else module)

    @staticmethod
    def _module_names(names):
        return [n.split("::", 1)[1].strip().lower() for n in names if "::" in n]

    def _module_roles(self):
        return set(self._module_names(self.dependents + self.independents))

    def _top_independents(self):
        """The arguments whose input values the gradient is taken for: the
        independents, and the dependents that come in with a value
        (``intent(inout)``): the adjoint of such a dependent returns the
        whole sensitivity of the seeded outputs to its input value."""
        names = [i for i in self.independents if "::" not in i]
        table = self.top.work.symbol_table
        for name in self.dependents:
            if "::" in name or name.lower() in {n.lower() for n in names}:
                continue
            symbol = table.lookup(name)
            if symbol is self.top.result:
                continue  # a function's result comes in with no value
            if symbol.interface.access != ArgumentInterface.Access.WRITE:
                names.append(name)
        return names

    def _active_formals(self, unit):
        names = [f.name.lower() for f in unit.formals
                 if f is not unit.result and self.activity.is_active(unit, f)]
        if unit.result is not None and self.activity.result_active(unit):
            names.append(unit.result.name.lower())
        return names

    def _generate(self):
        chosen = self.chosen
        single = len(self.order) == 1
        hosts = {}
        motions_of = {}
        self._motions = {}
        for unit in self.opaque:
            motions_of[id(unit)] = CalleeMotions(unit, {"rev": unit.user_adjoint.name},
                                                 unit.user_active, opaque=True)
        # Calls r_rev leaves to their reversal, and the callees whose f_rev
        # must then deliver their results too (adfort.deferral).
        deferrable = {}
        if self.top in chosen:
            deferrable = deferrable_calls(
                self.top, chosen, lambda c: self.schedule.is_split(self.top.name, c.name),
                # (nor a callee changing SAVE'd state, its own or its callees':
                # f_rev keeps a copy of its own, which its returning part
                # may roll back, as f_rec's is not)
                lambda c: self.access[id(c)][1] or (
                    c is not self.top and self._changes_saved_state(c)),
                self.top.attributes)
        keep_outputs = {id(callee) for callee, _, _ in deferrable.values()}
        communicating = MPI_NODE in self.activity.active
        tapeless = {}   # id(unit): whether its recording pushes nothing
        for unit in chosen:
            host = hosts.setdefault(unit.module, Host(unit.module, self))
            callee_motions = {}
            call_io, clears, restores, after = {}, {}, {}, set()
            sequences = {}
            filename = source_name(unit.original) or self.filename
            links = set() if communicating or not self.options.get("split_tapeless", True) else \
                tapeless_links(unit, chosen, self.schedule, tapeless, self.top, motions_of)
            links |= measured_links(unit, chosen, self.schedule)
            if links:
                self.schedule = LinkReversalSchedule(strong_links=links, default=self.schedule)
            mpi_pairs = pair_requests(
                unit.work, lambda actual, unit=unit: communicating and is_variable(actual)
                and self.activity.is_active(unit, actual.symbol), filename)
            for stmt_call in user_calls(unit.work):
                callee = unit.calls.get(id(stmt_call))
                callee_motions[id(stmt_call)] = motions_of.get(id(callee)) if callee else None
                key = id(_call_statement(stmt_call))
                if callee is None and mpi_call_rule(stmt_call) is not None \
                        and not self.program.is_passive(stmt_call.routine.name):
                    sequences[key] = sequence_positions(stmt_call)
                    clears[key] = []
                    call_io[key] = mpi_io(stmt_call, mpi_pairs)
                    restores[key] = set()
                    continue
                sequences[key] = self._sequence_positions(unit, stmt_call, callee)
                clears[key] = self._passive_outputs(unit, stmt_call, callee)
                call_io[key] = self._call_io(unit, stmt_call, callee, clears[key],
                                             self._motions.get(id(callee)))
                restores[key] = self._call_restores(unit, stmt_call, callee,
                                                    self._motions.get(id(callee)))
                if self._returns_split(unit, callee):
                    after.add(key)
            names = host.names(unit)
            module_adjoints = host.module_adjoints(unit)
            if unit is self.top:
                dependents = [d for d in self.dependents if "::" not in d]
                independents = [i for i in self.independents if "::" not in i]
                # Every active module variable's adjoint, used here or only
                # in callees: the user's when a role, else zeroed first.
                for module, name in sorted(self.activity.active_modules()):
                    self._top_module_derivative(unit, module, name, module_adjoints)
            else:
                dependents = independents = self._active_formals(unit)
            deferred = {}
            if unit is self.top:
                for key, (callee, outputs, targets) in deferrable.items():
                    motions = self._motions.get(id(callee))
                    if motions is not None and outputs <= motions.rev_outputs:
                        deferred[key] = targets
            spec = UnitSpec(
                dependents, independents,
                active=self.activity.active_locals(unit),
                module_adjoints=module_adjoints,
                calls=callee_motions, call_io=call_io, call_clears=clears,
                call_restores=restores, call_reads_after=after, call_sequences=sequences,
                tapes=None if single else host.tapes(unit),
                schedule=self.schedule, callee=unit is not self.top,
                module_dependents=self._module_names(self.dependents),
                module_independents=self._module_names(
                    self.independents + self.dependents),
                module_variable=unit.module_variable, types=self.types,
                attributes=unit.attributes,
                jacobian_dependents=[_local_name(n) for n in self.dependents],
                jacobian_independents=[_local_name(n) for n in self.independents],
                rev_outputs=id(unit) in keep_outputs, deferred=deferred)
            spec.mpi_pairs = mpi_pairs
            motions = reverse_work(unit.work, spec, self.options, names,
                                   source_name(unit.original) or self.filename)
            host.add(unit, motions)
            self._motions[id(unit)] = motions
            tapeless[id(unit)] = not records_tape(motions, [
                callee for callee in unit.calls.values() if self._returns_split(unit, callee)],
                tapeless)
            motions_of[id(unit)] = CalleeMotions(unit, names, self._active_formals(unit),
                                                 self.access[id(unit)][1], motions=motions)
            motions_of[id(unit)].tapeless = tapeless[id(unit)]
            self.tape_sizes.update(motions.tape_sizes)
        output = assemble(hosts, self)
        for unit in self.order:
            motions = self._motions.get(id(unit))
            for routine in motions.routines if motions is not None else ():
                check_no_hidden_intrinsics(routine, where(
                    unit.original, source_name(unit.original) or self.filename),
                    lambda call: self.program.hides_intrinsic(call, self._module_scan()))
        return output

    def _passive_outputs(self, unit, call, callee):
        """The actual arguments (and function result target) active in
        `unit` that the call overwrites with values carrying no derivative
        (the callee's formal is ``intent(out)`` and passive, or the callee
        is passive): their adjoints are cleared where the call is reversed.
        """
        if callee is None:
            return self._declared_passive_outputs(unit, call)
        if getattr(callee, "opaque", False):
            active = set(callee.user_active)
        else:
            active = set(self._active_formals(callee)) if callee in self.chosen else set()
        found = []
        formals = matched_formals(call, callee_formals(callee))
        for actual, formal in zip(call.arguments, formals):
            if (is_variable(actual) and formal is not None
                    and formal.interface.access == ArgumentInterface.Access.WRITE
                    and formal.name.lower() not in active
                    and self.activity.is_active(unit, actual.symbol)):
                found.append(self._check_sequence_cleared(
                    unit, call, actual, formal, callee.name, formals, callee.writes_formal))
        statement = _call_statement(call)
        if (statement is not call and callee.result is not None
                and callee.result.name.lower() not in active
                and self.activity.is_active(unit, statement.lhs.symbol)):
            found.append(statement.lhs)
        return found

    def _declared_passive_outputs(self, unit, call):
        """The active actuals a call to a routine declared passive writes
        (known from its source: ``intent(out)`` or assigned), whose values
        then carry no derivative."""
        routine = unit.passive.get(id(call))
        if routine is None:
            return self._sourceless_passive_outputs(unit, call)
        assigned = {a.lhs.symbol.name.lower() for a in routine.walk(Assignment)}
        found = []
        formals = matched_formals(call, routine.symbol_table.argument_list)

        def may_write(formal):
            return formal.interface.access != ArgumentInterface.Access.READ and (
                formal.interface.access != ArgumentInterface.Access.UNKNOWN
                or formal.name.lower() in assigned or bool(routine.walk(Call)))
        for actual, formal in zip(call.arguments, formals):
            if formal is None:
                continue
            written = (formal.interface.access == ArgumentInterface.Access.WRITE
                       or formal.name.lower() in assigned)
            if (is_variable(actual) and written
                    and self.activity.is_active(unit, actual.symbol)):
                found.append(self._check_sequence_cleared(
                    unit, call, actual, formal, routine.name, formals, may_write))
        return found

    def _sourceless_passive_outputs(self, unit, call):
        """The active actuals a call to a passive routine without source
        overwrites, by the intents of an INTERFACE block for it visible in
        the caller: ``intent(out)`` and ``intent(inout)`` dummies (their
        adjoints are cleared there).  Without one (a logger, MPI), the
        routine is taken to leave its arguments as they are (README)."""
        intents = interface_intents(unit.work, call.routine.name)
        if intents is None:
            return []
        found = []
        for position, actual in enumerate(call.arguments):
            keyword = call.argument_names[position]
            intent = intents.get(keyword.lower() if keyword else position)
            if intent in ("out", "inout") and is_variable(actual) and \
                    self.activity.is_active(unit, actual.symbol):
                found.append(actual)
        return found

    def _sequence_positions(self, unit, call, callee):
        """Positions of the array elements a call gives as the start of an
        array dummy (sequence association, ``call fill(n, a(k))``): the
        callee may change any element from there on, so what is saved
        around the call is the whole array, not the element."""
        if callee is not None:
            formals = callee_formals(callee)
        else:
            routine = unit.passive.get(id(call))
            if routine is None:
                return set()
            formals = list(routine.symbol_table.argument_list)
        return {position for position, (actual, formal) in enumerate(zip(
                    call.arguments, matched_formals(call, formals)))
                if isinstance(actual, ArrayReference) and expr_rank(actual) == 0
                and formal is not None and symbol_rank(formal) > 0}

    def _check_sequence_cleared(self, unit, call, actual, formal, callee, formals,
                                may_write):
        """What loses its derivative when the call overwrites `formal` with
        passive values: `actual`, or for an array element starting the array
        dummy (sequence association, ``call fill(n, a(k))``) the section the
        dummy spans (:func:`adfort.sequence_clears.cleared_reach`).

        :raises AdfortError: at the call, when that section is not known.
        """
        if isinstance(actual, ArrayReference) and symbol_rank(formal) > 0 \
                and expr_rank(actual) == 0:
            reach = cleared_reach(call, actual, formal, formals, may_write)
            if reach is not None:
                return reach
            raise AdfortError(
                f"'{actual.debug_string()}' starts the array '{formal.name}' that "
                f"'{callee}' overwrites with values that carry no derivative: adfort "
                f"cannot tell how many elements of '{actual.symbol.name}' lose their "
                "derivative; pass the section the callee writes (e.g. "
                f"'{actual.symbol.name}(k:k+n-1)') or the whole array",
                where(call, source_name(unit.original) or self.filename))
        return actual

    def _call_io(self, unit, call, callee, clears=(), motions=None):
        """(names the call's adjoint reads, names it may overwrite).

        :param motions: the callee's :class:`RoutineMotions` when generated
            already: the arguments its returning motion reads.
        """
        differentiated = callee is not None and (getattr(callee, "opaque", False)
                                                 or callee in self.chosen)
        # A passive call has no adjoint to read anything but the indices of
        # the adjoints it clears.
        reads = set()
        if differentiated:
            needed = self._arguments_read_back(unit, callee, motions)
            for actual, formal in zip(call.arguments,
                                      matched_formals(call, callee_formals(callee))):
                if needed is None or formal is None or formal.name.lower() in needed \
                        or not is_variable(actual):
                    reads |= {r.symbol.name.lower() for r in actual.walk(Reference)}
                elif isinstance(actual, ArrayReference):
                    # Only its subscripts, to name the same elements (the
                    # bounds of a section a(:, j) are no read of a).
                    reads |= {r.symbol.name.lower() for i in actual.indices
                              for r in i.walk(Reference) if not is_shape_inquiry(r)}
        for actual in clears:
            if isinstance(actual, ArrayReference):
                reads |= {r.symbol.name.lower() for i in actual.indices
                          for r in i.walk(Reference)}
        rerun = differentiated and _is_checkpointed_step(call)
        if rerun:
            # The loop's reversal runs the step again (from a snapshot, or
            # from the fixed point) before its returning motion: it reads
            # what the step reads on entry, not only what step_ret reads
            # (``tk = t`` set before a Newton loop whose step_ret does not
            # need it was never given back to the returning motion).  The
            # state the step overwrites is put back by the loop's snapshots.
            for actual, formal in zip(call.arguments,
                                      matched_formals(call, callee_formals(callee))):
                if formal is not None and is_variable(actual) and \
                        not callee.reads_on_entry(formal):
                    continue
                state = is_variable(actual) and (formal is None
                                                 or callee.writes_formal(formal))
                reads |= {r.symbol.name.lower() for r in actual.walk(Reference)
                          if not (state and r is actual)}
        writes = set()
        formals = matched_formals(call, callee_formals(callee)) if callee \
            else [None] * len(call.arguments)
        for actual, formal in zip(call.arguments, formals):
            if not is_variable(actual):
                continue
            if formal is None or callee.writes_formal(formal):
                writes.add(actual.symbol.name.lower())
        statement = _call_statement(call)
        if statement is not call:
            writes.add(statement.lhs.symbol.name.lower())
            # The returning motion indexes the target (its adjoint, its
            # restore) with the subscripts' values of that moment.
            reads |= {r.symbol.name.lower() for r in statement.lhs.walk(Reference)
                      if r is not statement.lhs}
            if differentiated:
                needed = self._arguments_read_back(unit, callee, motions)
                if needed is None or (callee.result is not None
                                      and callee.result.name.lower() in needed):
                    reads.add(statement.lhs.symbol.name.lower())
        if callee is not None:
            read_mod, write_mod = self.access[id(callee)]
            if differentiated:
                shared = getattr(motions, "shared_exit_reads", None)
                if shared is not None and self._returns_split(unit, callee):
                    # Its returning motion reads only these as its
                    # recording motion left them (the others it reads
                    # after putting them back itself, or not at all);
                    # a step run again reads those it does not change too.
                    read_mod = (read_mod & shared) | \
                        ((read_mod - write_mod) if rerun else set())
                reads |= read_mod
            writes |= write_mod
        # A call cannot change the DO variables of the loops around it, nor
        # the routine's intent(in) arguments.
        fixed = {f.name.lower() for f in unit.formals
                 if f.interface.access == ArgumentInterface.Access.READ}
        self._check_intent_in_kept(unit, call, callee, formals, fixed)
        return reads - enclosing_loop_indices(statement), writes - enclosing_loop_indices(statement) - fixed

    def _check_intent_in_kept(self, unit, call, callee, formals, fixed):
        """adfort trusts ``intent(in)``: an argument so declared is never
        saved around a call.  A callee that may change it (assigning its
        F77 dummy, or declaring it ``intent(out)``/``intent(inout)``) breaks
        the standard, and the adjoint would silently be wrong.

        :raises AdfortError: at the call, naming the argument and dummy.
        """
        if callee is None:
            return
        for actual, formal in zip(call.arguments, formals):
            if (formal is not None and is_variable(actual)
                    and actual.symbol.name.lower() in fixed
                    and callee.writes_formal(formal)):
                raise AdfortError(
                    f"'{actual.debug_string()}' is intent(in) in '{unit.name}' but "
                    f"'{callee.name}' may change its dummy '{formal.name}': "
                    "the source breaks intent(in) (a compiler need not notice without "
                    f"an explicit interface); declare '{actual.symbol.name}' "
                    "intent(inout) or copy it to a local first",
                    where(call, source_name(unit.original) or self.filename))

    def _returns_split(self, unit, callee):
        """Whether the call's adjoint is the callee's returning motion (a
        split link to a generated callee): it reads the arguments as the
        call left them, not as they were before it."""
        return (callee is not None and not getattr(callee, "opaque", False)
                and callee in self.chosen and self.schedule.is_split(unit.name, callee.name))

    def _call_restores(self, unit, call, callee, motions):
        """Names of the variables a call is given that the callee's returning
        motion puts back as they were before the call (a split link to a
        callee whose every write of the dummy is undone, see
        :func:`adfort.taping.restored_on_return`): the caller need not save
        them too.  Only plain positional calls; a variable given twice, or
        also a module variable the callee writes, is not counted."""
        if (motions is None or not self._returns_split(unit, callee)
                or any(name is not None for name in call.argument_names)):
            return set()
        formals = [f for f in callee.formals if f is not callee.result]
        write_mod = self.access[id(callee)][1]
        # A variable given to several dummies (daxpy(n, t, a(k+1, k), 1,
        # a(k+1, j), 1)): the callee may change it only through dummies it
        # puts back (the standard forbids the others to overlap those).
        ways = {}
        for actual, formal in zip(call.arguments, formals):
            if is_variable(actual):
                ways.setdefault(actual.symbol.name.lower(), []).append(formal)
        found = set()
        for name, given in ways.items():
            if name in write_mod:
                continue
            restored = [f for f in given if f.name.lower() in motions.restores]
            if restored and all(f in restored or not callee.writes_formal(f)
                                for f in given):
                found.add(name)
        # Module and COMMON variables the callee (and what it calls) puts
        # back, when not also given as arguments (two ways to change them).
        found |= {name for name in write_mod - set(ways) if name in motions.restores}
        return found

    def _arguments_read_back(self, unit, callee, motions):
        """Names of the callee's formals whose values its reversal reads
        (None: all of them).  A split reversal reads those its returning
        motion reads as its recording motion left them; a joint one runs
        the callee again, from every input but its ``intent(out)`` ones and
        those it never reads on entry."""
        if getattr(callee, "opaque", False) or motions is None:
            return None
        # Integers, logicals… are read in declarations (bounds) as well.
        needed = {f.name.lower() for f in callee.formals
                  if not is_real(f) or is_derived(f.datatype)}
        if self.schedule.is_split(unit.name, callee.name):
            if motions.exit_reads is None:
                return None
            return needed | set(motions.exit_reads)
        # A joint reversal runs the callee again: from the values it reads
        # on entry, not from arguments it only writes, nor from those its
        # reversal never names (a linear callee's adjoint runs no re-run).
        entry = {f.name.lower() for f in callee.formals
                 if f.interface.access != ArgumentInterface.Access.WRITE
                 and callee.reads_on_entry(f)}
        if motions.rev_reads is not None:
            entry &= motions.rev_reads
        return needed | entry

    def _changes_saved_state(self, unit, seen=None):
        """Whether `unit` or a routine it calls (with source) writes a
        SAVE'd local of its own."""
        seen = seen if seen is not None else set()
        if id(unit) in seen or getattr(unit, "opaque", False):
            return False
        seen.add(id(unit))
        if written_saved_locals(unit.work):
            return True
        return any(self._changes_saved_state(callee, seen)
                   for callee in unit.calls.values() if callee is not None)

    def _module_access(self, unit, seen=None, own=None):
        """Module variables a unit (and what it calls) reads and writes.

        :param own: {id(unit): (reads, writes)} of units' own statements,
            filled and reused (callers share their callees')."""
        seen = seen if seen is not None else set()
        if id(unit) in seen:
            return set(), set()
        seen.add(id(unit))
        own = own if own is not None else {}
        if id(unit) not in own:
            own[id(unit)] = self._own_module_access(unit)
        reads, writes = (set(names) for names in own[id(unit)])
        for callee in unit.calls.values():
            if callee is not None:
                r, w = self._module_access(callee, seen, own)
                reads |= r
                writes |= w
        return reads, writes

    def _own_module_access(self, unit):
        """Module variables the statements of `unit` itself read and write."""
        reads, writes = set(), set()
        for ref in unit.work.walk(Reference):
            if not unit.owns(ref.symbol) and unit.module_variable(ref.symbol.name):
                reads.add(ref.symbol.name.lower())
        for assign in unit.work.walk(Assignment):
            if assign.lhs.symbol.name.lower() in reads:
                writes.add(assign.lhs.symbol.name.lower())
        for call in unit.work.walk(Call):
            # Given to a callee that changes its dummy (the table an F77
            # routine builds in its assumed-size ``wsave(*)``): a write of
            # the module or COMMON variable too, for every caller above.
            if isinstance(call, IntrinsicCall) or id(call) in unit.passive:
                continue
            for actual in unit.written_actuals(call):
                if actual.symbol.name.lower() in reads:
                    writes.add(actual.symbol.name.lower())
        for block in opaque_blocks(unit.work):
            # A statement PSyclone keeps opaque, in a routine adfort runs.
            for name in block_reads(block):
                found = unit.name_key(name)
                if found is not None and found[0][0] == "module":
                    reads.add(name)
                    if name in block_writes(block):
                        writes.add(name)
        table = unit.work.symbol_table
        for block in unit.work.walk(CodeBlock):
            if not is_forward_only(block):
                continue
            for name in written_names(block, table):
                symbol = table.lookup(name, otherwise=None)
                if (symbol is None or not unit.owns(symbol)) and unit.module_variable(name):
                    reads.add(name)   # an I/O statement sets a module variable
                    writes.add(name)
        return reads, writes


ADReverseContainerTrans.build_class = _ProgramBuild


def _reads_global(routine, name):
    """Whether `routine` reads `name` as a variable it does not own (from a
    module, COMMON or its host)."""
    for ref in routine.walk(Reference):
        if ref.symbol.name.lower() != name:
            continue
        symbol = ref.symbol
        if symbol.is_import or symbol.is_unresolved or \
                isinstance(symbol.interface, CommonBlockInterface) or \
                ref.scope.symbol_table.lookup(name, scope_limit=routine, otherwise=None) is None:
            return True
    return False


def _check_private_variables(unit, filename):
    """Reject a routine that reads or writes a private variable of its
    module: the generated module only ``use``s that module, so its routines
    cannot reach the variable (private constants are copied instead)."""
    private = {}      # module: {name: first statement using it}, in order
    for ref in unit.work.walk(Reference):
        if unit.owns(ref.symbol):
            continue
        found = unit.module_variable(ref.symbol.name)
        if found is None:
            continue
        module, symbol = found
        if symbol.visibility != Symbol.Visibility.PRIVATE or symbol.is_constant:
            continue
        private.setdefault(module, {}).setdefault(symbol.name, ref.ancestor(Statement) or ref)
    for module, names in private.items():
        # (All of them at once: a module of private tables would otherwise
        # take one run per table.)
        listed = ", ".join(names)
        what = (f"'{listed}' is a private variable" if len(names) == 1 else
                "'" + "', '".join(names) + "' are private variables")
        raise AdfortError(
            f"{what} of module '{module}' that '{unit.name}' uses: the generated module "
            f"cannot reach {'it' if len(names) == 1 else 'them'}; make "
            f"{'it' if len(names) == 1 else 'them'} public (public :: {listed})",
            where(next(iter(names.values())), filename))


def _user_adjoints(paths, preprocessing=None):
    """{routine name: (adjoint Routine, stand-in Routine, active formals)}
    from files of hand-written ``<name>_rev`` adjoints.

    The stand-in has the routine's formal arguments (those of ``_rev``
    without the adjoints) and no body; an argument followed in ``_rev`` by
    ``<argument>_adj`` is active.
    """
    found = {}
    for path in paths:
        tree = read_file(path, preprocessing)
        for rev in tree.walk(Routine):
            if not rev.name.lower().endswith(naming.REVERSING_SUFFIX):
                continue
            name = rev.name[:-len(naming.REVERSING_SUFFIX)]
            stub = rev.copy()
            stub.pop_all_children()
            stub.name = name
            table = stub.symbol_table
            args = list(table.argument_list)
            formals, active = [], []
            for position, arg in enumerate(args):
                previous = args[position - 1].name.lower() if position else None
                if previous and arg.name.lower() == naming.adjoint(previous):
                    active.append(previous)
                    arg.interface = AutomaticInterface()
                    continue
                formals.append(arg)
            table.specify_argument_list(formals)
            found[name.lower()] = (rev, stub, active)
    return found


def _call_statement(call):
    """The statement holding a call: itself, or ``v = f(…)``."""
    parent = call.parent
    return parent if isinstance(parent, Assignment) and parent.rhs is call else call


def _is_checkpointed_step(call):
    """Whether `call` is the step of a checkpointed or fixed-point loop
    (the only statement of a loop marked ``adfort_checkpoint``)."""
    body = call.parent
    loop = body.parent if body is not None else None
    return getattr(loop, "adfort_checkpoint", None) is not None
