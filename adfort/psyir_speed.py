"""Building PSyIR without a walk of the whole module per routine.

At the end of each routine PSyclone's front end detaches the routine from
its module, which removes the routine's symbol from the module's table
unless something refers to it: ``SymbolTable._validate_remove_routinesymbol``
collects every symbol accessed in the module (all the routines built so
far) to look for it, quadratic in the routines of a module (a quarter of
building the big model's PSyIR).

Every symbol a PSyIR node or declaration of the module refers to was named
in the source the module's tree was built from: the module's lines up to
the end of the routine (routines after it are still empty).  So when the
routine's name appears in those lines only once in its SUBROUTINE or
FUNCTION statement and at most once in its END statement, nothing can
refer to its symbol and the walk would find nothing: :func:`reading`
skips it then, and leaves every other case (the name used, a continued
name, INCLUDE lines, fixed form) to PSyclone's check.
"""

import re
from contextlib import contextmanager

_context = []       # [_Source] while PSyIR is built from a source
_WORD = re.compile(r"[a-z_][a-z0-9_]*")
_SPLIT_NAME = re.compile(r"\w&[ \t]*(?:!.*)?\n[ \t]*&\w")
_OPAQUE = re.compile(r"^[ \t]*(?:include\b|#)", re.IGNORECASE | re.MULTILINE)
_installed = []


class _Source:
    """Where each lower-case word occurs in a free-form source."""

    def __init__(self, text):
        self.lines = text.lower().split("\n")
        self._where = None

    def occurrences(self, name):
        """Sorted 1-based numbers of the lines holding word `name` (once
        per occurrence)."""
        if self._where is None:
            where = {}
            for number, line in enumerate(self.lines, start=1):
                for word in _WORD.findall(line):
                    where.setdefault(word, []).append(number)
            self._where = where
        return self._where.get(name, ())


@contextmanager
def reading(source, free_form):
    """Skip the walk (see the module's doc) while building PSyIR from
    `source` in the block, when it is free form without a name continued
    across lines, INCLUDE lines or preprocessor lines."""
    usable = free_form and not _SPLIT_NAME.search(source) and not _OPAQUE.search(source)
    if usable:
        _install()
        _context.append(_Source(source))
    try:
        yield
    finally:
        if usable:
            _context.pop()


def _unreferenced(table, symbol):
    """Whether no symbol accessed in `table`'s module can be `symbol`, as
    the names of the source show (False: cannot tell)."""
    from fparser.two import Fortran2003
    from psyclone.psyir.nodes import Container, Routine
    container = table.node
    if not _context or not isinstance(container, Container):
        return False
    routine = None
    for child in container.children:
        if isinstance(child, Routine) and child.symbol is symbol:
            if routine is not None:
                return False
            routine = child
    ast = getattr(routine, "_ast", None)
    if not isinstance(ast, (Fortran2003.Subroutine_Subprogram,
                            Fortran2003.Function_Subprogram)):
        return False
    first, last = ast.children[0], ast.children[-1]
    if not isinstance(first, (Fortran2003.Subroutine_Stmt, Fortran2003.Function_Stmt)) or \
            not isinstance(last, (Fortran2003.End_Subroutine_Stmt,
                                  Fortran2003.End_Function_Stmt)):
        return False
    try:
        head = first.item.span
        end = last.item.span
    except AttributeError:
        return False
    name = symbol.name.lower()
    if str(first.children[1]).lower() != name:
        return False
    named_end = last.items[1] is not None
    if named_end and str(last.items[1]).lower() != name:
        return False
    found = [n for n in _context[-1].occurrences(name) if n <= end[1]]
    in_head = [n for n in found if head[0] <= n <= head[1]]
    in_end = [n for n in found if end[0] <= n <= end[1]]
    return len(in_head) == 1 and len(in_end) == (1 if named_end else 0) \
        and len(found) == len(in_head) + len(in_end)


def _install():
    if _installed:
        return
    from psyclone.psyir.symbols.symbol_table import SymbolTable
    original = SymbolTable._validate_remove_routinesymbol
    _installed.append(original)

    def _validate_remove_routinesymbol(self, symbol):
        if _context and _unreferenced(self, symbol):
            return
        original(self, symbol)

    _validate_remove_routinesymbol.__doc__ = original.__doc__
    SymbolTable._validate_remove_routinesymbol = _validate_remove_routinesymbol
