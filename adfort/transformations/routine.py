"""Reverse-mode differentiation of one routine: its four motions.

The advancing motion is the original routine.  From a working copy of it
this builds the recording motion ``r_rec`` (the original statements, each
overwrite preceded by a push of the value the returning motion will need),
the returning motion ``r_ret`` (statements' adjoints in reverse order, each
preceded by the restore of the value its statement overwrote) and the
reversing motion ``r_rev`` (record, then return), plus ``r_jacobian`` on
request.
"""


from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, IntrinsicCall, Loop, Reference, Routine, Statement,
    WhileLoop)
from psyclone.psyir.symbols import (
    ArgumentInterface, ArrayType, CommonBlockInterface, ScalarType)

from adfort import naming
from adfort.exprs import INTEGER_TYPE
from adfort.symbols import new_local
from adfort.activity import active_variables, is_real
from adfort.arrays import expr_rank, is_shape_inquiry, symbol_rank
from adfort.context import ADContext
from adfort.pointers import aliases, canonical, target_reads
from adfort.components import held_in_allocatable_components
from adfort.derived import _leaves, is_derived
from adfort.errors import AdfortError, where
from adfort.forward_only import kept_statement_writes
from adfort.optional import optional_names
from adfort.normalise import (
    deallocate_at_end, hoist_self_subscripts, initialise_intent_out, normalise_jumps)
from adfort.reserves import drop_covered_reserves
from adfort.tape import TapeSet, every_name, tidy_reserves, written_names
from adfort.recompute import candidates, choose, loop_candidates
from adfort.taping import plan_taping, restored_on_return
from adfort.reach import written_section
from adfort.fresh_elements import fresh_element_writes
from adfort.handover import arrays_computed_again, computed_again
from adfort.joint_restores import dead_restores
from adfort.iteration_values import pushed_per_iteration, strip_pushed
from adfort.iterations import (
    cheap_function, keep_needed, recomputed_in_loops, strip_conditions, strip_reads)
from adfort.entry_copies import entry_copies
from adfort.final_writes import direct_final_writes, without_pops
from adfort.deferral import (
    kept_results, tag_deferred, with_deferred_reversed, without_deferred, writes_any)
from adfort.iteration_reversal import (
    fuse_iterations, independent_last_loop, taped_arguments)
from adfort.late_values import late_recomputed, strip_late
from adfort.liveness import drop_idle_reserves, lean_recording
from adfort.popped_at_once import keep_popped_at_once
from adfort.rerun import not_rerun
from adfort.shadows import rename_shadowing_locals
from adfort.stored_values import store_costly_values
from adfort.tapeless import needs_no_run
from adfort.transformations.returning import (
    allocate_at_first_use, computed_again_call, excluding, returning_given, returning_statements)
from adfort.transformations.assignment import assignment_adjoint
from adfort.transformations.allocation import is_allocation, status_variables
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.reverser import (
    Reverser, drop_not_rerun, enclosing_loop_indices, whole_saves)
from adfort.transformations.building import _argument_symbols, _make_routine
from adfort.extents import extent_argument, is_assumed_size, measure, measured_arguments
from adfort.transformations.reversing import _copy, _int, _jacobian, _local_copy, _reversing
from adfort.transformations.motions import RoutineMotions, UnitSpec  # noqa: F401 (API)

_IN = ArgumentInterface.Access.READ
_OUT = ArgumentInterface.Access.WRITE
_INOUT = ArgumentInterface.Access.READWRITE


def adjoint_reads(assign, adjoint, ctx):
    """Lower-case names of the primal variables the returning motion reads
    for `assign`: in its adjoint statements and in the indices a restore of
    its target uses.  Indices of enclosing loops are set by the reversed
    loops themselves, so they are not counted."""
    names = set()
    for stmt in adjoint:
        for ref in stmt.walk(Reference):
            if not ctx.is_adjoint_or_temporary(ref.symbol) and not is_shape_inquiry(ref):
                names.add(ref.symbol.name.lower())
    if isinstance(assign.lhs, ArrayReference):
        for index in assign.lhs.indices:
            # (The bounds of a(:, j): no value of a, which a's own
            # shape keeps.)
            names |= {r.symbol.name.lower() for r in index.walk(Reference)
                      if not is_shape_inquiry(r)}
    return names - enclosing_loop_indices(assign)


def prepare(routine, taken=()):
    """A working copy of `routine`, with jumps, implicit deallocations and
    default initialisations made explicit."""
    work = routine.copy()
    rename_shadowing_locals(work, taken)
    normalise_jumps(work, taken)
    hoist_self_subscripts(work, taken)
    deallocate_at_end(work)
    initialise_intent_out(work, taken)
    return work


def reverse_routine(routine, dependents, independents, options, names, filename=None):
    """Generate the motions of `routine`, differentiated on its own.

    :param routine: the PSyIR Routine (not modified).
    :param dependents: names of dependent arguments, in order.
    :param independents: names of independent arguments, in order.
    :param options: checked options (see :mod:`adfort.context`).
    :param names: dict with the names to give ``rec``, ``ret``, ``rev``,
        ``jacobian`` and ``taken`` (names visible in the output scope).
    :param filename: the source file, for messages.
    :rtype: :class:`RoutineMotions`
    """
    work = prepare(routine, names.get("taken", ()))
    return reverse_work(work, UnitSpec(dependents, independents), options, names, filename)


def reverse_work(work, spec, options, names, filename=None):
    """Generate the motions of the prepared working copy `work`.

    :param spec: a :class:`UnitSpec`.
    :rtype: :class:`RoutineMotions`
    """
    table = work.symbol_table
    taken = set(names.get("taken", ()))
    result = work.return_symbol
    arguments = _argument_symbols(table)
    if result is not None:
        arguments.append(result)  # a function's motions are subroutines
    arg_names = [a.name.lower() for a in arguments]
    dep, indep = spec.dependents, spec.independents
    active = spec.active if spec.active is not None else active_variables(work, dep, indep)
    ctx = ADContext(table, active, options, taken, filename, spec.types)
    ctx.adjoints.update(spec.module_adjoints)
    ctx.module_adjoints = set(spec.module_adjoints)
    ctx.module_variable = spec.module_variable
    # The adjoint of a target is a target, of a pointer a pointer.
    ctx.attributes = dict(spec.attributes)
    ctx.attributes.update({ctx.adjoints[n].name.lower(): a for n, a in spec.attributes.items()
                           if n in ctx.adjoints})

    assignments = work.walk(Assignment)
    adjoints = {id(a): assignment_adjoint(a, ctx) for a in assignments
                if id(a.rhs) not in spec.calls}
    if store_costly_values(work, adjoints, table, taken):
        assignments = work.walk(Assignment)
    reads = {id(a): adjoint_reads(a, adjoints[id(a)], ctx) for a in assignments
             if id(a) in adjoints}
    for a in assignments:
        if a.is_pointer:  # re-associated from its subscripts while returning
            reads[id(a)] = target_reads(a) - enclosing_loop_indices(a)
    call_writes = {}
    for key, (read, wrote) in spec.call_io.items():
        reads[key] = set(read)
        call_writes[key] = set(wrote)
    # Values read or written through a pointer are its target's.
    alias = aliases(work)
    reads = {key: {canonical(n, alias) for n in names} for key, names in reads.items()}
    call_writes = {key: {canonical(n, alias) for n in names}
                   for key, names in call_writes.items()}
    # I/O statements (kept in the recording motion only) may overwrite
    # variables too (READ, internal WRITE, IOSTAT=): taped like a call's.
    kept_writes = kept_statement_writes(work)
    all_writes = {**call_writes, **kept_writes}
    written = {canonical(a.lhs.symbol.name.lower(), alias) for a in assignments
               if not a.is_pointer} | \
        {loop.variable.name.lower() for loop in work.walk(Loop)}
    for wrote in list(call_writes.values()) + list(kept_writes.values()):
        written |= wrote
    for node in work.walk(IntrinsicCall):
        if is_allocation(node):
            written |= status_variables(node)   # ALLOCATE(…, stat=ierr) sets ierr
    # Allocatable locals are handed over by their (explicit) deallocation.
    allocatables = {sym.name.lower() for sym in table.datasymbols
                    if getattr(sym.datatype, "is_allocatable", False)
                    or held_in_allocatable_components(sym.datatype)}
    # The routine's own variables: not those seen through a use (unresolved
    # symbols of a wildcard import) or shared in COMMON.
    own = {sym.name.lower() for sym in table.datasymbols
           if not sym.is_import and not sym.is_unresolved
           and not isinstance(sym.interface, CommonBlockInterface)}
    # Index arithmetic of each iteration is computed again while returning.
    # Calls to short functions (a limiter) are computed again like formulas.
    cheap_calls = frozenset(key for key, info in spec.calls.items()
                            if info is not None and not info.opaque
                            and cheap_function(info.unit))
    fresh = fresh_element_writes(work, alias, set(ctx.attributes))
    recomputed = recomputed_in_loops(work, alias, call_writes, cheap_calls, fresh,
                                     spec.module_constant)
    recomputed = {key: (names, [s.copy() for s in stmts])
                  for key, (names, stmts) in recomputed.items()}
    conditions = candidates(work, alias)
    conditions.update(loop_candidates(work, alias, all_writes))
    # What each adjoint reads, before what is computed again or pushed per
    # iteration stands in for it (the re-run below keeps both).
    reads_all = {key: set(names_) for key, names_ in reads.items()}
    recomputed = keep_needed(recomputed, reads, conditions, work, cheap_calls)
    reads = strip_reads(reads, work, recomputed, cheap_calls)
    conditions = strip_conditions(conditions, work, recomputed, cheap_calls)
    # Cheap scalars of an iteration whose inputs it changes later: computed
    # again where their last reader is reversed.
    late_before, late = late_recomputed(work, recomputed, reads, conditions, alias, all_writes)
    reads, conditions = strip_late(reads, conditions, work, late, recomputed, cheap_calls)
    # Scalars each iteration sets and reads: pushed once per iteration.
    pushed = pushed_per_iteration(work, recomputed, reads, conditions, alias, all_writes)
    reads, conditions = strip_pushed(reads, conditions, work, pushed)
    # A callee puts back what it assigns in its assumed-size dummies
    # (BLAS's dy(*)): a caller giving it an element of an array cannot save
    # "the rest of the array" around the call (adfort.extents).
    entry_reads = {a.name.lower() for a in arguments if spec.callee and a is not result
                   and is_assumed_size(a) and a.name.lower() in written}
    # What the sections saved around calls may read: the arguments the
    # routine never changes (its returning motion gets them as they were).
    unchanged = {a.name.lower() for a in arguments if a is not result} - written

    def fixed(name):
        return name in unchanged
    whole = whole_saves(work.children, spec.calls, spec.call_sequences, call_writes, fixed)

    def replan(reevaluate, skipped=()):
        return plan_taping(
            work.children, reads, (written & own) - set(arg_names) - allocatables,
            all_writes, alias, reevaluate, spec.call_restores,
            spec.call_reads_after, fresh, entry_reads, skipped, whole)
    plan = choose(conditions, replan)

    module_constant = spec.module_constant
    # Local arrays one loop sets from values later statements change (the
    # slopes of the state a step then updates): computed again where the
    # returning motion has those values back, not handed over.
    late_arrays, late_loops = set(), {}
    if plan.finals and not alias:
        again_now, _ = computed_again(work, plan.finals, written, all_writes, alias,
                                      module_constant, cheap_calls, arg_names)
        found, placed, instead = arrays_computed_again(
            work, plan.finals, again_now, written, all_writes, alias,
            module_constant, reads={**reads, **plan.reevaluate})
        if found:
            before = (reads, plan)
            reevaluate = {key: instead.get(key, names_) for key, names_ in plan.reevaluate.items()}
            reads = {key: instead.get(key, names_) for key, names_ in reads.items()}
            plan = replan(reevaluate)
            if found & set(plan.finals):
                reads, plan = before   # read elsewhere too: hand them over
            else:
                late_arrays, late_loops = found, _renamed_scalars(placed, table, taken)
    # Statements f_rev's re-run leaves out (adjoint liveness, adfort.rerun).
    dead, rerun_exit_reads = set(), set()
    # Results f_rev delivers too, for a caller that defers the call.
    outputs = {a.name.lower() for a in arguments
               if spec.callee and spec.rev_outputs and a is not result
               and a.interface.access in (_OUT, _INOUT) and a.name.lower() in written}
    if spec.callee and not alias and not kept_writes:
        dead, rerun_exit_reads = _not_rerun(work, spec, reads, reads_all, call_writes, plan,
                                            lambda skipped: replan(plan.reevaluate, skipped),
                                            outputs)
    # Before reversing (which takes statements out of `work`).
    formals = [a for a in arg_names if result is None or a != result.name.lower()]
    # Module and COMMON variables it writes count as its arguments do: a
    # caller linking it split need not save those it puts back.
    shared_written = sorted(written - own - set(arg_names) - {
        loop.variable.name.lower() for loop in work.walk(Loop)})
    restores = restored_on_return(work, plan, formals + shared_written)
    # What f_rev (but the results it delivers) leaves as it found it.
    rev_restores = restored_on_return(work, plan, formals, dead) - outputs
    # Cheap scalars set once are computed again, not handed over.
    again, again_stmts = computed_again(work, plan.finals, written, all_writes, alias,
                                        module_constant, cheap_calls, arg_names)
    cheap = {spec.calls[key].unit.name.lower(): spec.calls[key] for key in cheap_calls}
    again_stmts = [computed_again_call(s.copy(), cheap, filename) for s in again_stmts]
    # So are local arrays one loop sets from cheap formulas (coefficients).
    arrays, loops = arrays_computed_again(work, plan.finals, again, written, all_writes, alias,
                                          module_constant)
    loops = _renamed_scalars({None: loops}, table, taken)[None]
    again |= arrays | late_arrays
    again_stmts += loops
    finals = [name for name in plan.finals if name not in again]
    # Arguments a callee puts back from a local copy of their input values.
    entry = entry_copies(work, finals, written, all_writes, alias) \
        if spec.callee else {}
    restores |= set(entry)
    entry_ret = [s for stmts in entry.values() for s in stmts]
    # A local array handed over is handed over where it was ever set.
    handed = {name: written_section(work, name, spec.calls, call_writes)
              for name in finals}
    # Active local work arrays: the section their adjoints need zeroed.
    sections = {name: handed[name] if name in handed else
                written_section(work, name, spec.calls, call_writes)
                for name in _local_arrays(table, active)}

    taped_arrays = any(expr_rank(a.lhs) > 0 for a in assignments if id(a) in plan.taped)
    # Strings go on the tape character by character: their length may be
    # known only at run time (len=*), so their room too.
    taped_names = {a.lhs.symbol.name.lower() for a in assignments if id(a) in plan.taped}
    taped_names |= {name for _, name in plan.taped_calls} | set(finals)
    taped_arrays = taped_arrays or any(
        _is_character(table.lookup(name, otherwise=None)) for name in taped_names)
    dynamic = (spec.tapes is not None or bool(work.walk((Loop, WhileLoop))) or taped_arrays
               or plan.taped_arrays or plan.taped_calls or any(
                   symbol_rank(table.lookup(n)) > 0 or _holds_arrays(table.lookup(n))
                   for n in finals))
    tapes = spec.tapes if spec.tapes is not None else TapeSet(
        table, dynamic, taken, options.get("tape_copy_routines", True))
    # Pushes sized by what the routine sets get their room where they are.
    tapes.start_routine(written_names(work.children, plan.call_writes) - {
        a.name.lower() for a in arguments if getattr(a.interface, "access", None) == _IN})
    # The statements by id, for messages naming one after it has moved.
    statements = {id(node): node for node in work.walk(Statement)}
    reverser = Reverser(ctx, tapes, plan, adjoints, spec.calls, spec.schedule, work.name,
                        spec.call_clears)
    reverser.sequences = spec.call_sequences
    reverser.fixed = fixed
    reverser.mpi_pairs = getattr(spec, "mpi_pairs", {})
    reverser.dead = dead
    reverser.recomputed = {key: (names, [computed_again_call(s, cheap, filename) for s in stmts])
                           for key, (names, stmts) in recomputed.items()}
    reverser.pushed = pushed
    reverser.before_reversal = {key: [s.copy() for s in stmts]
                                for key, stmts in late_before.items()}
    for key, stmts in late_loops.items():
        reverser.before_reversal[key] = stmts + reverser.before_reversal.get(key, [])
    reverser.dead_restores = dead_restores(work, reads, plan.reevaluate, reverser.recomputed,
                                           reverser.before_reversal, spec.calls)
    if not spec.callee and options["iteration_reversal"] and not alias:
        last = independent_last_loop(work, spec.calls, set(spec.deferred))
        if last is not None and not taped_arguments(last, plan, set(arg_names)):
            reverser.iterations_loop = id(last)
    location = where(work, filename)
    try:
        if spec.deferred and not spec.callee:
            tag_deferred(work.children, set(spec.deferred))
        body_rec, body_ret = reverser.block(list(work.children))

        # The returning motion has its own locals: those it reads after their
        # last write are handed over through the tape.
        final_rec, final_ret = [], []
        for name in finals:
            for value in _handed_values(handed[name], table.lookup(name)):
                save, restore = tapes.save(value)
                final_rec.extend(save)
                final_ret = restore + final_ret
        handover_ret = list(final_ret)
        final_ret += again_stmts
    except AdfortError as err:
        err.location = err.location or location   # at least the routine
        raise
    rec_body = body_rec + final_rec
    if dynamic:
        # Room for the pushes outside loops; also allocates on first use.
        needs, rooms = tapes.top_level_need(lambda tape: new_local(
            table, naming.tape_room(tape.symbol.name), INTEGER_TYPE.copy(), taken))
        reserves = []
        # (A tape only the returning motion pushes onto, as a checkpointed
        # loop's steps recorded again, is allocated here too: its room
        # checks there ask its size.)
        named = _names_in(rec_body) | _names_in(body_ret) if any(
            tape not in needs for tape in tapes.tapes) else set()
        for tape in tapes.tapes:
            if tape not in needs and not every_name(tape) & named:
                continue   # (a tape of the host's other routines: no room to make)
            need = needs.get(tape, _int(0))
            if tape in rooms:
                reserves.append(Assignment.create(Reference(rooms[tape]), need))
                need = Reference(rooms[tape])
            reserves.extend(tape.reserve(need, checked=False))
        rec_body = reserves + rec_body
        tidy_reserves(rec_body)
        rec_body = drop_covered_reserves(
            rec_body, {t.reserve_name.lower(): (t.symbol.name.lower(), t.put_name.lower())
                       for t in tapes.tapes if t.dynamic})

    adjoint_args = dep + [i for i in indep if i not in dep]
    active_args = [a for a in arg_names if a in adjoint_args]
    ret_body = returning_statements(ctx, spec, table, taken, (final_ret, body_ret, entry_ret),
                                    active_args, arg_names, sections)

    restored = {a.lhs.symbol.name.lower() for a in assignments if id(a) in plan.taped}
    restored |= set(entry)
    restored |= {loop.variable.name.lower() for loop in work.walk(Loop)
                 if id(loop) in plan.loop_indices}
    restored |= {name for _, name in plan.taped_arrays}
    restored |= {name for _, name in plan.taped_calls}
    restored |= {name for names in plan.loop_snapshots.values() for name in names}
    for wrote in call_writes.values():
        # f_ret and f_rev write back into what the call overwrote.
        restored |= wrote
    # A value put back through a pointer is put back into its target.
    restored = {canonical(name, alias) for name in restored} | restored
    fixed = sorted(a.name for a in arguments
                   if a is not result and a.interface.access == _IN
                   and a.name.lower() in restored)
    if fixed:
        # r_rev must leave its intent(in) arguments alone (they may be
        # constants in the caller): never restore one.
        raise AdfortError(
            f"internal error: the returning motion of '{work.name}' would restore the "
            f"intent(in) argument(s) {', '.join(fixed)}; please report this with the "
            "input", where(work, ctx.filename))

    # The adjoint of an optional argument is optional too.
    optional = optional_names(work)
    work.adfort_optional = optional | {ctx.adjoints[name].name.lower() for name in optional
                                       if name in ctx.adjoints}

    tape_list = tapes.finalise()
    tape_args = []
    if not dynamic:
        for tape in tape_list:
            table.add(tape.symbol)
            tape_args.append(tape.symbol)

    primal_intents = {a.name.lower(): a.interface.access for a in arguments
                      if a is not result}
    if result is not None:
        primal_intents[result.name.lower()] = _OUT
    adj_args = []
    for a in arguments:
        adj_args.append(a)
        if a.name.lower() in active_args:
            adj_args.append(ctx.adjoints[a.name.lower()])

    lean = None
    if spec.callee:
        # f_rev of a callee (its joint callers' reversal) is one routine:
        # the recording, keeping only what the returning motion needs (the
        # caller has f's results already), then the returning motion; the
        # locals live on from one to the other (no hand-over on the tape)
        # and the compiler sees the values and their partials together.
        tape_names = {t.symbol.name.lower() for t in tape_list} | {
            t.top.name.lower() for t in tape_list if t.dynamic} | {
            n for t in tape_list for n in getattr(t, "names", ())}
        reserves = {t.reserve_name.lower(): (t.symbol.name.lower(), t.put_name.lower())
                    for t in tape_list if t.dynamic}
        lean = lean_recording(drop_not_rerun([s.copy() for s in excluding(rec_body, final_rec)]),
                              table, plan.exit_reads | rerun_exit_reads | outputs,
                              tape_names, reserves,
                              {info.unit.name.lower() for key, info in spec.calls.items()
                               if key in cheap_calls})
    # Assumed-size arguments r_rev keeps copies of (a callee: that it
    # assigns, for its callers' copies): the recording motion measures how
    # far it assigns them (adfort.extents).
    elsewhere = {}
    for key, names_ in list(call_writes.items()) + list(kept_writes.items()):
        measured_here = {a.symbol.name.lower() for a, _, _ in
                         reverser.measured_calls.get(key, ())}
        for name in names_ - measured_here:
            elsewhere.setdefault(name, statements.get(key))
    if spec.callee:
        kept = {n for n in written if n not in elsewhere}
    else:
        kept = restored | {a for a in arg_names if a in indep and a not in dep
                           and a in written}
    extents = {}
    for symbol in measured_arguments([a for a in arguments if a is not result], kept,
                                     elsewhere, work, ctx.filename):
        extents[symbol.name.lower()] = extent_argument(table, symbol, taken)
        measure(rec_body, symbol, extents[symbol.name.lower()], ctx.filename)
    rec_intents = dict(primal_intents)
    rec_intents.update({t.name.lower(): _OUT for t in tape_args + list(extents.values())})
    # r_rev of the routine differentiated runs its recording inline, then its
    # returning motion given the locals it reads (r_ret_given, below): no
    # hand-over on the tape, one copy of each less at the tape's peak; the
    # calls it defers are left out (adfort.deferral).
    fused = None
    delivered = set()
    deferred_targets = set().union(*spec.deferred.values()) if spec.deferred else set()
    # Saved around another statement, or handed over: put back after the
    # call's reversal, so not its results.  (Saves around the deferred call
    # itself are left out of r_rev with it.)
    if deferred_targets & ({name for key, name in plan.taped_calls if key not in spec.deferred}
                           | set(finals)):
        deferred_targets = set()
    if not spec.callee and dynamic and not extents:
        reserves = {t.reserve_name.lower(): (t.symbol.name.lower(), t.put_name.lower())
                    for t in tape_list}
        rec_part = [s.copy() for s in excluding(rec_body, final_rec)]
        if deferred_targets:
            rec_part = without_deferred(rec_part)
        # Final writes of results straight into their output copies.
        rec_part, direct, direct_names, copied_back = direct_final_writes(
            rec_part, [a for a in arguments if a.name.lower() in restored
                       and a is not result],
            optional_names(work) | set(ctx.attributes) | deferred_targets,
            table, taken,
            lambda symbol, name: _local_copy(table, symbol, name, taken, filename),
            lambda keep, symbol: [_copy(keep, symbol)])
        fused = (drop_idle_reserves(rec_part, reserves), None, deferred_targets | direct_names)
    recording = _make_routine(work, names["rec"], rec_body,
                              arguments + tape_args + list(extents.values()), rec_intents,
                              ctx.module_variable, ctx.attributes)

    ret_intents = {a: (_INOUT if a in restored else _IN) for a in arg_names}
    ret_intents.update({ctx.adjoints[a].name.lower(): _INOUT for a in active_args})
    ret_intents.update({t.name.lower(): _IN for t in tape_args})
    allocate_at_first_use(ret_body, [t for pool in ctx._op_adjoints.values() for t in pool
                                      if symbol_rank(t) > 0])
    if lean is not None:
        ret_part = drop_not_rerun([s.copy() for s in excluding(ret_body, final_ret, entry_ret)])
        if outputs and not writes_any(ret_part, outputs):
            delivered = outputs
        elif outputs:
            # The returning part puts back input values of some results:
            # f_rev keeps the results it computed and gives them back last.
            kept = kept_results(table, [a for a in arguments if a.name.lower() in outputs
                                         and writes_any(ret_part, {a.name.lower()})],
                                 taken, optional_names(work) | set(ctx.attributes))
            if kept is not None:
                lean += kept[0]
                ret_part += kept[1]
                delivered = outputs
        lean += ret_part
        # A control value pushed last and popped first: kept in a local.
        before = len(lean)
        keep_popped_at_once(lean, [(t.symbol, t.top) for t in tape_list if t.dynamic
                                   and t.datatype.intrinsic == ScalarType.Intrinsic.INTEGER],
                            table, taken)
        if len(lean) < before:
            lean = drop_idle_reserves(lean, reserves)
    given = None
    if fused is not None and reverser.iterations_loop is not None:
        # The last loop, block by block (adfort.iteration_reversal): r_rev keeps the
        # returning motion's statements itself.
        part = [s.copy() for s in excluding(ret_body, final_ret)]
        part = without_pops(with_deferred_reversed(part) if deferred_targets else part, direct)
        statements = fuse_iterations(fused[0], part, ctx.is_adjoint_or_temporary,
                                     {t.top.name.lower() for t in tape_list if t.dynamic})
        if statements is not None:
            fused = (statements[0], statements[1] + copied_back, fused[2])
    if fused is not None and fused[1] is None:
        given, ret_part = returning_given(
            work, names.get("ret_given") or naming.returning_given(work.name), ret_body,
            (handover_ret, final_ret), adj_args + tape_args,
            [table.lookup(name) for name in finals], ret_intents, ctx,
            lambda part: without_pops(with_deferred_reversed(part) if deferred_targets
                                      else part, direct))
        fused = (fused[0], ret_part + copied_back, fused[2])
    returning = _make_routine(work, names["ret"], ret_body,
                              adj_args + tape_args, ret_intents, ctx.module_variable, ctx.attributes)

    increments = [a for a in active_args if a in indep and a not in dep]
    cleared = [a for a in active_args if a in dep and primal_intents.get(a) == _OUT]
    if not spec.callee:
        # Module variables follow the rules of arguments.
        increments += sorted(spec.module_independents - spec.module_dependents)
    else:
        increments, cleared = [], []  # pullback: no increments to keep apart
    reversing = _reversing(work, names, arguments, adj_args, tape_args, ctx,
                           increments, cleared, restored, written, primal_intents, lean,
                           extents, fused)
    jacobian = None
    if options["jacobian"] and not spec.callee:
        jacobian = _jacobian(work, names, arguments, adj_args, ctx,
                             spec.jacobian_dependents or dep,
                             spec.jacobian_independents or indep, written, taken)
    motions = RoutineMotions(recording, returning, reversing, jacobian, tape_list, dynamic)
    motions.given = given
    # What the statements computed again read is read on entry too.
    exit_reads = plan.exit_reads | {
        r.symbol.name.lower() for stmt in again_stmts + [s for stmts in late_loops.values()
                                                        for s in stmts]
        for r in stmt.walk(Reference)}
    motions.exit_reads = exit_reads & set(arg_names)
    # Module and COMMON variables r_ret reads as r_rec left them: a caller
    # linking it split need keep no others for it.
    motions.shared_exit_reads = exit_reads - own - set(arg_names)
    motions.extents = list(extents)
    if spec.callee:
        # The real arguments f_rev names at all (and all others, read in
        # its declarations too): a joint caller saves no other.
        motions.rev_reads = ({r.symbol.name.lower() for r in reversing.walk(Reference)} | {
            a.name.lower() for a in arguments
            if not is_real(a) or is_derived(a.datatype)}) & set(arg_names)
    motions.restores = restores
    motions.rev_restores = rev_restores
    motions.rev_outputs = delivered
    # Whether r_rec may push onto shared tapes (itself or through a callee).
    motions.pushes = tapes.pushes_made() > 0 or any(
        getattr(c, "pushes", True) for c in spec.calls.values() if c is not None)
    return motions


def _renamed_scalars(placed, table, taken):
    """`placed` ({id: loop copies computed again late}) with the scalars
    a copy sets (its ``adfort_renamed``) renamed to locals of their own:
    the copy runs amid the returning motion, whose statements may still
    read those scalars' values."""
    fresh = {}
    for copies in placed.values():
        for copy in copies:
            for ref in copy.walk(Reference):
                name = ref.symbol.name.lower()
                if name not in getattr(copy, "adfort_renamed", ()):
                    continue
                if name not in fresh:
                    fresh[name] = new_local(table, naming.computed_again(ref.symbol.name),
                                            ref.symbol.datatype.copy(), taken)
                ref.symbol = fresh[name]
    return placed


def _holds_arrays(symbol):
    """Whether `symbol` is of a derived type with array components (handed
    over, they go on a tape of dynamic size)."""
    dtype = getattr(symbol, "datatype", None)
    if not is_derived(dtype) or isinstance(dtype, ArrayType):
        return False
    return any(isinstance(leaf, ArrayType) for _, leaf in _leaves(dtype, ("real", "integer")))


def _local_arrays(table, active):
    """Lower-case names of the active local arrays of `table`."""
    return sorted(s.name.lower() for s in table.datasymbols
                  if s.name.lower() in active and not s.is_argument
                  and isinstance(s.datatype, ArrayType) and not is_derived(s.datatype))


def _not_rerun(work, spec, reads, reads_all, call_writes, plan, replan, outputs=()):
    """(ids of the statements f_rev's re-run leaves out, what its
    returning part then reads on entry): see :mod:`adfort.rerun`."""
    droppable = set()
    for node in work.walk(Statement):
        call = node.rhs if isinstance(node, Assignment) else node
        info = spec.calls.get(id(call)) if isinstance(call, Call) else None
        # Not a call that changes module variables (they outlive it).
        if id(node) in call_writes and info is not None and not info.opaque \
                and not info.module_writes \
                and (not spec.schedule.is_split(work.name, info.unit.name)
                     or needs_no_run(info)):
            droppable.add(id(node))
    merged = {key: set(reads.get(key, ())) | reads_all.get(key, set())
              for key in set(reads) | set(reads_all)}
    return not_rerun(work.children, work.symbol_table, merged, call_writes, droppable,
                     plan, replan, outputs)


def _names_in(statements):
    """Lower-case names of the variables and routines `statements` name."""
    return {ref.symbol.name.lower() for stmt in statements for ref in stmt.walk(Reference)}


def _is_character(symbol):
    dtype = getattr(symbol, "datatype", None)
    element = getattr(dtype, "elemental_type", dtype)
    return getattr(element, "intrinsic", None) == ScalarType.Intrinsic.CHARACTER


class ADReverseRoutineTrans(ADReverseTrans):
    """Reverse-mode differentiation of a Routine into its motions."""

    node_type = Routine

    def apply(self, node, dependents, independents, options, names, filename=None):
        """Return the :class:`RoutineMotions` of `node`."""
        self.validate(node)
        return reverse_routine(node, dependents, independents, options, names, filename)


def _handed_values(section, symbol):
    """What handing local `symbol` over at the end of the recording saves:
    the `section` of it that is ever set, or the whole of it; of a derived
    type with allocatable components, the other components only (those are
    deallocated at the end, :func:`adfort.normalise.deallocate_at_end`, and
    come back where their deallocation is reversed)."""
    from adfort.components import allocatable_components
    from adfort.derived import extend_reference, is_derived, leaf_paths
    if section is not None or not is_derived(symbol.datatype):
        return [section or Reference(symbol)]
    gone = {tuple(p) for p in allocatable_components(symbol.datatype)}
    if not gone:
        return [Reference(symbol)]
    return [extend_reference(Reference(symbol), path)
            for path in leaf_paths(symbol.datatype, ("real", "integer"))
            if not any(tuple(path[:len(p)]) == p for p in gone)]
