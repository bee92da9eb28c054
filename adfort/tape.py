"""The value tape: a plain Fortran array per stored datatype.

The recording motion writes the value a statement is about to overwrite
into the next slot; the returning motion reads it back from the same slot.
For straight-line code the slots are numbered at transformation time, so
each tape is a fixed-size array passed from ``r_rev`` to ``r_rec`` and
``r_ret``.
"""

from psyclone.psyir.backend.fortran import FortranWriter
from psyclone.psyir.nodes import ArrayReference, Assignment, Literal
from psyclone.psyir.symbols import (
    ArrayType, AutomaticInterface, DataSymbol, ScalarType)

from adfort import naming
from adfort.exprs import INTEGER_TYPE


def type_tag(datatype):
    """A short readable tag for a scalar datatype (``real_wp``, ``integer``)."""
    tag = datatype.intrinsic.name.lower()
    precision = datatype.precision
    if isinstance(precision, ScalarType.Precision):
        if precision == ScalarType.Precision.DOUBLE:
            tag += "_dp"
    elif isinstance(precision, int):
        tag += f"_{precision}"
    else:
        tag += "_" + FortranWriter()(precision).strip().lower()
    return tag


class _Tape:
    def __init__(self, symbol, datatype):
        self.symbol = symbol
        self.datatype = datatype
        self.slots = 0


class ValueTape:
    """The tapes of one routine, one per datatype of the values taped.

    :param symbol_table: the working symbol table tape symbols are added to.
    :param taken: names the tape names must avoid.
    """

    def __init__(self, symbol_table, taken=()):
        self._table = symbol_table
        self._taken = set(taken)
        self._tapes = {}  # (intrinsic, precision text) -> _Tape

    def _tape_for(self, datatype):
        key = (datatype.intrinsic, str(datatype.precision))
        if key not in self._tapes:
            tag = type_tag(datatype) if self._tapes else None
            name = naming.unique(self._table, naming.value_tape(tag), self._taken)
            # The extent is fixed by finalise() once every slot is known.
            symbol = DataSymbol(
                name, ArrayType(datatype.copy(), [Literal("1", INTEGER_TYPE)]),
                interface=AutomaticInterface())
            self._table.add(symbol)
            self._tapes[key] = _Tape(symbol, datatype)
        return self._tapes[key]

    def record(self, reference):
        """Return the (record, restore) Assignments for the prevalue of `reference`.

        :param reference: a Reference to the variable about to be
            overwritten; it is copied.
        """
        tape = self._tape_for(reference.symbol.datatype)
        tape.slots += 1
        element = ArrayReference.create(
            tape.symbol, [Literal(str(tape.slots), INTEGER_TYPE)])
        record = Assignment.create(element, reference.copy())
        restore = Assignment.create(reference.copy(), element.copy())
        return record, restore

    def finalise(self):
        """Give each tape its final extent and return the tape symbols."""
        symbols = []
        for tape in self._tapes.values():
            tape.symbol.datatype = ArrayType(
                tape.datatype.copy(), [Literal(str(tape.slots), INTEGER_TYPE)])
            symbols.append(tape.symbol)
        return symbols

    def sizes(self):
        """The number of slots of each tape, by tape name."""
        return {t.symbol.name: t.slots for t in self._tapes.values()}
