"""Reading Fortran files into PSyIR, with errors users can act on."""

import os
import re
import sys

from psyclone.psyir.frontend.fortran import FortranReader
from adfort.writer import Writer
from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, Container, FileContainer, IntrinsicCall, Literal,
    Range, Reference, Routine, Schedule, ScopingNode)
from psyclone.psyir.symbols import (
    ArrayType, CommonBlockInterface, DataSymbol, RoutineSymbol, ScalarType,
    StaticInterface, UnsupportedFortranType)

from adfort import cache, implicit, internal, naming, psyir_speed, timing
from adfort.concurrent import lower_concurrent_masks

from adfort.declarations import rewrite_specifications
from adfort.defined_operations import type_bindings
from adfort.optional import read_optional_arguments
from adfort.blocks import lower_block_constructs
from adfort.forward_only import keep_intrinsic_calls, keep_substring_assignments
from adfort.where import lower_where, tolerate_where_failures
from adfort.parentheses import keep_parenthesised_arguments, read_component_keyword_arguments
from adfort.errors import AdfortError, where
from adfort.exprs import INTEGER_TYPE, intrinsic_call
from adfort.procedure_names import (
    INTRINSIC_NAMES, declared_procedures, reading_as_procedures, user_procedure_visible,
    used_module_procedures)
from adfort.restructure import restructure
from adfort.statements import matching_paren
from adfort.units import map_outside_strings, split_comment, split_top_level
from adfort.forall import lower_forall
from adfort.checkpoint_loops import (
    checkpoint_hoist_error, mark_checkpointed_loops, outline_checkpointed_loops)
from adfort.associate import lower_associate
from adfort.labelled_do import unlabel_do_loops  # noqa: F401 (API)
from adfort.reading import (  # noqa: F401 (API)
    fixed_form_columns, form_hint, is_fixed_form, load)


def read_file(path, preprocessing=None, plan=None):
    """Parse a Fortran file into a PSyIR FileContainer (timed as the
    ``read`` phase, see :mod:`adfort.timing`).

    The returned tree records the file name (``adfort_filename``) so that
    messages can name ``file:line``, and the names of the routines left
    unread (``adfort_dropped``).

    :param preprocessing: a :class:`adfort.preprocess.Preprocessing`
        (``-D``/``-U``/``-I``) for preprocessed sources and INCLUDE lines.
    :param plan: a :class:`adfort.reading.ReadPlan`: only the units it
        keeps are parsed (default: all).

    :raises AdfortError: if the file is missing, unreadable or not valid
        Fortran.
    """
    with timing.phase("read"):
        return _read_file(path, preprocessing, plan)


def _read_file(path, preprocessing, plan):
    loaded = plan.loaded(path) if plan is not None else load(path, preprocessing)
    fixed = loaded.fixed
    passive = passive_directives(loaded.raw, path)
    origin = loaded.origin
    requested = tuple(getattr(preprocessing, "checkpoints", ()) or ())
    # Checkpoint directives checked on the user's text (before GO TO and
    # RETURN are restructured), applied below.
    outline_checkpointed_loops(loaded.source, loaded.fixed, origin, path, requested,
                               check_only=True)
    source, dropped, kept = plan.prune(path, loaded) if plan is not None \
        else (loaded.source, {}, None)
    origin = _compose(origin, kept)
    source, submodules = set_aside_submodules(source, fixed, path, origin)
    modules = plan.module_scan if plan is not None else None
    # User procedures of intrinsics' names (a module function ERF): fparser
    # reads references of these names as function references, not the
    # intrinsic's (adfort/procedure_names.py).
    procedures = (declared_procedures(source, fixed)
                  | used_module_procedures(source, modules)
                  | (external_names(source, fixed) & INTRINSIC_NAMES))
    protected, by_value = set(), set()
    # (before their CONTAINS parts are dropped)
    bindings = type_bindings(source, fixed)
    with reading_as_procedures(procedures):
        try:
            source = rewrite_specifications(source, fixed, path, protected, by_value)
        except AdfortError as err:
            raise _relocated(err, origin) from None
        try:
            source = lower_associate(source, fixed, path)
        except AdfortError as err:
            raise _relocated(err, origin) from None
        # GO TO, RETURN, statement functions…: the units using them are
        # rewritten, with an origin for the lines of the rewritten text.
        try:
            source, moved = restructure(source, fixed, path)
        except AdfortError as err:
            raise _relocated(err, origin) from None
        origin = _compose(origin, moved)
        source = generic_intrinsic_names(source, fixed, procedures)
        source = two_argument_atan(source, procedures)
        source = positional_dims(source, procedures)
        source = standard_complex_types(source, fixed)
        source = lower_forall(source, fixed)
        source = unlabel_do_loops(source, fixed)
        source, origin = lower_concurrent_masks(source, fixed, origin, path)
        source = split_assumed_size_declarations(source, fixed)
        externals = external_names(source, fixed)
        # (Implicit typing reads the EXTERNAL statements: an EXTERNAL
        # function of an intrinsic's name is typed as the user's.)
        source, origin = implicit.declare_implicit(source, fixed, origin, path, modules)
        source = drop_external_statements(source, fixed)
        source, origin, steps = outline_checkpointed_loops(source, fixed, origin, path, requested)
        try:
            source, origin, hoisted = internal.hoist_internal_procedures(source, fixed, origin,
                                                                         path)
        except AdfortError as err:
            raise checkpoint_hoist_error(err, steps) from None
        reader = FortranReader(free_form=not fixed)
        tolerate_where_failures(reader)
        keep_parenthesised_arguments(reader)
        read_component_keyword_arguments(reader)
        limit = sys.getrecursionlimit()
        try:
            # (As psyir_from_source, through --cache.)
            processor = reader._processor
            # fparser's fixed-form reader recurses once per comment line of a
            # run: a file with ~1,000 comment lines in a row (routine headers of
            # units left out) would exceed Python's default limit of 1,000.
            sys.setrecursionlimit(max(limit, 4000 + 2 * source.count("\n")))
            with psyir_speed.reading(source, not fixed):
                tree = cache.psyir(source, not fixed,
                                   lambda: processor.generate_parse_tree_from_source(source),
                                   processor.generate_psyir, variant=sorted(procedures))
        except Exception as err:  # fparser and PSyclone raise several kinds
            twice = _declared_twice_in_text(err, source, fixed)
            if twice is not None:
                at = origin[twice[1] - 1] if origin and twice[1] <= len(origin) and \
                    origin[twice[1] - 1] else (path, twice[1])
                raise AdfortError(twice[0], "%s:%s" % at) from None
            err = _whole_statement(err, source, fixed)
            raise AdfortError(_syntax_message(err) + form_hint(path, loaded),
                              _syntax_location(path, err, origin)) from None
        finally:
            sys.setrecursionlimit(limit)
    tree.adfort_filename = path
    tree.adfort_origin = origin
    if origin is not None:
        # Copies of routines (the working copies) keep it: messages about
        # their nodes name the user's lines.
        for unit in tree.walk((Routine, Container)):
            unit.adfort_origin = origin
    lower_block_constructs(tree, processor, path)
    tree.adfort_passive = passive
    tree.adfort_protected = protected
    tree.adfort_by_value = by_value
    # (The user procedures of intrinsics' names it may see.)
    tree.adfort_procedures = procedures
    tree.adfort_type_bindings = bindings
    mark_checkpointed_loops(tree, steps, hoisted)
    tree.adfort_dropped = {name for names in dropped.values() for name in names}
    # Routines made from internal procedures: in adfort's working copy only,
    # so the output carries the copies its plain calls need.
    tree.adfort_hoisted = set(hoisted) | (
        plan.clones.get(os.path.abspath(path), set()) if plan is not None else set())
    _report_unreadable_units(tree, path)
    for name, error in submodules.items():
        tree.adfort_unreadable.setdefault(name, error)
    _drop_continue_statements(tree)
    _common_members_stay_common(tree)
    recognise_intrinsics(tree, modules=modules)
    _recognise_function_references(tree, externals)
    for routine in tree.walk(Routine):
        _resolve_array_declarations(routine)
        _any_size_dummies(routine)
    lower_where(tree, lambda node: recognise_intrinsics(tree, node, modules))
    read_optional_arguments(tree)
    keep_substring_assignments(tree)
    keep_intrinsic_calls(tree)
    return tree


_DIRECTIVE = re.compile(r"^\s*[!cC*]\$adfort\s+passive\b\s*(?:::?)?\s*(?P<names>.*)$",
                        re.IGNORECASE)
_PASSIVE_TARGET = re.compile(
    r"^\s*(?:\d+\s+)?(?:call\s+(?P<call>\w+)|(?:[\w\s(),=*]*\s)?"
    r"(?:subroutine|function)\s+(?P<routine>\w+))", re.IGNORECASE)


def passive_directives(source, path=None):
    """Names of the routines the source declares passive with
    ``!$adfort passive name[, name…]``, or with a bare ``!$adfort passive``
    on the line before a CALL or a SUBROUTINE/FUNCTION statement.

    A passive routine is called as it is and carries no derivative: the
    user states that none flows through it.

    :raises AdfortError: for a bare directive with nothing to apply to.
    """
    names = set()
    lines = source.splitlines()
    for number, line in enumerate(lines, start=1):
        match = _DIRECTIVE.match(line)
        if not match:
            continue
        listed = [n for n in re.split(r"[\s,]+", match.group("names").split("!")[0]) if n]
        if listed:
            names |= {n.lower() for n in listed}
            continue
        following = next((text for text in lines[number:]
                          if text.strip() and not re.match(r"^\s*!|^[cC*]", text)), "")
        target = _PASSIVE_TARGET.match(following)
        if target is None:
            raise AdfortError(
                "'!$adfort passive' names no routine and is not followed by a CALL or a "
                "SUBROUTINE/FUNCTION statement: write '!$adfort passive name'",
                f"{path}:{number}" if path else None)
        names.add((target.group("call") or target.group("routine")).lower())
    return names


_DECLARATION = re.compile(r"^(?P<type>[^,:]+?(?:\([^)]*\))?)\s*(?:,(?P<attrs>.*?))?::\s*"
                          r"(?P<name>\w+)\s*\((?P<dims>.*)\)\s*$", re.IGNORECASE)
_SCALAR_TYPES = {}


def _scalar_type(type_text):
    """The PSyIR scalar type of a Fortran type spec (``REAL*8``, ``DOUBLE PRECISION``)."""
    key = type_text.strip().lower()
    if key not in _SCALAR_TYPES:
        try:
            tree = FortranReader().psyir_from_source(
                f"subroutine adfort_probe\n{type_text} :: probe\nend subroutine\n")
            dtype = tree.children[0].symbol_table.lookup("probe").datatype
        except Exception:  # not a type we can represent
            dtype = None
        _SCALAR_TYPES[key] = dtype if isinstance(dtype, ScalarType) else None
    dtype = _SCALAR_TYPES[key]
    return dtype.copy() if dtype is not None else None


def _split_dims(text):
    dims, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            dims.append(current.strip())
            current = ""
            continue
        depth += char == "("
        depth -= char == ")"
        current += char
    dims.append(current.strip())
    return dims


def _resolve_array_declarations(routine):
    """Give array arguments PSyclone keeps as unsupported declarations
    (assumed-size ``x(*)``, F77 declarations sharing a statement with one,
    assumed-shape without intent) a PSyIR array type.  The ``*`` of an
    assumed-size array stands as :data:`naming.ASSUMED_SIZE` until output."""
    table = routine.symbol_table
    for symbol in list(table.datasymbols):
        dtype = symbol.datatype
        if not isinstance(dtype, UnsupportedFortranType):
            continue
        declaration = dtype.declaration.strip()
        if re.search(r"\b(pointer|target|allocatable|save|parameter|value|optional)\b",
                     declaration.split("::")[0], re.IGNORECASE):
            continue  # stays unsupported: the fence reports it
        partial = getattr(dtype, "partial_datatype", None)
        if isinstance(partial, ArrayType):
            symbol.datatype = partial
            continue
        match = _DECLARATION.match(declaration)
        if not match or match.group("name").lower() != symbol.name.lower():
            continue
        attrs = (match.group("attrs") or "").strip().lower()
        if attrs and not re.fullmatch(r"intent\s*\(\s*(in|out|inout)\s*\)", attrs):
            continue
        scalar = _scalar_type(match.group("type"))
        if scalar is None:
            continue
        try:
            shape = [_extent(dim, table) for dim in _split_dims(match.group("dims"))]
        except Exception:  # an extent we cannot read: leave the symbol alone
            continue
        symbol.datatype = ArrayType(scalar, shape)
        if any(_is_star(e) for e in shape):
            symbol.adfort_assumed_size = True


def _any_size_dummies(routine):
    """Read a dummy array whose last extent is the literal 1 (``x(1)``,
    ``a(lda, 1)``) as assumed-size: F77 code declares "any size" so, and
    passes longer arrays.  Taking the 1 literally would copy, save or zero
    a single element (or column) where the routine uses many.  A dummy the
    routine uses only through subscripts 1 in that dimension (and never
    gives to a call) has the one element or column it declares."""
    for symbol in routine.symbol_table.argument_list:
        shape = getattr(symbol.datatype, "shape", None)
        if not isinstance(symbol.datatype, ArrayType) or not shape:
            continue
        last = shape[-1]
        if (isinstance(last, ArrayType.ArrayBounds) and isinstance(last.upper, Literal)
                and last.upper.value == "1" and isinstance(last.lower, Literal)
                and last.lower.value == "1" and _reaches_beyond_one(routine, symbol)):
            symbol.datatype = ArrayType(symbol.datatype.elemental_type, shape[:-1] + [
                ArrayType.ArrayBounds(Literal("1", _INTEGER), Reference(_STAR))])
            symbol.adfort_assumed_size = True


def _reaches_beyond_one(routine, symbol):
    """Whether `routine` may use `symbol` (declared with last extent 1)
    beyond its first element or column: a last subscript other than the
    literal 1, or the array (or an element of it) given to a call."""
    for ref in routine.walk(Reference):
        if ref.symbol is not symbol:
            continue
        call = ref.parent
        if isinstance(call, Call) and not isinstance(call, IntrinsicCall):
            return True
        if isinstance(ref, ArrayReference):
            index = ref.indices[-1]
            if not (isinstance(index, Literal) and index.value == "1"):
                return True
    return False


def _extent(text, table):
    if text == "*":
        return ArrayType.ArrayBounds(Literal("1", _INTEGER), Reference(_STAR))
    if text == ":":
        return ArrayType.Extent.ATTRIBUTE
    reader = FortranReader()
    if ":" in text:
        low, high = text.split(":", 1)
        upper = Reference(_STAR) if high.strip() == "*" else \
            reader.psyir_from_expression(high, table)
        return ArrayType.ArrayBounds(reader.psyir_from_expression(low, table), upper)
    return ArrayType.ArrayBounds(Literal("1", _INTEGER), reader.psyir_from_expression(text, table))


def _is_star(extent):
    upper = getattr(extent, "upper", None)
    return isinstance(upper, Reference) and upper.symbol is _STAR


_INTEGER = ScalarType(ScalarType.Intrinsic.INTEGER, ScalarType.Precision.UNDEFINED)
_STAR = DataSymbol(naming.ASSUMED_SIZE, _INTEGER)


_SUBMODULE = re.compile(r"^\s*submodule\s*\(\s*(\w+)\s*(?::\s*\w+\s*)?\)\s*(\w+)",
                        re.IGNORECASE)
_END_SUBMODULE = re.compile(r"^\s*end\s*submodule\b", re.IGNORECASE)
_SEPARATE_PROCEDURE = re.compile(
    r"^\s*(?:[\w()=,*\s]*\s)?module\s+(?:subroutine|function|procedure)\s+(\w+)",
    re.IGNORECASE)


def set_aside_submodules(source, fixed_form, path, origin=None):
    """Leave the submodules of `source` out of what is parsed (fparser cannot
    read ``module procedure`` bodies): (source with their lines blank,
    {procedure name: AdfortError}) — asking for a procedure implemented in
    one says so, instead of "no source adfort can see"."""
    if not re.search(r"^\s*submodule\s*\(", source, re.IGNORECASE | re.MULTILINE):
        return source, {}
    lines = source.splitlines(keepends=True)
    found, inside = {}, None
    for number, line in enumerate(lines):
        code = line[6:] if fixed_form and line[:1] not in "cC*!" else line
        if inside is None:
            match = _SUBMODULE.match(code)
            if match:
                inside = (match.group(1), match.group(2))
        if inside is not None:
            procedure = _SEPARATE_PROCEDURE.match(code)
            if procedure:
                at = f"{path}:{number + 1}"
                if origin is not None and number < len(origin) and origin[number]:
                    at = "%s:%s" % tuple(origin[number])
                found.setdefault(procedure.group(1).lower(), AdfortError(
                    f"'{procedure.group(1)}' is implemented in submodule '{inside[1]}' of "
                    f"module '{inside[0]}': adfort does not read submodules yet; put its "
                    f"body in module '{inside[0]}' (in place of its interface body)", at))
            ending = _END_SUBMODULE.match(code)
            lines[number] = "\n" if line.endswith("\n") else ""
            if ending:
                inside = None
    return "".join(lines), found


def _report_unreadable_units(tree, path):
    """Remember the routines PSyclone keeps as opaque blocks, so that asking
    for one (to differentiate it, or because it is called) says why it
    cannot be read instead of pretending it is absent."""
    from psyclone.psyir.nodes import CodeBlock
    from adfort.errors import node_line, original_line
    tree.adfort_unreadable = {}
    for block in tree.walk(CodeBlock):
        if not isinstance(block.parent, Container):
            continue
        ast = block.parse_tree_nodes[0]
        text = str(ast).strip().splitlines()[0] if str(ast).strip() else type(ast).__name__
        full = str(ast)
        if re.match(r"\s*recursive\b", text, re.IGNORECASE):
            why = "recursion is not supported; unroll it or differentiate the routines separately"
        elif _passes_routine(text, full):
            why = ("it takes a routine passed as an argument (an EXTERNAL, PROCEDURE "
                   "or INTERFACE dummy procedure): adfort differentiates a copy of it for each "
                   "external routine a caller passes by name (EXTERNAL dummies only); "
                   "differentiate a routine that calls it with your routine")
        elif re.search(r"^\s*equivalence\b", full, re.IGNORECASE | re.MULTILINE):
            why = ("EQUIVALENCE is not supported (PSyclone cannot represent it, and "
                   "storage shared between variables would hide derivatives): give "
                   "each variable its own storage, or move the equivalenced work "
                   "arrays to a routine that is not differentiated")
        elif re.search(r"^\s*enum\s*,", full, re.IGNORECASE | re.MULTILINE):
            why = ("its ENUM is not supported (PSyclone cannot represent it): declare the "
                   "enumerators as named constants (integer, parameter :: red = 1, …)")
        elif re.search(r"^\s*external\b", full, re.IGNORECASE | re.MULTILINE):
            why = ("PSyclone cannot represent its EXTERNAL statement: remove it (an "
                   "external routine needs no declaration to be called)")
        else:
            why = None
        line = node_line(block)
        if why is None:
            why, line = _unrepresentable(ast, line)
        else:
            line = _statement_line(ast, why, line)
        where_ = f"{path}:{line}" if line else path
        if line:
            where_ = "%s:%s" % original_line(tree, path, line)
        name = re.search(r"(?:subroutine|function|module)\s+(\w+)", text, re.IGNORECASE)
        if name:
            error = AdfortError(f"cannot read '{text}': {why}", where_)
            # A routine that can only change its arguments (no COMMON, no
            # module, no entry points) may still be called where no
            # derivative flows through it: its callers are told then.
            # (One taking a procedure argument may call anything.)
            # COMMON blocks are allowed when no routine adfort reads
            # declares them (call_graph checks): then they are its own state.
            # A module procedure sees its module's variables and those of
            # the modules it uses: not isolated.
            error.isolated = not (re.search(r"^\s*(?:use|include|entry)\b", full,
                                            re.IGNORECASE | re.MULTILINE)
                                  or _passes_routine(text, full)
                                  or isinstance(block.parent, Container)
                                  and not isinstance(block.parent, FileContainer))
            error.commons = _common_blocks(full)
            tree.adfort_unreadable[name.group(1).lower()] = error
            # The routines of a module kept whole as a block: asking for
            # one says why its module cannot be read.
            for inner in re.finditer(r"^\s*(?:[\w(),=*\s]*\s)?(?:subroutine|function)\s+(\w+)",
                                     full, re.IGNORECASE | re.MULTILINE):
                tree.adfort_unreadable.setdefault(inner.group(1).lower(), error)


def _drop_continue_statements(tree):
    """Remove unlabelled CONTINUE statements (labelled ones were structured
    away before parsing): they do nothing, and PSyclone keeps them opaque."""
    from psyclone.psyir.nodes import CodeBlock
    for block in tree.walk(CodeBlock):
        if block.parse_tree_nodes and all(
                type(n).__name__ == "Continue_Stmt" for n in block.parse_tree_nodes):
            block.detach()


def _common_members_stay_common(tree):
    """A COMMON member given a DATA statement (an extension outside BLOCK
    DATA that gfortran accepts) is read by PSyclone as a SAVE'd local: it is
    storage of its block, so that is its interface again (a SAVE attribute
    next to COMMON is rejected by compilers).  The DATA statement itself
    stays in the user's routine only: the block is initialised once, by the
    original compiled with the output (a copy in a generated routine would
    define the block a second time at link).

    :raises AdfortError: for a DATA statement initialising COMMON members
        and other variables together.
    """
    from adfort.commons import common_statements, parse_common
    from adfort.prune import data_statement_names
    for routine in tree.walk(Routine):
        table = routine.symbol_table
        members = set()
        for statement in common_statements(table):
            try:
                members.update(name for _, names in parse_common(statement.datatype.declaration)
                               for name in names)
            except ValueError:
                continue
        for name in members:
            symbol = table.lookup(name, otherwise=None, scope_limit=routine)
            if symbol is not None and isinstance(symbol.interface, StaticInterface):
                symbol.interface = CommonBlockInterface()
        for symbol in list(table.datasymbols) if members else ():
            named = data_statement_names(symbol)
            if not named or not named & members:
                continue
            initialised = {n for n in named if (s := table.lookup(n, otherwise=None)) is not None
                           and not isinstance(s.datatype, UnsupportedFortranType)
                           and s.name.lower() not in _data_do_indices(symbol)}
            if not initialised <= members:
                raise AdfortError(
                    f"a DATA statement initialises COMMON members "
                    f"({', '.join(sorted(initialised & members))}) together with other "
                    f"variables ({', '.join(sorted(initialised - members))}) in "
                    f"'{routine.name}': give the COMMON members their own DATA statement "
                    "(or move it to a BLOCK DATA unit)", _data_statement_place(routine, symbol))
            table._symbols.pop(table._normalize(symbol.name))


def _data_statement_place(routine, symbol):
    """``file:line`` of the DATA statement `symbol` holds, else of `routine`."""
    from fparser.two.utils import walk
    from adfort.errors import _ast_line, _text, original_line, source_name
    text = _text(symbol.datatype.declaration)
    for node in walk(routine.ast) if routine.ast is not None else ():
        if type(node).__name__ == "Data_Stmt" and _text(node) == text and _ast_line(node):
            return "%s:%s" % original_line(routine, source_name(routine), _ast_line(node))
    return where(routine)


def _data_do_indices(symbol):
    """Lower-case names of the implied-DO indices of a DATA statement."""
    return {m.lower() for m in re.findall(r"\b(\w+)\s*=", symbol.datatype.declaration)}


def _common_blocks(text):
    """Names of the COMMON blocks the routine source `text` declares."""
    from adfort.commons import parse_common
    names = set()
    for line in text.splitlines():
        if re.match(r"\s*common\b", line, re.IGNORECASE):
            try:
                names.update(block for block, _ in parse_common(line))
            except ValueError:
                names.add("")
    return names


def _statement_line(ast, why, line):
    """The line of the statement a reason names (EQUIVALENCE, EXTERNAL),
    else `line`."""
    from fparser.two.utils import walk
    from adfort.errors import _ast_line
    for kind in ("Equivalence_Stmt", "External_Stmt", "Enum_Def_Stmt"):
        if kind.split("_")[0].upper() in why:
            found = [n for n in walk(ast) if type(n).__name__ == kind]
            if found and _ast_line(found[0]):
                return _ast_line(found[0])
    return line


def _unrepresentable(ast, line):
    """(why, line) for a routine PSyclone keeps as an opaque block: its own
    reason, tried again on the routine alone, and the statement it names."""
    from fparser.two.utils import walk
    from psyclone.psyir.frontend.fparser2 import Fparser2Reader
    from adfort.errors import _ast_line
    from fparser.two import Fortran2003
    if isinstance(ast, Fortran2003.Module):
        # A module PSyclone gives up on: the first of its procedures that
        # fails alone tells why.
        for sub in walk(ast, (Fortran2003.Subroutine_Subprogram,
                              Fortran2003.Function_Subprogram)):
            found = _unrepresentable(sub, _ast_line(sub) or line)
            if not found[0].startswith(_UNKNOWN_REASON):
                return found
    reason = None
    try:
        Fparser2Reader()._subroutine_handler(ast, FileContainer("adfort_probe"))
    except NotImplementedError as err:
        reason = str(err)
    except Exception as err:  # pylint: disable=broad-except
        twice = re.search(r"Symbol '(\w+)' already present in SymbolTable", str(err))
        if twice:
            return _declared_twice(ast, twice.group(1), line)
        reason = None
    kind = re.search(r"node of type '(\w+)'", reason or "")
    if kind:
        found = [n for n in walk(ast) if type(n).__name__ == kind.group(1)]
        construct = kind.group(1).replace("_Stmt", "").replace("_", " ").upper()
        if found:
            line = _ast_line(found[0]) or line
            construct = f"{construct} statement '{str(found[0]).strip()}'"
        return (f"PSyclone cannot represent its {construct}: rewrite it as ordinary "
                "declarations and statements", line)
    if reason:
        return (f"PSyclone cannot represent it ({reason.rstrip('.')}): simplify the "
                "declarations or statements there", line)
    return (_UNKNOWN_REASON + "; simplify the declarations or statements there", line)


_UNKNOWN_REASON = "PSyclone cannot represent it (a construct it does not support inside)"


def _declared_twice(ast, name, line):
    """(why, line) for a routine declaring `name` twice: at its second
    declaration (or the first, if only one statement names it)."""
    from fparser.two.utils import walk
    from fparser.two import Fortran2003
    from adfort.errors import _ast_line
    spellings, lines = [], []
    for decl in walk(ast, Fortran2003.Entity_Decl):
        if str(decl.items[0]).lower() == name.lower():
            spellings.append(str(decl.items[0]))
            statement = decl
            while statement is not None and not isinstance(statement, Fortran2003.StmtBase):
                statement = getattr(statement, "parent", None)
            lines.append(_ast_line(statement) if statement is not None else None)
    at = next((n for n in lines[1:] if n), None) or next((n for n in lines if n), line)
    return _twice_message(name, spellings), at


def _twice_message(name, spellings):
    spellings = list(dict.fromkeys(spellings)) or [name]
    if len(spellings) > 1:
        return (f"'{spellings[1]}' declares '{spellings[0]}' again (Fortran names are not "
                "case-sensitive); rename one of them")
    return f"'{spellings[0]}' is declared twice; remove one of the declarations"


def _declared_twice_in_text(err, source, fixed):
    """(message, line in `source`) for PSyclone's error on a name declared
    twice in a routine outside any module, or None for another error."""
    twice = re.search(r"Symbol '(\w+)' already present in SymbolTable", str(err))
    if not twice:
        return None
    name = twice.group(1)
    pattern = re.compile(rf"::.*?\b({name})\b", re.IGNORECASE)
    found = []
    for number, text in enumerate(source.splitlines(), 1):
        if fixed and text[:1] in "cC*!" or text.lstrip().startswith("!"):
            continue
        match = pattern.search(text.split("!", 1)[0])
        if match:
            found.append((number, match.group(1)))
    if not found:
        return None
    at = found[1][0] if len(found) > 1 else found[0][0]
    return _twice_message(name, [spelling for _, spelling in found]), at


def _passes_routine(first_line, text):
    """Whether a routine's text declares one of its dummy arguments as a
    procedure (EXTERNAL, PROCEDURE(…) or an interface body)."""
    args = re.search(r"\(([^)]*)\)", first_line)
    dummies = {a.strip().lower() for a in args.group(1).split(",")} if args else set()
    for match in re.finditer(r"^\s*external\s*(?:::)?\s*([\w\s,]+)$", text,
                             re.IGNORECASE | re.MULTILINE):
        if {n.strip().lower() for n in match.group(1).split(",")} & dummies:
            return True
    for match in re.finditer(r"^\s*procedure\s*\([^)]*\)[^:]*::\s*([\w\s,]+)$", text,
                             re.IGNORECASE | re.MULTILINE):
        if {n.strip().lower() for n in match.group(1).split(",")} & dummies:
            return True
    return bool(re.search(r"^\s*interface\s*$", text, re.IGNORECASE | re.MULTILINE))


def unreadable(tree, name):
    """The error explaining why routine `name` of `tree` cannot be read, or None."""
    return getattr(tree, "adfort_unreadable", {}).get(name.lower())


def recognise_intrinsics(tree, node=None, modules=None):
    """Turn calls fparser did not read as intrinsics (F2008's ACOSH, ERF…
    it does not know, names a user procedure of the file or of a module
    used has) into IntrinsicCalls where no user procedure of the name is
    visible (Fortran calls the user's: see :mod:`adfort.procedure_names`).

    :param node: where to look (default: all of `tree`).
    :param modules: ``modules(name)``: the scan of a module of another
        file (:meth:`adfort.reading.ReadPlan.module_scan`), or None."""
    for call in (node if node is not None else tree).walk(Call):
        if isinstance(call, IntrinsicCall):
            continue
        name = call.routine.name.upper()
        symbol = call.routine.symbol
        if (not names_intrinsic(call) or isinstance(symbol, DataSymbol) or symbol.is_import
                or user_procedure_visible(call, name, modules)):
            continue
        make_intrinsic(call)


def names_intrinsic(call):
    """Whether `call` names an intrinsic adfort reads: a subroutine for a
    CALL statement, a function for a reference in an expression (``CALL
    SCALE(2, HEAT)`` is of an F77 external routine)."""
    name = call.routine.name.upper()
    generic = SPECIFIC_INTRINSICS.get(name, name)
    if generic == "DCMPLX":
        return not isinstance(call.parent, Schedule)
    intrinsic = IntrinsicCall.Intrinsic.__members__.get(generic)
    return intrinsic is not None and \
        (intrinsic.value.return_type is None) == isinstance(call.parent, Schedule)


def make_intrinsic(call):
    """Replace `call` (of a name :func:`names_intrinsic`) by the
    IntrinsicCall of its generic name; returns that."""
    symbol = call.routine.symbol
    generic = SPECIFIC_INTRINSICS.get(call.routine.name.upper(), call.routine.name.upper())
    arguments = [(keyword, arg.detach()) if keyword else arg.detach()
                 for keyword, arg in zip(call.argument_names, list(call.arguments))]
    if generic == "DCMPLX":
        # DCMPLX(x, y) (GNU): CMPLX(x, y, kind=8), of double precision
        intrinsic = IntrinsicCall.create(
            IntrinsicCall.Intrinsic.CMPLX, arguments + [("kind", Literal("8", INTEGER_TYPE))])
    else:
        # (Keyword arguments keep their names: FINDLOC(a, v, back=.true.)
        # is not FINDLOC(a, v, .true.), whose third argument is DIM.)
        intrinsic = intrinsic_call(generic, arguments)
    if isinstance(call.parent, Schedule) and getattr(call, "ast", None) is not None:
        intrinsic.ast = call.ast   # the CALL statement as written (with its line)
    call.replace_with(intrinsic)
    table = symbol.find_symbol_table(intrinsic)
    if table is not None and type(symbol).__name__ == "Symbol":
        # The placeholder symbol would shadow the intrinsic's own.
        table._symbols.pop(table._normalize(symbol.name), None)
    return intrinsic


def _standard_kind_text(declaration):
    """``REAL*8, EXTERNAL :: f`` as standard Fortran (``real(kind=8)``): the
    declaration is written out as it is kept."""
    text = re.sub(r"\b(real|integer|logical)\s*\*\s*(\d+)", r"\1(kind=\2)", declaration,
                  flags=re.IGNORECASE)
    return re.sub(r"\bcomplex\s*\*\s*(\d+)", lambda m: f"complex(kind={int(m.group(1)) // 2})",
                  text, flags=re.IGNORECASE)


def _recognise_function_references(tree, externals=()):
    """Turn references PSyclone read as array elements into function calls
    where the name cannot be an array: a scalar variable declaration giving a
    function's type (``double precision f`` then ``y = f(x)``), a declaration
    with the EXTERNAL attribute, or a name of an EXTERNAL statement.  The
    declaration becomes ``<type>, external :: f``.

    Names written with subscripts on the left of an assignment (statement
    functions) are left as they are.
    """
    writer = Writer()
    externals = {name.lower() for name in externals}
    for routine in tree.walk(Routine):
        table = routine.symbol_table
        defined = {a.lhs.symbol.name.lower() for a in routine.walk(Assignment)
                   if isinstance(a.lhs, ArrayReference)}
        converted = {}
        for ref in routine.walk(ArrayReference):
            symbol = ref.symbol
            name = symbol.name.lower()
            if name in defined or not isinstance(symbol, DataSymbol):
                continue
            if any(isinstance(index, Range) for index in ref.indices):
                continue  # a substring (task(1:5)): no function takes a range
            dtype = symbol.datatype
            declaration = getattr(dtype, "declaration", "") or ""
            if isinstance(dtype, UnsupportedFortranType):
                if not re.search(r"\bexternal\b", declaration, re.IGNORECASE):
                    continue
            elif isinstance(dtype, ArrayType) or (name not in externals and not (
                    isinstance(dtype, ScalarType) and symbol.is_automatic)):
                continue
            if name not in converted:
                if isinstance(dtype, UnsupportedFortranType):
                    text = _standard_kind_text(declaration)
                else:
                    type_text = writer.gen_vardecl(symbol).split("::")[0].strip()
                    text = f"{_standard_kind_text(type_text)}, external :: {symbol.name}"
                owner = symbol.find_symbol_table(routine) or table
                owner._symbols.pop(owner._normalize(symbol.name))
                converted[name] = RoutineSymbol(symbol.name, UnsupportedFortranType(text))
                owner.add(converted[name])
            call = Call.create(converted[name], [i.detach() for i in list(ref.indices)])
            ref.replace_with(call)


# FORTRAN 77 specific intrinsic names and the generic intrinsic each one is
# (for arguments of its type).  fparser leaves specific names as opaque code
# blocks, so they are renamed before parsing; lines keep their numbers.
SPECIFIC_INTRINSICS = {
    "DSQRT": "SQRT", "DEXP": "EXP", "ALOG": "LOG", "DLOG": "LOG",
    "ALOG10": "LOG10", "DLOG10": "LOG10", "DSIN": "SIN", "DCOS": "COS",
    "DTAN": "TAN", "DASIN": "ASIN", "DACOS": "ACOS", "DATAN": "ATAN",
    "DATAN2": "ATAN2", "DSINH": "SINH", "DCOSH": "COSH", "DTANH": "TANH",
    "DABS": "ABS", "IABS": "ABS", "AMAX1": "MAX", "DMAX1": "MAX", "MAX0": "MAX",
    "AMIN1": "MIN", "DMIN1": "MIN", "MIN0": "MIN", "DSIGN": "SIGN",
    "ISIGN": "SIGN", "DDIM": "DIM", "IDIM": "DIM", "AMOD": "MOD", "DMOD": "MOD",
    "SNGL": "REAL", "DFLOAT": "DBLE", "DINT": "AINT", "DNINT": "ANINT",
    "IDINT": "INT", "IFIX": "INT", "IDNINT": "NINT",
    # double complex ones (GNU extensions): the generic returns the kind of
    # its argument
    "DCONJG": "CONJG", "DIMAG": "AIMAG", "DREAL": "REAL", "CDABS": "ABS",
    "CDSQRT": "SQRT", "CDEXP": "EXP", "CDLOG": "LOG", "CDSIN": "SIN", "CDCOS": "COS",
    "CABS": "ABS", "CSQRT": "SQRT", "CEXP": "EXP", "CLOG": "LOG", "CSIN": "SIN",
    "CCOS": "COS",
}
_SPECIFIC = re.compile(r"\b(" + "|".join(SPECIFIC_INTRINSICS) + r")(\s*\()", re.IGNORECASE)
# Any of the names as a word: every rename below matches one.
_ANY_SPECIFIC = re.compile(r"\b(?:" + "|".join(SPECIFIC_INTRINSICS) + r")\b", re.IGNORECASE)


_DOUBLE_COMPLEX = re.compile(r"^(\s*(?:\d+\s+)?(?:implicit\s+)?)(double\s*complex)\b",
                             re.IGNORECASE)


def standard_complex_types(source, fixed_form):
    """Write ``DOUBLE COMPLEX`` (a GNU extension gfortran -std=f2008
    rejects, and generated routines copy declarations) as ``complex(8)``,
    padded so that columns stay where they were."""
    if not re.search(r"double\s*complex", source, re.IGNORECASE):
        return source
    out = []
    for line in source.splitlines(keepends=True):
        if fixed_form and line[:1] in ("c", "C", "*", "!"):
            out.append(line)
            continue
        head, body = (line[:6], line[6:]) if fixed_form and not line.startswith("\t") \
            else ("", line)
        body = _DOUBLE_COMPLEX.sub(
            lambda m: m.group(1) + "complex(8)".ljust(len(m.group(2))), body)
        out.append(head + body)
    return "".join(out)


_ATAN = re.compile(r"\batan\s*\(", re.IGNORECASE)


def two_argument_atan(source, procedures=None, fixed_form=False):
    """``ATAN(y, x)`` (Fortran 2008), which fparser cannot read, as the
    ``ATAN2(y, x)`` it means; in code, the call and its arguments on one
    line.  A source that may see a user procedure ``atan`` keeps it.

    :param procedures: see :func:`generic_intrinsic_names`."""
    if not _ATAN.search(source):
        return source
    if procedures is None:
        procedures = declared_procedures(source, fixed_form)
    if "atan" in procedures:
        return source
    out = []
    for line in source.splitlines(keepends=True):
        code, comment = split_comment(line)
        if _ATAN.search(code):
            code = map_outside_strings(code, _atan2_calls)
        out.append(code + comment)
    return "".join(out)


# Reductions whose second argument is DIM when it is an integer, MASK when
# it is logical: PSyclone cannot tell which form SUM(a, 1) is.
_REDUCTION = re.compile(r"\b(sum|product|maxval|minval|maxloc|minloc|norm2|any|all|count|"
                        r"iall|iany|iparity|parity)\s*\(", re.IGNORECASE)
_DECLARATION_START = re.compile(
    r"^\s*(?:\d+\s+)?(?:double\s*precision|real|integer|logical|complex|character|type\s*\(|"
    r"dimension|common|external|intrinsic|function)\b", re.IGNORECASE)


def positional_dims(source, procedures=frozenset()):
    """``SUM(a, 1)`` as ``SUM(a, dim=1)`` (an integer literal second argument
    is the DIM of SUM, PRODUCT, MAXVAL… by the standard), in code with the
    call on one line.  A name the source declares or defines itself (an
    array ``count(n, 2)``, a function ``sum``) keeps its calls as they are."""
    if not _REDUCTION.search(source):
        return source
    taken = {name.lower() for name in procedures}
    for line in source.splitlines():
        code, _ = split_comment(line)
        if _DECLARATION_START.match(code):
            taken |= {m.group(1).lower() for m in _REDUCTION.finditer(code + "(")}
            taken |= {w.lower() for w in re.findall(r"\w+", code)
                      if _REDUCTION.match(w + "(")}
    out = []
    for line in source.splitlines(keepends=True):
        code, comment = split_comment(line)
        if _REDUCTION.search(code) and not _DECLARATION_START.match(code):
            code = map_outside_strings(code, lambda text: _named_dims(text, taken))
        out.append(code + comment)
    return "".join(out)


def _named_dims(code, taken):
    result, position = [], 0
    for match in _REDUCTION.finditer(code):
        if match.start() < position or match.group(1).lower() in taken:
            continue
        end = matching_paren(code, match.end() - 1)
        if end < 0:
            continue
        inside = code[match.end():end]
        arguments = split_top_level(inside)
        if len(arguments) < 2 or not re.fullmatch(r"\s*\d+\s*", arguments[1]) \
                or "=" in arguments[0]:
            continue
        depth, second = 0, None
        for index, char in enumerate(inside):
            depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(char, 0)
            if char == "," and depth == 0:
                second = index + 1
                break
        if second is None:
            continue
        result.append(code[position:match.end()] + inside[:second] + " dim="
                      + inside[second:].lstrip())
        position = end
    return "".join(result) + code[position:]


def _atan2_calls(code):
    result, position = [], 0
    for match in _ATAN.finditer(code):
        if match.start() < position:
            continue
        end = matching_paren(code, match.end() - 1)
        if end < 0:
            continue
        arguments = split_top_level(code[match.end():end])
        name = "atan2" if len(arguments) == 2 else code[match.start():match.end() - 1]
        result.append(code[position:match.start()] + name + "(")
        position = match.end()
    return "".join(result) + code[position:]


def generic_intrinsic_names(source, fixed_form, procedures=None):
    """Rename specific intrinsic calls (``DSQRT(x)``) to generic ones, outside
    comments and strings, unless a user procedure has the name.

    :param procedures: lower-case names of the user procedures the source
        may see (:mod:`adfort.procedure_names`); default: those it declares."""
    if not _ANY_SPECIFIC.search(source):
        return source   # (no line would change: the usual case, at a glance)
    if procedures is None:
        procedures = declared_procedures(source, fixed_form)
    declared = {name.upper() for name in procedures}
    names = {k: v for k, v in SPECIFIC_INTRINSICS.items() if k not in declared}
    if not names:
        return source
    out = []
    lines = source.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if fixed_form and line[:1] in ("c", "C", "*", "!"):
            out.append(line)
            continue
        line = _rename_before_continuation(line, lines[index + 1:], names, fixed_form)
        out.append(_rename_in_code(line, names))
    return "".join(out)


_TRAILING_SPECIFIC = re.compile(
    r"\b(" + "|".join(SPECIFIC_INTRINSICS) + r")(\s*&?\s*(?:!.*)?)$", re.IGNORECASE)


def _rename_before_continuation(line, following, names, fixed_form):
    """Rename a specific intrinsic name ending a line whose argument list
    opens on the continuation line (``abserr = dmax1`` / ``*  ((…), e)``)."""
    match = _TRAILING_SPECIFIC.search(line.rstrip("\r\n"))
    if not match or match.group(1).upper() not in names:
        return line
    for nxt in following:
        if fixed_form:
            if nxt[:1] in ("c", "C", "*", "!") or not nxt.strip():
                continue
            body = nxt[6:] if len(nxt) > 6 and nxt[5] not in (" ", "0") else None
        else:
            if not nxt.strip() or nxt.lstrip().startswith("!"):
                continue
            body = nxt.lstrip()
            body = body[1:] if body.startswith("&") else body
        if body is None or not body.lstrip().startswith("("):
            return line
        end = len(line.rstrip("\r\n"))
        return (line[:match.start(1)] + names[match.group(1).upper()]
                + line[match.end(1):end] + line[end:])
    return line


def _rename_in_code(line, names):
    code, comment = split_comment(line.rstrip("\r\n"))
    code = map_outside_strings(code, lambda text: _SPECIFIC.sub(
        lambda m: _generic(m, names), text))
    return code + comment + line[len(line.rstrip("\r\n")):]


def _generic(match, names):
    generic = names.get(match.group(1).upper())
    return (generic + match.group(2)) if generic else match.group(0)


_TYPE_DECLARATION = re.compile(
    r"^(?P<lead>\s*)(?P<type>double\s+precision|(?:real|integer|logical)"
    r"(?:\s*\*\s*\d+|\s*\([^)]*\))?)"
    # attributes (``, intent(in)``, ``, dimension(*)``), then ``::``
    r"(?:(?P<attributes>(?:\s*,\s*[a-z]+(?:\s*\((?:[^()]|\([^()]*\))*\))?)+)\s*::"
    r"|\s*(?:::)?)\s*(?P<entities>[a-z].*)$", re.IGNORECASE)


# What a declaration of an assumed-size array holds (``*)`` once blanks are
# removed): a test of the whole text first.
_ASSUMED_SIZE = re.compile(r"\*[ ]*\)")


def split_assumed_size_declarations(source, fixed_form):
    """Give each entity of a declaration listing an assumed-size array its
    own statement (on the same line): PSyclone cannot read such a shared
    declaration when it also declares other arguments."""
    if not _ASSUMED_SIZE.search(source):
        return source   # (no line would change: the usual case, at a glance)
    lines = source.splitlines(keepends=True)
    for number, line in enumerate(lines):
        body = line.rstrip("\r\n")
        if fixed_form and (body[:1] in ("c", "C", "*", "!")
                           or (len(body) > 5 and body[5] not in (" ", "0"))):
            continue
        if fixed_form and number + 1 < len(lines):
            following = lines[number + 1]
            if len(following) > 5 and following[:1] not in "cC*!" \
                    and following[5] not in (" ", "0", "\n", "\r"):
                continue  # continued declaration: left as it is
        width = 6 if fixed_form else 0
        match = _TYPE_DECLARATION.match(body[width:])
        if not match or "*)" not in match.group("entities").replace(" ", ""):
            continue
        entities = _split_dims(match.group("entities"))
        if len(entities) < 2 or "!" in match.group("entities"):
            continue
        spec = match.group("type")
        if match.group("attributes"):
            spec = f"{spec}{match.group('attributes')} ::"
        statements = "; ".join(f"{spec} {e}" for e in entities)
        lines[number] = body[:width] + match.group("lead") + statements + line[len(body):]
    return "".join(lines)


_HEADER = re.compile(r"^\s*(?:[\w\s(),=*]*\s)?(?:subroutine|function)\s+\w+\s*\(([^)]*)\)",
                     re.IGNORECASE)
_EXTERNAL = re.compile(r"^(\s*)external\s*(?:::)?\s*([\w\s,]+?)\s*$", re.IGNORECASE)
_ANY_EXTERNAL = re.compile(r"external", re.IGNORECASE)


def external_names(source, fixed_form):
    """Lower-case names listed in EXTERNAL statements of `source`."""
    names = set()
    if not _ANY_EXTERNAL.search(source):
        return names
    for line in source.splitlines():
        if fixed_form and line[:1] in ("c", "C", "*", "!"):
            continue
        match = _EXTERNAL.match(line[6:] if fixed_form else line)
        if match:
            names |= {n.strip().lower() for n in match.group(2).split(",") if n.strip()}
    return names


def drop_external_statements(source, fixed_form):
    """Comment out EXTERNAL statements that declare routines a routine calls
    (not its dummy arguments): calling an external routine needs no
    declaration, and PSyclone cannot represent a routine containing one."""
    if not _ANY_EXTERNAL.search(source):
        return source   # (no line would change: the usual case, at a glance)
    lines = source.splitlines(keepends=True)
    dummies = set()
    for number, line in enumerate(lines):
        body = line.rstrip("\r\n")
        if fixed_form and body[:1] in ("c", "C", "*", "!"):
            continue
        code = body[6:] if fixed_form else body
        header = _HEADER.match(code)
        if header:
            dummies = {a.strip().lower() for a in header.group(1).split(",")}
            continue
        match = _EXTERNAL.match(code)
        if match and not ({n.strip().lower() for n in match.group(2).split(",")} & dummies):
            comment = "C" if fixed_form else "!"
            lines[number] = f"{comment} {body.strip()}" + line[len(body):]
    return "".join(lines)


def _compose(origin, moved):
    """The origin of the text after a rewrite that moved lines: `moved`
    gives, per new line, the (file, line) in the rewrite's input, which
    `origin` (None: the user's own lines) maps to the user's sources."""
    if moved is None:
        return origin
    if origin is None:
        return moved
    return [origin[entry[1] - 1] if entry and 0 < entry[1] <= len(origin) else entry
            for entry in moved]


def _relocated(err, origin):
    """`err` with its ``file:line`` mapped through `origin`."""
    match = re.match(r"^(.*):(\d+)$", err.location or "")
    if origin and match and 0 < int(match.group(2)) <= len(origin) and \
            origin[int(match.group(2)) - 1]:
        err.location = "%s:%s" % origin[int(match.group(2)) - 1]
    return err


def _whole_statement(err, source, fixed):
    """`err` (fparser's, naming the last line of a statement it could not
    read) made to name the statement's first line and quote it whole, its
    continuation lines joined: ``y = x * 2.0d0 + 3.0 )``, not ``3.0 )``."""
    text = str(err)
    match = re.search(r"at line (\d+)\s*\n>>>", text)
    if not match:
        return err
    lines = source.splitlines()
    last = int(match.group(1))
    if not 0 < last <= len(lines):
        return err
    first = last
    while True:
        earlier = first - 1
        while earlier > 0 and _comment_or_blank(lines[earlier - 1], fixed):
            earlier -= 1
        if earlier < 1:
            break
        if fixed:
            if not _fixed_continuation(lines[first - 1]):
                break
        elif not _code_part(lines[earlier - 1]).rstrip().endswith("&"):
            break
        first = earlier
    if first == last:
        return err
    parts = []
    for line in lines[first - 1:last]:
        if _comment_or_blank(line, fixed):
            continue
        if fixed:
            line = line[6:]
        else:
            line = _code_part(line).strip()
            line = line[1:] if line.startswith("&") else line
            line = line[:-1] if line.endswith("&") else line
        parts.append(line.strip())
    statement = ""
    for part in (p for p in parts if p):
        # (Fixed form continues a name or number across lines: BE / TA.)
        glue = "" if fixed and statement[-1:].isalnum() and part[:1].isalnum() else " "
        statement = statement + glue + part if statement else part
    rest = text[match.end():].split("\n", 1)
    tail = "\n" + rest[1] if len(rest) > 1 else ""
    copy = _ReaderError if isinstance(err, _ReaderError) else SyntaxError
    return copy(f"at line {first}\n>>>{statement}{tail}")


def _comment_or_blank(line, fixed):
    stripped = line.strip()
    if not stripped or stripped.startswith("!"):
        return True
    return fixed and line[:1] in "cC*dD" and line[:1] != ""


def _fixed_continuation(line):
    return len(line) > 5 and line[5] not in " 0" and line[:1] not in "cC*!" and \
        not line[:5].strip("0123456789 ")


def _code_part(line):
    """`line` without a trailing ! comment (quotes respected)."""
    from adfort.units import split_comment
    return split_comment(line)[0]


def _syntax_location(path, err, origin=None):
    match = re.search(r"at line (\d+)", str(err))
    if not match:
        return path
    line = int(match.group(1))
    if origin and 0 < line <= len(origin) and origin[line - 1]:
        return "%s:%s" % origin[line - 1]
    return f"{path}:{line}"


class _ReaderError(Exception):
    """An error fparser's reader reports (it would log it and exit)."""


def _raise_reader_errors():
    """Make fparser's reader raise on an error (a mismatched END name…)
    instead of logging it and calling ``sys.exit(1)``, which left adfort
    exiting 1 without a word."""
    from fparser.common.readfortran import FortranReaderBase

    def error(self, message, item=None):
        line = item.span[0] if item is not None else max(1, self.linecount)
        text = self.source_lines[line - 1] if 0 < line <= len(self.source_lines) else ""
        raise _ReaderError(f"at line {line}\n>>>{text}\n{message}")

    error.__doc__ = FortranReaderBase.error.__doc__
    FortranReaderBase.error = error


_raise_reader_errors()


def _syntax_message(err):
    text = str(err)
    match = re.search(r"at line \d+\s*\n>>>(.*)", text)
    if match:
        unsupported = _unsupported_syntax(match.group(1))
        if unsupported:
            return unsupported
        detail = ""
        if isinstance(err, _ReaderError):
            detail = " (" + text.split("\n", 2)[2].replace(". Ignoring.", "").strip() + ")"
        return (f"Fortran syntax error in '{match.group(1).strip()}'{detail}: "
                "fix the source so that gfortran accepts it")
    first = text.strip().splitlines()[0] if text.strip() else type(err).__name__
    return f"cannot parse the file: {first}"


# Fortran fparser cannot read though gfortran does: (pattern, message).
_UNSUPPORTED_SYNTAX = (
    (re.compile(r"^\s*data\b.*[/,]\s*\d+\s*h", re.IGNORECASE),
     "a Hollerith constant in a DATA statement (4HABCD) is not supported: write it as a "
     "character constant ('ABCD') in a CHARACTER variable"),
    (re.compile(r"\w\s*\[[^\]]*\]"),
     "coarrays are not supported: differentiate the code one image runs"),
    (re.compile(r"\(\s*\.\.\s*\)"),
     "assumed-rank arrays (x(..)) are not supported: give the dummy its rank"),
)


def _unsupported_syntax(statement):
    """The message for a statement fparser cannot read because it holds
    something adfort does not support (not a syntax error), or None."""
    for pattern, message in _UNSUPPORTED_SYNTAX:
        if pattern.search(statement):
            return f"{message} ('{statement.strip()}')"
    return None


def routines(tree):
    """All Routine nodes of `tree`, in source order."""
    return tree.walk(Routine)


def enclosing_module(routine):
    """The module (Container, not FileContainer) holding `routine`, or None."""
    parent = routine.parent
    if isinstance(parent, Container) and not isinstance(parent, FileContainer):
        return parent
    return None


def find_routine(tree, name):
    """Return the routine called `name` (case-insensitive).

    :raises AdfortError: naming the routines there are, if it is missing.
    """
    found = [r for r in routines(tree) if r.name.lower() == name.lower()]
    if not found and unreadable(tree, name):
        raise unreadable(tree, name)
    if not found:
        filename = getattr(tree, "adfort_filename", None)
        inside = _program_internal(filename, name)
        if inside is not None:
            raise AdfortError(
                f"'{name}' is an internal procedure of the main program '{inside[1]}': "
                "adfort differentiates module procedures and external procedures; move it "
                "into a module (or after END PROGRAM)", f"{filename}:{inside[0]}")
        available = ", ".join(r.name for r in routines(tree)) or "none"
        raise AdfortError(f"no routine '{name}' in this file (routines: {available})",
                          filename)
    return found[0]


def _program_internal(filename, name):
    """(line, program name) of procedure `name` defined after the CONTAINS
    of a main program in file `filename`, else None (a quick look at the
    text, for the message)."""
    try:
        with open(filename, encoding="utf-8", errors="surrogateescape") as handle:
            lines = handle.read().splitlines()
    except (OSError, TypeError):
        return None
    program = None
    for number, line in enumerate(lines, 1):
        code = line.split("!", 1)[0].strip().lower()
        opened = re.match(r"program\s+(\w+)", code)
        if opened:
            program = opened.group(1)
        elif re.match(r"end\s*program\b", code):
            program = None
        elif program and re.match(rf"(?:[\w(),*\s]*\s)?(?:subroutine|function)\s+"
                                  rf"{re.escape(name.lower())}\b", code):
            return number, program
    return None
