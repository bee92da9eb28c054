"""Reverse a block of statements: the recording and returning motions.

The :class:`Reverser` walks structured statements; each construct has its
transformation (assignment, IF, DO, DO WHILE) returning the statements it
contributes to the recording motion and to the returning motion.  The
returning code of a block is its statements' returning code in reverse
order.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, DataNode, IfBlock,
    IntrinsicCall, Literal, Loop, Range, Reference, Statement, WhileLoop)

from psyclone.psyir.symbols import ArrayType, DataSymbol

from adfort import naming
from adfort.derived import is_variable
from adfort.exprs import INTEGER_TYPE
from adfort.errors import AdfortError, where
from adfort.pointers import is_nullify, lifetime_end
from adfort.reach import reached
from adfort.sections import global_in_caller, in_caller, same_extents, section_references
from adfort.forward_only import drop_reason_comment
from adfort.writer import Writer


def statement_text(stmt):
    """One-line Fortran text of a statement, for ``! adjoint of:`` comments.

    Written straight from the node: the writer's usual call copies the whole
    tree the statement is in first (to lower DSL nodes, which adfort's trees
    do not hold), a cost per statement of the size of its routine.  One
    writer serves every statement (making one costs more than a line)."""
    if not _WRITER:
        _WRITER.append(Writer())
    writer = _WRITER[0]
    writer._depth = 0
    text = writer._visit(stmt).strip().splitlines()
    return text[0] if text else ""


_WRITER = []    # the writer of statement_text, once made


def _from_element_on(element, count=None, call=None):
    """What a callee given `element` (sequence association) may reach:
    ``a(k:)`` for an element of a vector, the whole array otherwise.

    An assumed-size array (``a(*)``, ``a(lda, *)``) has no last bound to
    save up to: the callee's dummy of `count` elements (an expression, or
    None when not declared with explicit bounds) reaches ``a(k:k+count-1)``
    of a vector, the columns ``a(:, j:j+(i-1+count-1)/lda)`` of a matrix.
    """
    from adfort.extents import is_assumed_size
    if is_assumed_size(element.symbol):
        return _assumed_size_reach(element, count, call)
    if len(element.indices) == 1:
        upper = IntrinsicCall.create(IntrinsicCall.Intrinsic.UBOUND, [
            Reference(element.symbol), ("dim", Literal("1", INTEGER_TYPE))])
        return ArrayReference.create(element.symbol, [
            Range.create(element.indices[0].copy(), upper)])
    return Reference(element.symbol)


def _assumed_size_reach(element, count, call):
    shape = element.symbol.datatype.shape
    name = element.symbol.name
    if count is None or len(shape) > 2 or (len(shape) == 2 and not all(
            isinstance(b, DataNode) for b in (shape[0].lower, shape[0].upper))):
        remedy = ("declare the callee's dummy with explicit bounds (x(n)), or "
                  f"'{name}' with explicit bounds") if count is None else (
                  f"adfort saves such sections of assumed-size arrays of rank 1 or 2 "
                  f"(with explicit leading bounds) only: declare '{name}' with explicit bounds")
        raise AdfortError(
            f"'{element.debug_string()}', an element of the assumed-size array '{name}', "
            f"starts an array the callee changes, and adfort cannot tell how many elements "
            f"it reaches: {remedy}", where(call, None) if call is not None else None)
    indices = element.indices
    first = indices[-1] if len(indices) == 1 else indices[0]

    def arith(op, a, b):
        return BinaryOperation.create(op, a, b)
    add, sub, div = (BinaryOperation.Operator.ADD, BinaryOperation.Operator.SUB,
                     BinaryOperation.Operator.DIV)
    one = Literal("1", INTEGER_TYPE)
    from adfort.simplify import simplify
    if len(indices) == 1:
        last = simplify(arith(sub, arith(add, first.copy(), count.copy()), one.copy()))
        return ArrayReference.create(element.symbol, [Range.create(first.copy(), last)])
    lower, upper = shape[0].lower.copy(), shape[0].upper.copy()
    rows = arith(add, arith(sub, upper, lower.copy()), one.copy())
    # Elements from (i, j) on: count of them end in column
    # j + (i - lower + count - 1)/rows.
    offset = arith(sub, arith(add, arith(sub, first.copy(), lower), count.copy()), one.copy())
    column = indices[1]
    last = simplify(arith(add, column.copy(), arith(div, simplify(offset), simplify(rows))))
    return ArrayReference.create(element.symbol, [
        Range.create(shape[0].lower.copy(), shape[0].upper.copy()),
        Range.create(column.copy(), last)])


def enclosing_loop_indices(node):
    """Lower-case names of the DO variables of `node` (if a loop) and of the
    loops around it."""
    names = set()
    while node is not None:
        if isinstance(node, Loop):
            names.add(node.variable.name.lower())
        node = node.parent
    return names


NOT_RERUN = "adfort_not_rerun"


def tag_not_rerun(nodes):
    """Mark `nodes` (statements) as left out of a joint re-run."""
    for node in nodes:
        setattr(node, NOT_RERUN, True)


def drop_not_rerun(statements):
    """`statements` without those marked by :func:`tag_not_rerun`, at
    every depth (modified in place; the kept top-level list returned)."""
    kept = []
    for stmt in statements:
        if getattr(stmt, NOT_RERUN, False):
            continue
        for inner in stmt.walk(Statement):
            if inner is not stmt and getattr(inner, NOT_RERUN, False) \
                    and inner.parent is not None:
                inner.detach()
        kept.append(stmt)
    return kept


class Reverser:
    """Builds the two motions of a routine body.

    :param ctx: the :class:`adfort.context.ADContext`.
    :param tapes: the routine's :class:`adfort.tape.TapeSet`.
    :param plan: the :class:`adfort.taping.TapingPlan`.
    :param adjoints: dict id(Assignment) -> its adjoint statements.
    """

    def __init__(self, ctx, tapes, plan, adjoints, calls=None, schedule=None,
                 routine_name="", clears=None):
        self.ctx = ctx
        self.tapes = tapes
        self.plan = plan
        self.adjoints = adjoints
        self.calls = calls or {}  # id(Call) -> CalleeMotions, or None if passive
        self.schedule = schedule
        self.routine_name = routine_name
        self.clears = clears or {}  # id(call statement) -> actuals to clear
        # id(call statement) -> positions of elements starting array dummies
        self.sequences = {}
        # id(call statement) -> [(actual, extent, formal)] (call.py)
        self.measured_calls = {}
        # id(MPI wait call) -> the non-blocking calls it completes, and the
        # locals of the MPI adjoints (adfort/transformations/mpi.py).
        self.mpi_pairs = {}
        self.mpi_locals = {}
        self.mpi_requests = {}
        # id(Loop) -> (names, statements) each reversed iteration computes
        # again (adfort/iterations.py).
        self.recomputed = {}
        # id(Loop) -> names each iteration pushes at its end
        # (adfort/iteration_values.py).
        self.pushed = {}
        # id(statement) -> statements computing again, before it is
        # reversed, what its adjoint reads (adfort/late_values.py).
        self.before_reversal = {}
        # ids of the statements a joint re-run (f_rev) leaves out, with
        # their pushes and pops (adfort/rerun.py): tagged NOT_RERUN.
        self.dead = set()
        # The last loop r_rev reverses iteration by iteration (its id).
        self.iterations_loop = None
        # fixed(name): the caller's variable holds one value throughout
        # (a constant, an argument it never changes): what the sections of
        # its saves around calls may read (adfort/sections.py).
        self.fixed = None
        # id(call statement) -> names whose restore after a joint call's
        # f_rev nothing reads (adfort/joint_restores.py).
        self.dead_restores = {}

    def block(self, statements):
        """Return (recording statements, returning statements) of a block."""
        rec, ret_blocks = [], []
        statements = list(statements)
        associations = []
        for position, stmt in enumerate(statements):
            if isinstance(stmt, Assignment) and stmt.is_pointer:
                associations.append((lifetime_end(statements, position),
                                     self.reassociation(stmt)))
            stmt_rec, stmt_ret = self.statement(stmt)
            rec.extend(stmt_rec)
            again = self.before_reversal.get(id(stmt))
            if again:
                stmt_ret = [s.copy() for s in again] + stmt_ret
            ret_blocks.append(stmt_ret)
        for end, again in associations:
            # Before the reversed statements of the association's lifetime.
            ret_blocks[end] = again + ret_blocks[end]
        ret = [s for blk in reversed(ret_blocks) for s in blk]
        return rec, ret

    def branch_flag(self):
        """The integer local receiving a popped IF decision (one per
        routine: each is tested as soon as it is popped)."""
        if getattr(self, "_branch_flag", None) is None:
            from adfort.symbols import new_local
            self._branch_flag = new_local(self.ctx.table, naming.BRANCH_TAKEN,
                                          INTEGER_TYPE.copy(), self.ctx.taken)
        return self._branch_flag

    def reassociation(self, assign):
        """``p => a(:, k)`` and ``p_adj => a_adj(:, k)`` for the returning motion."""
        from adfort.transformations.assignment import adjoint_reference
        again = [assign.copy()]
        lhs_adj = self.ctx.adjoint_symbol(assign.lhs.symbol)
        rhs_adj = self.ctx.adjoint_symbol(assign.rhs.symbol)
        if lhs_adj is not None and rhs_adj is not None:
            again.append(Assignment.create(Reference(lhs_adj),
                                           adjoint_reference(assign.rhs, rhs_adj),
                                           is_pointer=True))
        return again

    def statement(self, stmt):
        """Dispatch `stmt` to the transformation of its construct."""
        # Imported here: the construct modules use this module's helpers.
        from adfort.transformations.assignment import ADReverseAssignmentTrans
        from adfort.transformations.ifblock import ADReverseIfBlockTrans
        from adfort.transformations.loop import (
            ADReverseLoopTrans, ADReverseWhileLoopTrans)
        from adfort.transformations.allocation import (
            ADReverseAllocationTrans, is_allocation)
        from adfort.transformations.call import ADReverseCallTrans
        if is_allocation(stmt):
            return ADReverseAllocationTrans().reverse(stmt, self)
        if is_nullify(stmt):
            # The end of an alias's lifetime: the returning motion
            # re-associates the pointer where it reverses that lifetime.
            drop_reason_comment(stmt)
            return [stmt.detach()], []
        if isinstance(stmt, CodeBlock):
            return self.forward_only(stmt)
        if isinstance(stmt, Call) and id(stmt) in self.calls:
            return ADReverseCallTrans().reverse(stmt, self)
        if getattr(stmt, "adfort_checkpoint", None) is not None:
            if isinstance(stmt, WhileLoop):
                from adfort.transformations.fixed_point import reverse_fixed_point_loop
                return reverse_fixed_point_loop(stmt, self)
            from adfort.transformations.checkpoint import reverse_checkpointed_loop
            return reverse_checkpointed_loop(stmt, self)
        if isinstance(stmt, Assignment) and id(stmt.rhs) in self.calls:
            return ADReverseCallTrans().reverse(stmt.rhs, self, target=stmt.lhs)
        for node_type, trans in ((Assignment, ADReverseAssignmentTrans),
                                 (IfBlock, ADReverseIfBlockTrans),
                                 (Loop, ADReverseLoopTrans),
                                 (WhileLoop, ADReverseWhileLoopTrans)):
            if isinstance(stmt, node_type):
                return trans().reverse(stmt, self)
        raise AdfortError(f"cannot reverse a {type(stmt).__name__}",
                          where(stmt, self.ctx.filename))

    def forward_only(self, block):
        """I/O and STOP (the fence let no other statement through): run in
        the recording motion only; what they overwrite that the adjoint
        still needs is saved before and put back on the way back."""
        rec, ret = [], []
        for name in sorted(name for key, name in self.plan.taped_calls if key == id(block)):
            symbol = self.ctx.table.lookup(name, otherwise=None)
            if not isinstance(symbol, DataSymbol) or symbol.is_unresolved:
                found = self.ctx.module_variable(name)
                symbol = found[1] if found else None
            if symbol is not None:
                save, restore = self.tapes.save(Reference(symbol))
                rec.extend(save)
                ret = restore + ret
        drop_reason_comment(block)
        rec.append(block.detach())
        return rec, ret

    def call_saves(self, stmt, split=False):
        """(text, record, restore) triples for what the call `stmt` may
        overwrite that the adjoint still needs (`text`: the saved reference,
        lower case).

        :param split: the call is linked split: a variable the statement
            before copied whole (``rhs = th``) is put back from the copy
            where the returning motion reverses the call
            (:func:`adfort.taping._copy_before`), not saved."""
        names = {name for key, name in self.plan.taped_calls if key == id(stmt)}
        call = stmt.rhs if isinstance(stmt, Assignment) else stmt
        sequences = self.sequences.get(id(stmt), ())
        info = self.calls.get(id(call))
        formals = [f for f in info.unit.formals if f is not info.unit.result] \
            if info is not None and not info.opaque else []
        written = self.plan.call_writes.get(id(stmt), set())
        pairs, seen, found = [], set(), []
        for position, actual in enumerate(call.arguments):
            if is_variable(actual) and actual.symbol.name.lower() in names:
                for saved in saved_references(call, position, info, formals, written,
                                              sequences, self.fixed):
                    text = saved.debug_string().lower()
                    if text not in seen:
                        seen.add(text)
                        found.append((text, saved))
        # A variable saved whole holds its parts: ``st`` and ``st%t`` given
        # to one call (``call diffuse(st, st%t)``) are saved once.
        whole = {saved.symbol for _, saved in found if type(saved) is Reference}
        copied = getattr(self.plan, "copied_back", {}) if split else {}
        for text, saved in found:
            copy = copied.get((id(stmt), text)) if type(saved) is Reference else None
            if copy is not None:
                source = stmt.scope.symbol_table.lookup(copy)
                pairs.append((text, [], [Assignment.create(saved.copy(), Reference(source))]))
            elif type(saved) is Reference or saved.symbol not in whole:
                pairs.append((text, *self.tapes.save(saved)))
        for name in sorted(names - {a.symbol.name.lower() for a in call.arguments
                                    if is_variable(a)}):
            # A module variable the callee writes.
            symbol = self.ctx.table.lookup(name, otherwise=None)
            if not isinstance(symbol, DataSymbol) or symbol.is_unresolved:
                found = self.ctx.module_variable(name)
                if found is None and info is not None and not info.opaque:
                    # Not visible here (``use tab, only: init, f``): where
                    # the callee, or what it calls, sees it.
                    found = seen_by_callees(info.unit, name)
                symbol = found[1] if found else None
            if symbol is None:
                raise AdfortError(
                    f"internal error: the call to '{call.routine.name}' overwrites the "
                    f"module variable '{name}', which the adjoint needs, and adfort "
                    "cannot find its declaration to save it; please report this with "
                    "the input", where(stmt, self.ctx.filename))
            for saved in self.module_saved(stmt, info, symbol, name):
                pairs.append((saved.debug_string().lower(), *self.tapes.save(saved)))
        return pairs

    def module_saved(self, stmt, info, symbol, name):
        """References to what call `stmt` (to `info`'s routine) may change
        of module or COMMON variable `name` (`symbol`, as seen here): the
        sections the callee changes (:func:`adfort.sections.global_sections`),
        else the whole variable.  Saved before the call and put back where
        it is reversed, within the same iteration of the loops around it:
        their DO variables hold there the values they had at the call."""
        whole = [Reference(symbol)]
        found = info.unit.module_variable(name) if info is not None and not info.opaque \
            else None
        if found is None or self.fixed is None or \
                not isinstance(symbol.datatype, ArrayType) or \
                not same_extents(symbol.datatype, found[1].datatype):
            return whole
        indices = enclosing_loop_indices(stmt)
        call = stmt.rhs if isinstance(stmt, Assignment) else stmt
        sections = global_in_caller(info.unit, name, call,
                                    lambda n: self.fixed(n) or n in indices)
        return whole if sections is None else section_references(Reference(symbol), sections)

    def comment(self, statements, original):
        """Label the first returning statement with what it reverses."""
        if statements and self.ctx.options["verbose"]:
            statements[0].preceding_comment = "adjoint of: " + original


def saved_references(call, position, info, formals, written, sequences, fixed=None):
    """What saving the actual argument at `position` around `call` saves:
    the actual itself, or the parts the callee can change (a list).

    :param fixed: ``fixed(name)``: whether the caller's variable holds one
        value throughout (:mod:`adfort.sections`); None: no sections."""
    actual = call.arguments[position]
    if position in sequences:
        # a(k) starting an array dummy: the callee may change any element
        # of a from k on (a(k:) of a vector).
        count = None
        if position < len(formals):
            from adfort.extents import declared_elements
            count = declared_elements(formals[position], {
                f.name.lower(): a for f, a in zip(formals, call.arguments)})
        return [_from_element_on(actual, count, call)]
    if position < len(formals) and actual.symbol.name.lower() not in info.module_writes:
        # The sections the callee changes (its boundary rows), unless it
        # also writes the array as a module variable.
        sections = in_caller(actual, formals[position], info.unit, call, fixed) \
            if fixed is not None else None
        if sections is not None:
            return section_references(actual, sections)
        # A whole array given to an explicit-shape dummy: the callee reaches
        # its leading section only.
        found = reached(actual, formals[position], info.unit, call, written)
        if found is not None:
            return [found]
    return [actual.copy()]


def whole_saves(statements, calls, sequences, call_writes, fixed=None):
    """{id(call statement): names} a save around the call would save
    whole: once saved there, the earlier adjoints reading them have their
    values back whatever later statements overwrite (see
    :func:`adfort.taping.plan_taping`)."""
    found = {}
    for stmt in statements:
        for node in stmt.walk((Call, Assignment)):
            call = node.rhs if isinstance(node, Assignment) else node
            if not isinstance(call, Call) or id(node) not in call_writes:
                continue
            info = calls.get(id(call))
            formals = [f for f in info.unit.formals if f is not info.unit.result] \
                if info is not None and not info.opaque else []
            names = set()
            for position, actual in enumerate(call.arguments):
                if type(actual) is Reference and is_variable(actual):
                    saved = saved_references(call, position, info, formals,
                                             call_writes[id(node)],
                                             sequences.get(id(node), ()), fixed)
                    if any(type(s) is Reference for s in saved):
                        names.add(actual.symbol.name.lower())
            if names:
                found[id(node)] = names
    return found


def seen_by_callees(unit, name, seen=None):
    """(module, DataSymbol) of the module variable `name` as `unit` or a
    routine it calls (at any depth) sees it, or None."""
    seen = seen if seen is not None else set()
    if id(unit) in seen:
        return None
    seen.add(id(unit))
    found = unit.module_variable(name)
    if found is not None:
        return found
    for callee in unit.calls.values():
        if callee is not None and not getattr(callee, "opaque", False):
            found = seen_by_callees(callee, name, seen)
            if found is not None:
                return found
    return None
