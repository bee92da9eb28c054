"""Lay generated Fortran out for people: long lines broken where a person
would break them (after a comma, before an operator), under the limit of
free-form source."""

import textwrap

LINE_LIMIT = 100
FREE_FORM_LIMIT = 132
# Break points by preference: between terms, between arguments, then
# between factors; as a last resort after a comma or an opening
# parenthesis with no space (subscripts as PSyclone writes them).
_BREAKS = ((" + ", " - "), (", ",), (" * ", " / ", " .AND. ", " .OR. "), (",", "("))
_AFTER = (", ", ",", "(")  # broken after the token, the others before it


def _outside_quotes(line):
    """For each position of `line`, whether it lies outside string literals."""
    flags, quote = [], None
    for char in line:
        if quote:
            flags.append(False)
            if char == quote:
                quote = None
        else:
            if char in "'\"":
                quote = char
            flags.append(quote is None)
    return flags


def _break_point(line, limit):
    # Only the first `limit` characters can hold the break: scanning the
    # whole line at every break made wrapping quadratic in its length.
    free = _outside_quotes(line[:limit])
    fallback = None
    for tokens in _BREAKS:
        best = None
        for token in tokens:
            start = 0
            while True:
                pos = line.find(token, start, limit)
                if pos < 0 or pos + len(token) > limit - 2:
                    break
                cut = pos + (len(token) if token in _AFTER else 1)
                if token == "(" and line[cut:cut + 1] == "/":
                    start = pos + 1
                    continue  # (/ … /) is one token
                if free[pos] and line[:cut].strip():
                    best = max(best or 0, cut)
                start = pos + 1
        if best and best > limit // 2:
            return best
        fallback = max(fallback or 0, best or 0) or None
    return fallback


def _designator_break(line):
    """The last position before a ``%`` (outside strings) that leaves the
    first part under free form's limit, or None."""
    free = _outside_quotes(line[:FREE_FORM_LIMIT - 2])
    best = None
    for pos, char in enumerate(line[:FREE_FORM_LIMIT - 2]):
        if char == "%" and free[pos] and line[:pos].strip():
            best = pos
    return best


def _blank_break(line):
    """The last blank (outside strings) that leaves the first part under
    free form's limit, or None: between two tokens (``name = &``), for a
    line whose long names leave no other break point."""
    free = _outside_quotes(line[:FREE_FORM_LIMIT - 2])
    best = None
    for pos, char in enumerate(line[:FREE_FORM_LIMIT - 2]):
        if char == " " and free[pos] and line[:pos].strip():
            best = pos
    return best


def wrap_line(line, limit=LINE_LIMIT):
    """Return `line` as one or more lines no longer than `limit`."""
    if len(line) <= limit:
        return [line]
    indent = line[:len(line) - len(line.lstrip())]
    if line.lstrip().startswith("!"):
        body = line.lstrip()[1:].strip()
        return [f"{indent}! {part}" for part in
                textwrap.wrap(body, limit - len(indent) - 2, break_long_words=False)]
    out, rest = [], line
    continuation = indent + "    "
    while len(rest) > limit:
        cut = _break_point(rest, limit)
        if cut is None and len(rest) > FREE_FORM_LIMIT:
            # Long designators (noahmp_adj%energy%state%AlbedoSoilDir(i) = …):
            # any break point under free form's own limit, else between the
            # parts of a designator (``%`` is a token of its own).
            cut = _break_point(rest, FREE_FORM_LIMIT) or _designator_break(rest) or \
                _blank_break(rest)
        if cut is None:
            break
        out.append(rest[:cut].rstrip() + " &")
        rest = continuation + rest[cut:].lstrip()
    out.append(rest)
    return out


def wrap(text, limit=LINE_LIMIT):
    """Wrap every over-long line of the Fortran `text`."""
    lines = []
    for line in text.splitlines():
        lines.extend(wrap_line(line, limit))
    return "\n".join(lines) + "\n"
