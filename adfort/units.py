"""A light scanner of Fortran program units: where each module, routine and
main program starts and ends, what it is called, its dummy arguments, the
modules it uses and the names it mentions.

It reads a whole source in a few milliseconds per thousand lines, so that
adfort parses into PSyIR only the units a differentiation needs (see
:mod:`adfort.reading`).  It never guesses: on anything it does not
recognise with certainty (submodules, unbalanced units…) :func:`scan`
returns None and the caller reads the whole file.
"""

import re

_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")
_STRING = re.compile(r"'(?:[^']|'')*'?|\"(?:[^\"]|\"\")*\"?")
_TYPE_PREFIX = (r"(?:(?:real|integer|logical|complex|character|double\s*precision|"
                r"double\s*complex|type|class)\s*(?:\*\s*\d+|\*\s*\(\s*\*\s*\)|"
                r"\((?:[^()]|\([^()]*\))*\))?\s*)")
_ROUTINE = re.compile(
    r"^(?:(?:recursive|pure|elemental|impure|non_recursive)\s+|" + _TYPE_PREFIX + r")*"
    r"(?P<kind>subroutine|function)\s+(?P<name>[a-z_][a-z0-9_]*)\s*"
    r"(?:\((?P<args>[^)]*)\))?\s*(?P<rest>.*)$")
_RESULT = re.compile(r"\bresult\s*\(\s*(?P<name>[a-z_][a-z0-9_]*)\s*\)")
_MODULE = re.compile(r"^module\s+(?P<name>[a-z_][a-z0-9_]*)$")
_PROGRAM = re.compile(r"^program\s+(?P<name>[a-z_][a-z0-9_]*)$")
_BLOCK_DATA = re.compile(r"^block\s*data\b")
_USE = re.compile(r"^use\b\s*(?:,\s*(?:non_)?intrinsic\s*)?(?:::)?\s*(?P<name>[a-z_][a-z0-9_]*)")
_INTRINSIC_USE = re.compile(r"^use\s*,\s*intrinsic\b")
_INTERFACE = re.compile(r"^(?:abstract\s+)?interface\b")
# A generic interface's name (``interface name``).
GENERIC = re.compile(r"^interface\s+(?P<name>[a-z_][a-z0-9_]*)\s*$")
_END_INTERFACE = re.compile(r"^end\s*interface\b")
_ENTRY = re.compile(r"^entry\s+(?P<name>[a-z_][a-z0-9_]*)")
_ACCESS = re.compile(r"^(?:public|private)\b")
# What a compressed (blank-free) END statement of a program unit starts with.
_UNIT_ENDS = ("endsubroutine", "endfunction", "endmodule", "endprogram", "endblockdata")
_UNSUPPORTED = re.compile(r"^(?:submodule\b|module\s+(?:subroutine|function|procedure)\b)")


class Unit:
    """A program unit or a module procedure.

    :ivar kind: ``module``, ``subroutine``, ``function``, ``program`` or
        ``blockdata``.
    :ivar name: lower-case name ('' for an unnamed main program or block data).
    :ivar first: index of its first line (0-based) in the source.
    :ivar last: index of its last line.
    :ivar module: the enclosing module's name for a module procedure.
    :ivar arguments: lower-case dummy argument names (a routine).
    :ivar result: a function's lower-case result name.
    :ivar names: lower-case identifiers its statements mention (for a
        module: those of its specification part, access statements left out).
    :ivar uses: lower-case names of the modules it uses.
    :ivar entries: names of its ENTRY points.
    :ivar inner: the (name, arguments, result) of its internal procedures.
    :ivar generics: lower-case names of its generic interfaces
        (``interface name``).
    :ivar private: lower-case names a module's PRIVATE statements list.
    :ivar public: lower-case names a module's PUBLIC statements list.
    :ivar default_private: whether a module's bare PRIVATE statement makes
        its names private unless listed PUBLIC.
    :ivar implicit_none: whether its own scope says IMPLICIT NONE.
    """

    def __init__(self, kind, name, first, module=None):
        self.kind, self.name, self.first, self.module = kind, name, first, module
        self.last = first
        self.arguments, self.result = [], None
        self.names, self.uses, self.entries, self.inner = set(), set(), [], []
        self.generics = set()
        self.private, self.public, self.default_private = set(), set(), False
        self.implicit_none = False

    def __repr__(self):
        return f"Unit({self.kind} {self.name}, lines {self.first + 1}-{self.last + 1})"


class Scan:
    """The units of one source.

    :ivar units: modules, module procedures, external routines, main
        programs and block data, in source order.
    :ivar lines: the source's lines (with their endings).
    :ivar interfaces: how many interface blocks it holds.
    :ivar statements: :func:`statements` of the source.
    """

    def __init__(self, units, lines, interfaces, statements=None):
        self.units, self.lines, self.interfaces = units, lines, interfaces
        self.statements = statements

    def modules(self):
        """{name: Unit} of the modules."""
        return {u.name: u for u in self.units if u.kind == "module"}

    def all_typed_explicitly(self):
        """Whether every scope is under IMPLICIT NONE (its own or its
        module's), so that no name can be typed implicitly.  Interface
        bodies do not inherit it: with any, the answer is False."""
        if self.interfaces:
            return False
        modules = self.modules()
        for unit in self.units:
            covered = unit.implicit_none or (
                unit.module is not None and modules[unit.module].implicit_none)
            if not covered:
                return False
        return True

    def has_internal_procedures(self):
        """Whether a routine or main program CONTAINS procedures."""
        return any(unit.inner for unit in self.units)


def statements(source, fixed_form):
    """(first line index, last line index, lower-case statement text) of
    each statement, comments and strings left in, continuation lines
    joined, labels removed."""
    lines = source.splitlines()
    joined = []  # [first, last, text]
    for number, line in enumerate(lines):
        if fixed_form:
            if not line.strip() or line[:1] in "cC*!#" or line.lstrip().startswith("!"):
                continue
            if line.startswith("\t"):
                continuation = line[1:2].isdigit() and line[1:2] != "0"
                body = line[2:] if continuation else line[1:]
            else:
                continuation = len(line) > 5 and line[5] not in " 0" and not line[:5].strip()
                body = line[6:]
            code = _strip_comment(body)
            if continuation and joined:
                joined[-1][1] = number
                joined[-1][2] += code
            else:
                joined.append([number, number, code])
        else:
            code = _strip_comment(line).strip()
            if not code or code.startswith("#"):
                continue
            if joined and joined[-1][2].endswith("&"):
                joined[-1][1] = number
                joined[-1][2] = joined[-1][2][:-1] + (code[1:] if code.startswith("&")
                                                     else " " + code)
            else:
                joined.append([number, number, code])
    result = []
    for first, last, text in joined:
        for part in _split_semicolons(text):
            if part.lstrip()[:1].isdigit():
                part = _LABEL.sub("", part)
            part = part.strip().lower()
            if part:
                result.append((first, last, part))
    return result


_LABEL = re.compile(r"^\s*\d+\s+")


def split_comment(line):
    """(code, ``!`` comment) of a line; a ``!`` in a string is code."""
    if "!" not in line:
        return line, ""
    quote = None
    for position, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "!":
            return line[:position], line[position:]
    return line, ""


def map_outside_strings(code, edit):
    """`code` with `edit` applied to its parts outside character literals
    (an unclosed literal, continued on the next line, runs to the end)."""
    out, start, quote = [], 0, None
    for position, char in enumerate(code):
        if quote:
            if char == quote:
                quote = None
                out.append(code[start:position + 1])
                start = position + 1
        elif char in "'\"":
            out.append(edit(code[start:position]))
            quote, start = char, position
    out.append(code[start:] if quote else edit(code[start:]))
    return "".join(out)


def _strip_comment(code):
    """`code` without a trailing ``!`` comment (a ``!`` in a string stays)."""
    return split_comment(code)[0]


def split_top_level(text):
    """The comma-separated parts of `text` outside parentheses and brackets."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def _split_semicolons(text):
    if ";" not in text:
        return [text]
    parts, start, quote = [], 0, None
    for position, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == ";":
            parts.append(text[start:position])
            start = position + 1
    parts.append(text[start:])
    return parts


def _identifiers(statement):
    if "'" in statement or '"' in statement:
        statement = _STRING.sub(" ", statement)
    return set(_IDENTIFIER.findall(statement))


def _is_unit_end(statement):
    compact = statement.replace(" ", "").replace("\t", "")
    if compact == "end":
        return True
    return compact.startswith(_UNIT_ENDS) and "=" not in compact and "(" not in compact


def _routine_header(statement):
    match = _ROUTINE.match(statement)
    if match is None or "=" in statement.split("(")[0]:
        return None
    arguments = [a.strip() for a in (match.group("args") or "").split(",")
                 if a.strip() and a.strip() != "*"]
    result = None
    if match.group("kind") == "function":
        found = _RESULT.search(match.group("rest") or "")
        result = found.group("name") if found else match.group("name")
    return match.group("kind"), match.group("name"), arguments, result


def _note_access(unit, statement):
    """Record a module's ``private``/``public`` statement on `unit`."""
    match = _ACCESS_LIST.match(statement)
    if match is None:
        return
    names = {n.strip() for n in match.group("names").split(",") if n.strip()}
    names = {n for n in names if _IDENTIFIER.fullmatch(n)}   # (not operator(…))
    if match.group("word") == "public":
        unit.public |= names
    elif names:
        unit.private |= names
    elif not match.group("names").strip():
        unit.default_private = True


_ACCESS_LIST = re.compile(r"^(?P<word>public|private)\s*(?:::)?\s*(?P<names>.*)$")


def _innermost(stack):
    """The innermost :class:`Unit` open on `stack`, or None."""
    for unit in reversed(stack):
        if isinstance(unit, Unit):
            return unit
    return None


def scan(source, fixed_form):
    """The program units of `source`, or None when it holds anything the
    scanner does not recognise with certainty.

    :param str source: the text compilers would read (preprocessed,
        INCLUDE lines expanded, fixed-form columns beyond 72 removed).
    :param bool fixed_form: whether the source is fixed form.
    :rtype: :class:`Scan` or None
    """
    lines = source.splitlines(keepends=True)
    units = []
    stack = []          # open units: Unit, or a nested procedure's marker
    interfaces = blocks = 0
    found = statements(source, fixed_form)
    current = None      # the innermost Unit of the stack
    for first, last, statement in found:
        # (Each pattern starts with a word: the first letter rules most out.)
        initial = statement[0]
        if not interfaces and initial in "ms" and _UNSUPPORTED.match(statement):
            return None
        if interfaces:
            if initial == "e" and _END_INTERFACE.match(statement):
                interfaces -= 1
            elif initial in "ai" and _INTERFACE.match(statement):
                interfaces += 1
            if current is not None:
                current.names |= _identifiers(statement)
            continue
        if initial in "ai" and _INTERFACE.match(statement):
            interfaces += 1
            blocks += 1
            if current is not None:
                current.names |= _identifiers(statement)
                generic = GENERIC.match(statement)
                if generic:
                    current.generics.add(generic.group("name"))
            continue
        if initial == "e" and _is_unit_end(statement):
            if not stack:
                return None
            closed = stack.pop()
            if isinstance(closed, Unit):
                closed.last = last
                current = _innermost(stack)
            continue
        header = _routine_header(statement) \
            if "subroutine" in statement or "function" in statement else None
        if header is not None:
            kind, name, arguments, result = header
            if current is None or current.kind == "module":
                unit = Unit(kind, name, first, current.name if current else None)
                unit.arguments, unit.result = arguments, result
                unit.names |= _identifiers(statement)
                units.append(unit)
                stack.append(unit)
                current = unit
            else:   # an internal procedure: part of its host
                current.inner.append((name, arguments, result))
                current.names |= _identifiers(statement)
                stack.append("inner")
            continue
        match = _MODULE.match(statement) if initial == "m" else None
        if match and current is None:
            unit = Unit("module", match.group("name"), first)
            units.append(unit)
            stack.append(unit)
            current = unit
            continue
        match = _PROGRAM.match(statement) if initial == "p" else None
        if (match or (initial == "b" and _BLOCK_DATA.match(statement))) and current is None:
            kind = "program" if match else "blockdata"
            unit = Unit(kind, match.group("name") if match else "", first)
            units.append(unit)
            stack.append(unit)
            current = unit
            continue
        if current is None:
            # A statement outside any unit begins an unnamed main program.
            current = Unit("program", "", first)
            units.append(current)
            stack.append(current)
        if initial == "p" and _ACCESS.match(statement) and current.kind == "module":
            if stack[-1] is current:
                _note_access(current, statement)
            continue
        if initial == "i" and stack[-1] is current \
                and statement.replace(" ", "").startswith("implicitnone"):
            current.implicit_none = True
        if initial == "u":
            match = _USE.match(statement)
            if match:
                if not _INTRINSIC_USE.match(statement):
                    current.uses.add(match.group("name"))
        if initial == "e":
            match = _ENTRY.match(statement)
            if match:
                current.entries.append(match.group("name"))
        current.names |= _identifiers(statement)
    if stack or interfaces:
        return None
    return Scan(units, lines, blocks, found)
