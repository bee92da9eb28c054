"""Adjoints of MPI calls (the rules of :mod:`adfort.mpi_rules`), in plain
Fortran calling the same MPI library.

The recording motion runs the call as it is.  The returning motion
reverses the communication: what was sent comes back as adjoints received
and added into the send buffer's adjoint, what was received goes back as
the receive buffer's adjoint, which is then zero (the buffer was
overwritten).  Buffers are passed to MPI as the original passed them (an
element starting a sequence, a section, a whole array), so adjoints are
added with ``MPI_Reduce_local`` and zeroed by a copy of zeros on
``MPI_COMM_SELF``: MPI sees the same elements as in the forward call,
whatever form the buffer has.

Non-blocking calls are paired statically with their waits
(:func:`adfort.mpi_analysis.pair_requests`): the adjoint of the wait starts the reversed
communication, the adjoint of the ``MPI_Isend``/``MPI_Irecv`` waits for
it and adds or zeroes.
"""

from fparser.two import Fortran2008
from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, Fparser2CodeBlock, IfBlock,
    IntrinsicCall, Literal, Loop, Reference)
from psyclone.psyir.symbols import ArrayType, DataSymbol, RoutineSymbol, ScalarType, Symbol

from adfort import naming
from adfort.arrays import expr_rank
from adfort.derived import is_variable, value_type
from adfort.errors import AdfortError, where
from adfort.exprs import INTEGER_TYPE, int_literal, real_kind, real_literal
from adfort.mpi_analysis import (
    NONBLOCKING_CALLS, WAITS, is_real_buffer, mpi_call_rule, mpi_name)
from adfort.mpi_rules import BUFFERS, OPERATIONS, REAL_TYPES, arguments
from adfort.symbols import new_local
from adfort.transformations.assignment import adjoint_reference

#: The kinds reversed by :func:`reverse_request`.
NONBLOCKING = NONBLOCKING_CALLS + WAITS


def _plain_scalar(target, count):
    """Whether `target` is a scalar variable given with a count of 1: its
    adjoint is added to and zeroed by plain assignments."""
    return (type(target) is Reference and expr_rank(target) == 0
            and isinstance(count, Literal) and count.value == "1")


class MpiBuilder:
    """Statements of one MPI call's derivative (adjoint or tangent), with
    the locals they need.

    :param ctx: the routine's context (``table``, ``taken``, ``filename``).
    :param kept: {key: DataSymbol} of the integer locals shared by the
        routine's MPI derivatives (error code, rank…).
    :param derivative: ``derivative(symbol)``: the DataSymbol of the
        adjoint or tangent of variable `symbol`, or None.
    """

    def __init__(self, call, ctx, kept, derivative):
        self.call = call
        self.ctx = ctx
        self.which = mpi_call_rule(call)
        self.args = arguments(call, self.which)
        self.location = where(call, self.ctx.filename)
        self.kept = kept
        self.derivative_symbol = derivative

    # names -------------------------------------------------------------
    def const(self, name):
        symbol = self.ctx.table.lookup(name, otherwise=None)
        if symbol is None:
            symbol = Symbol(name)
        return Reference(symbol)

    def arg(self, role):
        return self.args[role].copy()

    def integer(self, key, base):
        if key not in self.kept:
            self.kept[key] = new_local(self.ctx.table, base, INTEGER_TYPE, self.ctx.taken)
        return Reference(self.kept[key])

    def error(self):
        return self.integer("error", naming.MPI_ERROR)

    def scratch(self, buffer, rank=1):
        element = getattr(value_type(buffer), "elemental_type", value_type(buffer))
        datatype = ArrayType(ScalarType(element.intrinsic, element.precision),
                             [ArrayType.Extent.DEFERRED] * rank)
        return new_local(self.ctx.table, naming.MPI_BUFFER, datatype, self.ctx.taken)

    def derivative(self, buffer):
        """The adjoint or tangent of `buffer` (same indices), or None."""
        symbol = self.derivative_symbol(buffer.symbol) if is_variable(buffer) else None
        if symbol is None:
            return None
        return adjoint_reference(buffer, symbol)

    def mpi(self, name, *args):
        return Call.create(RoutineSymbol(name), [a if not isinstance(a, DataSymbol)
                                                 else Reference(a) for a in args])

    # pieces ------------------------------------------------------------
    def allocate(self, symbol, *extents):
        zero = real_literal(0, real_kind(Reference(symbol)))
        return [IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                    ArrayReference.create(symbol, [e.copy() for e in extents])]),
                Assignment.create(Reference(symbol), zero)]

    def deallocate(self, *symbols):
        return [IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [Reference(s)])
                for s in symbols]

    def accumulate(self, incoming, target, count, datatype):
        """``target(1:count) += incoming`` as MPI sees the buffer."""
        if target is None:
            return []
        if _plain_scalar(target, count):
            return [Assignment.create(target, BinaryOperation.create(
                BinaryOperation.Operator.ADD, target.copy(),
                ArrayReference.create(incoming, [int_literal(1)])))]
        return [self.mpi("MPI_Reduce_local", Reference(incoming), target, count.copy(),
                         datatype.copy(), self.const("MPI_SUM"), self.error())]

    def zero(self, target, count, datatype, like):
        """The `count` elements of `target` MPI sees set to zero: a copy of
        zeros through MPI_COMM_SELF."""
        if target is None:
            return []
        if _plain_scalar(target, count):
            return [Assignment.create(target, real_literal(0, real_kind(target)))]
        zeros = self.scratch(like)
        return (self.allocate(zeros, count)
                + [self.mpi("MPI_Sendrecv", Reference(zeros), count.copy(), datatype.copy(),
                            int_literal(0), int_literal(0), target, count.copy(),
                            datatype.copy(), int_literal(0), int_literal(0),
                            self.const("MPI_COMM_SELF"), self.const("MPI_STATUS_IGNORE"),
                            self.error())]
                + self.deallocate(zeros))

    def unless_null(self, rank, statements):
        if not statements:
            return []
        test = BinaryOperation.create(BinaryOperation.Operator.NE, rank.copy(),
                                      self.const("MPI_PROC_NULL"))
        return [IfBlock.create(test, statements)]

    def if_rank(self, root, statements, equal=True):
        if not statements:
            return []
        rank = self.integer("rank", naming.MPI_RANK)
        operator = BinaryOperation.Operator.EQ if equal else BinaryOperation.Operator.NE
        return [self.mpi("MPI_Comm_rank", self.arg("comm"), rank.copy(), self.error()),
                IfBlock.create(BinaryOperation.create(operator, rank, root.copy()),
                               statements)]

    def nproc_times(self, count):
        size = self.integer("size", naming.MPI_SIZE)
        return ([self.mpi("MPI_Comm_size", self.arg("comm"), size.copy(), self.error())],
                BinaryOperation.create(BinaryOperation.Operator.MUL, count.copy(), size))


def _builder(call, reverser):
    """The :class:`MpiBuilder` of an adjoint (its locals kept by `reverser`)."""
    kept = getattr(reverser, "mpi_locals", None)
    if kept is None:
        kept = reverser.mpi_locals = {}
    return MpiBuilder(call, reverser.ctx, kept, reverser.ctx.adjoint_symbol)


def type_checks(b, args):
    """Run-time checks that datatypes adfort cannot read (a variable, a
    constant of the user's) describe one real value per element: the
    adjoint's scratch buffers hold `count` values of the buffer's kind."""
    out, seen = [], set()
    for role, buffer in (("type", "buf"), ("type", "sbuf"), ("type", "rbuf"),
                         ("stype", "sbuf"), ("rtype", "rbuf")):
        if role not in args or buffer not in args or mpi_name(args[role]) in REAL_TYPES \
                or not is_variable(args[buffer]) \
                or args[role].debug_string().lower() in seen:
            continue
        seen.add(args[role].debug_string().lower())
        size = b.integer("type size", naming.MPI_TYPE_SIZE)
        element = IntrinsicCall.create(IntrinsicCall.Intrinsic.STORAGE_SIZE,
                                       [args[buffer].copy()])
        bytes_ = BinaryOperation.create(BinaryOperation.Operator.DIV, element, int_literal(8))
        place = b.location.rsplit("/", 1)[-1]
        message = (f"adfort: {place}: the MPI datatype {args[role].debug_string()} is not "
                   "one real value per element")[:110].replace("'", "''")
        stop = Fortran2008.Error_Stop_Stmt(f"error stop '{message}'")
        block = Fparser2CodeBlock([stop], CodeBlock.Structure.STATEMENT)
        block.ast = stop
        out += [b.mpi("MPI_Type_size", args[role].copy(), size.copy(), b.error()),
                IfBlock.create(BinaryOperation.create(BinaryOperation.Operator.NE, size,
                                                      bytes_), [block])]
    return out


def reverse_mpi(call, reverser):
    """The returning statements of a blocking MPI call on active data (its
    non-blocking calls and waits: :func:`reverse_request`)."""
    b = _builder(call, reverser)
    return type_checks(b, b.args) + _reverse_blocking(call, b)


def _reverse_blocking(call, b):
    args = b.args
    kind = b.which.kind
    if kind == "send":
        t = b.scratch(args["sbuf"])
        return (b.allocate(t, args["count"])
                + [b.mpi("MPI_Recv", Reference(t), b.arg("count"), b.arg("type"), b.arg("dest"),
                         b.arg("tag"), b.arg("comm"), b.const("MPI_STATUS_IGNORE"), b.error())]
                + b.accumulate(t, b.derivative(args["sbuf"]), args["count"], args["type"])
                + b.deallocate(t))
    if kind == "recv":
        out = b.derivative(args["rbuf"])
        return ([b.mpi("MPI_Send", out.copy(), b.arg("count"), b.arg("type"), b.arg("source"),
                       b.arg("tag"), b.arg("comm"), b.error())]
                + b.unless_null(args["source"], b.zero(out, args["count"], args["type"],
                                                       args["rbuf"])))
    if kind in ("sendrecv", "sendrecv_replace"):
        sbuf = args["sbuf"] if kind == "sendrecv" else args["buf"]
        rbuf = args["rbuf"] if kind == "sendrecv" else args["buf"]
        scount = args["scount"] if kind == "sendrecv" else args["count"]
        rcount = args["rcount"] if kind == "sendrecv" else args["count"]
        stype = args["stype"] if kind == "sendrecv" else args["type"]
        rtype = args["rtype"] if kind == "sendrecv" else args["type"]
        t = b.scratch(sbuf)
        out = b.derivative(rbuf)
        return (b.allocate(t, scount)
                + [b.mpi("MPI_Sendrecv", out.copy(), rcount.copy(), rtype.copy(),
                         b.arg("source"), b.arg("rtag"), Reference(t), scount.copy(),
                         stype.copy(), b.arg("dest"), b.arg("stag"), b.arg("comm"),
                         b.const("MPI_STATUS_IGNORE"), b.error())]
                + b.unless_null(args["source"], b.zero(out, rcount, rtype, rbuf))
                + b.accumulate(t, b.derivative(sbuf), scount, stype)
                + b.deallocate(t))
    if kind in ("allreduce", "reduce"):
        return _reverse_reduction(b)
    if kind == "bcast":
        t = b.scratch(args["buf"])
        adj = b.derivative(args["buf"])
        return (b.allocate(t, args["count"])
                + [b.mpi("MPI_Reduce", adj.copy(), Reference(t), b.arg("count"), b.arg("type"),
                         b.const("MPI_SUM"), b.arg("root"), b.arg("comm"), b.error())]
                + b.zero(adj.copy(), args["count"], args["type"], args["buf"])
                + b.if_rank(args["root"], b.accumulate(t, adj, args["count"], args["type"]))
                + b.deallocate(t))
    if kind == "gather":
        size, total = b.nproc_times(args["rcount"])
        t = b.scratch(args["sbuf"])
        radj = b.derivative(args["rbuf"])
        return (size + b.allocate(t, args["scount"])
                + [b.mpi("MPI_Scatter", radj.copy(), b.arg("rcount"), b.arg("rtype"),
                         Reference(t), b.arg("scount"), b.arg("stype"), b.arg("root"),
                         b.arg("comm"), b.error())]
                + b.if_rank(args["root"], b.zero(radj, total, args["rtype"], args["rbuf"]))
                + b.accumulate(t, b.derivative(args["sbuf"]), args["scount"], args["stype"])
                + b.deallocate(t))
    if kind == "scatter":
        size, total = b.nproc_times(args["scount"])
        t = b.scratch(args["sbuf"])
        radj = b.derivative(args["rbuf"])
        return (size + b.allocate(t, total)
                + [b.mpi("MPI_Gather", radj.copy(), b.arg("rcount"), b.arg("rtype"),
                         Reference(t), b.arg("scount"), b.arg("stype"), b.arg("root"),
                         b.arg("comm"), b.error())]
                + b.zero(radj, args["rcount"], args["rtype"], args["rbuf"])
                + b.if_rank(args["root"], b.accumulate(t, b.derivative(args["sbuf"]), total,
                                                       args["stype"]))
                + b.deallocate(t))
    if kind == "allgather":
        size, total = b.nproc_times(args["rcount"])
        t = b.scratch(args["sbuf"])
        radj = b.derivative(args["rbuf"])
        return (size + b.allocate(t, args["scount"])
                + [b.mpi("MPI_Reduce_scatter_block", radj.copy(), Reference(t),
                         b.arg("rcount"), b.arg("rtype"), b.const("MPI_SUM"), b.arg("comm"),
                         b.error())]
                + b.zero(radj, total, args["rtype"], args["rbuf"])
                + b.accumulate(t, b.derivative(args["sbuf"]), args["scount"], args["stype"])
                + b.deallocate(t))
    if kind == "reduce_scatter_block":
        size, total = b.nproc_times(args["rcount"])
        t = b.scratch(args["sbuf"])
        radj = b.derivative(args["rbuf"])
        return (size + b.allocate(t, total)
                + [b.mpi("MPI_Allgather", radj.copy(), b.arg("rcount"), b.arg("type"),
                         Reference(t), b.arg("rcount"), b.arg("type"), b.arg("comm"),
                         b.error())]
                + b.zero(radj, args["rcount"], args["type"], args["rbuf"])
                + b.accumulate(t, b.derivative(args["sbuf"]), total, args["type"])
                + b.deallocate(t))
    if kind == "reduce_local":
        # inout = inout + in: the in-out buffer's adjoint, unchanged, is also
        # the in buffer's.
        into, out = b.derivative(args["sbuf"]), b.derivative(args["buf"])
        if into is None or out is None:
            return []
        return [b.mpi("MPI_Reduce_local", out, into, b.arg("count"), b.arg("type"),
                      b.const("MPI_SUM"), b.error())]
    raise AdfortError(f"internal error: no adjoint for '{call.routine.name}'; please "
                      "report this with the input", b.location)


def _reverse_reduction(b):
    args = b.args
    count, dtype = args["count"], args["type"]
    in_place = mpi_name(args["sbuf"]) == "mpi_in_place"
    sbuf = args["rbuf"] if in_place else args["sbuf"]
    yadj = b.derivative(args["rbuf"])
    xadj = b.derivative(sbuf)
    t = b.scratch(args["rbuf"])
    op = mpi_name(args["op"])
    out = b.allocate(t, count)
    if b.which.kind == "allreduce":
        out.append(b.mpi("MPI_Allreduce", yadj.copy(), Reference(t), count.copy(),
                         dtype.copy(), b.const("MPI_SUM"), b.arg("comm"), b.error()))
        out += b.zero(yadj, count, dtype, args["rbuf"])
    else:
        # The root's adjoint of the result goes to every rank.
        out += b.if_rank(args["root"], [b.mpi(
            "MPI_Reduce_local", yadj.copy(), Reference(t), count.copy(), dtype.copy(),
            b.const("MPI_SUM"), b.error())])
        out.append(b.mpi("MPI_Bcast", Reference(t), count.copy(), dtype.copy(),
                         b.arg("root"), b.arg("comm"), b.error()))
        out += b.if_rank(args["root"], b.zero(yadj, count, dtype, args["rbuf"]))
    if OPERATIONS[op] is not None:
        out += owner_only(b, t, sbuf, count, dtype, OPERATIONS[op])
    out += b.accumulate(t, xadj, count, dtype)
    out += b.deallocate(t)
    return out


def owner_only(b, t, sbuf, count, dtype, locator):
    """Zero the elements of `t` of which this rank does not own the
    extremum: (value, rank) pairs reduced by MPI_MAXLOC/MPI_MINLOC (ties go
    to the lowest rank, as MPI defines)."""
    rank = b.integer("rank", naming.MPI_RANK)
    values = b.scratch(sbuf)
    pairs = b.scratch(sbuf, rank=2)
    found = b.scratch(sbuf, rank=2)
    kind = real_kind(Reference(values))
    two = int_literal(2)
    index = b.integer("index", naming.MPI_INDEX)
    pair_type = b.const(REAL_TYPES[mpi_name(dtype)])
    first = ArrayReference.create(pairs, [int_literal(1), index.copy()])
    fill = Loop.create(index.symbol, int_literal(1), count.copy(), int_literal(1), [
        Assignment.create(first, ArrayReference.create(values, [index.copy()])),
        Assignment.create(ArrayReference.create(pairs, [int_literal(2), index.copy()]),
                          IntrinsicCall.create(IntrinsicCall.Intrinsic.REAL, [
                              rank.copy(), ("kind", IntrinsicCall.create(
                                  IntrinsicCall.Intrinsic.KIND, [Reference(values)]))]))])
    owner = BinaryOperation.create(BinaryOperation.Operator.NE, IntrinsicCall.create(
        IntrinsicCall.Intrinsic.NINT, [ArrayReference.create(found, [two.copy(), index.copy()])]),
        rank.copy())
    clear = Loop.create(index.symbol, int_literal(1), count.copy(), int_literal(1), [
        IfBlock.create(owner, [Assignment.create(ArrayReference.create(t, [index.copy()]),
                                                 real_literal(0, kind))])])
    return (b.allocate(values, count)
            + [b.mpi("MPI_Reduce_local", sbuf.copy(), Reference(values), count.copy(),
                     dtype.copy(), b.const("MPI_SUM"), b.error())]
            + [IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                ArrayReference.create(pairs, [two.copy(), count.copy()]),
                ArrayReference.create(found, [two.copy(), count.copy()])])]
            + [b.mpi("MPI_Comm_rank", b.arg("comm"), rank.copy(), b.error()), fill,
               b.mpi("MPI_Allreduce", Reference(pairs), Reference(found), count.copy(),
                     pair_type, b.const(locator), b.arg("comm"), b.error()), clear]
            + b.deallocate(values, pairs, found))


def reverse_request(call, reverser):
    """Returning statements of a non-blocking call or wait on active data
    (see :func:`pair_requests`); [] for one on passive data."""
    which = mpi_call_rule(call)
    if which.kind in WAITS:
        out = []
        for site, loop in reverser.mpi_pairs.get(id(call), ()):
            out += _start_reversed(site, loop, reverser)
        return out
    found = _pairing(call, reverser)
    if found is None:
        return []   # passive data: kept in the recording motion alone
    loop = found[1]
    b = _builder(call, reverser)
    request, scratch = _site_state(call, loop, reverser)
    trip = _trip(loop, Reference(loop.variable)) if loop is not None else None
    out = [b.mpi("MPI_Wait", _slot(request, trip), b.const("MPI_STATUS_IGNORE"), b.error())]
    if which.kind == "isend":
        received = Reference(scratch) if trip is None else ArrayReference.create(
            scratch, [int_literal(1), trip.copy()])
        out.append(b.mpi("MPI_Reduce_local", received, b.derivative(b.args["sbuf"]),
                         b.arg("count"), b.arg("type"), b.const("MPI_SUM"), b.error()))
        if loop is None:
            out += b.deallocate(scratch)
    else:
        out += b.unless_null(b.args["source"], b.zero(
            b.derivative(b.args["rbuf"]), b.args["count"], b.args["type"], b.args["rbuf"]))
    return out


def _pairing(site, reverser):
    """(site, its loop or None) if `site` is paired with a wait, else None."""
    for sites in reverser.mpi_pairs.values():
        for found in sites:
            if found[0] is site:
                return found
    return None


def _slot(request, trip):
    return Reference(request) if trip is None else ArrayReference.create(request, [trip.copy()])


def _is_one(expr):
    return isinstance(expr, Literal) and expr.value == "1"


def _trip(loop, index):
    """``(index - start) / step + 1``: the iteration of `loop` at `index`."""
    start, step = loop.start_expr, loop.step_expr
    if _is_one(start) and _is_one(step):
        return index
    offset = BinaryOperation.create(BinaryOperation.Operator.SUB, index, start.copy())
    if not _is_one(step):
        offset = BinaryOperation.create(BinaryOperation.Operator.DIV, offset, step.copy())
    return BinaryOperation.create(BinaryOperation.Operator.ADD, offset, int_literal(1))


def _trips(loop):
    """``MAX(0, (stop - start + step) / step)``: the iterations of `loop`."""
    start, stop, step = loop.start_expr, loop.stop_expr, loop.step_expr
    if _is_one(start) and _is_one(step):
        return IntrinsicCall.create(IntrinsicCall.Intrinsic.MAX, [int_literal(0), stop.copy()])
    span = BinaryOperation.create(BinaryOperation.Operator.ADD, BinaryOperation.create(
        BinaryOperation.Operator.SUB, stop.copy(), start.copy()), step.copy())
    if not _is_one(step):
        span = BinaryOperation.create(BinaryOperation.Operator.DIV, span, step.copy())
    return IntrinsicCall.create(IntrinsicCall.Intrinsic.MAX, [int_literal(0), span])


def _site_state(site, loop, reverser):
    """(request, scratch buffer or None) of the reversed communication of
    the non-blocking call `site`: locals of the returning motion shared by
    the adjoint of its wait (which starts it) and its own (which ends it),
    whichever is generated first.  For a call posted in a loop, one request
    and one column of the scratch buffer per iteration."""
    if id(site) not in reverser.mpi_requests:
        b = _builder(site, reverser)
        if loop is None:
            request = new_local(b.ctx.table, naming.MPI_REQUEST, INTEGER_TYPE, b.ctx.taken)
        else:
            request = new_local(b.ctx.table, naming.MPI_REQUEST, ArrayType(
                INTEGER_TYPE, [ArrayType.Extent.DEFERRED]), b.ctx.taken)
        scratch = b.scratch(b.args["sbuf"], rank=1 if loop is None else 2) \
            if b.which.kind == "isend" else None
        reverser.mpi_requests[id(site)] = (request, scratch)
    return reverser.mpi_requests[id(site)]


def _substituted(expr, name, symbol):
    """A copy of `expr` with the variable `name` replaced by `symbol`."""
    copy = expr.copy()
    if type(copy) is Reference and copy.symbol.name.lower() == name:
        return Reference(symbol)
    for ref in copy.walk(Reference):
        if type(ref) is Reference and ref.symbol.name.lower() == name:
            ref.replace_with(Reference(symbol))
    return copy


def _start_reversed(site, loop, reverser):
    """The reversed communication of the non-blocking call `site`, started
    where its wait is reversed (for a call posted in a loop: a loop over
    the same iterations starting every one)."""
    b = _builder(site, reverser)
    request, t = _site_state(site, loop, reverser)
    args = dict(b.args)
    out = []
    trip = None
    if loop is not None:
        index = new_local(b.ctx.table, naming.MPI_ITERATION, INTEGER_TYPE, b.ctx.taken)
        name = loop.variable.name.lower()
        args = {role: _substituted(actual, name, index) for role, actual in args.items()}
        trip = _trip(loop, Reference(index))
        out += _fresh_allocation(request, [_trips(loop)])
        if t is not None:
            out += _fresh_allocation(t, [args["count"].copy(), _trips(loop)])
            out.append(Assignment.create(Reference(t), real_literal(0, real_kind(Reference(t)))))
    elif t is not None:
        out += b.allocate(t, args["count"])
    out = type_checks(b, b.args) + out
    if b.which.kind == "isend":
        received = Reference(t) if trip is None else ArrayReference.create(
            t, [int_literal(1), trip.copy()])
        start = b.mpi("MPI_Irecv", received, args["count"].copy(), args["type"].copy(),
                      args["dest"].copy(), args["tag"].copy(), args["comm"].copy(),
                      _slot(request, trip), b.error())
    else:
        start = b.mpi("MPI_Isend", b.derivative(args["rbuf"]), args["count"].copy(),
                      args["type"].copy(), args["source"].copy(), args["tag"].copy(),
                      args["comm"].copy(), _slot(request, trip), b.error())
    if loop is None:
        return out + [start]
    return out + [Loop.create(index, loop.start_expr.copy(), loop.stop_expr.copy(),
                              loop.step_expr.copy(), [start])]


def _fresh_allocation(symbol, extents):
    """Allocate `symbol` with `extents`, first freeing it if a previous
    call of the routine left it allocated."""
    return [IfBlock.create(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATED, [
                Reference(symbol)]), [IntrinsicCall.create(
                    IntrinsicCall.Intrinsic.DEALLOCATE, [Reference(symbol)])]),
            IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                ArrayReference.create(symbol, extents)])]


def is_active_mpi(call, reverser):
    """Whether the MPI call `call` has an adjoint to generate here."""
    which = mpi_call_rule(call)
    if which is None or which.passive:
        return False
    if which.kind in WAITS:
        return bool(reverser.mpi_pairs.get(id(call)))
    if which.kind in NONBLOCKING_CALLS:
        return _pairing(call, reverser) is not None
    args = arguments(call, which)
    return any(is_real_buffer(args[r]) and reverser.ctx.adjoint_symbol(args[r].symbol)
               is not None for r in BUFFERS if r in args)
