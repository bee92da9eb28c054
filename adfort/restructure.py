"""Front-end rewrite of the program units PSyIR cannot represent as they
are: GO TO, arithmetic IF, computed GO TO, RETURN, named EXIT/CYCLE (their
control flow is restructured, :mod:`adfort.controlflow`) and statement
functions (inlined, :mod:`adfort.stmtfunctions`).

Units needing none of this reach PSyclone unchanged.  A rewritten unit is
written in the source's own form; it may take more or fewer lines than
the original, so :func:`restructure` also returns the origin of every line.
"""

import dataclasses
import re
from typing import List

from adfort import controlflow, flowanalysis, stmtfunctions, structuring
from adfort.errors import AdfortError
from adfort.statements import code_outside_strings, split_statements

_PREFIX = r"(?:(?:recursive|pure|elemental|impure|module)\s+|" \
          r"(?:integer|real|double\s*precision|double\s*complex|logical|complex|character)" \
          r"(?:\s*\*\s*\d+|\s*\([^)]*\))?\s+|(?:type|class)\s*\(\s*\w+\s*\)\s+)*"
_UNIT = re.compile(r"^" + _PREFIX + r"(?P<kind>subroutine|function)\s+(?P<name>\w+)", re.I)
_PROGRAM = re.compile(r"^program\s+(?P<name>\w+)", re.I)
_MODULE = re.compile(r"^(?:module(?!\s+procedure\b)|submodule\s*\([^)]*\))\s+(?P<name>\w+)\s*$",
                     re.I)
_BLOCK_DATA = re.compile(r"^block\s*data\b", re.I)
_END_UNIT = re.compile(r"^end\s*(?:$|(?:subroutine|function|program|module|submodule|"
                       r"block\s*data)\b)", re.I)
_CONTAINS = re.compile(r"^contains\s*$", re.I)
_INTERFACE = re.compile(r"^(abstract\s+)?interface\b", re.I)
_END_INTERFACE = re.compile(r"^end\s*interface\b", re.I)
_TYPE_DEF = re.compile(r"^type\s*(?:,[^:]*::|::|\s)\s*\w+\s*$", re.I)
_END_TYPE = re.compile(r"^end\s*type\b", re.I)
_SPECIFICATION = re.compile(
    r"^(integer|real|double\s*precision|double\s*complex|complex|logical|character|"
    r"type\s*\(|class\s*\(|implicit|parameter|data|common|equivalence|dimension|save|"
    r"external|intrinsic|use|include|namelist|interface|procedure|import|allocatable|pointer|"
    r"target|intent|optional|public|private|protected|volatile|asynchronous|value|"
    r"sequence|format|entry|enum|bind|contiguous)\b", re.I)


@dataclasses.dataclass
class Unit:
    """A subroutine, function or main program and its own statements."""
    kind: str
    name: str
    header: int                 # index of its first statement
    end: int = -1               # index of its CONTAINS or END statement
    hosted: bool = False        # inside a module or another unit
    body: List[int] = dataclasses.field(default_factory=list)


def find_units(statements):
    """The subroutines, functions and programs of a file (internal and
    module procedures included), each with the indices of its statements."""
    units, stack, interface, types = [], [], 0, 0
    for index, stmt in enumerate(statements):
        text = code_outside_strings(stmt.text)
        if _INTERFACE.match(text):
            interface += 1
            continue
        if _END_INTERFACE.match(text):
            interface -= 1
            continue
        if interface:
            continue
        if _TYPE_DEF.match(text):
            types += 1
        elif _END_TYPE.match(text):
            types -= 1
        if types:
            continue
        match = _UNIT.match(text) or _PROGRAM.match(text)
        if match:
            kind = match.group("kind").lower() if "kind" in match.groupdict() else "program"
            unit = Unit(kind, match.group("name").lower(), index, hosted=bool(stack))
            units.append(unit)
            stack.append(unit)
            continue
        if _MODULE.match(text) or _BLOCK_DATA.match(text):
            stack.append(None)
            continue
        if _END_UNIT.match(text):
            if stack:
                unit = stack.pop()
                if unit is not None and unit.end < 0:
                    unit.end = index
            continue
        if _CONTAINS.match(text):
            if stack and stack[-1] is not None and stack[-1].end < 0:
                stack[-1].end = index
            continue
        if not stack:  # a main program without PROGRAM statement
            unit = Unit("program", "main", index)
            unit.header = -1
            units.append(unit)
            stack.append(unit)
        unit = stack[-1]
        if unit is not None and unit.end < 0:
            unit.body.append(index)
    return units


def is_specification(text):
    """Whether a statement belongs to the specification part."""
    text = code_outside_strings(text)
    if "::" in text:
        return True
    if controlflow.is_assignment(text):
        return False
    return bool(_SPECIFICATION.match(text))


def _split_body(statements, unit):
    """(specification indices, executable indices) of a unit's body."""
    spec, exe = [], []
    for index in unit.body:
        text = statements[index].text
        if not exe and (is_specification(text) or stmtfunctions.looks_like_definition(
                text, statements, unit, spec)):
            spec.append(index)
        else:
            exe.append(index)
    return spec, exe


def _needs_control(statements, exe):
    """Whether the executable statements need restructuring (a RETURN just
    before END is fine as it is)."""
    for position, index in enumerate(exe):
        text = statements[index].text
        if controlflow.is_control(text):
            last = position == len(exe) - 1
            if last and re.match(r"^return\s*$", text, re.I) and not statements[index].label:
                continue
            return True
    return False


def restructure(source, fixed_form, path):
    """Rewrite the units of `source` that need it.

    :returns: (new source, origin) where origin is None when the lines are
        unchanged, else one (path, line) per line of the new source.
    :raises AdfortError: for control flow that cannot be restructured.
    """
    statements = split_statements(source, fixed_form)
    units = find_units(statements)
    source_lines = source.splitlines()
    rewrites = []
    for unit in units:
        spec, exe = _split_body(statements, unit)
        functions = stmtfunctions.definitions(statements, unit, spec)
        control = _needs_control(statements, exe)
        if not functions and not control:
            continue
        lines = _rewrite_unit(statements, unit, spec, exe, functions, control, fixed_form, path)
        first = statements[unit.header].line if unit.header >= 0 else statements[unit.body[0]].line
        end = unit.end if unit.end >= 0 else (unit.body[-1] if unit.body else unit.header)
        lines = _keep_directives(source_lines, statements, first, statements[end].last, lines,
                                 path)
        rewrites.append((first, statements[end].last, lines, unit))
    if not rewrites:
        return source, None
    return _assemble(source, statements, rewrites, path, fixed_form)


_LOOP_DIRECTIVE = re.compile(r"^\s*[!cC*]\$adfort\s+(?:checkpoint|fixed-point)\b",
                             re.IGNORECASE)


def _keep_directives(original, statements, first, last, lines, path):
    """`lines` (a rewritten unit's) with the loop directives of its
    original lines ``first``..``last`` (of `original`, the source's lines;
    comments, which the rewrite drops) put back before the statement they
    precede."""
    for number in range(last, first - 1, -1):
        if number > len(original) or not _LOOP_DIRECTIVE.match(original[number - 1]):
            continue
        target = next((stmt.line for stmt in statements if stmt.line > number), None)
        at = next((i for i, (_, line) in enumerate(lines) if line == target), None)
        if at is None:
            raise AdfortError(
                "the loop this directive is on is rewritten (its routine's GO TO, "
                "RETURN or named EXIT/CYCLE are restructured) and could not be found "
                "again: put the directive on a loop of a routine without them",
                f"{path}:{number}")
        lines = lines[:at] + [(original[number - 1], number)] + lines[at:]
    return lines


def _assemble(source, statements, rewrites, path, fixed_form):
    original = source.splitlines()
    out, origin = [], []
    number = 1
    for first, last, lines, unit in sorted(rewrites, key=lambda r: r[0]):
        while number < first:
            out.append(original[number - 1])
            origin.append((path, number))
            number += 1
        # Statements of other units sharing the first or last line stay.
        sharing = [s for s in statements if s.last >= first and s.line <= last
                   and _outside(s, statements, unit)]
        before = [s for s in sharing if s.line <= first and statements.index(s) < unit.header]
        after = [s for s in sharing if s not in before]
        for stmt in before:
            out.append(stmt.text)
            origin.append((path, stmt.line))
        for text, line in lines:
            out.append(text)
            origin.append((path, line or first))
        for stmt in after:
            out.append(("      " if fixed_form else "") + stmt.text)
            origin.append((path, stmt.line))
        number = last + 1
    while number <= len(original):
        out.append(original[number - 1])
        origin.append((path, number))
        number += 1
    return "\n".join(out) + "\n", origin


def _outside(stmt, statements, unit):
    index = statements.index(stmt)
    return index != unit.header and index not in unit.body and index != unit.end


def _names(statements, unit):
    names = set()
    indices = [unit.header] + unit.body + ([unit.end] if unit.end >= 0 else [])
    for index in indices:
        if index < 0:
            continue
        names |= {w.lower() for w in re.findall(r"[a-z_]\w*",
                                               code_outside_strings(statements[index].text),
                                               re.I)}
    return names


def _rewrite_unit(statements, unit, spec, exe, functions, control, fixed_form, path):
    """The lines (text, original line) replacing the unit's own statements."""
    emitter = _Emitter(fixed_form)
    texts = {i: statements[i].text for i in spec + exe}
    if functions:
        texts = stmtfunctions.inline(statements, unit, spec, exe, functions, texts, path)
    base = 0 if fixed_form else 1
    if unit.header >= 0:
        emitter.statement(statements[unit.header], statements[unit.header].text, base - 1)
    spec_kept = [i for i in spec if texts.get(i) is not None]
    flags = []
    body = None
    end = statements[unit.end] if unit.end >= 0 else None
    if control and end is not None and end.label and _END_UNIT.match(end.text):
        # ``99 END``: a jump to it ends the routine, as one to a CONTINUE
        # just before an unlabelled END does.
        exe_end = dataclasses.replace(end, text="CONTINUE" if fixed_form else "continue")
        end = dataclasses.replace(end, label=None)
    else:
        exe_end = None
    if control:
        stmts = [dataclasses.replace(statements[i], text=texts[i]) for i in exe
                 if texts.get(i) is not None] + ([exe_end] if exe_end else [])
        graph = controlflow.build_graph(stmts, path)
        names = _names(statements, unit)
        analysis = flowanalysis.single_exits(graph, names)
        body, flags = structuring.structure(graph, analysis, names)
    for index in spec_kept:
        emitter.statement(statements[index], texts[index], base)
    if flags:
        declaration = ("LOGICAL " if fixed_form else "logical :: ") + ", ".join(flags)
        line = statements[exe[0]].line if exe else statements[unit.end].line
        emitter.line(declaration, line, base)
    if control:
        for stmt in graph.data:
            emitter.statement(stmt, stmt.text, base)
        first = statements[exe[0]].line if exe else None
        for flag in flags:
            emitter.line(f"{flag} = .false.", first, base)
        emitter.body(body, base)
        for stmt in graph.formats:
            emitter.statement(stmt, stmt.text, base)
    else:
        for index in exe:
            if texts.get(index) is not None:
                emitter.statement(statements[index], texts[index], base)
    if end is not None:
        emitter.statement(end, end.text, base - 1)
    return emitter.lines


class _Emitter:
    """Writes statements as source lines of the file's form."""

    def __init__(self, fixed_form):
        self.fixed = fixed_form
        self.lines = []

    def statement(self, stmt, text, depth):
        self.line(text, stmt.line, depth, stmt.label)

    def line(self, text, origin, depth, label=None):
        depth = max(depth, 0)
        if self.fixed:
            self._fixed(text, origin, depth, label)
        else:
            self._free(text, origin, depth, label)

    def _fixed(self, text, origin, depth, label):
        width = 66 - 2 * depth
        chunks = _chunks(text, width)
        field = (label or "").ljust(5)
        self.lines.append((f"{field} " + "  " * depth + chunks[0], origin))
        for chunk in chunks[1:]:
            self.lines.append(("     &" + "  " * depth + chunk, origin))

    def _free(self, text, origin, depth, label):
        indent = "  " * depth
        prefix = f"{label} " if label else ""
        chunks = _chunks(text, 100)
        if len(chunks) == 1:
            self.lines.append((indent + prefix + text, origin))
            return
        for position, chunk in enumerate(chunks):
            lead = indent + prefix if position == 0 else indent + "    &"
            tail = "&" if position < len(chunks) - 1 else ""
            self.lines.append((lead + chunk + tail, origin))

    def keyword(self, word):
        return word.upper() if self.fixed else word.lower()

    def body(self, items, depth):
        for item in items:
            self.item(item, depth)

    def item(self, item, depth):
        k = self.keyword
        if isinstance(item, structuring.Simple):
            self.line(item.text, item.line, depth)
        elif isinstance(item, structuring.Exit):
            self.line(k("exit"), item.line, depth)
        elif isinstance(item, structuring.Cycle):
            self.line(k("cycle"), item.line, depth)
        elif isinstance(item, structuring.If):
            self._if(item, depth)
        elif isinstance(item, structuring.Select):
            self.line(f"{k('select case')} ({item.expr})", item.line, depth)
            for selector, body in item.arms:
                self.line(f"{k('case')} {selector}", item.line, depth)
                self.body(body, depth + 1)
            if item.default is not None:
                self.line(k("case default"), item.line, depth)
                self.body(item.default, depth + 1)
            self.line(k("end select"), item.line, depth)
        elif isinstance(item, structuring.Loop):
            header = item.header or "DO"
            header = k("do") + header[2:] if header[:2].upper() == "DO" else header
            header = re.sub(r"^(do)\s+while\b", lambda m: k("do while"), header, flags=re.I)
            self.line(header, item.line, depth)
            self.body(item.body, depth + 1)
            self.line(k("end do"), item.line, depth)

    def _if(self, item, depth):
        k = self.keyword
        # (One line only for a statement of the IF's own line: a statement
        # the IF was built around, after a GO TO or a RETURN, keeps its own
        # line, and messages name it.)
        if not item.other and len(item.then) == 1 and _one_line(item.then[0]) and \
                getattr(item.then[0], "line", None) in (item.line, None):
            inner = item.then[0]
            text = k("exit") if isinstance(inner, structuring.Exit) else \
                k("cycle") if isinstance(inner, structuring.Cycle) else inner.text
            self.line(f"{k('if')} ({item.cond}) {text}", item.line, depth)
            return
        self.line(f"{k('if')} ({item.cond}) {k('then')}", item.line, depth)
        self.body(item.then, depth + 1)
        other = item.other
        while len(other) == 1 and isinstance(other[0], structuring.If):
            inner = other[0]
            self.line(f"{k('else if')} ({inner.cond}) {k('then')}", inner.line, depth)
            self.body(inner.then, depth + 1)
            other = inner.other
        if other:
            self.line(k("else"), item.line, depth)
            self.body(other, depth + 1)
        self.line(k("end if"), item.line, depth)


_SHORT_OK = re.compile(r"^(call\b|[a-z]\w*\s*(\(.*\))?\s*=[^=])", re.I)


def _one_line(stmt):
    if isinstance(stmt, (structuring.Exit, structuring.Cycle)):
        return True
    return isinstance(stmt, structuring.Simple) and len(stmt.text) < 50 and \
        bool(_SHORT_OK.match(code_outside_strings(stmt.text)))


def _chunks(text, width):
    """`text` cut into pieces of at most `width` characters, at blanks or
    commas outside strings where possible."""
    chunks = []
    while len(text) > width:
        masked = code_outside_strings(text.replace(" ", "\0"))
        cut = max(masked.rfind("\0", 0, width), masked.rfind(",", 0, width) + 1)
        if cut <= width // 3:
            # Else between two characters not both of one name or number
            # (fparser does not join a name split across lines: T(J / L)).
            cut = next((c for c in range(width, width // 3, -1)
                        if not (_word(masked[c - 1]) and _word(masked[c]))
                        and " " not in masked[c - 1:c + 1]), width)   # (in a string)
        chunks.append(text[:cut])
        text = text[cut:]
    chunks.append(text)
    return chunks


def _word(char):
    return char.isalnum() or char in "_."
