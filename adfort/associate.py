"""ASSOCIATE constructs written out.

Land and ocean model code (Noah-MP, CTSM, E3SM) opens nearly every routine
with ``associate(snl => col%snl, t_soisno => temperature_inst%t_soisno_col)``
to shorten derived-type paths.  An associate name whose selector is a
variable designator without subscripts (a name, or components ``a%b%c``)
is an alias of that variable, with its bounds: writing the selector in
place of every reference to the name in the block (``t_soisno(c, j)`` ->
``temperature_inst%t_soisno_col(c, j)``) is the same program.  The
ASSOCIATE and END ASSOCIATE statements then become blank lines, so every
line keeps its number (messages still name the user's lines).

An array element or section of such a designator (ecRad's ``mext =>
mext_phobic(:, js)``) is written in place too when the block uses the name
whole only (no subscripts of its own) and changes none of the variables
its subscripts read: the section is then the one fixed when the construct
started.  Other selectors (expressions, or sections the block subscripts
or whose subscripts it changes) are errors at their line, as is a
construct in fixed-form source whose substituted lines would pass column
72.
"""

import re

from adfort.errors import AdfortError
from adfort.statements import code_outside_strings, matching_paren, split_statements, \
    split_top_level
from adfort.units import map_outside_strings, split_comment

_OPEN = re.compile(r"^(?:[a-z]\w*\s*:\s*)?associate\s*\(", re.IGNORECASE)
_CLOSE = re.compile(r"^end\s*associate\b", re.IGNORECASE)
_DESIGNATOR = re.compile(r"^[a-z]\w*(?:\s*%\s*[a-z]\w*)*$", re.IGNORECASE)
# An element or section: one subscript list of plain expressions.
_SUBSCRIPTED = re.compile(r"^[a-z]\w*(?:\s*%\s*[a-z]\w*)*\s*\((?P<subscripts>[^()]*)\)$",
                          re.IGNORECASE)
_ASSOCIATION = re.compile(r"^\s*(?P<name>[a-z]\w*)\s*=>\s*(?P<selector>.+?)\s*$",
                          re.IGNORECASE | re.DOTALL)


def lower_associate(source, fixed_form, path=None):
    """`source` with its ASSOCIATE constructs written out (lines keep their
    numbers).

    :raises AdfortError: for a selector that is not a variable designator
        without subscripts, or an unmatched construct.
    """
    if not re.search(r"\bassociate\b", source, re.IGNORECASE):
        return source
    lines = source.splitlines(keepends=True)
    while True:
        statements = split_statements("".join(lines), fixed_form)
        constructs = _constructs(statements, path)
        if not constructs:
            return "".join(lines)
        for opening, closing in constructs:
            for own in (opening, closing):
                if any(other is not own and other.line <= own.last and other.last >= own.line
                       for other in statements):
                    raise AdfortError(
                        "an ASSOCIATE or END ASSOCIATE statement shares its line with other "
                        "statements: put it on a line of its own", _where(path, own.line))
        # The innermost first: its selectors may name an outer construct's
        # names, which the outer one's pass then writes out in turn.
        opening, closing = max(constructs, key=lambda c: c[0].line)
        names, sections = _associations(opening, path)
        if sections:
            _check_sections(sections, opening, [
                s for s in statements if opening.last < s.line < closing.line], path)
        for number in range(opening.line, opening.last + 1):
            lines[number - 1] = _blank(lines[number - 1])
        for number in range(closing.line, closing.last + 1):
            lines[number - 1] = _blank(lines[number - 1])
        _substitute(lines, opening.last, closing.line - 1, names, fixed_form, path)


def _constructs(statements, path):
    """[(ASSOCIATE statement, its END ASSOCIATE)] among `statements`."""
    stack, found = [], []
    for statement in statements:
        text = code_outside_strings(statement.text)
        if _OPEN.match(text):
            close = matching_paren(statement.text, text.index("("))
            if close != -1 and not statement.text[close + 1:].strip():
                stack.append(statement)
        elif _CLOSE.match(text):
            if not stack:
                raise AdfortError("END ASSOCIATE without its ASSOCIATE", _where(path, statement.line))
            found.append((stack.pop(), statement))
    if stack:
        raise AdfortError("ASSOCIATE without its END ASSOCIATE", _where(path, stack[-1].line))
    return found


def _associations(statement, path):
    """{lower-case name: selector text} of an ASSOCIATE statement."""
    text = statement.text
    start = code_outside_strings(text).index("(")
    inside = text[start + 1:matching_paren(text, start)]
    names, sections = {}, {}
    for part in split_top_level(inside):
        match = _ASSOCIATION.match(part)
        if match is None:
            raise AdfortError(f"cannot read the association '{part.strip()}' of this ASSOCIATE",
                              _where(path, statement.line))
        name, selector = match.group("name"), match.group("selector")
        section = _SUBSCRIPTED.match(selector)
        if section:
            sections[name.lower()] = {w.lower() for w in re.findall(
                r"\b[a-z]\w*", section.group("subscripts"), re.IGNORECASE)}
        elif not _DESIGNATOR.match(selector):
            raise AdfortError(
                f"ASSOCIATE of '{name}' to '{selector}': adfort supports associate names "
                "for variables and their components (a => b%c%d), not for expressions, "
                "array sections or elements (their value or section is fixed when the "
                f"construct starts); use a local variable for '{name}', or the selector itself",
                _where(path, statement.line))
        names[name.lower()] = re.sub(r"\s+", "", selector)
    return names, sections


def _check_sections(sections, opening, block, path):
    """An element or section selector stays the one fixed when the construct
    started only if the block uses its name whole and changes no variable of
    its subscripts (assigned, a DO variable, given to a CALL or READ)."""
    for name, variables in sections.items():
        refusal = None
        for statement in block:
            text = code_outside_strings(statement.text)
            if re.search(rf"(?<![%\w])\s*{re.escape(name)}\s*\(", text, re.IGNORECASE):
                refusal = f"the block subscripts '{name}'"
            for variable in variables:
                word = rf"\b{re.escape(variable)}\b"
                if re.match(rf"\s*(?:\d+\s+)?{word}\s*(?:\([^=]*\))?\s*=(?!=)", text,
                            re.IGNORECASE) or \
                        re.search(rf"\bdo\s+(?:\d+\s*,?\s*)?{word}\s*=", text, re.IGNORECASE) or \
                        (re.match(r"\s*(?:call|read)\b", text, re.IGNORECASE)
                         and re.search(word, text, re.IGNORECASE)):
                    refusal = f"the block may change '{variable}', which its subscripts read"
            if refusal:
                raise AdfortError(
                    f"ASSOCIATE of '{name}' to an array element or section: {refusal}, so "
                    "writing the selector in place would not be the section fixed when the "
                    f"construct starts; use a local variable for '{name}', or the selector "
                    "itself", _where(path, statement.line))


def _substitute(lines, first, last, names, fixed_form, path):
    """Write the selectors of `names` for the references on lines
    first+1..last (1-based, inclusive)."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b", re.IGNORECASE)
    depth = 0
    for number in range(first + 1, last + 1):
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if fixed_form:
            if not body.strip() or body[:1] in "cC*!":
                continue
            head, body = body[:6], body[6:]
            if head[5:6] in ("", " ", "0"):
                depth = 0
        else:
            head = ""
            stripped = body.lstrip()
            if not stripped or stripped.startswith("!"):
                continue
        code, comment = split_comment(body)
        state = {"depth": depth}
        new = map_outside_strings(code, lambda piece: _rewrite(piece, pattern, names, state))
        depth = state["depth"]
        if not fixed_form and not code.rstrip().endswith("&"):
            depth = 0
        if fixed_form and len(head + new.rstrip()) > 72:
            raise AdfortError(
                "writing out the ASSOCIATE names of this fixed-form line takes it beyond "
                "column 72: use the selectors themselves in fixed-form source",
                _where(path, number))
        lines[number - 1] = head + new + comment + ending


def _rewrite(piece, pattern, names, state):
    """`piece` (code outside strings) with associate names replaced; keyword
    argument names (``f(name=…)``) and component names (``x%name``) stay."""
    out, position = [], 0
    for match in pattern.finditer(piece):
        start, end = match.span()
        state["depth"] += piece[position:start].count("(") - piece[position:start].count(")")
        out.append(piece[position:start])
        before = piece[:start].rstrip()
        after = piece[end:]
        keyword = state["depth"] > 0 and before.endswith(("(", ",")) and \
            re.match(r"\s*=(?![=>])", after)
        if before.endswith("%") or keyword:
            out.append(match.group(0))
        else:
            out.append(names[match.group(1).lower()])
        position = end
    rest = piece[position:]
    state["depth"] += rest.count("(") - rest.count(")")
    out.append(rest)
    return "".join(out)


def _blank(line):
    return line[len(line.rstrip("\r\n")):]


def _where(path, line):
    return f"{path}:{line}" if path else None
