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

When a rule fails to match at a reader, ``Base.__new__`` checks whether
every line read so far is blank or a comment (then it returns None rather
than raising): a rescan of all the lines read, on every failed attempt,
which a long comment header makes costly.  The lines read only grow, so
the shortcut remembers how many it found blank or comments and checks
only the lines added since (:func:`_only_comments_so_far`); the rest of
``Base.__new__`` is fparser's, with the same results and messages.
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


def _only_comments_so_far(reader):
    """Whether no line `reader` read so far is code (none, or all blank
    or comments), as ``Base.__new__`` asks: the lines found blank or
    comments are remembered on the reader (its lines are only appended to),
    keyed by the reader's form."""
    lines = reader.source_lines
    if not lines:
        return True
    form = reader._format
    key = (form.is_fixed, form.is_strict, form.f2py_enabled)
    known = reader.__dict__.get("_adfort_comment_lines")
    if known is None or known[0] != key or known[1] > len(lines):
        known = (key, 0)
    checked = known[1]
    if checked == -1:
        return False        # (a line of code was found)
    is_comment_line = reader.is_comment_line
    for number in range(checked, len(lines)):
        line = lines[number]
        if not (line.strip() == "" or is_comment_line(line)):
            reader._adfort_comment_lines = (key, -1)
            return False
    reader._adfort_comment_lines = (key, len(lines))
    return True


def _remember_comment_lines():
    """Install ``Base.__new__`` with :func:`_only_comments_so_far` (the
    body is fparser 0.2's)."""
    from fparser.common import readfortran
    from fparser.common.readfortran import FortranReaderBase
    from fparser.two import utils
    from fparser.two.utils import Base, BlockBase, NoMatchError, _set_parent
    original = ORIGINALS["Base.__new__"] = Base.__dict__["__new__"]
    original = getattr(original, "__func__", original)

    def __new__(cls, string, parent_cls=None, _deepcopy=False):
        if parent_cls is None:
            parent_cls = [cls]
        elif cls not in parent_cls:
            parent_cls.append(cls)

        # Get the class' match method if it has one
        match = getattr(cls, "match", None)

        if _deepcopy:
            return super(Base, cls).__new__(cls)

        if (
            isinstance(string, FortranReaderBase)
            and match
            and not issubclass(cls, BlockBase)
        ):
            reader = string
            item = reader.get_item()
            if item is None:
                return None
            if isinstance(item, readfortran.Comment):
                obj = None
            else:
                try:
                    obj = item.parse_line(cls, parent_cls)
                except NoMatchError:
                    obj = None
            if obj is None:
                reader.put_item(item)
                return None
            obj.item = item
            return obj

        result = None
        if match:
            try:
                result = cls.match(string)
            except NoMatchError as msg:
                if str(msg) == "%s: %r" % (cls.__name__, string):
                    # avoid recursion 1.
                    raise

        if isinstance(result, tuple):
            obj = object.__new__(cls)
            obj.string = string
            obj.item = None
            _set_parent(obj, result)
            if hasattr(cls, "init"):
                obj.init(*result)
            return obj
        if isinstance(result, Base):
            return result
        if result is None:
            for subcls in Base.subclasses.get(cls.__name__, []):
                if subcls in parent_cls:  # avoid recursion 2.
                    continue
                try:
                    obj = subcls(string, parent_cls=parent_cls)
                except NoMatchError:
                    obj = None
                if obj is not None:
                    return obj
        else:
            raise AssertionError(repr(result))
        if isinstance(string, FortranReaderBase):
            freader = string
            if _only_comments_so_far(freader):
                return
            line = string.source_lines[string.linecount - 1]
            errmsg = f"at line {string.linecount}\n>>>{line}\n"
        else:
            errmsg = f"{cls.__name__}: '{string}'"
        raise NoMatchError(errmsg)

    __new__.__doc__ = original.__doc__
    if utils.show_result(original) is not original:
        return      # (fparser debugging its matches: leave it be)
    Base.__new__ = staticmethod(__new__)
