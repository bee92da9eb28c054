"""Blanks between the keywords of fixed-form statements.

Blanks are insignificant in fixed form: ``IMPLICITDOUBLEPRECISION(A-H,O-Z)``,
``REAL*8X(N)``, ``DIMENSIONW(2)``, ``COMMON/B/X``, ``GOTO10``,
``DO10I=1,N`` or ``DOUBLEPRECISIONFUNCTIONF(X)`` are what gfortran reads as
``IMPLICIT DOUBLE PRECISION (A-H,O-Z)``, ``REAL*8 X(N)``… adfort's front end
(its own rewrites and fparser) reads statements by keywords followed by a
blank; :func:`space_keywords` writes those blanks into a fixed-form source
once, as it is loaded, so that every later pass sees the spelling it knows.

Only the keywords leading a statement are spaced (a logical IF's statement
too), and only where no other reading is possible: a statement with an
``=`` outside parentheses is an assignment (``REALX = 1.``,
``DO10I = 1.5``) unless it is a DO statement (``DO10I=1,N``: a comma
after the ``=``).  Lines keep their number; a line made longer than
column 72 gives back blanks from the rest of its code where it has some.
"""

import re

from adfort.statements import (
    _fixed_fields, _is_fixed_comment, matching_paren, split_statements, split_top_level)

# The type keywords, longest spelling first.
_TYPES = (("double", "precision"), ("double", "complex"), ("real",), ("integer",),
          ("logical",), ("complex",), ("character",), ("byte",))
# Keywords followed by a name, a list, '(' or '/' (specification statements).
_LEADING = (("dimension",), ("common",), ("parameter",), ("data",), ("external",),
            ("intrinsic",), ("save",), ("equivalence",), ("namelist",), ("entry",),
            ("call",), ("subroutine",), ("program",), ("block", "data"))


def _words_pattern(words):
    """A regex matching `words` (tuples of lower-case keywords) with or
    without blanks between their letters."""
    return r"[ \t]*".join(re.escape(c) for c in "".join(words))


_LENGTH = r"(?:[ \t]*\*[ \t]*(?:\d[\d \t]*|\([ \t]*\*[ \t]*\)))?"


def _compact(text):
    """`text` lower-cased without blanks outside character constants."""
    out, quote = [], None
    for char in text:
        if quote:
            out.append(char)
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
            out.append(char)
        elif char not in " \t":
            out.append(char.lower())
    return "".join(out)


def _top_level_equals(compact):
    """Whether `compact` has an assignment ``=`` outside parentheses (not
    ``==``, ``<=``, ``>=``, ``/=``, ``=>``); and the position after it."""
    depth, quote = 0, None
    for i, char in enumerate(compact):
        if quote:
            if char == quote:
                quote = None
            continue
        if char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "=" and depth == 0:
            if compact[i + 1:i + 2] in ("=", ">") or compact[i - 1:i] in ("<", ">", "/", "="):
                continue
            return i + 1
    return None


def _top_level_comma(compact, start):
    """Whether `compact` has a comma outside parentheses from `start` on."""
    return len(split_top_level(compact[start:])) > 1


def _spell(matched, words):
    """The letters of `matched` (a blank-free or blank-ridden spelling of
    `words`) in their own case, the words apart by one blank."""
    letters = [c for c in matched if c not in " \t"]
    out, at = [], 0
    for word in words:
        out.append("".join(letters[at:at + len(word)]))
        at += len(word)
    return " ".join(out)


class _Spacer:
    """Spaces the keywords of one physical line's statement field."""

    def __init__(self, body, unit_start):
        self.body = body
        self.unit_start = unit_start
        self.edited = 0     # where the last edit ends

    def keyword(self, position, words, tail=""):
        """Match `words` (then regex `tail`) at `position` of the body;
        (end, canonical text) or None."""
        match = re.compile("(" + _words_pattern(words) + ")(" + tail + ")", re.I).match(
            self.body, position)
        if not match:
            return None
        return match.end(), _spell(match.group(1), words) + re.sub(r"[ \t]+", "", match.group(2))

    def replace(self, start, end, text):
        """Write `text` for body[start:end], a blank after it."""
        following = self.body[end:]
        if following[:1] not in (" ", "\t", ""):
            text += " "
        self.body = self.body[:start] + text + following
        self.edited = start + len(text)
        return self.edited

    def keyword_at(self, position, words, tail=""):
        found = self.keyword(position, words, tail)
        if found:
            return self.replace(position, found[0], found[1])
        return None

    def statement(self, position, compact):
        """Space the keywords of the statement starting at `position`
        (`compact`: its text, lower case, blank-free)."""
        if "::" in compact:
            return
        if compact.startswith("if("):
            self.logical_if(position)
            return
        equals = _top_level_equals(compact)
        if equals is not None:
            if re.match(r"^do\d*,?[a-z]\w*=", compact) and _top_level_comma(compact, equals):
                self.do(position)
            return
        if compact.startswith("implicit"):
            end = self.keyword_at(position, ("implicit",))
            if end is None:
                return
            if compact.startswith("implicitnone"):
                self.keyword_at(end, ("none",))
            else:
                self.type_keyword(end, implicit=True)
            return
        if re.match(r"^goto(?:\d|\(|[a-z])", compact):
            self.keyword_at(position, ("go", "to"))
            return
        if re.match(r"^do(?:\d+,?)?while\(", compact):
            end = self.do(position)
            if end is not None:
                self.keyword_at(end, ("while",))
            return
        if self.type_keyword(position, implicit=False):
            return
        if re.match(r"^function[a-z]\w*\(", compact):
            self.keyword_at(position, ("function",))
            return
        for words in _LEADING:
            if compact.startswith("".join(words)):
                rest = compact[len("".join(words)):]
                if rest[:1].isalpha() or rest[:1] in ("(", "/"):
                    self.keyword_at(position, words)
                return

    def do(self, position):
        """``DO10I=…`` as ``DO 10 I=…`` (``DO10,I``, ``DOI`` alike)."""
        found = self.keyword(position, ("do",), r"[ \t]*(?:\d[\d \t]*)?,?")
        if found is None:
            return None
        return self.replace(position, found[0], re.sub(r"^(\w\w)(\d)", r"\1 \2", found[1]))

    def type_keyword(self, position, implicit):
        """A type keyword (with a ``*length``) at `position`, spaced from
        the name following it (from the letters in parentheses after
        IMPLICIT); a FUNCTION after it too (at the start of a unit).
        Returns whether there was one."""
        for words in _TYPES:
            found = self.keyword(position, words, _LENGTH)
            if not found:
                continue
            following = self.body[found[0]:].lstrip(" \t")
            if following[:1].isalpha() or implicit and following[:1] == "(":
                end = self.replace(position, found[0], found[1])
                if not implicit and self.unit_start and \
                        re.match(r"^function[a-z]\w*\(", _compact(self.body[end:])):
                    self.keyword_at(end, ("function",))
            return True
        return False

    def logical_if(self, position):
        """``IF(c)GOTO10``: space the statement after the condition when it
        is on the same line."""
        at = self.body.find("(", position)
        close = matching_paren(self.body, at) if at >= 0 else -1
        if close < 0:
            return
        rest = self.body[close + 1:]
        inner = _compact(rest.split("!", 1)[0]) if "'" not in rest and '"' not in rest \
            else _compact(rest)
        if not inner or inner.startswith("then") or re.match(r"^\d+,\d+,\d+$", inner):
            return
        self.statement(close + 1 + len(rest) - len(rest.lstrip(" \t")), inner)


def _shorten(body, limit, keep):
    """`body` with blanks (outside strings, after index `keep`) removed
    from its end until it has at most `limit` characters."""
    excess = len(body.rstrip()) - limit
    if excess <= 0:
        return body
    chars, quote, removable = list(body.rstrip()), None, []
    for i, char in enumerate(chars):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "!":
            break
        elif char in " \t" and i > keep:
            removable.append(i)
    for i in reversed(removable[-excess:] if excess <= len(removable) else removable):
        del chars[i]
    return "".join(chars)


_UNIT_END = re.compile(r"^end(?:(?:subroutine|function|program|blockdata|module)\w*)?$")


def space_keywords(source):
    """`source` (fixed form) with blanks after the keywords leading its
    statements (see the module docstring)."""
    statements = split_statements(source, True)
    if not statements:
        return source
    lines = source.splitlines(keepends=True)
    unit_start, previous_last = True, 0
    for stmt in statements:
        compact = _compact(stmt.text)
        first_on_line = stmt.line > previous_last
        previous_last = stmt.last
        starting, unit_start = unit_start, (
            bool(_UNIT_END.match(compact)) and "=" not in compact or compact == "contains")
        if not first_on_line or not compact[:1].isalpha():
            continue
        if compact.startswith(("format(", "end", "else", "print", "read", "write")):
            continue
        number = stmt.line - 1
        fields = _line_fields(lines[number])
        if fields is None:
            continue
        head, body, ending = fields
        position = len(body) - len(body.lstrip(" \t"))
        if stmt.label and body[position:position + 1].isdigit():
            continue    # a label in the statement field (after ';'): left alone
        spacer = _Spacer(body, starting)
        spacer.statement(position, compact)
        if spacer.body == body:
            continue
        new = spacer.body
        if len(head + body.rstrip()) <= 72 < len(head + new.rstrip()) and \
                not re.search(r"\d[ \t]*h", compact):    # (Hollerith constants keep blanks)
            new = _shorten(new, 72 - len(head), keep=spacer.edited)
        lines[number] = head + new + ending
    return "".join(lines)


def join_split_names(source):
    """`source` (fixed form, keywords spaced) with the blanks inside names
    and numbers taken out where nothing else can be meant: ``AL PHA`` and
    ``3.14159 26535D0`` are ``ALPHA`` and ``3.1415926535D0`` to a compiler,
    two tokens to fparser.  A blank between two letters or digits goes in
    an assignment (all of it) and inside the parentheses of any other
    statement (an IF's condition, a CALL's arguments, PARAMETER), never in
    character constants, FORMAT statements, statements sharing a line or
    statements with Hollerith constants; lines keep their number."""
    lines = source.splitlines(keepends=True)
    counts = {}
    statements = split_statements(source, True)
    for stmt in statements:
        for number in range(stmt.line, stmt.last + 1):
            counts[number] = counts.get(number, 0) + 1
    for stmt in statements:
        compact = _compact(stmt.text)
        if any(counts[n] > 1 for n in range(stmt.line, stmt.last + 1)) or \
                compact.startswith("format(") or re.search(r"(?<![\w.])\d+h", compact) or \
                not re.search(r"[A-Za-z0-9_][ \t]+[A-Za-z0-9_]", stmt.text):
            continue
        equals = _top_level_equals(compact)
        # (Not a DO statement, nor a declaration with a value: DOUBLE PRECISION.)
        whole = equals is not None and "::" not in compact and not (
            re.match(r"^do\d*,?[a-z]\w*=", compact) and _top_level_comma(compact, equals))
        _join_in_lines(lines, stmt, whole)
    return "".join(lines)


def _join_in_lines(lines, stmt, whole):
    """Take the blanks between two letters or digits out of the statement
    field of `stmt`'s lines: everywhere if `whole`, else inside parentheses."""
    depth, quote, previous = 0, None, ""
    for number in range(stmt.line - 1, stmt.last):
        fields = _line_fields(lines[number])
        if fields is None:
            continue
        head, body, ending = fields
        out, k = [], 0
        while k < len(body):
            char = body[k]
            if quote:
                out.append(char)
                if char == quote:
                    quote = None
                k += 1
                continue
            if char == "!":
                out.append(body[k:])
                break
            if char in " \t":
                end = k
                while end < len(body) and body[end] in " \t":
                    end += 1
                following = body[end:end + 1]
                if (whole or depth > 0) and _word_char(previous) and _word_char(following):
                    k = end     # a blank inside a name or number
                    continue
                out.append(body[k:end])
                k = end
                continue
            if char in "'\"":
                quote = char
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            out.append(char)
            previous = char
            k += 1
        new = "".join(out)
        if new != body:
            lines[number] = head + new + ending


def _word_char(char):
    return bool(char) and (char.isalnum() or char == "_")


def _line_fields(line):
    """(label and continuation columns, statement field, line ending) of a
    fixed-form line, or None for a comment line."""
    ending = line[len(line.rstrip("\r\n")):]
    text = line[:len(line) - len(ending)]
    if _is_fixed_comment(text):
        return None
    _, _, body = _fixed_fields(text)
    return text[:len(text) - len(body)], body, ending
