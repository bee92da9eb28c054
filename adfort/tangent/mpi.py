"""Tangents of MPI communication (the ``tangent`` rules of
:data:`adfort.mpi_rules.KINDS`), in plain Fortran calling the same library.

The call stays as it is; right after it, the same call moves the
tangents: ``x_d`` in place of each real buffer ``x``, the same counts,
datatypes, ranks, tags and communicator.  Every rank posts its tangent
messages in the order of its value messages, and MPI does not let two
messages between two ranks with one tag and communicator overtake each
other: each tangent message meets the receive of the tangent that follows
the receive of its value.  So the tangent of a receive from
``MPI_ANY_SOURCE`` or with ``MPI_ANY_TAG`` is received from the rank and
with the tag its status names.

A non-blocking call's tangent message has its own request,
``<request>_d``, declared like the request variable and
``MPI_REQUEST_NULL`` until a call starts a message on it: a wait for a
request waits for its tangent request too, whatever the value messages
were.  MPI_MAX/MPI_MIN reductions sum the tangents of the owners of the
extrema alone, found as the adjoint finds them
(:func:`adfort.transformations.mpi.owner_only`).
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, IfBlock, IntrinsicCall, Loop,
    Reference)
from psyclone.psyir.symbols import ArrayType, AutomaticInterface, DataSymbol, Symbol

from adfort import naming
from adfort.derived import is_variable
from adfort.errors import AdfortError, where
from adfort.exprs import INTEGER_TYPE, int_literal, real_kind, real_literal
from adfort.mpi_analysis import NONBLOCKING_CALLS, WAITS, is_real_buffer, mpi_call_rule, mpi_name
from adfort.mpi_rules import BUFFERS, OPERATIONS, PAIR_OPERATIONS, PAIR_TYPES, is_mpi_name
from adfort.transformations.allocation import allocation_arguments
from adfort.transformations.mpi import MpiBuilder, owner_only, type_checks

#: Roles naming the source and tag of a received message.
_RECEIVED_FROM = {"source": "MPI_SOURCE", "rtag": "MPI_TAG"}

#: How many elements each buffer role of a kind holds, as a multiple of a
#: count role ("nproc": that count times the communicator's size, as the
#: root's buffer of MPI_Gather/MPI_Scatter).
_EXTENTS = {
    "gather": {"sbuf": ("scount", False), "rbuf": ("rcount", True)},
    "scatter": {"sbuf": ("scount", True), "rbuf": ("rcount", False)},
    "allgather": {"sbuf": ("scount", False), "rbuf": ("rcount", True)},
    "reduce_scatter_block": {"sbuf": ("rcount", True), "rbuf": ("rcount", False)},
    "sendrecv": {"sbuf": ("scount", False), "rbuf": ("rcount", False)},
}


def mpi_tangents(work, calls, ctx):
    """Insert the tangents of the MPI calls `calls` of routine `work` after
    each.

    :param calls: the MPI calls of `work` on data derivatives flow through
        (communication, not passive routines).
    :param ctx: the routine's :class:`adfort.tangent.expression.TangentContext`.
    :returns: the statements ``r_fwd`` starts with (tangent requests set to
        ``MPI_REQUEST_NULL``).
    :raises AdfortError: at a call adfort cannot differentiate here.
    """
    kept = {}
    requests = _tangent_requests(work, calls, ctx)
    for call in calls:
        b = MpiBuilder(call, ctx, kept, ctx.tangent_symbol)
        block, position = call.parent, call.position
        for offset, stmt in enumerate(_call_tangent(b, requests)):
            block.addchild(stmt, position + 1 + offset)
    return _request_lifetimes(work, requests, ctx)


def _tangent_requests(work, calls, ctx):
    """{lower-case name: the tangent request variable} of the request
    variables of the non-blocking calls on real data."""
    found = {}
    for call in calls:
        which = mpi_call_rule(call)
        if which.kind not in NONBLOCKING_CALLS:
            continue
        buffer = call.arguments[which.positions("sbuf", "rbuf")[0]]
        if not is_real_buffer(buffer):
            continue
        location = where(call, ctx.filename)
        request = call.arguments[which.positions("request")[0]]
        if not is_variable(request):
            raise AdfortError(f"the request of this '{call.routine.name}' on real data is "
                              "not a variable", location)
        symbol = request.symbol
        name = symbol.name.lower()
        own = ctx.table.lookup(symbol.name, otherwise=None, scope_limit=ctx.table.node)
        if own is not symbol or not isinstance(symbol.interface, AutomaticInterface):
            raise AdfortError(
                f"the request '{request.debug_string()}' of this '{call.routine.name}' on "
                "real data is not a local variable of the routine (it is an argument, a "
                "module's or SAVE): its tangent message has a request of its own, which "
                "tangent mode declares next to it and waits for where the routine waits "
                "for the request; start and complete the communication in one call of "
                "one routine", location)
        if name not in found:
            found[name] = DataSymbol(
                naming.unique(ctx.table, naming.tangent_request(symbol.name), ctx.taken),
                symbol.datatype.copy(), interface=AutomaticInterface())
            ctx.table.add(found[name])
    _check_request_uses(work, calls, found, ctx)
    return found


def _check_request_uses(work, calls, requests, ctx):
    """Reject a call other than the tables' non-blocking calls and waits
    given a request with a tangent request (MPI_Test, MPI_Waitany, a
    routine of the user's…): it would complete the value message and leave
    the tangent one pending."""
    known = {id(c) for c in calls}
    for call in work.walk(Call):
        if isinstance(call, IntrinsicCall) or id(call) in known:
            continue
        for actual in call.arguments:
            if is_variable(actual) and actual.symbol.name.lower() in requests:
                raise AdfortError(
                    f"'{call.routine.name}' is given the request '{actual.debug_string()}' "
                    "of non-blocking communication of real data: its tangent message has "
                    "a request of its own, which tangent mode completes where MPI_Wait or "
                    "MPI_Waitall completes the request; complete it with those",
                    where(call, ctx.filename))


def _request_lifetimes(work, requests, ctx):
    """Tangent requests are MPI_REQUEST_NULL until used: set on entry, or,
    for an allocatable request array, where it is allocated (and released
    with it)."""
    entry = []
    null = Reference(ctx.table.lookup("MPI_REQUEST_NULL", otherwise=None)
                     or Symbol("MPI_REQUEST_NULL"))
    for name, tangent in sorted(requests.items()):
        if not getattr(tangent.datatype, "is_allocatable", False):
            entry.append(Assignment.create(Reference(tangent), null.copy()))
    for node in work.walk(IntrinsicCall):
        if node.intrinsic.name not in ("ALLOCATE", "DEALLOCATE"):
            continue
        targets = [a.symbol for a in allocation_arguments(node)
                   if isinstance(a, Reference) and a.symbol.name.lower() in requests]
        block, position = node.parent, node.parent.children.index(node)
        for symbol in targets:
            tangent = requests[symbol.name.lower()]
            if node.intrinsic.name == "DEALLOCATE":
                block.addchild(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [
                    Reference(tangent)]), position)
                position += 1
                continue
            for offset, stmt in enumerate([
                    IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                        Reference(tangent), ("mold", Reference(symbol))]),
                    Assignment.create(Reference(tangent), null.copy())]):
                block.addchild(stmt, position + 1 + offset)
    return entry


def _call_tangent(b, requests):
    """The statements after an MPI call: its tangent."""
    which, args = b.which, b.args
    if which.kind in WAITS:
        request = args["request" if which.kind == "wait" else "requests"]
        if not is_variable(request) or request.symbol.name.lower() not in requests:
            return []   # no tangent message was started on it
        return _same_call(b, requests)
    if not any(is_real_buffer(args[r]) for r in BUFFERS if r in args):
        return []       # integers, flags: not differentiated
    op = mpi_name(args.get("op"))
    if op in PAIR_OPERATIONS:
        return _pair_reduction(b)
    if op is not None and OPERATIONS.get(op) is not None:
        return _extremum(b, OPERATIONS[op])
    return _same_call(b, requests)


def _tangent_buffer(b, role, setup, cleanup):
    """The tangent to pass for the buffer of `role`: its own, MPI_IN_PLACE
    as it is, or, for a buffer carrying none (a constant), zeros in a
    scratch buffer of its elements (what it receives is dropped), set up by
    `setup` and released by `cleanup` (extended)."""
    actual = b.args[role]
    if mpi_name(actual) == "mpi_in_place":
        return actual.copy()
    tangent = b.derivative(actual)
    if tangent is not None:
        return tangent
    if b.which.kind in NONBLOCKING_CALLS:
        raise AdfortError(
            f"the real buffer '{actual.debug_string()}' of this '{b.call.routine.name}' "
            "carries no derivative: its tangent message would need a buffer of zeros "
            "living until the wait; copy it to a variable of the routine first",
            b.location)
    count, times_nproc = _EXTENTS.get(b.which.kind, {}).get(
        role, ("count" if "count" in b.args else "rcount", False))
    extent = b.args[count]
    pairs = mpi_name(b.args.get("type")) in PAIR_TYPES
    if not setup and not pairs:
        # The scratch buffer holds `count` values of the buffer's kind.
        setup += type_checks(b, b.args)
    if times_nproc:
        size, extent = b.nproc_times(extent)
        setup += size
    if pairs:
        extent = BinaryOperation.create(BinaryOperation.Operator.MUL, int_literal(2),
                                        extent.copy())
    zeros = b.scratch(actual)
    setup += b.allocate(zeros, extent)
    cleanup += b.deallocate(zeros)
    return Reference(zeros)


def _same_call(b, requests):
    """The call again, on the tangents: buffers by their tangents, requests
    by the tangent requests, wildcard sources and tags by those of the
    value's message; status and error arguments of its own."""
    setup, cleanup, actuals = [], [], []
    status = _status_for_wildcards(b)
    for role, actual in zip(b.which.roles, b.call.arguments):
        if role in BUFFERS:
            actuals.append(_tangent_buffer(b, role, setup, cleanup))
        elif role in ("request", "requests"):
            tangent = requests[actual.symbol.name.lower()]
            actuals.append(ArrayReference.create(tangent, [i.copy() for i in actual.indices])
                           if isinstance(actual, ArrayReference) else Reference(tangent))
        elif role == "status":
            actuals.append(b.const("MPI_STATUS_IGNORE"))
        elif role == "statuses":
            actuals.append(b.const("MPI_STATUSES_IGNORE"))
        elif role == "ierror":
            actuals.append(b.error())
        elif status is not None and _received_from(b.which, role) \
                and mpi_name(actual) in ("mpi_any_source", "mpi_any_tag"):
            field = "MPI_SOURCE" if role == "source" else "MPI_TAG"
            actuals.append(ArrayReference.create(status, [b.const(field)]))
        else:
            actuals.append(actual.copy())
    return setup + [b.mpi(b.call.routine.name, *actuals)] + cleanup


def _received_from(which, role):
    """Whether `role` names the source or tag of the message a call receives."""
    return role in ("source", "rtag") or (role == "tag" and which.kind == "recv")


def _status_for_wildcards(b):
    """The status array the tangent of a receive from a wildcard source or
    tag reads them in: the call's own, or a local one put in place of
    MPI_STATUS_IGNORE.  None without wildcards."""
    wildcards = [r for r, a in b.args.items() if _received_from(b.which, r)
                 and mpi_name(a) in ("mpi_any_source", "mpi_any_tag")]
    if not wildcards:
        return None
    status = b.args["status"]
    if mpi_name(status) == "mpi_status_ignore":
        size = b.const("MPI_STATUS_SIZE")
        local = DataSymbol(naming.unique(b.ctx.table, naming.MPI_STATUS, b.ctx.taken),
                           ArrayType(INTEGER_TYPE, [size]), interface=AutomaticInterface())
        b.ctx.table.add(local)
        status.replace_with(Reference(local))
        b.args["status"] = b.call.arguments[b.which.roles.index("status")]
        return local
    if type(status) is not Reference:
        raise AdfortError(
            f"'{b.call.routine.name}' receives real data from "
            f"{', '.join(b.args[r].debug_string().upper() for r in wildcards)} into the "
            f"status '{status.debug_string()}': the tangent message is received from the "
            "rank and with the tag the status names; pass a whole status array "
            "(integer :: status(MPI_STATUS_SIZE)) or MPI_STATUS_IGNORE", b.location)
    return status.symbol


def _copy_of(b, buffer, into, count, dtype):
    """`into` (a zero scratch buffer) += the `count` elements of `buffer`
    MPI sees: a copy, whatever form the buffer is passed in."""
    if buffer is None:
        return []   # carries no tangent: the zeros stay
    return [b.mpi("MPI_Reduce_local", buffer, Reference(into), count.copy(), dtype.copy(),
                  b.const("MPI_SUM"), b.error())]


def _sum_to_result(b, scratch, count, dtype, cleanup):
    """The reduction (SUM) of `scratch` into the result's tangent, to every
    rank (MPI_Allreduce) or to the root (MPI_Reduce)."""
    setup = []
    result = _tangent_buffer(b, "rbuf", setup, cleanup)
    if b.which.kind == "allreduce":
        return setup + [b.mpi("MPI_Allreduce", Reference(scratch), result, count.copy(),
                              dtype.copy(), b.const("MPI_SUM"), b.arg("comm"), b.error())]
    return setup + [b.mpi("MPI_Reduce", Reference(scratch), result, count.copy(),
                          dtype.copy(), b.const("MPI_SUM"), b.arg("root"), b.arg("comm"),
                          b.error())]


def _extremum(b, locator):
    """MPI_MAX/MPI_MIN: the sum over ranks of the tangents, each zeroed
    where the rank does not own the extremum."""
    args = b.args
    count, dtype = args["count"], args["type"]
    mine = b.scratch(args["sbuf"])
    cleanup = b.deallocate(mine)
    out = (b.allocate(mine, count)
           + _copy_of(b, b.derivative(args["sbuf"]), mine, count, dtype)
           + owner_only(b, mine, args["sbuf"], count, dtype, locator))
    out[0].preceding_comment = (f"tangent of the {mpi_name(args['op']).upper()}: each "
                                "element's from the rank owning the extremum")
    return out + _sum_to_result(b, mine, count, dtype, cleanup) + cleanup


def _pair_reduction(b):
    """MPI_MAXLOC/MPI_MINLOC on (value, index) pairs (in MPI_Allreduce
    alone: every rank compares its pairs with the result): the tangent of
    each resulting pair is that of the lowest rank whose pair is the
    result's."""
    args = b.args
    count = args["count"]
    member = b.const(PAIR_TYPES[mpi_name(args["type"])])
    two = int_literal(2)
    members = BinaryOperation.create(BinaryOperation.Operator.MUL, two.copy(), count.copy())
    tangent, mine, result = (b.scratch(args["sbuf"], rank=2) for _ in range(3))
    owner = _owner_array(b)
    rank = b.integer("rank", naming.MPI_RANK)
    size = b.integer("size", naming.MPI_SIZE)
    index = b.integer("index", naming.MPI_INDEX)
    kind = real_kind(Reference(tangent))

    def pair(symbol, member_index):
        return ArrayReference.create(symbol, [int_literal(member_index), index.copy()])

    same = BinaryOperation.create(BinaryOperation.Operator.AND, *[
        BinaryOperation.create(BinaryOperation.Operator.EQ, pair(mine, m), pair(result, m))
        for m in (1, 2)])
    claim = Loop.create(index.symbol, int_literal(1), count.copy(), int_literal(1), [
        IfBlock.create(same, [Assignment.create(
            ArrayReference.create(owner, [index.copy()]), rank.copy())], [
            Assignment.create(ArrayReference.create(owner, [index.copy()]), size.copy())])])
    not_owner = BinaryOperation.create(BinaryOperation.Operator.NE, ArrayReference.create(
        owner, [index.copy()]), rank.copy())
    clear = Loop.create(index.symbol, int_literal(1), count.copy(), int_literal(1), [
        IfBlock.create(not_owner, [Assignment.create(pair(tangent, m), real_literal(0, kind))
                                   for m in (1, 2)])])
    allocations = [IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
        ArrayReference.create(s, [two.copy(), count.copy()])]) for s in (tangent, mine, result)]
    zeros = [Assignment.create(Reference(s), real_literal(0, kind))
             for s in (tangent, mine, result)]
    cleanup = b.deallocate(tangent, mine, result, owner)
    out = (allocations + zeros
           + _copy_of(b, b.derivative(args["sbuf"]), tangent, members, member)
           + _copy_of(b, args["sbuf"].copy(), mine, members, member)
           + _copy_of(b, args["rbuf"].copy(), result, members, member)
           + [IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                 ArrayReference.create(owner, [count.copy()])]),
              b.mpi("MPI_Comm_rank", b.arg("comm"), rank.copy(), b.error()),
              b.mpi("MPI_Comm_size", b.arg("comm"), size.copy(), b.error()),
              claim,
              # Ties (equal pairs on several ranks) go to the lowest rank.
              b.mpi("MPI_Allreduce", b.const("MPI_IN_PLACE"), Reference(owner), count.copy(),
                    b.const("MPI_INTEGER"), b.const("MPI_MIN"), b.arg("comm"), b.error()),
              clear])
    out[0].preceding_comment = (f"tangent of the {mpi_name(args['op']).upper()}: each "
                                "pair's from the lowest rank holding the resulting pair")
    return out + _sum_to_result(b, tangent, members, member, cleanup) + cleanup


def _owner_array(b):
    """A local allocatable integer array (the owner of each element)."""
    symbol = DataSymbol(naming.unique(b.ctx.table, naming.MPI_OWNER, b.ctx.taken),
                        ArrayType(INTEGER_TYPE, [ArrayType.Extent.DEFERRED]),
                        interface=AutomaticInterface())
    b.ctx.table.add(symbol)
    return symbol


def communication_calls(work, communicating, is_passive):
    """The calls of `work` to MPI routines of the table that communicate
    (not passive ones, nor those the user declared passive), when
    derivatives flow through communication."""
    if not communicating:
        return []
    found = []
    for call in work.walk(Call):
        if isinstance(call, IntrinsicCall) or not is_mpi_name(call.routine.name):
            continue
        which = mpi_call_rule(call)
        if which is not None and not which.passive and not is_passive(call.routine.name):
            found.append(call)
    return found
