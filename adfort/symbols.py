"""Declaring the variables generated code needs."""

from psyclone.psyir.symbols import AutomaticInterface, DataSymbol

from adfort import naming


def new_local(table, base, datatype, taken=()):
    """Declare a local variable named after `base` (made unique) in `table`.

    :param datatype: its PSyIR datatype (copied).
    :returns: the new DataSymbol.
    """
    symbol = DataSymbol(naming.unique(table, base, taken), datatype.copy(),
                        interface=AutomaticInterface())
    table.add(symbol)
    return symbol
