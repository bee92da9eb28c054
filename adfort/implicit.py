"""Implicit typing made explicit, before PSyclone reads the source.

PSyclone represents only declared variables: a FORTRAN 77 routine whose
reals are typed by the letter they start with (no IMPLICIT NONE, the default
rules or ``IMPLICIT DOUBLE PRECISION (A-H,O-Z)``) would be kept as an opaque
code block.  This rewrite gives every implicitly typed name of a scoping
unit (dummy arguments, locals, COMMON members, named constants, external
functions, a function's result) a declaration of the type a compiler gives
it, and turns DIMENSION statements and array bounds written in COMMON
statements into declarations, so that everything downstream sees declared
variables of the right kind (a ``real*8`` variable is taped and its adjoint
declared ``real*8``).

Declarations are inserted after the unit's USE and IMPLICIT statements
(whose IMPLICIT lines, other than IMPLICIT NONE, are blanked); a DIMENSION
statement is replaced where it stands, since its bounds may name constants
defined just above it.  The line origin map follows every added line.
"""

import re

from fparser.two import Fortran2003 as F
from psyclone.psyir.nodes import IntrinsicCall

from adfort import units

_UNITS = (F.Subroutine_Subprogram, F.Function_Subprogram, F.Main_Program, F.Module)
_HEADERS = (F.Subroutine_Stmt, F.Function_Stmt, F.Program_Stmt, F.Module_Stmt)
_CONTAINED = (F.Internal_Subprogram_Part, F.Module_Subprogram_Part)
# Statements whose names are not variables of the unit.
_SKIPPED = (F.Use_Stmt, F.Implicit_Stmt, F.Format_Stmt, F.Intrinsic_Stmt,
            F.External_Stmt, F.Namelist_Stmt, F.Interface_Block, F.Derived_Type_Def,
            F.Access_Stmt, F.Exit_Stmt, F.Cycle_Stmt, F.End_Do_Stmt, F.End_If_Stmt,
            F.End_Select_Stmt, F.Goto_Stmt, F.Computed_Goto_Stmt,
            F.Subroutine_Stmt, F.Function_Stmt, F.Program_Stmt, F.Module_Stmt) + _CONTAINED
_INTRINSICS = {name.lower() for name in IntrinsicCall.Intrinsic.__members__}
# GNU intrinsics the front end turns into standard ones after this pass
# (fparser may read DCMPLX(0d0, 0d0) as an array element).
_GNU_INTRINSICS = {"dcmplx"}
_DEFAULT_RULES = {chr(c): ("INTEGER" if "i" <= chr(c) <= "n" else "REAL")
                  for c in range(ord("a"), ord("z") + 1)}


def declare_implicit(source, fixed_form, origin, path, modules=None):
    """Declare the implicitly typed names of `source` explicitly.

    :param str source: the text to be parsed.
    :param bool fixed_form: whether it is fixed form.
    :param origin: (file, line) of each line of `source`, or None when the
        lines are those of `path`.
    :param modules: ``modules(name)`` gives (module :class:`units.Unit`,
        names of its procedures) of a module of another file, or None
        (see :meth:`adfort.reading.ReadPlan.module_scan`).
    :returns: (source, origin), unchanged when nothing is implicit.
    """
    if not _may_need(source):
        return source, origin
    found = units.scan(source, fixed_form)
    if found is not None and found.all_typed_explicitly() and not _DIMENSIONED.search(source):
        return source, origin   # every scope under IMPLICIT NONE: no parse
    from psyclone.psyir.frontend.fparser2 import Fparser2Reader
    try:
        tree = Fparser2Reader(free_form=not fixed_form, ignore_comments=True) \
            .generate_parse_tree_from_source(source)
    except Exception:  # a syntax error: PSyclone reports it on the real parse
        return source, origin
    edits = _Edits()
    brought = _Brought(found, modules)
    for unit in _children(tree):
        if isinstance(unit, _UNITS):
            _scope(unit, dict(_DEFAULT_RULES), set(), edits, _all_units(tree),
                   (set(), False), brought)
    if not edits:
        return source, origin
    lines = source.splitlines()
    if origin is None:
        origin = [(path, n) for n in range(1, len(lines) + 1)]
    return edits.apply(lines, origin, fixed_form)


def _may_need(source):
    """Cheap test: some unit lacks IMPLICIT NONE, or a DIMENSION statement
    or a dimensioned COMMON member is there."""
    units = len(re.findall(r"^[^!\n]*\b(?:subroutine|function|program|module)\s+\w+",
                           source, re.IGNORECASE | re.MULTILINE))
    nones = len(re.findall(r"^[ \t]*implicit\s*none", source, re.IGNORECASE | re.MULTILINE))
    return nones < units or _DIMENSIONED.search(source) is not None


_DIMENSIONED = re.compile(r"^[ \t]*(?:dimension\b|common\s*/[^/]*/.*\()",
                          re.IGNORECASE | re.MULTILINE)


class _Brought:
    """What a USE without ONLY may bring into a scope.

    :param found: the :class:`units.Scan` of the source (or None).
    :param modules: ``modules(name)`` for modules of other files, or None.
    """

    def __init__(self, found, modules):
        self._local = {} if found is None else {
            u.name: (u, {v.name for v in found.units if v.module == u.name})
            for u in found.units if u.kind == "module"}
        self._modules = modules
        self._memo = {}

    def names(self, module, _stack=()):
        """Lower-case names ``use module`` may bring: every identifier of
        its specification part, its procedures and what its own USEs bring
        (more than it declares, never less); None when adfort cannot see it
        or a module it uses."""
        if module in self._memo:
            return self._memo[module]
        if module in _stack:
            return set()
        entry = self._local.get(module) or (self._modules(module) if self._modules else None)
        names = None
        if entry is not None:
            unit, procedures = entry
            names = set(unit.names) | set(procedures)
            for used in sorted(unit.uses):
                more = self.names(used, _stack + (module,))
                if more is None:
                    names = None
                    break
                names |= more
        self._memo[module] = names
        return names


class _Edits:
    """Line edits: statements replaced, lines inserted after a line."""

    def __init__(self):
        self.replaced = {}   # first line (1-based) -> (last line, [statement texts])
        self.inserted = {}   # line (1-based) -> [statement texts] after it

    def __bool__(self):
        return bool(self.replaced or self.inserted)

    def replace(self, span, texts):
        self.replaced[span[0]] = (span[1], list(texts))

    def insert(self, line, texts):
        self.inserted.setdefault(line, []).extend(texts)

    def apply(self, lines, origin, fixed_form):
        out, out_origin = [], []
        skip_until = 0
        for number, (line, where_) in enumerate(zip(lines, origin), start=1):
            if number in self.replaced:
                last, texts = self.replaced[number]
                new = [piece for text in texts for piece in _layout(text, fixed_form)]
                out += new
                out_origin += [where_] * len(new)
                # The statement's other lines are left blank: numbers stay.
                skip_until = last
            elif number <= skip_until:
                out.append("")
                out_origin.append(where_)
            else:
                out.append(line)
                out_origin.append(where_)
            for text in self.inserted.get(number, ()):
                new = _layout(text, fixed_form)
                out += new
                out_origin += [where_] * len(new)
        return "".join(line + "\n" for line in out), out_origin


def _layout(text, fixed_form):
    """Source lines of one statement, continued where too long."""
    width = 66 if fixed_form else 120
    pieces = []
    while len(text) > width:
        cut = text.rfind(",", 0, width - 2) + 1 or width - 2
        pieces.append(text[:cut])
        text = text[cut:].lstrip()
    pieces.append(text)
    if fixed_form:
        return ["      " + pieces[0]] + ["     &" + p for p in pieces[1:]]
    return [p + (" &" if i < len(pieces) - 1 else "") for i, p in enumerate(pieces)]


def _children(node):
    items = getattr(node, "content", None)
    if items is None:
        items = getattr(node, "items", None) or ()
    return [c for c in items if c is not None and not isinstance(c, str)]


def _walk(node):
    """Every node under `node` (lists and tuples of fparser included)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (list, tuple)):
            stack.extend(reversed(current))
            continue
        if current is None or isinstance(current, str):
            continue
        yield current
        stack.extend(reversed(_children(current)))


def _all_units(tree):
    """Lower-case names of every subprogram in the file."""
    return {_unit_name(u) for u in _walk(tree)
            if isinstance(u, (F.Subroutine_Subprogram, F.Function_Subprogram))}


def _unit_name(unit):
    header = _children(unit)[0]
    return str(header.items[1]).lower()


def _span(node):
    return getattr(getattr(node, "item", None), "span", None)


def _scope(unit, rules, visible, edits, subprograms, used, brought):
    """Declare the implicit names of `unit`, then of the units it contains.

    :param rules: {letter: type text or None} inherited from the host.
    :param visible: lower-case names the host makes visible.
    :param used: (names the host's USEs without ONLY may bring, whether one
        of them is a module adfort cannot see).
    :param brought: the :class:`_Brought` of the source.
    """
    parts = _children(unit)
    header = parts[0]
    spec = next((p for p in parts if isinstance(p, F.Specification_Part)), None)
    contained = next((p for p in parts if isinstance(p, _CONTAINED)), None)
    body = [p for p in parts[1:] if not isinstance(p, (F.Specification_Part,) + _CONTAINED)]
    statements = list(_statements(spec)) if spec is not None else []
    rules = _rules(statements, rules)
    inner = {_unit_name(u) for u in _children(contained)
             if isinstance(u, (F.Subroutine_Subprogram, F.Function_Subprogram))} \
        if contained is not None else set()

    declared, typed = _declarations(statements)
    dimensioned = _dimensioned(statements)
    # A name a USE without ONLY may bring (here or in the host) is not
    # typed implicitly: a compiler takes the module's (kind parameters,
    # variables); with a module adfort cannot see, none but those that
    # cannot come from it (dummies, COMMON members, dimensioned names).
    from_modules, opaque = set(used[0]), used[1]
    for statement in statements:
        if isinstance(statement, F.Use_Stmt) and "only" not in str(statement.items[3]).lower():
            names = brought.names(str(statement.items[2]).lower())
            opaque = opaque or names is None
            from_modules |= names or set()
    arguments, result = _interface(header, declared)
    used = _used_names(statements + body)
    own = [n for n in arguments + ([result] if result else []) +
           list(dimensioned) + list(used) if n not in declared]
    excluded = visible | inner | {_unit_name(unit) if isinstance(
        unit, (F.Subroutine_Subprogram, F.Function_Subprogram)) else ""}
    if result:
        excluded.discard(result)
    called = _called_names(statements + body)
    externals = {str(n).lower() for s in statements if isinstance(s, F.External_Stmt)
                 for n in _walk(s.items[1]) if isinstance(n, F.Name)}
    names = []
    for name in own:
        if name in names or name in excluded:
            continue
        if name in called:
            continue  # a dummy procedure (F77 needs no EXTERNAL to CALL one)
        if used.get(name) == "call" and name not in dimensioned and name in _INTRINSICS \
                and name not in externals:
            continue  # an intrinsic function (not an EXTERNAL one of its name)
        if name in _GNU_INTRINSICS and name not in dimensioned:
            continue
        if (opaque or name in from_modules) and name not in arguments and name != result \
                and name not in dimensioned and name not in _common_members(statements):
            continue  # may come from the module used
        if rules.get(name[0]) is None:
            continue  # IMPLICIT NONE: the compiler reports it
        names.append(name)

    implicit_statements = [s for s in statements if isinstance(s, F.Implicit_Stmt)
                           and str(s).strip().upper() != "IMPLICIT NONE"]
    for statement in implicit_statements:
        edits.replace(_span(statement), [])
    procedures = [n for n in arguments if n in called and n not in declared]
    if procedures:
        # A dummy the unit CALLs is a dummy procedure: declared EXTERNAL,
        # as F77 needs not, so that it reads like one that is.
        anchor = [s for s in statements if isinstance(s, (F.Use_Stmt, F.Import_Stmt,
                                                          F.Implicit_Stmt))]
        line = _span(anchor[-1] if anchor else header)[1]
        edits.insert(line, [f"external {', '.join(procedures)}"])
    scalars = [n for n in names if n not in dimensioned]
    if scalars:
        anchor = [s for s in statements if isinstance(s, (F.Use_Stmt, F.Import_Stmt,
                                                          F.Implicit_Stmt))]
        line = _span(anchor[-1] if anchor else header)[1]
        for type_text, group in _by_type(scalars, rules):
            edits.insert(line, [f"{type_text} {', '.join(group)}"])
    _rewrite_dimensions(statements, dimensioned, typed, names, rules, edits)

    inherited = visible | set(declared) | set(names) | inner | set(arguments)
    if isinstance(unit, F.Module):
        inherited |= subprograms
    for child in _children(contained) if contained is not None else ():
        if isinstance(child, (F.Subroutine_Subprogram, F.Function_Subprogram)):
            _scope(child, dict(rules), inherited, edits, subprograms,
                   (from_modules, opaque), brought)


def _statements(spec):
    for node in _children(spec):
        if isinstance(node, F.Implicit_Part):
            yield from _children(node)
        else:
            yield node


def _rules(statements, rules):
    """The implicit typing rules after the unit's IMPLICIT statements."""
    for statement in statements:
        if not isinstance(statement, F.Implicit_Stmt):
            continue
        if str(statement).strip().upper() == "IMPLICIT NONE":
            return {letter: None for letter in rules}
        for spec in _walk(statement):
            if not isinstance(spec, F.Implicit_Spec):
                continue
            type_text = str(spec.items[0])
            for letters in _walk(spec.items[1]):
                if isinstance(letters, F.Letter_Spec):
                    first = str(letters.items[0]).lower()
                    last = str(letters.items[1] or letters.items[0]).lower()
                    for code in range(ord(first), ord(last) + 1):
                        rules[chr(code)] = type_text
    return rules


def _declarations(statements):
    """({name: declaration statement}, names with a type declaration)."""
    declared, typed = {}, {}
    for statement in statements:
        if isinstance(statement, F.Type_Declaration_Stmt):
            for entity in _walk(statement.items[2]):
                if isinstance(entity, F.Entity_Decl):
                    name = str(entity.items[0]).lower()
                    declared[name] = typed[name] = (statement, entity)
        elif isinstance(statement, (F.Use_Stmt,)):
            for node in _walk(statement):
                if isinstance(node, F.Rename):
                    declared[str(node.items[1]).lower()] = None
                elif isinstance(node, F.Only_List):
                    for item in _children(node):
                        if isinstance(item, F.Name):
                            declared[str(item).lower()] = None
        elif isinstance(statement, (F.Intrinsic_Stmt, F.Interface_Block,
                                    F.Derived_Type_Def, F.Procedure_Declaration_Stmt)):
            for node in _walk(statement):
                if isinstance(node, F.Name):
                    declared[str(node).lower()] = None
    return declared, typed


def _dimensioned(statements):
    """{name: (bounds text, statement)} of names given bounds by DIMENSION
    or COMMON statements."""
    found = {}
    for statement in statements:
        if isinstance(statement, F.Dimension_Stmt):
            for name, bounds in statement.items[0]:
                found[str(name).lower()] = (str(bounds), statement)
        elif isinstance(statement, F.Common_Stmt):
            for _, objects in statement.items[0]:
                for item in _children(objects):
                    if isinstance(item, F.Common_Block_Object) and item.items[1] is not None:
                        found[str(item.items[0]).lower()] = (str(item.items[1]), statement)
    return found


def _common_members(statements):
    members = set()
    for statement in statements:
        if isinstance(statement, F.Common_Stmt):
            for _, objects in statement.items[0]:
                for item in _children(objects):
                    name = item.items[0] if isinstance(item, F.Common_Block_Object) else item
                    members.add(str(name).lower())
    return members


def _interface(header, declared):
    """(dummy argument names, result name or None) of a unit's header."""
    arguments = []
    if isinstance(header, (F.Subroutine_Stmt, F.Function_Stmt)) and header.items[2]:
        arguments = [str(a).lower() for a in _children(header.items[2])
                     if isinstance(a, F.Name)]
    result = None
    if isinstance(header, F.Function_Stmt):
        prefix = header.items[0]
        typed = prefix is not None and any(
            isinstance(p, (F.Intrinsic_Type_Spec, F.Declaration_Type_Spec))
            for p in _walk(prefix))
        suffix = header.items[3]
        names = [n for n in _walk(suffix) if isinstance(n, F.Name)] if suffix else []
        name = str(names[0]).lower() if names else str(header.items[1]).lower()
        if not typed and name not in declared:
            result = name
    return arguments, result


def _called_names(nodes):
    """Lower-case names the statements CALL."""
    called, stack = set(), list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend(node)
            continue
        if node is None or isinstance(node, str):
            continue
        if isinstance(node, F.Call_Stmt):
            called.add(str(node.items[0]).lower())
            continue
        stack.extend(_children(node))
    return called


def _used_names(nodes):
    """{lower-case name: "call" if referenced with parentheses, else "use"}
    of the names the statements reference as variables or functions."""
    used = {}

    def note(name, how):
        name = str(name).lower()
        if used.get(name) != "use":
            used[name] = how

    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend(node)
            continue
        if node is None or isinstance(node, str) or isinstance(node, _SKIPPED) \
                or type(node).__name__.startswith("End_"):
            continue
        if isinstance(node, F.Name):
            note(node, "use")
            continue
        children = _children(node)
        if isinstance(node, F.Call_Stmt):
            children = children[1:]
        elif isinstance(node, F.Actual_Arg_Spec):
            children = children[1:]
        elif isinstance(node, F.Data_Ref):
            children = children[:1] + [c.items[1] for c in children[1:]
                                       if isinstance(c, F.Part_Ref)]
        elif isinstance(node, F.Dimension_Stmt):
            children = [bounds for _, bounds in node.items[0]]
        elif isinstance(node, F.Common_Stmt):
            children = [objects for _, objects in node.items[0]]
        elif isinstance(node, F.Common_Block_Object):
            children = children[:1]  # bounds: on the declaration
        elif isinstance(node, F.Entity_Decl):
            children = children[1:]
        elif isinstance(node, F.Structure_Constructor) and node.items[1] is None:
            note(node.items[0], "call")  # f(): how fparser reads it
            children = []
        elif isinstance(node, F.Structure_Constructor) and \
                str(node.items[0]).lower() in _INTRINSICS:
            # An intrinsic fparser does not know (HYPOT, NORM2…) read as a
            # structure constructor: its keywords (DIM=) are no names.
            note(node.items[0], "call")
            children = [c.items[1] if isinstance(c, F.Component_Spec) else c
                        for c in _children(node.items[1])] \
                if isinstance(node.items[1], F.Component_Spec_List) else \
                [node.items[1].items[1] if isinstance(node.items[1], F.Component_Spec)
                 else node.items[1]]
        elif isinstance(node, (F.Part_Ref, F.Function_Reference)) and \
                isinstance(node.items[0], F.Name):
            note(node.items[0], "call")
            children = children[1:]
        stack.extend(children)
    return used


def _by_type(names, rules):
    groups = {}
    for name in names:
        groups.setdefault(rules[name[0]], []).append(name)
    return list(groups.items())


def _rewrite_dimensions(statements, dimensioned, typed, implicit, rules, edits):
    """Turn bounds in DIMENSION and COMMON statements into declarations
    written where those statements stand (taking a declared name out of its
    own type declaration)."""
    by_statement = {}
    for name, (bounds, statement) in dimensioned.items():
        by_statement.setdefault(id(statement), (statement, []))[1].append((name, bounds))
    shrunk = {}
    for statement, entries in by_statement.values():
        texts = []
        for name, bounds in entries:
            if name in typed:
                declaration, entity = typed[name]
                if any(item is not None for item in entity.items[1:]):
                    return  # bounds or length on the entity too: left as written
                type_text = str(declaration.items[0])
                if declaration.items[1] is not None:
                    type_text += ", " + str(declaration.items[1]) + " ::"
                shrunk.setdefault(id(declaration), (declaration, set()))[1].add(name)
            elif name in implicit:
                type_text = rules[name[0]]
            else:
                return  # IMPLICIT NONE and undeclared: the compiler says so
            texts.append(f"{type_text} {name}({bounds})")
        if isinstance(statement, F.Common_Stmt):
            texts.append(_common_without_bounds(statement))
        edits.replace(_span(statement), texts)
    for declaration, names in shrunk.values():
        entities = [str(e) for e in _walk(declaration.items[2])
                    if isinstance(e, F.Entity_Decl) and str(e.items[0]).lower() not in names]
        texts = []
        if entities:
            head = str(declaration.items[0])
            if declaration.items[1] is not None:
                head += ", " + str(declaration.items[1])
            texts = [f"{head} :: {', '.join(entities)}"]
        edits.replace(_span(declaration), texts)


def _common_without_bounds(statement):
    blocks = []
    for block, objects in statement.items[0]:
        names = [str(item.items[0] if isinstance(item, F.Common_Block_Object) else item)
                 for item in _children(objects)]
        blocks.append(f"/{block or ''}/ {', '.join(names)}")
    return "COMMON " + " ".join(blocks)
