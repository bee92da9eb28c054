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

from psyclone.psyir.nodes import IntrinsicCall
from psyclone.psyir.symbols import DataSymbol

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
        table.rename_symbol(symbol, naming.unique(table, naming.unshadowed(symbol.name),
                                                  taken))


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
