"""BLOCK constructs (Fortran 2008) made plain statements of their routine.

PSyclone keeps a ``BLOCK … END BLOCK`` construct as an opaque code block.
Its locals live from ``BLOCK`` to ``END BLOCK``; the front end declares
them in the routine instead (renamed where the routine, its host or an
earlier block already has the name: ``s`` becomes ``s_blk``) and puts the
block's statements in its place:

.. code-block:: fortran

    do i = 1, n                      do i = 1, n
      block                            s_blk = sin(x(i))
        real(8) :: s          ->       y = y + s_blk**2
        s = sin(x(i))                end do
        y = y + s**2
      end block
    end do

The program is the same as long as nothing depends on the locals' being
new at each entry: a block local with an initial value is SAVE'd in both
forms, and the rest are undefined on entry.  What would change is refused
with the construct's line: an ALLOCATABLE local (deallocated at ``END
BLOCK``), an automatic array or a length whose bounds read a variable the
routine may change before the block, a USE or IMPORT inside the block.  An
``EXIT`` of the block's name (a jump to its end) is refused before, by the
control-flow restructuring (:mod:`adfort.controlflow`).
"""

from fparser.two import Fortran2003, Fortran2008
from fparser.two.utils import walk
from psyclone.psyir.nodes import Assignment, CodeBlock, Reference, Routine
from psyclone.psyir.symbols import DataSymbol, UnresolvedType

from adfort import naming
from adfort.errors import AdfortError, where, where_statement
from adfort.forward_only import drop_reason_comment


def lower_block_constructs(tree, processor, filename):
    """Replace every BLOCK construct of `tree` by its statements, its
    locals declared in the routine (inner blocks after outer ones).

    :param processor: the ``Fparser2Reader`` that built `tree`.
    :raises AdfortError: for a block whose lifting would change the
        program (see the module's docstring).
    """
    while True:
        blocks = [cb for cb in tree.walk(CodeBlock) if _is_block(cb)]
        if not blocks:
            return
        for block in blocks:
            _lower(block, processor, filename)


def _is_block(node):
    return node.structure == CodeBlock.Structure.STATEMENT and \
        len(node.parse_tree_nodes) == 1 and \
        isinstance(node.parse_tree_nodes[0], Fortran2008.Block_Construct)


def _lower(block, processor, filename):
    construct = block.parse_tree_nodes[0]
    routine = block.ancestor(Routine)
    if routine is None:
        raise AdfortError("a BLOCK construct outside a routine: adfort reads BLOCKs in "
                          "subroutines and functions only", where(block, filename))
    spec = [n for n in construct.content if isinstance(n, Fortran2003.Specification_Part)]
    body = [n for n in construct.content[1:]
            if not isinstance(n, (Fortran2003.Specification_Part, Fortran2008.End_Block_Stmt))]
    declarations = spec[0].content if spec else []
    table = routine.symbol_table
    written = {a.lhs.symbol.name.lower() for a in routine.walk(Assignment)}
    renames = {}
    for decl in declarations:
        if isinstance(decl, Fortran2003.Comment):
            continue
        if not isinstance(decl, Fortran2003.Type_Declaration_Stmt):
            kind = type(decl).__name__.replace("_Stmt", "").replace("_", " ").upper()
            raise AdfortError(
                f"a {kind} statement inside a BLOCK construct: adfort declares a block's "
                "locals in its routine and takes only type declarations there; move it to "
                "the routine's declarations", where_statement(block, decl, filename))
        _check_declaration(decl, table, written, block, filename)
        for entity in walk(decl, Fortran2003.Entity_Decl):
            name = str(entity.items[0]).lower()
            _drop_placeholder(name, table, routine, block)
            if table.lookup(name, otherwise=None) is not None or name in renames.values():
                renames[name] = naming.unique(table, naming.block_local(name),
                                              taken=renames.values())
    if renames:
        _rename(construct, renames)
    # (The routine's arguments are given again: PSyclone sets the argument
    # list from them.)
    arguments = [Fortran2003.Name(symbol.name) for symbol in table.argument_list]
    processor.process_declarations(routine, [d for d in declarations
                                             if not isinstance(d, Fortran2003.Comment)],
                                   arguments)
    parent, position = block.parent, block.position
    before = len(parent.children)
    processor.process_nodes(parent, body)
    made = [node.detach() for node in parent.children[before:]]
    drop_reason_comment(block)
    comment = block.preceding_comment
    block.detach()
    for offset, node in enumerate(made):
        parent.children.insert(position + offset, node)
    if made and comment:
        made[0].preceding_comment = "\n".join(
            c for c in (comment, made[0].preceding_comment) if c)


def _drop_placeholder(name, table, routine, block):
    """Remove the symbol PSyclone made for `name` only because the block
    (an opaque code block to it) names it: no other statement does."""
    symbol = table._symbols.get(table._normalize(name))
    if symbol is None or not symbol.is_unresolved or symbol.is_import:
        return
    if isinstance(symbol, DataSymbol) and not isinstance(symbol.datatype, UnresolvedType):
        return
    for node in routine.walk((Reference, CodeBlock)):
        if node is block:
            continue
        if isinstance(node, CodeBlock):
            if name in (n.lower() for n in node.get_symbol_names()):
                return
        elif node.symbol is symbol:
            return
    table._symbols.pop(table._normalize(name))


def _check_declaration(decl, table, written, block, filename):
    """Refuse what would change once declared in the routine: allocatable
    locals, and bounds or lengths reading variables the routine may set."""
    text = str(decl)
    if any(str(attr).upper() == "ALLOCATABLE"
           for attr in walk(decl, Fortran2003.Attr_Spec)) or \
            "ALLOCATABLE" in text.upper().split("::")[0]:
        raise AdfortError(
            "an ALLOCATABLE local of a BLOCK construct (deallocated at END BLOCK): adfort "
            "declares a block's locals in its routine; declare it in the routine and "
            "deallocate it at the block's end", where_statement(block, decl, filename))
    shapes = list(walk(decl, (Fortran2003.Explicit_Shape_Spec, Fortran2003.Length_Selector,
                              Fortran2003.Char_Selector, Fortran2003.Type_Param_Value)))
    for node in shapes:
        for name in walk(node, Fortran2003.Name):
            key = str(name).lower()
            symbol = table.lookup(key, otherwise=None)
            constant = isinstance(symbol, DataSymbol) and symbol.is_constant
            argument = isinstance(symbol, DataSymbol) and symbol.is_argument
            if constant or (argument and key not in written) or symbol is None:
                continue
            raise AdfortError(
                f"the BLOCK construct's declaration '{text}' takes a bound or length from "
                f"'{key}', which the routine may set before the block: adfort declares a "
                "block's locals in its routine, where that value is not known yet; declare "
                "the array in the routine with bounds from its arguments", where_statement(
                    block, decl, filename))


def _rename(construct, renames):
    """Rename the block's locals throughout it (not components after ``%``,
    nor keywords of actual arguments)."""
    for name in walk(construct, Fortran2003.Name):
        key = str(name).lower()
        if key not in renames:
            continue
        parent = name.parent
        if isinstance(parent, Fortran2003.Data_Ref) and parent.items[0] is not name:
            continue
        if isinstance(parent, (Fortran2003.Actual_Arg_Spec, Fortran2003.Component_Spec)) \
                and parent.items[0] is name:
            continue
        name.string = renames[key]
