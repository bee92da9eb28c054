"""The MPI routines adfort knows, in one table: what each argument is and
how the call is differentiated, in reverse mode and in tangent mode.

MPI routines have no source adfort can read.  A routine of the table is
either *passive* (``MPI_Comm_rank``, ``MPI_Barrier``, ``MPI_Wtime``…:
kept as it is) or a *communication* of a kind (:data:`KINDS`) whose
adjoint (:mod:`adfort.transformations.mpi`) and tangent
(:mod:`adfort.tangent.mpi`) adfort generates in plain Fortran calling the
same library.  :data:`KINDS` says, for each kind, what the generated code
does; a kind without one of them is rejected in that mode.

Any other MPI routine given real data while derivatives flow through
communication is an error: adfort cannot differentiate it.

Each argument has a role: ``sbuf``/``rbuf`` (send/receive buffer),
``buf`` (both, as MPI_Bcast's), ``scount``/``rcount``/``count``,
``stype``/``rtype``/``type`` (datatypes), ``dest``, ``source``, ``root``,
``stag``/``rtag``/``tag``, ``comm``, ``op``, ``request``, ``requests``,
``n`` (of requests), ``status``, ``statuses``, ``ierror``, and for passive
routines ``in``/``out``.
"""

import os

#: Roles of arguments that hold communicated data.
BUFFERS = ("sbuf", "rbuf", "buf")
#: Roles the call writes.
OUTPUTS = ("rbuf", "buf", "request", "requests", "status", "statuses", "ierror", "out")

_P2P_SEND = ("sbuf", "count", "type", "dest", "tag", "comm", "ierror")
_ISEND = ("sbuf", "count", "type", "dest", "tag", "comm", "request", "ierror")


class MpiRule:
    """How adfort treats one MPI routine.

    :param kind: ``"passive"`` or the communication it is (``"send"``,
        ``"recv"``, ``"sendrecv"``, ``"sendrecv_replace"``, ``"isend"``,
        ``"irecv"``, ``"wait"``, ``"waitall"``, ``"allreduce"``,
        ``"reduce"``, ``"bcast"``, ``"gather"``, ``"scatter"``,
        ``"allgather"``…: :data:`KINDS`).
    :param roles: the role of each argument, in order.
    """

    def __init__(self, kind, roles):
        self.kind = kind
        self.roles = tuple(roles)

    @property
    def passive(self):
        return self.kind == "passive"

    @property
    def differentiation(self):
        """The :class:`Kind` of a communication (None for a passive routine)."""
        return KINDS.get(self.kind)

    def positions(self, *roles):
        """Positions of the arguments with one of `roles`."""
        return [p for p, role in enumerate(self.roles) if role in roles]


class Kind:
    """How one kind of communication is differentiated.

    :param adjoint: what its adjoint does (None: reverse mode rejects it).
    :param tangent: what its tangent does (None: tangent mode rejects it).
    :param operations: the reduction operations (lower-case constants)
        each mode differentiates, {"adjoint": (…), "tangent": (…)}, for
        the kinds taking one.
    """

    def __init__(self, adjoint, tangent, operations=None):
        self.adjoint = adjoint
        self.tangent = tangent
        self.operations = dict(operations or {})


_SAME = ("the same call on the tangents, after the call (a buffer carrying no tangent "
         "sends zeros)")
_EXTREMA = ("mpi_sum", "mpi_max", "mpi_min")

#: Kind of communication -> :class:`Kind`: the differentiation rules of
#: both modes, side by side.  "Owner" of an element of an MPI_MAX/MPI_MIN
#: reduction: the lowest rank holding the extremum, found by
#: MPI_MAXLOC/MPI_MINLOC on (value, rank) pairs.
KINDS = {
    "send": Kind("receive the adjoint from dest, add it to the send buffer's adjoint",
                 _SAME),
    "recv": Kind("send the buffer's adjoint to source, zero it",
                 "the same receive into the tangent; from MPI_ANY_SOURCE or with "
                 "MPI_ANY_TAG, from the rank and with the tag of the value received "
                 "(read in its status)"),
    "sendrecv": Kind("both, the send of the adjoint first",
                     "the same call on the tangents, the source and tag as for recv"),
    "sendrecv_replace": Kind("both, the send of the adjoint first",
                             "the same call on the tangent, the source and tag as for "
                             "recv"),
    "isend": Kind("the wait starts the receive of the adjoint (MPI_Irecv), the isend waits "
                  "for it and adds it to the send buffer's adjoint",
                  "the same call on the tangent with a request of its own, "
                  "<request>_d (MPI_REQUEST_NULL until then)"),
    "irecv": Kind("the wait starts the send of the buffer's adjoint (MPI_Isend), the irecv "
                  "waits for it and zeroes the adjoint",
                  "the same call on the tangent with a request of its own, "
                  "<request>_d (MPI_REQUEST_NULL until then)"),
    "wait": Kind("starts the reversed communication of the calls it completes",
                 "waits for the tangent request <request>_d too"),
    "waitall": Kind("starts the reversed communication of the calls it completes",
                    "waits for the tangent requests <requests>_d too"),
    "allreduce": Kind("SUM: allreduce (SUM) of the result's adjoint, added to the send "
                      "buffer's; MAX, MIN: the same, to the owner of each element alone",
                      "SUM: the same call on the tangents; MAX, MIN: allreduce (SUM) of "
                      "the tangents, each rank's zeroed where it does not own the element; "
                      "MAXLOC, MINLOC (pair types): likewise, the owner being the lowest "
                      "rank whose pair is the result's",
                      {"adjoint": _EXTREMA,
                       "tangent": _EXTREMA + ("mpi_maxloc", "mpi_minloc")}),
    "reduce": Kind("SUM: broadcast of the root's result adjoint, added to the send "
                   "buffer's; MAX, MIN: the same, to the owner of each element alone",
                   "SUM: the same call on the tangents; MAX, MIN: reduce (SUM) of the "
                   "tangents to the root, each rank's zeroed where it does not own the "
                   "element",
                   {"adjoint": _EXTREMA, "tangent": _EXTREMA}),
    "bcast": Kind("reduce (SUM) of the adjoints to the root, zeroed elsewhere", _SAME),
    "gather": Kind("scatter of the adjoints, added to the send buffer's", _SAME),
    "scatter": Kind("gather of the adjoints, added to the send buffer's", _SAME),
    "allgather": Kind("reduce-scatter (MPI_Reduce_scatter_block, SUM) of the adjoints",
                      _SAME),
    "reduce_scatter_block": Kind(
        "SUM: allgather of the result's adjoints, added to the send buffer's",
        "SUM: the same call on the tangents",
        {"adjoint": ("mpi_sum",), "tangent": ("mpi_sum",)}),
    "reduce_local": Kind(
        "SUM: the in-out buffer's adjoint added to the in buffer's (MPI_Reduce_local)",
        "SUM: the same call on the tangents",
        {"adjoint": ("mpi_sum",), "tangent": ("mpi_sum",)}),
}


def _passive(*roles):
    return MpiRule("passive", roles)


#: Lower-case routine name -> MpiRule.
RULES = {
    # Point-to-point: every send mode has the same adjoint.
    "mpi_send": MpiRule("send", _P2P_SEND),
    "mpi_ssend": MpiRule("send", _P2P_SEND),
    "mpi_bsend": MpiRule("send", _P2P_SEND),
    "mpi_rsend": MpiRule("send", _P2P_SEND),
    "mpi_recv": MpiRule("recv", ("rbuf", "count", "type", "source", "tag", "comm",
                                 "status", "ierror")),
    "mpi_sendrecv": MpiRule("sendrecv", (
        "sbuf", "scount", "stype", "dest", "stag", "rbuf", "rcount", "rtype", "source",
        "rtag", "comm", "status", "ierror")),
    "mpi_sendrecv_replace": MpiRule("sendrecv_replace", (
        "buf", "count", "type", "dest", "stag", "source", "rtag", "comm", "status",
        "ierror")),
    "mpi_isend": MpiRule("isend", _ISEND),
    "mpi_issend": MpiRule("isend", _ISEND),
    "mpi_irecv": MpiRule("irecv", ("rbuf", "count", "type", "source", "tag", "comm",
                                   "request", "ierror")),
    "mpi_wait": MpiRule("wait", ("request", "status", "ierror")),
    "mpi_waitall": MpiRule("waitall", ("n", "requests", "statuses", "ierror")),
    # Collectives, and the local reduction adjoints add with.
    "mpi_allreduce": MpiRule("allreduce", ("sbuf", "rbuf", "count", "type", "op", "comm",
                                           "ierror")),
    "mpi_reduce": MpiRule("reduce", ("sbuf", "rbuf", "count", "type", "op", "root", "comm",
                                     "ierror")),
    "mpi_bcast": MpiRule("bcast", ("buf", "count", "type", "root", "comm", "ierror")),
    "mpi_gather": MpiRule("gather", ("sbuf", "scount", "stype", "rbuf", "rcount", "rtype",
                                     "root", "comm", "ierror")),
    "mpi_scatter": MpiRule("scatter", ("sbuf", "scount", "stype", "rbuf", "rcount",
                                       "rtype", "root", "comm", "ierror")),
    "mpi_allgather": MpiRule("allgather", ("sbuf", "scount", "stype", "rbuf", "rcount",
                                           "rtype", "comm", "ierror")),
    "mpi_reduce_scatter_block": MpiRule("reduce_scatter_block", (
        "sbuf", "rbuf", "rcount", "type", "op", "comm", "ierror")),
    "mpi_reduce_local": MpiRule("reduce_local", ("sbuf", "buf", "count", "type", "op",
                                                 "ierror")),
    # Passive: set-up, queries, synchronisation, timing.
    "mpi_init": _passive("out"),
    "mpi_init_thread": _passive("in", "out", "out"),
    "mpi_finalize": _passive("out"),
    "mpi_initialized": _passive("out", "out"),
    "mpi_finalized": _passive("out", "out"),
    "mpi_abort": _passive("in", "in", "out"),
    "mpi_comm_rank": _passive("in", "out", "out"),
    "mpi_comm_size": _passive("in", "out", "out"),
    "mpi_comm_dup": _passive("in", "out", "out"),
    "mpi_comm_split": _passive("in", "in", "in", "out", "out"),
    "mpi_comm_free": _passive("out", "out"),
    "mpi_barrier": _passive("in", "out"),
    "mpi_wtime": _passive(),
    "mpi_wtick": _passive(),
    "mpi_get_processor_name": _passive("out", "out", "out"),
    "mpi_dims_create": _passive("in", "in", "out", "out"),
    "mpi_cart_create": _passive("in", "in", "in", "in", "in", "out", "out"),
    "mpi_cart_shift": _passive("in", "in", "in", "out", "out", "out"),
    "mpi_cart_coords": _passive("in", "in", "in", "out", "out"),
    "mpi_cart_rank": _passive("in", "in", "out", "out"),
    "mpi_get_count": _passive("in", "in", "out", "out"),
    "mpi_type_size": _passive("in", "out", "out"),
    "mpi_type_contiguous": _passive("in", "in", "out", "out"),
    "mpi_type_vector": _passive("in", "in", "in", "in", "out", "out"),
    "mpi_type_commit": _passive("in", "out"),
    "mpi_type_free": _passive("out", "out"),
}

#: Routines freeing a handle: the returning motion reverses the
#: communication after the routine has run, with the same handles.
FREES = ("mpi_comm_free", "mpi_type_free")

#: MPI datatype constants of real values, and the pair type MPI_MAXLOC and
#: MPI_MINLOC take for each.
REAL_TYPES = {
    "mpi_double_precision": "MPI_2DOUBLE_PRECISION",
    "mpi_real8": "MPI_2DOUBLE_PRECISION",
    "mpi_real": "MPI_2REAL",
    "mpi_real4": "MPI_2REAL",
}

#: MPI datatype constants of other values: given with real buffers, the
#: call is not reversible (or not what the program meant).
OTHER_TYPES = ("mpi_integer", "mpi_integer1", "mpi_integer2", "mpi_integer4",
               "mpi_integer8", "mpi_logical", "mpi_character", "mpi_byte", "mpi_packed",
               "mpi_complex", "mpi_double_complex", "mpi_2real", "mpi_2double_precision",
               "mpi_2integer", "mpi_real16")

#: Reduction operations on real values, and the owner-finding operation of
#: the extrema (which operations each kind differentiates: :data:`KINDS`).
OPERATIONS = {"mpi_sum": None, "mpi_max": "MPI_MAXLOC", "mpi_min": "MPI_MINLOC"}

#: Operations on (value, index) pairs, MPI_MAXLOC and MPI_MINLOC, and the
#: pair types they take with the type of each member.
PAIR_OPERATIONS = ("mpi_maxloc", "mpi_minloc")
PAIR_TYPES = {"mpi_2double_precision": "MPI_DOUBLE_PRECISION", "mpi_2real": "MPI_REAL"}

#: Modules that are MPI (the generated code uses them as the original did).
MODULES = ("mpi",)

#: One-sided communication: memory of another rank read or written with no
#: matching call there.
ONE_SIDED = ("mpi_put", "mpi_get", "mpi_accumulate", "mpi_get_accumulate",
             "mpi_fetch_and_op", "mpi_compare_and_swap", "mpi_rput", "mpi_rget",
             "mpi_win_create", "mpi_win_allocate", "mpi_win_attach")

#: Where adfort's description of the ``mpi`` module (its constants) lives.
STUB_DIRECTORY = os.path.join(os.path.dirname(__file__), "mpi_stub")


def is_mpi_name(name):
    """Whether `name` is an MPI routine's (the ``MPI_`` prefix is the
    library's, reserved by the standard)."""
    return name.lower().startswith(("mpi_", "pmpi_"))


def rule(name):
    """The :class:`MpiRule` of MPI routine `name`, or None when adfort does
    not know it."""
    return RULES.get(name.lower())


def stub_module(name):
    """The file describing MPI module `name` to adfort, or None."""
    if name.lower() in MODULES:
        return os.path.join(STUB_DIRECTORY, f"{name.lower()}.f90")
    return None


def arguments(call, which):
    """{role: actual} of an MPI call under MpiRule `which`."""
    return {role: actual for role, actual in zip(which.roles, call.arguments)}
