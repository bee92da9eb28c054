"""``Node.walk`` remembered per subtree until the subtree changes.

adfort's analyses and transformations walk the same routines and
statements again and again (references, literals, loops, assignments…)
between changes to them: a generated routine was walked eight times while
it was built.  A node keeps the nodes of its subtree, in walk order, and
each list of them a walk for a type made; every change below it drops
them.

PSyIR reports every change of a tree's shape to the nodes above the change:
the methods of ``ChildrenList`` (append, insert, extend, item assignment and
deletion, remove, pop, reverse, clear) call ``update_signal`` of the node
the list belongs to, which passes it to its parent, and so on to the root.
The signal is not passed on by a node while it is being built or copied
(``_disable_tree_update``), whose walks were not remembered yet.  Nothing
else a walk returns depends on (a reference's symbol, a literal's type are
attributes, not children).  A copy does not keep its original's lists.
"""

from contextlib import contextmanager

from psyclone.psyir.nodes import Node

KEY = "_adfort_walks"   # in a node's __dict__: {my_type or None: [nodes]}
_base_update_node = Node._update_node
_original_update_signal = Node.update_signal
_matches = {}            # my_type: {node class: whether its nodes are my_type}
# > 0 while a new tree is built from source (:func:`building`).
_building = [0]


def walk(node, my_type):
    """The nodes below `node` (and it) that are `my_type`, in walk order (a
    new list, which the caller may change)."""
    if not node._children:    # (a leaf: nothing worth remembering)
        return [node] if isinstance(node, my_type) else []
    if _building[0]:
        return _select(_subtree(node), my_type)
    lists = node.__dict__.get(KEY)
    if lists is None:
        lists = node.__dict__[KEY] = {}
    found = lists.get(my_type)
    if found is None:
        nodes = lists.get(None)
        if nodes is None:
            nodes = lists[None] = _subtree(node)
        found = lists[my_type] = _select(nodes, my_type)
    return found[:]


def _subtree(node):
    """The nodes of `node`'s subtree, parents before children (a node below
    that remembers its own subtree gives it whole: it is still its walk)."""
    nodes = [node]
    stack = list(reversed(node._children))
    pop, push, append, extend = stack.pop, stack.extend, nodes.append, nodes.extend
    while stack:
        node = pop()
        lists = node.__dict__.get(KEY)
        if lists is not None:
            known = lists.get(None)
            if known is not None:
                extend(known)
                continue
        append(node)
        children = node._children
        if children:
            push(reversed(children))
    return nodes


def _select(nodes, my_type):
    """The nodes of `nodes` that are instances of `my_type`."""
    # (Deciding isinstance once per class, not per node.)
    matches = _matches.get(my_type)
    if matches is None:
        matches = _matches[my_type] = {}
    try:
        return [node for node in nodes if matches[node.__class__]]
    except KeyError:
        for node in nodes:
            if node.__class__ not in matches:
                matches[node.__class__] = isinstance(node, my_type)
        return [node for node in nodes if matches[node.__class__]]


def _update_signal(self):
    """``Node.update_signal``: each node from `self` up, until one that is
    being built, copied or updated, forgets its walks and updates itself."""
    if _building[0]:
        return      # a tree being built: no walk of it remembered yet
    node = self
    while node is not None:
        if node._disable_tree_update:
            return
        node.__dict__.pop(KEY, None)
        if node.__class__._update_node is _base_update_node:
            node._cached_abs_position = None
        else:
            node._disable_tree_update = True
            node._update_node()
            node._disable_tree_update = False
        node = node._parent


@contextmanager
def building():
    """While a new tree is built from source (PSyclone's front end adding
    node after node, each change signalled up to the root: quadratic in the
    depth of a long expression), walks are not remembered and changes are
    not signalled.  Only the new tree may change in the block: nodes of
    other trees keep what they remember."""
    _building[0] += 1
    try:
        yield
    finally:
        _building[0] -= 1


def install():
    """Replace ``Node.update_signal`` (if no class has its own): then walks
    may be remembered.  Whether they may."""
    from psyclone.psyir.nodes.node import ChildrenList
    if Node.update_signal is not _original_update_signal or any(
            "update_signal" in vars(cls) for cls in all_subclasses(Node)) or any(
            name in vars(cls) for cls in all_subclasses(ChildrenList)
            for name in ("append", "extend", "insert", "__setitem__")):
        return False
    Node.update_signal = _update_signal
    return True


def all_subclasses(cls):
    """All subclasses of `cls` defined so far."""
    found, work = [], list(cls.__subclasses__())
    while work:
        sub = work.pop()
        found.append(sub)
        work.extend(sub.__subclasses__())
    return found
