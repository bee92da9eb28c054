"""Building PSyIR of a module without walks of the whole module per routine.

PSyclone's front end builds each routine of a module as a child of the
module's Container, detaches it when it is complete and attaches it again.
Three steps of that walk the whole module built so far, quadratic in its
routines (two thirds of reading a file whose target calls 180 routines):

- detaching removes the routine's symbol from the module's table, after
  ``SymbolTable._validate_remove_routinesymbol`` collected every symbol
  accessed in the module to see whether something refers to it (if so the
  symbol stays, as unresolved);
- attaching looks for another Routine, or a CodeBlock holding a
  subprogram, of the same name in the module (``walk(Routine)``,
  ``walk(CodeBlock)``);
- ``_subroutine_handler`` looks for a routine declared before its body
  (``walk(Routine)``).

While :func:`reading`:

- a routine detached from a module (not from a file: an external routine
  may share its name with a module's) always keeps its symbol there (as
  unresolved), without the check: when it is attached again, as every
  routine completed is, both ways end the same (the module's table holds the
  routine's symbol with a module interface, the routine's own table does
  not).  A routine PSyclone cannot represent is not attached again (its
  handler raises NotImplementedError and the module gets a CodeBlock): for
  it the check is made then, and the symbol's interface put back if the
  symbol would have been removed (the handler adds it back as it was);
- those walks look at the program units only (a module's children, the
  modules of a file): a Routine is never inside another one (PSyIR has no
  internal procedures: a routine with CONTAINS is a CodeBlock of its
  module), and a CodeBlock holding a subprogram is a module's child.
"""

from contextlib import contextmanager

from adfort import walks

_state = {"depth": 0, "kept": None}
_installed = []


@contextmanager
def reading(source, free_form):
    """Build PSyIR from `source` in the block without the whole-module walks
    (see the module's doc).

    :param source: the text parsed (unused: the shortcuts hold for any).
    :param free_form: its source form (unused).
    """
    del source, free_form
    _state["depth"] += 1
    try:
        with walks.building():
            yield
    finally:
        _state["depth"] -= 1


def _unit_walk(node, my_type):
    """The nodes of `my_type` among the program units below `node` (a
    Container), in walk order: what ``node.walk(my_type)`` finds for
    Routine, and for CodeBlocks holding subprograms."""
    from psyclone.psyir.nodes import Container
    found = []
    for child in node.children:
        if isinstance(child, my_type):
            found.append(child)
        elif isinstance(child, Container):
            found.extend(_unit_walk(child, my_type))
    return found


@contextmanager
def _units_only(container, types):
    """``container.walk`` looks at program units only for `types` in the
    block (an attribute of the instance, removed after)."""
    cls_walk = type(container).walk

    def walk(my_type, stop_type=None, depth=None):
        if my_type in types and stop_type is None and depth is None:
            return _unit_walk(container, my_type)
        return cls_walk(container, my_type, stop_type, depth)

    container.walk = walk
    try:
        yield
    finally:
        del container.walk


def install():
    """Put the shortcuts in place (inert outside :func:`reading`).  Before
    any reader is made: a reader keeps its handlers as bound methods."""
    if _installed:
        return
    from psyclone.psyir.frontend.fparser2 import Fparser2Reader
    from psyclone.psyir.nodes import CodeBlock, Container, FileContainer, Routine
    from psyclone.psyir.symbols.symbol_table import SymbolTable

    validate = SymbolTable._validate_remove_routinesymbol
    update = Routine.update_parent_symbol_table
    handler = Fparser2Reader._subroutine_handler
    _installed.append((validate, update, handler))

    def _validate_remove_routinesymbol(self, symbol):
        kept = _state["kept"]
        if kept is not None and kept[0] is symbol:
            kept[1].append((self, symbol, symbol.interface))
            raise ValueError(f"'{symbol.name}' kept in its module while read")
        validate(self, symbol)

    def update_parent_symbol_table(self, new_parent):
        if not _state["depth"]:
            return update(self, new_parent)
        # (A module's routines only: in a file, an external routine may share
        # its name with a module's, which the check on attaching would find
        # where PSyclone, having removed the symbol, does not look.)
        if new_parent is None and isinstance(self._parent, Container) \
                and not isinstance(self._parent, FileContainer) \
                and _state.get("detached") is not None:
            outer = _state["kept"]
            _state["kept"] = (self._symbol, _state["detached"])
            try:
                return update(self, new_parent)
            finally:
                _state["kept"] = outer
        if self._parent is None and isinstance(new_parent, Container):
            with _units_only(new_parent, (Routine, CodeBlock)):
                return update(self, new_parent)
        return update(self, new_parent)

    def _subroutine_handler(self, node, parent):
        if not _state["depth"] or not isinstance(parent, Container):
            return handler(self, node, parent)
        outer = _state.get("detached")
        detached = _state["detached"] = []
        try:
            with _units_only(parent, (Routine,)):
                return handler(self, node, parent)
        except NotImplementedError:
            # Not attached again: the symbol is as PSyclone's check leaves it.
            for table, symbol, interface in detached:
                try:
                    validate(table, symbol)
                except ValueError:
                    continue        # referenced: unresolved, as it is
                symbol.interface = interface
            raise
        finally:
            _state["detached"] = outer

    _validate_remove_routinesymbol.__doc__ = validate.__doc__
    update_parent_symbol_table.__doc__ = update.__doc__
    _subroutine_handler.__doc__ = handler.__doc__
    SymbolTable._validate_remove_routinesymbol = _validate_remove_routinesymbol
    Routine.update_parent_symbol_table = update_parent_symbol_table
    Fparser2Reader._subroutine_handler = _subroutine_handler


install()
