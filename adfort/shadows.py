"""User variables named as intrinsics (``integer :: size``, ``real :: scale``).

Inside the scope of such a variable the name is the variable, not the
intrinsic.  The user's code never calls the intrinsic there, but the
generated motions may (``SIZE`` for the tape, ``MERGE``, ``SIGN``,
``COS``… in partials).  The working copy's locals of such names are
renamed (``size_local``) before anything is generated; the advancing
motion is the user's routine and keeps them.  A dummy argument or a
module variable keeps its name (it belongs to an interface), so a
generated routine that would call an intrinsic it hides is an error; so
is one calling an intrinsic that a user procedure visible in the
generated module hides (:mod:`adfort.procedure_names`).
"""

from psyclone.psyir.nodes import CodeBlock, IntrinsicCall
from psyclone.psyir.symbols import DataSymbol, SymbolError

from adfort import naming
from adfort.errors import AdfortError

_INTRINSICS = frozenset(i.name.lower() for i in IntrinsicCall.Intrinsic)
_STATEMENTS = {"allocate", "deallocate", "nullify"}


def rename_shadowing_locals(routine, taken=()):
    """Rename, in `routine` (a working copy), the local data symbols whose
    names are those of intrinsics.

    :param taken: further names to avoid (the output scope's).
    """
    table = routine.symbol_table
    for symbol in list(table.datasymbols):
        if symbol.name.lower() not in _INTRINSICS or not symbol.is_automatic:
            continue
        new = naming.unique(table, naming.unshadowed(symbol.name), taken)
        # PSyclone renames no symbol a CodeBlock (PRINT *, sum) names: the
        # statements it keeps as text are renamed here first.
        _rename_in_code_blocks(routine, symbol.name, new)
        try:
            table.rename_symbol(symbol, new)
        except SymbolError:
            # Left as it is: a generated routine calling the intrinsic it
            # hides is then an error (check_no_hidden_intrinsics).
            _rename_in_code_blocks(routine, new, symbol.name)


def _rename_in_code_blocks(routine, old, new):
    """Rename the variable `old` to `new` in the parse trees of the
    CodeBlocks of `routine`: every name token but a component's (``a%old``)
    and an argument keyword's (``f(old=1)``)."""
    from fparser.two import Fortran2003
    from fparser.two.utils import walk
    for block in routine.walk(CodeBlock):
        for ast in block.parse_tree_nodes:
            for name in walk(ast, Fortran2003.Name):
                if name.string.lower() != old.lower():
                    continue
                parent = getattr(name, "parent", None)
                if isinstance(parent, Fortran2003.Data_Ref) and parent.items[0] is not name:
                    continue
                if isinstance(parent, (Fortran2003.Actual_Arg_Spec,
                                       Fortran2003.Component_Spec)) and \
                        parent.items[0] is name:
                    continue
                name.string = new


def check_no_hidden_intrinsics(routine, location, hides=None):
    """Raise if generated `routine` calls an intrinsic that a variable in
    its scope (an argument or a module variable) or a user procedure
    visible there (one of a module the generated module uses) hides.

    :param location: the user routine's ``file:line``, for the message.
    :param hides: ``hides(call)``: whether a user procedure would be called
        instead of the IntrinsicCall `call`
        (:meth:`adfort.program.Program.hides_intrinsic`).
    """
    called = {}
    for call in routine.walk(IntrinsicCall):
        called.setdefault(call.routine.name.lower(), []).append(call)
    for name in sorted(called):
        symbol = routine.symbol_table.lookup(name, otherwise=None)
        if not isinstance(symbol, DataSymbol) and name not in _STATEMENTS and \
                hides is not None and any(hides(call) for call in called[name]):
            raise AdfortError(
                f"the procedure '{name}' has the name of the intrinsic {name.upper()}, "
                f"which the generated {routine.name} calls where '{name}' is visible: "
                "rename the procedure", location)
        if isinstance(symbol, DataSymbol):
            what = "dummy argument" if symbol.is_argument else "variable"
            raise AdfortError(
                f"the {what} '{symbol.name}' has the name of the intrinsic "
                f"{name.upper()}, which the generated {routine.name} calls: rename the "
                "variable (the intrinsic cannot be reached where it is visible)", location)
