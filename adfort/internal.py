"""Internal procedures (CONTAINS inside a subroutine or function) made
procedures of their own, before PSyclone reads the source.

PSyclone cannot represent a routine with internal procedures.  Each
internal procedure ``g`` of host ``s`` becomes ``s_g`` (see
:func:`adfort.naming.hoisted`), placed right after its host (in the same
module, or outside any module like its host); the host variables it uses
through host association (and those it needs for their bounds, and those
the internal procedures it calls use) become its leading dummy arguments,
declared as in the host, so that derivatives flow through them as through
any argument.  Host named constants are copied, host USE statements
repeated.  Every reference to ``g`` (calls, function references) becomes
``s_g(<host variables>, <arguments>)``.  Lines keep their origin.
"""

import re

from fparser.two import Fortran2003 as F
from fparser.two.utils import StmtBase

from adfort import implicit, naming, units
from adfort.errors import AdfortError

_SUBPROGRAMS = (F.Subroutine_Subprogram, F.Function_Subprogram)
_DROPPED_ATTRIBUTES = re.compile(r"^\s*(intent\s*\(.*\)|save|value)\s*$", re.IGNORECASE)


def hoist_internal_procedures(source, fixed_form, origin, path):
    """Rewrite internal procedures of `source` as procedures of their own.

    :param origin: (file, line) of each line of `source`, or None when the
        lines are those of `path`.
    :returns: (source, origin, names of the procedures made), source and
        origin unchanged when there are none.
    :raises AdfortError: for an internal procedure an external host cannot
        pass its host variables to (assumed shape, allocatable, pointer).
    """
    if not re.search(r"^[ \t]*contains\b", source, re.IGNORECASE | re.MULTILINE):
        return source, origin, set()
    found = units.scan(source, fixed_form)
    if found is not None and not found.has_internal_procedures():
        return source, origin, set()    # CONTAINS of modules only: no parse
    from psyclone.psyir.frontend.fparser2 import Fparser2Reader
    try:
        tree = Fparser2Reader(free_form=not fixed_form, ignore_comments=True) \
            .generate_parse_tree_from_source(source)
    except Exception:  # a syntax error: PSyclone reports it on the real parse
        return source, origin, set()
    hosts = [u for u in implicit._walk(tree) if isinstance(u, _SUBPROGRAMS)
             and any(isinstance(p, F.Internal_Subprogram_Part) for p in implicit._children(u))]
    if not hosts:
        return source, origin, set()
    lines = source.splitlines()
    if origin is None:
        origin = [(path, n) for n in range(1, len(lines) + 1)]
    taken = {implicit._unit_name(u) for u in implicit._walk(tree)
             if isinstance(u, _SUBPROGRAMS)}
    rewritten = {}   # line (1-based) -> (last line, [statement texts])
    moves = []       # (after line, [(text or line number)...])
    removed, made = set(), set()
    for host in hosts:
        made |= _hoist(host, lines, origin, fixed_form, taken, rewritten, moves, removed)
    return _assemble(lines, origin, fixed_form, rewritten, moves, removed) + (made,)


def _hoist(host, lines, origin, fixed_form, taken, rewritten, moves, removed):
    parts = implicit._children(host)
    host_name = implicit._unit_name(host)
    spec = next((p for p in parts if isinstance(p, F.Specification_Part)), None)
    statements = list(implicit._statements(spec)) if spec is not None else []
    part = next(p for p in parts if isinstance(p, F.Internal_Subprogram_Part))
    inners = [u for u in implicit._children(part) if isinstance(u, _SUBPROGRAMS)]
    host_decls = _declared_entities(statements)
    # FORTRAN 77 constants: typed in one statement, given their value in a
    # PARAMETER statement (INTEGER MX / PARAMETER (MX = 200)).
    parameters = {str(d.items[0]).lower() for s in statements if isinstance(s, F.Parameter_Stmt)
                  for d in implicit._walk(s) if isinstance(d, F.Named_Constant_Def)}

    def constant(name):
        return name in parameters or _is_constant(host_decls[name][0])
    external = _is_external(host)

    names = {}
    for inner in inners:
        name = naming.hoisted(host_name, implicit._unit_name(inner))
        while name.lower() in taken:
            name = naming.fit(name + "_")
        taken.add(name.lower())
        names[implicit._unit_name(inner)] = name

    # Host variables each internal procedure uses, then the closure over
    # the internal procedures it calls.
    own_uses, calls = {}, {}
    for inner in inners:
        inner_name = implicit._unit_name(inner)
        inner_parts = implicit._children(inner)
        inner_spec = next((p for p in inner_parts if isinstance(p, F.Specification_Part)), None)
        inner_statements = list(implicit._statements(inner_spec)) if inner_spec else []
        body = [p for p in inner_parts[1:] if not isinstance(p, F.Specification_Part)]
        declared, _ = implicit._declarations(inner_statements)
        args, result = implicit._interface(inner_parts[0], declared)
        local = set(declared) | set(args) | {inner_name} | ({result} if result else set())
        used = implicit._used_names(inner_statements + body)
        # (CALL statements name the procedure outside the names used.)
        called = {str(c.items[0]).lower() for c in implicit._walk(body)
                  if isinstance(c, F.Call_Stmt)}
        calls[inner_name] = [n for n in sorted(set(used) | called)
                             if n in names and n != inner_name]
        own_uses[inner_name] = [n for n in used if n not in local and n in host_decls
                                and not constant(n)]
    function_types = {}
    for inner in inners:
        if isinstance(inner, F.Function_Subprogram):
            inner_name = implicit._unit_name(inner)
            header = implicit._children(inner)[0]
            results = [n for n in implicit._walk(header.items[3]) if isinstance(n, F.Name)] \
                if header.items[3] is not None else []
            found = _function_type(inner, str(results[0]).lower() if results else inner_name)
            if found is not None:
                function_types[inner_name] = found
    _by_new = {new: old for old, new in names.items()}
    used_in_host = implicit._used_names(
        [p for p in parts if not isinstance(p, F.Internal_Subprogram_Part)])
    order = list(host_decls)
    passed = {}
    for inner_name in names:
        wanted, todo, seen = set(), [inner_name], set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            wanted |= set(own_uses[current])
            todo += calls[current]
        wanted |= _bound_names(wanted, host_decls, constant)
        passed[inner_name] = [n for n in order if n in wanted]
    # (The type of each FORTRAN 77 constant first, one per declaration.)
    constants = [_dummy_declaration(*host_decls[n]) for n in host_decls
                 if n in parameters and not _is_constant(host_decls[n][0])]
    constants += [s for s in statements if _is_constant(s)]
    uses = [s for s in statements if isinstance(s, F.Use_Stmt)]

    # References to the internal procedures, in the host and in each other.
    scopes = [([p for p in parts if not isinstance(p, F.Internal_Subprogram_Part)], set(names))]
    scopes += [(implicit._children(inner), set(names) - {implicit._unit_name(inner)})
               for inner in inners]
    for nodes, visible in scopes:
        for statement in _statements_referencing(nodes, visible):
            _rename_references(statement, {n: names[n] for n in visible}, passed)
            span = implicit._span(statement)
            rewritten[span[0]] = (span[1], [_statement_text(statement)])

    # The internal part leaves the host; each procedure follows the host.
    first, _ = implicit._span(_first_statement(part))
    last = max(implicit._span(s)[1] for s in _all_statements(part))
    removed.update(range(first, last + 1))
    after = implicit._span(parts[-1])[1]
    for inner in inners:
        inner_name = implicit._unit_name(inner)
        extra = passed[inner_name]
        if external:
            for variable in extra:
                statement, _ = host_decls[variable]
                if re.search(r"\b(allocatable|pointer)\b|\(\s*:", str(statement), re.IGNORECASE):
                    where_ = "%s:%s" % origin[implicit._span(inner.content[0])[0] - 1]
                    raise AdfortError(
                        f"internal procedure '{inner_name}' uses '{variable}' of its host "
                        f"'{host_name}', an assumed-shape, allocatable or pointer array: "
                        f"put '{host_name}' in a module (its internal procedures then need "
                        "no explicit interface)", where_)
        wanted = [names[n] for n in calls[inner_name] if n in function_types] \
            if external else []
        moves.append((after, _moved(inner, names[inner_name], extra, host_decls, constants,
                                    uses, [f"{function_types[_by_new[n]]}, external :: {n}"
                                           for n in wanted])))
    if external:
        # An external procedure calling the functions made: their types,
        # which the internal functions needed no declaration for (the
        # motions generated from the host call them as they are).
        typed = [n for n in names if n in function_types
                 and n in set(used_in_host)]
        if typed:
            moves.append((_declarations_anchor(host), [
                ("at", implicit._span(parts[0])[0])] + [
                f"{function_types[n]}, external :: {names[n]}" for n in typed]))
    return {name.lower() for name in names.values()}


def _declarations_anchor(unit):
    """The last line of `unit`'s header and USE, IMPORT and IMPLICIT
    statements: declarations may follow it."""
    parts = implicit._children(unit)
    anchor = implicit._span(parts[0])[1]
    spec = next((p for p in parts if isinstance(p, F.Specification_Part)), None)
    if spec is not None:
        heads = [s for s in implicit._statements(spec)
                 if isinstance(s, (F.Use_Stmt, F.Import_Stmt, F.Implicit_Stmt))]
        if heads:
            anchor = implicit._span(heads[-1])[1]
    return anchor


def _function_type(inner, result):
    """The type of the scalar result of the internal function `inner`
    (its prefix's or its result's declaration), as declaration text; None
    for an array, pointer or allocatable result or an implicit type."""
    header = implicit._children(inner)[0]
    prefix = header.items[0]
    if prefix is not None:
        for item in implicit._children(prefix):
            if isinstance(item, (F.Intrinsic_Type_Spec, F.Declaration_Type_Spec)):
                return str(item)
    spec = next((p for p in implicit._children(inner) if isinstance(p, F.Specification_Part)),
                None)
    for statement in implicit._statements(spec) if spec is not None else ():
        if not isinstance(statement, F.Type_Declaration_Stmt):
            continue
        for entity in implicit._walk(statement.items[2]):
            if isinstance(entity, F.Entity_Decl) and str(entity.items[0]).lower() == result:
                attributes = str(statement.items[1] or "").lower()
                if entity.items[1] is not None or re.search(
                        r"\b(dimension|pointer|allocatable)\b", attributes):
                    return None
                return str(statement.items[0])
    return None


def _is_external(unit):
    parent = getattr(unit, "parent", None)
    while parent is not None:
        if isinstance(parent, F.Module):
            return False
        parent = getattr(parent, "parent", None)
    return True


def _is_constant(statement):
    return isinstance(statement, F.Parameter_Stmt) or (
        isinstance(statement, F.Type_Declaration_Stmt) and statement.items[1] is not None
        and "parameter" in str(statement.items[1]).lower())


def _declared_entities(statements):
    """{name: (declaration statement, entity)} of a unit's type declarations."""
    found = {}
    for statement in statements:
        if isinstance(statement, F.Type_Declaration_Stmt):
            for entity in implicit._walk(statement.items[2]):
                if isinstance(entity, F.Entity_Decl):
                    found[str(entity.items[0]).lower()] = (statement, entity)
    return found


def _bound_names(names, host_decls, constant):
    """Host variables named in the bounds or kinds of `names`' declarations
    (not the constants: `constant(name)`)."""
    found, todo = set(), list(names)
    while todo:
        statement, entity = host_decls[todo.pop()]
        for node in implicit._walk([statement.items[0], statement.items[1], entity.items[1:]]):
            if isinstance(node, F.Name):
                name = str(node).lower()
                if name in host_decls and name not in found and name not in names \
                        and not constant(name):
                    found.add(name)
                    todo.append(name)
    return found


def _all_statements(node):
    for child in implicit._walk(node):
        if isinstance(child, StmtBase) and implicit._span(child):
            yield child


def _first_statement(node):
    return min(_all_statements(node), key=lambda s: implicit._span(s)[0])


def _statements_referencing(nodes, names):
    """The outermost statements under `nodes` that reference one of
    `names` as a procedure."""
    found, stack = [], list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, StmtBase) and implicit._span(node):
            if not isinstance(node, (F.Subroutine_Stmt, F.Function_Stmt)) and \
                    any(_reference_name(n) in names for n in implicit._walk(node)):
                found.append(node)
            continue
        if not isinstance(node, _SUBPROGRAMS + (F.Internal_Subprogram_Part,)) or \
                node in nodes:
            stack.extend(implicit._children(node))
    return found


def _reference_name(node):
    if isinstance(node, F.Call_Stmt) and isinstance(node.items[0], F.Name):
        return str(node.items[0]).lower()
    if isinstance(node, (F.Part_Ref, F.Function_Reference)) and isinstance(node.items[0], F.Name):
        return str(node.items[0]).lower()
    if isinstance(node, F.Structure_Constructor):  # f(): fparser's reading
        return str(node.items[0]).lower()
    return None


def _rename_references(statement, names, passed):
    for node in list(implicit._walk(statement)):
        name = _reference_name(node)
        if name not in names:
            continue
        extra = ", ".join(passed[name])
        args = node.items[1]
        text = f"{extra}, {args}" if extra and args is not None else (extra or str(args or ""))
        if isinstance(node, F.Call_Stmt):
            node.items = (F.Name(names[name]), F.Actual_Arg_Spec_List(text) if text else None)
        else:
            # (An actual argument list: a function reference read as an
            # array element may take literals and keywords, g(x, c=2d0).)
            node.items = (F.Name(names[name]), F.Actual_Arg_Spec_List(text) if text
                          else node.items[1])


def _statement_text(statement):
    label = getattr(getattr(statement, "item", None), "label", None)
    text = str(statement)
    if label and not text.lstrip().startswith(str(label)):
        text = f"{label} {text}"
    return text


def _moved(inner, new_name, extra, host_decls, constants, uses, functions=()):
    """The pieces of the hoisted procedure: texts (new lines) and line
    numbers (the internal procedure's own lines, moved).

    :param functions: declarations of the functions made that it calls."""
    parts = implicit._children(inner)
    header, end = parts[0], parts[-1]
    kind = "function" if isinstance(inner, F.Function_Subprogram) else "subroutine"
    prefix = f"{header.items[0]} " if header.items[0] is not None else ""
    args = [str(a) for a in implicit._children(header.items[2])] if header.items[2] else []
    suffix = ""
    if kind == "function":
        names = [n for n in implicit._walk(header.items[3]) if isinstance(n, F.Name)] \
            if header.items[3] is not None else []
        result = str(names[0]) if names else str(header.items[1])
        suffix = f" result({result})"
    pieces = [("at", implicit._span(header)[0]),
              f"{prefix}{kind} {new_name}({', '.join(extra + args)}){suffix}"]
    pieces += [str(u) for u in uses]
    first_spec = implicit._span(header)[1] + 1
    spec = next((p for p in parts if isinstance(p, F.Specification_Part)), None)
    anchor = implicit._span(header)[1]
    if spec is not None:
        heads = [s for s in implicit._statements(spec)
                 if isinstance(s, (F.Use_Stmt, F.Import_Stmt, F.Implicit_Stmt))]
        if heads:
            anchor = implicit._span(heads[-1])[1]
    # Constants first: the dummies' bounds may name them.
    declarations = [str(c) for c in constants]
    # A pure (or elemental) procedure only reads its host's variables, and
    # its dummies must say so.
    pure = re.search(r"\b(pure|elemental)\b", prefix, re.IGNORECASE) is not None and \
        re.search(r"\bimpure\b", prefix, re.IGNORECASE) is None
    declarations += [_dummy_declaration(*host_decls[v], intent_in=pure) for v in extra]
    declarations += list(functions)
    body = list(range(first_spec, anchor + 1)) + declarations + \
        list(range(anchor + 1, implicit._span(end)[0]))
    return pieces + body + [f"end {kind} {new_name}"]


def _dummy_declaration(statement, entity, intent_in=False):
    attributes = []
    if statement.items[1] is not None:
        attributes = [str(a) for a in implicit._children(statement.items[1])
                      if not _DROPPED_ATTRIBUTES.match(str(a))]
    if intent_in:
        attributes.append("INTENT(IN)")
    head = ", ".join([str(statement.items[0])] + attributes)
    text = str(entity)
    return f"{head} :: {text}"


def _assemble(lines, origin, fixed_form, rewritten, moves, removed):
    """The new text: rewritten statements in place, internal parts taken out
    and their procedures placed after their hosts."""
    def emit(number, out, out_origin):
        where_ = origin[number - 1]
        if number in rewritten:
            new = implicit._layout(rewritten[number][1][0], fixed_form)
            out += new
            out_origin += [where_] * len(new)
        elif any(start < number <= last for start, (last, _) in rewritten.items()):
            out.append("")
            out_origin.append(where_)
        else:
            out.append(lines[number - 1])
            out_origin.append(where_)

    placed = {}
    for after, pieces in moves:
        placed.setdefault(after, []).append(pieces)
    out, out_origin = [], []
    for number in range(1, len(lines) + 1):
        if number not in removed:
            emit(number, out, out_origin)
        for pieces in placed.get(number, ()):
            anchor = origin[number - 1]
            for piece in pieces:
                if isinstance(piece, tuple):
                    anchor = origin[piece[1] - 1]
                elif isinstance(piece, int):
                    anchor = origin[piece - 1]
                    emit(piece, out, out_origin)
                else:
                    new = implicit._layout(piece, fixed_form)
                    out += new
                    out_origin += [anchor] * len(new)
    return "".join(line + "\n" for line in out), out_origin
