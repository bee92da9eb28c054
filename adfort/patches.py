"""Faster equivalents of PSyclone methods adfort calls hundreds of
thousands of times.

Each replacement gives the same answer as the method it replaces, only
without work PSyclone repeats on every call:

- ``SymbolTable.lookup`` merged every enclosing table into a new dict
  (``get_symbols``) to read one name from it: a lookup in a routine of a
  module of 200 routines copied 200 entries.  It now looks the name up
  table by table, innermost first, which is the symbol that dict held.
- ``Node.walk`` recursed once per node, concatenating lists; it now walks
  with a stack, in the same order (depth first, parents before children);
  a walk for routines or modules alone does not enter statements and
  expressions (which never hold one).  Other walks are remembered until
  the subtree changes (:mod:`adfort.walks`).
- ``Node.copy`` made its shallow copy through ``copy.copy`` (the pickle
  protocol: ``__reduce_ex__``, ``copyreg``); it now makes the same object
  directly (nodes define no ``__copy__``, ``__slots__`` or state hooks).
- ``Node._refine_copy`` put each copied child in through the checked
  ``ChildrenList.extend`` (is it a valid child at this position, is it an
  orphan): a copy's children are fresh copies of children the original
  held at the same positions, so the checks cannot fail; it now links
  them in directly (same list, parents and symbol-table updates).
- A copy of a scope (routine, loop body…) ends by pointing every
  reference below it at the symbols of the copied tables
  (``replace_symbols_using``), and so does every scope nested in it, each
  while it is still detached: a statement three scopes deep was looked up
  three times.  Only the outermost scope of a copy does it now; it looks
  every name up from the innermost table out, and an inner scope's own
  pass found no more (its tables then ended at itself) and decided
  nothing the outer pass does not decide again.  The outermost scope
  of a copy need not do it either when it is detached and its table
  empty (a loop's body, copied with its loop): it can find no name.
- ``Node.debug_string`` made a new writer each time; one serves all.
- ``ScalarType.copy`` and ``ArrayType.copy`` built their copies through the
  constructors, checking again what the original passed, and an array's
  bounds were copied twice; they now copy the attributes directly.
- ``Call._reconcile`` (run by every ``argument_names`` and ``copy``)
  searched the recorded names once per argument: quadratic in the
  arguments, and the writer asks for the names once per argument (a call
  of 300 arguments cost 13 million comparisons).  It now indexes them once.

:func:`apply` installs them once (``import adfort`` does).
"""

from enum import Enum

from psyclone.psyir.nodes import (
    Assignment, Call, Container, DataNode, Literal, Loop, Node, Reference, Routine, ScopingNode,
    Statement)
from psyclone.psyir.nodes.node import ChildrenList
from psyclone.psyir.symbols import ArrayType, ScalarType, symbol_table as _symbol_table_module
from psyclone.psyir.symbols.symbol_table import SymbolTable

from adfort import walks

_applied = False
_remembering = False    # whether walks are remembered (adfort.walks)
_DEFAULT = _symbol_table_module.DEFAULT_SENTINEL
_original_lookup = SymbolTable.lookup
_original_walk = Node.walk
_original_copy = Node.copy
_original_refine = Node._refine_copy
_base_update_parent = Node.update_parent_symbol_table
_original_extend = ChildrenList.extend
_original_scope_refine = ScopingNode._refine_copy
_original_scope_replace = ScopingNode.replace_symbols_using
_new_list = list.__new__
_new_object = object.__new__
_set_frozen = object.__setattr__
_original_debug_string = Node.debug_string
_debug_writer = []  # the DebugWriter every debug_string uses, once made
_original_scalar_copy = ScalarType.copy
_original_array_copy = ArrayType.copy
_original_reconcile = Call._reconcile
_KEY = walks.KEY
_copying = []       # the scopes whose copies are being refined, outermost first


def _lookup(self, name, visibility=None, scope_limit=None, otherwise=_DEFAULT):
    """``SymbolTable.lookup`` (same arguments, answers and errors),
    searching the enclosing tables one by one."""
    if visibility or not isinstance(name, str):
        return _original_lookup(self, name, visibility, scope_limit, otherwise)
    key = self._normalize(name)
    current = self
    while current:
        symbol = current.symbols_dict.get(key)
        if symbol is not None:
            return symbol
        current = current.parent_symbol_table(scope_limit)
    if otherwise is _DEFAULT:
        raise KeyError(f"Could not find '{name}' in the Symbol Table.")
    return otherwise


_UNITS = (Container, Routine)
_NO_UNITS_BELOW = (Statement, DataNode)
_units_only = {}    # my_type: whether it names only routines and modules


def _walk(self, my_type, stop_type=None, depth=None):
    """``Node.walk`` (same arguments and list), without recursion."""
    if depth is not None:
        return _original_walk(self, my_type, stop_type, depth)
    if stop_type is None:
        units = _units_only.get(my_type)
        if units is None:
            types = my_type if isinstance(my_type, tuple) else (my_type,)
            units = _units_only[my_type] = all(
                isinstance(t, type) and issubclass(t, _UNITS) and
                not issubclass(t, _NO_UNITS_BELOW) for t in types)
        if units:
            stop_type = _NO_UNITS_BELOW
        elif _remembering:
            return walks.walk(self, my_type)
    found = []
    stack = [self]
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        if isinstance(node, my_type):
            found.append(node)
        if stop_type and isinstance(node, stop_type):
            continue
        children = node._children
        if children:
            push(reversed(children))
    return found


def _copy(self):
    """``Node.copy``: a shallow copy refined by ``_refine_copy`` (done here
    for the classes that keep :func:`_refine_copy`, most of a tree)."""
    cls = self.__class__
    new = cls.__new__(cls)
    state = new.__dict__
    state.update(self.__dict__)
    state.pop(_KEY, None)
    info = _class_info.get(cls) or _info(cls)
    if not info[0]:
        new._refine_copy(self)
        return new
    _fill(new, self)
    return new


_class_info = {}    # node class: (plain refinement, plain copy, plain adoption)


def _info(cls):
    """What a node of class `cls` does when it is copied and adopted:
    whether its ``_refine_copy`` is :func:`_refine_copy`, whether its
    ``copy`` is :func:`_copy` (and that refinement), and whether being
    adopted does nothing more than setting its parent (no symbol table
    to update or localise)."""
    plain_refine = cls._refine_copy is _refine_copy
    info = _class_info[cls] = (
        plain_refine, plain_refine and cls.copy is _copy,
        cls.update_parent_symbol_table is _base_update_parent
        and not hasattr(cls, "symbol_table"))
    return info


def _fill(new, other):
    """What :func:`_refine_copy` does to the shallow copy `new` of `other`."""
    new._disable_tree_update = True
    new._parent = None
    new._has_constructor_parent = False
    new._annotations = other._annotations[:]
    new._children = children = _children_list(new)
    if other._children:
        copies = []
        append = copies.append
        plain_adoption = True
        for child in other._children:
            cls = child.__class__
            info = _class_info.get(cls) or _info(cls)
            if info[1]:
                # (child.copy() is _copy(child): the same, inline)
                copy = cls.__new__(cls)
                state = copy.__dict__
                state.update(child.__dict__)
                state.pop(_KEY, None)
                _fill(copy, child)
            else:
                copy = child.copy()
            append(copy)
            if not info[2]:
                plain_adoption = False
        if plain_adoption:
            list.extend(children, copies)
            for child in copies:
                child._parent = new
                child._has_constructor_parent = False
        else:
            _adopt(new, children, copies)
    new._disable_tree_update = False
    new._cached_abs_position = None


def _children_list(node):
    """An empty ``ChildrenList`` of `node` (what its ``__init__`` makes)."""
    children = _new_list(ChildrenList)
    children._node_reference = node
    children._validation_function = node._validate_child
    children._validation_text = node._children_valid_format
    return children


def _adopt(node, children, copies):
    """Put `copies` (fresh copies of the children of the node `node` is a
    copy of) in `node`'s empty list `children`, as ``extend`` would."""
    list.extend(children, copies)
    for child in copies:
        if child.__class__.update_parent_symbol_table is not _base_update_parent:
            child.update_parent_symbol_table(node)
        child._parent = node
        child._has_constructor_parent = False
    for child in copies:
        if hasattr(child, "symbol_table"):
            # (as the original: the children's tables see the new scope)
            child.symbol_table.localise_all_symbol_dependencies()


def _refine_copy(self, other):
    """``Node._refine_copy``: the same copies of the children, linked in
    without ``ChildrenList``'s checks (see the module's notes)."""
    _fill(self, other)


def _scope_refine_copy(self, other):
    """``ScopingNode._refine_copy``, remembering which scope is refined."""
    _copying.append(self)
    try:
        _original_scope_refine(self, other)
    finally:
        _copying.pop()


def _scope_replace_symbols_using(self, table_or_symbol):
    """``ScopingNode.replace_symbols_using``, except the pass a scope nested
    in a copy makes over itself at the end of its own refinement, and the
    pass of a detached copy whose table is empty (the body of a copied
    loop or branch): every name is looked up in that table alone, and
    none is found."""
    if _copying and _copying[-1] is self and table_or_symbol is self._symbol_table and (
            len(_copying) > 1 or self._parent is None and not table_or_symbol._symbols):
        return
    if _remembering and self._parent is None and table_or_symbol is self._symbol_table \
            and _replace_in_detached_scope(self, table_or_symbol):
        return
    _original_scope_replace(self, table_or_symbol)


_REFERENCE, _LITERAL, _LOOP, _NOTHING = range(4)
_kinds = {}     # node class: what its replace_symbols_using does, or None


def _kind(cls):
    """What ``replace_symbols_using`` of a `cls` node does to the node
    itself (its children aside), when PSyclone's own method is it."""
    method = cls.replace_symbols_using
    for base, kind in ((Reference, _REFERENCE), (Literal, _LITERAL), (Loop, _LOOP),
                       (ScopingNode, _NOTHING), (Node, _NOTHING)):
        if issubclass(cls, base):
            return kind if method is base.replace_symbols_using else None
    return None


def _replace_in_detached_scope(scope, table):
    """``replace_symbols_using(table)`` of a detached `scope` whose table is
    `table` and whose nested scopes declare nothing (a routine copied with
    a new body, a copied routine), or False if it is not such a case.

    Each name is then looked up in `table` alone (the nested tables are
    empty, nothing encloses `table`): one pass over the nodes in place of
    PSyclone's recursion through every node's method.
    """
    nodes = walks.walk(scope, Node)
    kinds = []
    for node in nodes:
        cls = node.__class__
        kind = _kinds.get(cls, -1)
        if kind == -1:
            kind = _kinds[cls] = _kind(cls)
        if kind is None or isinstance(node, ScopingNode) and node is not scope and \
                node._symbol_table._symbols:
            return False
        kinds.append(kind)
    symbols = table._symbols
    for node, kind in zip(nodes, kinds):
        if kind == _REFERENCE:
            found = symbols.get(node._symbol.name.lower())
            if found is not None:
                node._symbol = found
        elif kind == _LITERAL:
            datatype = node._datatype
            precision = getattr(datatype, "_precision", None)
            if datatype.__class__ is ScalarType and precision.__class__ is Reference and \
                    not isinstance(datatype._length, DataNode):
                # (5.0_wp: what ScalarType's method does, shortly)
                found = symbols.get(precision._symbol.name.lower())
                if found is not None:
                    precision._symbol = found
            else:
                datatype.replace_symbols_using(table)
        elif kind == _LOOP and node._variable:
            found = symbols.get(node._variable.name.lower())
            if found is not None:
                node.variable = found
    return True


def _scalar_copy(self):
    """``ScalarType.copy`` of a type without a length (not a string): the
    same attributes, the kind expression copied, without the checks a new
    type's arguments go through (they passed them already)."""
    if self.__class__ is not ScalarType or self._length is not None:
        return _original_scalar_copy(self)
    precision = self._precision
    new = _new_object(ScalarType)
    new._intrinsic = self._intrinsic
    # (a kind number or default stays: PSyclone's copy of it is itself)
    new._precision = precision if isinstance(precision, (int, Enum)) else precision.copy()
    new._length = None
    return new


def _array_copy(self):
    """``ArrayType.copy``: each bound copied once (PSyclone copied it, and
    the new bounds copied it again to hang it under a dangling assignment,
    as they still do), without checking again a shape that was checked."""
    if self.__class__ is not ArrayType:
        return _original_array_copy(self)
    shape = []
    for dim in self._shape:
        if isinstance(dim, ArrayType.ArrayBounds):
            bounds = _new_object(ArrayType.ArrayBounds)
            _set_frozen(bounds, "lower", _dangling(dim.lower))
            _set_frozen(bounds, "upper", _dangling(dim.upper))
            dim = bounds
        shape.append(dim)
    new = _new_object(ArrayType)
    new._shape = shape
    element = self._elemental_type
    new._elemental_type = element.copy() if isinstance(element, ScalarType) else element
    return new


def _dangling(bound):
    """A copy of the array bound `bound` under an assignment of its own
    (what ``ArrayBounds`` keeps)."""
    if not isinstance(bound, DataNode):
        return bound    # (an extent given by an attribute)
    parent = Assignment()
    parent.addchild(bound.copy())
    return parent.children[0]


def _debug_string(self):
    """``Node.debug_string`` through one DebugWriter (making one set up
    its operator tables, the most of a short statement's cost)."""
    if not _debug_writer:
        from psyclone.psyir.backend.debug_writer import DebugWriter
        _debug_writer.append(DebugWriter())
    writer = _debug_writer[0]
    writer._depth = 0   # (as a new one: a failed call may have left it)
    return writer(self)


def _reconcile(self):
    """``Call._reconcile``: each argument's recorded (id, name), the first
    recorded for its id, else (id, None); through a dict, not a search."""
    recorded = {}
    for entry in self._argument_names:
        recorded.setdefault(entry[0], entry)
    self._argument_names = [recorded.get(id(child)) or (id(child), None)
                            for child in self.arguments]


def _plain_class(cls):
    """Whether ``copy.copy`` of an instance of `cls` is a new instance with
    the same ``__dict__`` (what :func:`_copy` makes)."""
    return all(getattr(cls, hook, None) is getattr(object, hook, None)
               for hook in ("__copy__", "__reduce_ex__", "__reduce__", "__setstate__",
                            "__getstate__")) and "__slots__" not in vars(cls)


def apply():
    """Install the replacements (once)."""
    global _applied, _remembering
    if _applied:
        return
    _applied = True
    SymbolTable.lookup = _lookup
    if Node.walk is _original_walk and not any(
            "walk" in vars(cls) for cls in _subclasses(Node)):
        Node.walk = _walk
    if Node.copy is _original_copy and all(
            _plain_class(cls) for cls in [Node] + _subclasses(Node)):
        Node.copy = _copy
        _remembering = walks.install()
    if Node._refine_copy is _original_refine and ChildrenList.extend is _original_extend:
        Node._refine_copy = _refine_copy
    if Node.debug_string is _original_debug_string and not any(
            "debug_string" in vars(cls) for cls in _subclasses(Node)):
        Node.debug_string = _debug_string
    if ScalarType.copy is _original_scalar_copy and ArrayType.copy is _original_array_copy \
            and vars(ArrayType.ArrayBounds).get("__post_init__") is not None:
        ScalarType.copy = _scalar_copy
        ArrayType.copy = _array_copy
    if Call._reconcile is _original_reconcile and not any(
            "_reconcile" in vars(cls) for cls in _subclasses(Call)):
        Call._reconcile = _reconcile
    if not any("_refine_copy" in vars(cls) or "replace_symbols_using" in vars(cls)
               for cls in _subclasses(ScopingNode) if cls.__module__.startswith("adfort")):
        ScopingNode._refine_copy = _scope_refine_copy
        ScopingNode.replace_symbols_using = _scope_replace_symbols_using


def _subclasses(cls):
    """All subclasses of `cls` defined so far."""
    return walks.all_subclasses(cls)
