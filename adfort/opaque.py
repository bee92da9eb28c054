"""Statements PSyclone keeps opaque (CodeBlocks) other than the I/O and
STOP of :mod:`adfort.forward_only`: what they may read and write.

A routine adfort differentiates may not hold such a statement (the fence
rejects it), but a routine it only runs may: a WHERE it could not lower, a
FORALL, a construct PSyclone does not read.  The analyses must still see
the values flowing through it, or a derivative carried by a module
variable or an argument such a statement sets would be lost without a
word.  The reads are every name in the statement; the writes are the
targets of its assignments, the loop variables it sets, the objects it
allocates, what it reads input into, and every name given to a call
(over-approximated, as a call may change any argument).
"""

from fparser.two import Fortran2003
from fparser.two.utils import walk
from psyclone.psyir.nodes import CodeBlock

from adfort.forward_only import is_character_expression, is_forward_only


def opaque_blocks(routine):
    """The CodeBlocks of `routine` other than kept I/O, STOP and character
    expressions."""
    return [block for block in routine.walk(CodeBlock)
            if not is_forward_only(block) and not is_character_expression(block)]


def _base_name(designator):
    """Lower-case name of the variable a designator (``a``, ``a(i)%b``)
    starts with."""
    names = walk(designator, Fortran2003.Name)
    if isinstance(designator, Fortran2003.Name):
        return str(designator).lower()
    return str(names[0]).lower() if names else None


def _all_names(node):
    return {str(n).lower() for n in walk(node, Fortran2003.Name)}


def block_reads(block):
    """Lower-case names a CodeBlock mentions (an over-approximation of
    what it reads)."""
    return {name.lower() for name in block.get_symbol_names()}


def block_writes(block):
    """Lower-case names of the variables a CodeBlock may change."""
    names = set()
    nodes = block.parse_tree_nodes
    for node in walk(nodes, (Fortran2003.Assignment_Stmt,
                             Fortran2003.Pointer_Assignment_Stmt)):
        name = _base_name(node.items[0])
        if name:
            names.add(name)
    for node in walk(nodes, Fortran2003.Loop_Control):
        if isinstance(node.items[1], tuple):   # (variable, [first, last, step])
            names.add(str(node.items[1][0]).lower())
    for node in walk(nodes, Fortran2003.Forall_Triplet_Spec):
        names.add(str(node.items[0]).lower())
    for node in walk(nodes, (Fortran2003.Call_Stmt, Fortran2003.Allocate_Stmt,
                             Fortran2003.Deallocate_Stmt, Fortran2003.Nullify_Stmt)):
        for item in node.items[1:]:
            if item is not None:
                names |= _all_names(item)
    for node in walk(nodes, Fortran2003.Read_Stmt):
        names |= _all_names(node)
    return names
