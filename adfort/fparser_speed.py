"""Faster fparser matching, with the same parse trees.

fparser matches every expression operator through a pattern of
``fparser.two.pattern_tools`` named on the spot (``pattern.add_op.named()``
in ``Level_2_Expr.match`` and a dozen others): each call makes a new
``Pattern``, whose regular expression is looked up again in ``re``'s
cache at its first use.  For the big model that is 37,000 patterns made
and compiled for about 700 lines, a tenth of the parse.  :func:`apply`
makes ``Pattern.named()`` (without a name) give the same ``Pattern`` each
time for a pattern: equal to the one fparser would make, and its compiled
expression kept.  Patterns are not changed once made (every operation on
one makes another), so sharing one is safe.

Before every statement of a block fparser also looks for comments,
INCLUDE lines and directives, each a separate attempt taking the next
line from the reader and giving it back (four per statement, a sixth of
the parse).  When the next line is a plain statement (a
``readfortran.Line``, neither a comment nor a preprocessor directive)
not starting with ``INCLUDE``, none of them can match it: the shortcut
looks once and gives it back, as the attempts would.

Each failed match of a statement at the top of a program unit asks
whether every line read so far is blank or a comment, testing them again
from the first one (``Base.__new__``): a file opening with a licence of a
hundred comment lines costs a hundred tests per failed match, 0.4 s for a
small kernel.  A reader remembers its answer for each line
(:func:`_remember_comment_lines`): the test depends only on the line and
on the reader's format.

Matching an expression, fparser splits each operand it tries at its
top-level parentheses (``splitline.splitparen``), character by character
in Python: a statement of a few thousand characters (a flat sum over a
chemistry mechanism's reactions) is split again for every operator, 40 %
of reading it.  :func:`_splitparen` gives the same parts, jumping from one
quote, parenthesis or backslash to the next with a regular expression.

fparser reads ``a + b + … + z`` by splitting at the last ``+``, reading
the right operand, then reading the whole left part again the same way:
each of the n operators maps the text before it afresh (strings,
parentheses and exponent literals replaced by placeholders, one
``str.replace`` over the text for each), quadratic in n or worse.  A
generated chemistry mechanism's flat sum of 400 terms took seconds.
:func:`_read_sums_once` maps the statement once, finds every top-level
operator of the chain on the mapped text (a prefix of it splits where its
own mapping would), reads each operand as fparser does and builds the same
left-nested nodes.  Chains of fewer than :data:`CHAIN` operators, and any
whose operand does not read, go fparser's own way.
"""

_APPLIED = False
ORIGINALS = {}      # name: fparser's function replaced (to compare)


def apply():
    """Install the shortcut (once; nothing to do without fparser)."""
    global _APPLIED
    if _APPLIED:
        return
    _APPLIED = True
    try:
        from fparser.two.pattern_tools import Pattern
    except ImportError:
        return      # the import that needs fparser says it is missing
    named = ORIGINALS["named"] = Pattern.named

    def named_once(self, name=None):
        if name is not None:
            return named(self, name)
        try:
            return self.__dict__["_adfort_named"]
        except KeyError:
            made = self.__dict__["_adfort_named"] = named(self)
            return made

    named_once.__doc__ = named.__doc__
    Pattern.named = named_once
    _skip_plain_statements()
    _remember_comment_lines()
    _split_parentheses_by_scanning()
    _read_sums_once()


def _skip_plain_statements():
    from fparser.common.readfortran import FortranReaderBase, Line
    from fparser.two import Fortran2003
    from fparser.two.utils import DynamicImport
    original = ORIGINALS["add_comments_includes_directives"] = \
        Fortran2003.add_comments_includes_directives

    def add_comments_includes_directives(content, reader):
        if isinstance(reader, FortranReaderBase):
            item = reader.get_item()
            if item is None:
                return      # (no line: every attempt finds none)
            reader.put_item(item)
            if type(item) is Line and item.line.strip()[:7].upper() != "INCLUDE":
                return
        original(content, reader)

    add_comments_includes_directives.__doc__ = original.__doc__
    Fortran2003.add_comments_includes_directives = add_comments_includes_directives
    DynamicImport.add_comments_includes_directives = add_comments_includes_directives


def _remember_comment_lines():
    from fparser.common.readfortran import FortranReaderBase
    original = ORIGINALS["is_comment_line"] = FortranReaderBase.is_comment_line

    def is_comment_line(self, line):
        memo = self.__dict__.get("_adfort_comment_lines")
        if memo is None or memo[0] is not self._format:
            memo = self.__dict__["_adfort_comment_lines"] = (self._format, {})
        answers = memo[1]
        try:
            return answers[line]
        except KeyError:
            answer = answers[line] = original(self, line)
            return answer

    is_comment_line.__doc__ = original.__doc__
    FortranReaderBase.is_comment_line = is_comment_line


_SPECIAL = None


def _split_parentheses_by_scanning():
    import re
    from fparser.common import splitline
    global _SPECIAL
    _SPECIAL = re.compile(r"[\\'\"()\[\]]")
    original = ORIGINALS["splitparen"] = splitline.splitparen

    def splitparen(line, paren_open="([", paren_close=")]"):
        if paren_open != "([" or paren_close != ")]":
            return original(line, paren_open, paren_close)
        return _splitparen(line, splitline.ParenString)

    splitparen.__doc__ = original.__doc__
    splitline.splitparen = splitparen


def _splitparen(line, paren_string):
    """fparser's ``splitparen`` for ``()`` and ``[]``: the top-level
    parenthesised parts (`paren_string` objects) and the text between,
    quotes and backslash escapes respected as fparser does."""
    items, stack = [], []
    start = skip = 0
    quote = ""
    for match in _SPECIAL.finditer(line):
        idx = match.start()
        if idx < skip:
            continue        # escaped, or inside a run of backslashes
        char = line[idx]
        if char == "\\":
            end = idx
            while end < len(line) and line[end] == "\\":
                end += 1
            # An odd run escapes the character after it, whatever it is.
            skip = end + 1 if (end - idx) % 2 else end
            continue
        if quote:
            if char == quote:
                quote = ""
            continue
        if char in "'\"":
            quote = char
            continue
        if char in "([":
            if not stack:
                items.append(line[start:idx])
                start = idx
            stack.append(")" if char == "(" else "]")
            continue
        if stack and char == stack[-1]:
            stack.pop()
            if not stack:
                items.append(paren_string(line[start:idx + 1]))
                start = idx + 1
    if start != len(line):
        items.append(line[start:])
    return items


# Operators in a chain from which it is read in one pass.
CHAIN = 8


def _read_sums_once():
    from fparser.two import Fortran2003, pattern_tools
    from fparser.two.utils import NoMatchError, _set_parent
    from fparser.common.splitline import string_replace_map
    for cls, operand in ((Fortran2003.Level_2_Expr, Fortran2003.Add_Operand),):
        original = ORIGINALS[f"{cls.__name__}.match"] = cls.match
        operator = pattern_tools.add_op.named()

        def match(string, cls=cls, operand=operand, original=original, operator=operator):
            line, repmap = string_replace_map(string)
            parts, current = [], line
            while True:
                split = operator.rsplit(current)
                if not split or len(split) != 3:
                    break
                lhs, oper, rhs = split[0].rstrip(), split[1], split[2].lstrip()
                if not lhs or not rhs:
                    break
                parts.append((oper.upper().replace(" ", ""), rhs))
                current = lhs
            if len(parts) < CHAIN:
                return original(string)
            try:
                # (As fparser: each right operand read before the left part.)
                operands = [operand(repmap(rhs)) for _, rhs in parts]
                node = cls(repmap(current))
            except NoMatchError:
                return original(string)
            for (oper, _), right in zip(parts[:0:-1], operands[:0:-1]):
                result = (node, oper, right)
                made = object.__new__(cls)
                made.string = f"{getattr(node, 'string', node)} {oper} " \
                    f"{getattr(right, 'string', right)}"
                made.item = None
                _set_parent(made, result)
                made.init(*result)
                node = made
            return node, parts[0][0], operands[0]

        match.__doc__ = original.__doc__
        cls.match = staticmethod(match)
