"""Callees reversed split whatever the schedule, because their recording
tapes nothing.

Under the joint schedule a callee advances while its caller records and is
reversed whole (``f_rev``: its forward computation once more, then its
adjoint) while the caller returns: that trades the callee's tape for a
second forward run.  When the callee's recording motion ``f_rec`` pushes
nothing (its adjoint reads only values it still has at its end: a linear
stencil step, a function whose result is its costly value), there is no
tape to trade: the split reversal (``f_rec`` forward, ``f_ret`` backward)
runs the callee forward once, not twice, and its ``f_ret`` reads the
arguments as the call left them, as ``f_rev`` reads them as they were
before it.  The caller keeps, in either case, the values the callee's
reversal reads (the shallow-water step: the velocities it sets, joint
saving its inputs besides).

A link the user names (``--link``, a directive) keeps what was asked; so
do callees of programs that communicate (MPI), whose joint reversal pairs
its messages itself.
"""

from psyclone.psyir.nodes import Call, Literal, Reference

from adfort import naming
from adfort.program import user_calls
from adfort.tape import every_name


def records_tape(motions, split_callees, tapeless):
    """Whether a routine's recording motion pushes anything: its own
    statements name a tape, or it runs the recording motion of a callee
    (a split link) that does.

    :param motions: its :class:`RoutineMotions`.
    :param split_callees: the units it calls through split links.
    :param tapeless: {id(unit): whether its recording tapes nothing} of
        the routines generated before.
    """
    names = set().union(*(every_name(t) for t in motions.tapes))
    if names:
        for ref in motions.recording.walk(Reference):
            if ref.symbol.name.lower() in names and not _reserves_nothing(ref):
                return True
    return not all(tapeless.get(id(callee), False) for callee in split_callees)


def _reserves_nothing(ref):
    """Whether `ref` names a reserve of room for nothing (``call
    value_tape_reserve(0)``, which allocates the tape at most)."""
    call = ref.parent
    return (isinstance(call, Call) and ref is call.routine
            and call.routine.name.endswith(naming.TAPE_RESERVE_SUFFIX)
            and len(call.arguments) == 1 and isinstance(call.arguments[0], Literal)
            and call.arguments[0].value == "0")


def needs_no_run(info):
    """Whether a split callee's reversal needs no run of its recording: it
    pushes nothing, and its returning motion reads no value the callee
    sets nor puts any back (a flux routine whose adjoint computes its
    intermediate values again from its inputs).  A caller's joint re-run
    then leaves the call out, as it leaves out a joint callee whose results
    no adjoint reads (:mod:`adfort.rerun`).

    :param info: the callee's :class:`CalleeMotions`.
    """
    if not info.tapeless or info.exit_reads is None:
        return False
    unit = info.unit
    written = {f.name.lower() for f in unit.formals if unit.writes_formal(f)}
    if unit.result is not None:
        written.add(unit.result.name.lower())
    return not written & (set(info.exit_reads) | info.restores)


def tapeless_links(unit, chosen, schedule, tapeless, top, callees):
    """(caller, callee) names of `unit`'s joint links to callees whose
    recording tapes nothing, which the user did not name.

    Where the caller is itself run again by a joint reversal (it is not
    the top routine), a call whose reversal reads what the callee computes
    would have to run forward there as well, where a joint one may be left
    out (:mod:`adfort.rerun`): only callees whose reversal needs no run
    (:func:`needs_no_run`) are taken then.

    :param top: the routine differentiated.
    :param callees: {id(unit): its :class:`CalleeMotions`} of the routines
        generated before.
    """
    links = set()
    for call in user_calls(unit.work):
        callee = unit.calls.get(id(call))
        if callee is None or callee not in chosen or getattr(callee, "opaque", False) \
                or not tapeless.get(id(callee), False):
            continue
        if unit is not top and not needs_no_run(callees[id(callee)]):
            continue
        if schedule.is_split(unit.name, callee.name) or schedule.names(unit.name, callee.name):
            continue
        links.add((unit.name, callee.name))
    return links
