"""The routines a differentiation can see: the main file, extra files, and
modules found on the search path, and who calls whom."""

from psyclone.psyir.nodes import (
    Call, Container, FileContainer, IntrinsicCall, Literal, Reference, Routine)
from psyclone.psyir.symbols import DataTypeSymbol, GenericInterfaceSymbol, ScalarType, Symbol

from adfort.arrays import expr_rank, symbol_rank
from adfort.commons import CommonRegistry, common_statements, parse_common
from adfort.errors import AdfortError, source_name, where
from adfort.exprs import kind_key, real_kind
from adfort.frontend import make_intrinsic, names_intrinsic, read_file
from adfort.procedure_names import user_procedure_visible
from adfort.reading import find_module_file


class Program:
    """A set of parsed Fortran files.

    :param trees: FileContainers already read (the main file first).
    :param search_path: directories where modules named by ``use`` are looked
        for, in order.
    :param preprocessing: how files read are preprocessed
        (:class:`adfort.preprocess.Preprocessing`).
    :param plan: the :class:`adfort.reading.ReadPlan` saying which units of
        the files read are parsed (default: all).
    """

    def __init__(self, trees, search_path=(), passive=(), preprocessing=None, plan=None):
        self.trees = list(trees)
        self.preprocessing = preprocessing
        self.plan = plan
        self.search_path = list(search_path)
        self._searched = set()
        self._passive = {name.lower() for name in passive}
        self.commons = CommonRegistry(self.trees)

    def is_passive(self, name):
        """Whether the user declared routine `name` passive (``--passive``
        or a ``!$adfort passive`` directive in a file read)."""
        name = name.lower()
        return name in self._passive or any(
            name in getattr(tree, "adfort_passive", ()) for tree in self.trees)

    def shares_commons(self, error):
        """Whether a COMMON block of the unreadable routine `error` reports
        is also declared by a routine adfort reads: then the two share
        state the derivatives may flow through."""
        blocks = getattr(error, "commons", set())
        if not blocks:
            return False
        for tree in self.trees:
            for routine in tree.walk(Routine):
                for statement in common_statements(routine.symbol_table):
                    if any(block in blocks
                           for block, _ in parse_common(statement.datatype.declaration)):
                        return True
        return False

    def add_file(self, path):
        """Read one more file into the program."""
        if any(getattr(t, "adfort_filename", None) == path for t in self.trees):
            return
        self.trees.append(read_file(path, self.preprocessing, self.plan))

    def modules(self):
        """{lower-case name: Container} of every module read."""
        key = tuple(id(tree) for tree in self.trees)
        if getattr(self, "_modules_key", None) != key:
            found = {}
            for tree in self.trees:
                # Modules are children of a file (PSyIR has no nested modules).
                for node in tree.children:
                    if isinstance(node, Container) and not isinstance(node, FileContainer):
                        found.setdefault(node.name.lower(), node)
            self._modules, self._modules_key = found, key
        return dict(self._modules)

    def module(self, name):
        """The module called `name`, reading it from the search path if needed."""
        module = self.modules().get(name.lower())
        if module is None and name.lower() not in self._searched:
            self._searched.add(name.lower())
            path = find_module_file(name, self.search_path, self.preprocessing)
            if path is not None:
                self.add_file(path)
                module = self.modules().get(name.lower())
        return module

    def externals(self):
        """{lower-case name: Routine} of the routines outside any module."""
        found = {}
        for tree in self.trees:
            for node in tree.children:
                if isinstance(node, Routine):
                    found.setdefault(node.name.lower(), node)
        return found

    def unreadable(self, name):
        """Why the routine `name` cannot be read, if it is in a file but
        PSyclone could not represent it (an AdfortError), else None."""
        for tree in self.trees:
            error = getattr(tree, "adfort_unreadable", {}).get(name.lower())
            if error is not None:
                return error
        return None

    def resolve(self, call):
        """The Routine a (non-intrinsic) Call invokes, or None if no source.

        Looks where Fortran would: an explicit import's module, the caller's
        own module, the modules the caller uses, then external routines.
        """
        name = call.routine.name.lower()
        symbol = call.routine.symbol
        caller = call.ancestor(Routine)
        if symbol.is_import:
            module = self.module(symbol.interface.container_symbol.name)
            # use m, only: local => original
            original = (symbol.interface.orig_name or name).lower()
            # Not a module procedure: the module's INTERFACE block declares
            # an external routine (GSW's toolbox module of interfaces).
            return (_routine_in(module, original) or _specific(module, original, call, self)
                    or self.externals().get(original))
        host = caller.parent if caller is not None else None
        if isinstance(host, Container) and not isinstance(host, FileContainer):
            found = _routine_in(host, name) or _specific(host, name, call, self)
            if found is not None:
                return found
        for table in _scopes(caller):
            for container in table.containersymbols:
                module = self.module(container.name)
                if _private(module, name):
                    continue  # not seen through the USE: maybe an external
                found = _routine_in(module, name) or _specific(module, name, call, self)
                if found is not None:
                    return found
        return self.externals().get(name)

    def generic_candidates(self, call):
        """The module procedures of the generic interface a call names, if
        it names one (for the message when none or several fit)."""
        module, name = self._generic_module(call)
        generic = _generic(module, name)
        return [info.symbol.name for info in generic.routines] if generic is not None else []

    def intrinsic_extension(self, call):
        """For `call` naming a generic interface of an intrinsic's name
        (``interface sign``): ``"intrinsic"`` when none of its procedures
        takes the arguments (the generic extends the intrinsic, which
        Fortran calls then), ``"unknown"`` when one may only because adfort
        cannot tell an argument's type; else None."""
        if not names_intrinsic(call):
            return None
        module, name = self._generic_module(call)
        if _generic(module, name) is None:
            return None
        if not _fitting(module, name, call, self):
            return "intrinsic"
        if not _fitting(module, name, call, self, unknown=False):
            return "unknown"
        return None

    def hides_intrinsic(self, call, modules=None):
        """Whether a user procedure visible where the IntrinsicCall `call`
        is would be called instead of the intrinsic: a procedure of its
        name, or a procedure of a generic interface of its name taking its
        arguments (one that takes none extends the intrinsic).

        :param modules: see :func:`adfort.procedure_names.user_procedure_visible`."""
        name = call.routine.name.lower()
        if not any(name in getattr(tree, "adfort_procedures", ()) for tree in self.trees) \
                or not user_procedure_visible(call, name, modules):
            return False
        module, name = self._generic_module(call)
        if _generic(module, name) is not None:
            return bool(_fitting(module, name, call, self))
        return True

    def _generic_module(self, call):
        """(module, name there) of the generic interface `call` names, or
        (None, name)."""
        name = call.routine.name.lower()
        symbol = call.routine.symbol
        modules = []
        if symbol.is_import:
            modules.append(self.module(symbol.interface.container_symbol.name))
            name = (symbol.interface.orig_name or name).lower()
        caller = call.ancestor(Routine)
        host = caller.parent if caller is not None else None
        if isinstance(host, Container) and not isinstance(host, FileContainer):
            modules.append(host)
        for table in _scopes(caller):
            modules += [self.module(c.name) for c in table.containersymbols]
        for module in modules:
            if _generic(module, name) is not None:
                return module, name
        return None, name


def _private(module, name):
    """Whether `module` declares `name` private (a USE does not bring it)."""
    if module is None:
        return False
    symbol = module.symbol_table.lookup(name, otherwise=None, scope_limit=module)
    return symbol is not None and symbol.visibility == Symbol.Visibility.PRIVATE


def _routine_in(module, name):
    if module is None:
        return None
    for routine in module.children:
        if isinstance(routine, Routine) and routine.name.lower() == name:
            return routine
    return None


def _generic(module, name):
    """The GenericInterfaceSymbol `name` of `module`, or None."""
    if module is None:
        return None
    symbol = module.symbol_table.lookup(name, otherwise=None, scope_limit=module)
    return symbol if isinstance(symbol, GenericInterfaceSymbol) else None


def _specific(module, name, call, program=None):
    """The module procedure of `module`'s generic interface `name` that
    `call` invokes: the one whose dummy arguments take the actual ones
    (number, keywords, ranks, types and real kinds), or None when none or
    several do."""
    fitting = _fitting(module, name, call, program)
    if len(fitting) > 1:
        # A reference both an elemental and a non-elemental specific take
        # invokes the non-elemental one (F2008 12.5.5.2).
        plain = [r for r in fitting if not r.symbol.is_elemental]
        if len(plain) == 1:
            return plain[0]
    return fitting[0] if len(fitting) == 1 else None


def _fitting(module, name, call, program=None, unknown=True):
    """The module procedures of `module`'s generic interface `name` whose
    dummy arguments take `call`'s actual ones (`unknown`: whether an
    argument of a type adfort cannot tell fits)."""
    generic = _generic(module, name)
    if generic is None:
        return []
    routines = [_routine_in(module, info.symbol.name.lower()) for info in generic.routines]
    return [r for r in routines if r is not None and _takes(r, call, program, unknown)]


def _takes(routine, call, program=None, unknown=True):
    """Whether `routine`'s dummy arguments take `call`'s actual ones
    (`unknown`: the answer for an argument whose type adfort cannot tell)."""
    formals = [f for f in routine.symbol_table.argument_list]
    by_name = {f.name.lower(): f for f in formals}
    given = []
    for position, (keyword, actual) in enumerate(zip(call.argument_names, call.arguments)):
        formal = by_name.get(keyword.lower()) if keyword else (
            formals[position] if position < len(formals) else None)
        if formal is None:
            return False
        given.append((formal, actual))
    missing = [f for f in formals if all(f is not g for g, _ in given)]
    optional = getattr(routine, "adfort_optional", set())
    if any(not _is_optional(f) and f.name.lower() not in optional for f in missing):
        return False
    elemental = routine.symbol.is_elemental
    for formal, actual in given:
        if not elemental and expr_rank(actual) != symbol_rank(formal):
            return False
        if not _same_type(formal, actual, program, unknown):
            return False
    return True


def _is_optional(formal):
    datatype = getattr(formal, "datatype", None)
    return "OPTIONAL" in str(getattr(datatype, "declaration", "")).upper()


def _same_type(formal, actual, program=None, unknown=True):
    """Whether the actual's type and (real) kind can be the formal's;
    `unknown` when adfort cannot tell.  An actual that is a user function's
    value (``foo(foo_i(x))``) has its result's type."""
    datatype = getattr(formal, "datatype", None)
    element = getattr(datatype, "elemental_type", datatype)
    intrinsic = getattr(element, "intrinsic", None)
    try:
        actual_type = actual.datatype
    except Exception:  # PSyclone cannot tell
        actual_type = None
    if isinstance(actual, Call) and not isinstance(actual, IntrinsicCall) and program:
        function = program.resolve(actual)
        if function is not None and function.return_symbol is not None:
            actual_type = function.return_symbol.datatype
    if actual_type is None:
        return unknown
    actual_element = getattr(actual_type, "elemental_type", actual_type)
    actual_intrinsic = getattr(actual_element, "intrinsic", None)
    derived = (isinstance(element, DataTypeSymbol), isinstance(actual_element, DataTypeSymbol))
    if derived == (True, True) and element.name.lower() == actual_element.name.lower():
        return True
    if derived in ((True, False), (False, True)) and \
            (intrinsic is not None or actual_intrinsic is not None):
        return False    # a derived type and an intrinsic one
    if intrinsic is None or actual_intrinsic is None:
        return unknown
    if intrinsic != actual_intrinsic:
        return False
    if intrinsic.name == "REAL":
        want, have = real_kind(formal), real_kind(actual)
        if want is not None and have is not None:
            # (The callee's kinds are its module's; the caller's may come
            # from a module it uses whole.)
            want = _kind_number(want, program)
            have = _kind_number(have, program, scope=actual)
            # Named kinds may be aliases of one another: only numbers differ surely.
            if want.isdigit() and have.isdigit() and want != have:
                return False
    return True


# Kinds gfortran gives the named constants of the standard modules.
_STANDARD_KINDS = {"real32": "4", "real64": "8", "real128": "16", "c_float": "4",
                   "c_double": "8", "c_long_double": "10"}


def _kind_number(kind, program=None, depth=0, scope=None):
    """The number of a real kind (gfortran's), as text, when adfort can
    work it out: a literal, a named constant set to one, to ``KIND(1.0d0)``,
    to ``SELECTED_REAL_KIND(p)`` or to ``real64`` (through imports); else
    the kind's name (:func:`adfort.exprs.kind_key`)."""
    key = kind_key(kind)
    if key.isdigit() or depth > 8:
        return key
    if key in _STANDARD_KINDS:
        return _STANDARD_KINDS[key]
    symbol = kind.symbol if isinstance(kind, Reference) else kind
    if not isinstance(symbol, Symbol):
        return key
    if symbol.is_unresolved and program is not None and scope is not None:
        # A kind from a module used whole (``use gen_mod`` then real(dp)).
        for table in _scopes(scope):
            for container in table.containersymbols:
                if not container.wildcard_import:
                    continue
                module = program.module(container.name)
                found = module.symbol_table.lookup(symbol.name, otherwise=None,
                                                   scope_limit=module) \
                    if module is not None else None
                if found is not None and not found.is_unresolved and \
                        found.visibility != Symbol.Visibility.PRIVATE:
                    return _kind_number(found, program, depth + 1)
    if symbol.is_import and program is not None:
        module = program.module(symbol.interface.container_symbol.name)
        name = symbol.interface.orig_name or symbol.name
        found = module.symbol_table.lookup(name, otherwise=None, scope_limit=module) \
            if module is not None else None
        if found is None:
            return _STANDARD_KINDS.get(name.lower(), key)
        return _kind_number(found, program, depth + 1)
    value = getattr(symbol, "initial_value", None)
    if not getattr(symbol, "is_constant", False) or value is None:
        return key
    if isinstance(value, Literal):
        return value.value if value.value.isdigit() else key
    if isinstance(value, Reference):
        return _kind_number(value.symbol, program, depth + 1)
    if isinstance(value, IntrinsicCall) and value.arguments:
        argument = value.arguments[0]
        if value.intrinsic.name == "KIND" and isinstance(argument, Literal):
            precision = argument.datatype.precision
            if precision == ScalarType.Precision.DOUBLE:
                return "8"
            if precision == ScalarType.Precision.UNDEFINED or precision == \
                    ScalarType.Precision.SINGLE:
                return "4"
            return _kind_number(precision, program, depth + 1) \
                if isinstance(precision, (Reference, Symbol)) else kind_key(precision)
        if value.intrinsic.name == "SELECTED_REAL_KIND" and isinstance(argument, Literal) \
                and argument.value.isdigit() and len(value.arguments) == 1:
            digits = int(argument.value)
            return "4" if digits <= 6 else "8" if digits <= 15 else \
                "10" if digits <= 18 else "16" if digits <= 33 else key
    return key


def _scopes(node):
    """Symbol tables from `node`'s routine outwards."""
    tables = []
    while node is not None:
        table = getattr(node, "symbol_table", None)
        if table is not None and hasattr(node, "_symbol_table"):
            tables.append(table)
        node = node.parent
    return tables


def user_calls(routine):
    """The calls to non-intrinsic routines and functions in `routine`."""
    return [c for c in routine.walk(Call) if not isinstance(c, IntrinsicCall)]


def call_graph(program, root, filename=None):
    """Routines reachable from `root`, callees before callers.

    Calls to routines declared passive are not followed: their targets are
    None, and ``passive`` maps them to the Routine (None without source).

    :returns: (ordered list of Routines, {id(Call): Routine or None},
        passive {id(Call): Routine or None}).
    :raises AdfortError: on recursion.
    """
    from adfort.defined_operations import DefinedOperations
    order, targets, state, passive = [], {}, {}, {}
    defined = DefinedOperations(program, filename)

    def visit(routine, stack):
        state[id(routine)] = "active"
        # Defined assignments and operations become the calls they are.
        defined.lower(routine)
        for call in user_calls(routine):
            callee = program.resolve(call)
            extension = program.intrinsic_extension(call)
            if extension == "intrinsic":
                make_intrinsic(call)
                continue
            if extension == "unknown":
                raise AdfortError(
                    f"cannot tell whether this call of '{call.routine.name}' is of the "
                    f"intrinsic {call.routine.name.upper()} or of the generic interface "
                    f"'{call.routine.name}' ({', '.join(program.generic_candidates(call))}) "
                    "that extends it: adfort cannot tell the type of an argument; call the "
                    "specific procedure by its name, or give the argument a declared type",
                    where(call, source_name(call) or filename))
            if program.is_passive(call.routine.name):
                targets[id(call)] = None
                passive[id(call)] = callee
                continue
            targets[id(call)] = callee
            if callee is None and program.generic_candidates(call):
                raise AdfortError(
                    f"cannot tell which procedure of the generic interface "
                    f"'{call.routine.name}' ({', '.join(program.generic_candidates(call))}) "
                    "this call invokes: adfort matches the arguments' number, ranks, types "
                    "and numeric kinds; call the specific procedure by its name",
                    where(call, source_name(call) or filename))
            if callee is None:
                error = program.unreadable(call.routine.name)
                if error is not None and not (getattr(error, "isolated", False)
                                              and not program.shares_commons(error)):
                    raise error
                continue
            _check_call_form(call, callee, filename)
            if state.get(id(callee)) == "active":
                cycle = " -> ".join(r.name for r in stack + [routine, callee])
                raise AdfortError(
                    f"recursive call ({cycle}): recursion is not supported; "
                    "unroll it or differentiate the routines separately",
                    where(call, source_name(call) or filename))
            if id(callee) not in state:
                visit(callee, stack + [routine])
        state[id(routine)] = "done"
        order.append(routine)

    visit(root, [])
    return order, targets, passive


def _check_call_form(call, callee, filename=None):
    """A call that does not fit its procedure (gfortran rejects it): more
    arguments than dummies, a keyword no dummy has, a subroutine used as a
    function or a function called with CALL.

    :raises AdfortError: at the call.
    """
    from psyclone.psyir.nodes import Schedule
    formals = list(callee.symbol_table.argument_list)
    names = {f.name.lower() for f in formals}
    problem = None
    positional = sum(1 for keyword in call.argument_names if not keyword)
    statement = isinstance(call.parent, Schedule)
    if positional > len(formals):
        problem = (f"it gives {positional} arguments to '{callee.name}', which takes "
                   f"{len(formals)}")
    elif any(k and k.lower() not in names for k in call.argument_names):
        keyword = next(k for k in call.argument_names if k and k.lower() not in names)
        problem = f"'{callee.name}' has no dummy argument '{keyword}'"
    elif not statement and callee.return_symbol is None:
        problem = f"'{callee.name}' is a subroutine, used here as a function"
    elif statement and callee.return_symbol is not None:
        problem = f"'{callee.name}' is a function, called here with CALL"
    if problem is not None:
        raise AdfortError(
            f"this call does not fit the procedure it calls: {problem} (gfortran rejects "
            "it); fix the call", where(call, source_name(call) or filename))
