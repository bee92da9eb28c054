"""Statements and expressions that only run forward: input/output, STOP,
and character expressions PSyclone keeps as code blocks.

PSyclone does not represent I/O statements, STOP or the concatenation
operator ``//``: it keeps them as opaque CodeBlocks.  None of them carries a
derivative, so a differentiated routine may keep them as they are: the
recording motion runs them exactly where the original does (the advancing
motion is the original itself), and the returning motion skips them, so
that nothing is printed, read or stopped twice or in reverse.

What they change still matters to taping: a ``READ`` into an integer the
adjoint uses as a subscript, an internal ``WRITE`` into a character
variable, an ``IOSTAT=`` result.  :func:`written_names` lists the variables
a kept statement may change (a may-write, like a call's), and the taping
plan saves their old values when the returning motion needs them.
"""

from fparser.two import Fortran2003
from fparser.two.utils import walk
from psyclone.psyir.nodes import CodeBlock
from psyclone.psyir.symbols import DataSymbol, RoutineSymbol, ScalarType

from adfort.errors import AdfortError, where, where_statement

# fparser class names of the statements kept in the forward motions.
_OUTPUT = {"Write_Stmt", "Print_Stmt"}
_INPUT = {"Read_Stmt"}
_FILES = {"Open_Stmt", "Close_Stmt", "Inquire_Stmt", "Rewind_Stmt", "Backspace_Stmt",
          "Endfile_Stmt", "Flush_Stmt", "Wait_Stmt"}
_STOPS = {"Stop_Stmt", "Error_Stop_Stmt"}
_FORMATS = {"Format_Stmt"}
# A character assignment to a substring of an array element, names(1)(1:2)
# = 'ab' (made a code block by :func:`keep_substring_assignments`).
_SUBSTRING_ASSIGNMENTS = {"Assignment_Stmt"}
# Intrinsic subroutines that only query or draw from the program's
# environment (made code blocks by :func:`keep_intrinsic_calls`): timers,
# the date, random numbers, the command line; and MVBITS, on integers.  {name: (positions,
# keywords) of the arguments it only reads}; it may set every other one.
KEPT_CALLS = {
    "CPU_TIME": ((), ()),
    "SYSTEM_CLOCK": ((), ()),
    "DATE_AND_TIME": ((), ()),
    "RANDOM_NUMBER": ((), ()),
    "RANDOM_SEED": ((1,), ("PUT",)),
    "RANDOM_INIT": ((0, 1), ("REPEATABLE", "IMAGE_DISTINCT")),
    "GET_COMMAND": ((), ()),
    "GET_COMMAND_ARGUMENT": ((0,), ("NUMBER",)),
    "GET_ENVIRONMENT_VARIABLE": ((0, 4), ("NAME", "TRIM_NAME")),
    "EXECUTE_COMMAND_LINE": ((0, 1), ("COMMAND", "WAIT")),
    "MVBITS": ((0, 1, 2, 4), ("FROM", "FROMPOS", "LEN", "TOPOS")),
}
# Those a second run would answer differently (other numbers, the command
# run again): like a READ from a file, they must run once per call.
_DRAWING_CALLS = {"RANDOM_NUMBER", "EXECUTE_COMMAND_LINE"}
_CALLS = {"Call_Stmt"}
_KEPT = _OUTPUT | _INPUT | _FILES | _STOPS | _FORMATS | _SUBSTRING_ASSIGNMENTS | _CALLS

# Specifiers whose variables an I/O statement sets (INQUIRE sets all of
# its specifiers but these).
_SETTING_SPECIFIERS = {"IOSTAT", "IOMSG", "SIZE", "NEWUNIT", "ID"}
_INQUIRE_INPUTS = {"UNIT", "FILE", "ID"}
_SPECIFIER_CLASSES = ("Io_Control_Spec", "Connect_Spec", "Close_Spec", "Position_Spec",
                      "Flush_Spec", "Wait_Spec")

# Expressions PSyclone keeps as code blocks that yield a character value:
# concatenation, a // b, and a substring of an array element, names(i)(1:2)
# (or of an array section: PSyclone reads both as Array_Section).
_CHARACTER_EXPRESSIONS = {"Level_3_Expr", "Array_Section"}


def _kinds(block):
    return {type(node).__name__ for node in block.parse_tree_nodes}


def is_forward_only(node):
    """Whether `node` is a CodeBlock of statements kept in the forward
    motions only (I/O, STOP, FORMAT)."""
    if not isinstance(node, CodeBlock) or node.structure != CodeBlock.Structure.STATEMENT:
        return False
    kinds = _kinds(node)
    if kinds & _SUBSTRING_ASSIGNMENTS and not getattr(node, "adfort_substring", False):
        return False   # an assignment PSyclone could not read: not ours to keep
    if kinds & _CALLS and not all(kept_call_name(ast) for ast in node.parse_tree_nodes
                                  if type(ast).__name__ in _CALLS):
        return False   # a call PSyclone could not read: not ours to keep
    return bool(kinds) and kinds <= _KEPT


def kept_call_name(ast):
    """The upper-case name of the intrinsic subroutine a kept ``CALL``
    statement calls (``CPU_TIME``), or None for any other statement."""
    if type(ast).__name__ not in _CALLS:
        return None
    name = str(ast.items[0]).strip().upper()
    return name if name in KEPT_CALLS else None


def is_kept_statement(ast):
    """Whether the parse-tree statement `ast` is one kept in the forward
    motions only (I/O, STOP, FORMAT)."""
    kind = type(ast).__name__
    return (kind in _KEPT and kind not in _SUBSTRING_ASSIGNMENTS
            and (kind not in _CALLS or kept_call_name(ast) is not None))


def is_character_expression(node):
    """Whether `node` is a CodeBlock holding a character expression
    (``'FG' // task(3:)``): a passive value PSyclone cannot represent."""
    return (isinstance(node, CodeBlock) and node.structure == CodeBlock.Structure.EXPRESSION
            and bool(_kinds(node)) and _kinds(node) <= _CHARACTER_EXPRESSIONS)


def reads_external_input(block, table):
    """Whether a kept CodeBlock reads from a file or the terminal (not from
    an internal file, a character variable): running it again would read
    other data."""
    for node in block.parse_tree_nodes:
        if kept_call_name(node) in _DRAWING_CALLS:
            return True
        if type(node).__name__ != "Read_Stmt":
            continue
        if node.items[0] is None:
            return True   # READ fmt, list: standard input
        unit = _unit(node.items[0])
        variable = str(unit).split("(")[0].strip().lower() if unit is not None else ""
        if not _is_character(table, variable):
            return True
    return False


def _unit(controls):
    """The unit of an I/O control list: the first positional item or UNIT=."""
    for position, spec in enumerate(walk(controls, Fortran2003.Io_Control_Spec)):
        keyword, value = spec.items
        if (keyword is None and position == 0) or (keyword or "").upper() == "UNIT":
            return value
    return None


def _names(node):
    return {str(name).lower() for name in walk(node, Fortran2003.Name)}


def _is_character(table, name):
    symbol = table.lookup(name, otherwise=None) if table is not None else None
    dtype = getattr(symbol, "datatype", None)
    element = getattr(dtype, "elemental_type", dtype)
    return getattr(element, "intrinsic", None) == ScalarType.Intrinsic.CHARACTER


def written_names(block, table):
    """Lower-case names of the variables the statements of a kept CodeBlock
    may change (over-approximated: every name of a READ's input list, its
    subscripts included).

    :param table: the symbol table the names are looked up in (to tell an
        internal file, a character variable, from a unit number).
    """
    names = set()
    for node in block.parse_tree_nodes:
        names |= _statement_writes(node, table)
    return names


def _statement_writes(node, table):
    """:func:`written_names` of one parse-tree statement."""
    kind = type(node).__name__
    if kind in _STOPS or kind in _FORMATS or kind == "Print_Stmt":
        return set()
    if kind == "Assignment_Stmt":
        return {str(node.items[0]).split("(")[0].strip().lower()}
    if kind in _CALLS:
        return {name for name, _ in _call_arguments(node, written=True)}
    names = set()
    if kind == "Read_Stmt" and node.items[2] is not None:
        names |= _names(node.items[2])
    if kind == "Write_Stmt" and node.items[0] is not None:
        unit = _unit(node.items[0])
        if unit is not None:
            unit_names = _names(unit)
            variable = str(unit).split("(")[0].strip().lower()
            if variable in unit_names and _is_character(table, variable):
                names.add(variable)   # an internal file
    if kind == "Inquire_Stmt":
        for spec in walk(node, Fortran2003.Inquire_Spec):
            keyword, value = spec.items
            if (keyword or "").upper() not in _INQUIRE_INPUTS:
                names |= _names(value)
        if node.items[1] is not None:   # INQUIRE(IOLENGTH=n) list
            names |= _names(node.items[1])
        return names
    for spec in walk(node, tuple(getattr(Fortran2003, c) for c in _SPECIFIER_CLASSES)):
        keyword, value = spec.items
        if (keyword or "").upper() in _SETTING_SPECIFIERS:
            names |= _names(value)
    return names


def io_flows(block, table):
    """How values move through the kept I/O statements of a CodeBlock:
    [(sources, sink)] for what a WRITE or PRINT writes and [(source,
    sinks)] for what a READ reads, each side a list.  A file is the
    lower-case name of an internal file (a character variable) or
    ``("unit", text)`` for a unit (standard input and output are
    ``("unit", "*in")`` and ``("unit", "*out")``: nothing printed is read
    back); the other items are lower-case variable names.  A value written
    to a file and read back (``write(buf, *) x*x; read(buf, *) a``) then
    carries its derivative to what is read, which the fence rejects."""
    flows = []
    for node in block.parse_tree_nodes:
        kind = type(node).__name__
        if kind == "Print_Stmt":
            if node.items[1] is not None:
                flows.append((sorted(_names(node.items[1])), [("unit", "*out")]))
        elif kind in ("Write_Stmt", "Read_Stmt"):
            writing = kind == "Write_Stmt"
            items = node.items[1] if writing else node.items[2]
            unit = _unit(node.items[0]) if node.items[0] is not None else None
            if unit is None or str(unit).strip() == "*":
                file = ("unit", "*out" if writing else "*in")
            else:
                variable = str(unit).split("(")[0].strip().lower()
                file = variable if _is_character(table, variable) else \
                    ("unit", str(unit).replace(" ", "").lower())
            if items is None:
                continue
            names = sorted(_names(items))
            flows.append((names, [file]) if writing else ([file], names))
        elif kind in _CALLS:
            # What a timer, the random generator or the environment gives
            # carries no derivative; a seed put in is not one either.
            source = [("unit", "*" + kept_call_name(node).lower())]
            sinks = sorted(name for name, _ in _call_arguments(node, written=True))
            if sinks:
                flows.append((source, sinks))
    return flows


def _call_arguments(ast, written):
    """[(lower-case variable name, actual text)] of the arguments a kept
    intrinsic ``CALL`` may set (`written`) or only reads (the base name of
    each actual: ``vals(1:8)`` sets ``vals``)."""
    positions, keywords = KEPT_CALLS[kept_call_name(ast)]
    args = ast.items[1].items if ast.items[1] is not None else ()
    found = []
    for position, arg in enumerate(args):
        keyword, value = (arg.items if type(arg).__name__ == "Actual_Arg_Spec"
                          else (None, arg))
        reads = (str(keyword).upper() in keywords if keyword is not None
                 else position in positions)
        if reads == written:
            continue
        text = str(value)
        if written:
            found.append((text.split("(")[0].split("%")[0].strip().lower(), text))
        else:
            found.extend((name, text) for name in sorted(_names(value)))
    return found


def namelist_input(block):
    """Whether a kept CodeBlock reads or writes a NAMELIST (the variables
    are not written in the statement)."""
    for spec in walk(block.parse_tree_nodes, Fortran2003.Io_Control_Spec):
        keyword, _ = spec.items
        if (keyword or "").upper() == "NML":
            return True
    return False


def check_forward_only(block, active, filename, table):
    """Reject a kept statement that would silently lose a derivative.

    :param active: lower-case names of the routine's active variables.
    :raises AdfortError: for a READ (or other I/O) setting an active
        variable, and for a NAMELIST READ.
    """
    if namelist_input(block):
        if any(type(node).__name__ == "Read_Stmt" for node in block.parse_tree_nodes):
            raise AdfortError(
                "a NAMELIST READ in a differentiated routine: adfort cannot see which "
                "variables it sets; read the namelist outside and pass the values in as "
                "arguments", where(block, filename))
        raise AdfortError(
            "a NAMELIST WRITE in a differentiated routine: adfort does not declare NAMELIST "
            "groups in the routines it generates; write the variables by name (write(*, *) "
            "a, b) or move the WRITE out of the routine", where(block, filename))
    for ast in block.parse_tree_nodes:
        # (A kept CALL's own name is an intrinsic's: its arguments count.)
        for name in sorted(_names(ast.items[1] if kept_call_name(ast) else ast)):
            symbol = table.lookup(name, otherwise=None)
            if _impure_procedure(symbol):
                raise AdfortError(
                    f"this I/O statement calls '{name}': adfort cannot follow calls inside "
                    "I/O statements (what the procedure changes would go unnoticed); "
                    "assign its value to a variable before the statement and write that",
                    where_statement(block, ast, filename))
    for ast in block.parse_tree_nodes:
        hit = sorted(_statement_writes(ast, table) & set(active))
        if hit and kept_call_name(ast):
            plural = "s" if len(hit) > 1 else ""
            raise AdfortError(
                f"CALL {kept_call_name(ast)} sets the active variable{plural} "
                f"{', '.join(repr(h) for h in hit)}: what it gives carries no derivative, "
                "and adfort does not differentiate through intrinsic subroutines; give "
                "it another (passive) variable and assign that", where_statement(
                    block, ast, filename))
        if hit:
            raise AdfortError(
                f"this I/O statement sets the active variable{'s' if len(hit) > 1 else ''} "
                f"{', '.join(repr(h) for h in hit)}: a value read in carries no derivative "
                "(even one the routine wrote to the file or internal file it reads), so "
                "the adjoint would be silently dropped; read it into another (passive) "
                "variable, or read it outside the routine and pass it in",
                where_statement(block, ast, filename))


def _impure_procedure(symbol):
    """Whether `symbol` is a user procedure that may change something (not
    declared PURE, or ELEMENTAL without IMPURE)."""
    if isinstance(symbol, RoutineSymbol):
        return not (symbol.is_pure or symbol.is_elemental and symbol.is_pure is not False)
    return symbol is not None and not isinstance(symbol, DataSymbol) and \
        not symbol.is_import and not symbol.is_unresolved


def check_character_expression(block, filename, table):
    """A character expression must not call a user function: adfort cannot
    see calls inside a code block (what they change would go unnoticed).

    :raises AdfortError: naming the function.
    """
    for name in block.get_symbol_names():
        symbol = table.lookup(name, otherwise=None)
        if isinstance(symbol, RoutineSymbol) or (
                symbol is not None and not isinstance(symbol, DataSymbol)
                and not symbol.is_import and not symbol.is_unresolved):
            raise AdfortError(
                f"the character expression '{str(block.parse_tree_nodes[0])}' calls "
                f"'{name}': adfort cannot follow calls inside a concatenation; assign "
                "the function's value to a variable first", where(block, filename))


def kept_statement_writes(routine):
    """{id(CodeBlock): lower-case names it may change} for every kept
    statement of `routine` (those that change nothing are left out)."""
    table = routine.symbol_table
    found = {}
    for block in routine.walk(CodeBlock):
        if is_forward_only(block):
            names = written_names(block, table)
            if names:
                found[id(block)] = names
    return found



_REASON = "PSyclone CodeBlock (unsupported code) reason:"


def drop_reason_comment(block):
    """Remove the comment PSyclone puts on a code block to say why it kept
    it opaque (generated code must read as written by hand); the user's own
    comment stays."""
    comment = block.preceding_comment or ""
    if _REASON not in comment:
        return
    lines = comment.split("\n")
    start = lines.index(_REASON) if _REASON in lines else len(lines)
    end = start + 1
    while end < len(lines) and lines[end].startswith(" - "):
        end += 1
    block.preceding_comment = "\n".join(lines[:start] + lines[end:])


# The "caller" of a link in run_twice's reasons that stands for a
# checkpointed time loop (its steps run forward again from snapshots).
CHECKPOINTED = "<checkpointed loop>"


def run_twice(top, chosen, schedule, jacobian, why=None):
    """ids of the differentiated units whose recording (or advancing run)
    may run more than once per call of the differentiated routine: below a
    call reversed joint, and in the step of a checkpointed time loop, which
    runs forward again from its snapshots.

    :param why: a dict given {id(unit): [(caller, callee) names of the
        joint links on a call path making it run again; a checkpointed
        loop is (:data:`CHECKPOINTED`, the routine holding it)]}."""
    if jacobian:
        return {id(u) for u in chosen}   # r_jacobian reverses once per row
    steps = getattr(schedule, "steps", set())
    twice, seen = set(), set()
    pending = [(top, False, ())]
    while pending:
        unit, again, links = pending.pop()
        if (id(unit), again) in seen:
            continue
        seen.add((id(unit), again))
        if again:
            twice.add(id(unit))
            if why is not None:
                why.setdefault(id(unit), list(links))
        for callee in unit.calls.values():
            if callee in chosen and not getattr(callee, "opaque", False):
                # A call reversed joint runs the callee forward twice.
                joint = not schedule.is_split(unit.name, callee.name)
                step = callee.name.lower() in steps
                link = ((CHECKPOINTED, unit.name),) if step else \
                    ((unit.name, callee.name),) if joint else ()
                pending.append((callee, again or joint or step, links + link))
    return twice


def rerun_advice(links, name, jacobian):
    """(why the routine `name` runs again, the advice that avoids it) for a
    message, from its :func:`run_twice` reasons `links`."""
    if jacobian:
        return "--jacobian reverses the routine once per row", ""
    loops = [owner for caller, owner in links if caller == CHECKPOINTED]
    joint = [(a, b) for a, b in links if a != CHECKPOINTED]
    if loops and not joint:
        return (f"the checkpointed time loop of '{loops[0]}' runs its steps forward again "
                "from the snapshots",
                f", or do not checkpoint that loop")
    joint = joint or [("caller", name)]
    return ("a call reversed joint runs its routine forward twice",
            f", or reverse the calls of '{name}' split (--schedule split or "
            + " ".join(f"--link {a.lower()}:{b.lower()}=split" for a, b in joint) + ")"
            + (f" and do not checkpoint the loop of '{loops[0]}'" if loops else ""))


def check_repeated_input(top, chosen, schedule, jacobian, filename):
    """A READ from a file or the terminal must run once per call of the
    differentiated routine: where the recording runs again it would read
    other data, and the derivative would silently belong to other inputs.

    :param top: the differentiated routine's unit; :param chosen: the units
        whose motions are generated.
    :raises AdfortError: at such a READ.
    """
    from adfort.errors import source_name
    why = {}
    twice = run_twice(top, chosen, schedule, jacobian, why)
    for unit in chosen:
        if id(unit) not in twice:
            continue
        table = unit.original.symbol_table
        for block in unit.original.walk(CodeBlock):
            if not (is_forward_only(block) and reads_external_input(block, table)):
                continue
            how, fix = rerun_advice(why.get(id(unit), []), unit.name, jacobian)
            place = where(block, source_name(unit.original) or filename)
            drawn = [kept_call_name(ast) for ast in block.parse_tree_nodes
                     if kept_call_name(ast) in _DRAWING_CALLS]
            if drawn:
                outside = ("draw the numbers outside the differentiated routines and pass "
                           "them in" if drawn[0] == "RANDOM_NUMBER" else
                           "run the command outside the differentiated routines")
                raise AdfortError(
                    f"this CALL {drawn[0]} would run more than once per call ({how}) and "
                    f"{'draw other numbers' if drawn[0] == 'RANDOM_NUMBER' else 'run the command again'} "
                    f"the second time: {outside}{fix}", place)
            if _pause_at(place):
                raise AdfortError(
                    f"this PAUSE (which writes a message and waits for a line of input) "
                    f"would run more than once per call ({how}): remove it or replace it "
                    f"with a WRITE{fix}", place)
            raise AdfortError(
                f"this READ would run more than once per call ({how}) and read other "
                "data the second time: read the data outside the differentiated "
                f"routines and pass it in{fix}", place)


def _pause_at(place):
    """Whether the user's line at ``file:line`` `place` holds a PAUSE (which
    the front end writes as a WRITE and a READ)."""
    import re
    filename, _, line = (place or "").rpartition(":")
    if not line.isdigit():
        return False
    try:
        with open(filename, encoding="utf-8", errors="surrogateescape") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return False
    number = int(line)
    return 0 < number <= len(lines) and bool(
        re.search(r"\bpause\b", lines[number - 1].split("!", 1)[0], re.IGNORECASE))


def keep_substring_assignments(tree):
    """Make each assignment to a substring of an array element (``names(1)
    (1:2) = 'ab'``, which PSyclone reads with an opaque left-hand side) a
    kept statement: a character value, passive, set in the forward motions
    only (it may change the array: a may-write).  Only character substrings
    take this form (``Array_Section``); anything else is left to the fence."""
    from fparser.two.Fortran2003 import Assignment_Stmt
    from psyclone.psyir.nodes import Assignment, Fparser2CodeBlock
    for assign in tree.walk(Assignment):
        if not isinstance(assign.lhs, CodeBlock) or \
                _kinds(assign.lhs) != {"Array_Section"}:
            continue
        statement = assign.ast   # the statement as written (with its line)
        if not isinstance(statement, Assignment_Stmt):
            statement = Assignment_Stmt(f"{assign.lhs.ast} = {assign.rhs.debug_string()}")
        block = Fparser2CodeBlock([statement], CodeBlock.Structure.STATEMENT)
        block.ast = statement
        block.adfort_substring = True
        assign.replace_with(block)


def keep_intrinsic_calls(tree):
    """Make each call of an intrinsic subroutine that only queries or draws
    from the program's environment (``CALL CPU_TIME(t0)``, ``CALL
    SYSTEM_CLOCK(c, rate)``, ``CALL RANDOM_NUMBER(r)``: :data:`KEPT_CALLS`)
    a kept statement: it runs in the forward motions where the original
    runs it, and what it sets is a may-write, saved where the returning
    motion needs it, like a READ's input list."""
    from fparser.two.Fortran2003 import Call_Stmt
    from psyclone.psyir.nodes import Fparser2CodeBlock, IntrinsicCall, Schedule
    for call in tree.walk(IntrinsicCall):
        if call.intrinsic.name not in KEPT_CALLS or not isinstance(call.parent, Schedule):
            continue
        statement = getattr(call, "ast", None)
        if not isinstance(statement, Call_Stmt):
            statement = Call_Stmt("CALL " + call.debug_string().strip())
        block = Fparser2CodeBlock([statement], CodeBlock.Structure.STATEMENT)
        block.ast = statement
        call.replace_with(block)
