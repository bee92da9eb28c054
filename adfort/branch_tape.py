"""The tape of IF decisions, one bit each.

An IF whose condition the returning motion cannot evaluate again (a
convective adjustment testing the values its branch changes) records which
branch ran.  On the integer control tape that is four bytes per decision;
here it is one bit: the recording shifts it into a 64-bit word (ISHFT, a
logical shift on all 64 bits), which goes onto the tape once it holds
``naming.BRANCH_BITS_PER_WORD`` bits, and the
returning motion takes the bits back in the reverse order.  The word being
filled and its bit count are module variables, so the bits form one stack
across routines like the other tapes.  Only the dynamic layout uses it (a
straight-line routine's few decisions keep their static control slots).

The push and pop are two routines of the tape module (``<tape>_push(bit)``,
``<tape>_pop(bit)``), short enough for gfortran to inline; the push makes
room when a word is full, so no reserve is counted for the bits.
"""

from psyclone.psyir.nodes import Call, Literal, Reference
from psyclone.psyir.symbols import (
    AutomaticInterface, DataSymbol, RoutineSymbol, ScalarType)

from adfort import naming
from adfort.exprs import INTEGER_TYPE
from adfort.tape import Tape

WORD_TYPE = ScalarType(ScalarType.Intrinsic.INTEGER, 8)


class BranchTape(Tape):
    """A dynamic tape of 64-bit words holding IF decisions bit by bit.

    :param str name: the tape array's name (already unique).
    """

    def __init__(self, name, table, taken, frames):
        super().__init__(name, WORD_TYPE, True, table, taken, frames, copy_routines=False)
        word, count, push, pop = naming.branch_tape_names(name)
        self.word = DataSymbol(naming.unique(table, word, taken), WORD_TYPE.copy(),
                               interface=AutomaticInterface())
        self.count = DataSymbol(naming.unique(table, count, taken), INTEGER_TYPE.copy(),
                                interface=AutomaticInterface())
        self.push_name = naming.unique(table, push, taken)
        self.pop_name = naming.unique(table, pop, taken)

    @property
    def names(self):
        """Lower-case names of its module variables and routines."""
        return {n.lower() for n in (self.symbol.name, self.top.name, self.word.name,
                                    self.count.name, self.reserve_name, self.push_name,
                                    self.pop_name)}

    def push_bit(self, bit):
        """The recording's statements noting `bit` (0 or 1)."""
        return [Call.create(RoutineSymbol(self.push_name),
                            [Literal(str(bit), INTEGER_TYPE.copy())])]

    def pop_bit(self, target):
        """The returning motion's statements taking the last bit into the
        integer DataSymbol `target`."""
        return [Call.create(RoutineSymbol(self.pop_name), [Reference(target)])]

    def routines_source(self):
        """Fortran source of the push and pop routines (as the writer lays
        it out: it goes into the output verbatim)."""
        tape, top, word, count = (self.symbol.name, self.top.name, self.word.name,
                                  self.count.name)
        full = naming.BRANCH_BITS_PER_WORD
        return f"""\
subroutine {self.push_name}(bit)
  integer, intent(in) :: bit

  {word} = IOR(ISHFT({word}, 1), INT(bit, kind=8))
  {count} = {count} + 1
  if ({count} == {full}) then
    call {self.reserve_name}(1)
    {tape}({top} + 1) = {word}
    {top} = {top} + 1
    {word} = 0
    {count} = 0
  end if

end subroutine {self.push_name}
subroutine {self.pop_name}(bit)
  integer, intent(out) :: bit

  if ({count} == 0) then
    {word} = {tape}({top})
    {top} = {top} - 1
    {count} = {full}
  end if
  bit = INT(IAND({word}, 1_8))
  {word} = ISHFT({word}, -1)
  {count} = {count} - 1

end subroutine {self.pop_name}
"""
