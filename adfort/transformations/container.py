"""The entry point: differentiate a routine of a (File)Container."""

from psyclone.psyir.backend.fortran import FortranWriter
from psyclone.psyir.frontend.fortran import FortranReader
from psyclone.psyir.nodes import Container, FileContainer, Literal, Reference
from psyclone.psyir.symbols import (
    ContainerSymbol, DataSymbol, ImportInterface, StaticInterface, Symbol, SymbolTable)

from adfort import naming
from adfort.context import checked_options
from adfort.exprs import INTEGER_TYPE
from adfort.errors import AdfortError, source_name, where
from adfort.fence import check_arguments, check_routine
from adfort.frontend import enclosing_module, find_routine
from adfort.prune import _datatype_references, used_names
from adfort.schedules import ADReversalSchedule
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.routine import reverse_routine


def _outer_names(routine):
    """Names a generated routine uses that it does not declare itself."""
    table = routine.symbol_table
    local = {s.name.lower() for s in table.symbols}
    return sorted(n for n in used_names(routine) if n not in local)


class ADReverseContainerTrans(ADReverseTrans):
    """Differentiate a routine of a Container in reverse mode.

    ``apply`` returns a new FileContainer holding the recording, returning
    and reversing motions (and the Jacobian routine on request) of the
    routine; the input tree is left unchanged.
    """

    node_type = Container

    def validate(self, container, routine_name=None, dependent_vars=(),
                 independent_vars=(), reversal_schedule=None, options=None):
        """Check the request and run the fence over the routine.

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
        filename = source_name(container)
        routine = find_routine(container, routine_name)
        check_arguments(routine, dependent_vars, independent_vars, filename)
        check_routine(routine, dependent_vars, independent_vars, filename)

    def apply(self, container, routine_name, dependent_vars, independent_vars,
              reversal_schedule, options=None):
        """Differentiate `routine_name` with respect to `independent_vars`.

        :param container: the (File)Container read from the source.
        :param str routine_name: the routine to differentiate.
        :param dependent_vars: names of the dependent variables.
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
        routine = find_routine(container, routine_name)
        module = enclosing_module(routine)
        scope = module if module is not None else routine.root
        taken = {s.name for s in scope.symbol_table.symbols}
        taken |= {r.name for r in routine.root.walk(type(routine))}
        names = {
            "rec": naming.recording(routine.name),
            "ret": naming.returning(routine.name),
            "rev": naming.reversing(routine.name),
            "jacobian": naming.jacobian(routine.name),
        }
        for key, name in names.items():
            if name.lower() in {t.lower() for t in taken}:
                raise AdfortError(
                    f"the generated routine name '{name}' is already used in "
                    f"this file: rename the existing '{name}'", where(routine, filename))
        names["taken"] = taken | set(names.values())
        motions = reverse_routine(routine, dependent_vars, independent_vars,
                                  options, names, filename)
        self.tape_sizes = motions.tape_sizes
        stem = _stem(filename, routine.name)
        if module is None:
            children = []
            if motions.dynamic:
                host = Container.create(naming.tape_module(routine.name), SymbolTable(), [])
                _host_tapes(host, motions.tapes, routine)
                for generated in motions.routines:
                    use = ContainerSymbol(host.name)
                    use.wildcard_import = True
                    generated.symbol_table.add(use)
                children.append(host)
            return FileContainer.create(stem, SymbolTable(), children + motions.routines)
        out_module = Container.create(naming.module(module.name), SymbolTable(), [])
        for generated in motions.routines:
            out_module.addchild(generated)
        if motions.dynamic:
            _host_tapes(out_module, motions.tapes, routine)
        _import_outer_symbols(out_module, module, filename)
        return FileContainer.create(stem, SymbolTable(), [out_module])


def _host_tapes(host, tapes, routine):
    """Declare dynamic `tapes` in module `host`, with their reserve routines.

    Kinds the tapes are declared with come from where the routine has them:
    the same ``use``, or a copy of a parameter declared in the routine.
    """
    table = host.symbol_table
    writer = FortranWriter()
    for tape in tapes:
        precision = tape.datatype.precision
        if isinstance(precision, Reference):
            _provide(table, routine.symbol_table, precision.symbol.name)
        table.add(DataSymbol(tape.symbol.name, tape.symbol.datatype.copy()))
        table.add(DataSymbol(tape.top.name, INTEGER_TYPE.copy(),
                             initial_value=Literal("0", INTEGER_TYPE),
                             interface=StaticInterface()))
        type_text = writer.gen_vardecl(DataSymbol("x", tape.datatype.copy())).split("::")[0]
        source = tape.reserve_routine_source(type_text.strip())
        reserve = FortranReader().psyir_from_source(source).children[0].detach()
        reserve_table = reserve.symbol_table
        for symbol in list(reserve_table.symbols):
            if symbol.is_unresolved:  # the tape and its kind: the host's
                reserve_table._symbols.pop(reserve_table._normalize(symbol.name))
        host.addchild(reserve)


def _provide(table, routine_table, name):
    """Make `name` (a kind) visible in `table` as the routine sees it."""
    if name.lower() in table:
        return
    symbol = routine_table.lookup(name, otherwise=None,
                                  scope_limit=routine_table.node)
    if symbol is None:
        return  # visible from the enclosing module (imported with it)
    if symbol.is_import:
        origin = symbol.interface.container_symbol.name
        container = table.lookup(origin, otherwise=None)
        if container is None:
            container = ContainerSymbol(origin)
            table.add(container)
        table.add(Symbol(symbol.name, interface=ImportInterface(container)))
    else:
        table.add(symbol.copy())


def _stem(filename, fallback):
    import os
    return os.path.splitext(os.path.basename(filename))[0] + "_ad" if filename \
        else naming.module(fallback)


def _import_outer_symbols(out_module, module, filename):
    """Give `out_module` a ``use`` of what its routines take from `module`.

    A name the original module imports is used from where it comes; a
    private constant of the module is copied; a private variable cannot be
    reached and is reported.
    """
    table = out_module.symbol_table
    wanted = set()
    for generated in out_module.children:
        wanted.update(_outer_names(generated))
    for symbol in table.datasymbols:  # module-level tapes: their kinds
        wanted.update(ref.symbol.name.lower() for ref in _datatype_references(symbol))
    wanted -= {s.name.lower() for s in table.symbols}
    sources = {}
    for name in sorted(wanted):
        symbol = module.symbol_table.lookup(name, otherwise=None)
        if symbol is None:
            continue  # an intrinsic or a name the reader left unresolved
        if symbol.is_import:
            origin = symbol.interface.container_symbol.name
            sources.setdefault(origin, []).append(symbol.name)
        elif symbol.visibility == Symbol.Visibility.PRIVATE:
            if isinstance(symbol, DataSymbol) and symbol.is_constant:
                table.add(symbol.copy())
                continue
            raise AdfortError(
                f"'{symbol.name}' is private to module '{module.name}', so the "
                f"generated module '{out_module.name}' cannot use it: make it public",
                where(module, filename))
        else:
            sources.setdefault(module.name, []).append(symbol.name)
    for origin in sorted(sources, key=lambda n: (n.lower() != module.name.lower(), n)):
        container = ContainerSymbol(origin)
        table.add(container)
        for name in sources[origin]:
            table.add(Symbol(name, interface=ImportInterface(container)))
    if module.name not in sources:
        # Keep the documented `use m` even when nothing is taken from it.
        if module.name.lower() not in table:
            table.add(ContainerSymbol(module.name))
            table.lookup(module.name).wildcard_import = True
