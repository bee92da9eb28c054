"""Splitting Fortran source text into logical statements.

A logical statement is what the standard calls a statement: its
continuation lines joined, comments removed, ``;``-separated statements
apart, its label taken off.  Each keeps the physical lines it came from,
so that rewrites of the source can still name the line the user wrote.
"""

import dataclasses
import re


@dataclasses.dataclass
class Statement:
    """One logical statement of a source file.

    :param str text: the statement without label, comments and
        continuation marks (strings kept as written).
    :param label: its statement label (digits, leading zeros dropped) or None.
    :param int line: the physical line (1-based) it starts on.
    :param int last: the physical line it ends on.
    """
    text: str
    label: str = None
    line: int = 0
    last: int = 0


def _is_fixed_comment(line):
    return not line.strip() or line[:1] in ("c", "C", "*", "!") or \
        line.lstrip().startswith("!") and not _has_fixed_label_tab(line)


def _has_fixed_label_tab(line):
    return bool(re.match(r"^\d{0,5}\t", line))


def _fixed_fields(line):
    """(label field, continuation?, statement field) of a fixed-form line."""
    tab = re.match(r"^(\d{0,5})\t", line)
    if tab:  # DEC tab format: a digit after the tab marks a continuation
        rest = line[tab.end():]
        if rest[:1] in "123456789" and rest[:1] != "":
            return tab.group(1), True, rest[1:]
        return tab.group(1), False, rest
    label = line[:5]
    mark = line[5:6]
    continued = mark not in ("", " ", "0")
    return label, continued, line[6:]


def _scan(text, quote):
    """Walk `text` (code of one physical line) outside comments.

    :param quote: the quote character of a string the line starts inside, or None.
    :returns: (code without comment, [positions of top-level ';'], quote
        still open at the end or None).
    """
    out, semis, i = [], [], 0
    while i < len(text):
        char = text[i]
        if quote:
            out.append(char)
            if char == quote:
                if text[i + 1:i + 2] == quote:  # doubled quote inside a string
                    out.append(quote)
                    i += 2
                    continue
                quote = None
            i += 1
            continue
        if char in "'\"":
            quote = char
        elif char == "!":
            break
        elif char == ";":
            semis.append(len(out))
        out.append(char)
        i += 1
    return "".join(out), semis, quote


_LABEL = re.compile(r"^\s*(\d{1,5})(?=\s|$)")


def _pieces(code, semis):
    starts = [0] + [s + 1 for s in semis]
    ends = semis + [len(code)]
    return [code[a:b] for a, b in zip(starts, ends)]


def split_statements(source, fixed_form):
    """The logical statements of `source`, in order.

    :param bool fixed_form: whether the source is fixed form (labels in
        columns 1-5, a continuation mark in column 6, statement in 7-72).
    :returns: a list of :class:`Statement`.
    """
    if fixed_form:
        return _split_fixed(source)
    return _split_free(source)


def _flush(statements, parts, label, first, last, free):
    """Add the statements of one logical line (`parts` of code split at ';')."""
    for index, piece in enumerate(parts):
        own_label = label if index == 0 else None
        if free or index > 0:
            match = _LABEL.match(piece)
            if match and piece[match.end():].strip():
                own_label = match.group(1)
                piece = piece[match.end():]
        text = piece.strip()
        if text:
            statements.append(Statement(text, _normal_label(own_label), first, last))


def _normal_label(label):
    if label is None or not str(label).strip().isdigit():
        return None
    return str(int(label))


def _split_fixed(source):
    statements = []
    code, semis, label, first, last, quote = "", [], None, 0, 0, None
    for number, line in enumerate(source.splitlines(), start=1):
        if quote is None and _is_fixed_comment(line):
            continue
        label_field, continued, body = _fixed_fields(line)
        if continued and first:
            part, more, quote = _scan(body, quote)
            semis += [len(code) + s for s in more]
            code += part
            last = number
            continue
        if first:
            _flush(statements, _pieces(code, semis), label, first, last, False)
        part, semis, quote = _scan(body, None)
        code, label, first, last = part, label_field.strip() or None, number, number
    if first:
        _flush(statements, _pieces(code, semis), label, first, last, False)
    return statements


def _split_free(source):
    statements = []
    code, semis, first, last, quote, going_on = "", [], 0, 0, None, False
    for number, line in enumerate(source.splitlines(), start=1):
        stripped = line.strip()
        if going_on and quote is None and (not stripped or stripped.startswith("!")):
            continue  # comment lines may sit between continuation lines
        if not going_on and (not stripped or stripped.startswith("!")):
            continue
        body = line
        if going_on:
            lead = body.lstrip()
            if lead.startswith("&"):
                body = lead[1:]
            elif quote is None:
                body = " " + body.strip()
        part, more, quote = _scan(body, quote)
        ending = part.rstrip()
        if ending.endswith("&"):
            part = ending[:-1]
            continues = True
        else:
            continues = quote is not None  # (invalid without '&'; be lenient)
        if not going_on:
            code, semis, first = "", [], number
        semis += [len(code) + s for s in more]
        code += part
        last = number
        going_on = continues
        if not going_on:
            _flush(statements, _pieces(code, semis), None, first, last, True)
    if going_on:
        _flush(statements, _pieces(code, semis), None, first, last, True)
    return statements


def code_outside_strings(text):
    """`text` with the contents of its character constants blanked (same
    length), so that searching it finds no keyword inside a string."""
    out, quote, i = [], None, 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == quote and text[i + 1:i + 2] == quote:
                out.append("  ")
                i += 2
                continue
            if char == quote:
                quote = None
                out.append(char)
            else:
                out.append(" ")
            i += 1
            continue
        if char in "'\"":
            quote = char
        out.append(char)
        i += 1
    return "".join(out)


def matching_paren(text, start):
    """Index of the parenthesis closing the one at `text[start]` (strings
    skipped), or -1."""
    masked = code_outside_strings(text)
    depth = 0
    for i in range(start, len(masked)):
        if masked[i] == "(":
            depth += 1
        elif masked[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def outside_parentheses(text):
    """`text` without what is inside its parentheses and strings."""
    out, depth = [], 0
    for char in code_outside_strings(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and char not in "'\"":
            out.append(char)
    return "".join(out)


def split_top_level(text, separator=","):
    """Parts of `text` separated by `separator` outside parentheses and strings."""
    masked = code_outside_strings(text)
    parts, depth, start = [], 0, 0
    for i, char in enumerate(masked):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts
