"""Tapes: plain Fortran arrays the recording motion pushes values onto and
the returning motion pops them from, last in first out.

There is one tape per datatype of the values saved (``value_tape`` for the
first, ``value_tape_<type>`` for others) and an integer ``control_tape``
for the branches taken and the trip counts of loops.

A tape has one of two layouts, chosen per routine:

- *static*, for straight-line code: every push has a slot numbered at
  transformation time, and the tape is a fixed-size array argument of
  ``r_rec`` and ``r_ret``, declared in ``r_rev``;
- *dynamic*, when loops make the number of pushes a run-time quantity: the
  tape is an allocatable module array with a top-of-stack counter.  The
  recording motion reserves room before each loop (exactly, from the trip
  count, when the room a loop needs is known at its entry; otherwise at
  each iteration), and a reserve grows the array geometrically, so the tape
  can hold any trip count and never overflows.
"""

import contextlib
import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, IfBlock, IntrinsicCall,
    Literal, Loop, Range, Reference)
from psyclone.psyir.symbols import (
    ArrayType, AutomaticInterface, DataSymbol, RoutineSymbol, ScalarType)

from adfort import naming
from adfort.derived import (
    STRUCTURE_REFERENCES, is_derived_value, leaf_references, reference_rank, value_type)
from adfort.exprs import INTEGER_TYPE, intrinsic_call
from adfort.writer import Writer

BinOp = BinaryOperation.Operator


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
        tag += "_" + Writer()(precision).strip().lower()
    return tag


def complex_kind(reference, table):
    """The kind of the complex value `reference` names, as a real
    precision (a number, a Reference to a named constant, or
    ``Precision.UNDEFINED`` for the default kind); None when the value is
    not complex (or a component's)."""
    from adfort.activity import is_complex
    symbol = getattr(reference, "symbol", None)
    if type(reference) in STRUCTURE_REFERENCES or not is_complex(symbol):
        return None
    text = " ".join(symbol.datatype.declaration.upper().split())
    match = re.match(r"(?:DOUBLE\s*COMPLEX)|COMPLEX\s*(?:\*\s*(\d+)|\(\s*(?:KIND\s*=\s*)?"
                     r"(\w+)\s*\))?", text)
    if text.startswith("DOUBLE"):
        return 8
    if match.group(1):
        return int(match.group(1)) // 2     # COMPLEX*16: two reals of 8 bytes
    kind = match.group(2)
    if kind is None:
        return ScalarType.Precision.UNDEFINED
    if kind.isdigit():
        return int(kind)
    found = table.lookup(kind.lower(), otherwise=None) if table is not None else None
    return Reference(found if found is not None else DataSymbol(kind.lower(), INTEGER_TYPE))


def complex_rank(symbol):
    """The rank of a complex variable, from its declaration (PSyIR keeps
    it as text: ``COMPLEX(KIND = dp) :: tw(n, nk)``)."""
    text = symbol.datatype.declaration
    head, _, entity = text.partition("::")
    match = re.search(r"\bDIMENSION\s*\(", head, re.IGNORECASE)
    if match is None:
        match = re.match(r"\s*\w+\s*\(", entity)
        text = entity
    else:
        text = head
    if match is None:
        return 0
    depth, rank = 1, 1
    for char in text[match.end():]:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                break
        elif char == "," and depth == 1:
            rank += 1
    return rank


def _int(value):
    return Literal(str(value), INTEGER_TYPE)


def _add(a, b):
    if isinstance(b, int):
        if b == 0:
            return a
        b = _int(b)
    return BinaryOperation.create(BinOp.ADD, a, b)


def _sub(a, b):
    if isinstance(b, int):
        b = _int(b)
    return BinaryOperation.create(BinOp.SUB, a, b)


_SHAPE_INQUIRIES = ("SIZE", "SHAPE", "LBOUND", "UBOUND")


def written_names(statements, call_writes=None):
    """Lower-case names of the variables `statements` may change: assigned,
    loop indices, and actual arguments of calls (a callee may write them).

    :param call_writes: {id(call statement): names the call may change},
        from the callees' summaries, for the calls it has.
    """
    names = set()
    call_writes = call_writes or {}
    for stmt in statements:
        for assign in stmt.walk(Assignment):
            names.add(assign.lhs.symbol.name.lower())
        for loop in stmt.walk(Loop):
            names.add(loop.variable.name.lower())
        for call in stmt.walk(Call):
            if isinstance(call, IntrinsicCall) and call.intrinsic.name not in (
                    "ALLOCATE", "DEALLOCATE"):
                continue
            known = call_writes.get(id(call))
            if known is None and isinstance(call.parent, Assignment):
                known = call_writes.get(id(call.parent))
            if known is not None:
                names |= set(known)
                continue
            for arg in call.arguments:
                if isinstance(arg, Reference):
                    names.add(arg.symbol.name.lower())
    return names


def invariant(expr, written):
    """Whether `expr` keeps its value while the variables named in
    `written` change.

    The shape of a non-allocatable array does not change when its values do
    (a pointer's, deferred too, changes when it is associated again).
    """
    for ref in expr.walk(Reference):
        parent = ref.parent
        if (isinstance(parent, IntrinsicCall) and parent.intrinsic.name in _SHAPE_INQUIRIES
                and not getattr(ref.symbol.datatype, "is_allocatable", False)
                and not _deferred_shape(ref.symbol)):
            continue
        if isinstance(parent, IntrinsicCall) and ref is parent.routine:
            continue
        if ref.symbol.name.lower() in written:
            return False
    return True


def _deferred_shape(symbol):
    """Whether `symbol` is an array of deferred shape that is not a dummy
    (``p(:)``: a pointer in the working copy, whose declaration lost the
    attribute; a dummy's assumed shape is fixed for the call)."""
    shape = getattr(getattr(symbol, "datatype", None), "shape", None) or ()
    return not getattr(symbol, "is_argument", False) and any(
        extent in (ArrayType.Extent.DEFERRED, ArrayType.Extent.ATTRIBUTE) for extent in shape)


def rank_of_reference(ref):
    """Rank of the value `ref` denotes (0 for scalars and elements)."""
    if type(ref) in STRUCTURE_REFERENCES:
        return reference_rank(ref)
    if isinstance(ref, ArrayReference):
        return sum(1 for index in ref.indices if isinstance(index, Range))
    dtype = getattr(ref.symbol, "datatype", None)
    return len(dtype.shape) if isinstance(dtype, ArrayType) else 0


class Tape:
    """One last-in-first-out tape of values of one scalar datatype.

    :param str name: the tape array's name (already unique).
    :param datatype: the scalar datatype of the elements.
    :param bool dynamic: the layout (see the module docstring).
    """

    def __init__(self, name, datatype, dynamic, table, taken, frames=None,
                 copy_routines=True):
        self.frames = frames if frames is not None else [{}]
        self.copy_routines = copy_routines
        self.datatype = datatype
        self.dynamic = dynamic
        self.slots = 0
        if dynamic:
            shape = [ArrayType.Extent.DEFERRED]
        else:
            shape = [_int(1)]
        self.symbol = DataSymbol(name, ArrayType(datatype.copy(), shape),
                                 interface=AutomaticInterface())
        self.top = None
        self.reserve_name = self.put_name = self.get_name = None
        if dynamic:
            top_name = naming.unique(table, naming.tape_top(name), taken)
            self.top = DataSymbol(top_name, INTEGER_TYPE.copy(),
                                  interface=AutomaticInterface())
            self.reserve_name = naming.unique(table, naming.tape_reserve(name), taken)
            self.put_name = naming.unique(table, naming.tape_put(name), taken)
            self.get_name = naming.unique(table, naming.tape_get(name), taken)

    # -- positions -----------------------------------------------------
    def _element(self, offset):
        """``tape(top + offset)`` (dynamic) or ``tape(offset)`` (static)."""
        index = _add(Reference(self.top), offset) if self.dynamic else _int(offset)
        return ArrayReference.create(self.symbol, [index])

    def _move_top(self, amount):
        """``top = top + amount`` (amount an int or a DataNode)."""
        return Assignment.create(Reference(self.top), _add(Reference(self.top), amount)
                                 if not isinstance(amount, int) or amount >= 0
                                 else _sub(Reference(self.top), -amount))

    # -- scalars ------------------------------------------------------
    def push(self, values):
        """Return (recording statements, token) pushing the scalar `values`.

        :param values: PSyIR expressions (copied).
        """
        values = list(values)
        self._note(_int(len(values)))
        if self.dynamic:
            stmts = [Assignment.create(self._element(i), v.copy())
                     for i, v in enumerate(values, start=1)]
            stmts.append(self._move_top(len(values)))
            return stmts, len(values)
        first = self.slots + 1
        self.slots += len(values)
        stmts = [Assignment.create(self._element(first + i), v.copy())
                 for i, v in enumerate(values)]
        return stmts, (first, len(values))

    def push_branch(self, values_per_branch):
        """Pushes of one value per branch of an IF (the same slot when static).

        :returns: (list of statement lists, one per branch; token).
        """
        self._note(_int(1))
        if self.dynamic:
            return [[Assignment.create(self._element(1), _int(v)), self._move_top(1)]
                    for v in values_per_branch], 1
        self.slots += 1
        return [[Assignment.create(self._element(self.slots), _int(v))]
                for v in values_per_branch], (self.slots, 1)

    def margin(self):
        """Room for what every enclosing frame may still push, as an
        expression completed when the frames close: a reserve made inside
        them must not eat the room they reserved for themselves."""
        total = None
        for frame in self.frames:
            rest = Reference(_MARGIN)  # not an integer 0: simplification keeps it
            frame.setdefault("margins", []).append((self, rest))
            total = rest if total is None else _add(total, rest)
        return total

    def _note(self, size):
        """Account `size` more elements to the innermost reserve frame."""
        self.frames[-1].setdefault(self, []).append(size)
        self.frames[0].setdefault("pushes", []).append(1)

    def pop(self, token):
        """Return (returning statements, expressions reading the values).

        The expressions stay valid until the next pop of this tape.
        """
        if self.dynamic:
            count = token
            return [self._move_top(-count)], [self._element(i) for i in range(1, count + 1)]
        first, count = token
        return [], [self._element(first + i) for i in range(count)]

    def save(self, reference):
        """Return (record, restore) statement lists for the value of `reference`.

        A whole array or a section is saved element by element in array
        element order; a character value character by character.
        """
        if self.datatype.intrinsic == ScalarType.Intrinsic.CHARACTER:
            return self._save_characters(reference)
        if rank_of_reference(reference) == 0:
            rec, token = self.push([reference])
            ret, (value,) = self.pop(token)
            return rec, ret + [Assignment.create(reference.copy(), value)]
        return self._save_array(reference)

    def save_complex(self, reference, kind):
        """(record, restore) statement lists for the complex value of
        `reference`, as its real parts then its imaginary parts on this
        real tape of its kind (`kind`, see :func:`complex_kind`)."""
        def parts(ref):
            return [IntrinsicCall.create(IntrinsicCall.Intrinsic.REAL, [ref.copy()]),
                    IntrinsicCall.create(IntrinsicCall.Intrinsic.AIMAG, [ref.copy()])]

        def joined(re_part, im_part):
            args = [re_part, im_part]
            if kind != ScalarType.Precision.UNDEFINED:
                args.append(("kind", kind.copy() if isinstance(kind, Reference)
                             else _int(kind)))
            return IntrinsicCall.create(IntrinsicCall.Intrinsic.CMPLX, args)

        rank = rank_of_reference(reference) if isinstance(reference, ArrayReference) \
            else complex_rank(reference.symbol)
        if rank == 0:
            rec, token = self.push(parts(reference))
            ret, (re_part, im_part) = self.pop(token)
            return rec, ret + [Assignment.create(reference.copy(), joined(re_part, im_part))]
        assert self.dynamic, "arrays are saved on dynamic tapes only"
        size = IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [reference.copy()])
        written = self.frames[-1].get("written")
        allocatable = re.search(r"\bALLOCATABLE\b", reference.symbol.datatype.declaration,
                                re.IGNORECASE)
        if allocatable or (written is not None and not invariant(size, written)):
            self.frames[-1]["inline"] = True

            def need():
                return _add(BinaryOperation.create(BinOp.MUL, _int(2), size.copy()),
                            self.margin())
            room = self.reserve(need)
            self.frames[0].setdefault("pushes", []).append(1)
        else:
            room = []
            self._note(BinaryOperation.create(BinOp.MUL, _int(2), size.copy()))

        def section(first):   # tape(top + first + 1 : top + first + size)
            start = Reference(self.top) if first is None else _add(Reference(self.top),
                                                                    first.copy())
            return ArrayReference.create(self.symbol, [Range.create(
                _add(start.copy(), 1), _add(start, size.copy()))])

        true = Literal("true", ScalarType(ScalarType.Intrinsic.BOOLEAN,
                                          ScalarType.Precision.UNDEFINED))
        puts = []
        for first, part in zip((None, size), parts(reference)):
            if rank > 1:
                part = IntrinsicCall.create(IntrinsicCall.Intrinsic.PACK, [part, true.copy()])
            puts.append(Assignment.create(section(first), part))
        value = joined(section(None), section(size))
        if rank > 1:
            value = intrinsic_call("RESHAPE", [value, IntrinsicCall.create(
                IntrinsicCall.Intrinsic.SHAPE, [reference.copy()])])
        twice = BinaryOperation.create(BinOp.MUL, _int(2), size.copy())
        rec = room + puts + [self._move_top(twice)]
        ret = [self._move_top_down(twice.copy()), Assignment.create(reference.copy(), value)]
        return rec, ret

    def size_of(self, reference):
        """Number of tape elements :meth:`save` uses for `reference`."""
        if self.datatype.intrinsic == ScalarType.Intrinsic.CHARACTER:
            # One element per character: LEN of each string, times SIZE.
            size = IntrinsicCall.create(IntrinsicCall.Intrinsic.LEN, [reference.copy()])
            if rank_of_reference(reference) > 0:
                size = BinaryOperation.create(BinOp.MUL, size, IntrinsicCall.create(
                    IntrinsicCall.Intrinsic.SIZE, [reference.copy()]))
            return size
        if rank_of_reference(reference) == 0:
            return _int(1)
        return IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [reference.copy()])

    def _save_array(self, reference):
        assert self.dynamic, "arrays are saved on dynamic tapes only"
        size = self.size_of(reference)
        written = self.frames[-1].get("written")
        if (getattr(reference.symbol.datatype, "is_allocatable", False)
                or type(reference) in STRUCTURE_REFERENCES
                or (written is not None and not invariant(size, written))):
            # Its size is known only once allocated (also a component's,
            # which may be allocatable), or reads variables the frame sets
            # (x(1:n) after n = ...), so it cannot be reserved at the
            # frame's start: make room right here, for it and for what the
            # enclosing frame still has to push (filled in when the frame
            # closes).
            self.frames[-1]["inline"] = True

            def need():
                return _add(size.copy(), self.margin())
            room = self.reserve(need)
            self.frames[0].setdefault("pushes", []).append(1)
        else:
            room = []
            self._note(size.copy())
        section = ArrayReference.create(self.symbol, [Range.create(
            _add(Reference(self.top), 1), _add(Reference(self.top), size.copy()))])
        if rank_of_reference(reference) == 1:
            put = Assignment.create(section, reference.copy())
            get = Assignment.create(reference.copy(), section.copy())
        elif not self.copy_routines:
            put = Assignment.create(section, IntrinsicCall.create(
                IntrinsicCall.Intrinsic.PACK,
                [reference.copy(), Literal("true", ScalarType(
                    ScalarType.Intrinsic.BOOLEAN, ScalarType.Precision.UNDEFINED))]))
            get = Assignment.create(reference.copy(), intrinsic_call("RESHAPE", [
                section.copy(),
                IntrinsicCall.create(IntrinsicCall.Intrinsic.SHAPE, [reference.copy()])]))
        else:
            # Through a routine taking it as a vector (sequence association):
            # PACK and RESHAPE make gfortran build a temporary copy.
            put = Call.create(RoutineSymbol(self.put_name), [reference.copy(), size.copy()])
            get = Call.create(RoutineSymbol(self.get_name), [reference.copy(), size.copy()])
        rec = room + [put, self._move_top(size.copy())]
        ret = [self._move_top_down(size.copy()), get]
        return rec, ret

    def _save_characters(self, reference):
        """Save a character value (a string of any length, ``len=*``
        included, or an array of strings) on a tape of single characters:
        TRANSFER spreads it over LEN (times SIZE) elements and gathers it
        back, so strings of every length share one tape."""
        assert self.dynamic, "characters are saved on dynamic tapes only"
        size = self.size_of(reference)
        self._note(size.copy())
        section = ArrayReference.create(self.symbol, [Range.create(
            _add(Reference(self.top), 1), _add(Reference(self.top), size.copy()))])
        one = Literal(" ", self.datatype.copy())
        spread = intrinsic_call("TRANSFER", [reference.copy(), one, size.copy()])
        gathered = intrinsic_call("TRANSFER", [section.copy(), reference.copy()])
        if rank_of_reference(reference) > 1:
            gathered = intrinsic_call("RESHAPE", [gathered, IntrinsicCall.create(
                IntrinsicCall.Intrinsic.SHAPE, [reference.copy()])])
        rec = [Assignment.create(section, spread), self._move_top(size.copy())]
        ret = [self._move_top_down(size.copy()),
               Assignment.create(reference.copy(), gathered)]
        return rec, ret

    def _move_top_down(self, amount):
        return Assignment.create(Reference(self.top), _sub(Reference(self.top), amount))

    # -- room -----------------------------------------------------------
    def reserve(self, need, checked=True):
        """Statements making room for `need` more elements (dynamic only).

        :param need: PSyIR integer expression, or a function making a
            fresh one each time it is called.
        :param bool checked: test the room inline and call the reserve
            routine only when the tape is full (inside loops); otherwise
            call it unconditionally (also allocates the tape on first use).
        """
        fresh = need if callable(need) else need.copy
        call = Call.create(RoutineSymbol(self.reserve_name), [fresh()])
        if not checked:
            return [call]
        full = BinaryOperation.create(
            BinOp.GT, _add(Reference(self.top), fresh()),
            IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [Reference(self.symbol)]))
        return [IfBlock.create(full, [call])]

    def reserve_routine_source(self, type_text):
        """Fortran source of the routine that grows this tape geometrically
        (as the writer lays it out: it goes into the output verbatim,
        see :class:`adfort.writer.VerbatimRoutine`)."""
        tape, top, name = self.symbol.name, self.top.name, self.reserve_name
        return f"""\
subroutine {name}(need)
  integer, intent(in) :: need
  {type_text}, allocatable, dimension(:) :: grown

  if (.NOT.ALLOCATED({tape})) then
    ALLOCATE({tape}(1:MAX(need, {naming.TAPE_INITIAL_SIZE})))
  elseif ({top} + need > SIZE({tape})) then
    ALLOCATE(grown(1:MAX(2 * SIZE({tape}), {top} + need)))
    grown(1:{top}) = {tape}(1:{top})
    call move_alloc(grown, {tape})
  end if

end subroutine {name}
"""

    def copy_routines_source(self, type_text):
        """Fortran source of the routines copying an array of rank > 1 onto
        this tape and back, above its top (the caller moves the top)."""
        tape, top = self.symbol.name, self.top.name
        return f"""\
subroutine {self.put_name}(values, n)
  integer, intent(in) :: n
  {type_text}, dimension(n), intent(in) :: values

  {tape}({top} + 1:{top} + n) = values

end subroutine {self.put_name}
subroutine {self.get_name}(values, n)
  integer, intent(in) :: n
  {type_text}, dimension(n), intent(out) :: values

  values = {tape}({top} + 1:{top} + n)

end subroutine {self.get_name}
"""


class TapeSet:
    """The tapes of one routine: value tapes by datatype, and a control tape.

    :param table: the working symbol table (for unique names).
    :param bool dynamic: layout of every tape of the routine.
    :param taken: names to avoid.
    :param bool copy_routines: arrays of rank > 1 through the tapes' copy
        routines (else PACK and RESHAPE).
    """

    def __init__(self, table, dynamic, taken=(), copy_routines=True):
        self.copy_routines = copy_routines
        self._table = table
        self.dynamic = dynamic
        self._taken = set(taken)
        self._values = {}
        self._control = None
        self._branches = None
        self.frames = [{}]

    def open_frame(self, written=None):
        """Start accounting the pushes of a loop body.

        :param written: names of the variables the body may change (see
            :func:`written_names`): a push whose size reads one of them is
            given room where it happens, not at the body's start.
        """
        self.frames.append({} if written is None else {"written": set(written)})

    def start_routine(self, written):
        """Start accounting the pushes of a routine whose statements may
        change the variables named in `written` (reserved at its entry)."""
        self.frames[:] = [{"written": set(written)}]

    def close_frame(self):
        """End a loop body's accounting: {tape: total need expression}.

        A body that makes room itself (for allocatable arrays) gets the
        key ``"inline"`` set: its loop must reserve at each iteration.
        """
        frame = self.frames.pop()
        totals = _totals({k: v for k, v in frame.items() if k not in _FRAME_KEYS})
        _fill_inline(frame, totals)
        if frame.get("inline"):
            totals["inline"] = True
        return totals

    def reserve(self, needs, per_iteration_of=None):
        """Statements making room for `needs` ({tape: expression}).

        :param per_iteration_of: a trip-count expression multiplying each
            need (a reserve at loop entry), or None.
        """
        stmts = []
        for tape, need in needs.items():
            if tape == "inline" or not tape.dynamic:
                continue
            if per_iteration_of is not None:
                need = BinaryOperation.create(BinOp.MUL, per_iteration_of.copy(), need)

            def with_margin(need=need, tape=tape):
                return _add(need.copy(), tape.margin())
            stmts.extend(tape.reserve(with_margin))
        return stmts

    def after_call(self):
        """Reserves restoring the room the enclosing frames counted on, after
        a call whose recording pushed onto the same tapes."""
        stmts = []
        for tape in self.tapes:
            if tape.dynamic:
                stmts.extend(tape.reserve(tape.margin))
        return stmts

    def top_level_need(self, room=None):
        """{tape: need} of the pushes outside any loop.

        :param room: ``room(tape)``: a new integer local.  The room checks
            inside loops keep the routine's own need free; when it is more
            than a number, it is then set once in that local at the
            routine's entry and they name it (a long routine's checks would
            each spell out the size of every array it hands over).
        :returns: ({tape: need}, {tape: the local}) when `room` is given.
        """
        frame = self.frames[0]
        totals = _totals({k: v for k, v in frame.items() if k not in _FRAME_KEYS})
        named = {}
        if room is not None:
            kept = []
            for tape, placeholder in frame.get("margins", []):
                total = totals.get(tape)
                if total is None or isinstance(total, Literal):
                    kept.append((tape, placeholder))
                    continue
                if tape not in named:
                    named[tape] = room(tape)
                placeholder.replace_with(Reference(named[tape]))
            frame["margins"] = kept
        _fill_inline(frame, totals)
        return (totals, named) if room is not None else totals

    @contextlib.contextmanager
    def returning_side(self):
        """Account pushes the returning motion makes (a checkpointed loop
        recording a step again) apart from the routine's own: nothing
        is pushed after them at the routine's level there, so the room
        their reserves keep for the routine is none (the routine's room
        local is set in the recording motion only)."""
        saved = list(self.frames)
        self.frames[:] = [{}]
        try:
            yield
        finally:
            top = self.frames[0]
            _fill_inline(top, {})
            self.frames[:] = saved
            self.frames[0].setdefault("pushes", []).extend(top.get("pushes", []))

    def pushes_made(self):
        """How many pushes have been generated so far (any tape)."""
        return len(self.frames[0].get("pushes", []))

    def _new(self, base, datatype):
        name = naming.unique(self._table, base, self._taken)
        self._taken.add(name)
        tape = Tape(name, datatype, self.dynamic, self._table, self._taken, self.frames,
                    self.copy_routines)
        if tape.top is not None:
            self._taken |= {tape.top.name, tape.reserve_name, tape.put_name, tape.get_name}
        return tape

    def for_value(self, reference, dtype=None):
        """The value tape for the datatype of `reference`'s variable (for
        `dtype` when given)."""
        dtype = dtype or value_type(reference)
        if isinstance(dtype, ArrayType):
            dtype = dtype.elemental_type
        if not isinstance(dtype, ScalarType):   # complex: PSyIR cannot type it
            from adfort.errors import AdfortError
            raise AdfortError(
                f"the returning motion needs the value of '{reference.symbol.name}' "
                + (f"('{getattr(dtype, 'declaration', dtype)}') " if dtype is not None else "")
                + "after the routine overwrites it, and adfort cannot save a value of this "
                "type; keep it in another variable that is not overwritten")
        if dtype.intrinsic == ScalarType.Intrinsic.CHARACTER:
            # Every length on one tape of single characters.
            dtype = ScalarType(dtype.intrinsic, ScalarType.Precision.UNDEFINED, 1)
        key = (dtype.intrinsic, str(dtype.precision))
        if key not in self._values:
            tag = type_tag(dtype) if self._values else None
            self._values[key] = self._new(naming.value_tape(tag), dtype)
        return self._values[key]

    @property
    def branches(self):
        """The tape of IF decisions, a bit each (dynamic layout only, see
        :mod:`adfort.branch_tape`)."""
        if self._branches is None:
            from adfort.branch_tape import BranchTape
            name = naming.unique(self._table, naming.BRANCH_TAPE, self._taken)
            self._taken.add(name)
            self._branches = BranchTape(name, self._table, self._taken, self.frames)
            self._taken |= self._branches.names
        return self._branches

    @property
    def control(self):
        """The integer tape of branches taken and loop trip counts."""
        if self._control is None:
            self._control = self._new(naming.CONTROL_TAPE, INTEGER_TYPE)
        return self._control

    def save(self, reference):
        """(record, restore) statements for the value of `reference`.

        A derived-type value is saved component by component: its reals on
        the value tapes, its integers on the control tape.
        """
        if is_derived_value(reference):
            rec, ret = [], []
            for leaf, _ in leaf_references(reference, value_type(reference),
                                           ("real", "integer")):
                save, restore = self.save(leaf)
                rec.extend(save)
                ret = restore + ret
            return rec, ret
        kind = complex_kind(reference, self._table)
        if kind is not None:
            # Its real and imaginary parts, on the real tape of its kind.
            real = ScalarType(ScalarType.Intrinsic.REAL, kind)
            return self.for_value(reference, real).save_complex(reference, kind)
        return self.for_value(reference).save(reference)

    @property
    def tapes(self):
        """Every tape used, values first, in creation order."""
        tapes = list(self._values.values())
        if self._control is not None:
            tapes.append(self._control)
        if self._branches is not None:
            tapes.append(self._branches)
        return [t for t in tapes if t.slots or t.dynamic]

    def finalise(self):
        """Fix the extents of static tapes; return the tapes used."""
        for tape in self.tapes:
            if not tape.dynamic:
                tape.symbol.datatype = ArrayType(tape.datatype.copy(), [_int(tape.slots)])
        return self.tapes


_FRAME_KEYS = ("pushes", "inline", "margins", "written")
_MARGIN = DataSymbol("adfort_margin", INTEGER_TYPE)


def _fill_inline(frame, totals):
    """Give the reserves made inside `frame` the frame's own needs."""
    for tape, placeholder in frame.get("margins", []):
        total = totals.get(tape)
        placeholder.replace_with(total.copy() if total is not None else _int(0))


def every_name(tape):
    """Lower-case names of a tape's array, top counter and routines (a
    branch tape's module variables too)."""
    names = [tape.symbol.name, getattr(getattr(tape, "top", None), "name", None)] + [
        getattr(tape, attr, None) for attr in ("reserve_name", "put_name", "get_name")]
    return {name.lower() for name in names if name} | set(getattr(tape, "names", ()))


def tidy_reserves(statements):
    """Simplify the room computations of the reserves among `statements`
    (once their margins are known)."""
    from adfort.simplify import simplify_statements
    for stmt in statements:
        for call in stmt.walk(Call):
            if call.routine.name.endswith(naming.TAPE_RESERVE_SUFFIX):
                owner = call.parent.parent if call.parent is not None else None
                parent = owner if isinstance(owner, IfBlock) else None
                simplify_statements([call])
                if parent is not None:
                    simplify_statements([parent.condition])
                    # Room for nothing, checked where the top is within the
                    # tape already: the test never holds.
                    if (call.arguments and isinstance(call.arguments[0], Literal)
                            and call.arguments[0].value == "0"
                            and len(parent.if_body.children) == 1 and parent.else_body is None
                            and parent.parent is not None):
                        parent.detach()


def _totals(frame):
    """Sum each tape's noted sizes into one expression (constants folded)."""
    totals = {}
    for tape, sizes in frame.items():
        constant = sum(int(s.value) for s in sizes if isinstance(s, Literal))
        expr = _int(constant) if constant else None
        for size in sizes:
            if not isinstance(size, Literal):
                expr = size if expr is None else _add(expr, size)
        totals[tape] = expr if expr is not None else _int(0)
    return totals
